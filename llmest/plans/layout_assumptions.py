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


def matmul_efficiency(gpu_name: str) -> float:
    """The fitted efficiency for the generation of a GPU of the catalog (by its name, in any case and spacing), or
    ``UNCALIBRATED_EFFICIENCY`` for a GPU of a generation no run calibrates."""
    name = lookup("gpu_name", gpu_name, hardware.CATALOG).name
    return MATMUL_EFFICIENCY.get(GENERATION.get(name), UNCALIBRATED_EFFICIENCY)
