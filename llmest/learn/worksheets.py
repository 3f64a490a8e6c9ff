"""Worksheets for a class: the questions of a seeded drill set, and a key with the worked solutions, in Markdown
and HTML. ``llmest drill`` writes them."""

from __future__ import annotations

import errno
import html
import os
from pathlib import Path

from ..core import _validate as v
from ..core._validate import InputError
from .drills import Problem, drill_set
from .drills.problem import LETTERS
from ..core.i18n import N_, _, language


INSTRUCTIONS = N_("Give each answer to within 25% (within 2× counts as close). Show your working.")
# The names of the topics and levels, as a worksheet shows them.
NAMES = {"parameters": N_("parameters"), "memory": N_("memory"), "compute": N_("compute"), "data": N_("data"),
         "serving": N_("serving"), "easy": N_("easy"), "medium": N_("medium"), "hard": N_("hard")}


def _problem(name, problem):
    if not isinstance(problem, Problem):
        raise InputError(name, _("{name} == {value}, must be a drill problem (what drill_set returns).").format(
            name=name, value=v.quote(problem)))
    return problem


# The problems of a worksheet, each checked and a bad one named as the caller wrote it ("problems[1]").
_problems = v.each(_problem, N_("drill problems (what drill_set returns)"))


def _checked(problems, seed, key, *, no_seed: bool = False) -> tuple:
    """(problems, seed), checked with ``key``: the problems of drill_set and the seed that drew them, as drill_set
    takes it (None where ``no_seed``: not shown)."""
    if not (seed is None and no_seed):
        seed = v.check_int("seed", seed, minimum=0, maximum=10**18)
    v.check_bool("key", key)
    return _problems("problems", problems), seed


def title(problems, seed=None, key=False) -> str:
    """A worksheet's title; without its seed (``seed=None``) where the seed would give the answers away (a graded
    course's drill set)."""
    problems, seed = _checked(problems, seed, key, no_seed=True)
    topics = ("、" if language() == "zh" else ", ").join(_(NAMES[t]) for t in sorted({p.topic for p in problems}))
    if seed is None:
        return _("Worksheet: {n} estimation problems ({topics})").format(n=len(problems), topics=topics)
    text = (_("Answer key: {n} estimation problems (seed {seed}; {topics})") if key else
            _("Worksheet: {n} estimation problems (seed {seed}; {topics})"))
    return text.format(n=len(problems), seed=seed, topics=topics)


def _heading(i: int, problem) -> str:
    return f"{i}. {_(NAMES[problem.topic])} · {_(NAMES[problem.level])}"


def _answer(label: str, answer: str = "______________________") -> str:
    return _("Answer{label}: {answer}").format(label=label, answer=answer)


def _graded(problem):
    """(" (a)", part), ... for a chained problem, each step with its own answer; ("", the problem) otherwise."""
    if not problem.parts:
        return [("", problem)]
    return [(f" ({letter})", part) for letter, part in zip(LETTERS, problem.parts)]


def worksheet_markdown(problems: list[Problem], seed: int, key: bool = False) -> str:
    problems, seed = _checked(problems, seed, key)
    lines = [f"# {title(problems, seed, key)}", ""]
    if not key:
        lines += [_(INSTRUCTIONS), ""]
    for i, p in enumerate(problems, 1):
        lines += [f"## {_heading(i, p)}", "", p.question, ""]
        for label, part in _graded(p):
            if key:
                lines += [f"- {step}" for step in part.steps] + ["", f"**{_answer(label, part.answer_text)}**", ""]
            else:
                lines += [_answer(label), ""]
    return "\n".join(lines)


def worksheet_html(problems: list[Problem], seed: int, key: bool = False) -> str:
    problems, seed = _checked(problems, seed, key)
    e = html.escape
    heading = e(title(problems, seed, key))
    body = [f"<h1>{heading}</h1>"]
    if not key:
        body.append(f"<p>{e(_(INSTRUCTIONS))}</p>")
    for i, p in enumerate(problems, 1):
        body.append(f"<section><h2>{e(_heading(i, p))}</h2><p>{e(p.question)}</p>")
        for label, part in _graded(p):
            if key:
                body.append("<ul>" + "".join(f"<li>{e(step)}</li>" for step in part.steps) + "</ul>")
                body.append(f"<p><strong>{e(_answer(label, part.answer_text))}</strong></p>")
            else:
                body.append(f'<p class="blank">{e(_answer(label))}</p>')
        body.append("</section>")
    style = ("body{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.45}"
             "section{break-inside:avoid;margin-bottom:1.5em}.blank{margin-top:2.5em}")
    lang = "zh-CN" if language() == "zh" else "en"
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{heading}</title>'
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_worksheet(directory, seed: int, n: int = 10, topics=None, level: str = "mixed", *,
                    param: str = "directory") -> dict:
    """Write worksheet.md, worksheet.html, key.md and key.html for a seed and a topic mix; return their paths.
    A folder that cannot be made or written (a file of that name, a path through a file, no permission) is an
    InputError for ``param``, the caller's name for the folder."""
    problems = drill_set(seed, n, topics, level)
    if not isinstance(directory, (str, os.PathLike)) or not os.fspath(directory):
        raise InputError(param, _("{name} == {value}, must be the path of a folder.").format(name=param,
                                                                                          value=repr(directory)))
    out = Path(directory)
    pages = {f"{name}.{suffix}": render(problems, seed, key) for name, key in (("worksheet", False), ("key", True))
             for suffix, render in (("md", worksheet_markdown), ("html", worksheet_html))}
    paths = {}
    try:
        if out.exists() and not out.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "a file of that name is there, not a folder")
        out.mkdir(parents=True, exist_ok=True)
        for name, text in pages.items():
            paths[name] = out / name
            paths[name].write_text(text, encoding="utf-8")
    except (OSError, ValueError) as err:  # ValueError: a NUL in the path
        where = f" ({paths[name]})" if paths else ""
        raise InputError(param, _("{name} == {value}: cannot write the worksheet there{where}: {reason}.").format(
            name=param, value=_shown(directory), where=where, reason=getattr(err, "strerror", None) or err)) from None
    return paths


def _shown(path) -> str:
    text = os.fspath(path)
    return repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text):,} characters)"
