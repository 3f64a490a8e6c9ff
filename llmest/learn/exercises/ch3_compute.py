"""Chapter 3's exercises (FLOPs and time): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import compute as cp
from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ... import plans
from ..grading import Exercise
from ...core.i18n import N_
from ...core.units import SECONDS_PER_HOUR, format_count
from .registry import register


_H100 = hardware.gpu("H100 SXM")
_LLAMA2_7B = m.preset("llama-2-7b")


register(
    Exercise(
        "3.1",
        N_("A 13B model trains on 2T tokens on H100 SXM GPUs (989 dense BF16 TFLOPS) at 40% MFU. How many GPU-hours?"),
        lambda: plans.estimate_time(2e12, n_params=13e9, gpu="H100 SXM", mfu=0.4).gpu_hours, unit="GPU-hours",
        rel_tol=0.05,
        hints=(N_("FLOPs ≈ 6·N·D."), N_("FLOPs / (peak × MFU) gives GPU-seconds; divide by {hour}.")),
        values={"hour": f"{SECONDS_PER_HOUR:,}"}),
    Exercise(
        "3.2",
        N_("The same run on 512 H100s: how many days, before any margin?"),
        lambda: plans.estimate_time(2e12, n_params=13e9, gpus=512, gpu="H100 SXM", mfu=0.4).days, unit="days",
        rel_tol=0.05,
        hints=(N_("GPU-hours / GPUs / 24."),)),
    Exercise(
        "3.3",
        N_("You have 256 A100s (312 TFLOPS) for 21 days at 40% MFU, and want 20 training tokens per parameter. What is "
        "the largest model (parameters) you can train?"),
        lambda: plans.estimate_budget(256, 21, gpu="A100 80GB", mfu=0.4).chinchilla()[0],
        rel_tol=0.05,
        hints=(N_("The budget is GPUs × peak × MFU × seconds."),
               N_("With D = 20·N, C = 6·N·20·N = 120·N²: solve for N."))),
    Exercise(
        "3.4",
        N_("A team reports training a 30B model on 600B tokens in 21 days on 1,024 A100s. What MFU does that imply?"),
        lambda: plans.estimate_mfu(30e9, 600e9, gpus=1024, days=21, gpu="A100 80GB").mfu,
        unit="fraction", rel_tol=0.05,
        hints=(N_("MFU = model FLOPs / (GPUs × peak × seconds)."),)),
    Exercise(
        "3.5",
        N_("Llama-2-7B has 32 layers of 32 heads of width 128 and about "
        "{weights} matmul weights (N, the embedding left out). At what "
        "sequence length T do the attention FLOPs, 12·L·H·Q·T per token, reach 10% of a training token's FLOPs "
        "(6N + 12·L·H·Q·T)?"),
        lambda: cp.seq_len_for_attention_share(cp.flops_params("llama-2-7b"), 32, 32, 128, 0.1), rel_tol=0.05,
        hints=(N_("Solve 12·L·H·Q·T = 0.1 · (6N + 12·L·H·Q·T) for T."),),
        values={"weights": format_count(cp.flops_params("llama-2-7b"))}),
    Exercise(
        "3.6",
        N_("Llama-2-7B in BF16 decodes one sequence at a time on an H100 SXM (3.35 TB/s). Every step reads all the "
        "weights (its 6.74B parameters, 2 bytes each); ignore the KV cache. At most how many tokens per second?"),
        lambda: _H100.bandwidth_bytes_per_s / mem.model_weight_bytes("llama-2-7b", "bf16"), unit="tokens/s",
        rel_tol=0.05,
        hints=(N_("At batch 1 decoding is bound by memory bandwidth, not by FLOPs."),
               N_("Time per token = weight bytes / bandwidth."))),
    Exercise(
        "3.7",
        N_("At what batch size does decoding Llama-2-7B in BF16 on an H100 SXM become compute-bound if the KV cache "
        "is negligible (very short contexts)? Compute per step 2·N·B at 989 TFLOPS; memory per step the weights at "
        "3.35 TB/s; N = {weights} matmul weights, "
        "{params} parameters read."),
        lambda: cp.compute_bound_batch(mem.model_weight_bytes("llama-2-7b", "bf16"), cp.flops_params("llama-2-7b"),
                                       _H100.bandwidth_bytes_per_s, _H100.bf16_flops_per_s), rel_tol=0.05,
        hints=(N_("Set 2·N·B / peak equal to weight bytes / bandwidth."),),
        values={"weights": format_count(cp.flops_params("llama-2-7b")),
                "params": format_count(m.count_params(_LLAMA2_7B).total)}),
    Exercise(
        "3.8",
        N_("Llama-2-7B in BF16 on one A100 80GB (312 dense BF16 TFLOPS) gets a single prompt of 2,048 tokens, and "
        "prefill reaches 40% of the peak. Count 2·N·P FLOPs in the matmuls "
        "(N = {weights} matmul weights) and the causal attention: each token "
        "attends to itself and the tokens before it, 2 · {heads} heads · "
        "({head_dim} + {head_dim}) FLOPs per query-key pair in each of "
        "{layers} layers. What is the time to the first token, in seconds?"),
        lambda: plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=2048, output_tokens=1).ttft_s,
        unit="seconds", rel_tol=0.05,
        hints=(N_("A prompt of P tokens has P·(P + 1)/2 query-key pairs."),
               N_("TTFT = FLOPs / (peak × efficiency): the prefill is compute-bound.")),
        values={"weights": format_count(cp.flops_params("llama-2-7b")), "heads": _LLAMA2_7B.num_heads,
                "head_dim": _LLAMA2_7B.head_dim, "layers": _LLAMA2_7B.num_layers}),
)
