"""The serving model against published serving figures (``llmest.display.findings.serving`` writes them):

trtllm_h200       TensorRT-LLM's published H200 FP8 throughput a GPU of Llama-2-70B, four setups: the roofline's share
                  reached in serving is fitted to one (``FITTED_ROW``) and held against the other three, with and
                  without v0.5's attention reading the cache once per query head (it predates XQA)
mlperf_llama2     MLPerf Inference v4.0's Llama-2-70B offline tokens/s on one node of 8 H100 or 8 H200 with NVIDIA's
                  published layouts, with that share (held out)
deepseek_serving  DeepSeek's published inference system: decode and prefill throughput per H800 node and the
                  users' output speed, from its published layouts (EP144 decode with MTP, EP32 prefill), its
                  profiled prefill, and what the production prefill figure depends on that is not published
sglang_deepseek   LMSYS's SGLang DeepSeek-V3 benchmark on H100 nodes (EP32 prefill at 1K-4K prompts, EP72 decode at
                  256 sequences a GPU), held out
mtp_speedup       DeepSeek-V3's published 1.8× from its MTP module's 85-90% acceptance

Each gives the published figure, its source and setup, the model's figure from that setup, and the difference.
One constant is fitted (the roofline's share, on TensorRT-LLM's first row); every other figure is held out.
"""

from __future__ import annotations

from ...catalog import hardware
from ...catalog.serving_runs import (DEEPSEEK_INFERENCE, DEEPSEEK_PREFILL_PROFILE, FITTED_ROW, MLPERF_LLAMA2_70B,
                                     MLPERF_MODEL, MLPERF_OUTPUT_TOKENS, MLPERF_PROMPT_TOKENS, SGLANG_DEEPSEEK,
                                     TRTLLM_H200_LLAMA_70B, TRTLLM_XQA_H200)
from ...core import _validate as v
from ...core.i18n import N_, _
from ...core.report import Finding
from ...display.findings import serving as shown
from ...formulas.compute import prefill_attention_flops_for, prefill_flops_for, prefill_seconds
from ...formulas.memory import model_weight_bytes
from ...formulas.model import config_from
from ...formulas.moe_comm import network_sends_per_token
from ...formulas.moe_serving import decode_all_to_all_bytes_per_token
from ...formulas.speculative import MTP_ACCEPTANCE, MTP_SPEEDUP, step_cost_for_speedup, tokens_per_step
from ..decode_step import decode_step, matmul_peak
from ..serving_features import speculative_decode
from ..serving_plan import PREFILL_EFFICIENCY, estimate_request

FP8 = dict(weights="int8", kv_dtype="fp8", matmul="fp8")   # FP8 weights take int8's byte a parameter
# DeepSeek-V3 §2.1.2: node-limited routing, "each token will be sent to at most M nodes", M = 4 (prefill's dispatch).
DEEPSEEK_NODES_PER_TOKEN = 4
# DeepSeek Day 6: "core MLA computations ... use the BF16 format": the prompt's attention runs at the BF16 peak.
MLA_CORE_MATMUL = "bf16"
# DeepSeek-V3's context after its long-context extension (technical report §4.3: "up to 128K"): the longest mean
# prompt the prefill check searches.
DEEPSEEK_MAX_PROMPT_TOKENS = 131072


