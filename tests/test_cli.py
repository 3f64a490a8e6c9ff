"""The llmest command: each subcommand against the library, JSON output, help with examples, bad options."""

import contextlib
import io
import json
import re
import shlex
import shutil
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
from llmest.formulas.readers.config_file import CONFIGS

FIXTURES = CONFIGS


def run_json(capsys, *argv):
    assert cli.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_params_of_a_preset_and_of_a_config_file(capsys):
    out = run_json(capsys, "params", "llama-2-7b")
    assert out["total"] == le.count_params(le.preset("llama-2-7b")).total == 6_738_415_616
    config = next(FIXTURES.glob("*mixtral*.json"))
    out = run_json(capsys, "params", str(config))
    count = le.count_params(le.ModelConfig.from_hf_config(json.loads(config.read_text(encoding="utf-8"))))
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
    (["llama-3-8b", "--task", "lora", "--rank", "16", "--gpu", "RTX 4090"],
     lambda cfg: plans.lora_memory(cfg, rank=16)),
])
def test_memory_matches_the_library(capsys, argv, plan):
    out = run_json(capsys, "memory", *argv)
    expected = plan(le.preset(argv[0]))
    assert out["parts"] == expected.parts and out["total"] == expected.total
    assert out["fits"] == plans.fits(expected, "--gpu" in argv and argv[argv.index("--gpu") + 1] or "A100 80GB")


def test_memory_plain_lora_keeps_a_bf16_base_on_one_gpu(capsys):
    """Plain LoRA: QLoRA's adapters, states and activations over a frozen base kept in BF16, not quantised."""
    cfg = le.preset("llama-3-8b")
    out = run_json(capsys, "memory", "llama-3-8b", "--task", "lora", "--rank", "16", "--gpu", "RTX 4090")
    assert out["parts"]["weights"] == mem.model_weight_bytes(cfg, "bf16") and out["base"] == "bf16"
    assert out["parts"] == plans.qlora_memory(cfg, rank=16, base="bf16").parts
    assert out["trainable_params"] == mem.lora_params(cfg, 16, mem.LORA_TARGETS)
    assert out["fits"] and out["least_gpus"] == 1
    assert cli.main(["memory", "llama-3-8b", "--task", "lora", "--rank", "16", "--gpu", "RTX 4090"]) == 0
    assert "least GPUs that hold it: 1: LoRA here runs on a single GPU" in capsys.readouterr().out


def test_memory_reports_the_least_gpus_that_hold_the_run(capsys):
    # Training: the least dp at the chosen ZeRO stage. Llama-2-7B (6,738,415,616 parameters) with ZeRO-2 keeps
    # 2 + 14/dp bytes a parameter of states: 60.6 GB on 2 GPUs, plus 2.50 GB of activations for 1 × 4,096 tokens
    # with full recomputation, DeepSpeed's 1 GB reduce bucket and 0.5 GB of runtime: 64.6 GB, within the 68.7 GB
    # usable (80% of 80 GiB); on 1 GPU the states alone are 108 GB.
    argv = ["memory", "llama-2-7b", "--zero", "2", "--seq-len", "4096", "--recompute", "full"]
    out = run_json(capsys, *argv)
    plan = plans.plan_memory("training", "llama-2-7b", zero=2, seq_len=4096, recompute="full")
    assert out["least_gpus"] == out["least_dp"] == plan.least_gpus == 2
    assert out["least_dp"] == plans.min_gpus(lambda n: plans.training_memory("llama-2-7b", zero=2, dp=n, seq_len=4096,
                                                                         recompute="full"), "A100 80GB")
    # The states alone, sharded evenly: 107.8 GB over 68.7 GB usable per GPU -> 2.
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
    # 70B's states: Llama-2-70B's 68.98B parameters × 16 bytes = 1.10 TB over 68.7 GB usable -> 17 (16.06 rounded up).
    assert out["state_gpus"] == 17
    # Without ZeRO more data-parallel GPUs do not help: the command says so.
    out = run_json(capsys, "memory", "llama-2-70b")
    assert out["least_gpus"] is None and out["least_dp"] is None
    assert cli.main(["memory", "llama-2-70b"]) == 0
    assert "without ZeRO every data-parallel GPU holds all the states" in capsys.readouterr().out


