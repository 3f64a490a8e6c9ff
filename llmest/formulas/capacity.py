"""Capacity formulas for serving: tensor parallelism's all-reduces in a decode step, a step that carries decodes and a
chunk of prompt (chunked prefill), the wait for a busy server, Little's law, the share of a prompt a prefix cache
spares, and the KV cache sent from a prefill GPU to a decode GPU.

Formulas use only + - * / and work on numbers, NumPy arrays and SymPy symbols; the decisions built on them (the
largest batch that meets a target, the replicas for a load) are in ``llmest.plans.capacity_plan``.
"""

from __future__ import annotations

from ..core import _validate as v
from .comm import all_reduce_bytes, ring_steps

# How each name of these formulas is checked, where the package's common rules do not already say.
_RULES = {**{name: v.check_positive for name in ("link_bytes_per_s", "service_s", "time_in_system_s", "concurrency")},
          **{name: v.check_nonnegative for name in ("latency_s", "base_latency_s", "step_latency_s", "decode_flops",
                                                     "prefill_flops", "all_reduce_s", "wait_budget_s")},
          "utilisation": v.check_margin, "prefix_hit_rate": v.check_margin}


@v.checked(**_RULES)
def all_reduce_latency_seconds(tp, base_latency_s, step_latency_s):
    """A ring all-reduce's fixed cost, as NCCL's tuning model writes it: a base latency once, and a link's latency
    for each of its 2(tp − 1) steps (``comm.ring_steps``); none for a group of one."""
    return (base_latency_s + ring_steps(tp, True) * step_latency_s) * (tp - 1) / (tp - 1 + 1e-300)


@v.checked(**_RULES)
def decode_all_reduce_seconds(tokens, hidden, layers, tp, link_bytes_per_s, latency_s, bytes_per_value=2,
                              all_reduces=2):
    """Tensor parallelism's collectives in one forward step of ``tokens`` tokens (the batch's decodes, and a
    prompt chunk's tokens if the step carries one): each layer all-reduces its tokens × hidden output after the
    attention and after the FFN (Megatron-LM, Shoeybi et al. 2019: 2 all-reduces a layer forward), each sending
    2(tp − 1)/tp of its bytes from every GPU over the link (``comm.all_reduce_bytes``) and costing ``latency_s``
    however small it is: layers · all_reduces · (bytes / link + latency). They sit between a layer's matmuls, on
    the critical path, so they add to the step's roofline time."""
    size = tokens * hidden * bytes_per_value
    return layers * all_reduces * (all_reduce_bytes(size, tp) / link_bytes_per_s + latency_s)


@v.checked(**_RULES)
def chunked_step_seconds(weight_bytes, kv_bytes, decode_flops, prefill_flops, bandwidth_bytes_per_s,
                         peak_flops_per_s, prefill_efficiency, all_reduce_s=0):
    """One step of continuous batching with chunked prefill (Sarathi-Serve, Agrawal et al. 2024): the batch's
    decodes and a chunk of prompt tokens in one forward pass. It reads the weights and the decodes' KV cache once
    (``weight_bytes`` + ``kv_bytes``), and does the decodes' FLOPs at the peak and the chunk's at
    ``prefill_efficiency`` of it, as the serving plan times TPOT and TTFT; whichever takes longer bounds it (a
    roofline), and the tensor-parallel all-reduces add to it. With no chunk it is the decode step
    (``compute.decode_step_seconds`` plus the all-reduces)."""
    memory = (weight_bytes + kv_bytes) / bandwidth_bytes_per_s
    compute = decode_flops / peak_flops_per_s + prefill_flops / (peak_flops_per_s * prefill_efficiency)
    return (memory + compute + abs(memory - compute)) / 2 + all_reduce_s


@v.checked(**_RULES)
def queue_wait_seconds(service_s, utilisation):
    """The mean wait for a server busy ``utilisation`` of the time, each job taking ``service_s``, jobs arriving at
    random (Poisson): W = ρ · S / (2 · (1 − ρ)), the Pollaczek-Khinchine formula for an M/D/1 queue (Kleinrock,
    Queueing Systems Vol. 1, 1975, §5.7). It grows without bound as ρ nears 1."""
    return utilisation * service_s / (2 * (1 - utilisation))


@v.checked(**_RULES)
def utilisation_for_wait(wait_budget_s, service_s):
    """The reverse of ``queue_wait_seconds``: the highest utilisation at which the mean wait stays within
    ``wait_budget_s``: ρ = 2W / (S + 2W)."""
    return 2 * wait_budget_s / (service_s + 2 * wait_budget_s)


@v.checked(**_RULES)
def little_rate(concurrency, time_in_system_s):
    """Little's law (Little 1961), L = λ · W, read for the rate: requests a second that a server holding
    ``concurrency`` of them at once, each for ``time_in_system_s``, completes: λ = L / W."""
    return concurrency / time_in_system_s


@v.checked(**_RULES)
def little_concurrency(requests_per_s, time_in_system_s):
    """Little's law read for the concurrency: the requests in the system at once, L = λ · W."""
    return requests_per_s * time_in_system_s


@v.checked(**_RULES)
def uncached_prompt_tokens(prompt_tokens, prefix_hit_rate):
    """The prompt tokens a prefill must still compute when a prefix cache holds ``prefix_hit_rate`` of each
    prompt's tokens (vLLM's automatic prefix caching, SGLang's RadixAttention): P · (1 − h). Their attention still
    reads the cached keys; only the cached tokens' own FLOPs are spared."""
    return prompt_tokens * (1 - prefix_hit_rate)


@v.checked(**_RULES)
def kv_transfer_seconds(kv_bytes, gpus, link_bytes_per_s):
    """Sending a request's KV cache from the prefill GPUs to the decode GPUs (prefill/decode disaggregation:
    DistServe, Zhong et al. 2024; Splitwise, Patel et al. 2024): each of the ``gpus`` holding a share sends it
    through its own port: bytes / (gpus · link)."""
    return kv_bytes / (gpus * link_bytes_per_s)
