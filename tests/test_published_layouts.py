"""The layout search's step-time model against published runs with their full layouts (llmest.published_layouts):
one matmul efficiency, fitted to Megatron-LM's 1T run, predicts the others; how close each comes is pinned, and so
is the one it misses (a small model's small matmuls)."""

import pytest

from llmest import count_params, published_layouts as pl


@pytest.fixture(scope="module")
def fitted():
    return pl.efficiency_for("Megatron-LM 1T")


def test_the_runs_are_the_published_models():
    # parameter counts the papers state: GPT-3 175B, MT-NLG 530B, Megatron's 1T (1008B), BLOOM's model card 176,247,
    # 271,424, PaLM 540B
    counts = {name: count_params(run.model).total for name, run in pl.RUNS.items()}
    assert counts["Megatron-LM 175B"] == pytest.approx(174.6e9, rel=1e-3)
    assert counts["Megatron-LM 530B"] == pytest.approx(529.6e9, rel=1e-3)
    assert counts["Megatron-LM 1T"] == pytest.approx(1008.0e9, rel=1e-3)
    assert counts["BLOOM-176B"] == 176_247_271_424
    assert counts["PaLM 540B"] == pytest.approx(540.35e9, rel=1e-3)
    assert {name: run.gpus for name, run in pl.RUNS.items()} == {
        "Megatron-LM 22B": 8, "Megatron-LM 175B": 64, "Megatron-LM 530B": 280, "Megatron-LM 1T": 512,
        "BLOOM-176B": 384, "PaLM 540B": 6144}


def test_one_efficiency_fitted_to_megatrons_1t_run_predicts_the_large_runs(fitted):
    assert 0.6 < fitted < 0.7  # a well-tuned A100's matmuls: about two thirds of the dense peak
    assert pl.predict("Megatron-LM 1T", fitted)["mfu"] == pytest.approx(0.563, abs=1e-3)
    assert pl.predict("Megatron-LM 530B", fitted)["mfu"] == pytest.approx(0.560, abs=0.01)
    # PaLM's collectives run on TPU v4's 3D torus, in far fewer steps than the flat ring of 512 chips the model
    # charges a latency per step for: the model is a few points low.
    assert 0.462 - 0.06 < pl.predict("PaLM 540B", fitted)["mfu"] < 0.462
    assert pl.predict("Megatron-LM 175B", fitted)["mfu"] == pytest.approx(0.514, abs=0.05)


def test_what_it_misses_a_small_models_matmuls_and_an_older_stack(fitted):
    # The 22B's per-GPU slices (6144 / TP 8 = 768 columns) run well below the 1T's: the model, which keeps one
    # efficiency for every size, predicts far more than the paper measured.
    assert pl.predict("Megatron-LM 22B", fitted)["mfu"] > 0.415 + 0.1
    # BLOOM's published 104.70 s a step (Megatron-DeepSpeed, Omni-Path): the model at the same efficiency is
    # 10-20% faster; at the default 50% it is 5-15% slower.
    assert 0.8 < pl.predict("BLOOM-176B", fitted)["step_time_s"] / 104.70 < 0.9
    assert 1.05 < pl.predict("BLOOM-176B")["step_time_s"] / 104.70 < 1.15


def test_every_run_fits_its_gpus_and_communicates_less_than_it_computes():
    for name in pl.RUNS:
        row = pl.predict(name)
        assert row["fits"], name
        assert row["exposed_comm_s"] < 0.2 * row["compute_s"], name
