"""How a serving estimate shows itself (``plans.estimate_request``): the request, TTFT, TPOT, throughput, memory,
the KV cache's blocks, the largest batch and the price of tokens, with where the price comes from."""

from __future__ import annotations

from ..core.i18n import N_, _
from ..core.units import UNITS, format_bytes, format_flops, format_usd
from .common import ms, no_price_text, price_text
from ..core.report import Report

BOUNDS = {"compute": N_("compute-bound"), "memory": N_("memory-bound")}
FITS = {True: N_("fits"), False: N_("does not fit")}


def decode_report(est) -> Report:
    """One decoding step on the roofline: its time, what bounds it, and tokens per second."""
    fields = [(_("step"), _("{step} ({bound}: memory {memory}, compute {compute})").format(
                  step=ms(est.step_seconds), bound=_(BOUNDS[est.bound]), memory=ms(est.memory_seconds),
                  compute=ms(est.compute_seconds))),
              (_("throughput"), _("{rate} tokens/s on {gpus}").format(
                  rate=f"{est.tokens_per_s:,.0f}", gpus=UNITS["GPUs"].show(est.gpus)))]
    data = {"step_s": est.step_seconds, "memory_s": est.memory_seconds, "compute_s": est.compute_seconds,
            "tokens_per_s": est.tokens_per_s, "bound": est.bound, "gpus": est.gpus}
    if est.all_reduce_seconds:
        fields.insert(1, (_("all-reduce"), _("{time} of the step: tensor parallelism's two all-reduces a layer").format(
            time=ms(est.all_reduce_seconds))))
        data["all_reduce_s"] = est.all_reduce_seconds
    return Report("", tuple(fields), data)


def serving_report(est) -> Report:
    """Serving on tp GPUs: the decoding step, memory per GPU against the usable memory, and the price of tokens."""
    step = decode_report(est.decode)
    fields = [*step.fields,
              (_("memory per GPU"), _("{memory} ({fits}: {usable} usable, {margin} kept free)").format(
                  memory=format_bytes(est.memory.total), fits=_(FITS[est.fits]), usable=format_bytes(est.usable_bytes),
                  margin=UNITS["fraction"].show(est.margin))),
              (_("price"), no_price_text(est.gpu) if est.price_per_gpu_hour is None else
               _("{usd} per million tokens at {price}").format(
                  usd=per_million(est.usd_per_million_tokens),
                  price=price_text(est.price_per_gpu_hour, est.gpu, est.price_listed)))]
    data = {**step.data, "memory_per_gpu_bytes": est.memory.total, "memory_parts": est.memory.parts,
            "usable_bytes": est.usable_bytes, "fits": est.fits, "gpu": est.gpu,
            "price_per_gpu_hour": est.price_per_gpu_hour, "price_listed": est.price_listed,
            "usd_per_million_tokens": est.usd_per_million_tokens}
    return Report("", tuple(fields), data)


def per_million(usd: float) -> str:
    """A price per million tokens: cents to a tenth below a dollar ($0.074), as cloud price lists write them."""
    return f"${usd:.3f}" if abs(usd) < 1 else format_usd(usd)


