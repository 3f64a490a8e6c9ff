"""The serving plan: decode speed on a roofline (``decode_estimate``), and with it the memory per GPU, whether it
fits, the price of a million generated tokens, and the GPUs and dollars a month for a request rate
(``estimate_serving``); and a request from prompt to last token (``estimate_request``): the time to the first token,
the time per output token, the largest batch a paged KV cache leaves room for, and the price of input and output."""

from __future__ import annotations

from dataclasses import dataclass

from ..core import _validate as v
from ..core.i18n import _
from ..catalog import hardware
from ..formulas.compute import (cost_per_million_tokens, decode_attention_flops_for, decode_step_seconds, flops_params,
                                gpus_for_request_rate, prefill_flops_for, prefill_seconds)
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.kv_cache import (BLOCK_TOKENS, BYTES_PER_VALUE, kv_blocks, paged_tokens,
                                 sequences_that_fit)
from ..formulas.memory import MEMORY_MARGIN, RUNTIME_OVERHEAD_BYTES, kv_cache_bytes_for, model_weight_bytes
from ..core.report import Report, Shows
from ..display.serving import decode_report, request_report, serving_report
from ..formulas.model import config_from
from ..core.units import HOURS_PER_MONTH
from ..formulas.capacity import decode_all_reduce_seconds
from .capacity_assumptions import tp_link
from .memory_plan import MemoryBreakdown, check_parallel, inference_memory, usable_bytes

# The share of the peak that prompt processing reaches, unless the reader sets one: the MFU that chapter 3 and
# `llmest time` take by default, the low end of the material's 40-60% (seed 004 §3.2).
PREFILL_EFFICIENCY = 0.4
@dataclass(frozen=True)
class DecodeEstimate(Shows):
    step_seconds: float
    memory_seconds: float
    compute_seconds: float
    tokens_per_s: float
    bound: str          # "memory" or "compute"
    gpus: int
    all_reduce_seconds: float = 0.0   # tensor parallelism's all-reduces, in step_seconds (all_reduce=True only)

    def report(self) -> Report:
        return decode_report(self)


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), **v.WHOLE)
def decode_estimate(model, gpu, batch=1, seq_len=2048, weights="bf16", tp=1, kv_dtype="bf16",
                    with_attention=False, all_reduce=False) -> DecodeEstimate:
    """Decode speed of a real model on tensor-parallel GPUs of a kind: weights are split over tp GPUs and the KV
    cache over as many as hold different KV heads (``kv_cache_shards``), so each step reads that share of them per
    GPU and does 1/tp of the FLOPs. Every weight is read each step, all the
    experts of a mixture too (at a batch of one a token reads only its own experts: an upper bound there), and
    the compute is 2N per sequence, N the active parameters; ``with_attention`` adds the attention's forward
    FLOPs at ``seq_len`` (``decode_attention_flops_for``); ``all_reduce`` adds tensor parallelism's two
    all-reduces a layer over NVLink (``capacity.decode_all_reduce_seconds``, ``capacity_assumptions.tp_link``),
    left out by default."""
    cfg = config_from(model)
    check_parallel(cfg, 1, tp, 1, 0)
    g = hardware.gpu(gpu)
    weight_bytes = model_weight_bytes(cfg, weights) / tp
    kv_bytes = cache_bytes_per_gpu(cfg, seq_len, batch, kv_dtype, tp)  # a hybrid's state is read each step too
    n = flops_params(cfg) / tp
    attention = decode_attention_flops_for(cfg, seq_len) / tp if with_attention else 0
    memory_s = (weight_bytes + kv_bytes) / g.bandwidth_bytes_per_s
    compute_s = (2 * n + attention) * batch / g.bf16_flops_per_s
    step = decode_step_seconds(weight_bytes, kv_bytes, n, batch, g.bandwidth_bytes_per_s, g.bf16_flops_per_s,
                               attention)
    comm_s = 0.0
    if v.check_bool("all_reduce", all_reduce) and tp > 1:
        link, latency = tp_link(g, tp)
        comm_s = decode_all_reduce_seconds(batch, cfg.hidden_size, cfg.num_layers, tp, link, latency)
    step += comm_s
    return DecodeEstimate(step, memory_s, compute_s, batch / step, "memory" if memory_s >= compute_s else "compute",
                          tp, comm_s)


