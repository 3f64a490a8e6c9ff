"""The material's figures: each recomputed, each erratum explained, statuses pinned."""

import math

import pytest

import llmest as le

FIGURES = le.material.figures()

# The verdicts this workbook teaches. A change to a formula that flips one of them must be looked at.
EXPECTED_ERRATA = {
    "004-1.2-table-30b",
    "000-1.3-optimizer", "000-1.3-total", "000-ex3-bf16-total",
    "004-2.3-kv-request", "000-ex1-optimizer", "000-ex1-total", "000-ex1-gpus", "000-ex2-lora", "000-ex2-optimizer",
    "000-ex3-bf16-gpus", "000-ex3-kv", "000-4.1-full-ft-70b", "004-2.2-activations", "004-2.3-activations",
    "004-2.3-70b-gpus", "004-2.3-kv-32",
    "000-2-a6000", "000-2-4090", "000-ex1-gpu-hours", "000-ex1-single-gpu", "000-ex1-256", "000-ex2-hours",
    "000-4.1-7b-hours", "000-4.1-7b-cost", "000-5-gpt3-hours", "000-5-gpt3-cost", "004-3.1-attention",
    "004-3.3-moe", "004-4.1-epochs", "004-4.2-raw",
}
# Figures resting on an input the material does not give.
EXPECTED_DEPENDS = {"000-ex2-activations", "000-4.2-qlora-7b", "000-4.3-7b-cost", "000-4.3-serving",
                    "000-4.1-ft-70b-time", "004-4.2-english", "004-4.2-chinese", "004-4.2-code"}


def test_statuses_are_pinned():
    assert {f.key for f in FIGURES if f.status == "erratum"} == EXPECTED_ERRATA
    assert {f.key for f in FIGURES if f.status == "depends"} == EXPECTED_DEPENDS
    assert all(f.status in ("confirmed", "erratum", "depends") for f in FIGURES)


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.key)
def test_every_figure_recomputes_to_a_number_and_names_its_source(figure):
    assert math.isfinite(figure.recomputed) and figure.recomputed > 0
    assert figure.document in le.material.DOCUMENTS and figure.section.startswith("§")
    assert figure.quote and figure.how and figure.claim


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.status in ("erratum", "depends")], ids=lambda f: f.key)
def test_every_erratum_has_a_cause(figure):
    assert len(figure.cause_text) > 40
    assert ("cause:" if figure.status == "erratum" else "so:") in figure.box()
    assert figure.stated_text in figure.box()


def test_the_30b_row_is_21_9b_not_28_32b():
    figure = le.material.get("004-1.2-table-30b")
    assert figure.recomputed == 48 * 12 * 6144**2 + 32000 * 6144
    assert "21.7B" in figure.cause_text and "32.5B" in figure.cause_text


def test_table_and_unknown_keys():
    assert "004-1.1-total" in le.material.table(chapter=1)
    with pytest.raises(le.InputError, match="figure == '004-1.1-totl'.*Did you mean '004-1.1-total'"):
        le.material.get("004-1.1-totl")
    with pytest.raises(le.InputError, match="chapter == 99"):
        le.material.table(chapter=99)


def test_a_table_of_chosen_figures_keeps_their_order_and_names_an_unknown_key():
    lines = le.material.table(keys=["000-ex1-gpu-hours", "000-ex1-flops"]).splitlines()
    assert lines[1].startswith("000-ex1-gpu-hours") and "erratum" in lines[1]
    assert lines[2].startswith("000-ex1-flops") and "confirmed" in lines[2]
    with pytest.raises(le.InputError, match="000-ex1-flop"):
        le.material.table(keys=["000-ex1-flop"])


def test_selective_recomputation_saves_what_korthikanti_et_al_report_for_gpt3():
    from llmest.memory import SELECTIVE_RECOMPUTE_PUBLISHED

    saved = le.material.get("000-5-checkpointing").recomputed
    assert saved == pytest.approx(SELECTIVE_RECOMPUTE_PUBLISHED["GPT-3 175B"][0], abs=0.01)


def test_the_micro_batches_named_for_a_10_to_20_gb_target_fit_it():
    """Chapter 2 once said 'micro-batches of 4-8 (9.18-18.4 GB)' for a 10-20 GB target: 4 gives less than 10."""
    import re

    from llmest import memory as mem, model as m
    from llmest.material import ch2_memory

    low, high = map(int, re.search(r"micro-batches of (\d+)-(\d+)", ch2_memory._case1_cause()).groups())
    size = lambda b: mem.activations_per_gpu(m.preset("llama-2-7b"), b, 4096, recompute="full", flash=True)
    assert 10e9 <= size(low) and size(high) <= 20e9
    assert size(low - 1) < 10e9 and size(high + 1) > 20e9
