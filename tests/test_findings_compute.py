"""Chapter 3's findings (llmest.plans.findings.compute): the English as the chapter shows it, with its figures, the
Chinese, and bad input refused by name. ``SAMPLES`` feeds tests/test_findings.py."""

from __future__ import annotations

import dataclasses
import html.parser
import re

import pytest

from llmest import InputError, hardware, material, plans, runs
from llmest import compute as c
from llmest import memory as mem
from llmest.book.edition import english_prose
from llmest.core.i18n import _, speaking
from llmest.core.units import format_int
from llmest.display.table import TEXT_WIDTH, Table
from llmest.display.table import _width as width
from llmest.formulas.model import preset
from llmest.plans.findings import compute as findings

DECODE_GPUS = ["A100 80GB", "H100 SXM", "H200", "MI300X", "RTX 4090"]

SAMPLES = {
    "sparse_attention": lambda: findings.sparse_attention("deepseek-v3.2-exp", [1024, 8192, 131072]),
    "attention_share": [lambda: findings.attention_share(["llama-3-8b", "llama-2-70b"]),
                        lambda: findings.attention_share(["gemma-2-9b"])],
    "attention_flops": lambda: findings.attention_flops(["llama-3.1-70b", "deepseek-v3", "gpt-oss-120b"], 32768),
    "attention_time": lambda: findings.attention_time(2e12, model="llama-2-7b", gpus=256, seq_len=4096),
    "palm_mfu": lambda: findings.palm_mfu(),
    "gpt3": lambda: findings.gpt3(),
    "training_cost": lambda: findings.training_cost(7e9, 1e12, 256, "A100 80GB", mfu=0.4, price_low=2, price_high=3),
    "time_margin": lambda: findings.time_margin(),
    "hfu": lambda: findings.hfu(0.4),
    "remember": lambda: findings.remember(),
    "resume_checkpoint": lambda: findings.resume_checkpoint(),
    "checkpoint_storage": [
        lambda: findings.checkpoint_storage(70e9, run_hours=30 * 24, interval_hours=0.5, keeps=[None, 5]),
        lambda: findings.checkpoint_storage(70e9, run_hours=720, interval_hours=6, keeps=[5])],
    "feed_rate": lambda: findings.feed_rate(7e9, 1e12, days=15, gpus=256),
    "decode_roofline": [lambda: findings.decode_roofline("llama-2-7b", "A100 80GB"),
                        lambda: findings.decode_roofline("gpt-oss-120b", "H100 SXM"),
                        lambda: findings.decode_roofline(_windowed(), "A100 80GB")],
    "parameter_counts": lambda: findings.parameter_counts(["gpt2", "llama-2-7b", "llama-3-8b", "gemma-7b",
                                                           "llama-2-70b", "mixtral-8x7b", "deepseek-v3"]),
    "gpu_catalog": lambda: findings.gpu_catalog(),
    "gpu_sources": lambda: findings.gpu_sources(),
    "decode_limits": [lambda: findings.decode_limits("llama-3-8b", DECODE_GPUS, seq_len=1024, batch=1),
                      lambda: findings.decode_limits("llama-3-8b", ["A100 80GB", "H100 SXM"], batch=4),
                      lambda: findings.decode_limits("gpt-oss-120b", ["H100 SXM"], batch=64),
                      lambda: findings.decode_limits(_windowed(), ["A100 80GB"])],
    "largest_batches": lambda: findings.largest_batches("llama-2-7b", "A100 80GB", prompts=(256, 1024, 2048, 3584),
                                                        output_tokens=512),
}


def _table(finding) -> Table:
    (table,) = finding.report().blocks
    return table


# -- the English, with the chapter's figures ------------------------------------------------------------------------

