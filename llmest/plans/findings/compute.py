"""Chapter 3's findings: where attention takes a share of the training FLOPs, a run's time and cost, the time margin
and HFU, checkpoint storage, the rate a run must be fed, decoding's roofline worked by hand, the published runs' MFU,
and the chapter's tables (parameter counts, the GPU catalog and its sources, where decoding turns compute-bound, the
largest batch by prompt length). ``llmest.display.findings.compute`` writes them."""

from __future__ import annotations

from ...catalog import hardware, runs
from ...core import _validate as v
from ...core.i18n import N_, _
from ...core.report import Finding
from ...core.units import DAYS_PER_YEAR
from ...display.findings import compute as shown
from ...formulas import compute as c
from ...formulas.kv_cache import BYTES_PER_VALUE
from ...formulas.memory import kv_cache_bytes_for, model_weight_bytes
from ...formulas.model import config_from, count_params
from ..serving_plan import decode_estimate, estimate_request
from ..time_plan import estimate_time
from . import configs, gpu_names


def _number(value):
    """A figure as plain JSON: a NumPy scalar as its Python number, an infinite limit as None."""
    value = v.plain(value)
    return None if isinstance(value, float) and value == float("inf") else value


# -- attention's share of the FLOPs -----------------------------------------------------------------------------

def attention_share(models) -> Finding:
    """For each model, the sequence lengths at which attention is a quarter and a half of its training FLOPs
    (``compute.seq_len_for_attention_share``)."""
    rows = []
    for cfg in configs("models", models):
        n = c.flops_params(cfg)
        quarter, half = (_number(c.seq_len_for_attention_share(n, cfg.num_layers, cfg.num_heads, cfg.head_dim, share))
                         for share in (0.25, 0.5))
        rows.append(dict(model=cfg.name or None, quarter=quarter, half=half))
    return Finding(dict(models=rows), shown.attention_share)


@v.checked
def attention_flops(models, seq_len) -> Finding:
    """For each model: its 6N matmul FLOPs a training token, the attention's at ``seq_len`` tokens of context
    (``compute.attention_flops_per_token_for``), and the attention's share of the two."""
    rows = []
    for cfg in configs("models", models):
        matmuls = _number(c.training_flops_per_token(c.flops_params(cfg)))
        attention = _number(c.attention_flops_per_token_for(cfg, seq_len))
        rows.append(dict(model=cfg.name or None, matmuls=matmuls, attention=attention,
                         share=attention / (matmuls + attention)))
    return Finding(dict(seq_len=seq_len, models=rows), shown.attention_flops)


@v.checked
def sparse_attention(model, seq_lens) -> Finding:
    """A model with DeepSeek sparse attention, decoding one token at each context length: its attention as it runs
    (the top k keys and the indexer over all of them, ``compute.decode_attention_flops_for``) beside the same
    attention without the indexer, reading every key, and the ratio of the two."""
    cfg = config_from(model)
    if cfg.index_topk is None:
        raise v.InputError("model", _("model == {name} has no sparse-attention indexer (index_topk): give one that "
                                      "has, such as DeepSeek-V3.2.").format(name=v.quote(cfg.name)))
    dense_cfg = cfg.replace(index_heads=None, index_head_dim=None, index_topk=None)
    indexer = c.indexer_flops_per_key(cfg.attention_layers, cfg.index_heads, cfg.index_head_dim)
    rows = []
    for seq_len in v.each(v.check_whole)("seq_lens", seq_lens):
        sparse, dense = c.decode_attention_flops_for(cfg, seq_len), c.decode_attention_flops_for(dense_cfg, seq_len)
        rows.append(dict(seq_len=seq_len, dense=_number(dense), sparse=_number(sparse),
                         indexer=_number(indexer * seq_len), ratio=dense / sparse))
    return Finding(dict(model=cfg.name or None, top_k=cfg.index_topk, rows=rows), shown.sparse_attention)


