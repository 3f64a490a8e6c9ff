"""How chapter 3's findings read (``llmest.plans.findings.compute`` works them out)."""

from __future__ import annotations

import re

from ...catalog.hardware import TERA
from ...core.i18n import N_, _, display_width
from ...core.report import Report
from ...core.units import (UNITS, format_bytes, format_count, format_flops, format_int, format_number, format_percent,
                            read_in_chinese)
from ..table import Table

_BOUNDS = {"memory": N_("memory"), "compute": N_("compute")}  # what bounds a decoding step


def _model(name) -> str:
    return name or _("the model")


def _size(n_params) -> str:
    """A count in as few figures as say it to three (70e9 -> 70B, 6.74e9 -> 6.74B)."""
    digits = next(d for d in (1, 2, 3) if float(f"{n_params:.{d}g}") == float(f"{n_params:.3g}"))
    return format_count(n_params, digits)


def _lines(*lines) -> Report:
    return Report("", lines=lines)


def _table(columns, rows, **options) -> Report:
    return Report("", blocks=(Table(columns, rows, **options),))


# -- attention's share of the FLOPs -----------------------------------------------------------------------------

def attention_share(f: dict) -> Report:
    return _lines(*(_("{model}: attention is a quarter of the FLOPs at {quarter} tokens, half at {half}").format(
        model=_model(row["model"]), quarter=format_int(row["quarter"]), half=format_int(row["half"]))
        for row in f["models"]))


def attention_flops(f: dict) -> Report:
    return _lines(*(_("{model:<14} 6N {matmuls:>8}   attention {attention:>8}   ({share} of all)").format(
        model=_model(row["model"]), matmuls=format_flops(row["matmuls"]), attention=format_flops(row["attention"]),
        share=format_percent(row["share"], 0)) for row in f["models"]))


def sparse_attention(f: dict) -> Report:
    rows = [(format_int(row["seq_len"]), format_flops(row["dense"]), format_flops(row["sparse"]),
             format_flops(row["indexer"]), f"{row['ratio']:.1f}×") for row in f["rows"]]
    columns = (_("context"), _("every key"), _("top {k} keys + indexer").format(k=format_int(f["top_k"])),
               _("of which the indexer"), _("every key ÷ sparse"))
    return Report(_model(f["model"]), blocks=(Table(columns, rows),))


def attention_time(f: dict) -> Report:
    return _lines(_("6·N·D only: {plain} days; with the attention at {seq_len} tokens: {days} days at the same {mfu} "
                    "MFU, which on 6·N·D alone is {mfu_plain}").format(
        plain=f"{f['matmul_days']:.1f}", seq_len=f"{f['seq_len']:,}", days=f"{f['days']:.1f}",
        mfu=format_percent(f["mfu"], 0), mfu_plain=format_percent(f["mfu_without_attention"], 1)))


# -- the published runs ---------------------------------------------------------------------------------------------

def palm_mfu(f: dict) -> Report:
    return _lines(_("PaLM MFU without the attention term {plain}, with it {attention}").format(
        plain=format_percent(f["without_attention"], 1), attention=format_percent(f["with_attention"], 1)))


def gpt3(f: dict) -> Report:
    return _lines(*_("GPT-3: 6·N·D = {flops} against the paper's {published};\non Patterson et al.'s estimate of "
                     "{hours} V100-hours that is an MFU of {mfu}").format(
        flops=format_flops(f["flops"]), published=format_flops(f["published_flops"]),
        hours=read_in_chinese(format_int)(f["gpu_hours"]), mfu=format_percent(f["mfu"], 0)).splitlines())


# -- a run's time and cost ------------------------------------------------------------------------------------------

def training_cost(f: dict) -> Report:
    gpu = re.sub(r" \d+GB$", "", f["gpu"])  # "A100", not "A100 80GB"
    return _lines(
        _("FLOPs {flops}; GPU-seconds {seconds}; GPU-hours {hours}").format(
            flops=format_flops(f["flops"]), seconds=f"{f['gpu_seconds']:,.0f}",
            hours=read_in_chinese(format_int)(f["gpu_hours"])),
        _("one {gpu}: {days} days = {years} years; {gpus} {gpu}s: {cluster} days; at ${low}-{high} an hour: "
          "{cost_low} to {cost_high}").format(
            gpu=gpu, days=f"{f['days_on_one']:,.0f}", years=f"{f['years_on_one']:.1f}", gpus=f["gpus"],
            cluster=f"{f['days_on_all']:.1f}", low=format_number(f["price_low"]), high=format_number(f["price_high"]),
            cost_low=UNITS["USD"].format(f["cost_low"]), cost_high=UNITS["USD"].format(f["cost_high"])))


