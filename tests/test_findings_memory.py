"""Chapter 2's findings (llmest.plans.findings.memory): the English as the chapter shows it, with its figures, and the
Chinese. ``SAMPLES`` feeds tests/test_findings.py. The plans the chapter shows beside these findings
(``plans.compare_memory``, ``plans.training_memory``, ``plans.qlora_memory``) are pinned at the end."""

import re

import pytest

from llmest import InputError, plans
from llmest import memory as mem
from llmest.book.edition import english_prose
from llmest.core.i18n import display_width, speaking
from llmest.core.units import format_number
from llmest.display.table import TEXT_WIDTH
from llmest.plans.findings import memory as findings

SAMPLES = {
    "hybrid_cache": lambda: findings.hybrid_cache(("llama-3.1-70b", "deepseek-v3", "qwen3-next-80b-a3b")),
    "state_gpus": lambda: findings.state_gpus(70e9, 16, "A100 80GB"),
    "states": lambda: findings.states([7e9, 13e9, 70e9]),
    "activation_factors": findings.activation_factors,
    "activations": lambda: findings.activations("llama-2-7b", micro_batch=8, seq_len=4096),
    "selective_recompute": findings.selective_recompute,
    "least_gpus": [lambda: findings.least_gpus("llama-2-70b", [dict(micro_batch=b) for b in (1, 2, 4)], zero=3,
                                               seq_len=4096, recompute="full"),
                   lambda: findings.least_gpus("llama-2-7b", [dict(recompute="none")], zero=0, seq_len=4096)],
    "planner": [lambda: findings.planner("llama-2-7b", [dict(recompute=r) for r in ("full", "none")], zero=2,
                                         seq_len=4096),
                lambda: findings.planner("llama-2-7b", [dict(recompute="none")], zero=0, seq_len=4096)],
    "shared_activations": [lambda: findings.shared_activations(7e9, 50e9, "A100 80GB", zero=2),
                           lambda: findings.shared_activations(zero=0)],
    "data_parallel_traffic": lambda: findings.data_parallel_traffic(7e9, 2),
    "zero_defaults": findings.zero_defaults,
    "largest_module": lambda: findings.largest_module("llama-2-7b"),
    "zero1_bucket": lambda: findings.zero1_bucket("gpt2", dp=2),
    "bubbles": lambda: findings.bubbles(8, [4, 16, 64]),
    "conventions": lambda: findings.conventions("adamw"),
    "state_bytes_by_optimizer": findings.state_bytes_by_optimizer,
    "weight_formats": lambda: findings.weight_formats("llama-2-70b"),
    "kv_per_token": lambda: findings.kv_per_token(["llama-2-7b", "llama-2-13b", "mistral-7b", "llama-3-8b",
                                                   "llama-2-70b", "falcon-7b"], seq_len=2048, batch=32),
    "kv_cache": lambda: findings.kv_cache(("llama-3.1-70b", "deepseek-v3", "gpt-oss-120b"), seq_len=131072),
    "mla_cache": lambda: findings.mla_cache("deepseek-v3"),
    "lora_shapes": lambda: findings.lora_shapes("llama-2-70b", rank=16),
    "serving_gpus": lambda: findings.serving_gpus("llama-2-70b", seq_len=4096, batch=16),
    "runtime_overhead": findings.runtime_overhead,
    "gpu_memory": lambda: findings.gpu_memory(["A100 80GB", "H100 SXM", "H200", "B200", "L40S"]),
    "key_numbers": findings.key_numbers,
}
CJK = re.compile(r"[\u4e00-\u9fff]")


def _lines(found) -> list:
    return str(found).splitlines()


def _table(found):
    return found.report().blocks[0]


def test_the_states_alone_and_with_a_margin():
    found = findings.state_gpus(70e9, 16, "A100 80GB")
    assert (found["bare"], found["kept"]) == (14, 17)  # 1.12 TB over 80 GB; over 64 GB with 20% kept free
    assert str(found) == "the states alone, nothing kept free: 14 GPUs; with 20% free: 17 GPUs"
    with speaking("zh"):
        assert str(found) == "只放训练状态、不留余量：14 张卡；留 20% 余量：17 张卡"


