"""The chapters' exercises, keyed "chapter.number": each a question, the answer computed by llmest, a tolerance
and hints, one module a chapter. Grading (``Exercise``, ``Verdict``, reading an entry) lives in ``llmest.grading``.
"""

from . import ch1_parameters, ch2_memory, ch3_compute, ch4_data, ch5_drills, ch6_measure  # noqa: F401 (they register)
from .registry import EXERCISES, get, register

__all__ = ["EXERCISES", "get", "register"]