def test_where_attention_takes_a_share_of_the_flops():
    assert str(findings.attention_share(["llama-3-8b", "llama-2-70b"])).splitlines() == [
        "llama-3-8b: attention is a quarter of the FLOPs at 9,543 tokens, half at 28,629",
        "llama-2-70b: attention is a quarter of the FLOPs at 17,475 tokens, half at 52,425"]
    lines = str(findings.attention_flops(["llama-3.1-70b", "deepseek-v3", "gpt-oss-120b"], 32768)).splitlines()
    assert lines[0] == "llama-3.1-70b  6N  4.17e11   attention  2.58e11   (38% of all)"
    assert "(69% of all)" in lines[1] and "(49% of all)" in lines[2]
    assert str(findings.attention_time(2e12, model="llama-2-7b", gpus=256, seq_len=4096)) == (
        "6·N·D only: 28.7 days; with the attention at 4,096 tokens: 33.4 days at the same 40% MFU, which on 6·N·D "
        "alone is 34.4%")


def test_the_published_runs():
    assert str(findings.palm_mfu()) == "PaLM MFU without the attention term 45.7%, with it 46.2%"
    assert str(findings.gpt3()).splitlines() == [
        "GPT-3: 6·N·D = 3.14e23 against the paper's 3.14e23;",
        "on Patterson et al.'s estimate of 3,552,000 V100-hours that is an MFU of 20%"]


def test_a_runs_time_and_cost():
    found = findings.training_cost(7e9, 1e12, 256, "A100 80GB", mfu=0.4, price_low=2, price_high=3)
    assert str(found).splitlines() == [
        "FLOPs 4.2e22; GPU-seconds 336,538,462; GPU-hours 93,483",
        "one A100: 3,895 days = 10.7 years; 256 A100s: 15.2 days; at $2-3 an hour: $186,966 to $280,449"]
    assert found["gpu"] == "A100 80GB" and found["flops"] == c.training_flops(7e9, 1e12)
    assert str(findings.time_margin()) == "time margin: +15% to +25%"
    assert str(findings.hfu(0.4)) == "MFU 40% with full recomputation is HFU 53.3%"
    assert str(findings.remember()).splitlines() == [
        "7B on 1T tokens                        4.2e22 FLOPs",
        "… on A100s at 40% MFU                  93,483 GPU-hours",
        "A100 / H100 SXM dense BF16             312 / 989 TFLOPS",
        "published MFU (21 runs, 6·N only)      13% to 51%, median 35%"]


def test_checkpoints_and_the_data_feed():
    assert str(findings.resume_checkpoint()) == "resume checkpoint: 14 bytes a parameter"
    assert str(findings.checkpoint_storage(70e9, run_hours=720, interval_hours=0.5, keeps=[None, 5])).splitlines() == [
        "70B, 30 days, every 30 min, keep all: 1.41 PB", "70B, 30 days, every 30 min, keep 5: 4.90 TB"]
    assert str(findings.checkpoint_storage(70e9, run_hours=720, interval_hours=6, keeps=[5])) == (
        "70B, 30 days, every 6 h, keep 5: 4.90 TB")
    assert str(findings.feed_rate(7e9, 1e12, days=15, gpus=256)) == (
        "feeding a 7B run of 1T tokens in 15 days on 256 GPUs: 3,014 tokens/s per GPU")


def test_the_roofline_by_hand():
    found = findings.decode_roofline("llama-2-7b", "A100 80GB")
    assert str(found).splitlines() == [
        "weights 13.5 GB, bandwidth 2,039 GB/s, peak 312 TFLOPS",
        "batch-1 step: weights / bandwidth = 6.61 ms, 151 tokens/s",
        "  decode_estimate at 1 token of context: 6.61 ms",
        "KV cache: 512 KiB a token (K and V · 32 layers · 32 KV heads · 128 wide · 2 bytes)",
        "ridge: peak / bandwidth = 153 FLOPs per byte",
        "compute-bound from batch 156 with no KV cache, but past 165 tokens of context at no batch"]
    assert found["estimated_step_seconds"] == plans.decode_estimate("llama-2-7b", "A100 80GB", batch=1,
                                                                    seq_len=1).step_seconds