def attention_time(tokens, model, gpus=1, seq_len=4096, gpu=None, mfu=0.4) -> Finding:
    """What counting the attention changes (``plans.estimate_time`` with ``seq_len``): the days on 6·N·D alone and
    with the attention at the same MFU, and that MFU counted on 6·N·D alone."""
    if seq_len is None:
        raise v.InputError("seq_len", "seq_len == None: the attention FLOPs need a sequence length.")
    cfg = config_from(model)
    est = estimate_time(tokens, model=cfg, gpus=gpus, seq_len=seq_len, gpu=gpu, mfu=mfu)
    return Finding(dict(tokens=est.tokens, model=cfg.name or None, gpus=est.gpus, gpu=est.gpu,
                        seq_len=seq_len, mfu=est.mfu, days=est.days,
                        matmul_days=est.days * est.matmul_flops / est.flops,
                        mfu_without_attention=est.mfu_without_attention), shown.attention_time)


# -- the published runs ---------------------------------------------------------------------------------------------

def palm_mfu() -> Finding:
    """PaLM 540B's MFU from its measured throughput, without and with the attention FLOPs (``runs.palm_mfu``)."""
    return Finding(dict(without_attention=runs.palm_mfu(False), with_attention=runs.palm_mfu(True)), shown.palm_mfu)


def gpt3() -> Finding:
    """GPT-3's 6·N·D against the paper's FLOPs, and the MFU that Patterson et al.'s estimate of its hours implies."""
    return Finding(dict(flops=runs.GPT3.flops, published_flops=runs.GPT3_PUBLISHED_FLOPS,
                        gpu_hours=runs.GPT3.gpu_hours, mfu=runs.GPT3.mfu), shown.gpt3)


# -- a run's time and cost ------------------------------------------------------------------------------------------

@v.checked
def training_cost(n_params, tokens, gpus, gpu="A100 80GB", mfu=0.4, price_low=2, price_high=3) -> Finding:
    """Training ``n_params`` on ``tokens`` (6·N·D) at ``mfu``: the FLOPs, GPU-seconds and GPU-hours, the days and
    years on one GPU, the days on ``gpus``, and the cost at ``price_low`` to ``price_high`` dollars a GPU-hour."""
    low, high = (v.check_nonnegative(name, price) for name, price in (("price_low", price_low),
                                                                      ("price_high", price_high)))
    g = hardware.gpu(gpu)
    flops, peak = c.training_flops(n_params, tokens), g.bf16_flops_per_s
    hours = c.gpu_hours(flops, peak, mfu)
    return Finding(dict(n_params=n_params, tokens=tokens, gpus=gpus, gpu=g.name, mfu=mfu, price_low=low,
                        price_high=high, flops=flops, gpu_seconds=c.gpu_seconds(flops, peak, mfu), gpu_hours=hours,
                        days_on_one=hours / 24, years_on_one=hours / 24 / DAYS_PER_YEAR,
                        days_on_all=c.training_days(flops, gpus, peak, mfu), cost_low=c.cost(hours, low),
                        cost_high=c.cost(hours, high)), shown.training_cost)


def time_margin() -> Finding:
    """The margin a plan adds to the ideal training time (``compute.TIME_MARGIN``)."""
    low, high = c.TIME_MARGIN
    return Finding(dict(low=low, high=high), shown.time_margin)


@v.checked
def hfu(mfu) -> Finding:
    """The hardware FLOPs utilisation of a run at ``mfu`` with full recomputation (``compute.hfu_from_mfu``)."""
    return Finding(dict(mfu=mfu, hfu=c.hfu_from_mfu(mfu)), shown.hfu)


