"""The hidden test of a graded exercise, sealed when the course is built (``llmest.book.course``).

The test cell that nbgrader restores before it grades loads this file by its path, as a module of its own, and calls
:func:`decide` with the answer and what the teacher's machine computed: the expected value, the tolerance, the unit.
Nothing the student's notebook defines or changes takes part. Not ``llmest`` as the kernel has it (a student's cell
can patch ``Exercise.check`` or put another module in ``sys.modules["llmest"]``): an entry written as text is read by a
copy of llmest's reader loaded afresh from the files beside this one. Not the answer's own methods: a number is
turned into a plain float and text into a plain str before anything else reads them.

What it cannot stop is code that runs before the tests and changes Python itself (the built-in functions, the import
system, an IPython input transformer): the teacher's guide in the README says what a teacher can do about that.
"""

from __future__ import annotations

import importlib
import itertools
import sys
import types
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]   # llmest/, whose layers grading imports from
_COPIES = itertools.count()


def _fresh_reader():
    """llmest's ``grading`` module and what it imports, loaded anew from the package's folder under a private
    package name (the package itself left empty: its ``__init__`` is not needed to read an answer; the layers'
    ``__init__`` files import nothing)."""
    name = f"_llmest_sealed_{next(_COPIES)}"
    package = types.ModuleType(name)
    package.__path__ = [str(_PACKAGE)]
    sys.modules[name] = package
    try:
        return importlib.import_module(f"{name}.learn.grading")
    finally:
        for loaded in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
            del sys.modules[loaded]


def _plain(answer):
    """The answer as a plain float or str, whatever class it claims to be; None for no answer."""
    if answer is None:
        return None
    if isinstance(answer, str):
        return str.__str__(answer)
    try:
        return float.__float__(float(answer))
    except (TypeError, ValueError, OverflowError):
        return answer  # the reader refuses it by name


def decide(answer, expected: float, rel_tol: float, unit: str, minimum: bool = False) -> None:
    """Raise AssertionError unless ``answer`` is ``expected`` within ``rel_tol`` (exactly where it is 0; never
    below it where ``minimum``). The message gives no direction: a graded test is not a search oracle."""
    entry = _plain(answer)
    if entry is None or entry == "":
        raise AssertionError("No answer.")
    grading = _fresh_reader()
    try:
        value = float.__float__(float(grading.read_entry(entry, unit)))
    except grading.InputError as err:
        raise AssertionError(f"Could not read the answer: {err}") from None
    if rel_tol == 0:
        right = value == expected
    elif minimum and value < expected:
        right = False
    else:
        right = abs(value / expected - 1) <= rel_tol
    if not right:
        raise AssertionError("Not the value computed for this exercise (within its tolerance).")
