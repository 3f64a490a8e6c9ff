"""Drawing without matplotlib: HTML bars and a stacked memory bar, which redraw in well under a millisecond as a
field changes (the SVG line and scatter charts are in :mod:`.charts`); and the red message shown beside a field."""

from __future__ import annotations

import html

from ...catalog import hardware
from ...formulas import model as m
from ...core.i18n import N_, _
from ...display.plots import MEMORY_COLORS, PART_COLORS, part_label
from ...core.units import format_bytes, format_count, format_percent


ERROR_STYLE = "color:#b00020;font-size:0.9em"


def error_html(message: str) -> str:
    return f'<span style="{ERROR_STYLE}">{html.escape(message)}</span>' if message else ""


def bar_chart_html(rows, title: str = "") -> str:
    """A horizontal bar chart in HTML: rows of (label, value, text, color). Live widgets use it because it
    redraws in well under a millisecond, where a matplotlib figure takes tens of milliseconds."""
    largest = max((value for _, value, _, _ in rows), default=0) or 1
    lines = [f'<div style="font-size:0.9em;font-weight:bold;margin:4px 0">{html.escape(title)}</div>'] if title else []
    for label, value, text, color in rows:
        lines.append(
            '<div style="display:flex;align-items:center;font-size:0.85em;line-height:1.5">'
            f'<div style="width:11em;max-width:35%;flex:none;text-align:right;padding-right:6px">'
            f'{html.escape(label)}</div>'
            f'<div style="width:{45 * value / largest:.2f}%;flex:none;background:{color};height:1em"></div>'
            f'<div style="padding-left:6px;min-width:0">{html.escape(text)}</div></div>')
    return "".join(lines)


def breakdown_chart_html(count: m.ParamCount) -> str:
    rows = [(part_label(part), n, f"{format_count(n)} ({format_percent(n / count.total, 1)})", PART_COLORS[part])
            for part, n in count.parts.items() if n]
    return bar_chart_html(rows, _("parameters by part"))


_MEMORY_LABELS = {"weights": N_("weights"), "gradients": N_("gradients"), "optimizer": N_("optimizer + master"),
                  "adapters": N_("adapters"), "buffers": N_("ZeRO buffers"), "activations": N_("activations"),
                  "kv_cache": N_("KV cache"), "overhead": N_("overhead"), "critic": N_("critic"),
                  "reference": N_("reference"), "reward": N_("reward model"), "rollout": N_("rollout engine")}


def memory_bar_html(breakdown, gpu, margin) -> str:
    """A stacked bar of one GPU's memory by part, against the GPU's capacity and its usable part."""
    parts = dict(breakdown.parts)
    parts["optimizer"] = parts.get("optimizer", 0) + parts.pop("master", 0)
    capacity = hardware.gpu(gpu).memory_bytes
    scale = max(breakdown.total, capacity) * 1.05
    segments = "".join(
        f'<div title="{_(_MEMORY_LABELS[p])}: {format_bytes(b)}" style="width:{100 * b / scale:.3f}%;'
        f'background:{MEMORY_COLORS[p]};height:100%"></div>' for p, b in parts.items() if b > 0)
    marks = "".join(
        f'<div style="position:absolute;left:{100 * x / scale:.3f}%;top:0;height:100%;border-left:2px '
        f'{style} #000"></div>' for x, style in ((capacity * (1 - margin), "dashed"), (capacity, "solid")))
    legend = " · ".join(
        f'<span style="color:{MEMORY_COLORS[p]}">■</span> {_(_MEMORY_LABELS[p])} {format_bytes(b)}'
        for p, b in parts.items() if b > 0)
    lines = _("dashed: usable ({share} of {memory}); solid: the GPU's memory").format(
        share=format_percent(1 - margin, 0), memory=hardware.gpu(gpu).memory_text)
    return (f'<div style="position:relative;display:flex;height:1.6em;width:100%;max-width:36em;border:1px solid #ccc">'
            f'{segments}{marks}</div><div style="font-size:0.85em;margin-top:3px">{legend}<br>{lines}</div>')