def remember() -> Finding:
    """The chapter's figures to remember: a 7B on 1T tokens in FLOPs and A100-hours at 40% MFU, the A100's and H100
    SXM's dense BF16 peaks, and the range and median of the published runs' MFU (``runs.mfu_range``)."""
    a100, h100 = (hardware.gpu(name).bf16_flops_per_s for name in ("A100 80GB", "H100 SXM"))
    flops, span = c.training_flops(7e9, 1e12), runs.mfu_range()
    return Finding(dict(n_params=7e9, tokens=1e12, mfu=0.4, flops=flops, a100_hours=c.gpu_hours(flops, a100, 0.4),
                        a100_peak=a100, h100_peak=h100, runs=len(span.runs), mfu_low=span.low.mfu,
                        mfu_high=span.high.mfu, mfu_median=span.median), shown.remember)


# -- checkpoints and the data feed ----------------------------------------------------------------------------------

def resume_checkpoint() -> Finding:
    """The bytes a parameter of a checkpoint to resume mixed-precision AdamW from."""
    return Finding(dict(bytes_per_param=c.RESUME_CHECKPOINT_BYTES_PER_PARAM), shown.resume_checkpoint)


@v.checked
def checkpoint_storage(n_params, run_hours, interval_hours, keeps=(None,)) -> Finding:
    """The disk for a run's resume checkpoints saved every ``interval_hours``: a line for each of ``keeps``, None
    for all of them or a number of the most recent (``compute.checkpoint_storage_bytes``)."""
    rows = []
    for i, keep in enumerate(v.check_list("keeps", keeps, N_("checkpoints to keep (None: all)"))):
        with v.item_of("keeps", i):
            keep = None if keep is None else v.check_whole("keeps", keep)
        rows.append(dict(keep=keep, bytes=c.checkpoint_storage_bytes(n_params, run_hours, interval_hours, keep)))
    return Finding(dict(n_params=n_params, run_hours=run_hours, interval_hours=interval_hours, storage=rows),
                   shown.checkpoint_storage)


@v.checked
def feed_rate(n_params, tokens, days, gpus) -> Finding:
    """The tokens a second each GPU must be fed to train a model of ``n_params`` on ``tokens`` in ``days``
    (``compute.tokens_per_second_per_gpu``)."""
    return Finding(dict(n_params=n_params, tokens=tokens, days=days, gpus=gpus,
                        tokens_per_s_per_gpu=c.tokens_per_second_per_gpu(tokens, days, gpus)), shown.feed_rate)


# -- decoding's roofline by hand ------------------------------------------------------------------------------------

def decode_roofline(model, gpu) -> Finding:
    """Decoding a model in BF16 on a GPU, worked by hand: the weights, bandwidth and peak; the batch-1 step as weights
    over bandwidth (and ``plans.decode_estimate``'s); the KV cache a token; the ridge; and where decoding turns
    compute-bound (``compute.compute_bound_batch``, ``compute.kv_context_limit_for``; None: at no context)."""
    cfg, g = config_from(model), hardware.gpu(gpu)
    weights, n = model_weight_bytes(cfg), c.flops_params(cfg)
    bandwidth, peak = g.bandwidth_bytes_per_s, g.bf16_flops_per_s
    return Finding(dict(
        model=cfg.name or None, gpu=g.name, weight_bytes=weights, bandwidth_bytes_per_s=bandwidth,
        peak_flops_per_s=peak, step_seconds=weights / bandwidth, tokens_per_s=bandwidth / weights,
        estimated_step_seconds=decode_estimate(cfg, gpu, batch=1, seq_len=1).step_seconds,
        kv_bytes_per_token=kv_cache_bytes_for(cfg, 1), layers=cfg.num_layers, kv_heads=cfg.num_kv_heads,
        head_dim=cfg.head_dim, bytes_per_value=BYTES_PER_VALUE["bf16"], ridge=peak / bandwidth,
        compute_bound_batch=_number(c.compute_bound_batch(weights, n, bandwidth, peak)),
        context_limit=_number(c.kv_context_limit_for(cfg, bandwidth, peak))), shown.decode_roofline)


# -- the chapter's tables -------------------------------------------------------------------------------------------

