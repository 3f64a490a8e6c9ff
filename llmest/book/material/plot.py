"""The material's figures against the recomputed ones, on one log-log chart (loaded on first use: it needs
matplotlib, which ``import llmest`` does not load)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ...core.i18n import _
from .figure import STATUSES, figures as all_figures
from .render import STATUS_COLORS, STATUS_WORDS

MARKERS = {"confirmed": "o", "erratum": "X", "depends": "D", "contested": "s"}
OPEN_SPAN = 4   # how far (a factor) the bar of a one-sided bound reaches past it, drawn dashed
RATIO_TICKS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)


def mark_position(figure) -> float:
    """Where a figure's mark sits along the material's axis: its figure, the geometric middle of its range, or the
    bound it states."""
    low, high = figure.bounds
    if low is None or high is None:
        return low if high is None else high
    return math.sqrt(low * high)


def material_vs_recomputed(figures=None, axes=None):
    """One mark per figure with a number, coloured and shaped by status, on two panels. Above: the material's
    figure (x) against the recomputed one (y), both in the material's unit, on log-log axes; a range is a bar across
    it, a one-sided bound a dashed bar reaching past it. Below: how far off each is, the recomputed value over the
    nearer end of the material's figure (1 inside it), a row per status. Figures with no number are left out and
    counted in the title. Returns the two Axes."""
    figures = all_figures() if figures is None else list(figures)
    numeric = [f for f in figures if f.stated is not None]
    left_out = [f.key for f in figures if f.stated is None]
    if axes is None:
        axes = plt.subplots(2, 1, figsize=(7.5, 9.5), height_ratios=(3, 1), layout="constrained")[1]
    overview, ratios = axes
    _draw_overview(overview, numeric)
    _draw_ratios(ratios, numeric)
    said = {"count": len(left_out), "keys": ", ".join(left_out)}
    note = "" if not left_out else (_("; {count} claim with no number left out ({keys})") if len(left_out) == 1
                                    else _("; {count} claims with no number left out ({keys})")).format(**said)
    overview.set_title(_("The material's figures against the recomputed ones\n{count} figures with a number{note}")
                       .format(count=len(numeric), note=note), fontsize=9)
    return overview, ratios


def _by_status(numeric):
    for status in STATUSES:
        shown = [f for f in numeric if f.status == status]
        if shown:
            yield status, shown, STATUS_COLORS[status]


def _draw_overview(ax, numeric):
    for figure in numeric:
        low, high = figure.bounds
        y, color = figure.compared, STATUS_COLORS[figure.status]["accent"]
        if low is None:
            ax.plot([high / OPEN_SPAN, high], [y, y], color=color, lw=1.5, ls="--", alpha=0.6)
        elif high is None:
            ax.plot([low, low * OPEN_SPAN], [y, y], color=color, lw=1.5, ls="--", alpha=0.6)
        elif low != high:
            ax.plot([low, high], [y, y], color=color, lw=3, alpha=0.45, solid_capstyle="butt")
    for status, shown, colors in _by_status(numeric):
        ax.plot([mark_position(f) for f in shown], [f.compared for f in shown], MARKERS[status], ls="none",
                color=colors["accent"], markeredgecolor=colors["ink"], markersize=6,
                label=f"{_(STATUS_WORDS[status])} ({len(shown)})")
    values = [v for f in numeric for v in (*(b for b in f.bounds if b is not None), f.compared)]
    span = (min(values) / OPEN_SPAN, max(values) * OPEN_SPAN)
    ax.plot(span, span, color="#57606a", lw=0.8, zorder=0)
    ax.set(xscale="log", yscale="log", xlim=span, ylim=span, aspect="equal",
           xlabel=_("the material's figure, in its unit"), ylabel=_("recomputed, in the material's unit"))
    ax.grid(True, color="#d0d7de", lw=0.5)
    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="#57606a", lw=0.8), Line2D([], [], color="#57606a", lw=3, alpha=0.45),
                Line2D([], [], color="#57606a", lw=1.5, ls="--", alpha=0.6)]
    labels += [_("recomputed = material"), _("the material's range"), _("a one-sided bound")]
    ax.legend(handles, labels, fontsize=8, loc="upper left")


def _draw_ratios(ax, numeric):
    rows = []
    for row, (status, shown, colors) in enumerate(_by_status(numeric)):
        # Spread the marks of a row over five lanes, so figures at the same ratio stay apart.
        ax.plot([f.ratio_to_stated for f in shown], [row + (i % 5 - 2) * 0.12 for i in range(len(shown))],
                MARKERS[status], ls="none", color=colors["accent"], markeredgecolor=colors["ink"], markersize=5)
        rows.append(status)
    ax.axvline(1, color="#57606a", lw=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(RATIO_TICKS))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_yticks(range(len(rows)), [_(STATUS_WORDS[status]) for status in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel(_("recomputed ÷ the material's figure (the nearer end of a range; 1 inside it)"))
    ax.grid(True, axis="x", color="#d0d7de", lw=0.5)
