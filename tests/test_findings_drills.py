"""Chapter 5's worked answers (llmest.plans.findings.drills): the English as the chapter shows it, with its figures,
and the Chinese with no English prose. ``SAMPLES`` feeds tests/test_findings.py. The layouts are in
tests/test_findings_layouts.py; at the end, the chapter's results of the learn layer (the deck, a review log, the
progress and the study plan), which show themselves the same way."""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timedelta, timezone

import pytest

import llmest as le
from llmest import InputError, flashcards, plans, progress
from llmest import memory as mem
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.plans.findings import drills as findings

LLAMA7, LLAMA70 = le.preset("llama-2-7b"), le.preset("llama-2-70b")


def _steps():
    return plans.memory_reductions(LLAMA7, dp=8, micro_batch=4, seq_len=4096)


SAMPLES = {
    "serving_memory": [lambda: findings.serving_memory(LLAMA70, "A100 80GB", weights=("bf16", "int4"), seq_len=2048,
                                                       batch=32),
                       lambda: findings.serving_memory("llama-2-70b", "A100 80GB", seq_len=2048, batch=1024)],
    "reductions": lambda: findings.reductions(_steps(), "A100 80GB"),
    "layer_activations": lambda: findings.layer_activations(LLAMA7, [2048, 4096, 8192, 16384]),
    "plain_data_parallel": lambda: findings.plain_data_parallel("A100 80GB"),
    "cost_steps": lambda: findings.cost_steps(175e9, 300e9, "V100", mfu=0.4, price_per_gpu_hour=3),
    "training_steps": lambda: findings.training_steps(7e9, 1e12, "A100 80GB", mfu=0.4, gpus=256),
    "lora_adapters": lambda: findings.lora_adapters("llama-2-70b", 64, mem.LORA_TARGETS),
    "chinchilla": [lambda: findings.chinchilla(175e9, 300e9, "GPT-3"), lambda: findings.chinchilla(7e9, 2e12)],
    "training_estimate": lambda: findings.training_estimate(LLAMA7, 100e9, 64, peak_flops_per_s=200e12, mfu=0.5,
                                                            zero=3, micro_batch=1, seq_len=4096, recompute="full"),
    "checkpoints": [lambda: findings.checkpoints(70e9, 30 * 24, 0.5, keep=5),
                    lambda: findings.checkpoints(7e9, 36, 3, keep=2)],
    "micro_batch_memory": lambda: findings.micro_batch_memory(LLAMA7, zero=3, dp=8, seq_len=4096, sizes=(1, 2, 4, 8)),
}


def texts() -> dict:
    return {name: str(calls[0]() if isinstance(calls, list) else calls()) for name, calls in SAMPLES.items()}


# The chapter's figures, as the old printed texts pinned them (tests/test_zh_printed_drills*.py).
ENGLISH = {
    "serving_memory": "bf16: weights 138 GB, KV cache 21.5 GB; 4 A100 80GB with tensor parallelism, 40.4 GB on each\n"
                      "int4: weights 36.6 GB, KV cache 21.5 GB; one A100 80GB, 58.6 GB in all",
    "reductions": "+ ZeRO-3 over 8 GPUs             25.3 GB per GPU; fits an A100 80GB with 20% free: True",
    "layer_activations": " 16384 tokens: one layer keeps  20.2 GB eager,  3.05 GB with FlashAttention (6.6×)",
    "plain_data_parallel": "68.7 GB usable / 16 bytes = 4.29B parameters, before any activations",
    "cost_steps": "2. V100-hours at 125 TFLOPS and 40% MFU = 1,750,000\n3. at $3 an hour: $5,250,000",
    "chinchilla": "Chinchilla's rule would give a 175B model 3.50T tokens; GPT-3 saw 1.7 per parameter.",
    "training_estimate": "7.2 days by the formula, 8.2-9.0 with the margin; 6.04 GB per GPU of 68.7 GB usable: fits "
                         "True",
    "checkpoints": "a 70B resumable checkpoint: 980 GB; every 30 minutes for 30 days, keeping all: 1.41 PB, keeping "
                   "the last 5: 4.90 TB",
    "lora_adapters": "adapters: rank 64 on 7 projections = 828M parameters",
    "micro_batch_memory": "static (states, ZeRO-3's buffers, runtime) per GPU: 15.3 GB",
}


