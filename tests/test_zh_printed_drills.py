"""Chapter 5's worked answers, layout tables and drill templates: English with the chapter's figures, and Chinese
with no English prose under speaking("zh")."""

import pytest

import llmest as le
from llmest import answers_text, drills, layout_tables, plans
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking

LLAMA7, LLAMA70 = le.preset("llama-2-7b"), le.preset("llama-2-70b")
LAYOUTS = {layout_tables.layout_name(*layout): layout for layout in [(0, 64, 1, 1), (3, 64, 1, 1), (1, 2, 8, 4)]}


def texts():
    found = plans.search_layouts(LLAMA70, 64, "A100 80GB", 4096, 256 * 4096)
    return {
        "serving": answers_text.serving_memory_text(LLAMA70, "A100 80GB", weights="bf16", seq_len=2048, batch=32),
        "serving int4": answers_text.serving_memory_text(LLAMA70, "A100 80GB", weights="int4", seq_len=2048, batch=32),
        "reductions": answers_text.reductions_text(answers_text.memory_reductions(LLAMA7, dp=8, micro_batch=4, seq_len=4096)),
        "activations": answers_text.layer_activations_text(LLAMA7, 16384),
        "plain dp": answers_text.plain_data_parallel_text("A100 80GB"),
        "cost": answers_text.cost_steps_text(175e9, 300e9, "V100", mfu=0.4, price_per_gpu_hour=3),
        "chinchilla": answers_text.chinchilla_text(175e9, 300e9, "GPT-3"),
        "training": answers_text.training_estimate_text(LLAMA7, 100e9, 64, peak_flops_per_s=200e12, mfu=0.5),
        "checkpoints": answers_text.checkpoint_text(70e9, 30 * 24, 0.5, keep=5),
        "layouts": str(layout_tables.layout_memory(LLAMA70, LAYOUTS)),
        "summary": layout_tables.search_summary(found),
        "search": str(layout_tables.layout_search_table(found, LAYOUTS)),
        "drills": str(drills.templates_table()),
    }


ENGLISH = {
    "serving": "bf16: weights 138 GB, KV cache 21.5 GB; 4 A100 80GB with tensor parallelism, 40.4 GB on each",
    "serving int4": "int4: weights 36.6 GB, KV cache 21.5 GB; one A100 80GB, 58.6 GB in all",
    "reductions": "+ ZeRO-3 over 8 GPUs             25.3 GB per GPU; fits an A100 80GB with 20% free: True",
    "activations": " 16384 tokens: one layer keeps  20.2 GB eager,  3.05 GB with FlashAttention (6.6×)",
    "plain dp": "68.7 GB usable / 16 bytes = 4.29B parameters, before any activations",
    "cost": "2. V100-hours at 125 TFLOPS and 40% MFU = 1,750,000\n3. at $3 an hour: $5,250,000",
    "chinchilla": "Chinchilla's rule would give a 175B 3.50T tokens; GPT-3 saw 1.7 per parameter.",
    "training": "7.2 days by the formula, 8.2-9.0 with the margin; 6.04 GB per GPU of 68.7 GB usable: fits True",
    "checkpoints": "a 70B resumable checkpoint: 980 GB; every 30 minutes for 30 days, keeping all: 1.41 PB, keeping "
                   "the last 5: 4.90 TB",
    "layouts": "pipeline of 4 stages: idle 27% of the time with 8 micro-batches, 9% with 32",
    "summary": "7,728 layouts searched, 2,981 fit an A100 80GB with 20% kept free",
    "search": "MFU (%)",
    "drills": "memory              7  weight-memory",
}


def test_the_english_texts_carry_the_chapters_figures():
    shown = texts()
    for name, expected in ENGLISH.items():
        assert expected in shown[name], name
    row = next(line for line in shown["search"].splitlines() if line.startswith("TP 8 × PP 4"))
    assert "8×1×4×2" in row and "24.0 GB" in row and "53.0 s" in row and "44.1" in row


def test_the_chinese_texts_have_no_english_prose():
    with speaking("zh"):
        shown = texts()
    assert "4 张 A100 80GB 做张量并行" in shown["serving"]
    assert "留出 20% 空闲" in shown["summary"]
    for name, text in shown.items():
        assert not english_prose(text), (name, text)


def test_layout_names_and_bad_input():
    assert layout_tables.layout_name(0, 64) == "data parallel"
    assert layout_tables.layout_name(1, 2, 8, 4) == "TP 8 × PP 4 × ZeRO-1 over 2"
    with pytest.raises(le.InputError) as err:
        layout_tables.layout_memory(LLAMA70, {"x": (1, 2)})
    assert err.value.param == "layouts"
    with pytest.raises(le.InputError) as err:
        answers_text.reductions_text({"x": 1})
    assert err.value.param == "steps"
    with pytest.raises(le.InputError) as err:
        layout_tables.search_summary(None)
    assert err.value.param == "found"