def test_memory_inference_least_tp_divides_the_heads(capsys):
    # Llama-2-70B in BF16 with 32 × 2,048 tokens of KV cache: 160 GB, three GPUs' worth of 68.7 GB, but tp must divide
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
    # at 20 tokens a parameter, N = √(C / 120) = 11.76B on 235B tokens, and 235B / 2.4e8 per GB = 979 GB of English
    # (the workbook's measured rate, llmest/catalog/corpora/measured.json).
    out = run_json(capsys, "data", "--gpus", "64", "--days", "30", "--mfu", "0.5", "--peak", "200")
    assert out["budget_flops"] == pytest.approx(1.65888e22) and out["peak_flops_per_s"] == 200e12
    assert out["params"] == pytest.approx((1.65888e22 / 120) ** 0.5) == pytest.approx(11.7576e9, rel=1e-4)
    assert out["budget_optimal"] == {"params": out["params"], "tokens": out["tokens"]}
    assert out["tokens"] == pytest.approx(20 * out["params"])
    assert out["cleaned_bytes"] == pytest.approx(out["tokens"] / 2.4e8 * 1e9)
    assert cli.main(["data", "--gpus", "64", "--days", "30", "--mfu", "0.5", "--peak", "200"]) == 0
    text = capsys.readouterr().out
    assert "1.66e22 FLOPs at 200 TFLOPS and 50% MFU" in text and "(the compute-optimal model)" in text
    # Without --peak, the GPU's dense BF16 peak (A100: 312 TFLOPS).
    out = run_json(capsys, "data", "--gpus", "64", "--days", "30")
    assert out["peak_flops_per_s"] == 312e12 and out["budget_flops"] == pytest.approx(64 * 312e12 * 0.4 * 30 * 86400)


def test_data_english_is_the_chapters_rate(capsys):
    # 140B tokens at the measured 2.4e8 tokens per GB (man pages, llmest/catalog/corpora/measured.json) is 583 GB of cleaned
    # English, the chapter's figure (the material's 2.8e8 gives its 500 GB).
    out = run_json(capsys, "data", "--params", "7B")
    assert out["tokens_per_gb"] == 2.4e8 and out["cleaned_bytes"] == pytest.approx(140e9 / 2.4e8 * 1e9)
    assert cli.main(["data", "--params", "7B"]) == 0
    assert "583 GB at 240M tokens per GB" in capsys.readouterr().out


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
    key = (tmp_path / "key.md").read_text(encoding="utf-8")
    for problem in drills.drill_set(3, 5, "data", "mixed"):  # a chained problem has an answer per step
        labels = [f" ({letter})" for letter in "abc"] if problem.parts else [""]
        assert all(f"**Answer{label}: {part.answer_text}**" in key for label, part in zip(labels, problem.graded))


def test_drill_course_writes_the_set_as_an_nbgrader_assignment(tmp_path, capsys):
    course = tmp_path / "course"
    out = run_json(capsys, "drill", "--seed", "5", "--n", "4", "--out", str(tmp_path / "sheet"), "--course",
                   str(course), "--assignment", "week-3")
    source = course / "source" / "week-3" / "week-3.ipynb"
    assert out["files"]["assignment"] == str(source) and (course / "nbgrader_config.py").exists()
    text = source.read_text(encoding="utf-8")
    steps = sum(len(p.graded) for p in drills.drill_set(5, 4, None, "mixed"))  # a test per graded step
    # no sheet (and its answers) built in the student's kernel; each test sealed with its step's value
    assert "drill_set" not in text and text.count("### BEGIN HIDDEN TESTS") == text.count("_seal.decide(") == steps


def test_drill_course_in_a_file_is_named(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["drill", "--out", str(tmp_path / "sheet"), "--course", str(tmp_path / "file" / "course")])
    assert exit_.value.code == 2
    assert "--course: course == " in capsys.readouterr().err