def test_the_parameter_counts_and_the_largest_batches():
    counts = str(findings.parameter_counts(["gpt2", "mixtral-8x7b"]))
    assert "46.7B" in counts and "12.7B" in counts
    assert str(findings.parameter_counts(["gpt2", "llama-2-7b", "mixtral-8x7b", "deepseek-v3"])).splitlines() == [
        "model         all parameters  N for 6·N·D",
        "------------  --------------  -----------",
        "gpt2                    124M         124M",
        "llama-2-7b             6.74B        6.61B",
        "mixtral-8x7b           46.7B        12.7B",
        "deepseek-v3             671B        36.6B"]
    batches = findings.largest_batches("llama-2-7b", "A100 80GB", prompts=(256, 1024, 2048, 3584), output_tokens=512)
    assert str(batches).splitlines() == [
        "prompt  largest batch  TTFT, 1 request (ms)  attention share (%)  TPOT (ms)",
        "------  -------------  --------------------  -------------------  ---------",
        "   256            135                  27.2                  0.5       6.74",
        " 1,024             67                 110.6                  2.0       6.94",
        " 2,048             40                 225.7                  3.9       7.20",
        " 3,584             25                 406.5                  6.6       7.60"]


def test_the_catalog_and_decode_tables_hold_the_library_figures():
    catalog = _table(findings.gpu_catalog())
    assert catalog.column("GPU") == tuple(g.name for g in hardware.CATALOG.values())
    assert catalog.column("BF16")[1] == f"{hardware.gpu('A100 80GB').bf16_flops_per_s / 1e12:.1f}"
    assert ("A100 80GB     312.0       -        -   156.0   19.5   80.0   85.9              2.04  NVLink 3 (600 GB/s)"
            in str(catalog).splitlines())
    assert catalog.column("FP4")[catalog.column("GPU").index("GB200 NVL72")] == "10000.0"   # dense, half of 20 PFLOPS
    gpus = ["A100 80GB", "H100 SXM"]
    decode = _table(findings.decode_limits("llama-3-8b", gpus, seq_len=1024))
    for row, name in zip(decode.rows, gpus):
        estimate = plans.decode_estimate("llama-3-8b", name, batch=1, seq_len=1024)
        g = hardware.gpu(name)
        assert row[3] == format_int(estimate.tokens_per_s) and row[4] == estimate.bound
        assert row[1] == format_int(c.compute_bound_batch(mem.model_weight_bytes("llama-3-8b"),
                                                          c.flops_params("llama-3-8b"), g.bandwidth_bytes_per_s,
                                                          g.bf16_flops_per_s))
    shown = str(findings.decode_limits("llama-3-8b", DECODE_GPUS, seq_len=1024, batch=1)).splitlines()
    assert shown[4] == "A100 80GB                       164                  748                          126  memory"
    assert shown[-1] == "RTX 4090                        175                  699                           62  memory"


def _windowed():
    """Llama-2-7B with every layer a 64-token window: past the window no sequence's cache grows."""
    return dataclasses.replace(preset("llama-2-7b"), local_window=64, local_layers=32, name="windowed-7b")


def test_a_model_windowed_everywhere_is_compute_bound_at_any_context():
    roofline, limits = findings.decode_roofline(_windowed(), "A100 80GB"), findings.decode_limits(_windowed(),
                                                                                                  ["A100 80GB"])
    assert roofline["context_limit"] is None and limits["gpus"][0]["context_limit"] is None  # JSON has no infinity
    assert str(roofline).splitlines()[-1] == ("compute-bound from batch 156 with no KV cache, and with a batch large "
                                              "enough at any context (every layer windowed)")
    assert _table(limits).rows[0][:3] == ("A100 80GB", "156", "none (every layer windowed)")
    with speaking("zh"):
        assert "（每一层都是滑动窗口）" in str(roofline) and "无（每层都是窗口注意力）" in str(limits)


class _Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "td":
            self._open = ""

    def handle_data(self, data):
        if self._open is not None:
            self._open += data

    def handle_endtag(self, tag):
        if tag == "td" and self._open is not None:
            self.cells.append(self._open)
            self._open = None


def test_every_cell_of_the_catalog_appears_identically_in_both_forms():
    found = findings.gpu_catalog()
    table = _table(found)
    parser = _Cells()
    parser.feed(found._repr_html_())
    assert parser.cells == [cell for row in table.rows for cell in row]
    text = str(found)
    for row in table.rows:
        assert all(cell in text for cell in row)


