"""Drawing without matplotlib: HTML bars, a stacked memory bar and a small SVG line chart, which redraw in
well under a millisecond as a field changes; and the red message shown beside a field."""

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
                  "kv_cache": N_("KV cache"), "overhead": N_("overhead")}


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


def svg_chart(series, x_label: str, y_label: str, marker=None, width=460, height=220, y_log=True,
              vline=None) -> str:
    """A small line chart in SVG, log x (and log y unless ``y_log`` is False): ``series`` are
    (xs, ys, color, label); ``marker`` an (x, y) dot; ``vline`` an (x, label) dashed line across the chart, drawn
    when x lies on the axis. Live widgets use it because it redraws in well under a millisecond."""
    import math

    def ty(y):
        return math.log10(y) if y_log else y

    xs = [x for s in series for x in s[0]]
    ys = [y for s in series for y in s[1] if y > 0]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = ty(min(ys)), ty(max(ys))
    pad = 0.1 if y_log else 0.05 * (y1 - y0)
    y0, y1 = (y0 - pad, y1 + pad) if y1 - y0 > 1e-9 else (y0 - 1, y1 + 1)
    left, bottom, right, top = 56, height - 34, width - 10, 10

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * (right - left)

    def py(y):
        return bottom - (ty(y) - y0) / (y1 - y0) * (bottom - top)

    # A viewBox and width 100%: the chart scales to a phone or a projector, its text with it.
    parts = [f'<svg viewBox="0 0 {width} {height}" width="100%" xmlns="http://www.w3.org/2000/svg" '
             f'style="max-width:{2 * width}px;height:auto;font:11px sans-serif">',
             f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>']
    for decade in range(math.ceil(x0), math.floor(x1) + 1):
        parts.append(f'<text x="{px(10 ** decade):.1f}" y="{bottom + 14}" text-anchor="middle">'
                     f'{10 ** decade:g}</text>')
    y_ticks = ([10 ** d for d in range(math.ceil(y0), math.floor(y1) + 1)] if y_log
               else [y0 + (y1 - y0) * k / 4 for k in range(5)])
    for tick in y_ticks:
        parts.append(f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" text-anchor="end">{tick:,g}</text>')
    for i, (sx, sy, color, label) in enumerate(series):
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(sx, sy) if y > 0)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{points}"/>')
        parts.append(f'<text x="{right - 4}" y="{top + 12 + 13 * i}" text-anchor="end" fill="{color}">'
                     f'{html.escape(label)}</text>')
    if marker is not None:
        parts.append(f'<circle cx="{px(marker[0]):.1f}" cy="{py(marker[1]):.1f}" r="4" fill="#b00020"/>')
    if vline is not None and min(xs) <= vline[0] <= max(xs):
        x = px(vline[0])
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#555" stroke-dasharray="4 3"/>'
                     f'<text x="{x - 4:.1f}" y="{bottom - 6}" text-anchor="end" fill="#555">'
                     f'{html.escape(vline[1])}</text>')
    parts.append(f'<text x="{(left + right) / 2}" y="{height - 4}" text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(f'<text x="12" y="{(top + bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {(top + bottom) / 2})">{html.escape(y_label)}</text></svg>')
    return "".join(parts)


def svg_scatter(groups, x_label: str, y_label: str, marker=None, x_line=None, width=460, height=240) -> str:
    """Points on log-log axes in SVG: ``groups`` are (xs, ys, color, label); points that fall on the same pixel
    are drawn once, so thousands of layouts stay a small page. ``marker``: an (x, y) ringed in red; ``x_line``: an
    (x, label) drawn as a dashed vertical line."""
    import math

    xs = [x for g in groups for x in g[0]] + ([x_line[0]] if x_line else [])
    ys = [y for g in groups for y in g[1]]
    x0, x1 = math.log10(min(xs)) - 0.05, math.log10(max(xs)) + 0.05
    y0, y1 = math.log10(min(ys)) - 0.05, math.log10(max(ys)) + 0.05
    left, bottom, right, top = 56, height - 34, width - 10, 10

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * (right - left)

    def py(y):
        return bottom - (math.log10(y) - y0) / (y1 - y0) * (bottom - top)

    parts = [f'<svg viewBox="0 0 {width} {height}" width="100%" xmlns="http://www.w3.org/2000/svg" '
             f'style="max-width:{2 * width}px;height:auto;font:11px sans-serif">',
             f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>']
    for lo, hi, place in ((x0, x1, "x"), (y0, y1, "y")):
        for tick in _ticks(lo, hi):
            parts.append(f'<text x="{px(tick):.1f}" y="{bottom + 14}" text-anchor="middle">{tick:,g}</text>'
                         if place == "x" else
                         f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" text-anchor="end">{tick:,g}</text>')
    for i, (gx, gy, color, label) in enumerate(groups):
        seen = sorted({(round(px(x)), round(py(y))) for x, y in zip(gx, gy)})
        dots = "".join(f"M{x} {y}h0" for x, y in seen)  # a round cap on a zero-length line: a dot, in 10 bytes
        parts.append(f'<path d="{dots}" stroke="{color}" stroke-width="3" stroke-linecap="round" '
                     'stroke-opacity="0.6"/>')
        parts.append(f'<text x="{right - 4}" y="{top + 12 + 13 * i}" text-anchor="end" fill="{color}">'
                     f'{html.escape(label)}</text>')
    if x_line is not None:
        x = px(x_line[0])
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#000" stroke-dasharray="4 3"/>'
                     f'<text x="{x + 3:.1f}" y="{bottom - 4}">{html.escape(x_line[1])}</text>')
    if marker is not None:
        parts.append(f'<circle cx="{px(marker[0]):.1f}" cy="{py(marker[1]):.1f}" r="5" fill="none" stroke="#b00020" '
                     'stroke-width="2"/>')
    parts.append(f'<text x="{(left + right) / 2}" y="{height - 4}" text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(f'<text x="12" y="{(top + bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {(top + bottom) / 2})">{html.escape(y_label)}</text></svg>')
    return "".join(parts)


def _ticks(lo: float, hi: float) -> list:
    """Round ticks for a log axis from 10**lo to 10**hi: the decades, or 1-2-5 steps within less than two."""
    import math

    steps = (1,) if hi - lo >= 2 else (1, 2, 5)
    return [m * 10 ** d for d in range(math.floor(lo), math.ceil(hi) + 1) for m in steps
            if lo <= math.log10(m * 10 ** d) <= hi]
