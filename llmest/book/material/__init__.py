"""Every figure the source material states, recomputed with llmest: confirmed, an erratum with its cause, a figure
that depends on an input the material leaves out, or a judgement the literature contests.

The two source documents (in Chinese):
- seed 000, "训练资源估算题" (training-resource estimation exercises, 2026-04-19): formulas, a GPU table,
  three exercises, quick-estimate rules, interview questions.
- seed 004, the long article on estimating parameters, memory, FLOPs and time, data and tokens, with pitfalls.

A figure's status follows ``STATUS_RULE``, and each box says which part of the rule it meets and with what tolerance.
A figure declares the unit of what its recompute returns (``unit``) and the unit the material states it in
(``stated_in``, when that differs: a run recomputed in days against the material's weeks); the figure converts
between the two, and every label it prints comes from ``UNITS``. Each chapter registers the figures it quotes.

A figure, ``boxes(...)`` and ``table(...)`` print as plain text and show in Jupyter as HTML (``render``);
``plot.material_vs_recomputed()`` draws every figure with a number against its recomputed value.
"""

from .figure import (DOCUMENTS, FIGURES, SIX_ND, STATUS_RULE, STATUSES, UNITS, Figure, Unit, boxes, convert, figures,
                     get, register, table)
from .render import Rendered

# Each chapter registers its figures in a module of its own; importing them fills FIGURES.
from . import ch1_parameters, ch2_memory, ch3_compute, ch4_data, ch5_drills  # noqa: F401

__all__ = ["DOCUMENTS", "FIGURES", "SIX_ND", "STATUS_RULE", "STATUSES", "UNITS", "Figure", "Rendered", "Unit", "boxes",
           "convert", "figures", "get", "register", "table"]


def __getattr__(name):
    # The plot needs matplotlib, which `import llmest` does not load; it loads when first touched.
    if name == "plot":
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'llmest.book.material' has no attribute {name!r}")
