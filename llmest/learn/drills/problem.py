"""A drill problem, the registry of templates, and what the templates share: pools of inputs by level, and the
phrasing of sizes and counts."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

from ...catalog import hardware
from ...core.registry import Registry
from ...core._validate import InputError, check_choice, quote
from ..grading import Exercise, Verdict
from ...core.i18n import N_, _, language, tidy
from ...core.units import format_count, format_number, show

LEVELS = ("easy", "medium", "hard")
TOPICS = ("parameters", "memory", "compute", "data", "serving")
CORRECT_WITHIN = 0.25   # an estimate within 25% of the answer is correct; within 2× (grading.CLOSE_FACTOR) close


def answer_text(value, unit: str) -> str:
    """An answer as an estimate is given: three significant figures, with its unit."""
    if unit == "count":
        return format_count(value) if value >= 1e4 else format_number(value)
    return show(value, unit)


@dataclass(frozen=True)
class Part:
    """One graded step of a chained problem: its own question, answer, unit and worked lines."""

    question: str
    answer: float
    unit: str
    steps: tuple
    minimum: bool = False
    tolerance: float = CORRECT_WITHIN

    @property
    def answer_text(self) -> str:
        return answer_text(self.answer, self.unit)


LETTERS = "abc"


@dataclass(frozen=True)
class Problem:
    template: str
    topic: str
    level: str
    question: str
    inputs: dict
    answer: float
    unit: str                  # a key of units.UNITS: "count", "bytes", "fraction", "USD", "GPU-hours", ...
    steps: tuple               # the worked solution, one line a step
    hint: str
    tolerance: float = CORRECT_WITHIN
    minimum: bool = False      # a least number (of GPUs): fewer is wrong however close
    parts: tuple = ()          # a chained ("hard") problem's graded steps; the last one is ``answer``

    @property
    def exercise(self) -> Exercise:
        return Exercise(self.template, self.question, lambda: self.answer, self.unit, self.tolerance,
                        minimum=self.minimum)

    @property
    def graded(self) -> tuple:
        """The steps graded one by one: the parts of a chained problem, or the problem itself as one part."""
        return self.parts or (Part(self.question, self.answer, self.unit, self.steps, self.minimum, self.tolerance),)

    @property
    def part_exercises(self) -> list:
        """One Exercise per graded step ("corpus-size (b)"), each with its own answer."""
        label = (lambda k: f"{self.template} ({LETTERS[k]})") if self.parts else (lambda k: self.template)
        return [Exercise(label(k), part.question, (lambda a=part.answer: a), part.unit, part.tolerance,
                         minimum=part.minimum) for k, part in enumerate(self.graded)]

    def check_part(self, k: int, entry) -> Verdict:
        """Grade the answer to step ``k`` (0 for (a)) of a chained problem; the steps are graded apart."""
        return self.part_exercises[k].check(entry)

    def check(self, entry) -> Verdict:
        """Grade an entry ("7B", "1.2 T", "55 days", "$1.2M", 4.2e22): correct within 25%, close within 2×."""
        return self.exercise.check(entry)

    @property
    def answer_text(self) -> str:
        """The answer as an estimate is given: three significant figures, with its unit."""
        return answer_text(self.answer, self.unit)

    def solution(self) -> str:
        if not self.parts:
            return "\n".join([*self.steps, _("Answer: {answer}").format(answer=self.answer_text)])
        lines = []
        for letter, part in zip(LETTERS, self.parts):
            lines += [f"({letter}) {step}" for step in part.steps] + [f"({letter}) {part.answer_text}"]
        return "\n".join([*lines, _("Answer: {answer}").format(answer=self.answer_text)])


@dataclass(frozen=True)
class Template:
    key: str
    topic: str
    make: Callable      # (random.Random, level) -> Problem


TEMPLATES = Registry("template")


def template(key: str, topic: str):
    def register(make):
        TEMPLATES.register(Template(key, topic, make))
        return make
    return register


def _pick(rng: random.Random, level: str, easy, medium, hard):
    return rng.choice({"easy": easy, "medium": medium, "hard": hard}[level])


def _problem(key, level, question, inputs, answer, unit, steps, hint, **grading) -> Problem:
    return Problem(key, TEMPLATES[key].topic, level, question, inputs, answer, unit, tuple(steps), hint, **grading)


def _chained(key, level, stem, inputs, parts, hint) -> Problem:
    """A problem of two or three graded steps, each a plan of its own chapter; the last step's answer is the answer.
    Its question is the stem, then each step lettered."""
    question = tidy(" ".join([stem, *(f"({letter}) {part.question}" for letter, part in zip(LETTERS, parts))]))
    last = parts[-1]
    steps = tuple(f"({letter}) {step}" for letter, part in zip(LETTERS, parts) for step in part.steps)
    return Problem(key, TEMPLATES[key].topic, level, question, inputs, last.answer, last.unit, steps, hint,
                   last.tolerance, last.minimum, tuple(parts))


class _Regenerate(Exception):
    """A draw that makes no sense (a model larger than its GPUs, a run of ten years): draw again."""


def _a(phrase: str) -> str:
    """'a 7.00B model', 'an 8.00B model', 'an 80-layer model'; in Chinese, the phrase alone."""
    if language() == "zh":
        return phrase
    return ("an " if phrase[:1] == "8" or phrase[:2] in ("11", "18") else "a ") + phrase


def _A(phrase: str) -> str:
    """_a at the start of a sentence: 'A 175B run', keeping the rest as it is."""
    text = _a(phrase)
    return text[0].upper() + text[1:]


# The counted nouns in Chinese, with their measure words ("8 张 GPU"); "A100 80GB GPU" is a GPU with its name.
COUNTED = {"GPU": N_("{count} GPUs"), "request": N_("{count} requests"), "sequence": N_("{count} sequences"),
           "token": N_("{count} tokens")}


def _n(count, noun: str) -> str:
    """'1 GPU', '8 GPUs', '1 sequence'; in Chinese '8 张 GPU', '2 张 H100 SXM GPU'."""
    if language() == "zh":
        named = noun.endswith(" GPU") and noun[:-4]
        return (_("{count} {gpu} GPUs").format(count=f"{count:,}", gpu=named) if named else
                _(COUNTED[noun]).format(count=f"{count:,}"))
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _size(value) -> str:
    """An input size as an interview says it: 7B, 1.4T, 175B (no trailing zeros); 7B（70亿） in Chinese."""
    number, suffix, reading = re.fullmatch(r"([\d.,]+)([^\d（]*)(（.*）)?", format_count(value)).groups()
    return f"{float(number.replace(',', '')):g}{suffix}{reading or ''}"


# Pools of round inputs by difficulty: easy ones are the numbers interviews use, hard ones are not round.
PARAMS = ([7e9, 70e9], [1e9, 7e9, 13e9, 34e9, 70e9], [3e9, 8e9, 13e9, 34e9, 175e9, 405e9])
TOKENS = ([1e12], [100e9, 300e9, 1e12, 2e12], [140e9, 1.4e12, 3.5e12, 15e12])
TRAINING_GPUS = (["A100 80GB"], ["A100 80GB", "H100 SXM"], ["A100 80GB", "H100 SXM", "H200", "B200"])
MFUS = ([0.4, 0.5], [0.35, 0.4, 0.45, 0.5], [0.3, 0.38, 0.42, 0.48])   # at most 50% until measured (chapter 5)
CLUSTER = ([64, 256], [64, 128, 256, 512], [48, 96, 384, 1024, 2048])
SHAPES = {  # (layers, hidden, vocab) of real dense models
    "easy": [(32, 4096, 32000), (40, 5120, 32000), (80, 8192, 32000)],
    "medium": [(32, 4096, 32000), (40, 5120, 32000), (48, 6144, 32000), (80, 8192, 32000)],
    "hard": [(24, 2048, 50257), (60, 6656, 32000), (96, 12288, 50257), (126, 16384, 128256)],
}
# KV-cache models: (preset, layers, KV heads, head width)
KV_MODELS = {"easy": ["llama-2-7b"], "medium": ["llama-2-7b", "llama-2-13b", "mistral-7b"],
             "hard": ["llama-2-70b", "llama-3-8b", "mixtral-8x7b", "qwen2-7b"]}


def gpu_peak(name):
    return hardware.gpu(name).bf16_flops_per_s


def tflops_text(name) -> str:
    return f"{gpu_peak(name) / 1e12:,.4g} TFLOPS"


def chosen_topics(topics=None) -> tuple:
    """``topics`` as a tuple of TOPICS: None (the default of drill_set and the others that take topics) for all, a
    list, or a comma-separated string."""
    if topics is None:
        return TOPICS
    if isinstance(topics, str):
        topics = [t.strip() for t in topics.split(",") if t.strip()]
    if not isinstance(topics, (list, tuple)):
        raise InputError("topics", _("topics == {value}, must be a topic or a list of them, from {topics}.").format(
            value=quote(topics), topics=", ".join(TOPICS)))
    for topic in topics:
        check_choice("topics", topic, TOPICS)
    if not topics:
        raise InputError("topics", _("topics == {value} is empty; choose from {topics}.").format(
            value=repr(topics), topics=", ".join(TOPICS)))
    return tuple(topics)
