"""Published serving measurements, as data, each with its setup and its source: the reality checks of the serving
model (``plans.findings.serving``) hold the model's figure beside each.

Weights and activations in FP8 take one byte a parameter, as ``weights="int8"`` counts them (the workbook's weight
formats name bytes; an FP8 checkpoint and an INT8 one are the same size).
"""

from __future__ import annotations

from ..core.i18n import N_

# DeepSeek, "Day 6: One More Thing, DeepSeek-V3/R1 Inference System Overview" (github.com/deepseek-ai/open-infra-index,
# 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md, 2025-03-01): "Prefilling
# Phase [Routed Expert EP32, MLA/Shared Expert DP32]: Each deployment unit spans 4 nodes with 32 redundant routed
# experts, where each GPU handles 9 routed experts and 1 shared expert. Decoding Phase [Routed Expert EP144,
# MLA/Shared Expert DP144]: Each deployment unit spans 18 nodes with 32 redundant routed experts, where each GPU
# manages 2 routed experts and 1 shared expert." Over 24 hours (UTC+8 2025-02-27 12:00 to 02-28 12:00): "Total input
# tokens: 608B, of which 342B tokens (56.3%) hit the on-disk KV cache. Total output tokens: 168B. The average output
# speed was 20-22 tokens per second, and the average kvcache length per output token was 4,989 tokens. Each H800
# node delivers an average throughput of ~73.7k tokens/s input (including cache hits) during prefilling or ~14.8k
# tokens/s output during decoding." "the combined peak node occupancy for V3 and R1 inference services reached 278,
# with an average occupancy of 226.75 nodes"; "matrix multiplications and dispatch transmissions adopt the FP8
# format ... while core MLA computations and combine transmissions use the BF16 format". The per-node figures are
# day totals over node-seconds: 608e9 / 86,400 / 73.7e3 = 95.5 prefill nodes and 168e9 / 86,400 / 14.8e3 = 131.4
# decode nodes, 226.9 together, the published average occupancy (tests/test_findings_serving.py).
DEEPSEEK_INFERENCE = dict(
    model="deepseek-v3", gpu="H800", gpus_per_node=8, prefill_ep=32, decode_ep=144,
    prefill_input_tokens_per_s_per_node=73.7e3, cache_hit_share=0.563, decode_output_tokens_per_s_per_node=14.8e3,
    output_tokens_per_s_per_user=(20, 22), input_tokens_per_day=608e9, output_tokens_per_day=168e9,
    kv_tokens_per_output_token=4989, average_nodes=226.75, peak_nodes=278,
    source=N_("DeepSeek, open-infra-index Day 6, DeepSeek-V3/R1 Inference System Overview (2025-03-01)"))

# DeepSeek's profiled prefill (github.com/deepseek-ai/profile-data, README.md): "the profile employs EP32 and TP1 (in
# line with DeepSeek V3/R1 's actual online deployment), with a prompt length set to 4K and a batch size of 16K
# tokens per GPU"; "we simulate an absolutely balanced MoE routing strategy for profiling". Its throughput, 62,713
# tokens/s a node, is read off that trace by LMSYS (the SGLang blog below, "Overall Throughput": "DeepSeek Profile
# ... Input Length 4,096 ... Throughput (per node) 62,713"; "DeepSeek's profile reports a throughput roughly twice
# that of its production environment").
DEEPSEEK_PREFILL_PROFILE = dict(prompt_tokens=4096, tokens_per_gpu=16384, ep=32, tokens_per_s_per_node=62713,
                                source=N_("DeepSeek profile-data (prefill trace, EP32, 4K prompts, balanced "
                                          "routing), its throughput as LMSYS reads it (2025-05-05)"))

# LMSYS, "Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs" (The SGLang
# Team, 2025-05-05; lm-sys/lm-sys.github.io, blog/2025-05-05-large-scale-ep.md), DeepSeek-V3 on H100 SXM nodes of 8,
# each phase measured alone ("assuming unlimited resources for the non-tested phase"): "Prefill Phase: On 4 nodes
# (4x8xH100, EP32), the system achieved per-node throughputs of 57,674, 54,543, and 50,302 tokens per second for
# prompt lengths of 1K, 2K, and 4K"; "Decode Phase: Evaluated on 9 nodes (9x8xH100, EP72 ...), the system achieved
# 22,282 tokens/sec per node for 2K inputs", its table: "Batch Size 256, KV Cache Length 2,000, Number of Nodes 9".
# Prefill ran 16,384 tokens a GPU ("a scenario with 16,384 tokens per device"); "SGLang with default expert
# imbalance is 20% slower than DeepSeek's profile, while the simulated perfect EPLB case narrows the gap to 5%"
# (59,337 a node at 4K). DeepGEMM's FP8 matmuls (weights in FP8), DP attention, DeepEP's dispatch and combine.
SGLANG_DEEPSEEK = dict(
    model="deepseek-v3", gpu="H100 SXM", gpus_per_node=8, prefill_ep=32, prefill_tokens_per_gpu=16384,
    prefill=((1024, 57674), (2048, 54543), (4096, 50302)), prefill_balanced_4k=59337,
    decode_ep=72, decode_batch=256, decode_kv_tokens=2000, decode_output_tokens_per_s_per_node=22282,
    source=N_("LMSYS, SGLang: DeepSeek with PD disaggregation and large-scale EP on 96 H100 GPUs (2025-05-05)"))