# -- the Chinese ----------------------------------------------------------------------------------------------------

def test_the_chinese_keeps_the_figures_and_no_english_words():
    with speaking("zh"):
        t = {name: str(call()) for name, call in _first_samples().items()}
    assert "9,543" in t["attention_share"] and "28,629" in t["attention_share"]
    assert "（占全部的 38%）" in t["attention_flops"]
    assert "卡时 93,483（9.35万）" in t["training_cost"]
    assert "$186,966（18.7万美元）到 $280,449（28万美元）" in t["training_cost"]
    assert "93,483（9.35万）卡时" in t["remember"] and "13%～51%，中位数 35%" in t["remember"]
    assert "53.3%" in t["hfu"] and "1.41 PB" in t["checkpoint_storage"] and "3,014" in t["feed_rate"]
    assert "165" in t["decode_roofline"] and "156" in t["decode_roofline"]
    for name, text in t.items():
        assert not english_prose(text), (name, english_prose(text))
    # no lowercase English word of three letters or more outside code (a call, an identifier) and quoted names
    for name in ("attention_flops", "training_cost", "remember"):
        words = re.findall(r"(?<![\w.\-/:`'])[a-z]{3,}(?![\w.\-/:`'(])", t[name])
        assert set(words) <= {"tokens", "token"}, (name, words)


def _first_samples() -> dict:
    return {name: calls[0] if isinstance(calls, list) else calls for name, calls in SAMPLES.items()}


def test_gpu_sources_and_catalog_in_chinese():
    english = str(findings.gpu_sources()), str(findings.gpu_catalog())
    with speaking("zh"):
        shown = str(findings.gpu_sources()), str(findings.gpu_catalog())
        notes = [_(g.note) for g in hardware.CATALOG.values()]
        memory = [g.memory_source_shown for g in hardware.CATALOG.values()]
    assert all(not english_prose(text) for text in (*shown, *notes, *memory))
    assert "稀疏" in shown[0] and "见公开的问题报告与日志" in shown[0]
    assert (str(findings.gpu_sources()), str(findings.gpu_catalog())) == english


def test_the_sources_say_the_memory_source_as_the_catalog_does():
    for lang in ("en", "zh"):
        with speaking(lang):
            rows = _table(findings.gpu_sources()).rows
            for row, g in zip(rows, hardware.CATALOG.values()):
                assert row[1] == _("{source}; exposed memory: {memory_source}").format(
                    source=_(g.source), memory_source=g.memory_source_shown)


def test_tables_in_chinese_have_chinese_headers_and_captions():
    def made():
        return [_table(f) for f in (findings.gpu_catalog(), findings.gpu_sources(),
                                    findings.decode_limits("llama-3-8b", ["A100 80GB", "H100 SXM"], batch=4))]

    with speaking("zh"):
        chinese = made()
    english = made()
    assert "带宽 (TB/s)" in chinese[0].headers and "bandwidth (TB/s)" in english[0].headers
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for zh, en in zip(chinese, english):
        assert [hit for text in [zh.caption, *zh.headers] for hit in english_prose(text)] == []
        assert zh.rows != () and len(zh.rows) == len(en.rows)
        assert all(cjk.search(h) for h in zh.headers if h != en.headers[zh.headers.index(h)])
    assert chinese[-1].column("瓶颈") == ("显存", "显存")


def test_a_chinese_table_as_text_lines_up_in_a_terminal():
    with speaking("zh"):
        made = [_table(findings.gpu_sources()), _table(findings.decode_limits("llama-3-8b", ["H100 SXM"], batch=4))]
    for table in made:
        lines = table.text().splitlines()
        rule = next(line for line in lines if set(line) <= {"-", " "})
        assert all(width(line) <= TEXT_WIDTH for line in lines)
        header = lines[lines.index(rule) - 1]
        starts = [m.start() for m in re.finditer(r"(?<=  )-|^-", rule)]
        columns = "".join(ch * width(ch) for ch in header)
        assert [m.start() for m in re.finditer(r"(?:(?<=  )|^)\S", columns)] == starts