def time_margin(f: dict) -> Report:
    return _lines(_("time margin: +{low} to +{high}").format(low=format_percent(f["low"], 0),
                                                              high=format_percent(f["high"], 0)))


def hfu(f: dict) -> Report:
    return _lines(_("MFU {mfu} with full recomputation is HFU {hfu}").format(mfu=format_percent(f["mfu"]),
                                                                              hfu=format_percent(f["hfu"], 1)))


def remember(f: dict) -> Report:
    rows = [
        (_("7B on 1T tokens"), _("{flops} FLOPs").format(flops=format_flops(f["flops"]))),
        (_("… on A100s at 40% MFU"), _("{hours} GPU-hours").format(hours=read_in_chinese(format_int)(f["a100_hours"]))),
        (_("A100 / H100 SXM dense BF16"), f"{f['a100_peak'] / TERA:.0f} / {f['h100_peak'] / TERA:.0f} TFLOPS"),
        (_("published MFU ({runs} runs, 6·N only)").format(runs=f["runs"]),
         _("{low} to {high}, median {median}").format(low=format_percent(f["mfu_low"], 0),
                                                       high=format_percent(f["mfu_high"], 0),
                                                       median=format_percent(f["mfu_median"], 0)))]
    width = max(38, *(display_width(label) + 1 for label, _value in rows))
    return _lines(*(label + " " * (width - display_width(label)) + " " + value for label, value in rows))


# -- checkpoints and the data feed ----------------------------------------------------------------------------------

def resume_checkpoint(f: dict) -> Report:
    return _lines(_("resume checkpoint: {bytes} bytes a parameter").format(bytes=format_number(f["bytes_per_param"])))


def checkpoint_storage(f: dict) -> Report:
    hours = f["interval_hours"]
    interval = (_("{minutes} min").format(minutes=format_number(hours * 60)) if hours < 1
                else _("{hours} h").format(hours=format_number(hours)))

    def line(row):
        text = (_("{params}, {days} days, every {interval}, keep all: {size}") if row["keep"] is None
                else _("{params}, {days} days, every {interval}, keep {keep}: {size}"))
        return text.format(params=_size(f["n_params"]), days=format_number(f["run_hours"] / 24), interval=interval,
                           keep=row["keep"], size=format_bytes(row["bytes"]))

    return _lines(*(line(row) for row in f["storage"]))


def feed_rate(f: dict) -> Report:
    return _lines(_("feeding a {params} run of {tokens} tokens in {days} days on {gpus} GPUs: {rate} tokens/s per "
                    "GPU").format(params=_size(f["n_params"]), tokens=_size(f["tokens"]), days=format_number(f["days"]),
                                  gpus=format_int(f["gpus"]), rate=format_int(f["tokens_per_s_per_gpu"])))


# -- decoding's roofline by hand ------------------------------------------------------------------------------------

def decode_roofline(f: dict) -> Report:
    batch, limit = format_int(f["compute_bound_batch"]), f["context_limit"]
    return _lines(
        _("weights {weights}, bandwidth {bandwidth} GB/s, peak {peak} TFLOPS").format(
            weights=format_bytes(f["weight_bytes"]), bandwidth=f"{f['bandwidth_bytes_per_s'] / 1e9:,.0f}",
            peak=f"{f['peak_flops_per_s'] / TERA:g}"),
        _("batch-1 step: weights / bandwidth = {ms} ms, {rate} tokens/s").format(
            ms=f"{f['step_seconds'] * 1e3:.2f}", rate=f"{f['tokens_per_s']:,.0f}"),
        "  " + _("decode_estimate at 1 token of context: {ms} ms").format(
            ms=f"{f['estimated_step_seconds'] * 1e3:.2f}"),
        _("KV cache: {kv} a token (K and V · {layers} layers · {kv_heads} KV heads · {head_dim} wide · {bytes} "
          "bytes)").format(kv=format_bytes(f["kv_bytes_per_token"], binary=True), layers=f["layers"],
                           kv_heads=f["kv_heads"], head_dim=f["head_dim"], bytes=f["bytes_per_value"]),
        _("ridge: peak / bandwidth = {ridge} FLOPs per byte").format(ridge=f"{f['ridge']:,.0f}"),
        _("compute-bound from batch {batch} with no KV cache, and with a batch large enough at any context (every "
          "layer windowed)").format(batch=batch) if limit is None else
        _("compute-bound from batch {batch} with no KV cache, but past {context} tokens of context at no "
          "batch").format(batch=batch, context=format_int(limit)))