def test_the_english_carries_the_chapters_figures():
    shown = texts()
    for name, expected in ENGLISH.items():
        assert expected in shown[name], name
    assert shown["training_steps"].splitlines() == [
        "1. FLOPs = 6 × 7e9 × 1e12 = 4.2e22", "2. GPU-seconds = FLOPs / (312 TFLOPS × 40%) = 336,538,462",
        "3. GPU-hours = GPU-seconds / 3,600 = 93,483", "4. One A100: 3,895 days = 10.7 years",
        "5. 256 A100s: 15.2 days", "6. States: 2 + 4 + 2 + 8 = 16 bytes a parameter -> 112 GB"]
    assert shown["lora_adapters"] == "adapters: rank 64 on 7 projections = 828M parameters"
    assert "74.8 GB" in shown["micro_batch_memory"] and "35.3 GB" in shown["micro_batch_memory"]
    assert shown["cost_steps"].splitlines()[0] == "1. FLOPs = 6 × 175e9 × 300e9 = 3.15e23"


def test_the_chapters_loops_are_one_finding_with_a_line_each():
    assert str(SAMPLES["layer_activations"]()).splitlines() == [
        "  2048 tokens: one layer keeps   650 MB eager,   382 MB with FlashAttention (1.7×)",
        "  4096 tokens: one layer keeps  1.84 GB eager,   763 MB with FlashAttention (2.4×)",
        "  8192 tokens: one layer keeps  5.82 GB eager,  1.53 GB with FlashAttention (3.8×)",
        " 16384 tokens: one layer keeps  20.2 GB eager,  3.05 GB with FlashAttention (6.6×)"]
    assert str(SAMPLES["reductions"]()).splitlines() == [
        "plain data parallel               346 GB per GPU; fits an A100 80GB with 20% free: False",
        "+ FlashAttention                  209 GB per GPU; fits an A100 80GB with 20% free: False",
        "+ gradient checkpointing          118 GB per GPU; fits an A100 80GB with 20% free: False",
        "+ ZeRO-3 over 8 GPUs             25.3 GB per GPU; fits an A100 80GB with 20% free: True",
        "QLoRA instead (fine-tuning)      16.9 GB per GPU; fits an A100 80GB with 20% free: True"]
    assert str(findings.layer_activations(LLAMA7, 16384)) == ENGLISH["layer_activations"]


def test_the_figures_are_the_plans():
    serving = SAMPLES["serving_memory"][0]()
    assert [row["gpus"] for row in serving["formats"]] == [4, 1]
    assert serving["formats"][0]["per_gpu_bytes"] == plans.inference_memory(LLAMA70, seq_len=2048, batch=32,
                                                                            tp=4).total
    assert str(SAMPLES["serving_memory"][1]()).endswith("no tensor-parallel split holds them on A100 80GB")
    steps = SAMPLES["reductions"]()
    assert [s["memory_bytes"] for s in steps["steps"]] == [b.total for b in _steps().values()]
    estimate = SAMPLES["training_estimate"]()
    assert estimate["assumed"] == dict(zero=3, micro_batch=1, seq_len=4096, recompute="full")
    assert str(estimate).splitlines()[:2] == [
        "assumed: zero=3, micro_batch=1, seq_len=4096, recompute=full (FlashAttention on)",
        "llama-2-7b has 6.61B parameters in its matmuls (the article rounds to 7B)"]
    assert str(estimate).splitlines()[-1] == "every GPU must be fed 2,522 tokens a second"
    assert str(SAMPLES["chinchilla"][1]()).endswith("the model saw 285.7 per parameter.")
    assert "every 3 hours for 36 hours" in str(SAMPLES["checkpoints"][1]())
    table = SAMPLES["micro_batch_memory"]()
    assert [row["micro_batch"] for row in table["sizes"]] == [1, 2, 4, 8]


