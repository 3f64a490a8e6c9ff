"""Exercises: a question, the answer computed by llmest, a tolerance suited to an estimate, hints on demand.

``ex.check(answer)`` grades a number or a text entry ("7B", "6.7e9", "7 billion"); ``ex`` shown in a notebook is a
widget with an entry box, Check and Hint. Neither ever shows a traceback, and neither reveals the answer before it
is found. The exercises of every chapter are registered here, keyed "chapter.number".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from . import model as m
from ._registry import Registry
from ._validate import InputError
from .units import PARSERS, format_bytes, format_count, format_int

# Outside the tolerance but within this factor of the answer, an estimate is "close".
CLOSE_FACTOR = 2.0


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.2g}%"


@dataclass(frozen=True)
class Verdict:
    grade: str      # "correct", "close", "wrong", "empty" or "invalid"
    message: str

    @property
    def correct(self) -> bool:
        return self.grade == "correct"

    def __repr__(self) -> str:
        return self.message


@dataclass
class Exercise:
    key: str
    question: str
    answer: Callable[[], float]
    unit: str = "count"
    rel_tol: float = 0.05
    hints: tuple = ()
    _hints_shown: int = field(default=0, repr=False)

    def expected(self) -> float:
        return float(self.answer())

    def _fmt(self, value: float) -> str:
        if self.unit == "bytes":
            return format_bytes(value)
        return f"{format_int(value)} ({format_count(value)})" if abs(value) >= 1e4 else format_int(value)

    def check(self, answer) -> Verdict:
        """Grade an answer: a number, or text such as "6.7B"."""
        if answer is None or (isinstance(answer, str) and not answer.strip()):
            return Verdict("empty", 'No answer yet: give a number, or text such as "6.7B".')
        try:
            value = PARSERS[self.unit](answer, "answer") if isinstance(answer, str) else float(answer)
        except (InputError, TypeError, ValueError) as err:
            return Verdict("invalid", f"Could not read that: {err}")
        if not math.isfinite(value) or value <= 0:
            return Verdict("invalid", f"Could not read that: answer == {answer!r}, must be a positive number.")
        expected = self.expected()
        ratio = value / expected
        shown = self._fmt(value)
        if abs(ratio - 1) <= self.rel_tol:
            return Verdict("correct", f"Correct: {shown} is within {_percent(self.rel_tol)} of {self._fmt(expected)}.")
        direction = "high" if ratio > 1 else "low"
        if 1 / CLOSE_FACTOR <= ratio <= CLOSE_FACTOR:
            return Verdict("close", f"Close: {shown} is {_percent(abs(ratio - 1))} too {direction}; this "
                                    f"exercise asks for {_percent(self.rel_tol)}. Try a hint.")
        factor = max(ratio, 1 / ratio)
        return Verdict("wrong", f"Not yet: {shown} is {factor:.1f}× too {direction}. Try a hint.")

    def hint(self) -> str:
        """The next hint (they stay shown once revealed)."""
        if not self.hints:
            return "No hints for this one."
        self._hints_shown = min(self._hints_shown + 1, len(self.hints))
        return "\n".join(f"Hint {i + 1}: {h}" for i, h in enumerate(self.hints[: self._hints_shown]))

    def __repr__(self) -> str:
        return f"Exercise {self.key}: {self.question}"

    def widget(self):
        from .widgets import exercise_widget

        return exercise_widget(self)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget())


EXERCISES = Registry("exercise")
register, get = EXERCISES.register, EXERCISES.lookup


def chapter(number: int) -> list[Exercise]:
    return [ex for key, ex in EXERCISES.items() if key.split(".")[0] == str(number)]


# ----------------------------------------------------------------------------------------------------------------
# Chapter 1: parameters
# ----------------------------------------------------------------------------------------------------------------

def _gqa_saving():
    cfg = m.preset("llama-2-70b")
    mha = m.attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_heads, cfg.head_dim)
    gqa = m.attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim)
    return cfg.num_layers * (mha - gqa)


register(
    Exercise(
        "1.1",
        "The material's size table puts 40 layers of hidden size 5,120 in its 13B row. How many parameters does "
        "the 12·H² rule give, with a 32,000-token vocabulary and one embedding table?",
        lambda: m.rule_params(5120, 40, 32000), rel_tol=0.02,
        hints=("One layer holds about 12·H² parameters.", "Add V·H once for the embedding table.")),
    Exercise(
        "1.2",
        "Llama-2-7B: vocabulary 32,000, hidden 4,096, 32 layers, 32 heads (multi-head), a SwiGLU FFN of width "
        "11,008, RMSNorm (one weight vector: two per layer and a final one), no biases, an untied output head. "
        "Count its parameters exactly.",
        lambda: m.count_params(m.preset("llama-2-7b")).total, rel_tol=0.001,
        hints=("Attention: four H×H matrices per layer.", "SwiGLU: three H×F matrices per layer (gate, up, down).",
               "Norms: (2·L + 1)·H. Embedding and output head: V·H each.")),
    Exercise(
        "1.3",
        "Someone plans a 30B dense model with 60 layers and a 32,000-token vocabulary. Which hidden size does the "
        "12·H² rule give? (Solve 12·L·H² + V·H = N.)",
        lambda: m.rule_hidden_size(30e9, 60, 32000), rel_tol=0.03,
        hints=("Ignore the embedding first: H ≈ √(N / (12·L)).",
               "Then the quadratic formula: H = (−V + √(V² + 48·L·N)) / (24·L).")),
    Exercise(
        "1.4",
        "Llama-2-70B has 64 query heads but only 8 key/value heads (GQA), head_dim 128, hidden 8,192, 80 layers. "
        "How many parameters does GQA save over full multi-head attention, in the whole model?",
        _gqa_saving, rel_tol=0.02,
        hints=("Only K and V shrink: each is H × (kv_heads · head_dim).",
               "Per layer the saving is 2 · H · (64 − 8) · 128; then multiply by the layers.")),
    Exercise(
        "1.5",
        "Mixtral-8x7B: 32 layers, 8 experts per layer (each a SwiGLU FFN, hidden 4,096, width 14,336), each token "
        "routed to 2. Its total is 46.7B. How many parameters does one token use (the active parameters)?",
        lambda: m.count_params(m.preset("mixtral-8x7b")).active, rel_tol=0.02,
        hints=("One expert holds 3 · 4096 · 14336 parameters.",
               "A token skips 6 of the 8 experts in every layer: subtract those from the total.")),
    Exercise(
        "1.6",
        "GPT-2 (small) ties its output head to its token embedding: vocabulary 50,257, hidden 768. How many "
        "parameters would an untied output head add?",
        lambda: m.embedding_params(50257, 768), rel_tol=0.01,
        hints=("The head maps the hidden state to one score per token of the vocabulary.",)),
)