# -- the chapter's tables -------------------------------------------------------------------------------------------

def parameter_counts(f: dict) -> Report:
    rows = [(row["model"] or _("model"), format_count(row["all_params"]), format_count(row["flops_params"]))
            for row in f["models"]]
    return _table((_("model"), _("all parameters"), _("N for 6·N·D")), rows)


def _tflops(flops_per_s) -> str:
    return "-" if not flops_per_s else f"{flops_per_s / TERA:.1f}"


def gpu_catalog(f: dict) -> Report:
    rows = [(g["name"], _tflops(g["bf16_flops_per_s"]), _tflops(g["fp8_flops_per_s"]),
             _tflops(g["fp4_flops_per_s"]), _tflops(g["tf32_flops_per_s"]), _tflops(g["fp32_flops_per_s"]),
             f"{g['memory_gib']:.1f}", f"{g['memory_gb']:.1f}", f"{g['bandwidth_bytes_per_s'] / TERA:.2f}",
             _(g["interconnect"])) for g in f["gpus"]]
    bandwidth = _("bandwidth")
    return _table(("GPU", "BF16", "FP8", "FP4", "TF32", "FP32", "GiB", "GB", bandwidth, _("interconnect")), rows,
                  caption=_("dense peaks in TFLOPS (FP32: CUDA cores, not tensor cores); memory as the device exposes "
                            "it, in GiB (2^30 bytes) and GB (1e9 bytes)"),
                  units={bandwidth: "TB/s"})


def _memory_source(g: dict) -> str:
    """Where the exposed memory was read, in the language shown (as ``hardware.GPU.memory_source_shown``)."""
    read = g["smi_read"]
    if not read:
        return _(g["memory_source"])
    return _("nvidia-smi: {card}, {mib} MiB, {where}").format(card=read["card"], mib=read["mib"],
                                                                where=_(read["where"]))


def gpu_sources(f: dict) -> Report:
    rows = [(g["name"], _("{source}; exposed memory: {memory_source}").format(source=_(g["source"]),
                                                                            memory_source=_memory_source(g)),
             _(g["note"]), ", ".join(_(field) for field in g["recalled"]) or "-") for g in f["gpus"]]
    return _table(("GPU", _("source"), _("note"), _("unconfirmed: check before relying on them")), rows)


def _tokens(limit) -> str:
    return _("none (every layer windowed)") if limit is None else format_int(limit)


def decode_limits(f: dict) -> Report:
    rows = [(row["gpu"], format_int(row["compute_bound_batch"]), _tokens(row["context_limit"]),
             format_int(row["tokens_per_s"]), _(_BOUNDS.get(row["bound"], row["bound"]))) for row in f["gpus"]]
    batch = f["batch"]
    never, speed = _("never past"), _("speed at batch {batch}").format(batch=batch)
    caption = (_("decoding {model} in {weights}: the batch from which it is compute-bound with no KV cache, the "
                 "context past which no batch is, and the speed of {batch} sequence at {seq_len} tokens")
               if batch <= 1 else
               _("decoding {model} in {weights}: the batch from which it is compute-bound with no KV cache, the "
                 "context past which no batch is, and the speed of {batch} sequences at {seq_len} tokens"))
    return _table(("GPU", _("compute-bound from batch"), never, speed, _("bound")), rows,
                  caption=caption.format(model=_model(f["model"]), weights=f["weights"], batch=batch,
                                         seq_len=f"{f['seq_len']:,}"),
                  units={never: _("tokens"), speed: "tokens/s"})


def largest_batches(f: dict) -> Report:
    rows = [(format_int(row["prompt_tokens"]), format_int(row["max_batch"]), f"{row['ttft_s'] * 1e3:.1f}",
             f"{row['attention_share'] * 100:.1f}", f"{row['tpot_s'] * 1e3:.2f}") for row in f["prompts"]]
    ttft, share, tpot = _("TTFT, 1 request"), _("attention share"), "TPOT"
    return _table((_("prompt"), _("largest batch"), ttft, share, tpot), rows,
                  units={ttft: "ms", share: "%", tpot: "ms"})
