"""Every figure the source material states, recomputed with llmest: confirmed, or an erratum with its cause.

The two source documents (in Chinese):
- seed 000, "训练资源估算题" (training-resource estimation exercises, 2026-04-19): formulas, a GPU table,
  three exercises, quick-estimate rules, interview questions.
- seed 004, the long article on estimating parameters, memory, FLOPs and time, data and tokens, with pitfalls.

A figure's status is computed, not typed: "confirmed" when the recomputed value lies within ``rel_tol`` of the
stated value (or range), else "erratum". A figure that rests on an input the material does not give (a batch size,
tokens per request) is "depends": it is recomputed under a stated assumption, and its note says which values of
the missing input would give the material's figure. Each chapter registers the figures it quotes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .._registry import Registry
from .._validate import InputError
from ..units import FORMATTERS, format_number

DOCUMENTS = {
    "000": "seed 000 训练资源估算题 (estimation exercises)",
    "004": "seed 004 大模型资源估算 (the long article)",
}


@dataclass(frozen=True)
class Figure:
    key: str
    chapter: int
    document: str            # "000" or "004"
    section: str             # the material's heading, in Chinese, with its number
    claim: str               # what is claimed, in English
    quote: str               # the material's words
    stated: float | tuple    # a value, or a (low, high) range
    recompute: Callable[[], float]
    how: str                 # the llmest computation, in words
    unit: str = "count"      # "count", "bytes", "flops", "usd", "plain" (a number as it is) or "percent"
    rel_tol: float = 0.01    # the material's own rounding
    cause: str | Callable[[], str] = ""  # why the figures differ (required for an erratum), or a remark;
                                         # a callable when the text quotes recomputed numbers
    depends_on: str = ""     # the input the material leaves out, for a "depends" figure
    suffix: str = ""         # the unit a "plain" number is in: "days", "GPUs", "TFLOPS" ...

    @property
    def recomputed(self) -> float:
        return self.recompute()

    @property
    def status(self) -> str:
        if self.depends_on:
            return "depends"
        low, high = self.stated if isinstance(self.stated, tuple) else (self.stated, self.stated)
        value = self.recomputed
        inside = low * (1 - self.rel_tol) <= value <= high * (1 + self.rel_tol)
        return "confirmed" if inside else "erratum"

    def _number(self, value) -> str:
        if self.unit == "plain":  # an integer, or a small decimal such as 7.6 days
            return format_number(value)
        if self.unit == "percent":
            return f"{value * 100:.3g}%"
        return FORMATTERS[self.unit](value)

    def _fmt(self, value) -> str:
        return self._number(value) + (f" {self.suffix}" if self.suffix else "")

    @property
    def cause_text(self) -> str:
        return self.cause() if callable(self.cause) else self.cause

    @property
    def stated_text(self) -> str:
        if isinstance(self.stated, tuple):  # "2 to 28 days", the unit once
            return f"{self._number(self.stated[0])} to {self._fmt(self.stated[1])}"
        return self._fmt(self.stated)

    def box(self) -> str:
        """A short report: what the material says, the recomputed figure, and the cause."""
        title = {"erratum": "Erratum", "confirmed": "Confirmed",
                 "depends": f"Depends on an input the material does not give ({self.depends_on})"}[self.status]
        rows = [("source", f"{DOCUMENTS[self.document]}, {self.section}"),
                ("material", f"{self.quote}  ->  {self.stated_text}"),
                ("recomputed", f"{self._fmt(self.recomputed)}  ({self.how})")]
        if self.cause_text:
            label = {"erratum": "cause", "confirmed": "note", "depends": "so"}[self.status]
            rows.append((label, self.cause_text))
        lines = [f"{title}: {self.claim}"] + [f"  {label + ':':<12} {text}" for label, text in rows]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.box()


FIGURES = Registry("figure")
register, get = FIGURES.register, FIGURES.lookup


def figures(chapter: int | None = None) -> list[Figure]:
    return [f for f in FIGURES.values() if chapter is None or f.chapter == chapter]


def table(chapter: int | None = None, keys=None) -> str:
    """One line per figure (of a chapter, or the given keys in their order): key, status, stated, recomputed."""
    rows = [get(key) for key in keys] if keys is not None else figures(chapter)
    if not rows:
        raise InputError("chapter", f"chapter == {chapter}, no figures are registered for it.")
    cells = [(f.key, f.status, f.stated_text, f._fmt(f.recomputed)) for f in rows]
    key_w, stated_w, new_w = (max(len(c[i]) for c in cells + [("figure", "", "material", "recomputed")])
                              for i in (0, 2, 3))
    lines = [f"{'figure':<{key_w}}  {'status':<9}  {'material':>{stated_w}}  {'recomputed':>{new_w}}"]
    for key, status, stated, new in cells:
        lines.append(f"{key:<{key_w}}  {status:<9}  {stated:>{stated_w}}  {new:>{new_w}}")
    return "\n".join(lines)


# Each chapter registers its figures in a module of its own; importing them fills FIGURES.
from . import ch1_parameters, ch2_memory, ch3_compute, ch4_data, ch5_drills  # noqa: E402,F401
