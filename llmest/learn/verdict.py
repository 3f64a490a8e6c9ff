"""A graded answer's Verdict, and its message naming the entry as the reader knows it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core._validate import InputError, quote
from ..core.i18n import N_, _

ANSWER_LABEL = N_("your answer")
# "answer == 'x', must be": the value as _validate.quote writes it (a string's repr, or a word such as 1e+300).
_QUOTED_THEN_MUST = re.compile(r"""(?<![\w'])answer == ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,']+), must be """)


def readers_words(message: str) -> str:
    """A verdict's message naming the entry as the reader knows it: "answer == 'lots' is not a number" becomes
    "your answer 'lots' is not a number", and "answer == '0', must be ..." becomes "your answer '0' must be ..."."""
    if not isinstance(message, str):
        raise InputError("message", _("message == {value}, must be text.").format(value=quote(message)))
    label = _(ANSWER_LABEL)
    message = _QUOTED_THEN_MUST.sub(rf"{label} \1 must be ", message, count=1)
    return re.sub(r"(?<![\w'])answer == ", f"{label} ", message, count=1)


@dataclass(frozen=True)
class Verdict:
    grade: str      # "correct", "close", "wrong", "empty", "invalid", or "received" (graded mode: no verdict)
    message: str

    @property
    def correct(self) -> bool:
        return self.grade == "correct"

    @property
    def shown(self) -> str:
        """The message as the exercise box and an autograder show it, naming the entry as the reader knows it."""
        return readers_words(self.message)

    def __repr__(self) -> str:
        return self.message
