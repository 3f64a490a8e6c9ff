"""The registry of the chapters' exercises, keyed "chapter.number"."""

from __future__ import annotations

from .. import memory as mem
from .._registry import Registry
from ..units import format_percent

EXERCISES = Registry("exercise")
register, get = EXERCISES.register, EXERCISES.lookup

KEPT_FREE = format_percent(mem.MEMORY_MARGIN, 0)   # the material's memory margin, as the questions say it
