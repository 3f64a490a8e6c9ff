"""A graded exercise's hidden test (llmest.learn.sealed) and the course's graded mode (llmest.learn.grading.graded_mode): the
sealed test decides with the values written into it, whatever the kernel's llmest or the answer's class says; the
graded mode hands out no expected value and no direction, and cannot be switched off in the kernel."""

import importlib.util
import sys
import types
from pathlib import Path

import pytest

import llmest as le
from llmest import course, grading

SEALED = Path(le.__file__).parent / "learn" / "sealed.py"
QWEN = 494_032_768   # exercise 1.2: Qwen2-0.5B's parameters, exactly


def sealed():
    """llmest/learn/sealed.py loaded by its path, as a sealed test cell loads it."""
    spec = importlib.util.spec_from_file_location("_llmest_seal", SEALED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def graded():
    grading.graded_mode()
    yield
    grading._GRADED.update(on=False, feedback="none")   # this process is not a student's kernel


@pytest.mark.parametrize("answer", [QWEN, float(QWEN), "494,032,768", "494032768", "4.94032768e8"])
def test_a_right_answer_passes_in_any_form_the_reader_takes(answer):
    sealed().decide(answer, float(QWEN), 1e-7, "count")


@pytest.mark.parametrize("answer, says", [(None, "No answer"), ("", "No answer"), ("many", "Could not read"),
                                          (QWEN + 1000, "Not the value"), ("494M", "Not the value")])
def test_a_wrong_or_missing_answer_fails_without_a_direction(answer, says):
    with pytest.raises(AssertionError, match=says) as err:
        sealed().decide(answer, float(QWEN), 1e-7, "count")
    assert "high" not in str(err.value) and "low" not in str(err.value)


def test_an_answer_that_claims_to_equal_anything_is_read_as_its_value():
    class Liar(float):
        __eq__ = __le__ = __ge__ = lambda self, other: True          # noqa: E731
        __truediv__ = __sub__ = lambda self, other: Liar(1.0)         # noqa: E731

    class Text(str):
        def strip(self, *args):
            return "494032768"

    with pytest.raises(AssertionError):
        sealed().decide(Liar(3.0), float(QWEN), 1e-7, "count")
    with pytest.raises(AssertionError):
        sealed().decide(Text("7"), float(QWEN), 1e-7, "count")


def test_nothing_the_kernel_patches_takes_part(monkeypatch):
    # The reader patched, and other modules in sys.modules under llmest's names: the sealed test reads with a copy
    # of its own, loaded from the files.
    monkeypatch.setattr(grading, "read_entry", lambda entry, unit: float(QWEN))
    monkeypatch.setattr(grading.Exercise, "check", lambda self, answer: grading.Verdict("correct", "Correct."))
    for name in ("llmest", "llmest.learn.grading", "llmest.core.units", "llmest.core._validate"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    seal = sealed()
    with pytest.raises(AssertionError, match="Could not read"):
        seal.decide("anything", float(QWEN), 1e-7, "count")
    seal.decide("494,032,768", float(QWEN), 1e-7, "count")
    assert not [name for name in sys.modules if name.startswith("_llmest_sealed")]   # the copies are let go


def test_exact_counts_and_least_counts_are_decided_as_the_exercise_says():
    seal = sealed()
    seal.decide(8, 8.0, 0, "GPUs")
    with pytest.raises(AssertionError):
        seal.decide(9, 8.0, 0, "GPUs")
    seal.decide(8.2, 8.0, 0.05, "count", minimum=True)
    with pytest.raises(AssertionError):
        seal.decide(7.9, 8.0, 0.05, "count", minimum=True)   # fewer than the least is never right


def test_the_course_seals_each_test_with_the_value_its_exercise_computes():
    nb = course.seal(course.source_version(__import__("nbformat").read(
        course.COURSES["en"][1] / "01_parameters.ipynb", as_version=4)))
    assert nb.cells[1].id == "graded-mode" and "le.graded_mode()" in nb.cells[1].source
    tests = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert f"_seal.decide(answer, {float(QWEN)!r}, 1e-07, 'count', False)" in tests[1]
    assert all(repr(str(SEALED.resolve())) in t for t in tests)


def test_the_graded_mode_gives_no_verdict_and_no_key_and_stays_on(graded):
    exercise = le.exercise("1.2")
    verdict = exercise.check(QWEN + 10**6)
    assert verdict.grade == "received" and "high" not in verdict.message and "graded when you submit" in verdict.shown
    assert exercise.check(None).grade == "empty" and exercise.check("many").grade == "invalid"
    for ask in (exercise.expected, exercise.answer):
        with pytest.raises(RuntimeError, match="graded mode"):
            ask()
    with pytest.raises(RuntimeError, match="stays on"):
        le.graded_mode(False)
    exercise.assert_form("494M")   # the visible test still checks the form
    with pytest.raises(AssertionError, match="No answer"):
        exercise.assert_form(None)


def test_the_teacher_may_allow_right_or_wrong_and_never_a_direction():
    exercise = le.exercise("1.2")
    try:
        le.graded_mode(feedback="right-or-wrong")
        assert exercise.check(QWEN).correct
        wrong = exercise.check(QWEN * 2)
        assert wrong.grade == "wrong" and "high" not in wrong.message and "tolerance" in wrong.message
        with pytest.raises(RuntimeError, match="graded mode"):
            exercise.expected()
        with pytest.raises(RuntimeError, match="stays on"):
            le.graded_mode()   # nor another feedback
    finally:
        grading._GRADED.update(on=False, feedback="none")
    nb = course.seal(course.source_version(__import__("nbformat").read(
        course.COURSES["en"][1] / "01_parameters.ipynb", as_version=4)), feedback="right-or-wrong")
    assert "le.graded_mode(feedback='right-or-wrong')" in nb.cells[1].source
