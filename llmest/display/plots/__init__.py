"""Figures for the chapters, a module a chapter. Each function draws on an Axes (a new figure when none is given)
and returns it."""

from .base import MEMORY_COLORS, PART_COLORS, part_label  # noqa: F401 (the widgets colour and name their bars the same)
from .compute import days_vs_gpus, decode_speed, mfu_by_year, published_mfu, roofline  # noqa: F401
from .layouts import layout_search, mfu_by_gpus, published_against_best  # noqa: F401
from .data import fit_optima, isoflop_curves, tokens_per_gb_spread, tokens_per_param  # noqa: F401
from .memory import (activations_vs_sequence, bytes_per_param, kv_cache_vs_tokens, memory_by_zero_stage,  # noqa: F401
                     memory_stacks, parallel_layouts)
from .measure import saved_for_backward  # noqa: F401
from .params import part_shares, rule_error, size_table_curves  # noqa: F401
from .progress import accuracy_by_topic  # noqa: F401
