"""The assumptions of the layout search's step-time model, each a named constant with where it was read, and the
two fitted to published runs (``MATMUL_EFFICIENCY``; ``llmest.plans.published_layouts.fit`` refits them and a test holds
these values to the fit)."""

from __future__ import annotations

from ..catalog import hardware
from ..core._validate import lookup

# The share of a link's speed that NCCL's collectives reach ("bus bandwidth"). NVLink 4: "450GB/s is the line rate.
# With the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s" (NVIDIA, nccl-tests issue
# 212); taken as the same share of every NVLink and PCIe fabric. A 400 Gb/s port: "For NDR @ 400Gbps you should see
# 46-48GB/s per NIC" (NVIDIA, nccl-tests issue 290): 47 of 50 GB/s, for every network.
NVLINK_EFFICIENCY = 370 / 450
NETWORK_EFFICIENCY = 47 / 50

# NCCL's own latency model for large messages (the Simple protocol; src/graph/tuning.cc, NCCL 2.30): a collective
# costs a base latency once, and each step of its ring or tree a hardware latency, 3.4 µs over NVLink and 14 µs over
# the network; a tree all-reduce takes 2 · ((k − 1) steps in a node + log2(nodes) across them).
NCCL_BASE_LATENCY_S = 8.4e-6
NVLINK_STEP_LATENCY_S = 3.4e-6
NETWORK_STEP_LATENCY_S = 14e-6

# A matmul's time is its FLOPs at the efficiency below plus a fixed cost: 6 µs, fitted (with an 80% ceiling) to
# XLA's table of measured H100 bf16 matmuls, eight shapes from 512³ to 4096³ (within 3% but for the 1024-row and
# 256-deep shapes; openxla xla/service/gpu/model/matmul_interpolator_data.h, "sm_90"). It is what makes a thin
# context-parallel chunk or a narrow tensor-parallel slice slower than a wide one.
MATMUL_OVERHEAD_S = 6e-6
# Matmuls a layer runs per micro-batch: four forward (QKV, attention output, the FFN's fused up and gate, its down
# projection, as Megatron-Core fuses them) and two backward for each (input and weight gradients); full
# recomputation runs the four forward ones again.
MATMULS_PER_LAYER = 12

# The share of the dense peak that a layer's work reaches, before any fixed cost, bubble or communication: fitted to
# one published run per GPU generation (``llmest.published_layouts.FITTED_TO``) and held out from the others. GPUs of
# a generation no run calibrates take ``UNCALIBRATED_EFFICIENCY``, an assumption the reader sets.
MATMUL_EFFICIENCY = {"Ampere": 0.7206, "Hopper": 0.5825}
UNCALIBRATED_EFFICIENCY = 0.5
GENERATION = {"A100 80GB": "Ampere", "A100 40GB": "Ampere", "A800 80GB": "Ampere", "H100 SXM": "Hopper",
              "H100 PCIe": "Hopper", "H100 NVL": "Hopper", "H800": "Hopper", "H200": "Hopper", "H200 NVL": "Hopper",
              "H20": "Hopper"}

# The communication that runs beside the compute and can hide behind it (``overlap`` of it at most): the data-
# parallel gradients and weights (Megatron-Core's overlap_grad_reduce, "overlap grad all-reduce / reduce-scatter with
# backward compute", and overlap_param_gather), ring attention's sends ("P2P is async and can be overlapped with
# attention compute", its cp_comm_type) and the pipeline's sends ("PP (enabled by default)", its README). Tensor- and
# expert-parallel collectives sit between a layer's matmuls, on the critical path (tp_comm_overlap is off by
# default).
HIDDEN_KINDS = ("dp_s", "cp_s", "pp_s")


# Expert parallelism, shared by the layout search and plans.moe_plan.
# DeepSeek-V3 §3.2.2 and §3.5.1: the all-to-all kernels run on "20 out of the 132 SMs available in the H800 GPU"
# while the computation runs on the rest (their figure; the H100 SXM has the same 132, NVIDIA's H100 whitepaper).
COMMUNICATION_SMS = 20
GPU_SMS = 132