def test_the_training_states_by_size():
    found = findings.states([7e9, 13e9, 70e9])
    assert _lines(found) == ["7.00B parameters: states   112 GB, BF16 weights  14.0 GB",
                             "13.0B parameters: states   208 GB, BF16 weights  26.0 GB",
                             "70.0B parameters: states  1.12 TB, BF16 weights   140 GB"]
    assert found["rows"][0] == dict(n_params=7e9, states=112e9, weights=14e9)
    with speaking("zh"):
        shown = str(findings.states([7e9]))
    assert "112 GB" in shown and not english_prose(shown)


def test_the_activation_factors_per_sbh():
    assert _lines(findings.activation_factors()) == ["tensor parallel              5*a*s/(h*t) + 10 + 24/t  × sbh",
                                                     "TP + sequence parallel       (5*a*s + 34*h)/(h*t)  × sbh",
                                                     "FlashAttention or selective  34  × sbh",
                                                     "full recomputation           2  × sbh"]
    with speaking("zh"):
        shown = str(findings.activation_factors())
    assert "sbh" in shown and not english_prose(shown)


def test_the_activations_under_each_setting():
    found = findings.activations("llama-2-7b")
    table = str(found)
    assert "no recomputation" in table and "476 GB" in table and "20.0 GB" in table and "5.27 GB" in table
    assert table.endswith("no recomputation / full recomputation: 24×")
    assert found.report().blocks[0].column("activations per GPU") == ("476 GB", "201 GB", "20.0 GB", "5.27 GB")
    assert round(found["ratio"]) == 24


def test_the_published_savings_of_selective_recomputation():
    assert _lines(findings.selective_recompute()) == [
        "GPT-3 175B: 70% of activation memory saved for 2.7% more FLOPs",
        "MT-NLG 530B: 65% of activation memory saved for 1.6% more FLOPs"]


def test_the_least_gpus_with_each_micro_batch():
    found = SAMPLES["least_gpus"][0]()
    assert _lines(found) == ["with the activations of micro-batch 1 × 4,096 tokens: 19 GPUs",
                             "with the activations of micro-batch 2 × 4,096 tokens: 22 GPUs",
                             "with the activations of micro-batch 4 × 4,096 tokens: 32 GPUs"]
    assert [row["least_gpus"] for row in found["rows"]] == [19, 22, 32]
    assert found["settings"] == dict(zero=3, seq_len=4096, recompute="full")
    # the plan's own count, with the micro-batch it was given
    plan = plans.plan_memory("training", "llama-2-70b", zero=3, micro_batch=2, seq_len=4096, recompute="full")
    assert plan.least_gpus == found["rows"][1]["least_gpus"]
    none = SAMPLES["least_gpus"][1]()
    assert str(none) == ("with the activations of micro-batch 1 × 4,096 tokens: without ZeRO every data-parallel GPU "
                         "holds all the states, so more of them do not help")
    assert none["rows"][0]["least_gpus"] is None and none["rows"][0]["no_fit"] == "no_zero"


def test_the_planner_and_the_correction():
    assert str(SAMPLES["shared_activations"][0]()) == ("the correction: 7e9 parameters, 50 GB of activations shared "
                                                       "out over the GPUs: 3 A100s")
    assert str(SAMPLES["shared_activations"][1]()).endswith("no count up to 1,024 holds them")
    assert _lines(SAMPLES["planner"][0]()) == [
        "the planner, full recomputation, FlashAttention: llama-2-7b (6.74B parameters), 2.50 GB of activations per "
        "GPU for 1 × 4,096 tokens: 2 A100s",
        "the planner, no recomputation, FlashAttention: llama-2-7b (6.74B parameters), 25.1 GB of activations per "
        "GPU for 1 × 4,096 tokens: 4 A100s"]
    assert str(SAMPLES["planner"][1]()).endswith("more of them do not help")


def test_zero_traffic_buffers_and_the_pipeline():
    assert _lines(findings.data_parallel_traffic(7e9, 2)) == [
        "ZeRO-0:  28.0 GB per GPU per step", "ZeRO-1:  28.0 GB per GPU per step", "ZeRO-2:  28.0 GB per GPU per step",
        "ZeRO-3:  42.0 GB per GPU per step", "ZeRO-3 / plain data parallel: 1.50"]
    assert str(findings.zero_defaults()) == (
        "DeepSpeed's defaults, in elements: {'reduce_bucket_size': '5e+08', 'prefetch_bucket_size': '5e+07', "
        "'max_live_parameters': '1e+09', 'param_persistence_threshold': '1e+05'}")
    assert str(findings.largest_module("llama-2-7b")) == (
        "llama-2-7b's largest module: 131M parameters; the cookbook's ZeRO-3 gathered parameters, "
        "stage3_max_live_parameters in BF16: 2.00 GB")
    assert str(findings.zero1_bucket("gpt2", dp=2)) == (
        "gpt2 on 2 GPUs: ZeRO-1 saves 747 MB of states and allocates a 1.00 GB bucket: 3.80 GB per GPU against "
        "3.55 GB without ZeRO")
    assert _lines(findings.bubbles(8, [4, 16, 64])) == ["p = 8, m =  4: idle 64%", "p = 8, m = 16: idle 30%",
                                                        "p = 8, m = 64: idle 10%"]


# ---- bytes per parameter (the old tables.conventions, state_bytes_by_optimizer and weight_formats) ---------------

def test_the_conventions_table_holds_the_library_bytes():
    table = _table(findings.conventions("adamw"))
    assert table.column("convention") == tuple(mem.CONVENTIONS)
    for row in table.rows:
        s = mem.state_bytes_per_param(row[0], "adamw")
        assert row[1:6] == tuple(format_number(x) for x in (s.weights, s.master, s.grads, s.optimizer, s.total))
        assert row[6] == mem.CONVENTIONS[row[0]].used_by
    assert dict(zip(table.column("convention"), table.column("total")))["mixed"] == "16"
    assert table.caption == "bytes per parameter of each training state, adamw"


def test_the_conventions_text_wraps_to_the_width_and_keeps_every_word():
    table = _table(findings.conventions())
    lines = str(findings.conventions()).splitlines()
    assert max(len(line) for line in lines) <= TEXT_WIDTH
    assert max(len(" ".join(row)) for row in table.rows) > TEXT_WIDTH   # so it did wrap
    words = " ".join(lines).split()
    for row in table.rows:
        assert " ".join(row[-1].split()) in " ".join(words)


def test_the_optimizer_table_holds_the_library_totals():
    found = findings.state_bytes_by_optimizer()
    table = _table(found)
    assert table.columns == ("convention", *mem.OPTIMIZERS)
    for row in table.rows:
        for optimizer, cell in zip(mem.OPTIMIZERS, row[1:]):
            assert cell == format_number(mem.state_bytes_per_param(row[0], optimizer).total)
    assert _lines(found)[3] == "mixed                      16        10            12          8"
    with pytest.raises(InputError) as err:
        findings.state_bytes_by_optimizer(optimizers=["adam9"])
    assert err.value.param == "optimizers"  # the old table named "optimizer", the parameter of what it called


def test_the_weight_formats_hold_the_library_bytes():
    found = findings.weight_formats("llama-2-70b")
    table = _table(found)
    assert table.column("llama-2-70b") == ("276 GB", "138 GB", "138 GB", "69.5 GB", "69.5 GB", "36.6 GB", "39.6 GB",
                                           "36.4 GB")
    assert table.column("bytes/param")[4] == "1.0002"   # FP8: a byte and 4 bytes of scale per 128 × 128 block
    assert table.column("bytes/param")[5] == "0.5195"
    assert [row[3] for row in table.rows] == [f.note for f in mem.WEIGHT_FORMATS.values()]


def test_the_html_form_is_deterministic_and_its_text_is_the_plain_table():
    class Printer:
        def __init__(self):
            self.out = ""

        def text(self, value):
            self.out += value

    printer = Printer()
    findings.weight_formats()._repr_pretty_(printer, False)
    assert printer.out == str(findings.weight_formats())
    assert findings.weight_formats()._repr_html_() == findings.weight_formats()._repr_html_()
    assert not re.search(r"0x[0-9a-f]{6,}", findings.weight_formats()._repr_html_())


def test_the_tables_in_chinese():
    def made():
        return [_table(findings.conventions()), _table(findings.state_bytes_by_optimizer()),
                _table(findings.weight_formats("llama-2-7b"))]

    with speaking("zh"):
        chinese = made()
        conventions_text = str(findings.conventions())
    english = made()
    assert chinese[0].headers[:2] == ("精度约定", "权重") and english[0].headers[:2] == ("convention", "weights")
    for zh, en in zip(chinese, english):
        assert not english_prose(" ".join([zh.caption, *zh.headers]))
        assert zh.rows != () and len(zh.rows) == len(en.rows)
    used_by = [row[6] for row in chinese[0].rows]
    assert all(CJK.search(text) and not english_prose(text) for text in used_by), used_by
    notes = [row[3] for row in chinese[2].rows]
    assert [bool(text) for text in notes] == [bool(f.note) for f in mem.WEIGHT_FORMATS.values()]
    assert all(CJK.search(text) and not english_prose(text) for text in notes if text), notes
    assert "128" in notes[list(mem.WEIGHT_FORMATS).index("int4")]
    # a Chinese character takes two columns: the lines stay within the width
    assert all(display_width(line) <= TEXT_WIDTH for line in conventions_text.splitlines())


# ---- the KV cache ------------------------------------------------------------------------------------------------

def test_the_kv_cache_per_token_by_model():
    assert _lines(SAMPLES["kv_per_token"]()) == [
        "llama-2-7b   MHA  32 KV heads × 128:    512 KiB per token,  34.4 GB for 32 × 2,048 tokens",
        "llama-2-13b  MHA  40 KV heads × 128:    800 KiB per token,  53.7 GB for 32 × 2,048 tokens",
        "mistral-7b   GQA   8 KV heads × 128:    128 KiB per token,  8.59 GB for 32 × 2,048 tokens",
        "llama-3-8b   GQA   8 KV heads × 128:    128 KiB per token,  8.59 GB for 32 × 2,048 tokens",
        "llama-2-70b  GQA   8 KV heads × 128:    320 KiB per token,  21.5 GB for 32 × 2,048 tokens",
        "falcon-7b    MQA   1 KV heads ×  64:   8.00 KiB per token,   537 MB for 32 × 2,048 tokens"]


def test_the_kv_cache_of_long_contexts():
    table = _table(findings.kv_cache())
    assert table.column("windowed layers") == ("none", "none", "18 of 36")
    assert table.column("131,072 tokens") == ("42.9 GB", "9.21 GB", "4.84 GB")
    assert table.column("first token") == ("328 KB", "70.3 KB", "73.7 KB")
    with speaking("zh"):
        assert "36 层中的 18 层" in str(findings.kv_cache())
    assert str(findings.mla_cache("deepseek-v3")) == "4,997,120 bytes a token against 70,272: 71x"


# ---- adapters, serving and the GPUs' memory ----------------------------------------------------------------------

def test_the_lora_shapes():
    lines = _lines(findings.lora_shapes("llama-2-70b", rank=16))
    assert lines[0] == "q_proj       8192 → 8192   rank 16:   262,144"
    assert lines[4] == "gate_proj    8192 → 28672  rank 16:   589,824"
    assert lines[-2:] == ["q+v         32.8M adapter parameters", "q+k+v+o     65.5M adapter parameters"]


def test_the_fewest_serving_gpus_read_as_the_chapter_printed_them_and_in_chinese():
    def call():
        return str(findings.serving_gpus("llama-2-70b", formats=("bf16",), devices=("H200", "MI300X"), seq_len=4096,
                                         batch=16))

    # 70B in BF16 is 140 GB of weights alone: more than one H200's usable memory, within one MI300X's
    assert call().splitlines() == ["bf16  on H200      : 2 GPU(s)", "bf16  on MI300X    : 1 GPU(s)"]
    with speaking("zh"):
        assert call().splitlines() == ["bf16  · H200      ：2 张卡", "bf16  · MI300X    ：1 张卡"]
    assert [row["gpus"] for row in SAMPLES["serving_gpus"]()["rows"]] == [2, 2, 1, 1, 1, 1, 1, 1, 1]


def test_the_runtime_the_gpus_and_the_numbers_to_remember():
    assert str(findings.runtime_overhead()) == ("runtime overhead per GPU: 500 MB to 2.00 GB; then keep 20% free for "
                                                "temporaries and fragmentation")
    assert _lines(SAMPLES["gpu_memory"]()) == [
        "A100 80GB  label 80.0 GB   exposes 80.0 GiB = 85.9 GB     usable with 20% free: 68.7 GB",
        "H100 SXM   label 80.0 GB   exposes 79.6 GiB = 85.5 GB     usable with 20% free: 68.4 GB",
        "H200       label  141 GB   exposes 140 GiB = 151 GB       usable with 20% free: 121 GB",
        "B200       label  180 GB   exposes 179 GiB = 192 GB       usable with 20% free: 154 GB",
        "L40S       label 48.0 GB   exposes 45.0 GiB = 48.3 GB     usable with 20% free: 38.6 GB"]
    assert _lines(findings.key_numbers()) == [
        "7B training states                       112 GB",
        "70B training states                      1.12 TB",
        "70B weights in BF16 / INT4               140 GB / 35.0 GB",
        "KV per token: Llama-2-7B, Llama-2-70B    512 KiB, 320 KiB",
        "QLoRA of Llama-2-70B, rank 64, all projections 54.0 GB"]


