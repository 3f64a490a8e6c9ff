"""What the figures share: an Axes when none is given, a colour per part of a model and per use of memory."""

from __future__ import annotations

import matplotlib.pyplot as plt

from ...core.i18n import _
from ...formulas.params import PART_NAMES
from ..memory import MEMORY_PART_NAMES

PART_COLORS = {
    "embeddings": "#4c72b0", "positions": "#64b5cd", "embedding_projections": "#8172b2", "attention": "#dd8452",
    "ffn": "#55a868", "experts": "#55a868", "shared_experts": "#8fbc8f", "router": "#c44e52", "norms": "#937860",
    "output_head": "#da8bc3", "indexer": "#b5651d", "linear_attention": "#e6a157", "mamba": "#a0522d",
    "short_conv": "#cc9966",
}
# The parts as the figures and bars name them (the English: the part's name, spaced).
PART_LABELS = {**PART_NAMES, **MEMORY_PART_NAMES}
MEMORY_COLORS = {"weights": "#4c72b0", "master": "#8172b2", "gradients": "#dd8452", "optimizer": "#c44e52",
                 "adapters": "#937860", "buffers": "#da8bc3", "activations": "#55a868", "kv_cache": "#64b5cd",
                 "overhead": "#8c8c8c", "critic": "#ccb974", "reference": "#8da0cb", "reward": "#a6d854",
                 "rollout": "#2a9d8f"}


def part_label(part: str) -> str:
    """A part of a model or of memory in the reader's language."""
    return _(PART_LABELS[part]) if part in PART_LABELS else part.replace("_", " ")


def axes(ax, size):
    """``ax``, or the Axes of a new figure of ``size`` inches."""
    if ax is None:
        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax
