"""The material's figures as a reader sees them: the HTML box, table and plot beside the plain text that print, the
command line and nbval read."""

import re
from html import escape

import pytest

import llmest as le
from llmest.book.material import STATUSES, Figure, Rendered
from llmest.book.material.render import CARD, MUTED, STATUS_COLORS, TEXT

FIGURES = le.material.figures()
ONE_OF_EACH = [next(f for f in FIGURES if f.status == status) for status in STATUSES]


def _jupyter(obj):
    """The mime bundle Jupyter stores for ``obj`` as a cell's last expression."""
    from IPython.core.interactiveshell import InteractiveShell

    data, _ = InteractiveShell.instance().display_formatter.format(obj)
    return data


def _text(html):
    return escape(html, quote=False)


# ---------------------------------------------------------------------------------------------------------------
# Plain text: what print and the terminal give is the box, and Jupyter's text/plain is the same
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.key)
def test_a_figure_prints_its_box_and_jupyter_stores_the_same_text_beside_the_html(figure):
    data = _jupyter(figure)
    assert str(figure) == figure.box() == data["text/plain"]
    assert data["text/html"] == figure._repr_html_()
    assert "recompute=" in repr(figure)   # repr stays the dataclass's, for debugging


def test_boxes_and_tables_print_the_text_they_always_printed():
    keys = ["000-ex1-gpu-hours", "000-ex1-flops", "004-4.1-epochs"]
    shown = le.material.boxes(keys)
    assert str(shown) == "\n\n".join(le.material.get(k).box() for k in keys) == _jupyter(shown)["text/plain"]
    table = le.material.table(chapter=1)
    assert isinstance(table, str) and _jupyter(table)["text/plain"] == str(table)
    assert str(table).splitlines()[0].split() == ["figure", "status", "material", "recomputed"]
    assert [line.split()[0] for line in str(table).splitlines()[1:]] == [f.key for f in le.material.figures(1)]
    assert "text/html" in _jupyter(table) and "text/html" in _jupyter(shown)


def test_boxes_of_one_status_and_bad_input():
    erratum = le.material.boxes(status="erratum")
    assert str(erratum).count("\nErratum: ") + str(erratum).startswith("Erratum: ") == \
        sum(f.status == "erratum" for f in FIGURES)
    assert erratum.html.count(">erratum</span>") == sum(f.status == "erratum" for f in FIGURES)
    with pytest.raises(le.InputError, match="status == 'erata'.*Did you mean 'erratum'"):
        le.material.boxes(status="erata")
    with pytest.raises(le.InputError, match="figure == '000-ex1-flop'"):
        le.material.boxes(["000-ex1-flop"])
    with pytest.raises(le.InputError, match=r"keys == \[\], must name at least one figure"):
        le.material.boxes([])
    with pytest.raises(le.InputError, match="of status 'contested'"):
        le.material.boxes(["000-ex1-flops"], status="contested")


# ---------------------------------------------------------------------------------------------------------------
# HTML: a badge per status, the texts of the plain box, escaped; inline styles only; the same bytes every run
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("figure", ONE_OF_EACH, ids=lambda f: f.status)
def test_the_badge_writes_the_status_in_words_in_its_colours(figure):
    colors = STATUS_COLORS[figure.status]
    badge = re.search(r'<span style="([^"]*)">([a-z]+)</span>', figure._repr_html_())
    assert badge[2] == figure.status
    assert f"background:{colors['tint']}" in badge[1] and f"color:{colors['ink']}" in badge[1]
    assert f"border-left:6px solid {colors['accent']}" in figure._repr_html_()


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.key)
def test_the_html_holds_every_text_of_the_plain_box(figure):
    html = figure._repr_html_()
    for text in (figure.claim, figure.quote, figure.stated_text, figure.recomputed_text, figure.how,
                 figure.status_text, figure.document_title, figure.section, figure.cause_text):
        assert _text(text) in html, text
    for says, source in figure.literature:
        assert _text(says) in html and _text(source) in html
    assert ("literature" in html) == bool(figure.literature)


def test_the_html_escapes_the_material_words():
    figure = Figure("t-<b>", 2, "000", "§3 <i>x</i>", "a < b & c", "显存 <script>alert(1)</script> & 更多", 1.0,
                    lambda: 2.0, "f(a) < g(b) & h", unit="bytes", cause="x < y & z")
    html = figure._repr_html_()
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html
    for raw in (figure.quote, figure.claim, figure.how, figure.cause_text, figure.key, figure.section):
        assert _text(raw) in html and "&lt;" in _text(raw)
    assert "显存 &lt;script&gt;alert(1)&lt;/script&gt; &amp; 更多" in html


