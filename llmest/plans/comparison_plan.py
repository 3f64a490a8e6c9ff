"""Comparisons: one question asked of several settings at once ("the memory per GPU at each ZeRO stage"), as one
result that shows itself as a table (``compare_memory``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import hardware
from ..core import _validate as v
from ..core._validate import InputError
from ..core.report import Report, Shows
from ..display.memory import comparison_report
from ..formulas.memory import MEMORY_MARGIN
from ..formulas.model import config_from
from .memory_plan import MemoryBreakdown, training_memory, usable_bytes


@dataclass(frozen=True)
class MemoryComparison(Shows):
    """The training memory per GPU of one model under each of several settings: ``variants`` (each a dict of the
    settings that differ) and ``breakdowns`` in the same order; ``settings``: what all of them share."""

    model: str
    settings: dict
    variants: tuple
    breakdowns: tuple
    gpu: str
    margin: float
    gpus_per_node: int = 8

    @property
    def usable_bytes(self) -> float:
        return usable_bytes(self.gpu, self.margin)

    def fits(self, breakdown: MemoryBreakdown) -> bool:
        return breakdown.total <= self.usable_bytes

    def labelled(self) -> dict:
        """Each breakdown by its variant's label in the current language ("ZeRO-3", "micro-batch 4"): what a plot
        of the same comparison takes."""
        return dict(zip(self.report().data["labels"], self.breakdowns))

    def report(self) -> Report:
        return comparison_report(self)


@v.checked(**v.WHOLE)
def compare_memory(model, variants, *, gpu="A100 80GB", margin=MEMORY_MARGIN, gpus_per_node=8,
                   **settings) -> MemoryComparison:
    """``training_memory(model, **settings, **variant)`` for each variant (a dict of the settings it changes:
    ``[dict(zero=z) for z in range(4)]``), and whether each fits ``gpu`` with ``margin`` kept free."""
    if not isinstance(variants, (list, tuple)) or not variants or not all(
            isinstance(variant, dict) and variant for variant in variants):
        raise InputError("variants", f"variants == {v.quote(variants)}, must be a list of dicts of settings, such "
                                     "as [dict(zero=0), dict(zero=3)].")
    usable_bytes(gpu, margin)  # checks the GPU and the margin first
    v.check_int("gpus_per_node", gpus_per_node)
    breakdowns = []
    for i, variant in enumerate(variants):
        shared = set(variant) & set(settings)
        if shared:
            raise InputError("variants", f"variants[{i}] sets {sorted(shared)[0]!r}, which is also given for all: "
                                         "give it in one place.")
        breakdowns.append(training_memory(model, **settings, **variant))
    return MemoryComparison(config_from(model).name, dict(settings), tuple(dict(x) for x in variants),
                            tuple(breakdowns), hardware.gpu(gpu).name, margin, gpus_per_node)
