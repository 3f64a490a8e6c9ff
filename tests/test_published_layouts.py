"""The layout search's step-time model held to published runs with their full layouts (llmest.plans.published_layouts):
one matmul efficiency per GPU generation, fitted to one run each, and every other run held out. The targets, on the
held-out runs: the model's MFU for the published layout within 6 points of the published MFU, and the published
layout's step within 15% of the search's best. Runs the model misses say why, and so do those it cannot be held to."""

from dataclasses import replace

import pytest

from llmest import compute, count_params, published_layouts as pl
from llmest.plans import layout_assumptions as la


@pytest.fixture(scope="module")
def predicted():
    return {name: pl.predict(name) for name in pl.RUNS}


def test_the_runs_are_the_published_models():
    # parameter counts the papers state: GPT-3 175B, MT-NLG 530B, Megatron's 1T (1008B), BLOOM's model card 176,247,
    # 271,424, PaLM 540B, Llama 3.1 405B's 405,853,388,800 (its Hugging Face card)
    counts = {name: count_params(run.model).total for name, run in pl.RUNS.items()}
    assert counts["Megatron-LM 175B"] == pytest.approx(174.6e9, rel=1e-3)
    assert counts["Megatron-LM 530B"] == counts["MT-NLG 530B, 2,240 A100"] == pytest.approx(529.6e9, rel=1e-3)
    assert counts["Megatron-LM 1T"] == pytest.approx(1008.0e9, rel=1e-3)
    assert counts["BLOOM-176B"] == 176_247_271_424
    assert counts["PaLM 540B"] == pytest.approx(540.35e9, rel=1e-3)
    assert counts["Llama 3 405B, 16,384 H100, 8K"] == 405_853_388_800
    # Nemotron-4 15B: "3.2 billion embedding parameters and 12.5 billion non-embedding parameters" (arXiv 2402.16819)
    nemotron = count_params(pl.RUNS["Nemotron-4 15B, 64 H100 (NVIDIA)"].model)
    embeddings = nemotron["embeddings"] + nemotron["output_head"]   # 2 × 256,000 × 6,144 = 3.15e9, untied
    assert embeddings == 2 * 256000 * 6144 and round((nemotron.total - embeddings) / 1e9, 1) == 12.5
    assert counts["Nemotron-4 340B, 128 H100 (NVIDIA)"] == pytest.approx(341.0e9, rel=1e-3)
    gpus = {name: run.gpus for name, run in pl.RUNS.items()}
    assert gpus["MT-NLG 530B, 2,240 A100"] == 2240 and gpus["BLOOM-176B"] == 384 and gpus["PaLM 540B"] == 6144
    assert [gpus[f"Llama 3 405B, {n}"] for n in ("8,192 H100, 8K", "16,384 H100, 8K", "16,384 H100, 128K")] == [
        8192, 16384, 16384]
    assert gpus["DeepSeek-V3, 2,048 H800"] == 2048
    # Table 4's 16M tokens a batch: 2,048 sequences of 8,192, 128 of 131,072
    assert {pl.RUNS[f"Llama 3 405B, 16,384 H100, {k}"].sequences for k in ("8K", "128K")} == {2048, 128}


@pytest.mark.parametrize("name, per_sequence", [("Llama 3.1 8B, 8 H100 (NVIDIA)", 4.74e14),
                                                ("Llama 3.1 70B, 64 H100 (NVIDIA)", 3.94e15),
                                                ("Llama 3.1 405B, 576 H100 (NVIDIA)", 2.17e16)])
def test_nvidias_flops_per_sequence_are_the_workbooks_within_2_percent(name, per_sequence):
    # The recipes' READMEs: "The model flops for Llama 3.1 405b for GBS=1 is 2.17E+16" (and 3.94E+15, 4.74E+14); so
    # the MFU read from their step times is theirs, counted the workbook's way.
    run = pl.RUNS[name]
    ours = (6 * compute.flops_params(run.model) + compute.attention_flops_per_token_for(run.model, 8192)) * 8192
    assert ours == pytest.approx(per_sequence, rel=0.02)


@pytest.mark.parametrize("generation", sorted(pl.FITTED_TO))
def test_the_fitted_efficiencies_are_the_fit(generation):
    assert la.MATMUL_EFFICIENCY[generation] == pytest.approx(pl.fit(generation), abs=1e-4)
    anchor = pl.FITTED_TO[generation]
    assert pl.predict(anchor)["mfu"] == pytest.approx(pl.published_mfu(anchor), abs=1e-3)


