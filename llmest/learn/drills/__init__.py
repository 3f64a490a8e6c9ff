"""Interview drills: randomised Fermi problems with worked solutions, from templates, in seeded sets.

A problem set is fixed by its seed, so a class that uses the same seed gets the same questions. A template's place
in a set, its level in a mixed set and its problem are drawn from the seed and the template's key alone, so adding a
template does not change the problems the others give. Every answer is computed by the chapter functions (compute,
memory, data, model); an estimate within 25% is correct, within 2× close. The numbers to know by heart are in
``llmest.learn.flashcards``; ``llmest drill`` writes a worksheet and its answer key (``llmest.learn.worksheets``).
"""

from __future__ import annotations

import random

from ...core._validate import InputError, check_choice, check_int, quote
from ...core.i18n import N_, _
from ...display.table import Table
from . import compute, data, memory, parameters, serving  # noqa: F401  (each registers its templates)
from . import architectures  # noqa: F401  (the 2025-26 architectures' templates, listed after each topic's own)
from . import training_2025  # noqa: F401  (MoE training, FP8 and post-training, listed after the architectures)
from . import serving_2025  # noqa: F401  (serving as engines run it, listed after training_2025)
from .problem import CORRECT_WITHIN, LEVELS, TEMPLATES, TOPICS, Problem, Template, _Regenerate, chosen_topics, template

__all__ = ["CORRECT_WITHIN", "LEVELS", "TEMPLATES", "TOPICS", "Problem", "Template", "chosen_topics", "drill_set",
           "generate", "heading", "template", "templates_table"]

TOPIC_NAMES = {"parameters": N_("parameters"), "memory": N_("memory"), "compute": N_("compute"), "data": N_("data"),
               "serving": N_("serving")}
LEVEL_NAMES = {"easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")}


def heading(problem: Problem) -> str:
    """A problem as a drill set lists it: "[memory, medium] " and its question, in the language shown."""
    if not isinstance(problem, Problem):
        raise InputError("problem", f"problem == {quote(problem)}, must be a drills.Problem (what generate or "
                                    "drill_set returns).")
    return _("[{topic}, {level}] {question}").format(topic=_(TOPIC_NAMES[problem.topic]),
                                                     level=_(LEVEL_NAMES[problem.level]), question=problem.question)


def generate(key: str, seed: int, level: str = "medium") -> Problem:
    """One problem from template ``key``, fixed by ``seed``."""
    TEMPLATES.lookup(key)
    check_int("seed", seed, minimum=0, maximum=10**30)  # NaN or 1.5 would draw a set no one can draw again
    check_choice("level", level, LEVELS)
    rng = random.Random(f"{key}/{level}/{seed}")
    while True:
        try:
            return TEMPLATES[key].make(rng, level)
        except _Regenerate:
            continue


def _place(seed: int, key: str, round_: int) -> float:
    """Where template ``key`` comes in round ``round_`` of the set for ``seed``: the smaller, the earlier."""
    return random.Random(f"{seed}/{round_}/{key}").random()


def _mixed_level(seed: int, key: str, round_: int) -> str:
    """A template's level in a mixed set: drawn for the seed, then the next level in each later round."""
    return LEVELS[(random.Random(f"{seed}/{key}").randrange(len(LEVELS)) + round_) % len(LEVELS)]


def drill_set(seed: int, n: int = 10, topics=None, level: str = "medium") -> list[Problem]:
    """``n`` problems fixed by ``seed``, from the templates of the chosen topics, in rounds that each give every
    template once (in an order drawn for the seed). ``level`` is "easy", "medium", "hard" or "mixed" (each template's
    level drawn for the seed, the next one in its next round). A template's place, level and problem depend on the
    seed and its key only: adding a template leaves the problems of the others as they were."""
    check_int("seed", seed, minimum=0, maximum=10**18)  # drawn as seed·1000 + round in generate
    check_int("n", n, maximum=200)
    check_choice("level", level, (*LEVELS, "mixed"))
    chosen = chosen_topics(topics)
    keys = [t.key for t in TEMPLATES.values() if t.topic in chosen]
    drawn = []
    for round_ in range(-(-n // len(keys))):
        drawn += sorted(keys, key=lambda key: _place(seed, key, round_))
    rounds = [i // len(keys) for i in range(n)]
    return [generate(key, seed * 1000 + round_, _mixed_level(seed, key, round_) if level == "mixed" else level)
            for key, round_ in zip(drawn, rounds)]


def templates_table() -> Table:
    """The templates of each topic: how many, and their keys (what ``generate`` takes)."""
    rows = []
    for topic in TOPICS:
        keys = [t.key for t in TEMPLATES.values() if t.topic == topic]
        rows.append((_(TOPIC_NAMES[topic]), len(keys), ", ".join(keys)))
    return Table((_("topic"), _("templates"), _("keys")), rows)
