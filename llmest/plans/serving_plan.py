"""The serving plan: decode speed on a roofline (``decode_estimate``), and with it the memory per GPU, whether it
fits, the price of a million generated tokens, and the GPUs and dollars a month for a request rate
(``estimate_serving``)."""

from __future__ import annotations

from dataclasses import dataclass

from .. import _validate as v
from .. import hardware
from ..compute import cost_per_million_tokens, decode_step_seconds, flops_params, gpus_for_request_rate
from ..memory import MEMORY_MARGIN, kv_cache_bytes_for, model_weight_bytes
from ..model import config_from
from ..units import HOURS_PER_MONTH
from .memory_plan import MemoryBreakdown, check_parallel, inference_memory, usable_bytes


@dataclass(frozen=True)
class DecodeEstimate:
    step_seconds: float
    memory_seconds: float
    compute_seconds: float
    tokens_per_s: float
    bound: str          # "memory" or "compute"
    gpus: int


@v.checked(**v.WHOLE)
def decode_estimate(model, gpu, batch=1, seq_len=2048, weights="bf16", tp=1) -> DecodeEstimate:
    """Decode speed of a real model on tensor-parallel GPUs of a kind: weights and KV cache are split over tp GPUs,
    so each step reads 1/tp of them per GPU and does 1/tp of the FLOPs."""
    cfg = config_from(model)
    check_parallel(cfg, 1, tp, 1, 0)
    g = hardware.gpu(gpu)
    weight_bytes = model_weight_bytes(cfg, weights) / tp
    kv_bytes = kv_cache_bytes_for(cfg, seq_len, batch) / tp
    n = flops_params(cfg) / tp
    memory_s = (weight_bytes + kv_bytes) / g.bandwidth_bytes_per_s
    compute_s = 2 * n * batch / g.bf16_flops_per_s
    step = decode_step_seconds(weight_bytes, kv_bytes, n, batch, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)
    return DecodeEstimate(step, memory_s, compute_s, batch / step, "memory" if memory_s >= compute_s else "compute",
                          tp)


@dataclass(frozen=True)
class ServingEstimate:
    """Serving a model on tp GPUs: decode speed, memory per GPU against the usable memory, and the price."""

    decode: DecodeEstimate
    memory: MemoryBreakdown
    usable_bytes: float
    margin: float
    price_per_gpu_hour: float
    usd_per_million_tokens: float

    @property
    def fits(self) -> bool:
        return self.memory.total <= self.usable_bytes

    def gpus_for(self, requests_per_s, new_tokens_per_request) -> int:
        """GPUs that sustain a request rate: replicas of ``decode.gpus`` GPUs enough to produce its tokens."""
        return gpus_for_request_rate(requests_per_s, new_tokens_per_request, self.decode.tokens_per_s, self.decode.gpus)

    def monthly_cost(self, gpus) -> float:
        """Dollars a month for ``gpus`` GPUs rented around the clock at this estimate's price."""
        v.check_int("gpus", gpus)
        return gpus * self.price_per_gpu_hour * HOURS_PER_MONTH

    def new_tokens_per_request(self, requests_per_s, usd_per_month) -> float:
        """The reverse: new tokens per request that a monthly budget sustains at a request rate."""
        v.check_positive("requests_per_s", requests_per_s)
        v.check_positive("usd_per_month", usd_per_month)
        gpus = usd_per_month / self.price_per_gpu_hour / HOURS_PER_MONTH
        return gpus / self.decode.gpus * self.decode.tokens_per_s / requests_per_s


@v.checked(**v.WHOLE)
def estimate_serving(model, gpu="A100 80GB", *, batch=1, seq_len=2048, weights="bf16", tp=1,
                     price_per_gpu_hour=None, margin=MEMORY_MARGIN) -> ServingEstimate:
    """Decode speed (``decode_estimate``), memory per GPU (``inference_memory``) and whether it fits ``gpu`` with
    ``margin`` kept free, and dollars per million generated tokens at ``price_per_gpu_hour`` (default: the GPU's
    listed price, ``hardware.PRICE_PER_GPU_HOUR``)."""
    decode = decode_estimate(model, gpu, batch=batch, seq_len=seq_len, weights=weights, tp=tp)
    price = hardware.price_per_gpu_hour(gpu) if price_per_gpu_hour is None else \
        v.check_number("price_per_gpu_hour", price_per_gpu_hour, low=0)
    memory = inference_memory(model, weights=weights, seq_len=seq_len, batch=batch, tp=tp)
    return ServingEstimate(decode, memory, usable_bytes(gpu, margin), margin, price,
                           cost_per_million_tokens(price, tp, decode.tokens_per_s))
