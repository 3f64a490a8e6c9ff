"""How a capacity plan shows itself (``plans.plan_capacity``): the GPUs and the layout for a load under TTFT and TPOT
targets, or why no layout meets them, each layout tried, and the price of input and output tokens."""

from __future__ import annotations

from dataclasses import asdict

from ..core.i18n import N_, _
from ..core.report import Report
from ..core.units import UNITS
from .common import ms, no_price_text, price_text
from .serving import per_million
from .table import Table

ROLES = {"colocated": N_("colocated"), "prefill": N_("prefill pool"), "decode": N_("decode pool")}
REASONS = {
    "heads": N_("tp == {tp} does not divide the attention heads"),
    "weights": N_("split over {gpus} the weights leave no room for one sequence's KV cache"),
    "budget": N_("the step's budget of {chunk} tokens leaves no room for the prompts beside the decodes"),
    "tpot": N_("TPOT at a batch of one is {tpot}, over the {target} target"),
    "ttft": N_("TTFT at a batch of one is {ttft}, over the {target} target"),
}


def reason_text(fit, s) -> str:
    """Why a layout meets no target, in the current language."""
    target = ms(s["tpot_s" if fit.reason == "tpot" else "ttft_s"])
    return _(REASONS[fit.reason]).format(tp=fit.tp, gpus=UNITS["GPUs"].show(fit.tp), chunk=f"{s['chunk_tokens']:,}",
                                         tpot=ms(fit.tpot_s), ttft=ms(fit.ttft_s), target=target)


def _layout(fit) -> str:
    return _("{gpus}: {replicas} × {tp} (tensor parallel)").format(
        gpus=UNITS["GPUs"].show(fit.gpus), replicas=f"{fit.replicas:,}", tp=fit.tp)


def _tpot(fit) -> str:
    if not fit.all_reduce_s:
        return ms(fit.tpot_s)
    return _("{tpot}, of which {all_reduce} all-reduce").format(tpot=ms(fit.tpot_s), all_reduce=ms(fit.all_reduce_s))


def _tried_table(plan) -> Table:
    s = plan.settings
    rows = []
    for f in plan.tried:
        meets = f.meets
        rows.append((_(ROLES[f.role]), str(f.tp), f"{f.batch:,}" if meets else "-",
                     ms(f.ttft_s) if f.ttft_s else "-", ms(f.tpot_s) if f.tpot_s else "-",
                     f"{f.requests_per_s:,.2f}" if meets else "-", f"{f.gpus:,}" if meets else "-",
                     _("meets the targets") if meets else reason_text(f, s)))
    return Table((_("pool"), _("tensor parallel"), _("batch"), "TTFT", "TPOT", _("requests/s a replica"), _("GPUs"),
                  _("verdict")), tuple(rows))


def capacity_report(plan) -> Report:
    s = plan.settings
    title = _("{rate} requests/s of {model} on {gpu}: {prompt} prompt and {output} output tokens, TTFT within "
              "{ttft}, TPOT within {tpot}").format(
        rate=f"{s['requests_per_s']:,g}", model=s["model"] or _("the model"), gpu=s["gpu"],
        prompt=f"{s['prompt_tokens']:,}", output=f"{s['output_tokens']:,}", ttft=ms(s["ttft_s"]), tpot=ms(s["tpot_s"]))
    fields, lines = [], []
    if not plan.met:
        fields.append((_("answer"), _("no layout meets the targets: the table above says why for each layout tried")))
    elif plan.disaggregated:
        p, d = plan.prefill, plan.decode
        fields += [
            (_("answer"), _("{gpus}, prefill and decode apart").format(gpus=UNITS["GPUs"].show(plan.gpus))),
            (_("prefill pool"), _("{layout}; one prompt at a time, {rate} prompts/s a replica").format(
                layout=_layout(p), rate=f"{p.requests_per_s:,.2f}")),
            (_("decode pool"), _("{layout}; {batch} sequences a replica, {rate} requests/s a replica").format(
                layout=_layout(d), batch=f"{d.batch:,}", rate=f"{d.requests_per_s:,.2f}")),
            ("TTFT", _("{ttft}: the prefill, its queue and the KV cache's transfer ({send})").format(
                ttft=ms(p.ttft_s), send=ms(p.kv_transfer_s))),
            ("TPOT", _tpot(d))]
        c = plan.colocated
        lines.append(_("Colocated instead: {layout}.").format(layout=_layout(c)) if c else
                     _("Colocated instead: no layout meets the targets."))
    else:
        c = plan.colocated
        fields += [
            (_("answer"), _layout(c)),
            (_("batch"), _("{batch} sequences a replica (its KV cache has room for {most})").format(
                batch=f"{c.batch:,}", most=f"{c.max_batch:,}")),
            ("TTFT", _("{ttft}: half a step's wait, the queue for the prefill budget and the prompt's chunks").format(
                ttft=ms(c.ttft_s))),
            ("TPOT", _("{tpot}; prompt chunks take {share} of each step's compute").format(
                tpot=_tpot(c), share=UNITS["fraction"].show(c.prefill_share))),
            (_("throughput"), _("{rate} requests/s a replica (Little's law: batch / (output tokens × TPOT))").format(
                rate=f"{c.requests_per_s:,.2f}"))]
    if plan.met:
        fields.append((_("per GPU"), _("{rate} requests/s at this load").format(
            rate=f"{plan.requests_per_s_per_gpu:,.3f}")))
        fields.append((_("price"), no_price_text(s["gpu"]) if s["price_per_gpu_hour"] is None else
                       _("{input} per million input tokens, {output} per million output tokens at {price}").format(
                           input=per_million(plan.usd_per_million_input_tokens),
                           output=per_million(plan.usd_per_million_output_tokens),
                           price=price_text(s["price_per_gpu_hour"], s["gpu"], s["price_listed"]))))
    if s["cached_tokens"]:
        lines.append(_("A prefix cache holds {cached} of each prompt's {prompt} tokens: {new} are computed.").format(
            cached=f"{s['cached_tokens']:,}", prompt=f"{s['prompt_tokens']:,}", new=f"{s['uncached_tokens']:,}"))
    data = {**{k: s[k] for k in s}, "met": plan.met, "gpus": plan.gpus,
            "requests_per_s_per_gpu": plan.requests_per_s_per_gpu,
            "usd_per_million_input_tokens": plan.usd_per_million_input_tokens,
            "usd_per_million_output_tokens": plan.usd_per_million_output_tokens,
            "colocated": _fit_data(plan.colocated), "prefill": _fit_data(plan.prefill),
            "decode": _fit_data(plan.decode), "tried": [_fit_data(f) for f in plan.tried]}
    return Report(title, tuple(fields), data, blocks=(_tried_table(plan),), lines=tuple(lines))


def _fit_data(fit) -> dict | None:
    return None if fit is None else {**asdict(fit), "meets": fit.meets}
