"""The llmest command: each subcommand against the library, JSON output, help with examples, bad options."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import llmest as le
from llmest import cli
from llmest import compute as c
from llmest import data as dt
from llmest import drills, hardware
from llmest import memory as mem
from llmest import plans

FIXTURES = Path(__file__).parent / "fixtures"


def run_json(capsys, *argv):
    assert cli.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_params_of_a_preset_and_of_a_config_file(capsys):
    out = run_json(capsys, "params", "llama-2-7b")
    assert out["total"] == le.count_params(le.preset("llama-2-7b")).total == 6_738_415_616
    config = next(FIXTURES.glob("*mixtral*.json"))
    out = run_json(capsys, "params", str(config))
    count = le.count_params(le.ModelConfig.from_hf_config(json.loads(config.read_text())))
    assert (out["total"], out["active"], out["parts"]) == (count.total, count.active, count.parts)
    assert cli.main(["params", "gpt2"]) == 0
    text = capsys.readouterr().out
    assert "124,439,808" in text and "positions" in text  # GPT-2: learned positions, tied head


@pytest.mark.parametrize("argv, plan", [
    (["llama-2-7b", "--zero", "3", "--dp", "8", "--micro-batch", "4", "--seq-len", "4096", "--recompute", "full"],
     lambda cfg: plans.training_memory(cfg, zero=3, dp=8, micro_batch=4, seq_len=4096, recompute="full")),
    (["llama-2-7b", "--convention", "bf16", "--optimizer", "adam8bit", "--no-flash"],
     lambda cfg: plans.training_memory(cfg, convention="bf16", optimizer="adam8bit", seq_len=2048, flash=False)),
    (["llama-2-70b", "--task", "inference", "--weights", "int4", "--seq-len", "2048", "--batch", "32"],
     lambda cfg: plans.inference_memory(cfg, weights="int4", seq_len=2048, batch=32)),
    (["llama-2-70b", "--task", "qlora", "--rank", "64"], lambda cfg: plans.qlora_memory(cfg, rank=64)),
])
def test_memory_matches_the_library(capsys, argv, plan):
    out = run_json(capsys, "memory", *argv)
    expected = plan(le.preset(argv[0]))
    assert out["parts"] == expected.parts and out["total"] == expected.total
    assert out["fits"] == plans.fits(expected, "A100 80GB")


def test_memory_reports_the_least_gpus_that_hold_the_run(capsys):
    # Training: the least dp at the chosen ZeRO stage. Llama-2-7B (6,738,415,616 parameters) with ZeRO-2 keeps
    # 2 + 14/dp bytes a parameter of states: 60.6 GB on 2 GPUs, plus 2.29 GB of activations for 1 × 4,096 tokens
    # with full recomputation and 0.5 GB of runtime, within the 64 GB usable; on 1 GPU the states alone are 108 GB.
    argv = ["memory", "llama-2-7b", "--zero", "2", "--seq-len", "4096", "--recompute", "full"]
    out = run_json(capsys, *argv)
    plan = plans.plan_memory("training", "llama-2-7b", zero=2, seq_len=4096, recompute="full")
    assert out["least_gpus"] == out["least_dp"] == plan.least_gpus == 2
    assert out["least_dp"] == plans.min_gpus(lambda n: plans.training_memory("llama-2-7b", zero=2, dp=n, seq_len=4096,
                                                                         recompute="full"), "A100 80GB")
    # The states alone, sharded evenly: 107.8 GB over 64 GB usable per GPU -> 2.
    assert out["state_gpus"] == plans.state_gpus(6_738_415_616, 16, "A100 80GB", 0.2) == 2
    assert out["trainable_params"] == 6_738_415_616 and out["activations_per_gpu"] == plan.breakdown["activations"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "least GPUs that hold it: 2 (dp 2 × tp·pp 1, ZeRO-2 sharding over dp)" in text
    assert "for one micro-batch of 1 × 4,096 tokens (full recomputation, FlashAttention)" in text
    assert "do not shrink as GPUs are added" in text
    # With tensor parallelism the least count is dp × tp.
    out = run_json(capsys, "memory", "llama-2-70b", "--zero", "3", "--tp", "8", "--seq-len", "4096",
                   "--recompute", "full")
    assert out["least_gpus"] == 8 * out["least_dp"]
    assert out["least_dp"] == plans.min_gpus(lambda n: plans.training_memory("llama-2-70b", zero=3, dp=n, tp=8,
                                                                          seq_len=4096, recompute="full"),
                                           "A100 80GB")
    # 70B's states: Llama-2-70B's 68.98B parameters × 16 bytes = 1.10 TB over 64 GB usable -> 18 (17.2 rounded up).
    assert out["state_gpus"] == 18
    # Without ZeRO more data-parallel GPUs do not help: the command says so.
    out = run_json(capsys, "memory", "llama-2-70b")
    assert out["least_gpus"] is None and out["least_dp"] is None
    assert cli.main(["memory", "llama-2-70b"]) == 0
    assert "without ZeRO every data-parallel GPU holds all the states" in capsys.readouterr().out


def test_memory_inference_least_tp_divides_the_heads(capsys):
    # Llama-2-70B in BF16 with 32 × 2,048 tokens of KV cache: 160 GB, three GPUs' worth of 64 GB, but tp must divide
    # its 64 heads: 4.
    out = run_json(capsys, "memory", "llama-2-70b", "--task", "inference", "--seq-len", "2048", "--batch", "32")
    assert out["least_gpus"] == out["least_tp"] == 4 and "state_gpus" not in out
    assert out["least_tp"] == plans.min_gpus(lambda n: plans.inference_memory("llama-2-70b", seq_len=2048, batch=32, tp=n),
                                           "A100 80GB")
    assert cli.main(["memory", "llama-2-70b", "--task", "inference", "--seq-len", "2048", "--batch", "32"]) == 0
    assert "least GPUs that hold it: 4 (tensor parallelism over 4, which divides the 64 heads)" in \
        capsys.readouterr().out


def test_memory_qlora_reports_the_trainable_parameters(capsys):
    # Rank 64 on all seven projections of Llama-2-70B's 80 layers (hidden 8,192, KV 1,024, FFN 28,672):
    # 64 × (2·(8192 + 8192) + 2·(8192 + 1024) + 3·(8192 + 28672)) × 80 = 828,375,040.
    out = run_json(capsys, "memory", "llama-2-70b", "--task", "qlora", "--rank", "64")
    assert out["trainable_params"] == 64 * (2 * 16384 + 2 * 9216 + 3 * 36864) * 80 == 828_375_040
    assert out["trainable_params"] == mem.lora_params("llama-2-70b", 64, mem.LORA_TARGETS)
    assert out["least_gpus"] == 1 and out["fits"]
    out = run_json(capsys, "memory", "llama-2-70b", "--task", "qlora", "--rank", "16")
    assert out["trainable_params"] == 828_375_040 // 4
    assert cli.main(["memory", "llama-2-70b", "--task", "qlora"]) == 0
    assert "trainable (adapter) parameters: 828,375,040 (828M)" in capsys.readouterr().out


def test_memory_text_says_whether_it_fits(capsys):
    assert cli.main(["memory", "llama-2-70b", "--task", "inference", "--gpu", "H200"]) == 0
    text = capsys.readouterr().out
    assert "does not fit one H200" in text and "kv_cache" in text
    assert cli.main(["memory", "llama-2-7b", "--zero", "3", "--dp", "8"]) == 0
    assert "fits each A100 80GB" in capsys.readouterr().out
    assert cli.main(["memory", "llama-2-7b", "--zero", "3"]) == 0
    assert "with --dp 1 nothing is sharded" in capsys.readouterr().out


def test_time_matches_exercise_1_and_the_library(capsys):
    out = run_json(capsys, "time", "--params", "7B", "--tokens", "1T", "--gpus", "256", "--mfu", "0.4")
    peak = hardware.gpu("A100 80GB").bf16_flops_per_s
    assert out["flops"] == c.training_flops(7e9, 1e12)
    assert out["gpu_hours"] == c.gpu_hours(out["flops"], peak, 0.4)
    assert round(out["gpu_hours"]) == 93_483
    assert out["days"] == c.training_days(out["flops"], 256, peak, 0.4)
    assert out["cost_usd"] == c.cost(out["gpu_hours"], 2.5)
    out = run_json(capsys, "time", "--model", "mixtral-8x7b", "--tokens", "1T", "--peak", "200")
    assert out["params"] == c.flops_params("mixtral-8x7b") and out["peak_flops_per_s"] == 200e12


def test_data_matches_the_library(capsys):
    out = run_json(capsys, "data", "--params", "70B", "--language", "chinese", "--cleaning-yield", "0.2",
                   "--gpus", "64", "--days", "30", "--mfu", "0.5")
    assert out["tokens"] == dt.chinchilla_tokens(70e9) == 1.4e12
    assert out["cleaned_bytes"] == dt.cleaned_bytes(1.4e12, dt.tokens_per_gb("chinese"))
    assert out["raw_bytes"] == dt.raw_bytes(out["cleaned_bytes"], 0.2)
    n, d = plans.chinchilla_for_budget(64, 30, hardware.gpu("A100 80GB").bf16_flops_per_s, 0.5)
    assert out["budget_optimal"] == {"params": n, "tokens": d}


def test_data_takes_a_peak_and_answers_a_budget_without_params(capsys):
    # Seed 004 §4.3: 64 cards of 200 TFLOPS at 50% for 30 days = 64 × 2e14 × 0.5 × 2,592,000 s = 1.65888e22 FLOPs;
    # at 20 tokens a parameter, N = √(C / 120) = 11.76B on 235B tokens, and 235B / 2.8e8 per GB = 840 GB of English.
    out = run_json(capsys, "data", "--gpus", "64", "--days", "30", "--mfu", "0.5", "--peak", "200")
    assert out["budget_flops"] == pytest.approx(1.65888e22) and out["peak_flops_per_s"] == 200e12
    assert out["params"] == pytest.approx((1.65888e22 / 120) ** 0.5) == pytest.approx(11.7576e9, rel=1e-4)
    assert out["budget_optimal"] == {"params": out["params"], "tokens": out["tokens"]}
    assert out["tokens"] == pytest.approx(20 * out["params"])
    assert out["cleaned_bytes"] == pytest.approx(out["tokens"] / 2.8e8 * 1e9)
    assert cli.main(["data", "--gpus", "64", "--days", "30", "--mfu", "0.5", "--peak", "200"]) == 0
    text = capsys.readouterr().out
    assert "1.66e22 FLOPs at 200 TFLOPS and 50% MFU" in text and "(the compute-optimal model)" in text
    # Without --peak, the GPU's dense BF16 peak (A100: 312 TFLOPS).
    out = run_json(capsys, "data", "--gpus", "64", "--days", "30")
    assert out["peak_flops_per_s"] == 312e12 and out["budget_flops"] == pytest.approx(64 * 312e12 * 0.4 * 30 * 86400)


def test_data_english_is_the_chapters_rate(capsys):
    # Seed 004 §4.2: 140B tokens at 2.8亿 tokens per GB is 500 GB of cleaned English, the chapter's figure.
    out = run_json(capsys, "data", "--params", "7B")
    assert out["tokens_per_gb"] == 2.8e8 and out["cleaned_bytes"] == pytest.approx(500e9)
    assert cli.main(["data", "--params", "7B"]) == 0
    assert "500 GB at 280M tokens per GB" in capsys.readouterr().out


def test_a_gpu_may_be_named_in_any_case_and_spacing(capsys):
    out = run_json(capsys, "memory", "llama-2-7b", "--gpu", "h100 sxm")
    assert out["gpu"] == "H100 SXM"


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"llmest {le.__version__}"


def test_drill_json_lists_the_problems(tmp_path, capsys):
    out = run_json(capsys, "drill", "--seed", "4", "--n", "3", "--out", str(tmp_path))
    expected = drills.drill_set(4, 3, level="mixed")  # the command's default level
    assert [p["question"] for p in out["problems"]] == [p.question for p in expected]
    assert [p["answer"] for p in out["problems"]] == [p.answer for p in expected]
    assert set(out["files"]) == {"worksheet.md", "worksheet.html", "key.md", "key.html"}


def test_drill_writes_the_worksheet_of_the_generator(tmp_path, capsys):
    assert cli.main(["drill", "--seed", "3", "--n", "5", "--topics", "data", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.html", "key.md", "worksheet.html", "worksheet.md"]
    key = (tmp_path / "key.md").read_text()
    for problem in drills.drill_set(3, 5, "data", "mixed"):
        assert f"**Answer: {problem.answer_text}**" in key


@pytest.mark.parametrize("command", ["params", "memory", "time", "data", "drill"])
def test_help_shows_examples(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([command, "--help"])
    assert exit_.value.code == 0
    assert f"examples:\n  llmest {command}" in capsys.readouterr().out


@pytest.mark.parametrize("argv, named", [
    (["memory", "llama-2-7b", "--zero", "5"], "--zero: zero == 5, must be <= 3"),
    (["memory", "llama-2-7b", "--tp", "3"], "--tp: tp == 3 must divide the attention heads"),
    (["memory", "llama-2-7b", "--gpu", "H100"], "--gpu: gpu == 'H100', must be one of 'V100', 'A100 80GB'"),
    (["time", "--params", "7B", "--tokens", "1T", "--gpu", "H100"], "Did you mean 'H100 SXM' or 'H100 PCIe'"),
    (["time", "--params", "7B", "--tokens", "1T", "--gpu", "RTX 4090"],
     "--price: no price per GPU-hour is listed for 'RTX 4090'"),
    (["params", "llama-2-7b", "--jsn"], "llmest params: error: unrecognized arguments: --jsn"),
    (["memory", "llama-2-7b", "--task", "serve"], "argument --task: invalid choice: 'serve'"),
    (["params", "lama-2-7b"], "model: preset == 'lama-2-7b', must be one of"),
    (["params", "missing/config.json"], "model: model == 'missing/config.json': no such file"),
    (["time", "--tokens", "1T", "--params", "abc"], "argument --params: 'abc' is not a number"),
    (["time", "--tokens", "1T", "--params", "15,2B"], "argument --params: '15,2B': a comma separates thousands"),
    (["time", "--tokens", "1T", "--params", "7B", "--mfu", "1.5"], "--mfu: mfu == 1.5, must be in (0, 1]"),
    (["time", "--tokens", "1T"], "--params: give --params (e.g. 7B) or --model (a preset or config.json): neither"),
    (["data", "--params", "7B", "--tokens-per-param", "0"], "--tokens-per-param: tokens_per_param == 0"),
    (["drill", "--topics", "memory,finance"], "topics"),
    (["drill", "--level", "expert"], "level"),
    (["time", "--params", "7B", "--tokens", "1T", "--price", "-1"], "--price: price_per_gpu_hour == -1"),
    (["time", "--params", "7B", "--tokens", "1T", "--peak", "-3"], "--peak: peak_flops_per_s =="),
    (["data", "--params", "7B", "--gpus", "0"], "--gpus: gpus == 0"),
    (["data"], "--params: give --params (e.g. 7B), or --gpus and --days"),
    (["data", "--gpus", "8", "--peak", "-1"], "--peak: peak_flops_per_s == -1e+12"),
    (["data", "--gpus", "8", "--days", "0"], "--days: days == 0"),
    (["time", "--params", "7B", "--tokens", "1T", "--peak", "0"], "--peak: peak_flops_per_s == 0"),
    # --peak is in TFLOPS: a FLOP/s figure typed there is refused, not taken as 2e14 TFLOPS.
    (["data", "--gpus", "64", "--days", "30", "--peak", "200e12", "--mfu", "0.5"],
     "--peak: peak == 2e+14, in TFLOPS (e.g. 200 for 200e12 FLOP/s), must be in (0, 100000]"),
    (["time", "--params", "7B", "--tokens", "1T", "--peak", "989e12"], "--peak: peak == 9.89e+14, in TFLOPS"),
])
def test_a_bad_option_is_named_with_status_2_and_no_traceback(argv, named, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err


def test_the_installed_command_runs():
    script = Path(sys.executable).with_name("llmest")
    assert script.exists(), "pip install -e . installs the llmest command beside python"
    result = subprocess.run([str(script), "time", "--params", "7B", "--tokens", "1T", "--gpus", "256"],
                            capture_output=True, text=True)
    assert result.returncode == 0 and "93,483" in result.stdout
    result = subprocess.run([str(script), "memory", "llama-2-7b", "--zero", "9"], capture_output=True, text=True)
    assert result.returncode == 2 and "--zero" in result.stderr and "Traceback" not in result.stderr