# MLPerf Inference v4.0, closed division, NVIDIA, llama2-70b-99.9, Offline (github.com/mlcommons/
# inference_results_v4.0, closed/NVIDIA/results/<system>/llama2-70b-99.9/Offline/performance/run_1/
# mlperf_log_summary.txt): DGX-H100_H100-SXM-80GBx8_TRT "Samples per second: 74.699 / Tokens per second: 21805.8";
# H200-SXM-141GBx8_TRT "Samples per second: 94.6223 / Tokens per second: 27738.3" (systems/*.json:
# "accelerators_per_node": 8, "number_of_nodes": 1). NVIDIA's configuration (closed/NVIDIA/configs/llama2-70b/
# Offline/__init__.py): H100_SXM_80GB_TP2x4 "gpu_batch_size = 896", "use_fp8 = True", "tensor_parallelism = 2" (four
# copies on 8 GPUs); H200_SXM_141GBx8 "gpu_batch_size = 806", "tensor_parallelism = 1" (eight copies); both
# "kvcache_free_gpu_mem_frac = 0.90"; engines "--max_input_len=1024", "--max_output_len=1024", paged KV cache
# (code/llama2-70b/tensorrt/builder.py). The reference's outputs average 294.45 tokens a sample (mlcommons/inference,
# language/llama2-70b/README.md, "Tokens per sample: 294.45"); these runs', 21805.8 / 74.699 = 291.9 and 27738.3 /
# 94.6223 = 293.1. The prompts' mean length is in no stored copy (the README gives the 1,024-token cap and 24,576
# samples only): MLPERF_PROMPT_TOKENS is recalled and the finding shows the length at which the model matches.
# Rows: (GPU, GPUs, tp, largest batch configured, samples/s, tokens/s).
MLPERF_LLAMA2_70B = (("H100 SXM", 8, 2, 896, 74.699, 21805.8), ("H200", 8, 1, 806, 94.6223, 27738.3))
MLPERF_MODEL = "llama-2-70b"
MLPERF_OUTPUT_TOKENS = 292
MLPERF_SOURCE = N_("MLPerf Inference v4.0 closed, NVIDIA, Llama-2-70B 99.9%, Offline, one node of 8 GPUs, "
                   "TensorRT-LLM FP8")
MLPERF_PROMPT_TOKENS = 684   # recalled, not found in a stored copy: check before relying on it

# TensorRT-LLM, docs/source/blogs/H200launch.md (NVIDIA, 2023-11), "H200 FP8 Max throughput", Llama-2-70B rows of the
# table "Model | Batch Size(1) | TP(2) | Input Length | Output Length | Throughput (out tok/s/GPU)": "llama_70b | 512 |
# 1 | 128 | 128 | 3,014", "| 512 | 2 | 128 | 2048 | 1,654", "| 64 | 1 | 2048 | 128 | 341", "| 32 | 1 | 2048 | 128 |
# 303"; "(1) Largest batch supported on given TP configuration by power of 2"; "Preliminary measured performance,
# subject to change. TensorRT LLM v0.5.0, TensorRT v9.1.0.4 | H200, H100 FP8." The throughput is output tokens a
# second a GPU: "out_tps=output_seqlen*batch_size/total_latency/tp" (docs/source/blogs/XQA-kernel.md).
# Rows: (batch, tp, input tokens, output tokens, output tokens/s a GPU).
TRTLLM_H200_LLAMA_70B = ((512, 1, 128, 128, 3014), (512, 2, 128, 2048, 1654), (64, 1, 2048, 128, 341),
                         (32, 1, 2048, 128, 303))
TRTLLM_H200_SOURCE = N_("TensorRT-LLM v0.5.0 H200 launch blog (NVIDIA, 2023-11), H200 FP8 max throughput, "
                        "Llama-2-70B, output tokens/s a GPU")
# The row the roofline share is fitted to (the rest are held out): the largest batch, shortest sequences.
FITTED_ROW = 0
# TensorRT-LLM v0.5.0 predates XQA, its generation-phase kernel for grouped-query attention (XQA-kernel.md: "XQA
# kernel provides optimization for MQA and GQA during generation phase ... reducing data loading"; "included in the
# v0.8 releases"; Llama-70B on one H200, 128 in, 2,048 out: 1,227 output tokens/s a GPU without XQA, 2,941 with,
# "2.4x"). Without it the cache is read once per query head, not once per key-value head: n_heads / n_kv_heads
# times the bytes (8 for Llama-2-70B), the finding's "without XQA" column.
TRTLLM_XQA_H200 = dict(prompt_tokens=128, output_tokens=2048, gpus=1, without_xqa=1227, with_xqa=2941,
                       source=N_("TensorRT-LLM XQA kernel blog (NVIDIA, 2024-01), Llama-70B on H200"))
