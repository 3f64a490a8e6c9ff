"""How the serving features show themselves (``plans.decode_step``, ``plans.serving_features``): one decoding step's
terms, speculative decoding's speed-up, the KV cache's precisions and offload, and the experts a MoE batch reads."""

from __future__ import annotations

from ..core.i18n import N_, _
from ..core.report import Report
from ..core.units import format_bytes, format_int, format_percent, show
from .common import ms
from .table import Table

BOUNDS = {"memory": N_("memory-bound"), "compute": N_("compute-bound"), "network": N_("network-bound"),
          "nvlink": N_("NVLink-bound")}
LINKS = {"given": N_("the bandwidth given")}


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def decode_step_report(step) -> Report:
    s = step.settings
    fields = [
        (_("step"), _("{step} ({bound}): memory {memory}, compute {compute}, network {network}, NVLink {nvlink}, at "
                      "{share} of the roofline").format(
            step=ms(step.step_s), bound=_(BOUNDS[step.bound]), memory=ms(step.memory_s), compute=ms(step.compute_s),
            network=ms(step.network_s), nvlink=ms(step.nvlink_s), share=format_percent(s["roofline_share"], 0))),
        (_("read per GPU"), _("{weights} of weights, {kv} of KV cache").format(
            weights=format_bytes(step.weight_bytes), kv=format_bytes(step.kv_bytes))),
        (_("throughput"), _("{rate} tokens/s a GPU ({batch} sequences × {tokens} a step)").format(
            rate=_rate(step.tokens_per_s), batch=format_int(s["batch"]), tokens=s["tokens_per_sequence"]))]
    if step.experts_read is not None:
        fields.append((_("experts read"), _("{read} of {experts} routed experts a layer").format(
            read=f"{step.experts_read:,.1f}", experts=s["experts"])))
    data = {**s, "step_s": step.step_s, "memory_s": step.memory_s, "compute_s": step.compute_s,
            "network_s": step.network_s, "nvlink_s": step.nvlink_s, "weight_bytes": step.weight_bytes,
            "kv_bytes": step.kv_bytes, "flops": step.flops, "experts_read": step.experts_read,
            "tokens_per_s": step.tokens_per_s, "bound": step.bound}
    return Report("", tuple(fields), data)


def speculative_report(est) -> Report:
    s = est.settings
    draft = _("its multi-token-prediction module") if s["draft"] == "mtp" else s["draft"]
    fields = [
        (_("draft"), _("{draft}, draft length k = {k}, each draft token accepted with probability {alpha}").format(
            draft=draft, k=s["draft_tokens"], alpha=format_percent(s["acceptance"], 0))),
        (_("tokens a step"), f"{est.tokens_per_step:.3f}"),
        (_("step"), _("{step}: the draft's steps ({k} × {draft_step}) and a verification of {verify} (plain "
                      "step {plain})").format(step=ms(est.step_s), k=s["draft_tokens"], draft_step=ms(est.draft_step_s),
                                         verify=ms(est.verify.step_s), plain=ms(est.plain.step_s))),
        (_("speed-up"), _("{speedup:.2f}× the tokens a second of plain decoding ({rate} tokens/s a GPU)").format(
            speedup=est.speedup, rate=_rate(est.tokens_per_s)))]
    data = {**s, "tokens_per_step": est.tokens_per_step, "step_s": est.step_s, "draft_step_s": est.draft_step_s,
            "verify_step_s": est.verify.step_s, "plain_step_s": est.plain.step_s, "speedup": est.speedup,
            "tokens_per_s": est.tokens_per_s}
    return Report("", tuple(fields), data)


def kv_options_report(opts) -> Report:
    s = opts.settings
    title = _("{model} on {tp} × {gpu}, {prompt} prompt + {output} output tokens, {weights} weights").format(
        model=s["model"], tp=s["tp"], gpu=s["gpu"], prompt=format_int(s["prompt_tokens"]),
        output=format_int(s["output_tokens"]), weights=s["weights"])
    table = Table((_("KV cache"), _("bytes a token a GPU"), _("max batch"), _("TPOT there"), _("tokens/s together"),
                   _("TPOT at batch {n}").format(n=format_int(s["first_batch"]))),
                  [(row["kv_dtype"], format_bytes(row["bytes_per_token"]), format_int(row["max_batch"]),
                    ms(row["tpot_s"]), _rate(row["tokens_per_s"]), ms(row["tpot_at_first_batch_s"]))
                   for row in opts.rows])
    return Report(title, blocks=(table,), data={**s, "rows": [dict(row) for row in opts.rows]})


def kv_offload_report(off) -> Report:
    s = off.settings
    title = _("{model}: bringing back the KV cache of {tokens} tokens ({bytes} a GPU, {dtype}) against computing "
              "its prefill again in {recompute}").format(
        model=s["model"], tokens=format_int(s["context_tokens"]), bytes=format_bytes(off.cache_bytes),
        dtype=s["kv_dtype"], recompute=show(off.recompute_s, "seconds"))
    table = Table((_("link"), _("one way"), _("time"), _("against recomputing")),
                  [(_(LINKS[name]) if name in LINKS else name, _("{rate}/s").format(rate=format_bytes(rate)),
                    ms(seconds), _("{ratio:,.1f}× faster").format(ratio=off.recompute_s / seconds))
                   for name, rate, seconds in off.links])
    data = {**s, "cache_bytes": off.cache_bytes, "recompute_s": off.recompute_s,
            "links": [dict(link=name, bytes_per_s=rate, seconds=seconds) for name, rate, seconds in off.links]}
    return Report(title, blocks=(table,), data=data)


def moe_decode_report(moe) -> Report:
    s = moe.settings
    title = _("{model} decoding on {gpu} (tp {tp}, ep {ep}): {k} of {experts} routed experts a token, {shared} "
              "shared").format(model=s["model"], gpu=s["gpu"], tp=s["tp"], ep=s["ep"], k=s["top_k"],
                               experts=s["experts"], shared=s["shared"])
    table = Table((_("batch"), _("experts read a layer"), _("weights read a GPU"), _("step"), _("step reading all"),
                   _("tokens/s a GPU"), _("bound"), _("weights + KV cache a GPU")),
                  [(format_int(row["batch"]), f"{row['experts_read']:,.1f}", format_bytes(row["weight_bytes"]),
                    ms(row["step_s"]), ms(row["all_step_s"]), _rate(row["tokens_per_s"]), _(BOUNDS[row["bound"]]),
                    (_("{bytes}, fits") if row["fits"] else _("{bytes}: does not fit")).format(
                        bytes=format_bytes(row["held_bytes"])))
                   for row in moe.rows])
    return Report(title, blocks=(table,), data={**s, "rows": [dict(row) for row in moe.rows]})