# The old printed texts' Chinese checks: each finding reads in Chinese, with no English prose, and in English again
# outside the block.
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_finding_reads_in_chinese(name):
    calls = SAMPLES[name] if isinstance(SAMPLES[name], list) else [SAMPLES[name]]
    for call in calls:
        english = str(call())
        with speaking("zh"):
            chinese = str(call())
        assert chinese != english
        assert english_prose(chinese) == [], chinese
        assert str(call()) == english


def test_chinese_counts_and_figures():
    with speaking("zh"):
        assert str(SAMPLES["shared_activations"][0]()).endswith("3 张 A100")
        assert _lines(findings.bubbles(8, [4]))[0].endswith("64%")


def test_bad_input_names_the_parameter():
    cases = [
        (lambda: findings.states(7e9), "n_params"),
        (lambda: findings.states([7e9, -1]), "n_params"),
        (lambda: findings.state_gpus(70e9, 16, "A100 20GB"), "gpu"),
        (lambda: findings.activations("no-such-model"), "model"),
        (lambda: findings.activations("llama-2-7b", micro_batch=0), "micro_batch"),
        (lambda: findings.least_gpus("llama-2-70b", dict(micro_batch=1)), "variants"),
        (lambda: findings.least_gpus("llama-2-70b", [dict(micro_batch=1)], micro_batch=2), "variants"),
        (lambda: findings.least_gpus("llama-2-70b", [dict(micro_batch=0)]), "variants"),   # variants[0]: micro_batch
        (lambda: findings.planner("no-such-model", [dict(recompute="full")]), "model"),
        (lambda: findings.planner("llama-2-7b", [dict(recompute="some")]), "variants"),
        (lambda: findings.shared_activations(gpu="A100 20GB"), "gpu"),
        (lambda: findings.data_parallel_traffic(0), "n_params"),
        (lambda: findings.largest_module("no-such-model"), "model"),
        (lambda: findings.zero1_bucket("gpt2", dp=0), "dp"),
        (lambda: findings.bubbles(8, 4), "micro_batches"),
        (lambda: findings.bubbles(8, [4, 1.5]), "micro_batches"),
        (lambda: findings.bubbles(0, [4]), "stages"),
        (lambda: findings.conventions("adam9"), "optimizer"),
        (lambda: findings.state_bytes_by_optimizer(conventions=["mixed", "fp64"]), "conventions"),
        (lambda: findings.state_bytes_by_optimizer(optimizers="adamw"), "optimizers"),
        (lambda: findings.weight_formats("no-such-model"), "model"),
        (lambda: findings.kv_per_token("llama-2-7b"), "models"),
        (lambda: findings.kv_per_token(["llama-2-7b", "no-such-model"]), "models"),
        (lambda: findings.kv_per_token(["llama-2-7b"], seq_len=0), "seq_len"),
        (lambda: findings.kv_cache(("llama-2-7b", "no-such-model")), "models"),
        (lambda: findings.kv_cache(seq_len=1.5), "seq_len"),
        (lambda: findings.mla_cache("llama-2-7b"), "model"),
        (lambda: findings.lora_shapes(target_sets=[["q_proj", "x_proj"]]), "target_sets"),
        (lambda: findings.lora_shapes(target_sets="q_proj"), "target_sets"),
        (lambda: findings.lora_shapes(rank=0), "rank"),
        (lambda: findings.serving_gpus(formats="bf16"), "formats"),
        (lambda: findings.serving_gpus(devices=[]), "devices"),
        (lambda: findings.serving_gpus(formats=["bf17"]), "formats"),
        (lambda: findings.gpu_memory(["A100 80GB", "A100 20GB"]), "gpus"),
        (lambda: findings.gpu_memory(["A100 80GB"], margin=1.5), "margin"),
    ]
    for call, param in cases:
        with pytest.raises(InputError) as err:
            call()
        assert err.value.param == param, (param, err.value)


# ---- the plans the chapter shows beside its findings (from the old printed texts' tests) -------------------------

_TRAINING = dict(zero=3, dp=8, micro_batch=1, seq_len=4096, recompute="full")

