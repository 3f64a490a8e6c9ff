"""What the figures share: an Axes when none is given, a colour per part of a model and per use of memory."""

from __future__ import annotations

import matplotlib.pyplot as plt

PART_COLORS = {
    "embeddings": "#4c72b0", "positions": "#64b5cd", "embedding_projections": "#8172b2", "attention": "#dd8452",
    "ffn": "#55a868", "experts": "#55a868", "shared_experts": "#8fbc8f", "router": "#c44e52", "norms": "#937860",
    "output_head": "#da8bc3",
}
MEMORY_COLORS = {"weights": "#4c72b0", "master": "#8172b2", "gradients": "#dd8452", "optimizer": "#c44e52",
                 "adapters": "#937860", "buffers": "#da8bc3", "activations": "#55a868", "kv_cache": "#64b5cd",
                 "overhead": "#8c8c8c"}


def axes(ax, size):
    """``ax``, or the Axes of a new figure of ``size`` inches."""
    if ax is None:
        _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax
