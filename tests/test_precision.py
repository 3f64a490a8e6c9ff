"""Training precision recipes (formulas.precision, plans.precision_time, plans.findings.precision): the bytes of each
state and saved activation held to the sources' own counts, the peaks to the catalog's datasheet rows, and the
FP8-over-BF16 speedups of NVIDIA's published H100 recipes (NVIDIA/dgxc-benchmarking v25.02) to the model's."""

from __future__ import annotations

import subprocess
import sys

import pytest

from llmest import InputError, plans
from llmest.catalog import hardware
from llmest.formulas import precision as pr
from llmest.formulas.memory import activations_per_gpu
from llmest.formulas.model import preset
from llmest.plans import precision_pairs, precision_time
from llmest.plans.findings import precision as findings


def test_state_bytes_per_parameter_follow_each_source():
    # ZeRO paper §3.1: 2 + 2 + 12 bytes; DeepSeek-V3 §3.3.3: FP32 master and gradients, BF16 AdamW moments;
    # NVIDIA's H100 recipe: FP8 parameters and their transpose, FP32 master and moments, BF16 gradients.
    assert pr.recipe_state_bytes("bf16").total == 16
    deepseek = pr.recipe_state_bytes("fp8-deepseek")
    assert (deepseek.weights, deepseek.master, deepseek.grads, deepseek.optimizer) == (2, 4, 4, 4)
    te = pr.recipe_state_bytes("fp8-te")
    assert (te.weights, te.master, te.grads, te.optimizer) == (2, 4, 2, 8)
    # 8-bit Adam keeps its own format under any recipe: 2 × (1 + 4/2048).
    assert pr.recipe_state_bytes("fp8-deepseek", "adam8bit").optimizer == pytest.approx(2 * (1 + 4 / 2048))


def test_formats_count_their_scales():
    assert pr.format_bytes_per_value("fp8-1x128") == 1 + 4 / 128       # an FP32 scale per 1×128 tile
    assert pr.format_bytes_per_value("fp8-128x128") == 1 + 4 / 128**2
    assert pr.format_bytes_per_value("mxfp8") == 1 + 1 / 32             # an E8M0 scale per 32 (OCP MX v1.0)
    assert pr.format_bytes_per_value("nvfp4") == 0.5 + 1 / 16           # an E4M3 scale per 16


def test_the_peak_is_the_catalogs_row_for_the_recipes_rate():
    h100, b200, a100 = (hardware.gpu(name) for name in ("H100 SXM", "B200", "A100 80GB"))
    assert pr.matmul_peak_flops_per_s("fp8-te", h100) == 1979e12
    assert pr.matmul_peak_flops_per_s("bf16", h100) == h100.bf16_flops_per_s
    assert pr.matmul_peak_flops_per_s("nvfp4", b200) == b200.fp4_flops_per_s == 9000e12
    assert pr.matmul_peak_flops_per_s("mxfp8", b200) == b200.fp8_flops_per_s
    for recipe, gpu in (("fp8-te", a100), ("mxfp8", h100), ("nvfp4", h100)):
        with pytest.raises(InputError) as err:
            pr.matmul_peak_flops_per_s(recipe, gpu)
        assert err.value.param == "precision" and gpu.name in str(err.value)
    with pytest.raises(InputError) as err:
        pr.matmul_peak_flops_per_s("fp8-te", "H100 SXM")   # a name: the formulas do not read the catalog
    assert err.value.param == "gpu"


def test_saved_activations_reprice_only_the_matmul_inputs():
    cfg = preset("llama-3-8b")
    s, h, f = 8192, cfg.hidden_size, cfg.ffn_hidden_size
    bf16 = activations_per_gpu(cfg, 1, s)
    inputs = cfg.num_layers * (3 * s * h + s * f)     # QKV, attention-output, FFN and down-projection inputs
    assert pr.recipe_activations_per_gpu(cfg, 1, s, precision="bf16") == bf16
    assert pr.recipe_activations_per_gpu(cfg, 1, s, precision="fp8-te") == pytest.approx(bf16 - inputs)
    assert pr.recipe_activations_per_gpu(cfg, 1, s, precision="nvfp4") == pytest.approx(bf16 - inputs * 1.4375)
    # DeepSeek-V3 §3.3.3: 1×128 FP8 tiles, but the input of the projection after attention in E5M6 (12 bits).
    attention = cfg.num_layers * s * h
    assert pr.recipe_activations_per_gpu(cfg, 1, s, precision="fp8-deepseek") == pytest.approx(
        bf16 - inputs * (2 - 1.03125) + attention * (1.5 - 1.03125))
    # Full recomputation keeps only the layers' BF16 inputs: one layer's matmul inputs change.
    full = activations_per_gpu(cfg, 1, s, recompute="full")
    assert pr.recipe_activations_per_gpu(cfg, 1, s, recompute="full", precision="fp8-te") == pytest.approx(
        full - inputs / cfg.num_layers)


def test_training_memory_takes_a_recipe_and_shows_it():
    settings = dict(zero=1, dp=8, seq_len=8192)
    plain = plans.training_memory("llama-3-8b", **settings)
    te = plans.training_memory("llama-3-8b", precision="fp8-te", **settings)
    deepseek = plans.training_memory("llama-3-8b", precision="fp8-deepseek", **settings)
    assert te["weights"] == plain["weights"] and te["optimizer"] == plain["optimizer"]
    assert te["activations"] < plain["activations"]
    assert deepseek["gradients"] == 2 * plain["gradients"] and deepseek["optimizer"] == plain["optimizer"] / 2
    assert "fp8-te" in str(te) and "fp8-te" not in str(plain)
    plan = plans.plan_memory("training", "llama-3-8b", gpu="H100 SXM", precision="fp8-deepseek", **settings)
    assert plan.breakdown.precision == "fp8-deepseek"
    with pytest.raises(InputError) as err:
        plans.training_memory("llama-3-8b", precision="fp9")
    assert err.value.param == "precision"


def test_the_fitted_efficiency_is_what_the_fit_gives():
    assert precision_time.LOW_PRECISION_EFFICIENCY[("fp8-te", "Hopper")] == pytest.approx(
        precision_pairs.fit_low_precision("fp8-te", "Hopper"), abs=5e-4)


def test_published_fp8_speedups_are_within_15_percent_of_the_model():
    """NVIDIA/dgxc-benchmarking v25.02: BF16 and FP8 step times of the same layout on H100 (Llama 3.1 8B 12.78 /
    9.44 s, 70B 14.61 / 10.46, 405B 17.50 / 11.00, Nemotron-4 15B 2.845 / 2.048, 340B 4.61 / 3.16, GPT-3 175B
    8.309 / 5.626). The fitted pair matches; every held-out pair is within 15%, and one more than 5% off is
    explained."""
    found = findings.fp8_speedups()
    rows = {row["run"]: row for row in found["rows"]}
    assert rows["Llama 3.1 70B, 64 H100 (NVIDIA)"]["fitted"]
    assert abs(rows["Llama 3.1 70B, 64 H100 (NVIDIA)"]["difference"]) < 0.005
    assert rows["Llama 3.1 405B, 576 H100 (NVIDIA)"]["published_speedup"] == pytest.approx(17.50 / 11.00)
    for row in found["rows"]:
        assert abs(row["difference"]) < 0.15, row["run"]
        assert abs(row["difference"]) < 0.05 or row["why"], row["run"]
        assert row["published_mfu_bf16_peak"] > 0.6     # FP8 runs exceed 60% against the BF16 peak ...
    assert "FP8 MFU (BF16 peak)" in str(found) and "FP8 MFU (FP8 peak)" in str(found)   # ... both conventions shown


def test_estimate_time_under_a_recipe_says_both_mfus():
    base = dict(model="llama-3.1-70b", gpus=64, gpu="H100 SXM", mfu=0.545, seq_len=8192)
    bf16 = plans.estimate_time(15e12, **base)
    fp8 = plans.estimate_time(15e12, precision="fp8-te", **base)
    assert fp8.bf16_mfu == 0.545 and fp8.mfu > bf16.mfu
    # The compute-only speedup of the blocks' matmuls: within 15% of dgxc's 70B pair (14.61 / 10.46 s).
    assert bf16.days / fp8.days == pytest.approx(14.61 / 10.46, rel=0.15)
    text = str(fp8)
    assert "against the BF16 peak" in text and "against the FP8 peak" in text
    assert fp8.to_dict()["mfu_against_low_peak"] == pytest.approx(fp8.mfu / 2, rel=1e-3)
    with pytest.raises(InputError) as err:
        plans.estimate_time(1e12, n_params=7e9, peak_flops_per_s=400e12, precision="fp8-te")
    assert err.value.param == "precision"
    with pytest.raises(InputError) as err:
        plans.estimate_time(1e12, n_params=7e9, gpu="A100 80GB", precision="fp8-te")
    assert err.value.param == "precision"


def test_search_layouts_under_a_recipe_is_faster_and_smaller():
    args = ("llama-3-8b", 8, "H100 SXM", 8192, 128 * 8192)
    bf16 = plans.search_layouts(*args).evaluate(tp=1, cp=2, pp=1, dp=4, zero=1, micro_batch=1, recompute="none")
    fp8 = plans.search_layouts(*args, precision="fp8-te").evaluate(tp=1, cp=2, pp=1, dp=4, zero=1, micro_batch=1,
                                                                    recompute="none")
    assert fp8["step_time_s"] < bf16["step_time_s"] and fp8["memory_per_gpu_bytes"] < bf16["memory_per_gpu_bytes"]


def test_the_command_line_takes_a_precision():
    def run(*argv):
        return subprocess.run([sys.executable, "-m", "llmest", *argv], capture_output=True, text=True)

    out = run("time", "--model", "llama-3-8b", "--tokens", "15T", "--gpus", "1024", "--gpu", "H100 SXM",
              "--precision", "fp8-te")
    assert out.returncode == 0 and "against the FP8 peak" in out.stdout
    out = run("memory", "llama-3-8b", "--dp", "8", "--zero", "1", "--precision", "fp8-deepseek")
    assert out.returncode == 0 and "fp8-deepseek" in out.stdout
    out = run("time", "--params", "7B", "--tokens", "1T", "--precision", "nvfp4")
    assert out.returncode != 0 and "nvfp4" in out.stderr
    out = run("--lang", "zh", "time", "--model", "llama-3-8b", "--tokens", "15T", "--gpu", "H100 SXM",
              "--precision", "fp8-te")
    assert out.returncode == 0 and "BF16" in out.stdout


def test_recipes_finding_lists_every_recipe():
    found = findings.precision_recipes("B200")
    assert [row["recipe"] for row in found["rows"]] == list(pr.RECIPES)
    assert all(row["peak_flops_per_s"] for row in found["rows"])
    on_h100 = {row["recipe"]: row for row in findings.precision_recipes("H100 SXM")["rows"]}
    assert on_h100["nvfp4"]["peak_flops_per_s"] is None and on_h100["fp8-te"]["calibrated"]


@pytest.mark.parametrize("recipe", ["fp8-te", "mxfp8", "nvfp4"])
def test_the_blackwell_efficiencies_are_what_the_fit_gives(recipe):
    from llmest.plans.precision_blackwell import fit_blackwell

    assert precision_time.LOW_PRECISION_EFFICIENCY[(recipe, "Blackwell")] == pytest.approx(fit_blackwell(recipe),
                                                                                           abs=5e-4)


def test_published_blackwell_speedups_beside_the_model():
    """NVIDIA/dgxc-benchmarking v25.05.04: Llama 3.1 405B on 128 GB200, 9.347 s a step in BF16 and 6.131 in FP8;
    Megatron-Bridge 25.11: Llama 3 8B on 8 GB200, 31,508 tokens/s/GPU in FP8-CS and 29,789 in MXFP8; Megatron-Bridge
    26.04.01: Llama 3 70B on 64 GB200, 3,712 in MXFP8 and 4,864 in NVFP4. One pair fitted per recipe, the rest held
    out: the FP8 and MXFP8 ones within 2%, the NVFP4 ones within 25% and each more than 5% off explained."""
    from llmest.plans import precision_blackwell as blackwell

    found = findings.blackwell_speedups()
    rows = {row["run"]: row for row in found["rows"]}
    fitted = [row for row in found["rows"] if row["fitted"]]
    assert [(row["reference"], row["precision"]) for row in fitted] == [
        ("bf16", "fp8-te"), ("fp8-te", "mxfp8"), ("mxfp8", "nvfp4")]
    assert rows["Llama 3.1 405B, 128 GB200, BF16/FP8 (NVIDIA)"]["published_speedup"] == pytest.approx(9.347 / 6.131)
    assert rows["Llama 3 8B, 8 GB200, FP8-CS/MXFP8 (NVIDIA)"]["published_speedup"] == pytest.approx(29789 / 31508)
    assert rows["Llama 3 70B, 64 GB200, MXFP8/NVFP4 (NVIDIA)"]["published_speedup"] == pytest.approx(4864 / 3712)
    for row in found["rows"]:
        assert abs(row["difference"]) < (0.005 if row["fitted"] else 0.25), row["run"]
        assert abs(row["difference"]) < 0.05 or row["why"], row["run"]
        if row["precision"] != "nvfp4":
            assert abs(row["difference"]) < 0.02, row["run"]
    # The GB300's 1.5-times FP4 peak: the model overstates NVFP4's gain there, as its note says.
    assert rows["Llama 3 70B, 64 GB300, MXFP8/NVFP4 (NVIDIA)"]["difference"] > 0.05
    assert set(blackwell.WHY) <= set(blackwell.PAIRS)
    assert "held out of the fit" in str(found) and "no MFU convention" in str(found)


def test_blackwell_calibration_is_honest():
    for gpu in ("B200", "GB200 NVL72", "B300", "GB300 NVL72"):
        assert all(precision_time.is_calibrated(recipe, gpu) for recipe in ("bf16", "fp8-te", "mxfp8", "nvfp4"))
        assert not precision_time.is_calibrated("fp8-deepseek", gpu)     # no published pair of it on Blackwell
    assert not precision_time.is_calibrated("fp8-deepseek", "H100 SXM")
    # B200: 9,000 TFLOPS FP4 at 0.2610 over 2,250 BF16 at the uncalibrated 0.5; MXFP8 at 0.3681 of 4,500.
    assert precision_time.recipe_gemm_speedup("nvfp4", "B200") == pytest.approx(9000 * 0.2610 / (2250 * 0.5))
    assert precision_time.recipe_gemm_speedup("mxfp8", "B200") == pytest.approx(4500 * 0.3681 / (2250 * 0.5))
    from llmest.plans.precision_blackwell import fit_blackwell

    with pytest.raises(InputError) as err:
        fit_blackwell("fp8-deepseek")
    assert err.value.param == "precision"
