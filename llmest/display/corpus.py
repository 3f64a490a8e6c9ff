"""How a corpus estimate shows itself (``plans.estimate_corpus``): the model, its tokens, the cleaned text and raw
crawl they take, and with a cluster the compute-optimal model it affords."""

from __future__ import annotations

from ..core.i18n import N_, _
from ..core.units import UNITS
from ..core.report import Report
from .common import number, shown

LANGUAGES = {"english": N_("English"), "chinese": N_("Chinese"), "code": N_("code")}  # as "cleaned ..." names them


def budget_report(est) -> Report:
    """A cluster's FLOPs for some days, and the compute-optimal model they buy."""
    n_opt, d_opt = est.chinchilla()
    fields = [(_("cluster"), _("{gpus} × {peak} at {mfu} MFU for {days}").format(
                  gpus=UNITS["GPUs"].show(est.gpus), peak=shown(est.peak_flops_per_s / 1e12, "TFLOPS"),
                  mfu=shown(est.mfu, "fraction"), days=shown(est.days, "days"))),
              ("FLOPs", shown(est.flops, "FLOPs")),
              (_("compute-optimal"), _("{params} parameters on {tokens}").format(
                  params=number(n_opt, "parameters"), tokens=shown(d_opt, "tokens")))]
    data = {"gpus": est.gpus, "days": est.days, "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu,
            "flops": est.flops, "compute_optimal": {"params": n_opt, "tokens": d_opt}}
    return Report("", tuple(fields), data)


def corpus_report(est) -> Report:
    """With a cluster, its FLOPs and compute-optimal model first ("64 × A100 80GB, 30 days")."""
    one = next(iter(est.rates)) if len(est.rates) == 1 else None
    data = {"params": est.n_params, "tokens": est.tokens, "mix": est.mix,
            "tokens_per_gb": est.rates[one] if one else est.rates, "cleaned_bytes": est.cleaned_bytes,
            "cleaning_yield": est.cleaning_yield, "raw_bytes": est.raw_bytes,
            "tokens_per_param": est.tokens_per_param}
    if one:
        data["language"] = one
    fields = []
    if est.budget_flops is not None:
        n_opt, d_opt = est.budget_optimal
        data.update(budget_flops=est.budget_flops, peak_flops_per_s=est.peak_flops_per_s,
                    budget_optimal={"params": n_opt, "tokens": d_opt})
        gpus, days, gpu = est.cluster
        cluster = (_("{gpus} GPUs, {days}") if gpu is None else _("{gpus}, {days}")).format(
            gpus=gpus if gpu is None else f"{gpus} × {gpu}", days=shown(days, "days"))
        fields.append((cluster, _(
            "{flops} at {peak} and {mfu} MFU; compute-optimal: {params} parameters on {tokens}").format(
            flops=shown(est.budget_flops, "FLOPs"), peak=shown(est.peak_flops_per_s / 1e12, "TFLOPS"),
            mfu=shown(est.budget_mfu, "fraction"), params=number(n_opt, "parameters"),
            tokens=shown(d_opt, "tokens"))))
    optimal = est.budget_optimal is not None and est.n_params == est.budget_optimal[0]
    fields += [(_("parameters"), number(est.n_params, "parameters") + (_(" (the compute-optimal model)")
                                                                        if optimal else "")),
               (_("tokens"), _("{tokens} ({per} per parameter)").format(
                   tokens=number(est.tokens, "tokens"), per=number(est.tokens_per_param, "tokens/param")))]
    for language, cleaned in est.cleaned.items():
        fields.append((_("cleaned {language}").format(language=_(LANGUAGES[language])), _(
            "{bytes} at {rate} tokens per GB").format(bytes=shown(cleaned, "bytes"),
                                                      rate=number(est.rates[language], "tokens/GB"))))
    fields.append((_("raw crawl"), _("{bytes} at a {share} cleaning yield").format(
        bytes=shown(est.raw_bytes, "bytes"), share=shown(est.cleaning_yield, "fraction"))))
    return Report("", tuple(fields), data)
