"""Worksheets for a class: the questions of a seeded drill set, and a key with the worked solutions, in Markdown
and HTML. ``llmest drill`` writes them."""

from __future__ import annotations

import html
from pathlib import Path

from .drills import Problem, drill_set


def _title(seed, problems, key) -> str:
    topics = sorted({p.topic for p in problems})
    kind = "Answer key" if key else "Worksheet"
    return f"{kind}: {len(problems)} estimation problems (seed {seed}; {', '.join(topics)})"


def worksheet_markdown(problems: list[Problem], seed: int, key: bool = False) -> str:
    lines = [f"# {_title(seed, problems, key)}", ""]
    if not key:
        lines += ["Give each answer to within 25% (within 2× counts as close). Show your working.", ""]
    for i, p in enumerate(problems, 1):
        lines += [f"## {i}. {p.topic} · {p.level}", "", p.question, ""]
        if key:
            lines += [f"- {step}" for step in p.steps] + ["", f"**Answer: {p.answer_text}**", ""]
        else:
            lines += ["Answer: ______________________", ""]
    return "\n".join(lines)


def worksheet_html(problems: list[Problem], seed: int, key: bool = False) -> str:
    e = html.escape
    title = e(_title(seed, problems, key))
    body = [f"<h1>{title}</h1>"]
    if not key:
        body.append("<p>Give each answer to within 25% (within 2× counts as close). Show your working.</p>")
    for i, p in enumerate(problems, 1):
        body.append(f"<section><h2>{i}. {e(p.topic)} · {e(p.level)}</h2><p>{e(p.question)}</p>")
        if key:
            body.append("<ul>" + "".join(f"<li>{e(step)}</li>" for step in p.steps) + "</ul>")
            body.append(f"<p><strong>Answer: {e(p.answer_text)}</strong></p>")
        else:
            body.append('<p class="blank">Answer: ______________________</p>')
        body.append("</section>")
    style = ("body{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.45}"
             "section{break-inside:avoid;margin-bottom:1.5em}.blank{margin-top:2.5em}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_worksheet(directory, seed: int, n: int = 10, topics=None, level: str = "mixed") -> dict:
    """Write worksheet.md, worksheet.html, key.md and key.html for a seed and a topic mix; return their paths."""
    problems = drill_set(seed, n, topics, level)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, key in (("worksheet", False), ("key", True)):
        for suffix, render in (("md", worksheet_markdown), ("html", worksheet_html)):
            path = out / f"{name}.{suffix}"
            path.write_text(render(problems, seed, key), encoding="utf-8")
            paths[f"{name}.{suffix}"] = path
    return paths
