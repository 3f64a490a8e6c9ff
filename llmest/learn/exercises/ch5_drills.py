"""Chapter 5's exercises (interview drills): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import compute as cp
from ...formulas import model as m
from ... import plans
from ..grading import Exercise
from ...core.i18n import N_
from ...core.units import SECONDS_PER_DAY, SECONDS_PER_HOUR, format_percent
from .registry import KEPT_FREE, USABLE, register


register(
    Exercise(
        "5.1",
        N_("The material's exercise 1: a 7B trained on 1T tokens on 256 A100s (312 TFLOPS BF16) at 40% MFU. How many "
        "days?"),
        lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256, gpu="A100 80GB", mfu=0.4).days,
        unit="days", rel_tol=0.05,
        hints=(N_("6·N·D FLOPs, divided by 256 × 312 TFLOPS × 0.4, gives seconds."), N_("A day is {day} seconds.")),
        values={"day": f"{SECONDS_PER_DAY:,}"}),
    Exercise(
        "5.2",
        N_("The material's exercise 2: QLoRA of Llama-2-70B with rank-64 adapters on all seven projections (kept in "
           "fp32 with AdamW, as PEFT does), the base in NF4 with double quantisation, one sequence of 2,048 tokens "
           "with full checkpointing and FlashAttention, 0.5 GB of runtime. Total memory on the GPU, in GB?"),
        lambda: plans.qlora_memory(m.preset("llama-2-70b"), rank=64, micro_batch=1, seq_len=2048).total,
        unit="bytes", rel_tol=0.1,
        hints=(N_("The base: parameters × (4 bits + one 8-bit constant per 64 + one fp32 constant per 256 blocks)."),
               N_("Adapters: r·(d_in + d_out) per projection, per layer; 16 bytes each with gradients and AdamW."),
               N_("Activations with full checkpointing: every layer's input (2·s·h bytes) plus one layer "
                  "recomputed."))),
    Exercise(
        "5.3",
        N_("The material's exercise 3: serve Llama-2-70B in BF16 with 32 requests of 2,048 tokens, split with tensor "
        "parallelism over A100 80GB GPUs, keeping {kept_free} of each free. How many GPUs? (Tensor parallelism must "
        "divide "
        "its 64 heads.)"),
        lambda: plans.plan_memory("inference", "llama-2-70b", gpu="A100 80GB", seq_len=2048, batch=32).least,
        unit="GPUs", rel_tol=0,
        hints=(N_("Weights: count the parameters × 2 bytes. KV cache: 2 · 80 layers · 8 KV heads · 128 · 2 bytes "
                  "a token."),
               N_("Each GPU may use {usable} ({share} of {memory}); 3 does not divide 64 heads.")),
        values={"kept_free": KEPT_FREE, **USABLE["A100 80GB"]}),
    Exercise(
        "5.4",
        N_("The interview question on GPT-3: 175B parameters, 300B tokens, V100s at 125 TFLOPS and 40% MFU. How many "
        "GPU-hours?"),
        lambda: plans.estimate_time(300e9, n_params=175e9, gpu="V100", mfu=0.4).gpu_hours,
        unit="GPU-hours", rel_tol=0.05,
        hints=(N_("6·N·D FLOPs / (125 TFLOPS × 0.4) gives GPU-seconds; then divide by {hour}."),),
        values={"hour": f"{SECONDS_PER_HOUR:,}"}),
    Exercise(
        "5.5",
        N_("An OOM hunt: Llama-2-7B with mixed-precision AdamW and ZeRO-3 over 8 GPUs, one sequence of 4,096 tokens, "
        "eager attention (no FlashAttention) and no recomputation, 0.5 GB of runtime. Memory per GPU, in GB?"),
        lambda: plans.training_memory(m.preset("llama-2-7b"), zero=3, dp=8, micro_batch=1, seq_len=4096,
                                    recompute="none", flash=False).total,
        unit="bytes", rel_tol=0.1,
        hints=(N_("States: 16 bytes a parameter, all sharded over 8 GPUs."),
               N_("Activations per layer: the gated count plus the softmax output, 2·a·s² bytes, which dominates "
                  "here."),
               N_("Add the output layer: 4·s·h·(1 + V/h) bytes, with fp32 logits."))),
    Exercise(
        "5.6",
        N_("A 7B on 100B tokens with 64 GPUs of 200 TFLOPS at 50% MFU (the article's §3.2 example): how many days "
        "should the plan say, with the top of the article's {margin} time margin?"),
        lambda: plans.estimate_time(100e9, n_params=7e9, gpus=64, peak_flops_per_s=200e12, mfu=0.5).days_with_margin[1],
        unit="days", rel_tol=0.05,
        hints=(N_("First the formula's days: 6ND / (64 × 200 TFLOPS × 0.5) / {day}."), N_("Then add {top}.")),
        values={"margin": plans.TIME_MARGIN_TEXT, "day": f"{SECONDS_PER_DAY:,}",
                "top": format_percent(cp.TIME_MARGIN[1], 0)}),
)