@dataclass(frozen=True)
class ServingEstimate(Shows):
    """Serving a model on tp GPUs: decode speed, memory per GPU against the usable memory, and the price."""

    decode: DecodeEstimate
    memory: MemoryBreakdown
    usable_bytes: float
    margin: float
    price_per_gpu_hour: float | None   # None: no price listed for the GPU and none given
    usd_per_million_tokens: float | None
    gpu: str = ""
    price_listed: bool = True      # the GPU's listed price (hardware.PRICE_PER_GPU_HOUR), not one given

    def report(self) -> Report:
        return serving_report(self)

    @property
    def fits(self) -> bool:
        return self.memory.total <= self.usable_bytes

    def gpus_for(self, requests_per_s, new_tokens_per_request) -> int:
        """GPUs that sustain a request rate: replicas of ``decode.gpus`` GPUs enough to produce its tokens."""
        return gpus_for_request_rate(requests_per_s, new_tokens_per_request, self.decode.tokens_per_s, self.decode.gpus)

    def monthly_cost(self, gpus) -> float:
        """Dollars a month for ``gpus`` GPUs rented around the clock at this estimate's price."""
        v.check_int("gpus", gpus)
        return gpus * _priced(self.price_per_gpu_hour) * HOURS_PER_MONTH

    def new_tokens_per_request(self, requests_per_s, usd_per_month) -> float:
        """The reverse: new tokens per request that a monthly budget sustains at a request rate."""
        v.check_positive("requests_per_s", requests_per_s)
        v.check_positive("usd_per_month", usd_per_month)
        gpus = usd_per_month / _priced(self.price_per_gpu_hour) / HOURS_PER_MONTH
        return gpus / self.decode.gpus * self.decode.tokens_per_s / requests_per_s


@v.checked(**v.WHOLE)
def estimate_serving(model, gpu="A100 80GB", *, batch=1, seq_len=2048, weights="bf16", tp=1,
                     price_per_gpu_hour=None, margin=MEMORY_MARGIN) -> ServingEstimate:
    """Decode speed (``decode_estimate``), memory per GPU (``inference_memory``) and whether it fits ``gpu`` with
    ``margin`` kept free, and dollars per million generated tokens at ``price_per_gpu_hour`` (default: the GPU's
    listed price, ``hardware.PRICE_PER_GPU_HOUR``)."""
    decode = decode_estimate(model, gpu, batch=batch, seq_len=seq_len, weights=weights, tp=tp)
    price, listed = hardware.gpu_price(gpu, price_per_gpu_hour)
    memory = inference_memory(model, weights=weights, seq_len=seq_len, batch=batch, tp=tp)
    return ServingEstimate(decode, memory, usable_bytes(gpu, margin), margin, price,
                           _per_million(price, tp, decode.tokens_per_s), hardware.gpu(gpu).name, listed)


