"""How chapter 2's findings read (``llmest.plans.findings.memory`` works them out)."""

from __future__ import annotations

from ...core.i18n import _
from ...core.report import Report
from ...core.units import format_percent


def state_gpus(f: dict) -> Report:
    return Report("", lines=(_("the states alone, nothing kept free: {bare} GPUs; with {margin} free: {kept} GPUs")
                             .format(bare=f["bare"], margin=format_percent(f["margin"]), kept=f["kept"]),))