# The rate of the blocks' matmuls under the precision recipe, and of the BF16 work (attention, output head, router):
# ``precision_time.low_precision_efficiency`` of the recipe's peak (or ``low_efficiency``), and the fitted BF16
# efficiency of the GPU's generation (``MATMUL_EFFICIENCY``), each the share of the peak a layer's work reaches, its
# other kernels included.
#
# DeepSeek-V3's own FP8 kernels, for its run: DeepGEMM's first README (deepseek-ai/DeepGEMM, 2025) gives TFLOPS of
# V3's shapes at 4,096 tokens on H800 and DeepGEMM's speedup over "our internally and carefully optimized
# implementation based on CUTLASS 3.6" (taken as the kernels the run trained with: an assumption). (N, K, TFLOPS,
# speedup, matrices of the shape a MoE layer's token passes through): MLA's down projections (fused), its query and
# key-value up projections, its output projection, the shared expert's gate-and-up and down, and the routed experts'
# (4 groups of 8,192 tokens: 4 experts a GPU at EP 64) for its 8 experts.
DEEPGEMM_H800 = ((2112, 7168, 1058, 1.1, 1), (24576, 1536, 990, 1.0, 1), (32768, 512, 590, 1.0, 1),
                 (7168, 16384, 1358, 1.2, 1), (4096, 7168, 1304, 1.1, 1), (7168, 2048, 1025, 1.1, 1),
                 (4096, 7168, 1297, 1.2, 8), (7168, 2048, 1099, 1.2, 8))
# Each shape's FLOPs over its time: 1,020 TFLOPS, the GEMMs alone. A layer's other kernels (norms, activations,
# casts) take the time per FLOP they take in the run the Hopper BF16 efficiency is fitted to: 1/(0.5825 of the BF16
# peak) less 1/(the 80% matmul ceiling ``MATMUL_OVERHEAD_S`` was fitted with). Together: 0.348 of the
# H800's 1,979 TFLOPS FP8 peak (689 TFLOPS of a layer's work), against the 0.438 that precision_time fits to
# Transformer Engine's per-tensor FP8 (NVIDIA's Llama 3.1 70B pair): fine-grained scaling costs GEMM speed.
_H800 = (989.4e12, 1979e12, 0.5825, 0.8)    # BF16 and FP8 peaks, fitted Hopper efficiency, matmul ceiling
_GEMM_FLOPS_PER_S = sum(n * k * c for n, k, _t, _s, c in DEEPGEMM_H800) / sum(
    n * k * c / (t * 1e12 / s) for n, k, t, s, c in DEEPGEMM_H800)
DEEPSEEK_FP8_EFFICIENCY = 1 / (_H800[1] * (1 / _GEMM_FLOPS_PER_S + 1 / (_H800[2] * _H800[0])
                                           - 1 / (_H800[3] * _H800[0])))

# The busiest GPU's routed tokens over the mean, per micro-batch and layer: not published for DeepSeek-V3. Assumed
# 1.1: between perfect balance (Megatron-Core's published MoE benchmarks force it: "we force-balance the token
# distribution among experts", Megatron-Bridge docs/performance-summary.md) and the capacity factor of 1.25 Switch
# Transformer trained with (Fedus et al. 2021, arXiv 2101.03961 §2.2), over the 4 experts a GPU holds; DeepSeek-V3
# balances by a bias on each expert's score and drops no token (§2.1.2).
IMBALANCE = 1.1

# DeepSeek-V3 §2.1.2: "each token will be sent to at most M nodes", M = 4. DeepEP (deepseek-ai/DeepEP, its V1 docs)
# measured 50-51 GB/s a GPU over the network at EP 64 with FP8 dispatch and BF16 combine, and 153-158 GB/s over
# H800 NVLink within a node; the catalog's H800 row at the workbook's link efficiencies gives 47 and 164.
NODES_PER_TOKEN = 4


def matmul_efficiency(gpu_name: str) -> float:
    """The fitted efficiency for the generation of a GPU of the catalog (by its name, in any case and spacing), or
    ``UNCALIBRATED_EFFICIENCY`` for a GPU of a generation no run calibrates."""
    name = lookup("gpu_name", gpu_name, hardware.CATALOG).name
    return MATMUL_EFFICIENCY.get(GENERATION.get(name), UNCALIBRATED_EFFICIENCY)
