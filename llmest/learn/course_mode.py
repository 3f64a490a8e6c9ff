"""The course's graded mode, which a graded assignment's first, locked cell turns on (llmest.book.course): an exercise
reads an answer and says how it was read (or, where the teacher allows it, right or wrong), never a direction, and
hands out no expected value. The grade is decided on the teacher's machine (llmest.learn.sealed), whatever this says."""

from __future__ import annotations

from ..core._validate import check_choice
from ..core.i18n import _

_GRADED = {"on": False, "feedback": "none"}
# What an exercise's check says in graded mode, as the teacher sets it (python -m llmest.course --feedback): nothing
# but how the answer was read, or right or wrong with no direction.
FEEDBACK = ("none", "right-or-wrong")


def graded_mode(on: bool = True, feedback: str = "none") -> None:
    """Turn the course's graded mode on, for the rest of the kernel's life: turning it off again is refused (restart
    the kernel for self-study), so that an answer cell cannot switch it off and ask for the expected value."""
    check_choice("feedback", feedback, FEEDBACK)
    if _GRADED["on"] and (not on or feedback != _GRADED["feedback"]):
        raise RuntimeError(_("The course's graded mode stays on in this kernel: restart it for self-study."))
    _GRADED.update(on=bool(on), feedback=feedback)


def withheld():
    raise RuntimeError(_("In the course's graded mode the expected value stays with the teacher: your answer is "
                         "graded when you submit."))
