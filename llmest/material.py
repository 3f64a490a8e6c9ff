"""Every figure the source material states, recomputed with llmest: confirmed, or an erratum with its cause.

The two source documents (in Chinese):
- seed 000, "训练资源估算题" (training-resource estimation exercises, 2026-04-19): formulas, a GPU table,
  three exercises, quick-estimate rules, interview questions.
- seed 004, the long article on estimating parameters, memory, FLOPs and time, data and tokens, with pitfalls.

A figure's status is computed, not typed: "confirmed" when the recomputed value lies within ``rel_tol`` of the
stated value (or range), else "erratum". Each chapter registers the figures it quotes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import model as m
from ._registry import Registry
from ._validate import InputError
from .units import FORMATTERS, format_count, format_int

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
    unit: str = "count"      # "count", "bytes" or "plain"
    rel_tol: float = 0.01    # the material's own rounding
    cause: str | Callable[[], str] = ""  # why the figures differ (required for an erratum), or a remark;
                                         # a callable when the text quotes recomputed numbers

    @property
    def recomputed(self) -> float:
        return self.recompute()

    @property
    def status(self) -> str:
        low, high = self.stated if isinstance(self.stated, tuple) else (self.stated, self.stated)
        value = self.recomputed
        inside = low * (1 - self.rel_tol) <= value <= high * (1 + self.rel_tol)
        return "confirmed" if inside else "erratum"

    def _fmt(self, value) -> str:
        return format_int(value) if self.unit == "plain" else FORMATTERS[self.unit](value)

    @property
    def cause_text(self) -> str:
        return self.cause() if callable(self.cause) else self.cause

    @property
    def stated_text(self) -> str:
        if isinstance(self.stated, tuple):
            return f"{self._fmt(self.stated[0])} to {self._fmt(self.stated[1])}"
        return self._fmt(self.stated)

    def box(self) -> str:
        """A short report: what the material says, the recomputed figure, and the cause."""
        title = "Erratum" if self.status == "erratum" else "Confirmed"
        rows = [("source", f"{DOCUMENTS[self.document]}, {self.section}"),
                ("material", f"{self.quote}  ->  {self.stated_text}"),
                ("recomputed", f"{self._fmt(self.recomputed)}  ({self.how})")]
        if self.cause_text:
            rows.append(("cause" if self.status == "erratum" else "note", self.cause_text))
        lines = [f"{title}: {self.claim}"] + [f"  {label + ':':<12} {text}" for label, text in rows]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.box()


FIGURES = Registry("figure")
register, get = FIGURES.register, FIGURES.lookup


def figures(chapter: int | None = None) -> list[Figure]:
    return [f for f in FIGURES.values() if chapter is None or f.chapter == chapter]


def table(chapter: int | None = None) -> str:
    """One line per figure: key, status, stated, recomputed."""
    rows = figures(chapter)
    if not rows:
        raise InputError("chapter", f"chapter == {chapter}, no figures are registered for it.")
    width = max(len(f.key) for f in rows)
    lines = [f"{'figure':<{width}}  {'status':<9}  {'material':>22}  {'recomputed':>14}"]
    for f in rows:
        lines.append(f"{f.key:<{width}}  {f.status:<9}  {f.stated_text:>22}  {f._fmt(f.recomputed):>14}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 1: parameters (seed 004 §1)
# ----------------------------------------------------------------------------------------------------------------

_S11 = "§1.1 一个标准Transformer层的参数量到底怎么算"
_S12 = "§1.2 三层快速估算：不查表也能心里有数"
_VOCAB = 32000  # the vocabulary of the material's example model (§1.1), used for its size table too


def _total(name: str) -> float:
    return m.count_params(m.preset(name)).total


def _cause_total() -> str:
    cfg = m.preset("material-7b")
    norms = m.count_params(cfg)["norms"]
    head = m.embedding_params(_VOCAB, 4096)
    return (f"The rule leaves out the norms ({format_int(norms)} more with LayerNorm) and counts the embedding "
            f"once, as for a tied output head; an untied head adds another {format_count(head)}.")


def _material_hidden() -> float:
    """The material's own method: subtract about 2B of embedding from 30B, divide by 48 and by 12, take the root."""
    return ((30e9 - 2e9) / 48 / 12) ** 0.5


def _cause_hidden() -> str:
    exact = m.rule_hidden_size(30e9, 48, _VOCAB)
    low, high = (e / _material_hidden() for e in (1.5e9, 2e9))
    return (f"The material's method checks out. Its 1.5-2B of embedding implies a vocabulary of "
            f"{format_count(low)}-{format_count(high)} at this width; with the V = 32,000 of §1.1 the table is "
            f"only {format_count(m.embedding_params(_VOCAB, exact))}, and solving 12·L·H² + V·H = N exactly gives "
            f"H = {exact:,.0f}. Both are about {round(exact, -3):,.0f}.")


