"""nbgrader's metadata, kept in solutions/ itself: every exercise has its locked question, its solution cell and an
autograded test cell, in that order; the self-study copies and the static pages carry none of it; a drill set
becomes an assignment whose solved answers pass its tests and whose blank ones fail them. (The round trip through
nbgrader itself is tests/test_course.py.)"""

import copy
import re

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmest import authoring, course
from llmest.book.authoring import CODE_PROMPT, NOTEBOOKS, SOLUTIONS, strip_cell
from llmest.learn.drills import drill_set
from llmest.book.export import readable

CHAPTERS = sorted(p.stem for p in SOLUTIONS.glob("*.ipynb"))


def read(folder, name):
    return nbformat.read(folder / f"{name}.ipynb", as_version=4)


def grader(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_solved_chapter_carries_its_nbgrader_metadata_up_to_date(name):
    nb = read(SOLUTIONS, name)
    assert authoring.mark(copy.deepcopy(nb)) == nb, "rebuild the chapter (make notebooks)"


@pytest.mark.parametrize("name", CHAPTERS)
def test_each_exercise_has_a_locked_question_a_solution_and_a_one_point_test_in_order(name):
    nb = read(SOLUTIONS, name)
    keys = [k for c in nb.cells for k in authoring.CHECK_CALL.findall(c.source)]
    ids = [grader(c).get("grade_id") for c in nb.cells]
    for key in keys:
        question, answer, test = (ids.index(authoring.grade_id(kind, key)) for kind in ("question", "answer", "test"))
        assert question < answer == test - 1
        assert grader(nb.cells[question])["locked"] and not grader(nb.cells[question])["solution"]
        assert grader(nb.cells[answer])["solution"] and not grader(nb.cells[answer])["locked"]
        meta = grader(nb.cells[test])
        assert meta["grade"] and meta["locked"] and meta["points"] == authoring.POINTS and not meta["solution"]
        assert f'le.exercise("{key}").assert_ok(answer)' in nb.cells[test].source.split("### BEGIN HIDDEN TESTS")[1]
    assert len({i for i in ids if i}) == len([i for i in ids if i]), "grade ids are unique"
    assert len(keys) >= 5 if name != "90_appendix_material" else not keys  # the appendix has no exercises


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_self_study_copy_and_the_static_page_leave_the_autograder_out(name):
    student = read(NOTEBOOKS, name)
    assert not any("nbgrader" in c.metadata for c in student.cells)
    assert not any("assert_ok" in c.source or "assert_form" in c.source for c in student.cells)
    page = readable(read(SOLUTIONS, name))
    assert not any("assert_ok" in c.source or "nbgrader" in c.metadata for c in page.cells)


def test_a_stale_chapter_is_refused_with_what_to_do():
    nb = read(SOLUTIONS, "01_parameters")
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "test-1-3"]
    with pytest.raises(authoring.CourseError, match="make notebooks"):
        course.source_version(nb)


def test_an_answer_cell_without_its_check_is_refused():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "### BEGIN SOLUTION\nanswer = 3\n### END SOLUTION")])
    with pytest.raises(authoring.CourseError, match="le.exercise"):
        authoring.mark(nb)


def run_cells(cells) -> dict:
    """Run an assignment's code cells in one namespace, as its kernel would (our own generated code); the graded
    mode its first cell turns on lasts for a kernel's life, so it ends with the run here (this process is not one
    student's kernel)."""
    from llmest import grading

    namespace = {}
    try:
        for cell in cells:
            if cell.cell_type == "code":
                exec(compile(cell.source, "<cell>", "exec"), namespace)  # noqa: S102
    finally:
        grading._GRADED.update(on=False, feedback="none")
    return namespace


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 12),
       level=st.sampled_from(["easy", "medium", "hard", "mixed"]))
def test_a_drill_set_as_an_assignment_passes_solved_and_fails_blank(seed, n, level):
    nb = course.drill_assignment(seed, n, None, level)
    from llmest.learn.drills import drill_set

    problems = drill_set(seed, n, None, level)
    questions = [c for c in nb.cells if grader(c).get("grade_id", "").startswith("question-")]
    assert [q.source.split("\n\n", 1)[1] for q in questions] == [p.question for p in problems]
    run_cells(nb.cells)  # every test passes on the worked answers
    for cell in nb.cells:
        if grader(cell).get("solution"):
            assert re.search(r"^answer = ", cell.source, re.MULTILINE)
    blank = copy.deepcopy(nb)
    for cell in blank.cells:
        strip_cell(cell)
    first_test = next(i for i, c in enumerate(blank.cells) if authoring.is_test(c))
    with pytest.raises(AssertionError, match="No answer yet"):
        run_cells(blank.cells[:first_test + 1])
    assert "\n".join(CODE_PROMPT) in blank.cells[first_test - 1].source


def test_the_drill_assignment_is_written_into_a_course(tmp_path):
    target = course.add_drill_assignment(tmp_path, 3, 4)
    name = course.default_drill_name(3)   # not "drills-seed-3": the seed would give the answers away
    assert target == tmp_path / "source" / name / f"{name}.ipynb" and name.startswith("drills-") and "3" not in name[7:8]
    assert "course_id" in (tmp_path / "nbgrader_config.py").read_text(encoding="utf-8")
    nb = nbformat.read(target, as_version=4)
    assert sum(authoring.is_test(c) for c in nb.cells) == sum(len(p.graded) for p in drill_set(3, 4, None, "mixed"))
