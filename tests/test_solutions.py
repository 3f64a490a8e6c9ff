"""The solution key answers the questions it is stored beside: every exercise has one solution, each graded Correct.

nbval re-runs each solution cell and compares its output with the stored one; these tests make sure the stored one
is right (the verdict "Correct"), so that a pinned output cannot be a wrong answer kept green."""

import re
from pathlib import Path

import nbformat
import pytest

from llmest.learn.exercises import EXERCISES

ROOT = Path(__file__).resolve().parent.parent
SOLVED = sorted((ROOT / "solutions").glob("*.ipynb"))
CHECK_CALL = re.compile(r'le\.exercise\("([\d.]+)"\)\.check\(')


def _solution_cells():
    """(chapter file, exercise key, cell) for every solved cell that checks an answer."""
    for path in SOLVED:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
                for key in CHECK_CALL.findall(cell.source):
                    yield path.name, key, cell


SOLUTIONS = list(_solution_cells())


def _last_text(cell) -> str:
    texts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            texts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            texts.append(out.data.get("text/plain", ""))
    lines = "".join(texts).strip().strip("'\"").splitlines()
    return lines[-1] if lines else ""


def test_every_registered_exercise_has_exactly_one_solution():
    keys = [key for _, key, _ in SOLUTIONS]
    assert sorted(keys) == sorted(EXERCISES), "exercises without a solution, or solved twice"


@pytest.mark.parametrize("name, key, cell", SOLUTIONS, ids=[key for _, key, _ in SOLUTIONS])
def test_the_stored_solution_grades_correct(name, key, cell):
    assert key.split(".")[0] == str(int(name[:2])), f"exercise {key} is solved in {name}"
    verdict = _last_text(cell)
    assert verdict.startswith("Correct"), f"{name}, exercise {key}: the solution key reads {verdict!r}"


@pytest.mark.parametrize("name, key, cell", SOLUTIONS, ids=[key for _, key, _ in SOLUTIONS])
def test_the_solution_verdict_is_pinned(name, key, cell):
    """nbval compares the re-run output only in cells marked for it: unmarked, a wrong key would still pass."""
    tags = cell.get("metadata", {}).get("tags", [])
    assert "nbval-check-output" in tags, f"{name} {key}"


def test_a_wrong_solution_is_caught():
    """The check of the tests above, on the defect they guard against: chapter 1's key once answered old questions."""
    from llmest import exercises, model as m

    assert not exercises.get("1.1").check(m.rule_params(5120, 40, 32000)).correct
    assert exercises.get("1.1").check(m.rule_params(2048, 24, 50000)).correct
