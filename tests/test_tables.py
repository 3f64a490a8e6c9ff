"""llmest.display.table: one Table, two forms (aligned plain text, a scrolling HTML table) with the same cells (the
tables the chapters show are tested with their findings)."""

import html.parser

import pytest

from llmest.core._validate import InputError
from llmest.core.units import format_number
from llmest.display.table import Table


class _Cells(html.parser.HTMLParser):
    """The text of every th/td, with its style, and the tags seen."""

    def __init__(self):
        super().__init__()
        self.cells, self.tags, self._open = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("th", "td"):
            self._open = [tag, dict(attrs).get("style", ""), ""]

    def handle_data(self, data):
        if self._open:
            self._open[2] += data

    def handle_endtag(self, tag):
        if self._open and tag == self._open[0]:
            self.cells.append(tuple(self._open))
            self._open = None


def parse(markup: str) -> _Cells:
    parser = _Cells()
    parser.feed(markup)
    return parser


SAMPLE = Table(("model", "memory", "note"),
                      [("llama-2-7b", "14.0 GB", "fits <one> GPU & more"), ("llama-2-70b", "140 GB", "")],
                      caption="weights in BF16", units={"memory": "per GPU"})


def test_text_form_aligns_numbers_right_and_text_left():
    lines = str(SAMPLE).splitlines()
    assert lines[0] == "weights in BF16"
    header, rule, first, second = lines[1:]
    assert header.split("  ")[0] == "model" and "memory (per GPU)" in header
    assert set(rule.replace(" ", "")) == {"-"}
    # the number column's cells end where its header ends; the text column's cells start where its header starts
    end = header.index("memory (per GPU)") + len("memory (per GPU)")
    assert first[:end].endswith("14.0 GB") and second[:end].endswith("140 GB")
    start = header.index("note")
    assert first[start:] == "fits <one> GPU & more"
    assert SAMPLE.numeric == (False, True, False)


def test_html_form_escapes_aligns_and_scrolls():
    markup = SAMPLE._repr_html_()
    parsed = parse(markup)
    div = parsed.tags[0]
    assert div[0] == "div" and "overflow-x:auto" in div[1]["style"]
    texts = [text for _, _, text in parsed.cells]
    assert texts[:3] == ["model", "memory (per GPU)", "note"]
    assert "fits <one> GPU & more" in texts          # parsed back, so it was escaped
    assert "<one>" not in markup and "&lt;one&gt;" in markup
    styles = {text: style for _, style, text in parsed.cells}
    assert "text-align:right" in styles["14.0 GB"] and "text-align:left" in styles["llama-2-7b"]
    assert "weights in BF16" in markup


def test_a_table_refuses_bad_shapes_by_name():
    with pytest.raises(InputError, match=r"rows\[0\] has 1 cells") as err:
        Table(("a", "b"), [("x",)])
    assert err.value.param == "rows"
    with pytest.raises(InputError, match="not a column") as err:
        Table(("a",), [("1",)], units={"b": "GB"})
    assert err.value.param == "units"
    with pytest.raises(InputError) as err:
        Table(("a",), [(object(),)])
    assert err.value.param == "rows"
    for bad in ((), "abc", None):
        with pytest.raises(InputError) as err:
            Table(bad, [])
        assert err.value.param == "columns"
    for bad in (5, ["a row as text"], None):
        with pytest.raises(InputError) as err:
            Table(("a",), bad)
        assert err.value.param == "rows"
    with pytest.raises(InputError) as err:
        Table(("a",), [(float("nan"),)])
    assert err.value.param == "rows"
    with pytest.raises(InputError) as err:
        Table(("a",), [("1",)], units="GB")
    assert err.value.param == "units"


def test_numbers_and_flags_are_written_by_the_library_formatters():
    table = Table(("n", "fits"), [(6738415616, True), (0.4, False)])
    assert table.rows == ((format_number(6738415616), "yes"), (format_number(0.4), "no"))


def test_money_in_a_table_is_not_typeset_as_a_formula():
    """JupyterLab runs MathJax over HTML outputs too: '$4 ... $5' in two cells would become one formula."""
    table = Table(["GPU", "price"], [["A", "$4 an hour"], ["B", "$5 an hour"]])
    outer = parse(table._repr_html_()).tags[0]
    assert outer[0] == "div" and "mathjax_ignore" in outer[1]["class"].split()
