"""Chapter 3's and the appendix's printed texts from the library: English as the chapters print it, with the same
numbers, and Chinese with no English prose under ``speaking("zh")``."""

from __future__ import annotations

import pytest

from llmest import compute_text, material, runs, tables
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking


def _texts():
    return {
        "attention": compute_text.attention_share_text("llama-3-8b"),
        "margin": compute_text.time_margin_text(),
        "hfu": compute_text.hfu_text(0.4),
        "resume": compute_text.resume_checkpoint_text(),
        "all": compute_text.checkpoint_storage_text(70e9, run_hours=720, interval_hours=0.5),
        "five": compute_text.checkpoint_storage_text(70e9, run_hours=720, interval_hours=0.5, keep=5),
        "hourly": compute_text.checkpoint_storage_text(70e9, run_hours=720, interval_hours=6, keep=5),
        "feed": compute_text.feed_rate_text(7e9, 1e12, days=15, gpus=256),
        "roofline": compute_text.decode_roofline_text("llama-2-7b", "A100 80GB"),
        "palm": runs.palm_mfu_text(),
        "gpt3": runs.gpt3_text(),
        "runs": str(runs.runs_table()),
        "params": str(tables.parameter_counts(["gpt2", "mixtral-8x7b"])),
        "batches": str(tables.largest_batches("llama-2-7b", "A100 80GB", prompts=(256, 1024), output_tokens=512)),
        "mfu box": material.get("004-3.2-mfu").box(),
        "cost box": material.get("000-4.3-7b-cost").box(),
        "epochs box": material.get("004-4.1-epochs").box(),
    }


def test_the_english_texts_say_the_chapters_figures():
    with speaking("en"):
        t = _texts()
    assert t["attention"] == "llama-3-8b: attention is a quarter of the FLOPs at 9,543 tokens, half at 28,629"
    assert t["margin"] == "time margin: +15% to +25%"
    assert t["hfu"] == "MFU 40% with full recomputation is HFU 53.3%"
    assert t["resume"] == "resume checkpoint: 14 bytes a parameter"
    assert t["all"] == "70B, 30 days, every 30 min, keep all: 1.41 PB"
    assert t["five"] == "70B, 30 days, every 30 min, keep 5: 4.90 TB"
    assert t["hourly"] == "70B, 30 days, every 6 h, keep 5: 4.90 TB"
    assert t["feed"] == "feeding a 7B run of 1T tokens in 15 days on 256 GPUs: 3,014 tokens/s per GPU"
    assert t["roofline"].splitlines()[-1] == ("compute-bound from batch 156 with no KV cache, but past 165 tokens of "
                                              "context at no batch")
    assert "weights / bandwidth = 6.61 ms, 151 tokens/s" in t["roofline"]
    assert t["palm"] == "PaLM MFU without the attention term 45.7%, with it 46.2%"
    assert t["gpt3"].endswith("estimate of 3,552,000 V100-hours that is an MFU of 20%")
    # MT-NLG's figures not read in a primary source (the column wraps after "throughput,"); OPT's stated peak as HFU
    mtnlg = t["runs"][t["runs"].index("MT-NLG 530B"):t["runs"].index("PaLM 540B")]
    assert "tokens, throughput," in mtnlg and "stated MFU" in mtnlg and "3,552,000" in t["runs"]
    assert "47% HFU, peak" in t["runs"]
    assert "46.7B" in t["params"] and "12.7B" in t["params"]
    assert "27.2" in t["batches"] and "135" in t["batches"] and "attention share (%)" in t["batches"]
    assert "the 21 published runs of llmest.runs (2020-2024: GPT-3 175B" in t["mfu box"]
    assert "GPU-hours at 40% MFU × $2.5, the middle of $2-3" in t["cost box"]


@pytest.mark.parametrize("name", list(_texts()))
def test_the_chinese_texts_have_no_english_prose(name):
    with speaking("zh"):
        text = _texts()[name]
    assert not english_prose(text), (name, english_prose(text))


def test_the_chinese_texts_keep_the_numbers():
    with speaking("zh"):
        t = _texts()
    assert "9,543" in t["attention"] and "28,629" in t["attention"]
    assert "53.3%" in t["hfu"] and "1.41 PB" in t["all"] and "3,014" in t["feed"]
    assert "165" in t["roofline"] and "156" in t["roofline"]
    assert "卡时" in t["runs"] and "$2.5" in t["cost box"] and "$2-3" in t["cost box"]
    assert "21 次已发表训练" in t["mfu box"] or "21 次" in t["mfu box"]


def test_a_bad_list_is_refused_by_name():
    from llmest import InputError

    with pytest.raises(InputError) as err:
        tables.parameter_counts("gpt2")
    assert err.value.param == "models"
    with pytest.raises(InputError) as err:
        tables.largest_batches("llama-2-7b", "A100 80GB", prompts=256, output_tokens=512)
    assert err.value.param == "prompts"