def test_the_english_comes_back_outside_the_chinese_block():
    english = {name: str(call()) for name, call in _first_samples().items()}
    with speaking("zh"):
        chinese = {name: str(call()) for name, call in _first_samples().items()}
    assert {name: str(call()) for name, call in _first_samples().items()} == english
    assert all(chinese[name] != english[name] for name in english if name not in ("gpu_catalog",))


# -- what the old test of chapter 3's printed texts also held (the published runs' table, the material's boxes) ----

def test_the_runs_table_and_the_material_boxes():
    table, mfu_box = str(runs.runs_table()), material.get("004-3.2-mfu").box()
    cost_box = material.get("000-4.3-7b-cost").box()
    mtnlg = table[table.index("MT-NLG 530B"):table.index("PaLM 540B")]
    assert "tokens, throughput," in mtnlg and "stated MFU" in mtnlg and "3,552,000" in table
    assert "47% HFU, peak" in table
    assert "the 21 published runs of llmest.runs (2020-2024: GPT-3 175B" in mfu_box
    assert "GPU-hours at 40% MFU × $2.5, the middle of $2-3" in cost_box
    with speaking("zh"):
        shown = {"runs": str(runs.runs_table()), "mfu box": material.get("004-3.2-mfu").box(),
                 "cost box": material.get("000-4.3-7b-cost").box(),
                 "epochs box": material.get("004-4.1-epochs").box()}
    for name, text in shown.items():
        assert not english_prose(text), (name, english_prose(text))
    assert "卡时" in shown["runs"] and "$2.5" in shown["cost box"] and "$2-3" in shown["cost box"]
    assert "21 次" in shown["mfu box"]


# -- bad input ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, param", [
    (lambda: findings.parameter_counts("gpt2"), "models"),
    (lambda: findings.parameter_counts([]), "models"),
    (lambda: findings.parameter_counts(["gpt2", "gpt-9"]), "models"),
    (lambda: findings.largest_batches("llama-2-7b", "A100 80GB", prompts=256, output_tokens=512), "prompts"),
    (lambda: findings.largest_batches("llama-2-7b", "A100 80GB", prompts=[256], output_tokens=0), "output_tokens"),
    (lambda: findings.attention_flops("llama-2-7b", 4096), "models"),
    (lambda: findings.attention_flops(["llama-2-7b"], -1), "seq_len"),
    (lambda: findings.attention_share("llama-3-8b"), "models"),
    (lambda: findings.attention_share(["llama-3-8b", 7]), "models"),
    (lambda: findings.attention_time(2e12, model="llama-2-7b", gpus=256, seq_len=None), "seq_len"),
    (lambda: findings.training_cost(7e9, 1e12, 256, price_low=-1), "price_low"),
    (lambda: findings.training_cost(7e9, 1e12, 256, price_high=-1), "price_high"),
    (lambda: findings.training_cost(7e9, 1e12, 2.5), "gpus"),
    (lambda: findings.training_cost(7e9, 1e12, 256, mfu=1.5), "mfu"),
    (lambda: findings.training_cost(7e9, 1e12, 256, gpu="A100 20GB"), "gpu"),
    (lambda: findings.hfu(0), "mfu"),
    (lambda: findings.checkpoint_storage(70e9, 720, 0.5, keeps=5), "keeps"),
    (lambda: findings.checkpoint_storage(70e9, 720, 0.5, keeps=[None, 2.5]), "keeps"),
    (lambda: findings.checkpoint_storage(70e9, -1, 0.5), "run_hours"),
    (lambda: findings.feed_rate(7e9, 1e12, days=0, gpus=256), "days"),
    (lambda: findings.decode_roofline("llama-2-7b", "A100 20GB"), "gpu"),
    (lambda: findings.decode_limits("llama-3-8b", ["A100 20GB"]), "gpus"),   # gpus[0], as the caller wrote it
    (lambda: findings.decode_limits("llama-3-8b", "H100 SXM"), "gpus"),
])
def test_bad_input_is_refused_by_name(call, param):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == param