def _batch_throughput(model, gpu, batch, tp, prompt, output, share, per_query_head=False,
                      prefill_efficiency=PREFILL_EFFICIENCY) -> dict:
    """A static batch on tp GPUs in FP8: its prefill at ``prefill_efficiency`` of the peak, then output − 1 decoding
    steps at the mean context (``decode_step`` at ``share`` of the roofline), the cache read once per query head
    where ``per_query_head`` (an attention kernel without grouped-query support); output tokens a second a GPU."""
    cfg, g = config_from(model), hardware.gpu(gpu)
    ttft = prefill_seconds(prefill_flops_for(cfg, prompt, batch), model_weight_bytes(cfg, FP8["weights"]), tp,
                           matmul_peak(gpu, FP8["matmul"]), g.bandwidth_bytes_per_s, prefill_efficiency)
    step = decode_step(cfg, gpu, batch=batch, seq_len=prompt + output // 2, tp=tp, **FP8)
    reads = cfg.num_heads / cfg.num_kv_heads if per_query_head else 1
    terms = dict(memory=(step.weight_bytes + reads * step.kv_bytes) / g.bandwidth_bytes_per_s,
                 compute=step.compute_s, network=step.network_s, nvlink=step.nvlink_s)
    step_s = max(terms.values()) / share
    total = ttft + (output - 1) * step_s
    return dict(ttft_s=ttft, step_s=step_s, bound=max(terms, key=terms.get), total_s=total,
                tokens_per_s=batch * output / total / tp)


def _fitted_share() -> float:
    """The share of the decoding roofline that makes the model give TensorRT-LLM's published throughput for the
    fitted row: the step that leaves the published time after the prefill, against the roofline's step."""
    batch, tp, prompt, output, published = TRTLLM_H200_LLAMA_70B[FITTED_ROW]
    ideal = _batch_throughput("llama-2-70b", "H200", batch, tp, prompt, output, 1.0)
    step = (batch * output / (published * tp) - ideal["ttft_s"]) / (output - 1)
    return min(ideal["step_s"] / step, 1.0)


def trtllm_h200() -> Finding:
    """TensorRT-LLM's published H200 FP8 throughput a GPU of Llama-2-70B at four (batch, tp, input, output) setups
    beside the model's: pure roofline, at the share fitted to one row, and at that share with the cache read once
    per query head (v0.5 predates XQA, TensorRT-LLM's grouped-query kernel for decoding)."""
    share = _fitted_share()
    rows = []
    for i, (batch, tp, prompt, output, published) in enumerate(TRTLLM_H200_LLAMA_70B):
        setup = ("llama-2-70b", "H200", batch, tp, prompt, output)
        ideal, fitted = _batch_throughput(*setup, 1.0), _batch_throughput(*setup, share)
        no_xqa = _batch_throughput(*setup, share, per_query_head=True)
        implied = (batch * output / (published * tp) - fitted["ttft_s"]) / (output - 1)   # the step the figure leaves
        rows.append(dict(batch=batch, tp=tp, prompt_tokens=prompt, output_tokens=output, published=published,
                         roofline=ideal["tokens_per_s"], model=fitted["tokens_per_s"], bound=fitted["bound"],
                         difference=fitted["tokens_per_s"] / published - 1, fitted=i == FITTED_ROW,
                         no_xqa=no_xqa["tokens_per_s"], no_xqa_difference=no_xqa["tokens_per_s"] / published - 1,
                         ttft_s=fitted["ttft_s"], step_s=fitted["step_s"], roofline_step_s=ideal["step_s"],
                         no_xqa_step_s=no_xqa["step_s"], implied_step_s=implied))
    return Finding(dict(share=share, prefill_efficiency=PREFILL_EFFICIENCY, rows=rows, xqa=dict(TRTLLM_XQA_H200)),
                   shown.trtllm_h200)


def _mlperf_run(gpu, gpus, tp, configured, prompt, share) -> dict:
    """One MLPerf system: tp-GPU copies of the model, each running as many sequences as NVIDIA configured or as
    its FP8 paged cache holds at full length, whichever is fewer."""
    fits = estimate_request(MLPERF_MODEL, gpu, prompt_tokens=prompt, output_tokens=MLPERF_OUTPUT_TOKENS, tp=tp,
                            weights=FP8["weights"], kv_dtype=FP8["kv_dtype"]).max_batch
    batch = min(fits, configured)
    if not batch:
        raise v.InputError("prompt_tokens", _("prompt_tokens == {value}: no sequence of this length fits beside the "
                                              "weights.").format(value=prompt))
    run = _batch_throughput(MLPERF_MODEL, gpu, batch, tp, prompt, MLPERF_OUTPUT_TOKENS, share)
    return dict(run, batch=batch, tokens_per_s=run["tokens_per_s"] * gpus)


def _matching_prompt(gpu, gpus, tp, configured, published, share) -> int:
    """The mean prompt length at which the model gives the published throughput (more tokens, less throughput):
    bisection over the benchmark's 1 to 1,024 tokens; 1 or 1,024 where it is outside."""
    low, high = 1, 1024
    while high - low > 1:
        middle = (low + high) // 2
        faster = _mlperf_run(gpu, gpus, tp, configured, middle, share)["tokens_per_s"] > published
        low, high = (middle, high) if faster else (low, middle)
    return low


def mlperf_llama2(prompt_tokens=MLPERF_PROMPT_TOKENS) -> Finding:
    """MLPerf Inference v4.0's Llama-2-70B offline throughput of one node of 8 H100 SXM (4 copies on TP 2) and of 8
    H200 (8 copies on TP 1), FP8, beside the model's at the fitted share and at the pure roofline;
    ``prompt_tokens``: the prompts' mean length (not found in a stored copy)."""
    prompt = v.check_whole("prompt_tokens", prompt_tokens)
    share = _fitted_share()
    rows = []
    for gpu, gpus, tp, configured, samples_per_s, published in MLPERF_LLAMA2_70B:
        fitted = _mlperf_run(gpu, gpus, tp, configured, prompt, share)
        ideal = _mlperf_run(gpu, gpus, tp, configured, prompt, 1.0)
        # the prefill the published time leaves once decoding runs at the roofline, as a share of the FP8 peak
        left = fitted["batch"] * MLPERF_OUTPUT_TOKENS * gpus / (published * tp) - (MLPERF_OUTPUT_TOKENS - 1) * \
            ideal["step_s"]
        rows.append(dict(gpu=hardware.gpu(gpu).name, gpus=gpus, tp=tp, configured_batch=configured,
                         batch=fitted["batch"], published=published, samples_per_s=samples_per_s,
                         model=fitted["tokens_per_s"], roofline=ideal["tokens_per_s"],
                         difference=fitted["tokens_per_s"] / published - 1, ttft_s=fitted["ttft_s"],
                         step_s=fitted["step_s"], bound=fitted["bound"],
                         prefill_share=fitted["ttft_s"] / fitted["total_s"],
                         implied_prefill_efficiency=PREFILL_EFFICIENCY * ideal["ttft_s"] / left if left > 0 else None,
                         matching_prompt_tokens=_matching_prompt(gpu, gpus, tp, configured, published, share)))
    return Finding(dict(prompt_tokens=prompt, output_tokens=MLPERF_OUTPUT_TOKENS, share=share,
                        prefill_efficiency=PREFILL_EFFICIENCY, rows=rows),
                   shown.mlperf_llama2)


def _prefill_rate(gpu, prompt, ep, nodes_per_token=DEEPSEEK_NODES_PER_TOKEN) -> dict:
    """Prompt tokens a second a node of DeepSeek-V3 on expert-parallel prefill: the matmuls at ``PREFILL_EFFICIENCY``
    of the FP8 peak and the attention at that share of the BF16 peak (``MLA_CORE_MATMUL``), or the dispatch and
    combine over InfiniBand if slower (overlapped, as two micro-batches do)."""
    cfg, g = config_from(DEEPSEEK_INFERENCE["model"]), hardware.gpu(gpu)
    attention = prefill_attention_flops_for(cfg, prompt) / prompt
    matmuls = prefill_flops_for(cfg, prompt) / prompt - attention
    seconds = (matmuls / matmul_peak(gpu, "fp8") + attention / matmul_peak(gpu, MLA_CORE_MATMUL)) / PREFILL_EFFICIENCY
    sends = network_sends_per_token(cfg.experts_per_token, ep, g.network.gpus_per_node, nodes_per_token)
    network = g.network.inter_node_bytes_per_s / decode_all_to_all_bytes_per_token(cfg.hidden_size, sends,
                                                                                    cfg.moe_layers)
    node = g.network.gpus_per_node
    return dict(compute=node / seconds, network=network * node, rate=min(1 / seconds, network) * node,
                attention_share=attention / (attention + matmuls))


def _prompt_for_rate(rate, gpu, ep) -> int | None:
    """The mean prompt length at which the model's prefill rate falls to ``rate`` (longer prompts, more attention a
    token), or None if it stays above it up to ``DEEPSEEK_MAX_PROMPT_TOKENS``."""
    low, high = 1, DEEPSEEK_MAX_PROMPT_TOKENS
    if _prefill_rate(gpu, high, ep)["rate"] > rate:
        return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if _prefill_rate(gpu, middle, ep)["rate"] > rate else (low, middle)
    return high


def deepseek_serving(context_tokens=DEEPSEEK_INFERENCE["kv_tokens_per_output_token"], acceptance=MTP_ACCEPTANCE[0],
                     prompt_tokens=DEEPSEEK_PREFILL_PROFILE["prompt_tokens"]) -> Finding:
    """DeepSeek's published throughput per H800 node beside the model's from its published layouts.

    Decode: EP144 (data-parallel attention), FP8, MTP drafting one token at ``acceptance``, each GPU holding the
    sequences its published throughput and its users' speed imply (per-node tokens/s / 8 / users' tokens/s), each
    at ``context_tokens`` (published: 4,989 cached tokens per output token); at the fitted share of the roofline.
    Prefill (``_prefill_rate``, EP32) at ``prompt_tokens`` a prompt (not published; DeepSeek's profile runs 4K),
    against the profiled rate and the production one; with the load share and the mean prompt length that would
    reproduce the production figure."""
    context = v.check_whole("context_tokens", context_tokens)
    acceptance = v.check_number("acceptance", acceptance, low=0, high=1)
    prompt = v.check_whole("prompt_tokens", prompt_tokens)
    run, cfg = DEEPSEEK_INFERENCE, config_from(DEEPSEEK_INFERENCE["model"])
    share, node = _fitted_share(), run["gpus_per_node"]
    users = sum(run["output_tokens_per_s_per_user"]) / 2
    batch = round(run["decode_output_tokens_per_s_per_node"] / node / users)
    spec = speculative_decode(cfg, run["gpu"], acceptance=acceptance, batch=batch, seq_len=context, weights="int8",
                              kv_dtype="bf16", matmul="fp8", routed="batch", ep=run["decode_ep"],
                              roofline_share=share)
    decode_node = spec.tokens_per_s * node
    computed = run["prefill_input_tokens_per_s_per_node"] * (1 - run["cache_hit_share"])
    profile = DEEPSEEK_PREFILL_PROFILE
    at_prompt = _prefill_rate(run["gpu"], prompt, run["prefill_ep"])
    at_profile = _prefill_rate(run["gpu"], profile["prompt_tokens"], profile["ep"])
    day = 86400
    prefill_nodes = run["input_tokens_per_day"] / day / run["prefill_input_tokens_per_s_per_node"]
    decode_nodes = run["output_tokens_per_day"] / day / run["decode_output_tokens_per_s_per_node"]
    return Finding(dict(
        decode_published=run["decode_output_tokens_per_s_per_node"], decode_model=decode_node,
        decode_difference=decode_node / run["decode_output_tokens_per_s_per_node"] - 1,
        users_published=list(run["output_tokens_per_s_per_user"]), users_model=spec.tokens_per_step / spec.step_s,
        batch=batch, context_tokens=context, acceptance=acceptance, share=share, step_s=spec.step_s,
        plain_step_s=spec.plain.step_s, memory_s=spec.plain.memory_s, compute_s=spec.plain.compute_s,
        network_s=spec.verify.network_s, draft_step_s=spec.draft_step_s, tokens_per_step=spec.tokens_per_step,
        prefill_published=run["prefill_input_tokens_per_s_per_node"], cache_hit_share=run["cache_hit_share"],
        prefill_computed_published=computed, prompt_tokens=prompt, prefill_model=at_prompt["rate"],
        prefill_difference=at_prompt["rate"] / computed - 1, prefill_network_rate=at_prompt["network"],
        attention_share=at_prompt["attention_share"], prefill_efficiency=PREFILL_EFFICIENCY,
        profile_published=profile["tokens_per_s_per_node"], profile_model=at_profile["rate"],
        profile_difference=at_profile["rate"] / profile["tokens_per_s_per_node"] - 1,
        profile_prompt_tokens=profile["prompt_tokens"],
        production_over_profile=computed / profile["tokens_per_s_per_node"],
        load_share=computed / at_prompt["rate"],
        matching_prompt_tokens=_prompt_for_rate(computed, run["gpu"], run["prefill_ep"]),
        prefill_nodes=prefill_nodes, decode_nodes=decode_nodes, average_nodes=run["average_nodes"]),
        shown.deepseek_serving)


def sglang_deepseek() -> Finding:
    """LMSYS's SGLang benchmark of DeepSeek-V3 on H100 SXM nodes beside the model from its published setup: prefill
    on EP32 at 1K, 2K and 4K prompts (``_prefill_rate``), decode on EP72 at 256 sequences a GPU of 2,000 cached
    tokens (``decode_step``, FP8 matmuls, BF16 cache, the routed experts the batch picks, at the fitted share)."""
    run, share = SGLANG_DEEPSEEK, _fitted_share()
    node = run["gpus_per_node"]
    prefill = []
    for prompt, published in run["prefill"]:
        model = _prefill_rate(run["gpu"], prompt, run["prefill_ep"])["rate"]
        prefill.append(dict(prompt_tokens=prompt, published=published, model=model, difference=model / published - 1))
    step = decode_step(run["model"], run["gpu"], batch=run["decode_batch"], seq_len=run["decode_kv_tokens"],
                       weights="int8", kv_dtype="bf16", matmul="fp8", routed="batch", ep=run["decode_ep"],
                       roofline_share=share)
    decode = step.tokens_per_s * node
    published = run["decode_output_tokens_per_s_per_node"]
    return Finding(dict(
        prefill=prefill, balanced_published=run["prefill_balanced_4k"],
        balanced_difference=prefill[-1]["model"] / run["prefill_balanced_4k"] - 1,
        prefill_efficiency=PREFILL_EFFICIENCY, share=share, decode_published=published, decode_model=decode,
        decode_difference=decode / published - 1, decode_batch=run["decode_batch"],
        decode_kv_tokens=run["decode_kv_tokens"], decode_ep=run["decode_ep"], prefill_ep=run["prefill_ep"],
        step_s=step.step_s, implied_step_s=run["decode_batch"] * node / published, memory_s=step.memory_s,
        compute_s=step.compute_s, network_s=step.network_s, bound=step.bound), shown.sglang_deepseek)


def mtp_speedup(acceptances=MTP_ACCEPTANCE, batch=16, context_tokens=DEEPSEEK_INFERENCE["kv_tokens_per_output_token"]
                ) -> Finding:
    """DeepSeek-V3's published 1.8× decoding speed from its MTP module's 85-90% second-token acceptance: the tokens
    a step at each end (1 + α), the step's cost that the 1.8× implies, and the model's speed-up on the EP144 decode
    layout at ``batch`` sequences a GPU (FP8, at the pure roofline)."""
    batch, context_tokens = v.check_whole("batch", batch), v.check_whole("context_tokens", context_tokens)
    rows = []
    for i, alpha in enumerate(v.check_list("acceptances", acceptances, N_("acceptance rates"))):
        alpha = v.check_number(f"acceptances[{i}]", alpha, low=0, high=1)
        spec = speculative_decode("deepseek-v3", "H800", acceptance=alpha, batch=batch, seq_len=context_tokens,
                                  weights="int8", kv_dtype="bf16", matmul="fp8", routed="batch",
                                  ep=DEEPSEEK_INFERENCE["decode_ep"])
        rows.append(dict(acceptance=alpha, tokens_per_step=tokens_per_step(alpha, 1),
                         implied_step_cost=step_cost_for_speedup(alpha, 1, MTP_SPEEDUP), model_speedup=spec.speedup,
                         model_step_cost=spec.step_s / spec.plain.step_s,
                         difference=spec.speedup / MTP_SPEEDUP - 1))
    return Finding(dict(published=MTP_SPEEDUP, batch=batch, context_tokens=context_tokens, rows=rows),
                   shown.mtp_speedup)
