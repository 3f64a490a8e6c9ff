"""The assumptions of the serving capacity plan (``capacity_plan``) and of decode's tensor-parallel all-reduce
(``serving_plan.decode_estimate(all_reduce=True)``), each a named constant with where it was read."""

from __future__ import annotations

from ..catalog import hardware
from ..core import _validate as v
from ..core.i18n import _
from ..formulas.capacity import all_reduce_latency_seconds
from .layout_assumptions import NVLINK_EFFICIENCY

# A decode step's all-reduces are small (batch × hidden × 2 bytes: 16 KiB to a few MiB), so NCCL runs them with its
# low-latency protocol (LL) on a ring. NCCL's tuning model (src/graph/tuning.cc, baseLatencies and hwLatencies,
# NCCL 2.19 and later) costs that 6.6 µs once and 0.6 µs for each of the ring's 2(tp − 1) steps over NVLink: 10.2 µs
# for 4 GPUs. The layout search's large training messages take the Simple protocol's 8.4 and 3.4 µs instead
# (``layout_assumptions``). Custom one-shot kernels (vLLM's custom all-reduce, TensorRT-LLM's MultiShot) do better
# on NVSwitch: this is the library-default cost, an upper end.
LL_BASE_LATENCY_S = 6.6e-6
LL_NVLINK_STEP_LATENCY_S = 0.6e-6

# The tokens one step of continuous batching carries at most, its decodes and a chunk of prompt together: vLLM's
# max_num_batched_tokens. vLLM V1 always chunks prefills, schedules every running decode first and fills the rest of
# this budget with prompt chunks; its guide takes 2048 as the example of a small budget that keeps inter-token latency
# low and recommends more than 8192 for throughput (docs/configuration/optimization.md, "Performance Tuning with
# Chunked Prefill"). Sarathi-Serve (Agrawal et al. 2024, arXiv 2403.02310) calls it the token budget.
CHUNK_TOKENS = 2048

# A request holds its place in the running batch for O steps: the step of its last prompt chunk, which gives its
# first token, and O − 1 decodes (Little's law then gives the rate: batch / (O · TPOT)). A request arriving at a
# random moment waits on average half a step for the next to start. Its KV cache is kept for P + O tokens in whole
# blocks (the serving plan's max_batch), the largest it grows to: a little conservative.
ARRIVAL_WAIT_STEPS = 0.5

# Tensor-parallel sizes the plan searches when none is given: powers of two up to the GPU's scale-up domain
# (Network.gpus_per_node: 8 in an HGX server), as serving engines split a model within one NVLink domain.
TP_CHOICES = (1, 2, 4, 8, 16, 32, 64, 72)


def tp_link(gpu, tp):
    """The link a tensor-parallel group's all-reduce runs on and its latency: NVLink at NCCL's bus-bandwidth share
    (``NVLINK_EFFICIENCY``) within the scale-up domain, with the LL protocol's latency; refused past the domain (the
    serving plans keep a tensor-parallel group on one node) or for a GPU with no network listed."""
    gpu = hardware.gpu(gpu)
    v.check_whole("tp", tp)
    network = gpu.network
    if network is None:
        raise v.InputError("gpu", _("{gpu} has no interconnect listed, so its tensor-parallel all-reduce cannot be "
                                    "timed: give a GPU of the catalog.").format(gpu=gpu.name or _("this GPU")))
    if tp > network.gpus_per_node:
        raise v.InputError("tp", _("tp == {tp}, must be <= {domain}: the all-reduce of decode is modelled within "
                                   "one scale-up domain ({domain} {gpu} on NVLink).").format(
            tp=tp, domain=network.gpus_per_node, gpu=gpu.name))
    latency = all_reduce_latency_seconds(tp, LL_BASE_LATENCY_S, LL_NVLINK_STEP_LATENCY_S) if tp > 1 else 0.0
    return network.intra_node_bytes_per_s * NVLINK_EFFICIENCY, latency
