"""Published runs: each run's figures as its source gives them, the MFU each implies, DeepSeek-V3's worked example."""

import dataclasses
import json

import pytest

import llmest as le
from llmest import compute as c
from llmest import hardware, runs
from llmest.core._validate import InputError
from llmest.formulas.model import ModelConfig
from llmest.formulas.readers.config_file import CONFIGS

FIXTURES = CONFIGS
A100, H100 = 312e12, 989.4e12


def _run(name):
    return next(r for r in runs.RUNS if r.name == name)


@pytest.mark.parametrize("name, year, params, tokens, gpu_hours, hardware_, peak", [
    ("GPT-3 175B", 2020, 174.6e9, 300e9, 10_000 * 14.8 * 24, "V100", 125e12),   # Patterson et al.'s estimate
    ("MT-NLG 530B", 2022, 530e9, 270e9, None, "A100 80GB", A100),
    ("PaLM 540B", 2022, 540.35e9, 780e9, None, "TPU v4", 275e12),
    ("OPT-175B", 2022, 175e9, 180e9, 809_472, "A100 80GB", A100),    # LLaMA Table 15: 34 days × 992 GPUs
    ("BLOOM-176B", 2022, 176.247e9, 366e9, 1_082_990, "A100 80GB", A100),
    ("LLaMA-7B", 2023, 6.7e9, 1.0e12, 82_432, "A100 80GB", A100),
    ("LLaMA-65B", 2023, 65.2e9, 1.4e12, 1_022_362, "A100 80GB", A100),
    ("Llama 2 70B", 2023, 70e9, 2.0e12, 1_720_320, "A100 80GB", A100),
    ("MPT-7B", 2023, 6.7e9, 1e12, 440 * 9.5 * 24, "A100 40GB", A100),            # 440 GPUs × 9.5 days
    ("Falcon-180B", 2023, 180e9, 3.5e12, 7e6, "A100 40GB", A100),
    ("Llama 3 8B", 2024, 8e9, 15e12, 1.3e6, "H100 80GB", H100),
    ("Llama 3 70B", 2024, 70e9, 15e12, 6.4e6, "H100 80GB", H100),
    ("Llama 3.1 8B", 2024, 8e9, 15e12, 1.46e6, "H100 80GB", H100),
    ("Llama 3.1 70B", 2024, 70e9, 15e12, 7.0e6, "H100 80GB", H100),
    ("Llama 3.1 405B", 2024, 405e9, 15.6e12, 30.84e6, "H100 80GB", H100),
    ("DeepSeek-V3", 2024, 671e9, 14.8e12, 2.788e6, "H800", H100),                 # H800: H100 SXM compute
])
def test_each_run_as_published(name, year, params, tokens, gpu_hours, hardware_, peak):
    run = _run(name)
    assert (run.year, run.params, run.tokens, run.hardware) == (year, params, tokens, hardware_)
    assert run.gpu_hours == (pytest.approx(gpu_hours) if gpu_hours else None)
    assert run.peak_flops_per_s == pytest.approx(peak)


def test_the_cards_totals_add_up():
    # Llama 3 card: "a cumulative 7.7M GPU hours"; Llama 3.1 card: "a cumulative of 39.3M GPU hours"
    assert sum(_run(f"Llama 3 {s}").gpu_hours for s in ("8B", "70B")) == pytest.approx(7.7e6)
    assert sum(_run(f"Llama 3.1 {s}").gpu_hours for s in ("8B", "70B", "405B")) == pytest.approx(39.3e6)
    assert runs.RUNS == sorted(runs.RUNS, key=lambda r: r.year)


@pytest.mark.parametrize("name, mfu", [
    # 6·N·D / (GPU-hours × 3600 × peak), worked by hand with the published N; llmest's exact N may differ
    ("OPT-175B", 0.208), ("BLOOM-176B", 0.318), ("MPT-7B", 0.357), ("Falcon-180B", 0.481),
    ("Llama 3 8B", 0.155), ("Llama 3 70B", 0.276), ("Llama 3.1 8B", 0.138), ("Llama 3.1 70B", 0.253),
    ("Llama 3.1 405B", 0.345), ("DeepSeek-V3", 0.346), ("GPT-3 175B", 0.197),
])
def test_each_implied_mfu_is_the_formula_and_plausible(name, mfu):
    run = _run(name)
    by_hand = 6 * run.n_params * run.tokens / (run.pretraining_gpu_hours * 3600 * run.peak_flops_per_s)
    assert run.mfu == pytest.approx(by_hand)
    assert run.mfu == pytest.approx(c.implied_mfu(run.n_params, run.tokens, run.pretraining_gpu_hours,
                                                  run.peak_flops_per_s))
    published_n = c.implied_mfu(run.active_params or run.params, run.tokens, run.pretraining_gpu_hours,
                                run.peak_flops_per_s)
    assert min(published_n, run.mfu) - 0.001 <= mfu <= max(published_n, run.mfu) + 0.001
    assert 0.1 < run.mfu < 0.55


def test_every_run_implies_a_plausible_mfu():
    for run in runs.RUNS:
        assert 0.1 < run.mfu < 0.55, run.name
        assert set(run.recalled) <= {f.name for f in dataclasses.fields(run)}, run.name


def test_throughput_runs_use_their_rate():
    # MT-NLG §2.4: 1,920 × 2,048 tokens per 60.1 s on 2,240 A100s; 29.7% in PaLM's Table 3
    mtnlg = _run("MT-NLG 530B")
    assert mtnlg.mfu == pytest.approx(1920 * 2048 / 60.1 * 6 * 530e9 / (2240 * A100))
    assert mtnlg.mfu == pytest.approx(mtnlg.published_mfu[0], abs=0.002)


def test_gpt3_and_palm_unchanged():
    assert runs.GPT3 in runs.RUNS and runs.PALM_RUN in runs.RUNS
    assert runs.GPT3.gpu_hours == 3_552_000 and runs.GPT3.mfu == pytest.approx(0.1967, abs=0.0001)
    assert runs.PALM_RUN.mfu == pytest.approx(runs.palm_mfu(False))
    assert runs.PALM_RUN.mfu == pytest.approx(0.457, abs=0.0005)
    assert runs.PALM_RUN.published_mfu[0] == pytest.approx(runs.palm_mfu(True), abs=0.0005)   # 46.2%


def test_published_mfu_beside_the_implied():
    # Llama 3 paper Table 4: 38-43% in steady pre-training; the card's hours cover more, so they imply less
    llama = _run("Llama 3.1 405B")
    assert llama.published_mfu == (0.38, 0.43) and llama.mfu < llama.published_mfu[0]
    assert _run("OPT-175B").published_mfu[0] == pytest.approx(147 / 312)   # "up to 147 TFLOP/s per GPU"
    # OPT's and BLOOM's stated figures are peaks of hardware FLOPs (the recomputed forward counted), shown as HFU
    assert {r.name for r in runs.RUNS if r.stated_hfu} == {"OPT-175B", "BLOOM-176B"}
    table = str(runs.runs_table())
    assert "47% HFU, peak" in table and "50% HFU, peak" in table


def test_deepseek_v3_hours_and_cost():
    run = runs.DEEPSEEK_V3
    assert dict(run.phases) == {"pre-training": 2664e3, "context extension": 119e3, "post-training": 5e3}
    assert sum(h for _, h in run.phases) == pytest.approx(run.gpu_hours)
    assert run.gpu_hours == pytest.approx(2.788e6)
    assert run.pretraining_gpu_hours / (run.tokens / 1e12) == pytest.approx(180e3, rel=0.001)   # 180K per trillion
    example = runs.deepseek_v3_example()
    assert example.cost_usd == pytest.approx(5.576e6)
    assert example.n_params == 37e9 == run.n_params


def test_deepseek_v3_mfu_against_both_peaks():
    example = runs.deepseek_v3_example()
    assert example.mfu_bf16 == pytest.approx(6 * 37e9 * 14.8e12 / (2.664e6 * 3600 * 989.4e12))
    assert example.mfu_bf16 == pytest.approx(0.346, abs=0.0005)
    assert example.mfu_bf16 == pytest.approx(runs.DEEPSEEK_V3.mfu)
    assert example.mfu_fp8 == pytest.approx(example.mfu_bf16 * 989.4 / 1979)
    assert example.mfu_fp8 == pytest.approx(0.173, abs=0.0005)
    assert hardware.gpu("H100 SXM").fp8_flops_per_s == 1979e12


def test_deepseek_v3_with_llmest_own_count():
    cfg = ModelConfig.from_hf_config(json.loads((FIXTURES / "deepseek-v3.json").read_text(encoding="utf-8")))
    n = c.flops_params(cfg)
    assert le.count_params(cfg).total == pytest.approx(671e9, rel=0.001)
    assert n == pytest.approx(37e9, rel=0.02)   # the active weights less the input embedding: 36.6B
    example = runs.deepseek_v3_example(n_params=n)
    assert example.mfu_bf16 == pytest.approx(runs.deepseek_v3_example().mfu_bf16 * n / 37e9)
    assert example.cost_usd == pytest.approx(5.576e6)


@pytest.mark.parametrize("kwargs, param", [({"n_params": 0}, "n_params"),
                                           ({"price_per_gpu_hour": -2}, "price_per_gpu_hour")])
def test_deepseek_v3_example_names_bad_input(kwargs, param):
    with pytest.raises(InputError) as err:
        runs.deepseek_v3_example(**kwargs)
    assert err.value.param == param


def test_mfu_range_is_the_middle_half():
    span = runs.mfu_range()
    mfus = sorted(r.mfu for r in span.runs)
    assert len(mfus) == len(runs.RUNS)
    assert span.low.mfu == mfus[0] < span.assume[0] < span.median < span.assume[1] < span.high.mfu == mfus[-1]
    inside = [m for m in mfus if span.assume[0] <= m <= span.assume[1]]
    assert len(inside) == 11 == len(mfus) // 2 + 1    # 21 runs: the 6th to the 16th


def test_every_recalled_figure_has_a_readers_name():
    for run in runs.RUNS:
        assert set(run.recalled) <= set(runs.FIGURE_WORDS), run.name
        assert run.recalled_words == (", ".join(runs.FIGURE_WORDS[f] for f in run.recalled) or "-")


def test_deepseek_v3_with_another_n_also_says_the_tables_figure():
    """Chapter 3 shows the MFU with llmest's count of the active matmul weights beside the table's 35% (the report's
    37B): both appear, each with the N it counts, so the reader sees why they differ."""
    shown = str(runs.deepseek_v3_example(n_params=36.6e9)).splitlines()
    assert shown[1].startswith("pre-training MFU with N = 36.6B: 34.3%")
    assert shown[2] == ("with the report's N = 37.0B: 34.6% of the dense BF16 peak, as the table of published runs "
                        "counts it")
    assert len(str(runs.deepseek_v3_example()).splitlines()) == 2