# ----------------------------------------------------------------------------------------------------------------
# A request from prompt to last token: prefill, decode, the largest batch and the price of each kind of token
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RequestEstimate(Shows):
    """A static batch of requests of P prompt and O output tokens on tp GPUs: times, memory per GPU, the largest
    batch that fits and prices. Every field says its unit; ``settings`` holds what the estimate assumed."""

    settings: dict
    prefill_flops: float           # the whole batch's prompts, all GPUs together
    ttft_s: float                  # time to the first token: the batch's prefill
    prefill_bound: str             # "compute" or "memory" (a short prompt that only reads the weights)
    decode: DecodeEstimate         # one decode step, at the mean context of the output
    decode_context_tokens: int     # that context, P + O // 2
    memory: MemoryBreakdown        # per GPU, the KV cache in whole blocks
    usable_bytes: float            # per GPU, less the margin
    blocks_per_sequence: int
    waste_bytes_per_sequence: float    # the empty slots of each sequence's last block, all GPUs together
    max_batch: int                 # the most sequences whose paged cache fits beside the weights; 0: none
    usd_per_million_input_tokens: float | None   # None without a price
    usd_per_million_output_tokens: float | None

    @property
    def tpot_s(self) -> float:
        """Time per output token: one decode step of the batch."""
        return self.decode.step_seconds

    @property
    def tokens_per_s(self) -> float:
        """Output tokens per second of the batch while it decodes: batch / TPOT."""
        return self.decode.tokens_per_s

    @property
    def bound(self) -> str:
        return self.decode.bound

    @property
    def request_s(self) -> float:
        """A request from arrival to its last token: TTFT + (O − 1) · TPOT (the first token comes from prefill)."""
        return self.ttft_s + (self.settings["output_tokens"] - 1) * self.tpot_s

    @property
    def memory_per_gpu_bytes(self) -> float:
        return self.memory.total

    @property
    def fits(self) -> bool:
        return self.settings["batch"] <= self.max_batch

    def gpus_for(self, requests_per_s) -> int:
        """GPUs that sustain a request rate: replicas of tp GPUs, each finishing a batch every ``request_s``."""
        s = self.settings
        output = s["batch"] * s["output_tokens"]
        return gpus_for_request_rate(requests_per_s, s["output_tokens"], output / self.request_s, s["tp"])

    def report(self, requests_per_s=None) -> Report:
        """How the estimate shows itself; with ``requests_per_s`` also the GPUs that sustain that rate."""
        return request_report(self, requests_per_s)


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), **v.WHOLE)
def estimate_request(model, gpu="A100 80GB", *, prompt_tokens, output_tokens, batch=1, tp=1, weights="bf16",
                     prefill_efficiency=PREFILL_EFFICIENCY, kv_dtype="bf16", block_tokens=BLOCK_TOKENS,
                     price_per_gpu_hour=None, margin=MEMORY_MARGIN,
                     overhead_bytes=RUNTIME_OVERHEAD_BYTES[0], all_reduce=False) -> RequestEstimate:
    """Serving ``batch`` requests of ``prompt_tokens`` in and ``output_tokens`` out together on ``tp``
    tensor-parallel GPUs (a static batch: prefilled together, then decoded together; continuous batching, which
    interleaves them, is left out).

    TTFT: the batch's prefill FLOPs (``prefill_flops_for``: 2·N·P per sequence, N the active parameters, plus the
    causal attention) at ``prefill_efficiency`` of the peak, or reading the weights once if that takes longer.
    TPOT: one decode step on the roofline (``decode_estimate`` with the attention FLOPs) at the mean context of
    the output, P + O // 2 tokens (the steps run from P + 1 to P + O − 1; exact for an even O), at the GPU's full
    peak and bandwidth: an ideal ceiling. Memory per GPU: the weights (every expert of a mixture) and the KV cache
    of P + O tokens in whole blocks of ``block_tokens`` (a local layer keeps its window's tokens, not rounded up:
    servers page windows differently), the weights split over tp and the cache over ``kv_cache_shards``, plus
    ``overhead_bytes``; max_batch the most sequences whose
    paged cache fits beside them in the memory less ``margin``. Tensor parallelism divides
    the weights and FLOPs evenly, and the cache as far as its KV heads go; its all-reduces are left out unless
    ``all_reduce`` (then added to each decode step, as ``decode_estimate`` times them).
    Prices: each token at the rate of the phase that makes it (input at the prefill's tokens per second, output
    at the decode's), at ``price_per_gpu_hour`` (default the GPU's listed price) for the tp GPUs."""
    cfg = config_from(model)
    check_parallel(cfg, 1, tp, 1, 0)
    usable = usable_bytes(gpu, margin)
    g = hardware.gpu(gpu)
    price, listed = hardware.gpu_price(gpu, price_per_gpu_hour)
    settings = dict(model=cfg.name, gpu=g.name, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                    batch=batch, tp=tp, weights=weights, prefill_efficiency=prefill_efficiency, kv_dtype=kv_dtype,
                    block_tokens=block_tokens, price_per_gpu_hour=price, price_listed=listed, margin=margin,
                    overhead_bytes=overhead_bytes)

    weight_bytes = model_weight_bytes(cfg, weights)
    flops = prefill_flops_for(cfg, prompt_tokens, batch)
    ttft = prefill_seconds(flops, weight_bytes, tp, g.bf16_flops_per_s, g.bandwidth_bytes_per_s, prefill_efficiency)
    compute_bound = flops / (g.bf16_flops_per_s * prefill_efficiency) >= weight_bytes / g.bandwidth_bytes_per_s
    context = prompt_tokens + output_tokens // 2
    decode = decode_estimate(cfg, g, batch=batch, seq_len=context, weights=weights, tp=tp, kv_dtype=kv_dtype,
                             with_attention=True, all_reduce=all_reduce)

    tokens = prompt_tokens + output_tokens
    slots = paged_tokens(tokens, block_tokens)
    memory = inference_memory(cfg, weights=weights, seq_len=slots, batch=batch, kv_dtype=kv_dtype, tp=tp,
                              overhead_bytes=overhead_bytes)
    per_sequence = kv_cache_bytes_for(cfg, slots, 1, kv_dtype)
    waste = per_sequence - kv_cache_bytes_for(cfg, tokens, 1, kv_dtype)
    per_gpu = cache_bytes_per_gpu(cfg, slots, 1, kv_dtype, tp)
    fits = memory["weights"] + overhead_bytes <= usable  # else no sequence fits beside the weights
    most = int(sequences_that_fit(usable, memory["weights"], per_gpu, overhead_bytes)) if fits else 0
    return RequestEstimate(settings, flops, ttft, "compute" if compute_bound else "memory", decode, context, memory,
                           usable, int(kv_blocks(tokens, block_tokens)), waste, most,
                           _per_million(price, tp, batch * prompt_tokens / ttft),
                           _per_million(price, tp, decode.tokens_per_s))


def _per_million(price, gpus, tokens_per_s):
    """Dollars per million tokens, or None where there is no price (a GPU with none listed, and none given)."""
    return None if price is None else cost_per_million_tokens(price, gpus, tokens_per_s)


def _priced(price):
    if price is None:
        raise v.InputError("price_per_gpu_hour", _("this estimate has no price per GPU-hour (none is listed for its "
                                                   "GPU): estimate it again with price_per_gpu_hour."))
    return price
