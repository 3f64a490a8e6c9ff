"""One question, one answer: the material's exercises, the chapters' worked examples and the README's commands, each
asked of every surface that can answer it (the library's functions and plans, `llmest ... --json`, the calculators
driven from Python, the exercises' expected answers, the material's figures, the drill templates). All give the
same figure, or a different one whose assumption the workbook states beside it, which the test checks is there.

Known answers are written as the arithmetic that gives them from the question's own numbers, not read back from the
code: 6 × 7e9 × 1e12 / (312e12 × 0.4) / 3,600 = 93,483 GPU-hours for seed 000's exercise 1.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

import llmest as le
from llmest import cli, drills, exercises, material
from llmest import compute as c
from llmest import data as dt
from llmest import memory as mem
from llmest import plans

pytest.importorskip("ipywidgets")
from llmest.surfaces.widgets import (DataPlanner, MemoryPlanner, ParamCalculator, ServingPlanner,  # noqa: E402
                            TrainingPlanner)

SOLUTIONS = Path(__file__).parents[1] / "solutions"
A100, H100, V100 = 312e12, 989.4e12, 125e12   # dense BF16 (V100: FP16) peaks from the vendors' datasheets
GB = 1e9
LLAMA2_7B = 6_738_415_616          # Llama-2-7B's parameters, from its config.json
LLAMA2_7B_MATMUL = LLAMA2_7B - 32_000 * 4096     # less the input embedding, a lookup
LLAMA2_70B_MATMUL = 68_976_648_192 - 32_000 * 8192


# ----------------------------------------------------------------------------------------------------------------
# The surfaces
# ----------------------------------------------------------------------------------------------------------------

def _run(argv) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(list(argv)) == 0
    return out.getvalue()


def cli_json(*argv) -> dict:
    return json.loads(_run([*argv, "--json"]))


def cli_text(*argv) -> str:
    return _run(argv)


def memory_planner(model="llama-2-7b", gpu="A100 80GB", **fields) -> MemoryPlanner:
    planner = MemoryPlanner(model, gpu)
    for name, value in fields.items():
        planner.inputs[name].value = value
    assert planner.plan is not None, planner.general_error.value
    return planner


def training_planner(**fields) -> TrainingPlanner:
    planner = TrainingPlanner(**fields)
    assert planner.estimate is not None
    return planner


def serving_planner(**fields) -> ServingPlanner:
    planner = ServingPlanner(**fields)
    assert planner.estimate is not None
    return planner


def data_planner(params, english=1.0, chinese=0.0, code=0.0, **fields) -> DataPlanner:
    planner = DataPlanner(params=params, english=english, chinese=chinese, code=code, **fields)
    assert planner.estimate is not None
    return planner


def drill_problem(template: str, where=lambda problem: True, **inputs) -> drills.Problem:
    """The first seeded problem of ``template`` (any level) whose inputs are these."""
    for level in drills.LEVELS:
        for seed in range(300):
            problem = drills.generate(template, seed, level)
            if all(problem.inputs.get(k) == v for k, v in inputs.items()) and where(problem):
                return problem
    pytest.fail(f"no {template} drill with {inputs}")


def drill(template: str, **inputs) -> float:
    return drill_problem(template, **inputs).answer


def english_corpus_drill() -> drills.Problem:
    return drill_problem("corpus-size", lambda p: "of English" in p.question, tokens=140e9, cleaning_yield=None)


def expected(key: str) -> float:
    return exercises.get(key).expected()


def figure(key: str) -> float:
    return material.get(key).recomputed


def figure_text(key: str) -> str:
    return str(material.get(key))


def chapter_text(name: str) -> str:
    """What a reader of a solved chapter sees: its cells and what they print (text and tables)."""
    shown = []
    for cell in json.loads((SOLUTIONS / name).read_text(encoding="utf-8"))["cells"]:
        shown.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            shown.append("".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", "")))
    return "\n".join(shown)


# ----------------------------------------------------------------------------------------------------------------
# The questions
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class Differs:
    """A surface that answers under another assumption, which the workbook states beside its answer."""

    surface: str
    value: Callable[[], float]
    known: float
    text: Callable[[], str]      # the text shown beside that answer
    phrases: tuple               # what it must say


@dataclass
class Question:
    id: str
    known: float | None
    answers: dict                # surface: () -> the figure it gives
    rel: float = 1e-9            # surfaces agree to rounding; known answers are exact arithmetic unless rel says
    differs: tuple = ()
    notes: tuple = ()            # (() -> text, phrases): where the workbook says what the answer assumes
    known_rel: float = 1e-9


EX1_FLOPS = 6 * 7e9 * 1e12
EX1_HOURS = EX1_FLOPS / (A100 * 0.4) / 3600
PRESET_HOURS = 6 * LLAMA2_7B_MATMUL * 1e12 / (A100 * 0.4) / 3600
SEED004_BUDGET = 64 * 200e12 * 0.5 * 30 * 86_400
EX56_DAYS = 6 * 7e9 * 100e9 / (64 * 200e12 * 0.5) / 86_400
EX31_HOURS = 6 * 13e9 * 2e12 / (H100 * 0.4) / 3600
README_70B_HOURS = 6 * LLAMA2_70B_MATMUL * 2e12 / (H100 * 0.4) / 3600
# Rank 64 on Llama-2-70B's seven projections: q, o 8192 × 8192; k, v 8192 × 1024; gate, up, down 8192 × 28672.
QLORA_70B_ADAPTERS = 64 * (2 * (8192 + 8192) + 2 * (8192 + 1024) + 3 * (8192 + 28672)) * 80

_ex1 = ["--params", "7B", "--tokens", "1T", "--gpus", "256", "--mfu", "0.4"]
# Llama-2-7B on one A100 80GB, 512 prompt and 256 output tokens: the decode step at the mean context, 640 tokens,
# reads the BF16 weights and 640 tokens of cache (2 · 32 layers · 32 KV heads · 128 · 2 bytes a token).
_serve = ["serve", "llama-2-7b", "--gpu", "A100 80GB", "--prompt-tokens", "512", "--output-tokens", "256"]
SERVE_TPOT = (2 * LLAMA2_7B + 640 * 2 * 32 * 32 * 128 * 2) / 2039e9
# The largest batch: 80% of 81,920 MiB less the weights and 0.5 GB, over 768 tokens (48 blocks of 16) of cache.
SERVE_MAX_BATCH = (81_920 * 2**20 * 0.8 - 2 * LLAMA2_7B - 0.5e9) // (768 * 2 * 32 * 32 * 128 * 2)
_7b_zero2 = dict(zero=2, seq_len=4096)
_lookup = ("weights that multiply activations", "the input embedding is a lookup, not a matmul")
_per_gpu = ("1 × 4,096 tokens (full recomputation", "do not shrink as GPUs are added")


def _ex1_planner(**fields):
    return training_planner(model="llama-2-7b", tokens="1T", gpu="A100 80GB", gpus=256, mfu=0.4, price=2.5,
                            **fields)


QUESTIONS = [
    Question("seed000-ex1-flops", EX1_FLOPS, {
        "library": lambda: c.training_flops(7e9, 1e12),
        "plan": lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256).flops,
        "llmest time": lambda: cli_json("time", *_ex1)["flops"],
        "training planner": lambda: _ex1_planner(params="7B").result["flops"],
        "figure 000-ex1-flops": lambda: figure("000-ex1-flops"),
        "figure 004-3.1-7b-flops": lambda: figure("004-3.1-7b-flops"),
        "drill training-flops": lambda: drill("training-flops", n=7e9, tokens=1e12),
    }),
    Question("seed000-ex1-gpu-hours", EX1_HOURS, {
        "library": lambda: c.gpu_hours(c.training_flops(7e9, 1e12), A100, 0.4),
        "plan": lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256).gpu_hours,
        "llmest time": lambda: cli_json("time", *_ex1)["gpu_hours"],
        "training planner, 7B": lambda: _ex1_planner(params="7B").result["gpu_hours"],
        "figure 000-ex1-gpu-hours": lambda: figure("000-ex1-gpu-hours"),
        "figure 000-4.1-7b-hours": lambda: figure("000-4.1-7b-hours"),
        "drill gpu-hours": lambda: drill("gpu-hours", n=7e9, tokens=1e12, peak=A100, mfu=0.4),
    }, differs=(
        Differs("training planner, the llama-2-7b preset", lambda: _ex1_planner().result["gpu_hours"], PRESET_HOURS,
                lambda: _ex1_planner().summary.value.replace("&#x27;", "'"), _lookup),
        Differs("llmest time --model llama-2-7b",
                lambda: cli_json("time", "--model", "llama-2-7b", *_ex1[2:])["gpu_hours"], PRESET_HOURS,
                lambda: cli_text("time", "--model", "llama-2-7b", *_ex1[2:]), _lookup),
    )),
    Question("seed000-ex1-days-on-256", EX1_HOURS / 256 / 24, {
        "library": lambda: c.training_days(c.training_flops(7e9, 1e12), 256, A100, 0.4),
        "plan": lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256).days,
        "llmest time": lambda: cli_json("time", *_ex1)["days"],
        "training planner": lambda: _ex1_planner(params="7B").result["days"],
        "figure 000-ex1-256": lambda: figure("000-ex1-256"),
        "exercise 5.1": lambda: expected("5.1"),
        "drill training-days": lambda: drill("training-days", n=7e9, tokens=1e12, gpus=256, peak=A100, mfu=0.4),
    }),
    Question("seed000-ex1-cost-at-2.5", EX1_HOURS * 2.5, {
        "library": lambda: c.cost(c.gpu_hours(c.training_flops(7e9, 1e12), A100, 0.4), 2.5),
        "plan": lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256, price_per_gpu_hour=2.5).cost_usd,
        "llmest time": lambda: cli_json("time", *_ex1, "--price", "2.5")["cost_usd"],
        "training planner": lambda: _ex1_planner(params="7B").result["cost"],
        "figure 000-4.3-7b-cost": lambda: figure("000-4.3-7b-cost"),
    }),
    # "Does a 7B train on 2 A100s with ZeRO-2?" With 7e9 parameters and 50 GB of activations shared out over n GPUs:
    # on 2, 14 (weights) + (14 + 7 + 28) / 2 + 25 = 63.5 + 25 = 88 GB > 68.7 usable (80% of 80 GiB); on 3,
    # 14 + 49/3 + 50/3 = 47 + 16.7 = 63.3 GB. With one micro-batch of 1 × 4,096 tokens per GPU, DeepSpeed's 1 GB
    # reduce bucket and full recomputation, Llama-2-7B fits on 2 (64.6 GB); without recomputation (25.1 GB of
    # activations a GPU, the RMSNorms' FP32 copies included) 63.6 GB on 4 fits, 71.5 on 3 not.
    Question("seed000-ex1-zero2-gpus", 3, {
        "figure 000-ex1-gpus": lambda: figure("000-ex1-gpus"),
        "exercise 2.1": lambda: expected("2.1"),
    }, differs=(
        Differs("memory planner, no recomputation",
                lambda: memory_planner(recompute="none", zero=2).plan.least_gpus, 4,
                lambda: memory_planner(recompute="none", zero=2).verdict.value,
                ("1 × 4,096 tokens (no recomputation", "do not shrink as GPUs are added")),
        Differs("memory planner, full recomputation",
                lambda: memory_planner(recompute="full", zero=2).plan.least_gpus, 2,
                lambda: memory_planner(recompute="full", zero=2).verdict.value, _per_gpu),
        Differs("llmest memory --zero 2 --recompute full",
                lambda: cli_json("memory", "llama-2-7b", "--zero", "2", "--seq-len", "4096", "--recompute",
                                 "full")["least_gpus"], 2,
                lambda: cli_text("memory", "llama-2-7b", "--zero", "2", "--seq-len", "4096", "--recompute", "full"),
                _per_gpu),
        Differs("plan_memory, full recomputation",
                lambda: plans.plan_memory("training", "llama-2-7b", recompute="full", **_7b_zero2).least_gpus, 2,
                lambda: plans.plan_memory("training", "llama-2-7b", recompute="full", **_7b_zero2).activations_note,
                _per_gpu),
    ), notes=(
        (lambda: figure_text("000-ex1-gpus"),
         ("Which assumption decides: this shares a fixed batch's activations out over the GPUs",
          "one micro-batch keeps on each GPU", "with the exercise's 7B parameters it would be")),
        (lambda: chapter_text("02_memory.ipynb"),
         ("**One question, three answers.**", "What decides it is how the activations are counted",
          "A count that shares a fixed batch's activations out over the GPUs")),
    )),
    Question("seed000-ex3-bf16-serving-gpus", 4, {
        "plan": lambda: plans.plan_memory("inference", "llama-2-70b", seq_len=2048, batch=32).least_gpus,
        "llmest memory": lambda: cli_json("memory", "llama-2-70b", "--task", "inference", "--seq-len", "2048",
                                          "--batch", "32")["least_gpus"],
        "memory planner": lambda: memory_planner("llama-2-70b", task="inference", batch=32).smallest,
        "exercise 2.3": lambda: expected("2.3"),
        "exercise 5.3": lambda: expected("5.3"),
        "figure 000-ex3-total-gpus": lambda: figure("000-ex3-total-gpus"),
    }),
    # 2 (K, V) · 80 layers · 8 KV heads · 128 · 2 bytes · 2,048 tokens · 32 requests
    Question("seed000-ex3-kv-cache", 2 * 80 * 8 * 128 * 2 * 2048 * 32, {
        "library": lambda: mem.kv_cache_bytes_for("llama-2-70b", 2048, 32),
        "llmest memory": lambda: cli_json("memory", "llama-2-70b", "--task", "inference", "--seq-len", "2048",
                                          "--batch", "32")["parts"]["kv_cache"],
        "memory planner": lambda: memory_planner("llama-2-70b", task="inference", batch=32).breakdown["kv_cache"],
        "figure 000-ex3-kv": lambda: figure("000-ex3-kv"),
    }),
    Question("llama-2-7b-kv-cache-32x2048", 2 * 32 * 32 * 128 * 2 * 2048 * 32, {
        "library": lambda: mem.kv_cache_bytes_for("llama-2-7b", 2048, 32),
        "llmest memory": lambda: cli_json("memory", "llama-2-7b", "--task", "inference", "--seq-len", "2048",
                                          "--batch", "32")["parts"]["kv_cache"],
        "memory planner": lambda: memory_planner(task="inference", batch=32, tokens=2048).breakdown["kv_cache"],
        "drill kv-cache": lambda: drill("kv-cache", layers=32, kv_heads=32, head_dim=128, seq_len=2048, batch=32),
    }),
    Question("seed000-ex2-qlora-adapters", QLORA_70B_ADAPTERS, {
        "library": lambda: mem.lora_params("llama-2-70b", 64, mem.LORA_TARGETS),
        "plan": lambda: plans.plan_memory("qlora", "llama-2-70b", rank=64).trainable_params,
        "llmest memory --task qlora": lambda: cli_json("memory", "llama-2-70b", "--task", "qlora",
                                                       "--rank", "64")["trainable_params"],
        "exercise 2.2": lambda: expected("2.2"),
        "figure 000-ex2-lora (BF16 bytes / 2)": lambda: figure("000-ex2-lora") / 2,
    }),
    Question("seed000-ex2-qlora-total", None, {
        "library": lambda: plans.qlora_memory("llama-2-70b", rank=64, micro_batch=1, seq_len=2048).total,
        "plan": lambda: plans.plan_memory("qlora", "llama-2-70b").breakdown.total,
        "llmest memory --task qlora": lambda: cli_json("memory", "llama-2-70b", "--task", "qlora")["total"],
        "exercise 5.2": lambda: expected("5.2"),
        "figure 000-ex2-total": lambda: figure("000-ex2-total"),
    }),
    # 70e9 × 16 bytes = 1.12 TB over 80 GiB (85.9 GB) = 13.04 -> 14 GPUs on paper; seed 004's 16 is two 8-GPU nodes.
    Question("70b-states-gpus-on-paper", 14, {
        "library": lambda: plans.state_gpus(70e9, 16, "A100 80GB"),
        "figure 000-4.1-full-ft-70b": lambda: figure("000-4.1-full-ft-70b"),
        "figure 004-2.3-70b-gpus": lambda: figure("004-2.3-70b-gpus"),
        "drill gpus-for-states": lambda: drill("gpus-for-states", n=70e9, gpu="A100 80GB", margin=0.0),
    }, differs=(
        Differs("the material's 16 (figure 004-2.3-70b-gpus, stated)", lambda: material.get("004-2.3-70b-gpus").stated,
                16, lambda: figure_text("004-2.3-70b-gpus"), ("16 (two 8-GPU nodes)", "nothing kept free")),
    ), notes=((lambda: figure_text("000-4.1-full-ft-70b"), ("the states alone, nothing kept free", "17 with")),)),
    # 1.12 TB over 68.7 GB usable (80% of 80 GiB) = 16.3 -> 17; Llama-2-70B's 68.98B × 16 = 1.10 TB -> 16.06 -> 17 too.
    Question("70b-states-gpus-with-the-margin", 17, {
        "library": lambda: plans.state_gpus(70e9, 16, "A100 80GB", 0.2),
        "plan": lambda: plans.plan_memory("training", "llama-2-70b").state_gpus,
        "llmest memory": lambda: cli_json("memory", "llama-2-70b")["state_gpus"],
        "drill gpus-for-states": lambda: drill("gpus-for-states", n=70e9, gpu="A100 80GB", margin=0.2),
        # the figure's days for 6 × 70B × 1B tokens at 40% of 312 TFLOPS give back the GPUs it assumes
        "figure 000-4.1-ft-70b-time (its GPUs)":
            lambda: 6 * 70e9 * 1e9 / (A100 * 0.4) / 86_400 / figure("000-4.1-ft-70b-time"),
    }, notes=(
        (lambda: figure_text("000-4.1-ft-70b-time"),
         ("on 17 A100s", "17 is the least that hold the states (16 bytes a parameter) with 20% of each GPU free",
          "seed 004's 16 is two 8-GPU nodes")),
        (lambda: figure_text("004-2.3-70b-gpus"), ("With the material's own 20% margin it is 17",)),
        (lambda: chapter_text("02_memory.ipynb"), ("the states alone, nothing kept free", "with 20% free")),
    ), rel=1e-6),
    Question("70b-zero3-with-activations", None, {
        "library": lambda: plans.min_gpus(lambda n: plans.training_memory("llama-2-70b", zero=3, dp=n, seq_len=4096,
                                                                      recompute="full"), "A100 80GB"),
        "plan": lambda: plans.plan_memory("training", "llama-2-70b", zero=3, seq_len=4096,
                                        recompute="full").least_gpus,
        "llmest memory": lambda: cli_json("memory", "llama-2-70b", "--zero", "3", "--seq-len", "4096",
                                          "--recompute", "full")["least_gpus"],
        "memory planner": lambda: memory_planner("llama-2-70b", recompute="full").smallest,
    }),
    # The median of three tokenizers on 1.5 MB of English man pages (226M, 227M, 227M), to 2 figures
    Question("english-tokens-per-gb", 2.4e8, {
        "library": lambda: dt.tokens_per_gb("english"),
        "plan": lambda: plans.estimate_corpus(7e9).rates["english"],
        "llmest data": lambda: cli_json("data", "--params", "7B")["tokens_per_gb"],
        "data planner": lambda: data_planner("7B").estimate.rates["english"],
        "drill corpus-size": lambda: english_corpus_drill().inputs["rate"],
    }, notes=(
        (lambda: cli_text("data", "--params", "7B"), ("at 240M tokens per GB",)),
        (lambda: data_planner("7B").summary.value, ("at 240M tokens per GB",)),
        (lambda: figure_text("004-4.2-english-gb"), ("at 240M tokens per GB", "= 240M")),
        (lambda: chapter_text("04_data_and_tokens.ipynb"), ("the workbook uses", "one rate per language")),
    )),
    # 140B tokens (20 × 7B) at the measured 2.4e8 tokens per GB (the material's 2.8亿 gives its 500 GB)
    Question("seed004-english-gb-for-7b", 140e9 / 2.4e8 * GB, {
        "library": lambda: dt.cleaned_bytes(dt.chinchilla_tokens(7e9), dt.tokens_per_gb("english")),
        "plan": lambda: plans.estimate_corpus(7e9).cleaned_bytes,
        "llmest data": lambda: cli_json("data", "--params", "7B")["cleaned_bytes"],
        "data planner": lambda: data_planner("7B").result["cleaned"],
        "figure 004-4.2-english-gb": lambda: figure("004-4.2-english-gb"),
        "drill corpus-size": lambda: english_corpus_drill().answer,
    }, rel=1e-6),
    # 140B tokens at the measured 2.6e8 tokens per GB of Chinese (304M, 256M, 253M; the material's 3.5亿 gives 400 GB)
    Question("readme-data-chinese", 140e9 / 2.6e8 * GB, {
        "plan": lambda: plans.estimate_corpus(7e9, mix={"chinese": 1}).cleaned_bytes,
        "llmest data (README)": lambda: cli_json("data", "--params", "7B", "--language", "chinese", "--gpus", "64",
                                                 "--days", "30")["cleaned_bytes"],
        "data planner": lambda: data_planner("7B", english=0.0, chinese=1.0).result["cleaned"],
        "figure 004-4.2-chinese-gb": lambda: figure("004-4.2-chinese-gb"),
    }, rel=1e-6),
    Question("seed004-chinchilla-7b", 20 * 7e9, {
        "library": lambda: dt.chinchilla_tokens(7e9),
        "llmest data": lambda: cli_json("data", "--params", "7B")["tokens"],
        "data planner": lambda: data_planner("7B").result["tokens"],
        "figure 004-4.1-7b": lambda: figure("004-4.1-7b"),
        "drill chinchilla-tokens": lambda: drill("chinchilla-tokens", n=7e9, tokens_per_param=20),
    }),
    Question("exercise-4.1-chinchilla-13b", 20 * 13e9, {
        "exercise 4.1": lambda: expected("4.1"),
        "library": lambda: dt.chinchilla_tokens(13e9),
        "llmest data": lambda: cli_json("data", "--params", "13B")["tokens"],
        "data planner": lambda: data_planner("13B").result["tokens"],
    }),
    Question("seed004-reverse-budget", SEED004_BUDGET, {
        "library": lambda: c.compute_budget(64, 30, 200e12, 0.5),
        "plan": lambda: plans.estimate_corpus(gpus=64, days=30, peak_flops_per_s=200e12, mfu=0.5).budget_flops,
        "llmest data --peak": lambda: cli_json("data", "--gpus", "64", "--days", "30", "--mfu", "0.5",
                                               "--peak", "200")["budget_flops"],
        "figure 004-4.3-budget": lambda: figure("004-4.3-budget"),
    }),
    Question("seed004-budget-compute-optimal-n", math.sqrt(SEED004_BUDGET / 120), {
        "library": lambda: plans.chinchilla_for_budget(64, 30, 200e12, 0.5)[0],
        "plan": lambda: plans.estimate_corpus(gpus=64, days=30, peak_flops_per_s=200e12, mfu=0.5).n_params,
        "llmest data, no --params": lambda: cli_json("data", "--gpus", "64", "--days", "30", "--mfu", "0.5",
                                                     "--peak", "200")["params"],
    }),
    Question("exercise-3.3-budget-n", math.sqrt(256 * A100 * 0.4 * 21 * 86_400 / 120), {
        "exercise 3.3": lambda: expected("3.3"),
        "library": lambda: plans.chinchilla_for_budget(256, 21, A100, 0.4)[0],
        "llmest data, no --params": lambda: cli_json("data", "--gpus", "256", "--days", "21")["params"],
    }),
    Question("seed004-7b-100b-64-cards-days", EX56_DAYS, {
        "library": lambda: c.training_days(c.training_flops(7e9, 100e9), 64, 200e12, 0.5),
        "plan": lambda: plans.estimate_time(100e9, n_params=7e9, gpus=64, peak_flops_per_s=200e12, mfu=0.5).days,
        "llmest time --peak": lambda: cli_json("time", "--params", "7B", "--tokens", "100B", "--gpus", "64",
                                               "--peak", "200", "--mfu", "0.5")["days"],
        "figure 004-3.2-days": lambda: figure("004-3.2-days"),
        "figure 004-3.3-7B-64": lambda: figure("004-3.3-7B-64"),
    }),
    Question("exercise-5.6-days-with-margin", EX56_DAYS * 1.25, {
        "exercise 5.6": lambda: expected("5.6"),
        "plan": lambda: plans.estimate_time(100e9, n_params=7e9, gpus=64, peak_flops_per_s=200e12,
                                        mfu=0.5).days_with_margin[1],
        "llmest time --peak": lambda: cli_json("time", "--params", "7B", "--tokens", "100B", "--gpus", "64",
                                               "--peak", "200", "--mfu", "0.5")["days_with_margin"][1],
    }),
    Question("seed000-gpt3-v100-hours", 6 * 175e9 * 300e9 / (V100 * 0.4) / 3600, {
        "exercise 5.4": lambda: expected("5.4"),
        "plan": lambda: plans.estimate_time(300e9, n_params=175e9, gpu="V100").gpu_hours,
        "llmest time": lambda: cli_json("time", "--params", "175B", "--tokens", "300B", "--gpu", "V100")["gpu_hours"],
        "training planner": lambda: training_planner(params="175B", tokens="300B", gpu="V100").result["gpu_hours"],
        "figure 000-5-gpt3-hours": lambda: figure("000-5-gpt3-hours"),
    }),
    Question("exercise-3.1-h100-hours", EX31_HOURS, {
        "exercise 3.1": lambda: expected("3.1"),
        "plan": lambda: plans.estimate_time(2e12, n_params=13e9, gpu="H100 SXM").gpu_hours,
        "llmest time": lambda: cli_json("time", "--params", "13B", "--tokens", "2T", "--gpu", "H100 SXM")["gpu_hours"],
        "training planner": lambda: training_planner(params="13B", tokens="2T", gpu="H100 SXM").result["gpu_hours"],
    }),
    Question("exercise-3.2-h100-days", EX31_HOURS / 512 / 24, {
        "exercise 3.2": lambda: expected("3.2"),
        "plan": lambda: plans.estimate_time(2e12, n_params=13e9, gpu="H100 SXM", gpus=512).days,
        "llmest time": lambda: cli_json("time", "--params", "13B", "--tokens", "2T", "--gpu", "H100 SXM",
                                        "--gpus", "512")["days"],
        "training planner": lambda: training_planner(params="13B", tokens="2T", gpu="H100 SXM",
                                                     gpus=512).result["days"],
    }),
    # Llama-2-7B with its attention at 4,096 tokens: 6·N·D with N its 6,607,343,616 matmul weights (6,738,415,616 less
    # the 32,000 × 4,096 embedding), plus PaLM's 12·L·H·Q·T = 12 · 32 · 32 · 128 · 4,096 a token.
    Question("llama-2-7b-flops-with-attention", (6 * 6_607_343_616 + 12 * 32 * 32 * 128 * 4096) * 1e12, {
        "library": lambda: (c.training_flops(c.flops_params("llama-2-7b"), 1e12)
                            + c.attention_flops_per_token(32, 32, 128, 4096) * 1e12),
        "library, layer by layer": lambda: (c.training_flops(c.flops_params("llama-2-7b"), 1e12)
                                            + c.attention_flops_per_token_for("llama-2-7b", 4096) * 1e12),
        "plan": lambda: plans.estimate_time(1e12, model="llama-2-7b", seq_len=4096).flops,
        "llmest time --seq-len": lambda: cli_json("time", "--model", "llama-2-7b", "--tokens", "1T",
                                                  "--seq-len", "4096")["flops"],
        "training planner": lambda: training_planner(model="llama-2-7b", tokens="1T", seq_len="4096").result["flops"],
    }),
    Question("readme-time-70b-on-h100s", README_70B_HOURS, {
        "plan": lambda: plans.estimate_time(2e12, model="llama-2-70b", gpu="H100 SXM", gpus=2048).gpu_hours,
        "llmest time (README)": lambda: cli_json("time", "--model", "llama-2-70b", "--tokens", "2T", "--gpus", "2048",
                                                 "--gpu", "H100 SXM", "--mfu", "0.4", "--price", "4")["gpu_hours"],
        "training planner": lambda: training_planner(model="llama-2-70b", tokens="2T", gpu="H100 SXM", gpus=2048,
                                                     price=4.0).result["gpu_hours"],
    }, notes=((lambda: cli_text("time", "--model", "llama-2-70b", "--tokens", "2T", "--gpu", "H100 SXM"), _lookup),)),
    Question("seed000-7b-training-states", 16 * 7e9, {
        "library": lambda: mem.training_state_bytes(7e9),
        "figure 000-4.2-train": lambda: figure("000-4.2-train"),
        "figure 004-2.1-7b": lambda: figure("004-2.1-7b"),
        "drill training-states": lambda: drill("training-states", n=7e9, convention="mixed"),
    }),
    Question("seed004-7b-zero3-on-8", 16 * 7e9 / 8, {
        "library": lambda: sum(mem.sharded_state_bytes(7e9, mem.state_bytes_per_param(), zero=3, dp=8).values()),
        "figure 004-2.3-zero3-7b": lambda: figure("004-2.3-zero3-7b"),
        "drill zero-per-gpu": lambda: drill("zero-per-gpu", n=7e9, zero=3, dp=8),
    }),
    Question("llama-2-7b-a100-serve-tpot", SERVE_TPOT, {
        "plan": lambda: plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512, output_tokens=256).tpot_s,
        "llmest serve": lambda: cli_json(*_serve)["tpot_s"],
        "serving planner": lambda: serving_planner(prompt_tokens=512, output_tokens=256, batch=1).estimate.tpot_s,
    }, rel=1e-12),
    Question("llama-2-7b-a100-serve-max-batch", SERVE_MAX_BATCH, {
        "plan": lambda: plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512,
                                               output_tokens=256).max_batch,
        "llmest serve": lambda: cli_json(*_serve, "--batch", "16")["max_batch"],
        "serving planner": lambda: serving_planner(prompt_tokens=512, output_tokens=256).estimate.max_batch,
    }),
    Question("llama-2-7b-a100-serve-ttft", 16 * (2 * LLAMA2_7B_MATMUL * 512 + 2 * 32 * 256 * 32 * 512 * 513 / 2)
             / (A100 * 0.4), {
        "plan": lambda: plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512, output_tokens=256,
                                               batch=16).ttft_s,
        "llmest serve (README)": lambda: cli_json(*_serve, "--batch", "16")["ttft_s"],
        "serving planner": lambda: serving_planner(prompt_tokens=512, output_tokens=256, batch=16).estimate.ttft_s,
    }, rel=1e-12),
    # Exercise 3.8: one prompt of 2,048 tokens, 2·N·P plus 2 · 32 heads · (128 + 128) · 32 layers a query-key pair
    Question("exercise-3.8-ttft-2048", (2 * LLAMA2_7B_MATMUL * 2048 + 2 * 32 * 256 * 32 * 2048 * 2049 / 2)
             / (A100 * 0.4), {
        "exercise 3.8": lambda: expected("3.8"),
        "plan": lambda: plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=2048, output_tokens=1).ttft_s,
        "llmest serve": lambda: cli_json("serve", "llama-2-7b", "--prompt-tokens", "2048", "--output-tokens",
                                         "1")["ttft_s"],
        "serving planner": lambda: serving_planner(prompt_tokens=2048, output_tokens=1, batch=1).estimate.ttft_s,
    }, rel=1e-12),
    Question("llama-2-7b-parameters", LLAMA2_7B, {
        "library": lambda: le.count_params(le.preset("llama-2-7b")).total,
        "llmest params": lambda: cli_json("params", "llama-2-7b")["total"],
        "parameter calculator": lambda: ParamCalculator("llama-2-7b").count.total,
        "plan (trainable)": lambda: plans.plan_memory("training", "llama-2-7b").trainable_params,
    }),
    Question("readme-memory-zero3-8-gpus", None, {
        "library": lambda: plans.training_memory("llama-2-7b", zero=3, dp=8, micro_batch=4, seq_len=4096,
                                               recompute="full").total,
        "llmest memory (README)": lambda: cli_json("memory", "llama-2-7b", "--zero", "3", "--dp", "8",
                                                   "--micro-batch", "4", "--seq-len", "4096",
                                                   "--recompute", "full")["total"],
        "memory planner": lambda: memory_planner(micro_batch=4, recompute="full").breakdown.total,
    }),
    Question("readme-memory-70b-int4-on-h200", None, {
        "library": lambda: plans.inference_memory("llama-2-70b", weights="int4", seq_len=2048, batch=32).total,
        "llmest memory (README)": lambda: cli_json("memory", "llama-2-70b", "--task", "inference", "--weights",
                                                   "int4", "--seq-len", "2048", "--batch", "32",
                                                   "--gpu", "H200")["total"],
        "memory planner": lambda: memory_planner("llama-2-70b", "H200", task="inference", weights="int4",
                                                 batch=32).breakdown.total,
        "figure 000-ex3-int4-total": lambda: figure("000-ex3-int4-total"),
    }),
    Question("exercise-5.5-oom-hunt", None, {
        "exercise 5.5": lambda: expected("5.5"),
        "llmest memory": lambda: cli_json("memory", "llama-2-7b", "--zero", "3", "--dp", "8", "--seq-len", "4096",
                                          "--no-flash")["total"],
        "memory planner": lambda: memory_planner(flash=False).breakdown.total,
    }),
    # 300B tokens: 70% English at 2.4e8, 20% Chinese at 2.6e8, 10% code at 2.5e8 tokens per GB (the measured rates)
    Question("exercise-4.5-mixture", (0.7 * 300e9 / 2.4e8 + 0.2 * 300e9 / 2.6e8 + 0.1 * 300e9 / 2.5e8) * GB, {
        "exercise 4.5": lambda: expected("4.5"),
        "plan": lambda: plans.estimate_corpus(15e9, mix={"english": 0.7, "chinese": 0.2, "code": 0.1}).cleaned_bytes,
        "data planner": lambda: data_planner("15B", english=0.7, chinese=0.2, code=0.1).result["cleaned"],
    }, rel=1e-6),
]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_one_question_one_answer(question: Question):
    answers = {surface: float(answer()) for surface, answer in question.answers.items()}
    assert len(answers) >= 2, "a question asked of one surface checks nothing"
    reference = question.known if question.known is not None else next(iter(answers.values()))
    off = {s: v for s, v in answers.items() if v != pytest.approx(reference, rel=question.rel)}
    assert not off, f"{question.id}: {reference:.6g} expected, these differ: {off}"
    if question.known is not None:
        assert reference == pytest.approx(question.known, rel=question.known_rel)
    for d in question.differs:
        value = float(d.value())
        assert value == pytest.approx(d.known, rel=question.rel), d.surface
        assert value != pytest.approx(reference, rel=1e-3), f"{d.surface} agrees: it needs no explanation"
        shown = d.text()
        missing = [p for p in d.phrases if p not in shown]
        assert not missing, f"{d.surface} answers {value:.6g}, not {reference:.6g}, and does not say {missing}"
    for text, phrases in question.notes:
        shown = text()
        missing = [p for p in phrases if p not in shown]
        assert not missing, f"{question.id}: missing {missing}"


def test_at_least_25_questions_each_asked_of_two_or_more_surfaces():
    assert len(QUESTIONS) >= 25 and len({q.id for q in QUESTIONS}) == len(QUESTIONS)
    surfaces = {s.split(" ")[0] for q in QUESTIONS for s in q.answers}
    assert {"library", "plan", "llmest", "exercise", "figure", "drill"} <= surfaces


@pytest.mark.parametrize("argv, key, known", [
    (["time", "--params", "7B", "--tokens", "1T", "--gpus", "256", "--mfu", "0.4"], "gpu_hours", EX1_HOURS),
    (["data", "--params", "7B", "--language", "chinese", "--gpus", "64", "--days", "30"], "cleaned_bytes",
     140e9 / 2.6e8 * GB),
    (["memory", "llama-2-70b", "--task", "inference", "--seq-len", "2048", "--batch", "32"], "least_gpus", 4),
])
def test_the_installed_command_gives_the_same_answers(argv, key, known):
    script = Path(sys.executable).with_name("llmest")
    result = subprocess.run([str(script), *argv, "--json"], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout)[key] == pytest.approx(known, rel=1e-9)


@pytest.mark.parametrize("call, message", [
    (lambda: plans.estimate_time(1e12), "give n_params (e.g. 7e9) or model (a preset or config), not both: neither"),
    (lambda: plans.estimate_time(1e12, n_params=7e9, model="llama-2-7b"), "not both: both were given"),
    (lambda: plans.estimate_time(1e12, n_params=7e9, price_per_gpu_hour=-1), "price_per_gpu_hour == -1"),
    (lambda: plans.estimate_time(1e12, n_params=7e9, peak_flops_per_s=0), "peak_flops_per_s == 0, must be > 0."),
    (lambda: plans.plan_memory("serving", "llama-2-7b"), "task == 'serving', must be one of"),
    (lambda: plans.plan_memory("training", "llama-2-7b", margin=1.5), "margin == 1.5"),
    (lambda: plans.plan_memory("inference", "llama-2-7b", tp=3), "tp == 3 must divide the attention heads"),
    (lambda: plans.plan_memory("qlora", "llama-2-7b", rank=0), "rank == 0, must be >= 1."),
])
def test_the_plans_name_a_bad_input(call, message):
    with pytest.raises(le.InputError) as err:
        call()
    assert message in str(err.value)
