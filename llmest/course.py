"""An nbgrader course from the solved chapters: ``python -m llmest.course [--out build/course]`` (``make course``).

``source/<chapter>/<chapter>.ipynb`` is the chapter from ``solutions/`` with nbgrader's cell metadata: each cell
holding a solution region is a solution cell, and after each exercise's check comes a locked, autograded test
cell, worth a point, whose visible part checks the form of the answer and whose hidden part (nbgrader's
``### BEGIN HIDDEN TESTS``) checks its value: ``exercise(key).assert_form(answer)`` and ``assert_ok(answer)``,
which raise with the message the exercise box shows. nbgrader's own ``generate_assignment`` then writes
``release/``, with the same prompts as ``notebooks/`` (``nbgrader_config.py`` sets them from llmest.authoring).
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
from pathlib import Path

import nbformat

from .authoring import BEGIN, CODE_PROMPT, MARKDOWN_PROMPT, ROOT, SOLUTIONS

POINTS = 1  # each exercise
CHECK_CALL = re.compile(r'le\.exercise\("([\d.]+)"\)\.check\(answer\)')
# Chapter 6 reads ../tests/fixtures and the appendix has no exercises: the course releases chapters 1-5.
CHAPTERS = ("01_parameters", "02_memory", "03_flops_and_time", "04_data_and_tokens", "05_interview_drills")
CONFIG = f'''# nbgrader's configuration for the llmest course, written by `make course`.
c = get_config()
c.CourseDirectory.course_id = "llmest"
c.CourseDirectory.db_assignments = [{", ".join(f"dict(name={name!r})" for name in CHAPTERS)}]
# The release's prompts are the self-study copy's (llmest.authoring).
c.ClearSolutions.code_stub = {{"python": {chr(10).join(CODE_PROMPT)!r}}}
c.ClearSolutions.text_stub = {chr(10).join(MARKDOWN_PROMPT)!r}
c.Execute.timeout = 900
'''


def grade_id(kind: str, key: str) -> str:
    """nbgrader's id of a cell (letters, digits, _ and - only): "test-1-1" for exercise 1.1's test."""
    return f"{kind}-{key.replace('.', '-')}"


def _meta(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    meta = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked, "schema_version": 3,
            "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def test_cell(key: str):
    """The autograded cell of exercise ``key``: the form of the answer in sight, its value hidden."""
    cell = nbformat.v4.new_code_cell("\n".join([
        f'le.exercise("{key}").assert_form(answer)  # an answer, readable in the exercise\'s unit',
        "### BEGIN HIDDEN TESTS",
        f'le.exercise("{key}").assert_ok(answer)',
        "### END HIDDEN TESTS"]))
    cell.id = grade_id("test", key)
    cell.metadata["nbgrader"] = _meta(cell.id, grade=True, locked=True, points=POINTS)
    return cell


def course_version(solution_nb):
    """The chapter as an nbgrader source notebook: solution cells marked, a test cell after each exercise."""
    nb = copy.deepcopy(solution_nb)
    nb.metadata.pop("widgets", None)
    cells = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cells.append(cell)
        if BEGIN not in cell.source:
            continue
        keys = CHECK_CALL.findall(cell.source)
        cell.metadata["nbgrader"] = _meta(grade_id("answer", keys[0] if keys else str(index)), solution=True)
        cells.extend(test_cell(key) for key in keys)
    nb.cells = cells
    return nb


def build(out: Path) -> list[Path]:
    """Write ``out/source/`` and ``out/nbgrader_config.py``; return the source notebooks."""
    if (out / "source").exists():
        shutil.rmtree(out / "source")
    written = []
    for name in CHAPTERS:
        target = out / "source" / name / f"{name}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(course_version(nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)), target)
        written.append(target)
    (out / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "course", help="the course directory")
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(f"wrote {path}")
    print(f"next: cd {args.out} && nbgrader generate_assignment --all (or one chapter by name)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