def test_the_chinese_has_no_english_prose():
    with speaking("zh"):
        shown = texts()
        reductions = str(findings.reductions(_steps(), "A100 80GB"))
    assert "4 张 A100 80GB 做张量并行" in shown["serving_memory"]
    assert "4. 一张 A100：3,895 天 = 10.7 年" in shown["training_steps"]
    assert reductions.splitlines()[3] == ("+ ZeRO-3（8 张卡）      25.3 GB/卡；放得进一张 A100 80GB（留出 20% 空闲）"
                                          "：是")
    for name, text in shown.items():
        assert not english_prose(text), (name, text)


@pytest.mark.parametrize("call, param", [
    (lambda: findings.reductions({"x": 1}), "steps"),
    (lambda: findings.reductions({}), "steps"),
    (lambda: findings.micro_batch_memory("llama-2-7b", sizes=()), "sizes"),
    (lambda: findings.micro_batch_memory("llama-2-7b", sizes=(1, 0)), "sizes"),
    (lambda: findings.serving_memory(LLAMA70, weights=("bf16", "int3")), "weights"),
    (lambda: findings.serving_memory(LLAMA70, weights=()), "weights"),
    (lambda: findings.serving_memory(LLAMA70, "A100", weights="bf16"), "gpu"),
    (lambda: findings.layer_activations(LLAMA7, [2048, -1]), "seq_len"),
    (lambda: findings.layer_activations(LLAMA7, 2048, micro_batch=0), "micro_batch"),
    (lambda: findings.lora_adapters(LLAMA70, 64, "q_proj"), "targets"),
    (lambda: findings.lora_adapters(LLAMA70, 0), "rank"),
    (lambda: findings.cost_steps(175e9, 300e9, "V100", mfu=1.5), "mfu"),
    (lambda: findings.training_steps(7e9, -1), "tokens"),
    (lambda: findings.training_steps(7e9, 1e12, gpus=0), "gpus"),
    (lambda: findings.chinchilla(175e9, 300e9, 3), "name"),
    (lambda: findings.checkpoints(70e9, 720, 0.5, keep=0), "keep"),
    (lambda: findings.plain_data_parallel("A100 80GB", margin=1.5), "margin"),
    (lambda: findings.training_estimate(LLAMA7, 100e9, 0), "gpus"),
])
def test_bad_input_names_the_parameter(call, param):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == param


def test_the_memory_reductions_plan_names_its_steps_in_the_language_shown():
    assert list(_steps()) == ["plain data parallel", "+ FlashAttention", "+ gradient checkpointing",
                              "+ ZeRO-3 over 8 GPUs", "QLoRA instead (fine-tuning)"]
    with speaking("zh"):
        assert list(_steps())[3] == "+ ZeRO-3（8 张卡）"
    with pytest.raises(InputError) as err:
        plans.memory_reductions(LLAMA7, dp=0)
    assert err.value.param == "dp"


# ----------------------------------------------------------------------------------------------------------------
# The chapter's learn-layer results: the deck, a review log, a store's size, the progress and the study plan show
# themselves too (their wording in llmest.learn), one report each for text, HTML and JSON.
# ----------------------------------------------------------------------------------------------------------------

START = datetime(2026, 6, 1, 18, 0, tzinfo=timezone.utc)


def _store():
    store = progress.Store(tempfile.mkdtemp() + "/w5.sqlite3")
    store.review("drill:training-days", "compute", progress.rating("correct"), True, START)
    return store