def request_report(est, requests_per_s=None) -> Report:
    """``requests_per_s``: also the GPUs that sustain this many requests a second."""
    s, decode = est.settings, est.decode
    on = _("{tp} × {gpu} (tensor parallel)").format(tp=s["tp"], gpu=s["gpu"]) if s["tp"] > 1 else s["gpu"]
    fraction = UNITS["fraction"].show
    fields = [
        (_("request"), _("{batch} × ({prompt} prompt + {output} output tokens) on {on}, {weights} weights").format(
            batch=f"{s['batch']:,}", prompt=f"{s['prompt_tokens']:,}", output=f"{s['output_tokens']:,}", on=on,
            weights=s["weights"])),
        ("TTFT", _("{ttft}: {flops} FLOPs of prefill at {efficiency} of the peak ({bound})").format(
            ttft=ms(est.ttft_s), flops=format_flops(est.prefill_flops), efficiency=fraction(s["prefill_efficiency"]),
            bound=_(BOUNDS[est.prefill_bound]))),
        ("TPOT", _("{tpot} a step at {context} tokens of context ({bound}: memory {memory}, compute {compute})")
         .format(tpot=ms(est.tpot_s), context=f"{est.decode_context_tokens:,}", bound=_(BOUNDS[est.bound]),
                 memory=ms(decode.memory_seconds), compute=ms(decode.compute_seconds))),
        (_("throughput"), _("{rate} output tokens/s while decoding; a request takes {seconds} s").format(
            rate=f"{est.tokens_per_s:,.0f}", seconds=f"{est.request_s:,.2f}")),
        (_("memory per GPU"), _("{memory} ({fits}: {usable} usable, {margin} kept free)").format(
            memory=format_bytes(est.memory_per_gpu_bytes), fits=_(FITS[est.fits]),
            usable=format_bytes(est.usable_bytes), margin=fraction(s["margin"]))),
        (_("KV cache"), _("{blocks} blocks of {block} tokens a sequence, {waste} of it in the last block's empty "
                          "slots").format(blocks=f"{est.blocks_per_sequence:,}", block=s["block_tokens"],
                                          waste=format_bytes(est.waste_bytes_per_sequence))),
        (_("max batch"), _("{n} sequences").format(n=f"{est.max_batch:,}")),
        (_("price"), no_price_text(s["gpu"]) if s["price_per_gpu_hour"] is None else
         _("{input} per million input tokens, {output} per million output tokens at {price}").format(
            input=per_million(est.usd_per_million_input_tokens), output=per_million(est.usd_per_million_output_tokens),
            price=price_text(s["price_per_gpu_hour"], s["gpu"], s["price_listed"])))]
    data = {"model": s["model"], "gpu": s["gpu"], "tp": s["tp"], "weights": s["weights"],
            "prompt_tokens": s["prompt_tokens"], "output_tokens": s["output_tokens"], "batch": s["batch"],
            "prefill_efficiency": s["prefill_efficiency"], "kv_dtype": s["kv_dtype"],
            "block_tokens": s["block_tokens"], "ttft_s": est.ttft_s, "tpot_s": est.tpot_s,
            "tokens_per_s": est.tokens_per_s, "request_s": est.request_s, "max_batch": est.max_batch,
            "memory_per_gpu_bytes": est.memory_per_gpu_bytes, "fits": est.fits, "usable_bytes": est.usable_bytes,
            "memory_parts": est.memory.parts, "prefill_flops": est.prefill_flops, "prefill_bound": est.prefill_bound,
            "decode_bound": est.bound, "decode_context_tokens": est.decode_context_tokens,
            "blocks_per_sequence": est.blocks_per_sequence, "waste_bytes_per_sequence": est.waste_bytes_per_sequence,
            "price_per_gpu_hour": s["price_per_gpu_hour"], "price_listed": s["price_listed"],
            "usd_per_million_input_tokens": est.usd_per_million_input_tokens,
            "usd_per_million_output_tokens": est.usd_per_million_output_tokens}
    if decode.all_reduce_seconds:
        fields.insert(3, (_("all-reduce"), _("{time} of the step: tensor parallelism's two all-reduces a layer").format(
            time=ms(decode.all_reduce_seconds))))
        data["all_reduce_s"] = decode.all_reduce_seconds
    if requests_per_s is not None:
        gpus = est.gpus_for(requests_per_s)
        data.update(requests_per_s=requests_per_s, gpus_needed=gpus)
        fields.append((_("GPUs needed"), _("{gpus} for {rate} requests/s").format(gpus=f"{gpus:,}",
                                                                               rate=f"{requests_per_s:g}")))
    return Report("", tuple(fields), data)