def test_the_held_out_runs_meet_the_targets_or_say_why_not(predicted):
    held_out = [name for name, run in pl.RUNS.items() if name not in pl.FITTED_TO.values() and not run.cannot]
    met = []
    for name in held_out:
        row, run = predicted[name], pl.RUNS[name]
        close = abs(row["mfu"] - pl.published_mfu(name)) <= 0.06
        near_best = row["step_time_s"] <= 1.15 * row["best_step_s"]
        assert (close and near_best) != bool(run.missed), name  # a miss is said, and only a miss
        met += [name] * (close and near_best)
    assert len(held_out) == 13 and len(met) == 11
    assert {name for name in held_out if name not in met} == {"Megatron-LM 22B", "Llama 3 405B, 16,384 H100, 128K"}


def test_the_misses_are_the_ones_the_notes_explain(predicted):
    # The 22B of a scaling study: the model is 13 points high, and a 2 × 4 split beats the published 8-way one.
    assert predicted["Megatron-LM 22B"]["mfu"] - 0.415 == pytest.approx(0.13, abs=0.01)
    # Llama 3's 128K row: within 6 points, but needs full recomputation to fit by the workbook's count.
    long = predicted["Llama 3 405B, 16,384 H100, 128K"]
    assert abs(long["mfu"] - 0.38) < 0.06 and long["recompute"] == "full" and long["fits"]
    # Its 8K rows do not fit by the workbook's activations count (Meta trained them without checkpointing)
    assert not predicted["Llama 3 405B, 16,384 H100, 8K"]["fits"]


def test_runs_the_model_cannot_be_held_to_are_off_by_what_it_leaves_out(predicted):
    # The older Megatron-DeepSpeed runs are slower than the model fitted to Megatron-LM 2022.
    for name in ("MT-NLG 530B, 2,240 A100", "BLOOM-176B"):
        assert predicted[name]["mfu"] > pl.published_mfu(name) + 0.08
    assert {name for name, run in pl.RUNS.items() if run.cannot} == {"MT-NLG 530B, 2,240 A100", "BLOOM-176B",
                                                                     "PaLM 540B"}


def test_deepseek_v3_is_held_out_with_the_moe_plans_all_to_all(predicted):
    # 180K H800-hours a trillion tokens on 2,048 GPUs: 19.9 s a step of 15,360 × 4,096 tokens, 43.9% MFU (6·N·D with
    # N = 37.6B active and attention, over the 989.4 TFLOPS BF16 peak). The search times DeepSeek-V3's layout with
    # moe_plan's terms (FP8 at its kernels' rate, FP8 dispatch to at most 4 nodes, DualPipe): within 15% of it, and
    # within 2% of moe_plan.deepseek_v3's step (before this, the search's cruder all-to-all gave 23.3%).
    from llmest.plans import moe_plan

    name = "DeepSeek-V3, 2,048 H800"
    row, published = predicted[name], pl.published_mfu(name)
    assert published == pytest.approx(0.4385, abs=5e-4)
    assert abs(row["mfu"] / published - 1) < 0.15 and abs(row["mfu"] - published) < 0.01
    assert row["step_time_s"] == pytest.approx(moe_plan.deepseek_v3()["step_s"], rel=0.02)
    assert row["ep_s"] == pytest.approx(moe_plan.deepseek_v3()["all_to_all_s"], rel=0.02)
    # Without the node limit every expert's copy crosses the network: the all-to-all grows by k(ep − g)/ep over
    # M(n − 1)/n = 7/3.5, twice; in BF16 with no DualPipe overlap, it is all exposed.
    plain = pl.search(replace(pl.RUNS[name], nodes_per_token=None)).evaluate(**pl.RUNS[name].layout)
    assert plain["ep_s"] / row["ep_s"] == pytest.approx(2.0, rel=0.01)
    bf16 = pl.search(replace(pl.RUNS[name], precision=None, schedule="1f1b", nodes_per_token=None))
    assert bf16.evaluate(**pl.RUNS[name].layout)["mfu"] < 0.30


def test_every_published_step_time_reads_as_its_published_throughput():
    # MT-NLG: 126 TFLOP/s a GPU counting 4 passes (the recomputed forward): 3 passes of the model's FLOPs in 60.1 s
    # are 3/4 of it, within 2%. BLOOM: 149.77 TFLOP/s, the same way.
    for name, tflops in (("MT-NLG 530B, 2,240 A100", 126e12), ("BLOOM-176B", 149.77e12)):
        assert pl.published_mfu(name) * 312e12 == pytest.approx(tflops * 3 / 4, rel=0.03)
    # DeepSeek-V3: 180K GPU-hours a trillion tokens on 2,048 GPUs, 15,360 sequences of 4,096 a step
    assert pl.RUNS["DeepSeek-V3, 2,048 H800"].published_step_s == pytest.approx(
        15360 * 4096 * 180e3 * 3600 / 1e12 / 2048)


def test_every_run_has_its_source_and_the_comparison_shows_each():
    table = str(pl.comparison())
    for name, run in pl.RUNS.items():
        assert len(run.source) > 80 and name.split(",")[0] in table
