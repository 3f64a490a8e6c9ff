"""The calculators' live charts: small SVG line and scatter charts, which redraw in well under a millisecond as a
field changes.

A chart is drawn in a fixed box of ``WIDTH`` units that the page shows at most ``WIDTH`` px wide, so its text is
never larger than the widgets' labels (13 px) and shrinks with the chart on a phone; every text is one size. The
margins are measured from the text they hold (the y label, the longest tick, the last x tick), the series are named
in a legend above the plot, never on a line, and the ticks are round numbers in the library's spelling."""

from __future__ import annotations

import html
import math
import re
import unicodedata

from ...core.i18n import language
from ...core.units import chinese_count, format_count, format_number

WIDTH = 340       # the box's width, in units that are CSS px at the widest the chart is shown: on a 390 px phone
                  # JupyterLab leaves an output about 270 px wide, where the text is still 10 px
FONT = 13         # every text's size: JupyterLab's widget labels (--jp-widgets-font-size)
PLOT_HEIGHT = 150
PAD = 4           # between the box's edge and any text
GAP = 6           # between a tick and its label, and between labels
LINE = round(FONT * 1.4)
MOST_TICKS = 7
HALO = 'paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"'  # text legible over a line


def text_width(text: str) -> float:
    """A generous estimate of ``text``'s width at FONT: a wide (CJK) character a full em, a narrow one 0.35 em (".,:;
    il'|"), any other 0.65 em (wider than a digit or a lower-case letter of the usual sans-serif fonts)."""
    def em(ch):
        if unicodedata.east_asian_width(ch) in "WF":
            return 1.0
        return 0.35 if ch in ".,:;il'|! " else 0.65
    return FONT * sum(em(ch) for ch in text)


def nice_step(span: float, intervals: int = 4) -> float:
    """The round step (1, 2 or 5 times a power of ten) nearest above ``span / intervals``."""
    raw = span / intervals
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw * (1 - 1e-9))


def _clean(value: float) -> float:
    return float(f"{value:.12g}")  # 0.30000000000000004 -> 0.3


def linear_ticks(lo: float, hi: float) -> tuple[list, float]:
    """Round ticks at a 1-2-5 step from the tick at or below ``lo`` to the one at or above ``hi``; and the step."""
    if not hi - lo > 1e-12 * max(abs(lo), abs(hi), 1e-300):
        lo, hi = (lo - abs(lo) / 10, hi + abs(hi) / 10) if lo else (-1.0, 1.0)
    step = nice_step(hi - lo)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [_clean(k * step) for k in range(first, last + 1)], step


def log_ticks(lo: float, hi: float) -> list:
    """Round ticks for a log axis from 10**lo to 10**hi, as (value, step): the decades (every other one or fewer when
    there are many), or 1-2-5 steps within a decade or two, or round steps within less than a decade."""
    decades = list(range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1))
    if len(decades) >= 3:
        every = math.ceil(len(decades) / (MOST_TICKS - 1))
        return [(10.0 ** d, 10.0 ** d) for d in decades[::every]]
    for steps in ((1, 2, 5), (1, 5), (1, 3)):
        ticks = [(_clean(m * 10.0 ** d), 10.0 ** d) for d in range(math.floor(lo) - 1, math.ceil(hi) + 1)
                 for m in steps if lo - 1e-9 <= math.log10(m) + d <= hi + 1e-9]
        if 2 <= len(ticks) <= MOST_TICKS:
            return ticks
    inside, step = linear_ticks(10 ** lo, 10 ** hi)
    return [(t, step) for t in inside if t > 0 and lo - 1e-9 <= math.log10(t) <= hi + 1e-9]


def tick_texts(ticks) -> list:
    """Each tick, (value, step), as (value, text) in the library's spelling of numbers, with the figures its step
    needs and no trailing zeros: 0.5, 2.05, 1,000; from 1,000 on 1K, 10K, 1B when the axis reaches 10,000 ('1万'
    and '10亿' in Chinese)."""
    short = max((abs(t) for t, _step in ticks), default=0) >= 1e4
    return [(t, _tick_text(t, step, short)) for t, step in ticks]


def _tick_text(value: float, step: float, short: bool) -> str:
    if value == 0:
        return "0"
    places = math.floor(math.log10(step) + 1e-9)
    figures = max(1, math.floor(math.log10(abs(value)) + 1e-9) - places + 1)
    if short and abs(value) >= (1e4 if language() == "zh" else 1e3):
        text = chinese_count(value, figures) if language() == "zh" else format_count(value, figures)
    else:
        text = format_number(value) if places >= 0 else format_count(value, figures)
    trailing = re.fullmatch(r"(.*\.\d*?)0+(\D*)", text)  # 2.10 -> 2.1, 7.00B -> 7B
    return trailing[1].rstrip(".") + trailing[2] if trailing else text


