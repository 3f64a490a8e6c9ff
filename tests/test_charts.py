"""The calculators' SVG charts read well at any width: a bounded box whose text never grows past the widgets' labels,
one text size, round ticks that are few and written as the library writes numbers, every label inside the box and
clear of the others, and the series named in a legend above the plot, not on their lines."""

from __future__ import annotations

import math
import re

import pytest

pytest.importorskip("ipywidgets")

from llmest.core.i18n import speaking  # noqa: E402
from llmest.surfaces.widgets import (LayoutExplorer, RooflineExplorer, ScalingExplorer, ServingPlanner,  # noqa: E402
                                     TrainingPlanner, svg_chart, svg_scatter)
from llmest.surfaces.widgets.charts import (FONT, GAP, MOST_TICKS, WIDTH, Frame, linear_ticks, log_ticks,  # noqa: E402
                                            text_width, tick_texts)

CALCULATORS = {
    "training": TrainingPlanner,
    "training-few-gpus": lambda: TrainingPlanner(model="llama-2-70b", gpus=8),
    "roofline": RooflineExplorer,
    "serving": ServingPlanner,
    "scaling": ScalingExplorer,  # its loss axis was ticked 2.35804, 2.30123
    "scaling-small": lambda: ScalingExplorer(flops=1e19),
    "layouts": lambda: LayoutExplorer(model="llama-2-7b", gpu="H100 SXM", gpus=64, seq_len=4096,
                                      batch_tokens="1048576"),
}
# A tick as the library writes it: "1,000", "2.05", "0.5", "10K", "1B", "1万", "1000亿", "1e15".
TICK = re.compile(r"\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?[KMBT]?|\d+(?:\.\d)?(?:万|亿|万亿)|\d(?:\.\d+)?e\d+")


def _chart(name: str, language: str) -> str:
    with speaking(language):
        return CALCULATORS[name]().chart.value


def _texts(svg: str) -> list:
    """(attributes, text) of each <text> element."""
    return [(dict(re.findall(r'([\w-]+)="([^"]*)"', attrs)), text)
            for attrs, text in re.findall(r"<text ([^>]*)>([^<]*)</text>", svg)]


def _box(svg: str) -> tuple:
    return tuple(float(v) for v in re.search(r'viewBox="([^"]+)"', svg)[1].split())


