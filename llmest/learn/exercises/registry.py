"""The registry of the chapters' exercises, keyed "chapter.number"."""

from __future__ import annotations

from ...catalog import hardware
from ... import plans
from ...formulas import memory as mem
from ...core.registry import Registry
from ...core.units import format_bytes, format_percent

EXERCISES = Registry("exercise")
register, get = EXERCISES.register, EXERCISES.lookup

KEPT_FREE = format_percent(mem.MEMORY_MARGIN, 0)   # the material's memory margin, as the questions say it
# What a GPU may use with that margin, as the hints say it, "{usable} ({share} of {memory})": "68.7 GB (80% of
# 80.0 GiB)".
USABLE = {name: {"usable": format_bytes(plans.usable_bytes(name)), "share": format_percent(1 - mem.MEMORY_MARGIN, 0),
                 "memory": format_bytes(hardware.gpu(name).memory_bytes, binary=True)}
          for name in ("A100 80GB", "H100 SXM")}
