"""Chapter 5's figures of the layout search: step time against memory per GPU for every layout, and the MFU of the
best layout as the GPUs grow."""

from __future__ import annotations

from ...core._validate import InputError, quote
from ...core.i18n import _
from ...core.units import format_percent
from .base import axes as _axes


def layout_search(found, ax=None):
    """Every layout of a ``plans.search_layouts`` result: step time against memory per GPU, fitting layouts in blue,
    the others in red, the usable memory dashed and the fastest that fits ringed."""
    from ...catalog import hardware
    from ...plans import LayoutSearch

    if not isinstance(found, LayoutSearch):
        raise InputError("found", _("found == {value}, must be what plans.search_layouts returns.").format(
            value=quote(found)))
    ax = _axes(ax, (7, 4.2))
    c = found.columns
    for rows, color, label in ((c["fits"], "#4c72b0", _("fits")), (~c["fits"], "#c44e52", _("does not fit"))):
        if rows.any():
            ax.scatter(c["memory_per_gpu_bytes"][rows] / 1e9, c["step_time_s"][rows], s=4, alpha=0.4, color=color,
                       label=f"{label} ({rows.sum():,})", linewidths=0)
    usable = hardware.gpu(found.gpu).memory_bytes * (1 - found.settings["margin"])
    ax.axvline(usable / 1e9, color="black", linestyle="--", linewidth=1, label=_("usable memory"))
    best = found.best
    if best:
        ax.plot(best["memory_per_gpu_bytes"] / 1e9, best["step_time_s"], "o", markersize=10, markerfacecolor="none",
                markeredgecolor="#b00020", markeredgewidth=2,
                label=_("fastest that fits: TP {tp} CP {cp} PP {pp} DP {dp}, ZeRO-{zero}").format(
                    tp=best["tp"], cp=best["cp"], pp=best["pp"], dp=best["dp"], zero=best["zero"]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(_("memory per GPU (GB)"))
    ax.set_ylabel(_("step time (s)"))
    ax.set_title(_("{model} on {gpus} × {gpu}: {n} layouts").format(model=found.model, gpus=f"{found.gpus:,}",
                                                                    gpu=found.gpu, n=f"{len(found):,}"))
    ax.legend(fontsize=8, loc="upper right")
    return ax


def mfu_by_gpus(searches, ax=None):
    """The best layout's MFU and step time for each search of ``searches`` (one per GPU count, the same run)."""
    ax = _axes(ax, (7, 3.6))
    best = [(s.gpus, s.best) for s in searches if s.best]
    if not best:
        raise InputError("searches", _("searches: no layout fits in any of them, so there is no MFU to draw."))
    gpus = [n for n, _ in best]
    ax.plot(gpus, [b["mfu"] * 100 for _, b in best], "o-", color="#4c72b0")
    for n, b in best:
        ax.annotate(f"{format_percent(b['mfu'], 0)}\nTP{b['tp']} PP{b['pp']} DP{b['dp']}", (n, b["mfu"] * 100),
                    textcoords="offset points", xytext=(0, 8), ha="center", fontsize=7)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(_("GPUs (the same global batch)"))
    ax.set_ylabel(_("MFU of the best layout (%)"))
    ax.set_ylim(0, max(b["mfu"] for _, b in best) * 130)
    return ax


def published_against_best(runs, ax=None):
    """For each published run of ``runs`` (names in ``published_layouts.RUNS``), two stacked bars: the model's step
    time for the published layout and for the search's best, split into compute, bubble and exposed
    communication, with the published step time marked."""
    from ...plans import published_layouts as pl

    names = [pl._run(name).name for name in runs]
    if not names:
        raise InputError("runs", _("runs == [], must name at least one published run."))
    ax = _axes(ax, (8, 0.9 + 0.75 * len(names)))
    parts = (("compute_s", "#4c72b0", _("compute")), ("bubble_s", "#dd8452", _("bubble")),
             ("exposed_comm_s", "#c44e52", _("exposed communication")))
    labels, places, y = [], [], 0.0
    for i, name in enumerate(names):
        published, best = pl.predict(name), pl.search(name).best
        for row, label in ((published, _("published layout")), (best, _("search's best"))):
            left = 0.0
            for key, color, part in parts:
                ax.barh(y, row[key], left=left, color=color, height=0.8, label=part if y == 0 else None)
                left += row[key]
            labels.append(f"{name}\n{label}" if label == _("published layout") else label)
            places.append(y)
            y += 1
        step = pl.RUNS[name].published_step_s or published["step_time_s"] * published["mfu"] / pl.published_mfu(name)
        ax.plot([step] * 2, [y - 2.45, y - 1.55], color="black", linewidth=2,
                label=_("published step (or the one its MFU implies)") if i == 0 else None)
        y += 0.5
    ax.set_yticks(places, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(_("step time (s)"))
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / len(names)), ncol=2)
    return ax