@pytest.mark.parametrize("command", ["params", "memory", "time", "data", "drill"])
def test_help_shows_examples(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([command, "--help"])
    assert exit_.value.code == 0
    assert f"examples:\n  llmest {command}" in capsys.readouterr().out


def _examples(command):
    """The example lines of a command's --help, without the comment after two spaces."""
    with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as shown:
        cli.main([command, "--help"])
    lines = shown.getvalue().split("examples:\n", 1)[1].splitlines()
    return [re.split(r"\s{2,}", line.strip())[0] for line in lines if line.strip().startswith("llmest ")]


@pytest.mark.parametrize("command", ["params", "memory", "time", "data", "drill", "layout", "serve", "review"])
def test_every_example_in_help_runs(command, tmp_path, monkeypatch, capsys):
    """Each example as a reader would paste it (a config.json of their own for path/to/config.json; answers from a
    file for `< answers.txt`) ends with status 0."""
    examples = _examples(command)
    assert examples
    monkeypatch.chdir(tmp_path)
    shutil.copy(FIXTURES / "llama-2-7b.json", tmp_path / "config.json")
    for example in examples:
        argv = shlex.split(example.replace("path/to/config.json", "config.json"))[1:]
        if "<" in argv:
            argv = argv[:argv.index("<")]
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        status = cli.main(argv)
        assert status == 0, (example, capsys.readouterr().err)
    capsys.readouterr()


@pytest.mark.parametrize("argv, named", [
    (["memory", "llama-2-7b", "--zero", "5"], "--zero: zero == 5, must be <= 3"),
    (["memory", "llama-2-7b", "--tp", "3"], "--tp: tp == 3 must divide the attention heads"),
    (["memory", "llama-2-7b", "--gpu", "H100"], "--gpu: gpu == 'H100', must be one of 'V100', 'A100 80GB'"),
    (["time", "--params", "7B", "--tokens", "1T", "--gpu", "H100"], "Did you mean 'H100 SXM' or 'H100 PCIe'"),
    (["time", "--params", "7B", "--tokens", "1T", "--price", "-1"], "--price: price_per_gpu_hour == -1"),
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
    (["time", "--params", "7B", "--tokens", "1T", "--seq-len", "4096"], "--seq-len: seq_len == 4,096 needs model"),
    (["drill", "--assignment", "week-3"], "--assignment: assignment names an assignment of a course; give --course"),
    (["drill", "--course", "course", "--assignment", "week 3"], "--assignment: assignment == 'week 3', must be"),
    (["time", "--params", "7B", "--tokens", "1T", "--price", "-1"], "--price: price_per_gpu_hour == -1"),
    (["time", "--params", "7B", "--tokens", "1T", "--peak", "-3"], "--peak: peak_flops_per_s =="),
    (["data", "--params", "7B", "--gpus", "0"], "--gpus: gpus == 0"),
    (["data"], "--params: give --params (e.g. 7B), or --gpus and --days"),
    (["data", "--gpus", "8", "--peak", "-1"], "--peak: peak_flops_per_s == -1e+12"),
    (["data", "--gpus", "8", "--days", "0"], "--days: days == 0"),
    (["time", "--params", "7B", "--tokens", "1T", "--peak", "0"], "--peak: peak_flops_per_s == 0"),
    # --peak is in TFLOPS: a FLOP/s figure typed there is refused, not taken as 2e14 TFLOPS.
    (["data", "--gpus", "64", "--days", "30", "--peak", "200e12", "--mfu", "0.5"],
     "--peak: peak == 2e+14, must be in [0.001, 100,000] TFLOPS (e.g. 200 for 200e12 FLOP/s)"),
    (["time", "--params", "7B", "--tokens", "1T", "--peak", "989e12"],
     "--peak: peak == 9.89e+14, must be in [0.001, 100,000] TFLOPS"),
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


# ----------------------------------------------------------------------------------------------------------------
# Bad input never escapes: one error line naming the option, exit status 2
# ----------------------------------------------------------------------------------------------------------------

def error_of(capsys, *argv) -> str:
    """The error line of a refused command line (exit status 2, one line, no traceback)."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(list(argv))
    captured = capsys.readouterr()
    assert exit_.value.code == 2 and captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"llmest {argv[0]}: error: "), captured.err
    return lines[0]


TIME = ("time", "--params", "7B", "--tokens", "1T")


@pytest.mark.parametrize("argv, named", [
    # Values that overflow, or that float() reads as inf or nan, are refused before any product is formed.
    ((*TIME, "--gpus", str(10**30)), "--gpus: gpus == 1.00e+30, must be <= 10,000,000"),
    (("time", "--params", "7B", "--tokens", "1e400"), "'1e400' is too large, must be a finite number"),
    (("data", "--gpus", "8", "--days", "1e308"), "--days: days == 1e+308, must be in [0.01, 36,500]"),
    ((*TIME, "--price", "1e308"), "--price: price == 1e+308, must be <= 10,000"),
    ((*TIME, "--mfu", "nan"), "--mfu: mfu == 'nan', must be a finite number"),
    ((*TIME, "--mfu", "5e-324"), "--mfu: mfu == 4.94066e-324, must be >= 0.001"),
    ((*TIME, "--peak", "1e-300"), "--peak: peak == 1e-300, must be in [0.001, 100,000] TFLOPS"),
    (("memory", "llama-2-7b", "--margin", "inf"), "--margin: margin == 'inf', must be a finite number"),
    (("memory", "llama-2-7b", "--seq-len", "99999999999999999999"),
     "--seq-len: seq_len == 99,999,999,999,999,999,999, must be <= 100,000,000"),
    (("memory", "llama-2-7b", "--micro-batch", "9" * 5000), "--micro-batch: micro_batch == a number of 5,000 digits"),
    (("memory", "llama-2-7b", "--dp", "10000", "--tp", "32", "--pp", "32"), "--dp: dp × tp × pp == 10,240,000 GPUs"),
    (("data", "--params", "7B", "--cleaning-yield", "1e-300"), "--cleaning-yield: cleaning_yield == 1e-300"),
    (("data", "--params", "7B", "--tokens-per-param", "1e308"), "--tokens-per-param: tokens_per_param == 1e+308"),
    # The product 6·N·D would overflow: the error names --params, whose value is past any model.
    (("time", "--params", "1e300", "--tokens", "1T"), "--params: params == 1e+300, must be in [100,000, 1,000T]"),
    (("memory", "llama-2-7b", "--task", "inference", "--seq-len", "0"), "--seq-len: seq_len == 0, must be >= 1"),
    (("memory", "llama-2-7b", "--seq-len", "1.5"), "--seq-len: '1.5' is not a whole number"),
    (("memory", "llama-2-7b", "--rank", "7B", "--task", "qlora"), "--rank: '7B' is not a whole number"),
    (("time", "--tokens", "1T", "--model", ""), "--model: preset == '', must be one of"),
    (("params", "x" * 300), "model: preset == 'xxxxxxxxxxxx"),  # a name too long for a file name
    (("params", "x" * 5000), "argument model: 'xxxxxxxxxxxx"),
])
def test_a_value_past_what_a_run_can_be_is_named(argv, named, capsys):
    line = error_of(capsys, *argv)
    assert named in line and len(line) < 1000


def test_time_with_an_overflowing_product_does_not_blame_tokens(capsys):
    line = error_of(capsys, "time", "--params", "1e300", "--tokens", "1T")
    assert "--params" in line and "--tokens" not in line and "inf" not in line


@pytest.mark.parametrize("argv, meant", [
    (("time", "--params", "7", "--tokens", "1T"), "--params: params == 7, fewer than 100,000 parameters"),
    (("time", "--params", "70", "--tokens", "1T"), "Did you mean 70B?"),
    (("data", "--params", "7"), "Did you mean 7B?"),
    (("time", "--params", "7B", "--tokens", "300"), "--tokens: tokens == 300, fewer than 100,000 tokens"),
    (("time", "--params", "7B", "--tokens", "2"), "Did you mean 2B or 2T?"),
])
def test_a_bare_count_where_billions_are_meant_gets_did_you_mean(argv, meant, capsys):
    assert meant in error_of(capsys, *argv)


def test_a_small_count_with_its_suffix_gets_no_did_you_mean(capsys):
    line = error_of(capsys, "time", "--params", "7K", "--tokens", "1T")
    assert "--params: params == 7,000, fewer than 100,000" in line and "Did you mean" not in line
    assert run_json(capsys, "time", "--params", "100K", "--tokens", "1T")["params"] == 100_000


def test_the_help_states_the_bare_count_threshold(capsys):
    for command in ("time", "data"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "a count under 100,000 is taken for one typed without its suffix, and refused (7: 'Did you mean " \
               "7B?')" in text


@pytest.mark.parametrize("argv, named", [
    (("memory", "llama-2-7b", "--task", "inference", "--zero", "3"), "--zero: --task inference does not use it"),
    (("memory", "llama-2-7b", "--task", "inference", "--optimizer", "sgd-momentum"), "--optimizer: --task inference"),
    (("memory", "llama-2-7b", "--task", "inference", "--rank", "8"), "--rank: --task inference does not use it "
                                                                     "(only --task lora or --task qlora)"),
    (("memory", "llama-2-7b", "--task", "training", "--weights", "int4", "--batch", "8"), "--weights: --task training"),
    (("memory", "llama-2-7b", "--batch", "8"), "--batch: --task training does not use it (only --task inference)"),
    (("memory", "llama-2-7b", "--task", "inference", "--no-flash"), "--no-flash: --task inference does not use it"),
    (("memory", "llama-2-7b", "--task", "qlora", "--targets", "q_proj", "--tp", "2"), "--tp: --task qlora"),
    # Given equal to another task's default is still given.
    (("memory", "llama-2-7b", "--task", "inference", "--dp", "1"), "--dp: --task inference does not use it"),
    (("memory", "llama-2-7b", "--task", "qlora", "--zero", "0"), "--zero: --task qlora does not use it"),
    (("memory", "llama-2-7b", "--task", "inference", "--recompute", "none"), "--recompute: --task inference"),
    (("memory", "llama-2-7b", "--task", "training", "--rank", "64"), "--rank: --task training does not use it"),
    (("data", "--days", "10"), "--days: it sets the cluster that --gpus asks about, and --gpus was not given"),
    (("data", "--params", "7B", "--days", "30"), "--days: it sets the cluster"),
    (("data", "--params", "7B", "--mfu", "0.4"), "--mfu: it sets the cluster"),
    (("data", "--params", "7B", "--gpu", "H200"), "--gpu: it sets the cluster"),
    (("data", "--params", "7B", "--tokens", "1T", "--tokens-per-param", "20"),
     "--tokens-per-param: nothing uses it when --tokens is given"),
])
def test_an_option_the_task_does_not_use_is_refused(argv, named, capsys):
    assert named in error_of(capsys, *argv)


def test_the_task_defaults_are_filled_in_when_not_given(capsys):
    out = run_json(capsys, "memory", "llama-2-7b", "--task", "qlora")
    assert out["total"] == plans.qlora_memory("llama-2-7b", rank=64, recompute="full").total
    out = run_json(capsys, "memory", "llama-2-7b")
    assert out["total"] == plans.training_memory("llama-2-7b", recompute="none").total
    # --tokens-per-param with --tokens and --gpus: the per-parameter rate of the cluster's compute-optimal model.
    out = run_json(capsys, "data", "--tokens", "1T", "--gpus", "8", "--tokens-per-param", "40")
    assert out["tokens"] == 1e12 and out["budget_optimal"]["tokens"] == pytest.approx(40 * out["params"])


def test_qlora_of_a_mixture_of_experts_targets_attention(capsys):
    # Adapters on Mixtral's expert FFNs are not modelled: by default the four attention projections take them.
    out = run_json(capsys, "memory", "mixtral-8x7b", "--task", "qlora")
    assert out["targets"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert out["trainable_params"] == mem.lora_params("mixtral-8x7b", 64, ("q_proj", "k_proj", "v_proj", "o_proj"))
    assert cli.main(["memory", "mixtral-8x7b", "--task", "qlora"]) == 0
    assert "rank 64 on q_proj, k_proj, v_proj, o_proj" in capsys.readouterr().out
    line = error_of(capsys, "memory", "mixtral-8x7b", "--task", "qlora", "--targets", "q_proj,gate_proj")
    assert "--targets:" in line and "target attention only" in line
    assert run_json(capsys, "memory", "llama-2-7b", "--task", "qlora", "--targets", "q_proj,v_proj")["targets"] == \
        ["q_proj", "v_proj"]
    assert "--targets: targets == (), must name at least one" in error_of(capsys, "memory", "llama-2-7b", "--task",
                                                                          "qlora", "--targets", ",")


def test_a_preset_or_gpu_misspelt_gets_did_you_mean(capsys):
    assert "Did you mean 'llama-2-7b'" in error_of(capsys, "memory", "lama-2-7b")
    assert "--gpu: gpu == 'H10', must be one of" in error_of(capsys, *TIME, "--gpu", "H10")
    assert "Did you mean 'H100 SXM'" in error_of(capsys, "data", "--gpus", "8", "--gpu", "h100-sx")


def test_a_config_folder_is_read_and_a_broken_file_is_named(tmp_path, capsys):
    (tmp_path / "config.json").write_text((FIXTURES / "llama-2-7b.json").read_text(encoding="utf-8"))
    assert run_json(capsys, "params", str(tmp_path))["total"] == 6_738_415_616
    (tmp_path / "bad.json").write_text("{not json")
    assert "model: model == " in error_of(capsys, "memory", str(tmp_path / "bad.json"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "--model: model == " in error_of(capsys, "time", "--model", str(empty), "--tokens", "1T")


@pytest.mark.parametrize("where", ["file", "under a file", "/proc/x", "a folder where a page goes"])
def test_drill_out_that_cannot_be_written_is_named(where, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    (tmp_path / "taken" / "key.md").mkdir(parents=True)
    out = {"file": tmp_path / "file", "under a file": tmp_path / "file" / "sub", "/proc/x": Path("/proc/x"),
           "a folder where a page goes": tmp_path / "taken"}[where]
    line = error_of(capsys, "drill", "--n", "2", "--out", str(out))
    assert f"--out: out == '{str(out)[:60]}" in line and "cannot write the worksheet there" in line  # long: cut
    assert (tmp_path / "file").read_text(encoding="utf-8") == "x"


def test_drill_checks_its_options_before_writing(tmp_path, capsys):
    assert "--level: level == 'expert'" in error_of(capsys, "drill", "--level", "expert", "--out", str(tmp_path / "w"))
    assert not (tmp_path / "w").exists()


def run_module(*argv, **kwargs):
    return subprocess.run([sys.executable, "-m", "llmest", *argv], capture_output=True, text=True, timeout=60,
                          **kwargs)


@pytest.mark.parametrize("argv, named", [
    (("params", "x" * 300), "model: preset == 'xxx"),
    (("params", "x" * 5000), "argument model: 'xxx"),
    (("drill", "--out", "/proc/x"), "--out: out == '/proc/x'"),
    (("memory", "llama-2-7b", "--seq-len", "99999999999999999999"), "--seq-len"),
    (("time", "--params", "1e300", "--tokens", "1T"), "--params"),
])
def test_python_m_llmest_refuses_without_a_traceback(argv, named):
    result = run_module(*argv)
    assert result.returncode == 2 and result.stdout == ""
    assert named in result.stderr and "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("argv", [("params", "llama-2-7b"), ("memory", "llama-2-7b", "--json"), ("time", "--help")])
def test_a_reader_that_goes_away_ends_it_quietly(argv):
    # The pipe's reading end is closed before the command writes: every write fails with a broken pipe.
    process = subprocess.Popen([sys.executable, "-m", "llmest", *argv], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read().decode()
    process.wait(timeout=60)
    assert err == "" and process.returncode in (0, 1)


def test_a_pipe_to_head_ends_quietly():
    result = subprocess.run(f"{sys.executable} -m llmest params llama-2-7b | head -c 1", shell=True,
                            capture_output=True, text=True, timeout=60)
    assert result.stdout == "l" and "BrokenPipeError" not in result.stderr and result.stderr == ""


def test_time_with_a_sequence_length_counts_the_attention(capsys):
    out = run_json(capsys, "time", "--model", "llama-2-7b", "--tokens", "1T", "--seq-len", "4096")
    assert out["seq_len"] == 4096 and out["mfu_counts_attention"] is True
    assert out["flops"] == out["matmul_flops"] + out["attention_flops"] and out["attention_flops"] > 0
    assert cli.main(["time", "--model", "llama-2-7b", "--tokens", "1T", "--seq-len", "4096"]) == 0
    text = capsys.readouterr().out
    assert "+ attention at 4,096 tokens" in text and "attention counted; on 6·N·D alone that is" in text


def test_memory_offload_expert_and_context_parallelism(capsys):
    # ZeRO-3 with the optimizer and the parameters offloaded (ZeRO-Infinity's offload_param) on 8 GPUs: each GPU's
    # process keeps 18 bytes a parameter of Llama-2-7B / 8 in CPU memory (BF16 weights, FP32 master, gradients and
    # two moments), 15.2 GB; a node of 8 GPUs 121 GB, DeepSpeed's estimate without its 1.5 margin.
    argv = ["memory", "llama-2-7b", "--zero", "3", "--dp", "8", "--offload", "optimizer+params"]
    out = run_json(capsys, *argv)
    plan = plans.training_memory("llama-2-7b", zero=3, dp=8, offload="optimizer+params")
    assert out["cpu_bytes_per_gpu"] == pytest.approx(18 * 6_738_415_616 / 8)
    assert out["cpu_bytes_per_node"] == pytest.approx(18 * 6_738_415_616) and out["gpus_per_node"] == 8
    assert out["parts"] == plan.parts and out["cpu_parts"] == plan.cpu and out["total"] == plan.total
    assert cli.main(argv) == 0
    assert "CPU memory: 15.2 GB per GPU's process, 121 GB per node of 8 GPUs" in capsys.readouterr().out
    out = run_json(capsys, "memory", "mixtral-8x7b", "--zero", "1", "--dp", "8", "--ep", "8", "--cp", "2",
                   "--reduce-bucket-size", "1e8")
    assert out["parts"] == plans.training_memory("mixtral-8x7b", zero=1, dp=8, ep=8, cp=2,
                                                 reduce_bucket_size=1e8).parts
    assert out["gpus"] == 16 and out["parts"]["buffers"] == 2e8 and out["cpu_bytes_per_node"] == 0


@pytest.mark.parametrize("argv, named", [
    (("memory", "llama-2-7b", "--ep", "2"), "--ep: ep == 2, must be 1"),
    (("memory", "llama-2-7b", "--cp", "3"), "--cp: cp == 3 must divide the sequence"),
    (("memory", "llama-2-7b", "--offload", "optimizer"), "--offload: offload == 'optimizer' needs ZeRO"),
    (("memory", "llama-2-7b", "--offload", "disk"), "argument --offload: invalid choice"),
    (("memory", "llama-2-7b", "--task", "inference", "--offload", "optimizer"), "--offload: --task inference"),
    (("memory", "llama-2-7b", "--zero", "3", "--prefetch-bucket-size", "-1"), "--prefetch-bucket-size:"),
])
def test_memory_layout_options_are_checked(argv, named, capsys):
    assert named in error_of(capsys, *argv)


def test_layout_shows_the_expert_parallel_degree_of_a_mixture_of_experts(capsys):
    argv = ["layout", "mixtral-8x7b", "--gpus", "64", "--seq-len", "4096", "--global-batch-tokens", "1048576",
            "--top", "20"]
    rows = run_json(capsys, *argv)["layouts"]
    assert len({r["ep"] for r in rows}) > 1   # rows that differ in their expert-parallel degree
    assert cli.main(argv) == 0
    header, rule, *lines = capsys.readouterr().out.splitlines()[1:22]
    assert header.split()[:5] == ["TP", "CP", "PP", "DP", "EP"] and set(rule) == {"-", " "}
    assert [[int(x) for x in line.split()[:5]] for line in lines[:19]] == \
        [[r[k] for k in ("tp", "cp", "pp", "dp", "ep")] for r in rows[:19]]
    assert cli.main(argv[:1] + ["llama-2-7b"] + argv[2:]) == 0   # a dense model: no column of ones
    assert capsys.readouterr().out.splitlines()[1].split()[:5] == ["TP", "CP", "PP", "DP", "ZeRO"]