class Frame:
    """The axes of a chart: its box, ticks, axis labels and legend, and where a value falls (``px``, ``py``)."""

    def __init__(self, x_range, y_range, x_label: str, y_label: str, legend, y_log: bool = True):
        self.y_log = y_log
        self.x0, self.x1 = (math.log10(v) for v in x_range)
        x_ticks = log_ticks(self.x0, self.x1)
        if y_log:
            self.y0, self.y1 = (math.log10(v) for v in y_range)
            y_ticks = log_ticks(self.y0, self.y1)
        else:
            values, step = linear_ticks(*y_range)
            self.y0, self.y1 = values[0], values[-1]
            y_ticks = [(t, step) for t in values]
        self.x_ticks, self.y_ticks = tick_texts(x_ticks), tick_texts(y_ticks)
        self.x_label, self.y_label = x_label, y_label
        widest = max((text_width(text) for _, text in self.y_ticks), default=0)
        self.left = PAD + FONT + GAP + widest + GAP
        last = max((text_width(text) / 2 for t, text in self.x_ticks if self._fx(t) > 0.8), default=0)
        self.right = WIDTH - PAD - max(last, FONT / 2)
        self.legend = self._place_legend(legend)
        self.top = PAD + LINE * (max(row for row, *_ in self.legend) + 1 if self.legend else 0) + FONT
        self.bottom = self.top + max(PLOT_HEIGHT, text_width(y_label) + GAP)
        self.height = math.ceil(self.bottom + GAP + FONT + GAP + FONT + PAD)

    def _fx(self, x):
        return (math.log10(x) - self.x0) / (self.x1 - self.x0) if self.x1 > self.x0 else 0.5

    def px(self, x) -> float:
        return self.left + self._fx(x) * (self.right - self.left)

    def py(self, y) -> float:
        y = math.log10(y) if self.y_log else y
        share = (y - self.y0) / (self.y1 - self.y0) if self.y1 > self.y0 else 0.5
        return self.bottom - share * (self.bottom - self.top)

    def _place_legend(self, entries) -> list:
        """(row, x, color, label) for each (color, label): a swatch and its label, flowed left to right across the
        box above the plot, wrapping to a new row when one is full."""
        placed, row, x = [], 0, PAD
        for color, label in entries:
            width = 2 * FONT + 4 + text_width(label)
            if x > PAD and x + width > WIDTH - PAD:
                row, x = row + 1, PAD
            placed.append((row, x, color, label))
            x += width + 2 * GAP
        return placed

    def texts(self) -> list:
        """(x, y, anchor, text) of every horizontal text, for a check that each lies inside the box."""
        xs = [(self.px(t), self.bottom + GAP + FONT, "middle", text) for t, text in self.x_ticks]
        ys = [(self.left - GAP, self.py(t) + FONT * 0.35, "end", text) for t, text in self.y_ticks]
        legend = [(x + 2 * FONT + 4, PAD + LINE * row + FONT, "start", label) for row, x, _c, label in self.legend]
        return xs + ys + legend + [((self.left + self.right) / 2, self.height - PAD - 3, "middle", self.x_label)]

    def open(self) -> list:
        """The start of the chart's SVG: the box, the axes, the ticks and their labels, the axis labels and the
        legend."""
        parts = [f'<svg viewBox="0 0 {WIDTH} {self.height}" width="100%" xmlns="http://www.w3.org/2000/svg" '
                 f'class="llmest-chart" style="display:block;max-width:{WIDTH}px;height:auto;'
                 f'font-family:sans-serif;font-size:{FONT}px">',
                 f'<line x1="{self.left:.1f}" y1="{self.bottom:.1f}" x2="{self.right:.1f}" y2="{self.bottom:.1f}" '
                 'stroke="#888"/>',
                 f'<line x1="{self.left:.1f}" y1="{self.top:.1f}" x2="{self.left:.1f}" y2="{self.bottom:.1f}" '
                 'stroke="#888"/>']
        for x, y, anchor, text in self.texts():
            parts.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{html.escape(text)}</text>')
        for t, _text in self.x_ticks:
            parts.append(f'<line x1="{self.px(t):.1f}" y1="{self.bottom:.1f}" x2="{self.px(t):.1f}" '
                         f'y2="{self.bottom + 3:.1f}" stroke="#888"/>')
        for t, _text in self.y_ticks:
            parts.append(f'<line x1="{self.left - 3:.1f}" y1="{self.py(t):.1f}" x2="{self.right:.1f}" '
                         f'y2="{self.py(t):.1f}" stroke="#eee"/>')
        for row, x, color, _label in self.legend:
            y = PAD + LINE * row + FONT * 0.65
            parts.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x + 2 * FONT:.1f}" y2="{y:.1f}" stroke="{color}" '
                         'stroke-width="3"/>')
        middle = (self.top + self.bottom) / 2
        parts.append(f'<text x="{PAD + FONT * 0.8:.1f}" y="{middle:.1f}" text-anchor="middle" '
                     f'transform="rotate(-90 {PAD + FONT * 0.8:.1f} {middle:.1f})">{html.escape(self.y_label)}</text>')
        return parts

    def note(self, x: float, text: str, color: str) -> str:
        """A label beside a vertical line at ``x``, near the plot's top, on whichever side has room for it."""
        width = text_width(text)
        if x - 4 - width >= self.left:
            at, anchor = x - 4, "end"
        elif x + 4 + width <= WIDTH - PAD:
            at, anchor = x + 4, "start"
        else:
            at, anchor = min(max(x, PAD + width / 2), WIDTH - PAD - width / 2), "middle"
        return (f'<text x="{at:.1f}" y="{self.top + FONT:.1f}" text-anchor="{anchor}" fill="{color}" {HALO}>'
                f'{html.escape(text)}</text>')


