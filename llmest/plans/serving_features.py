"""What serving engines add to the plain decoding roofline, one plan per question:

speculative_decode   a draft (another model, or the model's own multi-token-prediction module) proposes k tokens
                     and the target verifies them in one step: tokens a step, the step's time, the speed-up
kv_cache_options     the KV cache in BF16 or FP8: its bytes a token, the largest batch, TPOT and throughput
kv_offload           a sequence's cache moved to host memory or disk and brought back, against computing its
                     prefill again
moe_decode           the routed experts a decoding step of a MoE reads at each batch, and the step's time

Each composes ``decode_step`` (the roofline with the FP8 peak, several tokens a sequence and the experts a batch
reads) and the formulas of ``formulas.speculative``, ``formulas.moe_serving`` and ``formulas.compute``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import hardware
from ..catalog.host_links import HOST_LINKS, host_link
from ..core import _validate as v
from ..core.i18n import N_, _
from ..core.report import Report, Shows
from ..display import serving_features as shown
from ..formulas.compute import prefill_flops_for, prefill_seconds
from ..formulas.counting import count_params
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.kv_cache import BYTES_PER_VALUE
from ..formulas.memory import WEIGHT_FORMATS, model_weight_bytes
from ..formulas.model import config_from
from ..formulas.moe_serving import distinct_experts
from ..formulas.speculative import speculative_step_seconds, tokens_per_step
from .decode_step import MATMUL, ROUTED, ROOFLINE_SHARE, DecodeStep, decode_step, matmul_peak
from .memory_plan import usable_bytes
from .serving_plan import PREFILL_EFFICIENCY, estimate_request

MTP = "mtp"   # the draft named by the target's own multi-token-prediction module


# ----------------------------------------------------------------------------------------------------------------
# Speculative decoding and MTP
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SpeculativeEstimate(Shows):
    settings: dict
    plain: DecodeStep            # the target decoding one token a sequence
    verify: DecodeStep           # the target verifying k draft tokens: k + 1 positions a sequence
    draft_step_s: float          # one step of the draft
    tokens_per_step: float       # yielded a sequence a step, on average
    step_s: float                # k draft steps and the verification

    @property
    def speedup(self) -> float:
        """Tokens a second with speculation over without."""
        return self.tokens_per_step * self.plain.step_s / self.step_s

    @property
    def tokens_per_s(self) -> float:
        """Output tokens a second a GPU: the batch's, over the tp GPUs that decode it together."""
        return self.settings["batch"] * self.tokens_per_step / self.step_s / self.settings["tp"]

    @property
    def sequence_tokens_per_s(self) -> float:
        """Output tokens a second one sequence gets."""
        return self.tokens_per_step / self.step_s

    def report(self) -> Report:
        return shown.speculative_report(self)