def test_the_html_uses_inline_styles_only_and_is_deterministic():
    pages = [f._repr_html_() for f in FIGURES] + [le.material.table().html, le.material.boxes().html]
    for page in pages:
        assert not re.search(r"<(style|script|link)\b|\bid=|0x[0-9a-f]{4,}|https?://", page)
        assert set(re.findall(r'\bclass="([^"]*)"', page)) == {"mathjax_ignore"}
        assert page.startswith('<div class="mathjax_ignore"')   # else JupyterLab reads "$2 ... $3" as a formula
    assert pages == [f._repr_html_() for f in FIGURES] + [le.material.table().html, le.material.boxes().html]


def test_the_table_html_has_a_row_per_figure_in_order_and_scrolls_rather_than_wraps():
    keys = ["004-1.2-table-30b", "000-ex1-flops", "004-3.2-weeks"]
    table = le.material.table(keys=keys)
    rows = re.findall(r"<tr style=\"background:[^\"]*\">(.*?)</tr>", table.html)[1:]
    assert [re.search(r"<code[^>]*>(.*?)</code>", row)[1] for row in rows] == keys
    for row, key in zip(rows, keys):
        figure = le.material.get(key)
        assert f">{figure.status}</span>" in row and _text(figure.claim) in row
        assert _text(figure.stated_value_text) in row and _text(figure._fmt(figure.compared)) in row
    assert table.html.startswith('<div class="mathjax_ignore" style="overflow-x:auto')


def _luminance(color):
    def channel(c):
        c = int(c, 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(color[i:i + 2]) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b):
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_text_keeps_wcag_contrast_on_its_background():
    assert _contrast("#ffffff", "#000000") == pytest.approx(21)
    for colors in STATUS_COLORS.values():
        assert _contrast(colors["ink"], colors["tint"]) >= 4.5
    for ink in (TEXT, MUTED):
        for background in (CARD, "#f6f8fa"):
            assert _contrast(ink, background) >= 4.5


def test_rendered_is_the_text_with_html_beside_it():
    shown = Rendered("a\nb", "<b>a</b>")
    assert shown == "a\nb" and shown.splitlines() == ["a", "b"] and shown._repr_html_() == "<b>a</b>"


# ---------------------------------------------------------------------------------------------------------------
# The appendix plot: one mark per figure with a number, in the status colours
# ---------------------------------------------------------------------------------------------------------------

def _marks(ax):
    """{colour: [(x, y), ...]} of the lines that draw marks only."""
    from matplotlib.colors import to_hex

    marks = {}
    for line in ax.get_lines():
        if line.get_linestyle() == "None" and line.get_marker() not in (None, "None", ""):
            marks.setdefault(to_hex(line.get_color()), []).extend(zip(line.get_xdata(), line.get_ydata()))
    return marks


def test_the_plot_draws_one_mark_per_figure_with_a_number_in_its_status_colour():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from llmest.book.material.plot import mark_position

    overview, ratios = le.material.plot.material_vs_recomputed()
    numeric = [f for f in FIGURES if f.stated is not None]
    left_out = [f for f in FIGURES if f.stated is None]
    assert left_out   # the material has claims with no number; the title counts them
    for ax, x_of, y_of in ((overview, mark_position, lambda f: f.compared), (ratios, lambda f: f.ratio_to_stated, None)):
        marks = _marks(ax)
        assert set(marks) == {STATUS_COLORS[f.status]["accent"] for f in numeric}
        assert sum(map(len, marks.values())) == len(numeric)
        for status in STATUSES:
            expected = [f for f in numeric if f.status == status]
            drawn = marks.get(STATUS_COLORS[status]["accent"], [])
            assert [x for x, _ in drawn] == pytest.approx([x_of(f) for f in expected])
            if y_of:
                assert [y for _, y in drawn] == pytest.approx([y_of(f) for f in expected])
    labels = overview.get_legend().get_texts()
    for status in STATUSES:
        count = sum(f.status == status for f in numeric)
        assert f"{status} ({count})" in [t.get_text() for t in labels]
    title = overview.get_title()
    assert f"{len(numeric)} figures with a number" in title and f"{len(left_out)} claims with no number" in title
    assert all(f.key in title for f in left_out)
    ranges = [f for f in numeric if None not in f.bounds and f.bounds[0] != f.bounds[1]]
    bars = [tuple(line.get_xdata()) for line in overview.get_lines() if line.get_linewidth() == 3]
    assert sorted(bars) == sorted(f.bounds for f in ranges)
    plt.close(overview.figure)


def test_the_ratio_is_one_inside_and_the_offset_the_box_states_outside():
    assert le.material.get("004-1.2-table-7b").ratio_to_stated == 1.0
    figure = le.material.get("004-1.2-table-30b")
    assert figure.ratio_to_stated == pytest.approx(figure.compared / 28e9)
    assert "21.6% below" in figure.status_text
