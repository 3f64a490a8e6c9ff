"""llmest.book.printed.tables: one Table, two forms (aligned plain text, a scrolling HTML table) with the same cells, and the
tables the chapters show built from the library's own figures."""

import html.parser
import re

import pytest

from llmest import hardware, plans, tables
from llmest import compute as c
from llmest import memory as mem
from llmest.core._validate import InputError
from llmest.core.units import format_int, format_number


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


SAMPLE = tables.Table(("model", "memory", "note"),
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


def test_every_cell_appears_identically_in_both_forms():
    table = tables.gpu_catalog()
    html_cells = [text for tag, _, text in parse(table._repr_html_()).cells if tag == "td"]
    assert html_cells == [cell for row in table.rows for cell in row]
    text = str(table)
    for row in table.rows:
        assert all(cell in text for cell in row)


def test_text_form_wraps_long_text_to_the_width_and_keeps_every_word():
    table = tables.conventions()
    lines = str(table).splitlines()
    assert max(len(line) for line in lines) <= tables.TEXT_WIDTH
    assert max(len(" ".join(row)) for row in table.rows) > tables.TEXT_WIDTH   # so it did wrap
    words = " ".join(lines).split()
    for row in table.rows:
        assert " ".join(row[-1].split()) in " ".join(words)


def test_a_table_refuses_bad_shapes_by_name():
    with pytest.raises(InputError, match=r"rows\[0\] has 1 cells") as err:
        tables.Table(("a", "b"), [("x",)])
    assert err.value.param == "rows"
    with pytest.raises(InputError, match="not a column") as err:
        tables.Table(("a",), [("1",)], units={"b": "GB"})
    assert err.value.param == "units"
    with pytest.raises(InputError) as err:
        tables.Table(("a",), [(object(),)])
    assert err.value.param == "rows"
    for bad in ((), "abc", None):
        with pytest.raises(InputError) as err:
            tables.Table(bad, [])
        assert err.value.param == "columns"
    for bad in (5, ["a row as text"], None):
        with pytest.raises(InputError) as err:
            tables.Table(("a",), bad)
        assert err.value.param == "rows"
    with pytest.raises(InputError) as err:
        tables.Table(("a",), [(float("nan"),)])
    assert err.value.param == "rows"
    with pytest.raises(InputError) as err:
        tables.Table(("a",), [("1",)], units="GB")
    assert err.value.param == "units"


def test_numbers_and_flags_are_written_by_the_library_formatters():
    table = tables.Table(("n", "fits"), [(6738415616, True), (0.4, False)])
    assert table.rows == ((format_number(6738415616), "yes"), (format_number(0.4), "no"))


def test_the_conventions_table_holds_the_library_bytes():
    table = tables.conventions("adamw")
    assert table.column("convention") == tuple(mem.CONVENTIONS)
    for row in table.rows:
        s = mem.state_bytes_per_param(row[0], "adamw")
        assert row[1:6] == tuple(format_number(x) for x in (s.weights, s.master, s.grads, s.optimizer, s.total))
        assert row[6] == mem.CONVENTIONS[row[0]].used_by
    assert dict(zip(table.column("convention"), table.column("total")))["mixed"] == "16"


def test_the_optimizer_table_holds_the_library_totals():
    table = tables.state_bytes_by_optimizer()
    assert table.columns == ("convention", *mem.OPTIMIZERS)
    for row in table.rows:
        for optimizer, cell in zip(mem.OPTIMIZERS, row[1:]):
            assert cell == format_number(mem.state_bytes_per_param(row[0], optimizer).total)
    with pytest.raises(InputError) as err:
        tables.state_bytes_by_optimizer(optimizers=["adam9"])
    assert err.value.param == "optimizer"


def test_the_catalog_and_decode_tables_hold_the_library_figures():
    catalog = tables.gpu_catalog()
    assert catalog.column("GPU") == tuple(g.name for g in hardware.CATALOG.values())
    assert catalog.column("BF16")[1] == f"{hardware.gpu('A100 80GB').bf16_flops_per_s / 1e12:.1f}"
    gpus = ["A100 80GB", "H100 SXM"]
    decode = tables.decode_limits("llama-3-8b", gpus, seq_len=1024)
    for row, name in zip(decode.rows, gpus):
        estimate = plans.decode_estimate("llama-3-8b", name, batch=1, seq_len=1024)
        g = hardware.gpu(name)
        assert row[3] == format_int(estimate.tokens_per_s) and row[4] == estimate.bound
        assert row[1] == format_int(c.compute_bound_batch(mem.model_weight_bytes("llama-3-8b"),
                                                          c.flops_params("llama-3-8b"), g.bandwidth_bytes_per_s,
                                                          g.bf16_flops_per_s))
    with pytest.raises(InputError) as err:
        tables.decode_limits("llama-3-8b", ["A100 20GB"])
    assert err.value.param == "gpu"


def test_the_html_form_is_deterministic_and_its_text_is_the_plain_table():
    class Printer:
        def __init__(self):
            self.out = ""

        def text(self, value):
            self.out += value

    printer = Printer()
    tables.weight_formats()._repr_pretty_(printer, False)
    assert printer.out == str(tables.weight_formats())
    assert tables.weight_formats()._repr_html_() == tables.weight_formats()._repr_html_()
    assert not re.search(r"0x[0-9a-f]{6,}", tables.weight_formats()._repr_html_())


def test_money_in_a_table_is_not_typeset_as_a_formula():
    """JupyterLab runs MathJax over HTML outputs too: '$4 ... $5' in two cells would become one formula."""
    table = tables.Table(["GPU", "price"], [["A", "$4 an hour"], ["B", "$5 an hour"]])
    outer = parse(table._repr_html_()).tags[0]
    assert outer[0] == "div" and "mathjax_ignore" in outer[1]["class"].split()