def _mtp_step_seconds(cfg, gpu, batch, seq_len, weights, tp, ep, kv_dtype, matmul, routed, share) -> float:
    """One step of the model's multi-token-prediction modules (DeepSeek-V3 §2.2): each a projection, one transformer
    layer and the output head it shares, read from memory once and computed for each sequence, its routed experts
    spread over ep · tp GPUs as the model's are; its layer's cache is one layer's share of the model's."""
    count = count_params(cfg)
    if not cfg.mtp_layers:
        raise v.InputError("draft", _("draft == 'mtp', but {model} has no multi-token-prediction module: name a "
                                       "draft model instead.").format(model=cfg.name or _("the model")))
    per_param = WEIGHT_FORMATS[weights].bytes_per_param
    head = cfg.vocab_size * cfg.embedding_dim
    experts = count["experts"] / cfg.moe_layers * cfg.mtp_layers if cfg.num_experts else 0
    routed_share = 1.0
    if experts and routed == "batch":
        routed_share = distinct_experts(cfg.num_experts, cfg.experts_per_token, batch * ep) / cfg.num_experts
    bytes_read = ((count.mtp - experts) * per_param + head * BYTES_PER_VALUE["bf16"]) / tp
    bytes_read += experts * routed_share * per_param / (ep * tp)
    bytes_read += cache_bytes_per_gpu(cfg, seq_len, batch, kv_dtype, tp) * cfg.mtp_layers / cfg.num_layers
    g = hardware.gpu(gpu)
    flops = 2 * (count.mtp_active + cfg.mtp_layers * head) * batch / tp
    return max(bytes_read / g.bandwidth_bytes_per_s, flops / matmul_peak(gpu, matmul)) / share


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), matmul=v.one_of(MATMUL), routed=v.one_of(ROUTED), **v.WHOLE)
def speculative_decode(model, gpu, *, acceptance, draft=MTP, draft_tokens=1, batch=1, seq_len=2048,
                       weights="bf16", tp=1, kv_dtype="bf16", matmul="bf16", routed="all", ep=1,
                       roofline_share=ROOFLINE_SHARE) -> SpeculativeEstimate:
    """Speculative decoding of ``batch`` sequences at ``seq_len`` tokens: ``draft`` ("mtp", the model's own
    multi-token-prediction module, or another model run on the same GPUs with the same tp) proposes ``draft_tokens``
    (k) tokens one step at a time, each accepted with probability ``acceptance``; the target verifies them in one
    step over k + 1 positions a sequence (``decode_step``: its weights read once, its FLOPs k + 1 times). A step
    yields (1 − α^(k+1)) / (1 − α) tokens (``formulas.speculative.tokens_per_step``); the speed-up is that over
    the step's time in plain decoding steps."""
    cfg = config_from(model)
    draft_tokens = v.check_whole("draft_tokens", draft_tokens)
    expected = tokens_per_step(acceptance, draft_tokens)
    common = dict(batch=batch, seq_len=seq_len, weights=weights, tp=tp, kv_dtype=kv_dtype, matmul=matmul,
                  routed=routed, ep=ep, roofline_share=roofline_share)
    plain = decode_step(cfg, gpu, **common)
    verify = decode_step(cfg, gpu, tokens_per_sequence=draft_tokens + 1, **common)
    if isinstance(draft, str) and draft == MTP:
        draft_s = _mtp_step_seconds(cfg, gpu, batch, seq_len, weights, tp, ep, kv_dtype, matmul, routed,
                                    plain.settings["roofline_share"])
        draft_name = MTP
    else:
        try:
            draft_cfg = config_from(draft)
        except v.InputError as err:
            raise v.InputError("draft", _("draft == {value}: {why}").format(value=v.quote(draft), why=err)) from None
        draft_s = decode_step(draft_cfg, gpu, **{**common, "routed": routed, "ep": 1}).step_s
        draft_name = draft_cfg.name
    step = speculative_step_seconds(verify.step_s, draft_s, draft_tokens)
    settings = dict(plain.settings, acceptance=acceptance, draft=draft_name, draft_tokens=draft_tokens)
    return SpeculativeEstimate(settings, plain, verify, draft_s, expected, step)


# ----------------------------------------------------------------------------------------------------------------
# KV cache precision and offload
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KvOptions(Shows):
    settings: dict
    rows: tuple      # one dict a KV precision

    def report(self) -> Report:
        return shown.kv_options_report(self)


@v.checked(**v.WHOLE)
def kv_cache_options(model, gpu, *, prompt_tokens, output_tokens, tp=1, weights="bf16", kv_dtypes=("bf16", "fp8"))\
        -> KvOptions:
    """The KV cache in each precision of ``kv_dtypes`` (``estimate_request``): its bytes a token, the largest batch
    its paged cache leaves room for, and TPOT (tensor parallelism's all-reduces included) and output tokens a second
    of the tp GPUs at that batch and at the batch the first precision holds (the same batch reads half the cache in
    FP8, so its step is shorter)."""
    cfg = config_from(model)
    dtypes = v.check_list("kv_dtypes", kv_dtypes, N_("KV cache precisions"))
    for i, name in enumerate(dtypes):
        with v.item_of("kv_dtypes", i):
            v.lookup(f"kv_dtypes[{i}]", name, BYTES_PER_VALUE)
    common = dict(prompt_tokens=prompt_tokens, output_tokens=output_tokens, tp=tp, weights=weights, all_reduce=True)
    largest = [estimate_request(cfg, gpu, kv_dtype=name, **common).max_batch for name in dtypes]
    if not largest[0]:
        raise v.InputError("gpu", _("the weights of {model} leave no room for a KV cache on {tp} × {gpu}: raise "
                                     "tp or quantise the weights.").format(model=cfg.name, tp=tp, gpu=gpu))
    rows = []
    for name, most in zip(dtypes, largest):
        at_most = estimate_request(cfg, gpu, kv_dtype=name, batch=max(most, 1), **common)
        at_first = estimate_request(cfg, gpu, kv_dtype=name, batch=largest[0], **common)
        rows.append(dict(kv_dtype=name, bytes_per_token=cache_bytes_per_gpu(cfg, 1, 1, name, tp), max_batch=most,
                         tpot_s=at_most.tpot_s, tokens_per_s=at_most.tokens_per_s if most else 0.0,
                         tpot_at_first_batch_s=at_first.tpot_s))
    settings = dict(model=cfg.name, gpu=hardware.gpu(gpu).name, tp=tp, weights=weights, prompt_tokens=prompt_tokens,
                    output_tokens=output_tokens, first_batch=largest[0])
    return KvOptions(settings, tuple(rows))


