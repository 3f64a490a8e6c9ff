"""The classroom round trip with nbgrader itself: make the course from solutions/ and add a seeded drill set,
generate each release, submit the solved chapters as one student and the blank release as another, autograde, and
read the gradebook: full marks and zero; a third student with one wrong answer loses exactly that exercise's point.
Chapter 1 goes through nbgrader's exchange (release, fetch, submit, collect), as on JupyterHub; the others are put
in submitted/ by hand, as a teacher on one machine does."""

import copy
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import require
from llmest import authoring, course

require("nbgrader")
from nbgrader.api import Gradebook  # noqa: E402

DRILLS = course.default_drill_name(7)
ASSIGNMENTS = (*course.CHAPTERS, DRILLS)
EXCHANGED = course.CHAPTERS[0]
STUDENTS = ("solved", "blank", "one-wrong")


def nbgrader(root: Path, *args):
    # nbgrader runs alembic from PATH: the environment's own bin first.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=1800)
    # nbgrader's own errors read "[AutogradeApp | ERROR] ..."; a kernel's teardown may log a stray ZMQ error that
    # grades nothing (the scores are checked below).
    assert done.returncode == 0 and "| ERROR]" not in done.stderr, done.stderr[-3000:]


def submit(root: Path, student: str, assignment: str, nb) -> None:
    folder = root / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{assignment}.ipynb")


def one_wrong(nb, key: str):
    """The solved chapter with exercise ``key`` answered ten times too high."""
    answer_id = authoring.grade_id("answer", key)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == answer_id)
    cell.source = cell.source.replace("### END SOLUTION", "answer = answer * 10\n### END SOLUTION")
    return nb


def exercises(nb) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]


def through_the_exchange(root: Path, assignment: str, notebooks: dict) -> None:
    """Release ``assignment``; each student fetches it, puts their answers in and submits; the teacher collects."""
    exchange = root / "exchange"
    exchange.mkdir(mode=0o777, exist_ok=True)
    exchange.chmod(0o777)  # nbgrader wants the exchange writable by all
    where = f"--Exchange.root={exchange}"
    nbgrader(root, "release_assignment", assignment, where)
    for student, nb in notebooks.items():
        home = root / "homes" / student  # the student's own folder, outside the course's
        home.mkdir(parents=True, exist_ok=True)
        nbgrader(home, "fetch_assignment", assignment, "--course=llmest", where)
        fetched = home / assignment / f"{assignment}.ipynb"
        assert fetched.exists()
        nbformat.write(nb, fetched)
        nbgrader(home, "submit", assignment, "--course=llmest", f"--student={student}", where)
    nbgrader(root, "collect", assignment, where)


# A student's ways to score without the work, each written into every answer cell of a released assignment (the
# first cell also gets the ``first`` lines); the blank release scores 0, and none of these may score more.
ATTACKS = {
    # the key in the student's package
    "attack-expected": ("", "try:\n    answer = le.exercise({key!r}).expected()\nexcept Exception:\n"
                            "    answer = le.exercise({key!r}).answer()"),
    # switch the graded mode off, then ask
    "attack-mode": ("", "le.graded_mode(False)\nanswer = le.exercise({key!r}).expected()"),
    # "too high" / "too low" as often as asked
    "attack-bisect": ("", "exercise, low, high = le.exercise({key!r}), 1e-6, 1e18\nfor _ in range(200):\n"
                          "    middle = (low * high) ** 0.5\n    said = exercise.check(middle).message\n"
                          "    if 'too high' in said:\n        high = middle\n    elif 'too low' in said:\n"
                          "        low = middle\n    else:\n        break\nanswer = middle"),
    # the tests' own objects patched
    "attack-patch": ("from llmest import grading\n"
                     "grading.Exercise.assert_ok = grading.Exercise.assert_form = lambda self, answer: None\n"
                     "grading.Exercise.check = lambda self, answer: grading.Verdict('correct', 'Correct.')\n"
                     "grading.read_entry = lambda entry, unit: 1.0\n", "answer = 1"),
    # another llmest in sys.modules
    "attack-modules": ("import sys, types\nclass Anything:\n    def __getattr__(self, name):\n"
                       "        return lambda *args, **kwargs: None\nfake = types.ModuleType('llmest')\n"
                       "fake.exercise = lambda key: Anything()\nfor name in ('llmest', 'llmest.learn.grading', "
                       "'llmest.learn.sealed'):\n    sys.modules[name] = fake\nle = fake\n", "answer = 1"),
    # an answer that equals anything
    "attack-liar": ("class Liar(float):\n    __eq__ = __le__ = __ge__ = lambda self, other: True\n"
                    "    __lt__ = __gt__ = __ne__ = lambda self, other: False\n"
                    "    __truediv__ = __sub__ = lambda self, other: Liar(1.0)\n", "answer = Liar(1.0)"),
}
# The drill set: the sheet of problems (and answers) its setup cell once built.
DRILL_ATTACK = ("", "answer = sheet[{index}].answer")