def parameter_counts(models) -> Finding:
    """Each model's parameters, all of them, beside the N of 6·N·D (``compute.flops_params``: the matmul weights, a
    mixture of experts' active ones)."""
    return Finding(dict(models=[dict(model=cfg.name or None, all_params=count_params(cfg).total,
                                     flops_params=_number(c.flops_params(cfg))) for cfg in configs("models", models)]),
                   shown.parameter_counts)


def gpu_catalog() -> Finding:
    """The GPU catalog: dense peaks (no 2:4 sparsity; None: the vendor states none), memory as the device exposes
    it, bandwidth and interconnect."""
    return Finding(dict(gpus=[dict(
        name=g.name, bf16_flops_per_s=g.bf16_flops_per_s, fp8_flops_per_s=g.fp8_flops_per_s,
        fp4_flops_per_s=g.fp4_flops_per_s, tf32_flops_per_s=g.tf32_flops_per_s, fp32_flops_per_s=g.fp32_flops_per_s,
        memory_gib=g.memory_gib, memory_gb=g.memory_gb, bandwidth_bytes_per_s=g.bandwidth_bytes_per_s,
        interconnect=g.interconnect)
        for g in hardware.CATALOG.values()]), shown.gpu_catalog)


def gpu_sources() -> Finding:
    """Where each catalog row comes from, its caveat, where its exposed memory was read (the nvidia-smi output's
    card, MiB and where it was published, where there is one), and the fields not found in a stored copy of the
    source."""
    return Finding(dict(gpus=[dict(
        name=g.name, source=g.source, note=g.note, memory_source=g.memory_source,
        smi_read=dict(zip(("card", "mib", "where"), g.smi_read)) if g.smi_read else None, recalled=list(g.recalled))
        for g in hardware.CATALOG.values()]), shown.gpu_sources)


def decode_limits(model, gpus, seq_len=1024, batch=1, weights="bf16") -> Finding:
    """Where decoding a model turns compute-bound on each GPU: the batch (no KV cache), the context past which no
    batch is (None: none, every layer windowed), and the decode speed of ``batch`` sequences at ``seq_len`` tokens
    (``plans.decode_estimate``)."""
    cfg = config_from(model)
    weight_bytes, n = model_weight_bytes(cfg, weights), c.flops_params(cfg)
    rows = []
    for name in gpu_names("gpus", gpus):
        g = hardware.gpu(name)
        speed = decode_estimate(cfg, name, batch=batch, seq_len=seq_len, weights=weights)
        rows.append(dict(gpu=g.name, compute_bound_batch=_number(c.compute_bound_batch(
            weight_bytes, n, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)),
            context_limit=_number(c.kv_context_limit_for(cfg, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)),
            tokens_per_s=speed.tokens_per_s, bound=speed.bound))
    return Finding(dict(model=cfg.name or None, seq_len=seq_len, batch=batch, weights=weights, gpus=rows),
                   shown.decode_limits)


def largest_batches(model, gpu, prompts, output_tokens) -> Finding:
    """For each prompt length, serving ``output_tokens`` more (``plans.estimate_request``): the largest batch that
    fits, the TTFT of one request, the attention's share of its prefill FLOPs and the TPOT."""
    cfg, card = config_from(model), hardware.gpu(gpu)
    v.check_whole("output_tokens", output_tokens)
    rows = []
    for i, prompt in enumerate(v.check_list("prompts", prompts, N_("prompt lengths in tokens"))):
        with v.item_of("prompts", i):
            v.check_whole(f"prompts[{i}]", prompt)
            est = estimate_request(cfg, gpu, prompt_tokens=prompt, output_tokens=output_tokens)
        rows.append(dict(prompt_tokens=prompt, max_batch=est.max_batch, ttft_s=est.ttft_s,
                         attention_share=c.prefill_attention_flops_for(cfg, prompt) / est.prefill_flops,
                         tpot_s=est.tpot_s))
    return Finding(dict(model=cfg.name or None, gpu=card.name, output_tokens=output_tokens, prompts=rows),
                   shown.largest_batches)
