"""Chapter 3's exercises (FLOPs and time): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import compute as cp
from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ...formulas import moe_comm
from ...formulas.counting import count_params
from ...formulas import precision as prec
from ... import plans
from ...plans.moe_plan import DEEPSEEK_V3, NODES_PER_TOKEN
from ...plans.precision_pairs import FP8_STEP_S
from ...plans.published_layouts import RUNS
from ..grading import Exercise
from ...core.i18n import N_
from ...core.units import SECONDS_PER_HOUR, format_bytes, format_count, format_number
from .registry import register


_H100 = hardware.gpu("H100 SXM")
_LLAMA2_7B = m.preset("llama-2-7b")
# NVIDIA's BF16-beside-FP8 pair that calibrates the FP8 efficiency (precision_pairs, dgxc-benchmarking v25.02).
_PAIR = RUNS["Llama 3.1 70B, 64 H100 (NVIDIA)"]
_DSV3 = m.preset("deepseek-v3")
_H800_NODE = hardware.gpu("H800").network.gpus_per_node
# The serving exercises' setups (3.11 to 3.13), each the plan's call its answer makes.
_LOAD = dict(requests_per_s=100, prompt_tokens=2000, output_tokens=500, ttft_s=1.0, tpot_s=0.04)
_FIT = plans.plan_capacity("llama-3.1-70b", "H100 SXM", **_LOAD).colocated
_SPEC = dict(acceptance=0.8, draft="llama-3-8b", draft_tokens=4, tp=4)
_SPECULATIVE = plans.speculative_decode("llama-3.1-70b", "H100 SXM", **_SPEC)
_MOE_TP = 8   # DeepSeek-V3 in FP8 on one node of 8 H200s (671 GB of weights in 8 × 141 GB)
_ROUTED_FP8 = count_params(_DSV3)["experts"] * mem.WEIGHT_FORMATS["fp8"].bytes_per_param


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
    Exercise(
        "3.9",
        N_("NVIDIA trains Llama 3.1 70B on 64 H100s in steps of 128 sequences of 8,192 tokens: {bf16} s a step in "
        "BF16, {fp8} s in FP8 (Transformer Engine), the same layout. Counting 6·N FLOPs a token (N = {n} matmul "
        "weights) against the BF16 peak of {peak} TFLOPS, as the workbook does, what MFU does the FP8 run reach?"),
        lambda: plans.estimate_mfu(cp.flops_params("llama-3.1-70b"), _PAIR.sequences * _PAIR.seq_len, gpu="H100 SXM",
                                   gpu_hours=_PAIR.gpus * FP8_STEP_S[_PAIR.name] / SECONDS_PER_HOUR).mfu,
        unit="fraction", rel_tol=0.05,
        hints=(N_("MFU = 6·N·tokens a step / (GPUs × peak × step time)."),
               N_("Against the FP8 peak, twice the BF16 one, it would be half as much: MFU counted at the BF16 peak "
                  "can pass the BF16 runs' ceiling.")),
        values={"bf16": f"{_PAIR.published_step_s:g}", "fp8": f"{FP8_STEP_S[_PAIR.name]:g}",
                "n": format_count(cp.flops_params("llama-3.1-70b")),
                "peak": f"{_H100.bf16_flops_per_s / 1e12:,.4g}"}),
    Exercise(
        "3.10",
        N_("DeepSeek-V3 (hidden size {hidden}, {k} routed experts a token, {layers} MoE layers) trains with its "
        "experts over 64 GPUs, {g} a node, each token sent to at most {m} nodes, once to each, with the experts' "
        "load even. Dispatched values travel in FP8 with an FP32 scale per 128 (1 + 4/128 bytes), combined ones in "
        "BF16; a layer dispatches and combines forward, and again backward. How many GB does one sequence of 4,096 "
        "tokens send over the network through the MoE layers in a training step?"),
        lambda: 4096 * _DSV3.moe_layers * moe_comm.all_to_all_bytes_per_token(
            _DSV3.hidden_size, moe_comm.network_sends_per_token(_DSV3.experts_per_token, DEEPSEEK_V3["ep"],
                                                                _H800_NODE, NODES_PER_TOKEN),
            prec.format_bytes_per_value(prec.RECIPES["fp8-deepseek"].matmul_inputs), 2),
        unit="bytes", rel_tol=0.05,
        hints=(N_("Of the 8 nodes a token may need, it goes once to each of at most {m}; its own node is one of "
                  "them {m} times in 8, so {m} · (8 − 1)/8 copies cross the network."),
               N_("Each copy carries h values: dispatched in 1 + 4/128 bytes and combined in 2, forward and "
                  "backward."),
               N_("Multiply by the tokens and the MoE layers.")),
        values={"hidden": f"{_DSV3.hidden_size:,}", "k": _DSV3.experts_per_token, "layers": _DSV3.moe_layers,
                "g": _H800_NODE, "m": NODES_PER_TOKEN}),
    Exercise(
        "3.11",
        N_("Llama-3.1-70B in BF16 serves {rate} requests a second on H100 SXMs, each a prompt of {prompt} tokens and "
        "an answer of {output}, with TTFT within {ttft} s and TPOT within {tpot_target} ms. plan_capacity finds that "
        "a replica of {tp} H100s (tensor parallel) meets both targets with at most {batch} requests in its running "
        "batch, at a TPOT of {tpot} ms: the first-token target binds it, since a larger batch leaves new prompts "
        "waiting longer for room in each step. A request holds its place in the batch for its {output} output "
        "tokens, one a step. How many H100s at least serve the load?"),
        lambda: plans.plan_capacity("llama-3.1-70b", "H100 SXM", **_LOAD).gpus, unit="GPUs", rel_tol=0,
        minimum=True,
        hints=(N_("Little's law: a replica holding b requests, each for O × TPOT seconds, serves b / (O × TPOT) "
                  "requests a second."),
               N_("Replicas: the load over one replica's rate, rounded up; then GPUs = replicas × {tp}.")),
        values={"rate": f"{_LOAD['requests_per_s']:,}", "prompt": f"{_LOAD['prompt_tokens']:,}",
                "output": f"{_LOAD['output_tokens']:,}", "ttft": f"{_LOAD['ttft_s']:g}",
                "tpot_target": f"{_LOAD['tpot_s'] * 1e3:g}", "tp": _FIT.tp, "batch": _FIT.batch,
                "tpot": format_number(_FIT.tpot_s * 1e3)}),
    Exercise(
        "3.12",
        N_("Llama-3.1-70B in BF16 decodes one sequence at a time on {tp} H100 SXMs (tensor parallel): a step takes "
        "{plain} ms, bound by reading the weights, and verifying {positions} positions at once takes {verify} ms. "
        "Llama-3-8B, on the same GPUs, drafts {k} tokens ahead at {draft} ms a step, each draft token accepted with "
        "probability {alpha}, independently; the target keeps the accepted prefix and adds one token of its own. How "
        "many tokens per second does the sequence get?"),
        lambda: plans.speculative_decode("llama-3.1-70b", "H100 SXM", **_SPEC).sequence_tokens_per_s, unit="tokens/s",
        rel_tol=0.05,
        hints=(N_("A step yields 1 + α + α² + … + α^k tokens on average (Leviathan et al. 2023)."),
               N_("A step takes the draft's {k} steps one after another and then the verification.")),
        values={"tp": _SPEC["tp"], "plain": format_number(_SPECULATIVE.plain.step_s * 1e3),
                "positions": _SPEC["draft_tokens"] + 1, "verify": format_number(_SPECULATIVE.verify.step_s * 1e3),
                "k": _SPEC["draft_tokens"], "draft": format_number(_SPECULATIVE.draft_step_s * 1e3),
                "alpha": f"{_SPEC['acceptance']:g}"}),
    Exercise(
        "3.13",
        N_("DeepSeek-V3 in FP8 decodes on one node of {tp} H200s, tensor parallel: each GPU holds {other} of "
        "weights outside the routed experts and {each} of each of the {experts} routed experts of its {layers} MoE "
        "layers. A step decodes {batch} sequences, one token each, and each token picks {k} routed experts a layer, "
        "routing spread evenly. How many GB of weights does each GPU read in the step?"),
        lambda: plans.moe_decode("deepseek-v3", "H200", batches=[8], weights="fp8", tp=_MOE_TP).rows[0][
            "weight_bytes"], unit="bytes", rel_tol=0.05,
        hints=(N_("An expert is left out by one token with probability 1 − k/E, by all b tokens with (1 − k/E)^b: "
                  "the tokens pick E · (1 − (1 − k/E)^b) distinct experts a layer."),
               N_("Every GPU reads its share of the weights outside the routed experts, and of each picked expert "
                  "on each MoE layer.")),
        values={"tp": _MOE_TP, "batch": 8, "k": _DSV3.experts_per_token, "experts": _DSV3.num_experts,
                "layers": _DSV3.moe_layers,
                "other": format_bytes((mem.model_weight_bytes(_DSV3, "fp8") - _ROUTED_FP8) / _MOE_TP),
                "each": format_bytes(_ROUTED_FP8 / (_DSV3.moe_layers * _DSV3.num_experts) / _MOE_TP)}),
)