def attacked(release, first: str, each: str, assignment: str):
    """The released notebook with ``each`` (formatted with the exercise's key and index) in every answer cell."""
    nb = copy.deepcopy(release)
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"]
    for i, cell in enumerate(answers):
        key = cell.metadata["nbgrader"]["grade_id"].removeprefix("answer-").replace("-", ".")
        cell.source = (first if i == 0 else "") + each.format(key=key, index=i)
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    course.build(root)
    course.add_drill_assignment(root, 7, 10, None, "mixed")
    nbgrader(root, "generate_assignment", "--force", "--CourseDirectory.assignment_id=*")
    for assignment in ASSIGNMENTS:
        source = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        release = nbformat.read(root / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        notebooks = {"solved": source, "blank": release}
        if assignment == EXCHANGED:
            notebooks["one-wrong"] = one_wrong(copy.deepcopy(source), "1.1")
            through_the_exchange(root, assignment, notebooks)
            for student, (first, each) in ATTACKS.items():
                submit(root, student, assignment, attacked(release, first, each, assignment))
        else:
            for student, nb in notebooks.items():
                submit(root, student, assignment, nb)
        if assignment == DRILLS:
            submit(root, "attack-sheet", assignment, attacked(release, *DRILL_ATTACK, assignment))
    nbgrader(root, "autograde", "--force", "--CourseDirectory.assignment_id=*")
    nbgrader(root, "export")  # grades.csv, as the README's teacher does
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student in (*STUDENTS, *ATTACKS, "attack-sheet"):  # the scores, for the log
            scores = [(s.assignment.name, s.score, s.max_score) for s in gradebook.find_student(student).submissions]
            print(student, scores)
        yield root, gradebook
    shutil.rmtree(root, ignore_errors=True)


def test_the_release_hides_the_value_checks_and_the_solutions(graded):
    root, _ = graded
    for assignment in ASSIGNMENTS:
        text = (root / "release" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8")
        source = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        assert ("assert_form(answer)" in text or "assert_readable(answer" in text) and "BEGIN SOLUTION" not in text
        assert "le.graded_mode()" in text and "_seal.decide" not in text and "assert_ok" not in text
        assert len(exercises(source)) >= 5
        # the sealed values are in the teacher's copy only
        sealed = [c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert all("_seal.decide(answer, " in s for s in sealed)
        values = {s.split("_seal.decide(answer, ")[1].split(",")[0] for s in sealed}
        # (a value as short as "3.0" also reads in a question's text: only the longer ones can be told apart)
        assert not [v for v in values if len(v) > 5 and v in text]
    drills = (root / "release" / DRILLS / f"{DRILLS}.ipynb").read_text(encoding="utf-8")
    assert "drill_set" not in drills and "seed 7" not in drills and "answer = None" in drills


@pytest.mark.parametrize("student", [*ATTACKS, "attack-sheet"])
def test_no_attack_scores_more_than_a_blank_submission(graded, student):
    _, gradebook = graded
    assignment = DRILLS if student == "attack-sheet" else EXCHANGED
    attack = gradebook.find_submission(assignment, student)
    blank = gradebook.find_submission(assignment, "blank")
    assert attack.max_score == blank.max_score > 0 and attack.score <= blank.score == 0


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_solved_chapters_get_full_marks_and_the_blank_ones_none(graded, assignment):
    _, gradebook = graded
    solved = gradebook.find_submission(assignment, "solved")
    blank = gradebook.find_submission(assignment, "blank")
    assert solved.max_score > 0 and solved.score == solved.max_score
    assert blank.score == 0 and blank.max_score == solved.max_score


def test_the_exchange_delivered_each_students_copy(graded):
    root, _ = graded
    for student in STUDENTS:
        collected = root / "submitted" / student / EXCHANGED / f"{EXCHANGED}.ipynb"
        assert collected.exists(), f"{student}'s copy was not collected"


def test_the_drill_set_has_a_test_per_graded_step_from_its_template(graded):
    from llmest.learn.drills import drill_set

    _, gradebook = graded
    solved = gradebook.find_submission(DRILLS, "solved")
    steps = [len(p.graded) for p in drill_set(7, 10, None, "mixed")]  # a chained (hard) problem: one test a step
    assert max(steps) > 1 and solved.max_score == sum(steps) * authoring.POINTS


def test_one_wrong_answer_loses_exactly_its_exercise(graded):
    _, gradebook = graded
    assignment = ASSIGNMENTS[0]
    submission = gradebook.find_submission(assignment, "one-wrong")
    assert submission.score == submission.max_score - authoring.POINTS
    wrong = gradebook.find_grade(authoring.grade_id("test", "1.1"), assignment, assignment, "one-wrong")
    assert wrong.score == 0 and wrong.max_score == authoring.POINTS


def test_the_export_has_a_row_per_student_and_chapter_with_its_score(graded):
    root, gradebook = graded
    with open(root / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {(row["student_id"], row["assignment"]): float(row["raw_score"]) for row in csv.DictReader(f)}
    for assignment in ASSIGNMENTS:
        assert rows[("solved", assignment)] == gradebook.find_submission(assignment, "solved").max_score
        assert rows[("blank", assignment)] == 0
    assert rows[("one-wrong", ASSIGNMENTS[0])] == gradebook.find_submission(ASSIGNMENTS[0], "solved").max_score - 1


def test_the_chinese_course_releases_the_chinese_chapters_with_chinese_prompts(tmp_path):
    root = tmp_path / "course-zh"
    sources = course.build(root, "zh")
    assert [p.parent.name for p in sources] == list(course.CHAPTERS)
    config = (root / "nbgrader_config.py").read_text(encoding="utf-8")
    assert 'course_id = "llmest-zh"' in config and authoring.PROMPTS["zh"][1][0] in config
    assignment = course.CHAPTERS[0]
    nbgrader(root, "generate_assignment", assignment, "--force")
    released = nbformat.read(root / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    solved = nbformat.read(authoring.SOLUTIONS / "zh" / f"{assignment}.ipynb", as_version=4)
    assert released.cells[0].source == solved.cells[0].source, "the Chinese chapter, its heading first"
    answers = [c.source for c in released.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers and all(authoring.PROMPTS["zh"][0][0] in a or authoring.PROMPTS["zh"][1][0] in a for a in answers)
    released_lines = {line.strip() for c in released.cells for line in c.source.splitlines()}
    regions = [region for c in solved.cells for region in authoring.solution_regions(c.source)]
    student = nbformat.read(authoring.NOTEBOOKS / "zh" / f"{assignment}.ipynb", as_version=4)
    outside = {line.strip() for c in student.cells for line in c.source.splitlines()}  # shown to students anyway
    leaked = {line.strip() for region in regions for line in region.splitlines()} & released_lines - outside
    assert not [line for line in leaked if len(line) > 12], "no solution text reaches the release"