@dataclass(frozen=True)
class KvOffload(Shows):
    settings: dict
    cache_bytes: float           # the sequence's cache on one GPU
    recompute_s: float           # its prefill computed again
    links: tuple                 # (name, bytes/s one way, seconds to bring the cache back)

    def report(self) -> Report:
        return shown.kv_offload_report(self)


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), matmul=v.one_of(MATMUL), **v.WHOLE)
def kv_offload(model, gpu, *, context_tokens, tp=1, weights="bf16", kv_dtype="bf16", matmul="bf16",
               prefill_efficiency=PREFILL_EFFICIENCY, bandwidth_bytes_per_s=None) -> KvOffload:
    """A sequence of ``context_tokens`` whose KV cache was moved out of GPU memory: the time to bring it back over
    each host link of ``catalog.host_links`` (and over ``bandwidth_bytes_per_s``, an SSD or a network store, if
    given), each GPU of the tp group over its own link, against computing its prefill again (``prefill_seconds`` at
    ``prefill_efficiency`` of the ``matmul`` peak)."""
    cfg = config_from(model)
    context = v.check_whole("context_tokens", context_tokens)
    g = hardware.gpu(gpu)
    cache = cache_bytes_per_gpu(cfg, context, 1, kv_dtype, tp)
    flops = prefill_flops_for(cfg, context)
    recompute = prefill_seconds(flops, model_weight_bytes(cfg, weights), tp, matmul_peak(gpu, matmul),
                                g.bandwidth_bytes_per_s, prefill_efficiency)
    links = [(name, link.bytes_per_s, cache / link.bytes_per_s) for name, link in HOST_LINKS.items()]
    if bandwidth_bytes_per_s is not None:
        links.append(("given", bandwidth_bytes_per_s, cache / bandwidth_bytes_per_s))
    settings = dict(model=cfg.name, gpu=g.name, context_tokens=context, tp=tp, weights=weights, kv_dtype=kv_dtype,
                    matmul=matmul, prefill_efficiency=prefill_efficiency)
    return KvOffload(settings, cache, recompute, tuple(links))


def link_seconds(cache_bytes, link) -> float:
    """Seconds to move ``cache_bytes`` one way over a named host link."""
    return v.check_nonnegative("cache_bytes", cache_bytes) / host_link(link).bytes_per_s


# ----------------------------------------------------------------------------------------------------------------
# MoE decoding: the experts a batch reads
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MoeDecode(Shows):
    settings: dict
    rows: tuple      # one dict a batch

    def report(self) -> Report:
        return shown.moe_decode_report(self)


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), matmul=v.one_of(MATMUL))
def moe_decode(model, gpu, *, batches=(1, 8, 64, 512), seq_len=2048, weights="bf16", tp=1, ep=1, kv_dtype="bf16",
               matmul="bf16", nodes_per_token=None) -> MoeDecode:
    """For each batch of ``batches``: the distinct routed experts a layer its tokens pick (``distinct_experts``,
    routing spread evenly), the weight bytes a GPU reads, and the step's time and tokens a second, beside the step
    that reads every expert (``decode_estimate``'s bound), and whether the weights a GPU holds and the batch's KV
    cache fit its usable memory (``usable_bytes``: the workbook's margin kept free)."""
    cfg = config_from(model)
    if not cfg.num_experts:
        raise v.InputError("model", _("{model} is dense: every step reads all its weights.").format(
            model=cfg.name or _("the model")))
    rows = []
    for i, batch in enumerate(v.check_list("batches", batches, N_("batch sizes"))):
        with v.item_of("batches", i):
            batch = v.check_whole(f"batches[{i}]", batch)
        common = dict(batch=batch, seq_len=seq_len, weights=weights, tp=tp, ep=ep, kv_dtype=kv_dtype, matmul=matmul,
                      nodes_per_token=nodes_per_token)
        read, every = decode_step(cfg, gpu, routed="batch", **common), decode_step(cfg, gpu, routed="all", **common)
        rows.append(dict(batch=batch, experts_read=read.experts_read, weight_bytes=read.weight_bytes,
                         all_weight_bytes=every.weight_bytes, step_s=read.step_s, all_step_s=every.step_s,
                         tokens_per_s=read.tokens_per_s, network_s=read.network_s, bound=read.bound,
                         held_bytes=every.weight_bytes + every.kv_bytes,
                         fits=every.weight_bytes + every.kv_bytes <= usable_bytes(gpu)))
    settings = dict(model=cfg.name, gpu=hardware.gpu(gpu).name, seq_len=seq_len, weights=weights, tp=tp, ep=ep,
                    kv_dtype=kv_dtype, matmul=matmul, experts=cfg.num_experts, top_k=cfg.experts_per_token,
                    shared=cfg.num_shared_experts)
    return MoeDecode(settings, tuple(rows))