def svg_chart(series, x_label: str, y_label: str, marker=None, y_log=True, vline=None) -> str:
    """A small line chart in SVG, log x (and log y unless ``y_log`` is False): ``series`` are (xs, ys, color,
    label); ``marker`` an (x, y) dot; ``vline`` an (x, label) dashed line across the chart, drawn when x lies on the
    axis."""
    xs = [x for s in series for x in s[0]]
    ys = [y for s in series for y in s[1] if y > 0 or not y_log]
    low, high = min(ys), max(ys)
    if y_log:
        low, high = low / 10 ** 0.1, high * 10 ** 0.1
    frame = Frame((min(xs), max(xs)), (low, high), x_label, y_label, [(s[2], s[3]) for s in series], y_log)
    parts = frame.open()
    for sx, sy, color, _label in series:
        points = " ".join(f"{frame.px(x):.1f},{frame.py(y):.1f}" for x, y in zip(sx, sy) if y > 0 or not y_log)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{points}"/>')
    if marker is not None:
        parts.append(f'<circle cx="{frame.px(marker[0]):.1f}" cy="{frame.py(marker[1]):.1f}" r="4" fill="#b00020"/>')
    if vline is not None and min(xs) <= vline[0] <= max(xs):
        x = frame.px(vline[0])
        parts.append(f'<line x1="{x:.1f}" y1="{frame.top:.1f}" x2="{x:.1f}" y2="{frame.bottom:.1f}" stroke="#555" '
                     f'stroke-dasharray="4 3"/>{frame.note(x, vline[1], "#555")}')
    return "".join(parts) + "</svg>"


def svg_scatter(groups, x_label: str, y_label: str, marker=None, x_line=None) -> str:
    """Points on log-log axes in SVG: ``groups`` are (xs, ys, color, label); points that fall on the same pixel
    are drawn once, so thousands of layouts stay a small page. ``marker``: an (x, y) ringed in red; ``x_line``: an
    (x, label) drawn as a dashed vertical line."""
    xs = [x for g in groups for x in g[0]] + ([x_line[0]] if x_line else [])
    ys = [y for g in groups for y in g[1]]
    widen = 10 ** 0.05
    frame = Frame((min(xs) / widen, max(xs) * widen), (min(ys) / widen, max(ys) * widen), x_label, y_label,
                  [(g[2], g[3]) for g in groups])
    parts = frame.open()
    for gx, gy, color, _label in groups:
        seen = sorted({(round(frame.px(x)), round(frame.py(y))) for x, y in zip(gx, gy)})
        dots = "".join(f"M{x} {y}h0" for x, y in seen)  # a round cap on a zero-length line: a dot, in 10 bytes
        parts.append(f'<path d="{dots}" stroke="{color}" stroke-width="3" stroke-linecap="round" '
                     'stroke-opacity="0.6"/>')
    if x_line is not None:
        x = frame.px(x_line[0])
        parts.append(f'<line x1="{x:.1f}" y1="{frame.top:.1f}" x2="{x:.1f}" y2="{frame.bottom:.1f}" stroke="#000" '
                     f'stroke-dasharray="4 3"/>{frame.note(x, x_line[1], "#000")}')
    if marker is not None:
        parts.append(f'<circle cx="{frame.px(marker[0]):.1f}" cy="{frame.py(marker[1]):.1f}" r="5" fill="none" '
                     'stroke="#b00020" stroke-width="2"/>')
    return "".join(parts) + "</svg>"