PLANS = {
    "buffers": (lambda: str(plans.compare_memory("llama-2-7b", [dict(zero=zero) for zero in range(4)], dp=8,
                                                 seq_len=4096, recompute="full")),
                "ZeRO-3   1.68 GB  3.37 GB    1.68 GB    6.74 GB  1.36 GB      2.50 GB    500 MB        17.8 GB  yes"),
    "offload": (lambda: str(plans.compare_memory("llama-2-7b", [dict(offload=offload) for offload in
                                                                ("none", "optimizer", "optimizer+params")],
                                                 zero=3, dp=8, seq_len=4096, recompute="full")),
                "offload=optimizer         1.68 GB      0 B        0 B        0 B  1.36 GB      2.50 GB    500 MB      "
                "  6.04 GB                13.5 GB             108 GB  yes"),
    "fits": (lambda: str(plans.compare_memory("llama-2-7b", [dict(micro_batch=1)], zero=3, dp=8, seq_len=4096,
                                              recompute="full")),
             "micro-batch 1  1.68 GB  3.37 GB    1.68 GB    6.74 GB  1.36 GB      2.50 GB    500 MB        17.8 GB  "
             "yes"),
    "zero": (lambda: str(plans.compare_memory("llama-2-70b", [dict(zero=zero) for zero in range(4)], dp=8, tp=8,
                                              micro_batch=1, seq_len=4096, recompute="full", sequence_parallel=True)),
             "ZeRO-3   2.16 GB  4.31 GB    2.16 GB    8.62 GB  1.17 GB       974 MB    500 MB        19.9 GB  yes"),
    "layout": (lambda: str(plans.compare_memory("mixtral-8x7b",
                                                [dict(dp=8), dict(dp=8, ep=8), dict(dp=8, ep=8, cp=2)],
                                                zero=1, seq_len=8192, recompute="full")),
               "dp=8, ep=8, cp=2  14.5 GB  11.7 GB    14.5 GB    23.4 GB  1.00 GB      2.55 GB    500 MB        "
               "68.1 GB    16  yes"),
    "breakdown": (lambda: str(plans.training_memory("llama-2-7b", zero=3, dp=8, offload="optimizer")),
                  "CPU total       13.5 GB  per GPU's process"),
}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_the_plans_beside_the_findings_read_as_the_chapter_shows_them(name):
    text, line = PLANS[name]
    english = text()
    assert line in english
    with speaking("zh"):
        chinese = text()
    assert chinese != english and not english_prose(chinese), chinese
    assert text() == english


def test_the_plans_last_rows_and_their_chinese():
    assert PLANS["buffers"][0]().splitlines()[-1] == PLANS["buffers"][1]
    assert PLANS["offload"][0]().splitlines()[-2] == PLANS["offload"][1]
    with speaking("zh"):
        shown = str(plans.qlora_memory("llama-2-70b"))
    assert "适配器" in shown and "合计" in shown and "54.0 GB" in shown
    with pytest.raises(InputError, match="variants"):
        plans.compare_memory("llama-2-7b", "zero")


def test_a_hybrid_cache_at_128k_and_1m_tokens_from_its_layer_shapes():
    """Qwen3-Next-80B-A3B's config.json: 12 of 48 layers attend, 2 KV heads of 256 (BF16); the 36 gated-DeltaNet
    layers keep 32 value heads of a 128 × 128 state (FP32, as transformers keeps it) and a convolution window of 4
    over q, k and v (2·16·128 + 32·128 channels, BF16)."""
    kv_per_token = 2 * 12 * 2 * 256 * 2
    state = 36 * (32 * 128 * 128 * 4 + (2 * 16 * 128 + 32 * 128) * 4 * 2)
    found = findings.hybrid_cache(("llama-3.1-70b", "qwen3-next-80b-a3b"), seq_lens=(131072, 1048576)).figures
    llama, qwen = found["rows"]
    assert (qwen["attention_layers"], qwen["layers"], qwen["per_token"], qwen["state"]) == (12, 48, kv_per_token, state)
    assert qwen["caches"] == [kv_per_token * 131072 + state, kv_per_token * 1048576 + state]
    assert llama["state"] == 0 and llama["caches"][1] == 80 * 2 * 8 * 128 * 2 * 1048576
    assert llama["caches"][1] / qwen["caches"][1] > 13  # a 70B transformer's cache at 1M tokens, against the hybrid's
