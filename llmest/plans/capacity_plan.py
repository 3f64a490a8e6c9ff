"""The capacity question: the GPUs and the layout that serve R requests a second of a prompt/answer mix under a
time-to-first-token (TTFT) and a time-per-output-token (TPOT) target, and the price of input and output tokens
(``plan_capacity``).

Continuous batching with chunked prefill, as vLLM V1 and Sarathi-Serve schedule it: each step runs the batch's
decodes and fills the rest of a token budget with prompt chunks. A step's time is the roofline of its decodes and its
chunk (``capacity.chunked_step_seconds``) plus tensor parallelism's all-reduces. TPOT is the mean step at batch b
with the mean context; TTFT is half a step's wait for the next step, the queue for the prefill budget (an M/D/1
queue) and the steps that carry the prompt's chunks. The largest batch that meets both targets and fits the KV cache
sets a replica's rate by Little's law; replicas of tp GPUs carry the load. Disaggregated: a prefill pool sized so
its queue keeps TTFT under the target (with the KV cache's transfer), and a decode pool at the batch that meets
TPOT. A prefix cache spares the cached share of each prompt its FLOPs. Assumptions: ``capacity_assumptions``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..catalog import hardware
from ..core import _validate as v
from ..core.report import Report, Shows
from ..display.capacity import capacity_report
from ..formulas.capacity import (chunked_step_seconds, decode_all_reduce_seconds, kv_transfer_seconds, little_rate,
                                 queue_wait_seconds, uncached_prompt_tokens, utilisation_for_wait)
from ..formulas.compute import decode_attention_flops_for, flops_params, gpus_for_request_rate, prefill_flops_for
from ..formulas.compute import prefill_seconds
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.kv_cache import BYTES_PER_VALUE
from ..formulas.memory import MEMORY_MARGIN, kv_cache_bytes_for, model_weight_bytes
from ..formulas.model import config_from
from ..core.units import SECONDS_PER_HOUR
from .capacity_assumptions import ARRIVAL_WAIT_STEPS, CHUNK_TOKENS, TP_CHOICES, tp_link
from .layout_assumptions import NETWORK_EFFICIENCY
from .serving_plan import PREFILL_EFFICIENCY, estimate_request

REASONS = ("heads", "weights", "budget", "tpot", "ttft")   # why a layout meets no target, in the order tested


@dataclass(frozen=True)
class ReplicaFit:
    """One layout tried for one pool: ``tp`` GPUs a replica, the largest batch that meets the targets and what it
    gives, or ``reason`` why none does (with the figures at a batch of one, where there are any)."""

    role: str                 # "colocated", "prefill" or "decode"
    tp: int
    batch: int                # running sequences a replica decodes at once (1 prompt at a time for a prefill pool)
    max_batch: int            # the most sequences whose paged KV cache fits
    ttft_s: float
    tpot_s: float
    requests_per_s: float     # one replica's rate, Little's law
    replicas: int
    gpus: int
    reason: str = ""          # "" when it meets the targets; else one of REASONS
    all_reduce_s: float = 0.0    # the all-reduces in one step (TPOT) or in the prompt's prefill
    prefill_share: float = 0.0   # the prompt chunks' share of a step's compute time (prices the input tokens)
    kv_transfer_s: float = 0.0   # disaggregated: the prompt's KV cache sent to the decode pool

    @property
    def meets(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class CapacityPlan(Shows):
    """The answer: the GPUs and layout for the load (``best``: the colocated replicas, or the prefill and decode
    pools), whether the targets are met, every layout tried, and the price of tokens."""

    settings: dict
    tried: tuple               # every ReplicaFit, in the order tried
    colocated: ReplicaFit | None   # the colocated layout with the fewest GPUs that meets the targets
    prefill: ReplicaFit | None     # disaggregated only
    decode: ReplicaFit | None
    usd_per_million_input_tokens: float | None
    usd_per_million_output_tokens: float | None

    @property
    def disaggregated(self) -> bool:
        return self.settings["disaggregated"]

    @property
    def met(self) -> bool:
        return (self.prefill is not None and self.decode is not None) if self.disaggregated else \
            self.colocated is not None

    @property
    def gpus(self) -> int:
        """GPUs for the load (0 where no layout meets the targets)."""
        if not self.met:
            return 0
        return self.prefill.gpus + self.decode.gpus if self.disaggregated else self.colocated.gpus

    @property
    def requests_per_s_per_gpu(self) -> float:
        """The load each GPU carries: R / GPUs."""
        return self.settings["requests_per_s"] / self.gpus if self.met else 0.0

    def report(self) -> Report:
        return capacity_report(self)


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), ttft_s=v.check_positive, tpot_s=v.check_positive,
           prefix_hit_rate=v.check_margin, disaggregated=v.check_bool, chunk_tokens=v.check_whole)
def plan_capacity(model, gpu="H100 SXM", *, requests_per_s, prompt_tokens, output_tokens, ttft_s, tpot_s, tp=None,
                  weights="bf16", kv_dtype="bf16", prefix_hit_rate=0.0, disaggregated=False,
                  chunk_tokens=CHUNK_TOKENS, prefill_efficiency=PREFILL_EFFICIENCY, price_per_gpu_hour=None,
                  margin=MEMORY_MARGIN) -> CapacityPlan:
    """GPUs of ``gpu`` and their layout to serve ``requests_per_s`` requests of ``prompt_tokens`` in and
    ``output_tokens`` out, each meeting ``ttft_s`` and ``tpot_s`` (mean times), with tensor parallelism ``tp``
    (searched over the powers of two within the GPU's scale-up domain when None). ``prefix_hit_rate``: the share
    of each prompt a prefix cache holds. ``disaggregated``: prefill and decode on separate pools of GPUs, each
    sized for its own target. ``chunk_tokens``: the tokens a step carries at most (vLLM's max_num_batched_tokens).
    Memory: the serving plan's (``estimate_request``), ``margin`` kept free. Prices at ``price_per_gpu_hour``
    (default the GPU's listed price): input tokens pay the share of each step's compute time their chunks take
    (disaggregated: the prefill pool), output tokens the rest."""
    cfg = config_from(model)
    g = hardware.gpu(gpu)
    price, listed = hardware.gpu_price(gpu, price_per_gpu_hour)
    new = max(1, int(np.ceil(round(uncached_prompt_tokens(prompt_tokens, prefix_hit_rate), 6))))
    cached = prompt_tokens - new     # whole tokens: the cache holds whole blocks of them, the rest is computed
    if g.network is None and (disaggregated or (tp or 1) > 1):
        tp_link(g, 2)   # refuses, by name: no interconnect listed to time the all-reduces or the KV transfer
    settings = dict(model=cfg.name, gpu=g.name, requests_per_s=requests_per_s, prompt_tokens=prompt_tokens,
                    output_tokens=output_tokens, ttft_s=ttft_s, tpot_s=tpot_s, tp=tp, weights=weights,
                    kv_dtype=kv_dtype, prefix_hit_rate=prefix_hit_rate, cached_tokens=cached,
                    uncached_tokens=new, disaggregated=disaggregated, chunk_tokens=chunk_tokens,
                    prefill_efficiency=prefill_efficiency, price_per_gpu_hour=price, price_listed=listed,
                    margin=margin)
    domain = g.network.gpus_per_node if g.network else 1
    sizes = (tp,) if tp is not None else tuple(t for t in TP_CHOICES if t <= domain)
    jobs = ("prefill", "decode", "colocated") if disaggregated else ("colocated",)   # apart, and together to compare
    tried = [_fit(_Replica(cfg, g, t, settings, searched=tp is None), job) for job in jobs for t in sizes]
    best = {job: min((f for f in tried if f.role == job and f.meets), key=lambda f: (f.gpus, f.tpot_s), default=None)
            for job in jobs}
    usd_in = usd_out = None
    if price is not None and (best["prefill"] and best["decode"] if disaggregated else best["colocated"]):
        usd_in, usd_out = _prices(price, settings, best)
    return CapacityPlan(settings, tuple(tried), best.get("colocated"), best.get("prefill"), best.get("decode"),
                        usd_in, usd_out)


def _prices(price, s, best):
    """Dollars per million input and output tokens for the whole fleet at the load (its idle share included)."""
    per_s = price / SECONDS_PER_HOUR * 1e6
    rate = s["requests_per_s"]
    if s["disaggregated"]:
        return (best["prefill"].gpus * per_s / (rate * s["prompt_tokens"]),
                best["decode"].gpus * per_s / (rate * s["output_tokens"]))
    fit = best["colocated"]
    return (fit.gpus * per_s * fit.prefill_share / (rate * s["prompt_tokens"]),
            fit.gpus * per_s * (1 - fit.prefill_share) / (rate * s["output_tokens"]))


class _Replica:
    """One replica of tp GPUs: the per-GPU bytes and FLOPs its steps are timed from."""

    def __init__(self, cfg, g, tp, s, searched):
        self.cfg, self.g, self.tp, self.s = cfg, g, tp, s
        self.refused = ""
        try:
            self.request = estimate_request(cfg, g, prompt_tokens=s["prompt_tokens"],
                                            output_tokens=s["output_tokens"], tp=tp, weights=s["weights"],
                                            prefill_efficiency=s["prefill_efficiency"], kv_dtype=s["kv_dtype"],
                                            margin=s["margin"])
        except v.InputError as err:
            if not searched or err.param != "tp":
                raise
            self.refused = "heads"   # tp does not divide the heads: a layout the search skips, by name
            return
        self.link, self.latency = tp_link(g, tp) if tp > 1 else (1.0, 0.0)
        if not self.request.max_batch:
            self.refused = "weights"
            return
        context = s["prompt_tokens"] + s["output_tokens"] // 2     # the decodes' mean context, as estimate_request
        self.weight_bytes = model_weight_bytes(cfg, s["weights"]) / tp
        self.kv_bytes = cache_bytes_per_gpu(cfg, context, 1, s["kv_dtype"], tp)
        self.decode_flops = (2 * flops_params(cfg) + decode_attention_flops_for(cfg, context)) / tp
        prompt, cached = s["prompt_tokens"], s["cached_tokens"]
        spared = prefill_flops_for(cfg, cached) if cached else 0
        self.new_tokens = s["uncached_tokens"]
        self.prompt_flops = (prefill_flops_for(cfg, prompt) - spared) / tp   # one prompt's uncached tokens

    def all_reduce(self, tokens):
        if self.tp == 1:
            return 0 * tokens
        return decode_all_reduce_seconds(tokens, self.cfg.hidden_size, self.cfg.num_layers, self.tp, self.link,
                                         self.latency)

    def step(self, batch, chunk):
        """Seconds of a step with ``batch`` decodes and ``chunk`` prompt tokens (NumPy arrays or numbers)."""
        g = self.g
        return chunked_step_seconds(self.weight_bytes, self.kv_bytes * batch, self.decode_flops * batch,
                                    self.prompt_flops / self.new_tokens * chunk, g.bandwidth_bytes_per_s,
                                    g.bf16_flops_per_s, self.s["prefill_efficiency"],
                                    self.all_reduce(batch + chunk))


def _fit(r: _Replica, role) -> ReplicaFit:
    blank = dict(role=role, tp=r.tp, batch=0, ttft_s=0.0, tpot_s=0.0, requests_per_s=0.0, replicas=0, gpus=0)
    if r.refused:
        return ReplicaFit(**blank, max_batch=0, reason=r.refused)
    if role == "prefill":
        return _prefill(r, blank)
    s = r.s
    out, most = s["output_tokens"], r.request.max_batch
    top = most if role == "decode" else min(most, s["chunk_tokens"] - 1)
    if top < 1:
        return ReplicaFit(**blank, max_batch=most, reason="budget")
    b = np.arange(1, top + 1, dtype=float)
    if role == "decode":
        tpot = r.step(b, 0 * b)
        ttft, ok, share = 0 * b, tpot <= s["tpot_s"], 0 * b
        rate = little_rate(b, out * tpot)
    else:
        new = r.new_tokens
        tpot = r.step(b, b * new / out)         # the mean step: each request's prompt spread over its O steps
        work = r.prompt_flops / out / s["prefill_efficiency"]      # a step's prompt FLOPs a sequence, at their rate
        share = work / (r.decode_flops + work) + 0 * b   # the prompt chunks' share of a step's compute
        rate = little_rate(b, out * tpot)
        chunk = np.minimum(s["chunk_tokens"] - b, new)   # what the decodes leave of the budget, a prompt at most
        steps = np.ceil(new / chunk)
        service = (steps - 1) * r.step(b, chunk) + r.step(b, new - (steps - 1) * chunk)
        busy = rate * service                   # the prefill budget's utilisation
        fits = busy < 1
        wait = queue_wait_seconds(service, np.where(fits, busy, 0.0))
        ttft = ARRIVAL_WAIT_STEPS * tpot + wait + service
        ok = fits & (tpot <= s["tpot_s"]) & (ttft <= s["ttft_s"])
        if not fits[0]:
            return ReplicaFit(**{**blank, "ttft_s": float(service[0]), "tpot_s": float(tpot[0])}, max_batch=most,
                              reason="budget")
    if not ok.any():
        reason = "tpot" if tpot[0] > s["tpot_s"] else "ttft"
        return ReplicaFit(**{**blank, "ttft_s": float(ttft[0]), "tpot_s": float(tpot[0])}, max_batch=most,
                          reason=reason, all_reduce_s=float(r.all_reduce(1)))
    i = int(np.nonzero(ok)[0][-1])
    batch = i + 1
    replica_rate = float(rate[i])
    gpus = gpus_for_request_rate(s["requests_per_s"], 1, replica_rate, r.tp)
    added = batch * r.new_tokens / out if role == "colocated" else 0
    return ReplicaFit(role, r.tp, batch, most, float(ttft[i]), float(tpot[i]), replica_rate, gpus // r.tp, gpus,
                      all_reduce_s=float(r.all_reduce(batch + added)), prefill_share=float(share[i]))


def _prefill(r: _Replica, blank) -> ReplicaFit:
    """A prefill replica runs one prompt at a time (its uncached tokens, at the prefill efficiency, or reading the
    weights once if that is longer, plus the all-reduces), then sends the prompt's KV cache to the decode pool over
    its GPUs' network ports. Its queue may hold prompts as long as the mean wait keeps TTFT within the target."""
    s, g = r.s, r.g
    comm = float(r.all_reduce(r.new_tokens))
    service = prefill_seconds(r.prompt_flops * r.tp, r.weight_bytes * r.tp, r.tp, g.bf16_flops_per_s,
                              g.bandwidth_bytes_per_s, s["prefill_efficiency"]) + comm
    kv = kv_cache_bytes_for(r.cfg, s["prompt_tokens"], 1, s["kv_dtype"])
    send = kv_transfer_seconds(kv, r.tp, NETWORK_EFFICIENCY * g.network.inter_node_bytes_per_s)
    budget = s["ttft_s"] - send - service
    if budget <= 0:
        return ReplicaFit(**{**blank, "ttft_s": service + send}, max_batch=r.request.max_batch, reason="ttft",
                          all_reduce_s=comm, kv_transfer_s=send)
    rate = utilisation_for_wait(budget, service) / service
    gpus = gpus_for_request_rate(s["requests_per_s"], 1, rate, r.tp)
    busy = s["requests_per_s"] * service / (gpus // r.tp)   # the load's utilisation of each replica
    ttft = service + queue_wait_seconds(service, busy) + send
    return ReplicaFit("prefill", r.tp, 1, r.request.max_batch, ttft, 0.0, rate, gpus // r.tp, gpus,
                      all_reduce_s=comm, prefill_share=1.0, kv_transfer_s=send)