def learned() -> dict:
    store = _store()
    return {
        "deck": flashcards.deck_summary(),
        "review": progress.review_log([(START, "correct", START + timedelta(days=2))]),
        "reviews": progress.store_summary(store),
        "progress": progress.progress(store, START + timedelta(days=3)),
        "plan": progress.study_plan(store, interview=START.date() + timedelta(days=3), minutes_per_day=30,
                                    today=START),
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_learn_results_show_themselves_from_one_report(lang):
    with speaking(lang):
        for name, result in learned().items():
            report = result.report()
            assert str(result) == str(report) and result._repr_html_() == report._repr_html_(), name
            assert json.loads(json.dumps(result.to_dict())) == result.to_dict() == report.data, name
            if lang == "zh":
                lines = str(result).splitlines()
                if name == "progress":  # the due cards list their fronts, the flashcards' own
                    lines = [line for line in lines if not line.startswith("  ") or ":" not in line[:8]]
                assert not [line for line in lines if english_prose(line)], (name, str(result))


def test_the_learn_results_keep_the_chapters_text():
    shown = {name: str(result) for name, result in learned().items()}
    assert shown["deck"].startswith("33 cards: 4 parameters, 10 memory, 10 compute, 5 data, 4 serving\nfor example: ")
    assert shown["review"] == "2026-06-01 18:00  correct ( Good)  next review in 2 days"
    assert shown["reviews"] == "1 reviews of 1 cards"
    assert shown["progress"].startswith("2026-06-04: 1 cards due, 70 new\n  18:10 compute    training-days\n"
                                        "Review next:")
    assert shown["plan"].splitlines()[0] == (
        "Study plan: 3 days to the interview on 2026-06-04, 30 minutes a day; weakest topics first: memory, serving, "
        "data, parameters, compute.")
    assert shown["plan"].splitlines()[-1] == "2026-06-03 Wed: a mixed timed session (30 min)"
    with speaking("zh"):
        assert "答对" in str(progress.review_log([(START, "correct", START + timedelta(days=2))]))
        assert "共 33 张卡片" in str(flashcards.deck_summary())


def test_the_plan_on_the_command_line_is_the_plans_report(tmp_path, capsys):
    from llmest.surfaces.cli.main import main

    db = str(tmp_path / "p.sqlite3")
    main(["review", "--db", db, "--plan", "--interview", "2027-01-15", "--today", "2027-01-01", "--json"])
    out = json.loads(capsys.readouterr().out)
    plan = progress.study_plan(progress.Store(db), "2027-01-15", 30, "2027-01-01")
    assert out == plan.to_dict() and out["interview"] == "2027-01-15" and len(out["days"]) == 14


@pytest.mark.parametrize("call, param", [
    (lambda: flashcards.deck_summary(example="no such card"), "example"),
    (lambda: progress.store_summary("progress.sqlite3"), "store"),
    (lambda: progress.review_log([]), "reviews"),
    (lambda: progress.review_log([(START, "correct")]), "reviews"),
    (lambda: progress.review_log([(START, "right", START)]), "grade"),
    (lambda: progress.review_log([("today", "correct", START)]), "when"),
])
def test_bad_input_to_the_learn_results_names_the_parameter(call, param):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == param


def test_the_chapters_other_labels_kept_from_the_old_printed_tests():
    """What tests/test_zh_printed_drills*.py pinned beside the printed texts: the drill templates' table, a QLoRA
    breakdown as the chapter prints it, and a drill's heading, in English and in Chinese."""
    from llmest import drills

    breakdown = plans.qlora_memory(LLAMA70, rank=64, micro_batch=1, seq_len=2048)
    problem = drills.generate("training-days", seed=1, level="easy")
    assert "memory             10  weight-memory" in str(drills.templates_table())
    assert str(breakdown).splitlines()[0] == "weights         36.4 GB"
    assert str(breakdown).splitlines()[-1] == "total           54.0 GB  per GPU"
    assert drills.heading(problem).startswith("[compute, easy] 256 A100 80GB GPUs")
    with speaking("zh"):
        shown = [str(drills.templates_table()), str(breakdown),
                 drills.heading(drills.generate("training-days", seed=1, level="easy"))]
    assert shown[1].splitlines()[0] == "权重" + " " * 9 + "   36.4 GB"  # lined up by display width
    assert shown[2].startswith("[计算，简单]")
    for text in shown:
        assert not english_prose(text), text
    with pytest.raises(InputError, match="problem"):
        drills.heading("a question")
