"""Chapter 5's progress figure: accuracy by topic over time, from the reviews in a progress store."""

from __future__ import annotations

from ...core._validate import InputError
from ...core.i18n import N_, _
from .base import axes

TOPIC_COLORS = {"parameters": "#4c72b0", "memory": "#dd8452", "compute": "#55a868", "data": "#8172b2",
                "serving": "#c44e52"}


TOPIC_NAMES = {"parameters": N_("parameters"), "memory": N_("memory"), "compute": N_("compute"), "data": N_("data"),
               "serving": N_("serving")}


def accuracy_by_topic(accuracy: dict, ax=None):
    """One line a topic: the share of its last 20 reviews answered right, at the end of each day of reviews
    (``progress.accuracy_by_topic``); a point's size grows with the reviews of that day."""
    if not isinstance(accuracy, dict):
        raise InputError("accuracy", _("accuracy must be the dict of progress.accuracy_by_topic(store)."))
    ax = axes(ax, (7, 3.4))
    for topic, rows in accuracy.items():
        days, recent = [row[0] for row in rows], [row[3] * 100 for row in rows]
        name = _(TOPIC_NAMES[topic]) if topic in TOPIC_NAMES else topic
        ax.plot(days, recent, "-", color=TOPIC_COLORS.get(topic), label=name)
        ax.scatter(days, recent, s=[8 + 4 * row[2] for row in rows], color=TOPIC_COLORS.get(topic))
    ax.set_ylim(-5, 105)
    ax.set_ylabel(_("right, last 20 reviews (%)"))
    ax.set_xlabel(_("day (UTC)"))
    ax.tick_params(axis="x", labelrotation=30)
    if accuracy:
        ax.legend(fontsize=8, loc="lower right")
    else:
        ax.text(0.5, 0.5, _("no reviews yet"), transform=ax.transAxes, ha="center", color="#555")
    return ax
