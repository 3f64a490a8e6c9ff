"""Comparisons: one question asked of several settings at once ("the memory per GPU at each ZeRO stage"), as one
result that shows itself as a table (``compare_memory``), and the sheet's memory reductions one after another
(``memory_reductions``)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from ..catalog import hardware
from ..core import _validate as v
from ..core._validate import InputError
from ..core.i18n import _
from ..core.report import Report, Shows
from ..display.memory import comparison_report
from ..formulas.memory import MEMORY_MARGIN
from ..formulas.model import config_from
from .memory_plan import MemoryBreakdown, qlora_memory, training_memory, usable_bytes

# What a variant of a training run may change: the keywords of training_memory.
TRAINING_SETTINGS = frozenset(inspect.signature(training_memory).parameters) - {"model"}


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
    cfg = config_from(model)
    variants = training_variants(variants, settings, "[dict(zero=0), dict(zero=3)]")
    usable_bytes(gpu, margin)  # checks the GPU and the margin first
    v.check_int("gpus_per_node", gpus_per_node)
    breakdowns = []
    for i, variant in enumerate(variants):
        with v.item_of("variants", i):
            breakdowns.append(training_memory(cfg, **settings, **variant))
    return MemoryComparison(cfg.name, dict(settings), tuple(dict(x) for x in variants),
                            tuple(breakdowns), hardware.gpu(gpu).name, margin, gpus_per_node)


def training_variants(variants, settings: dict, example: str) -> list[dict]:
    """The variants of a comparison of training runs: each a non-empty dict of the keywords of ``training_memory``
    that it changes, none of them also among the ``settings`` all variants share (a dict of those keywords too,
    empty where they share none)."""
    if not isinstance(settings, dict):
        raise InputError("settings", _("settings == {value}, must be a dict of the settings of a training run that "
                                       "all variants share (empty for none).").format(value=v.quote(settings)))
    unknown = sorted(set(settings) - TRAINING_SETTINGS, key=str)
    if unknown:
        raise InputError("settings", _("settings sets {key}, which is not a setting of a training run: {known}.")
                         .format(key=v.quote(unknown[0]), known=", ".join(sorted(TRAINING_SETTINGS))))
    if not isinstance(variants, (list, tuple)) or not variants or not all(
            isinstance(variant, dict) and variant for variant in variants):
        raise InputError("variants", f"variants == {v.quote(variants)}, must be a list of dicts of settings, such "
                                     f"as {example}.")
    for i, variant in enumerate(variants):
        shared, unknown = sorted(set(variant) & set(settings)), sorted(set(variant) - TRAINING_SETTINGS, key=str)
        if shared:
            raise InputError("variants", f"variants[{i}] sets {shared[0]!r}, which is also given for all: give it "
                                         "in one place.")
        if unknown:
            raise InputError("variants", f"variants[{i}] sets {unknown[0]!r}, which is not a setting of a training "
                                         f"run: {', '.join(sorted(TRAINING_SETTINGS))}.")
    return [dict(variant) for variant in variants]


@v.checked(**v.WHOLE)
def memory_reductions(model, *, dp=8, micro_batch=4, seq_len=4096) -> dict:
    """The sheet's four answers to "how do you reduce training memory?" applied one after another, each named in
    the language shown: plain data parallelism over ``dp`` GPUs with eager attention, + FlashAttention, + full
    recomputation (gradient checkpointing), + ZeRO-3 over the same GPUs (``training_memory``); and QLoRA instead
    (``qlora_memory``), which answers for fine-tuning only. Name -> MemoryBreakdown per GPU, what a plot of memory
    stacks takes."""
    cfg = config_from(model)
    setup = dict(dp=dp, micro_batch=micro_batch, seq_len=seq_len)
    return {
        _("plain data parallel"): training_memory(cfg, flash=False, **setup),
        _("+ FlashAttention"): training_memory(cfg, flash=True, **setup),
        _("+ gradient checkpointing"): training_memory(cfg, flash=True, recompute="full", **setup),
        _("+ ZeRO-3 over {dp} GPUs").format(dp=dp): training_memory(cfg, flash=True, recompute="full", zero=3, **setup),
        _("QLoRA instead (fine-tuning)"): qlora_memory(cfg, micro_batch=micro_batch, seq_len=seq_len),
    }