def _cause_row(rule_args, real: str) -> Callable[[], str]:
    def cause() -> str:
        cfg = m.preset(real)
        H = cfg.hidden_size
        ffn = m.ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn) / H**2
        attention = m.attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim) / H**2
        return (f"Recomputed with the real {real}, which has exactly this L and H. The bare 12·H² rule gives "
                f"{format_count(m.rule_params(*rule_args, _VOCAB))}: the real model's FFN holds {ffn:.2f}·H² a "
                f"layer instead of 8·H², its attention {attention:.2f}·H² instead of 4·H² "
                f"({cfg.attention_kind}), and its untied output head adds "
                f"{format_count(m.embedding_params(cfg.vocab_size, H))}.")
    return cause


def _cause_30b() -> str:
    layers = 48 * m.rule_layer_params(6144)
    return (f"48 layers of hidden 6144 hold 48·12·6144² = {format_count(layers)} "
            f"({format_count(m.rule_params(6144, 48, _VOCAB))} with the embedding), not 28-32B. A 30B dense "
            f"model needs more depth or width: LLaMA-33B has 60 layers of 6656 ({format_count(_total('llama-33b'))}), "
            f"and solving §1.2's quadratic for 30B at 48 layers gives H ≈ {m.rule_hidden_size(30e9, 48, _VOCAB):,.0f} "
            "(the material's own estimate: about 6,970).")


register(
    Figure("004-1.1-layer", 1, "004", _S11, "one layer of the H=4096 model has about 12·H² parameters",
           "单层参数约12×4096²≈2.01亿", 2.01e8, lambda: m.rule_layer_params(4096), "rule_layer_params(4096)",
           rel_tol=0.005),
    Figure("004-1.1-layers", 1, "004", _S11, "32 such layers", "32层就是64.4亿", 6.44e9,
           lambda: 32 * m.rule_layer_params(4096), "32 · rule_layer_params(4096)", rel_tol=0.005),
    Figure("004-1.1-embedding", 1, "004", _S11, "the embedding table, V=32,000 by H=4096", "嵌入参数约1.31亿",
           1.31e8, lambda: m.embedding_params(_VOCAB, 4096), "embedding_params(32000, 4096)", rel_tol=0.005),
    Figure("004-1.1-total", 1, "004", _S11, "the teaching model's total", "总参数约65.7亿", 6.57e9,
           lambda: m.rule_params(4096, 32, _VOCAB), "rule_params(4096, 32, 32000)", rel_tol=0.005,
           cause=_cause_total),
    Figure("004-1.2-30b-h2", 1, "004", _S12, "30B dense, 48 layers: H² after taking off the embedding",
           "剩下约28B，除以48再除以12约4860万", 4.86e7, lambda: (30e9 - 2e9) / 48 / 12, "(30e9 − 2e9) / 48 / 12",
           rel_tol=0.005),
    Figure("004-1.2-30b-hidden", 1, "004", _S12, "hidden size of a 30B dense model with 48 layers",
           "开根号约6970 … 接近6~7K的隐藏维度", 6970, _material_hidden, "√((30e9 − 2e9) / 48 / 12)", unit="plain",
           rel_tol=0.005, cause=_cause_hidden),
    Figure("004-1.2-table-7b", 1, "004", _S12, "size table, 7B row: 32 layers, hidden 4096", "65~70亿",
           (6.5e9, 7.0e9), lambda: _total("llama-2-7b"), "count_params(preset('llama-2-7b'))", rel_tol=0.0,
           cause=_cause_row((4096, 32), "llama-2-7b")),
    Figure("004-1.2-table-13b", 1, "004", _S12, "size table, 13B row: 40 layers, hidden 5120", "130~140亿",
           (13e9, 14e9), lambda: _total("llama-2-13b"), "count_params(preset('llama-2-13b'))", rel_tol=0.0,
           cause=_cause_row((5120, 40), "llama-2-13b")),
    Figure("004-1.2-table-30b", 1, "004", _S12, "size table, 30B row: 48 layers, hidden 6144", "280~320亿",
           (28e9, 32e9), lambda: m.rule_params(6144, 48, _VOCAB), "rule_params(6144, 48, 32000)",
           rel_tol=0.05, cause=_cause_30b),
    Figure("004-1.2-table-70b", 1, "004", _S12, "size table, 70B row: 80 layers, hidden 8192", "660~710亿",
           (66e9, 71e9), lambda: _total("llama-2-70b"), "count_params(preset('llama-2-70b'))", rel_tol=0.0,
           cause=_cause_row((8192, 80), "llama-2-70b")),
)
