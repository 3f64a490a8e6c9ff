"""The classroom round trip with nbgrader itself: make the course from solutions/, generate each chapter's release,
submit the solved chapters as one student and the blank release as another, autograde, and read the gradebook:
full marks and zero; a third student with one wrong answer loses exactly that exercise's point."""

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import require
from llmest import course

require("nbgrader")
from nbgrader.api import Gradebook  # noqa: E402

ASSIGNMENTS = course.CHAPTERS


def nbgrader(root: Path, *args):
    # nbgrader runs alembic from PATH: the environment's own bin first.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0 and "ERROR" not in done.stderr, done.stderr[-3000:]


def submit(root: Path, student: str, assignment: str, nb) -> None:
    folder = root / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{assignment}.ipynb")


def one_wrong(nb, key: str):
    """The solved chapter with exercise ``key`` answered ten times too high."""
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == course.grade_id("answer", key))
    cell.source = cell.source.replace("### END SOLUTION", "answer = answer * 10\n### END SOLUTION")
    return nb


def exercises(nb) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    course.build(root)
    for assignment in ASSIGNMENTS:
        nbgrader(root, "generate_assignment", assignment, "--force")
        source = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        release = nbformat.read(root / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        submit(root, "solved", assignment, source)
        submit(root, "blank", assignment, release)
        if assignment == ASSIGNMENTS[0]:
            submit(root, "one-wrong", assignment, one_wrong(source, "1.1"))
        nbgrader(root, "autograde", assignment, "--force")
    nbgrader(root, "export")  # grades.csv, as the README's teacher does
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student in ("solved", "blank", "one-wrong"):  # the scores, for the log
            scores = [(s.assignment.name, s.score, s.max_score) for s in gradebook.find_student(student).submissions]
            print(student, scores)
        yield root, gradebook
    shutil.rmtree(root, ignore_errors=True)


def test_the_release_hides_the_value_checks_and_the_solutions(graded):
    root, _ = graded
    for assignment in ASSIGNMENTS:
        text = (root / "release" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
        source = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        assert "assert_form(answer)" in text and "assert_ok" not in text and "BEGIN SOLUTION" not in text
        assert len(exercises(source)) >= 5


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_solved_chapters_get_full_marks_and_the_blank_ones_none(graded, assignment):
    _, gradebook = graded
    solved = gradebook.find_submission(assignment, "solved")
    blank = gradebook.find_submission(assignment, "blank")
    assert solved.max_score > 0 and solved.score == solved.max_score
    assert blank.score == 0 and blank.max_score == solved.max_score


def test_one_wrong_answer_loses_exactly_its_exercise(graded):
    _, gradebook = graded
    assignment = ASSIGNMENTS[0]
    submission = gradebook.find_submission(assignment, "one-wrong")
    assert submission.score == submission.max_score - course.POINTS
    wrong = gradebook.find_grade(course.grade_id("test", "1.1"), assignment, assignment, "one-wrong")
    assert wrong.score == 0 and wrong.max_score == course.POINTS


def test_the_export_has_a_row_per_student_and_chapter_with_its_score(graded):
    root, gradebook = graded
    with open(root / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {(row["student_id"], row["assignment"]): float(row["raw_score"]) for row in csv.DictReader(f)}
    for assignment in ASSIGNMENTS:
        assert rows[("solved", assignment)] == gradebook.find_submission(assignment, "solved").max_score
        assert rows[("blank", assignment)] == 0
    assert rows[("one-wrong", ASSIGNMENTS[0])] == gradebook.find_submission(ASSIGNMENTS[0], "solved").max_score - 1
