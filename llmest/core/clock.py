"""Lengths of time: seconds in an hour, a day and a rented GPU's month, and the words a person types for a length
of time or for GPU time ("4.6 days", "93,483 A100-hours", "3 卡天"), as the grader reads them."""

from __future__ import annotations

from ._validate import check_positive
from .i18n import N_

SECONDS_PER_HOUR = 3600
SECONDS_PER_DAY = 86_400
DAYS_PER_YEAR = 365
HOURS_PER_MONTH = DAYS_PER_YEAR * 24 / 12  # 730: a rented GPU's month
_SECONDS_PER_MONTH = DAYS_PER_YEAR / 12 * SECONDS_PER_DAY

# The words a person types after a number, in English and Chinese (the grader matches them case-insensitively, at
# the end of the entry). Lengths of time, in seconds:
_TIME = ((r"seconds?|secs?|s|秒钟?", 1), (r"minutes?|mins?|分钟", 60), (r"hours?|hrs?|h|个?小时|钟头", SECONDS_PER_HOUR),
         (r"days?|d|天|日", SECONDS_PER_DAY), (r"weeks?|wks?|个?(?:星期|礼拜)|周", 7 * SECONDS_PER_DAY),
         (r"months?|个月", _SECONDS_PER_MONTH), (r"years?|yrs?|年", DAYS_PER_YEAR * SECONDS_PER_DAY))
_GPU = r"(?:gpus?|cards?|卡|(?:nvidia\s*)?[abhlv]\d{2,3}s?)"   # an "A100-hour" is a GPU-hour
_GPU_TIME = [(rf"{_GPU}\s*[-·・ ]?\s*(?:{words})", seconds) for words, seconds in _TIME[2:]] \
    + [(rf"{_GPU}\s*时", SECONDS_PER_HOUR)]
_GPU_TIME_IS_WORK = N_("GPU-hours measure work, not time: divide them by the number of GPUs for the hours each runs")
_TIME_IS_NOT_WORK = N_("that is a length of time; the question asks GPU-hours, the work of all the GPUs together: "
                       "multiply the hours by the number of GPUs")


def gpu_hour_words() -> tuple:
    """GPU time in any unit converts ("2 GPU-days"), and so do bare hours (how people write A100-hours); any other
    bare time ("4.6 days") is a run's length, not its work, and is refused with that reason."""
    hours = _TIME[2]
    return tuple((words, seconds / SECONDS_PER_HOUR) for words, seconds in _GPU_TIME) + ((hours[0], 1.0),) \
        + tuple((words, _TIME_IS_NOT_WORK) for words, _ in _TIME if words != hours[0])


def time_words(scale: float) -> tuple:
    """A length of time in a unit of ``scale`` seconds: any length of time converts; GPU time is refused."""
    scale = check_positive("scale", scale)
    return tuple((words, _GPU_TIME_IS_WORK) for words, _ in _GPU_TIME) \
        + tuple((words, seconds / scale) for words, seconds in _TIME)