@pytest.fixture(scope="module", params=[(name, lang) for name in CALCULATORS for lang in ("en", "zh")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def chart(request):
    return _chart(*request.param)


def test_the_chart_is_a_bounded_box_whose_text_never_grows_past_the_labels(chart):
    opening = chart.split(">", 1)[0]
    x, y, width, height = _box(chart)
    assert (x, y, width) == (0, 0, WIDTH) and 150 < height < 320
    assert 'width="100%"' in opening and ' height="' not in opening, "it narrows with the page, keeping its shape"
    assert f"max-width:{WIDTH}px" in opening, "one unit of the box is at most one CSS px: 13 px text at most"
    assert FONT == 13  # JupyterLab's --jp-widgets-font-size, the size of the calculators' labels


def test_every_text_is_one_size(chart):
    sizes = re.findall(r"font-size[:=]\s*\"?([\d.]+)", chart) + re.findall(r"\bfont:\s*([\d.]+)", chart)
    assert sizes == [str(FONT)], "one size, set once on the chart"


def test_every_label_lies_inside_the_box(chart):
    _x, _y, width, height = _box(chart)
    for attrs, text in _texts(chart):
        x, y, extent = float(attrs["x"]), float(attrs["y"]), text_width(text)
        start = {"start": x, "middle": x - extent / 2, "end": x - extent}[attrs.get("text-anchor", "start")]
        if "transform" in attrs:  # the y label, turned a quarter: its length runs up the box
            assert x - FONT >= 0 and y - extent / 2 >= 0 and y + extent / 2 <= height, text
        else:
            assert start >= 0 and start + extent <= width and y - FONT >= 0 and y <= height, (text, start, extent)


def test_the_ticks_are_round_few_and_in_the_librarys_spelling(chart):
    ticks = [text for attrs, text in _texts(chart) if text[:1].isdigit() and "fill" not in attrs]
    assert 4 <= len(ticks) <= 2 * MOST_TICKS, ticks
    assert all(TICK.fullmatch(t) for t in ticks), ticks
    assert not [t for t in ticks if len(re.sub(r"\D", "", t.split("e")[0]).strip("0")) > 3], ticks


@pytest.mark.parametrize("lo, hi", [(2.30123, 2.35804), (1.95, 2.11), (0.0012, 0.0019), (0, 1), (3, 3), (-5, 5),
                                    (99, 101), (1e4, 2.6e4), (7.5e9, 9e9), (1e6, 1e6 + 1)])
def test_linear_ticks_are_round_steps_that_cover_the_range(lo, hi):
    ticks, step = linear_ticks(lo, hi)
    assert 3 <= len(ticks) <= MOST_TICKS, ticks
    assert ticks[0] <= lo and ticks[-1] >= hi
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-9, step
    assert all(abs(t / step - round(t / step)) < 1e-6 for t in ticks), "each a whole number of steps"
    texts = [text for _t, text in tick_texts([(t, step) for t in ticks])]
    assert len(set(texts)) == len(texts), texts


@pytest.mark.parametrize("lo, hi", [(1, 65536), (1e8, 1e12), (2.5, 400), (5, 200), (1.2, 1.9), (0.003, 0.2),
                                    (1e-5, 1e300), (40, 60), (1, 1024), (7e9, 7.2e9)])
def test_log_ticks_are_few_round_numbers_inside_the_axis(lo, hi):
    ticks = log_ticks(math.log10(lo), math.log10(hi))
    assert 1 <= len(ticks) <= MOST_TICKS, ticks
    for value, step in ticks:
        assert lo * (1 - 1e-9) <= value <= hi * (1 + 1e-9)
        assert abs(value / step - round(value / step)) < 1e-9, (value, step)  # a whole number of round steps
    texts = [text for _v, text in tick_texts(ticks)]
    assert len(set(texts)) == len(texts) and all(len(t) <= 6 for t in texts), texts


def test_ticks_are_written_as_the_library_writes_numbers():
    assert [t for _v, t in tick_texts(log_ticks(0, 4))] == ["1", "10", "100", "1K", "10K"]
    assert [t for _v, t in tick_texts(log_ticks(0, 3))] == ["1", "10", "100", "1,000"]
    assert [t for _v, t in tick_texts(log_ticks(8, 12))] == ["100M", "1B", "10B", "100B", "1T"]
    assert [t for _v, t in tick_texts([(t, 0.05) for t in linear_ticks(1.95, 2.1)[0]])] == ["1.95", "2", "2.05", "2.1"]
    with speaking("zh"):
        assert [t for _v, t in tick_texts(log_ticks(8, 12))] == ["1亿", "10亿", "100亿", "1000亿", "1万亿"]
        assert [t for _v, t in tick_texts(log_ticks(0, 4))] == ["1", "10", "100", "1,000", "1万"]


def test_the_y_label_and_the_longest_tick_have_room_beside_the_axis():
    series = [([1, 1e4], [1e5, 2.5e5], "#000", "a"), ([1, 1e4], [1.2e5, 1.3e5], "#f00", "b")]
    frame = Frame((1, 1e4), (1e5, 2.5e5), "x", "a long label on the y axis", [("#000", "a")], y_log=False)
    widest = max(text_width(text) for _v, text in frame.y_ticks)
    y_label_right = 4 + FONT * 0.8 + FONT * 0.3  # its baseline, turned, and its descent
    assert y_label_right < frame.left - GAP - widest, "the turned y label clear of the longest tick"
    assert "<svg" in svg_chart(series, "x", "a long label on the y axis", y_log=False)


def test_the_series_are_named_in_a_legend_above_the_plot_not_on_their_lines():
    names = [f"series number {k}" for k in range(5)]
    series = [([1, 10, 100], [k + 1, k + 2, k + 3], f"#00{k}", name) for k, name in enumerate(names)]
    frame = Frame((1, 100), (1, 8), "x", "y", [(s[2], s[3]) for s in series])
    rows = {row for row, *_ in frame.legend}
    assert len(rows) > 1, "five names wrap onto more than one row of the box"
    for row in rows:
        placed = sorted((x, text_width(label)) for r, x, _c, label in frame.legend if r == row)
        assert all(x + w + GAP <= nxt for (x, w), (nxt, _w) in zip(placed, placed[1:])), "stacked apart"
    svg = svg_chart(series, "x", "y")
    for attrs, text in _texts(svg):
        if text in names:
            assert float(attrs["y"]) < frame.top - FONT / 2, "above the plot, where no line runs"


def test_a_vertical_line_keeps_its_label_inside_the_box():
    for x in (1.01, 30, 99):
        for svg in (svg_chart([([1, 10, 100], [3, 2, 1], "#000", "line")], "x", "y", vline=(x, "largest batch 12,345")),
                    svg_scatter([([1, 10, 100], [3, 2, 1], "#000", "dots")], "x", "y", x_line=(x, "usable"))):
            attrs, text = next(t for t in _texts(svg) if t[1] in ("largest batch 12,345", "usable"))
            extent = text_width(text)
            start = {"start": 0, "middle": extent / 2, "end": extent}[attrs["text-anchor"]]
            assert 0 <= float(attrs["x"]) - start and float(attrs["x"]) - start + extent <= WIDTH
