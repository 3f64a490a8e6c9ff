"""A table: how a result with rows shows itself, in a terminal and in Jupyter.

A ``Table`` holds cells already written as text (by the formatters of ``llmest.units``) and computes nothing. In a
notebook it shows as an HTML table that scrolls sideways when it is wider than the page; ``str()`` gives the same
cells as aligned plain text for a terminal. Columns whose cells are all numbers are right-aligned in both.
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field

from ..core import _validate as v
from ..core.i18n import _
from ..core.i18n import display_width as _width
from ..core.units import format_number

TEXT_WIDTH = 100     # the plain-text form wraps its widest text column to stay within this many characters
_NARROWEST = 24      # ... but never wraps a column narrower than this
_LONGEST_UNBROKEN = 24  # a longer word (a web address, a file path) may break across lines
# A cell that reads as a number: "16", "-7%", "+7%", "$1,000", "4.2e22", "6.61B", "14.0 GB", "88,239 (+7%)", or a
# dash for none.
_NUMERIC = re.compile(r"[-+−]?\$?\d[\d,]*(\.\d+)?(e[-+]?\d+)?[a-z%×]*(\s.*)?|[-–—]", re.IGNORECASE)


def _pad(text: str, width: int, right: bool) -> str:
    room = " " * max(width - _width(text), 0)
    return room + text if right else text + room


# A wide character (a line may break beside it), a run of other characters, or spaces.
_PIECES = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+")


def _wrap(text: str, width: int) -> list:
    """``text`` in lines of at most ``width`` columns where it can be broken, a wide character taking two."""
    if _width(text) == len(text):
        return textwrap.wrap(text, width, break_on_hyphens=False)
    lines, line = [], ""
    for piece in _PIECES.findall(text):
        if line and _width(line + piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
        while _width(line) > width:  # a word longer than a line breaks across lines
            cut = max([1] + [k for k in range(len(line)) if _width(line[:k]) <= width])
            lines.append(line[:cut])
            line = line[cut:]
    return [*lines, line.rstrip()] if line.strip() else lines


def _cell(value, row: int, column: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, (int, float)):
        try:
            return format_number(value)
        except v.InputError as err:
            raise v.InputError("rows", f"rows[{row}][{column}]: {err}") from None
    raise v.InputError("rows", _("rows[{row}][{column}] == {value}, must be text or a number (format it with "
                                 "llmest.units first).").format(row=row, column=column, value=v.quote(value)))


@dataclass(frozen=True)
class Table:
    """Rows of cells under named columns. ``units``: a column's unit, written after its name ("memory (GB)");
    ``caption``: one line above the table; ``notes``: lines below it."""

    columns: tuple
    rows: tuple
    caption: str = ""
    units: dict = field(default_factory=dict)
    notes: tuple = ()

    def __post_init__(self):
        if not isinstance(self.columns, (list, tuple)) or not self.columns:
            raise v.InputError("columns", _("columns == {value}, must be a list of column names.").format(
                value=v.quote(self.columns)))
        columns = tuple(str(c) for c in self.columns)
        if not isinstance(self.rows, (list, tuple)) or not all(isinstance(r, (list, tuple)) for r in self.rows):
            raise v.InputError("rows", _("rows == {value}, must be a list of rows, each a list of cells.").format(
                value=v.quote(self.rows)))
        if not isinstance(self.units, dict):
            raise v.InputError("units", _("units == {value}, must be a dict of column: unit.").format(
                value=v.quote(self.units)))
        rows = tuple(tuple(row) for row in self.rows)
        for i, row in enumerate(rows):
            if len(row) != len(columns):
                raise v.InputError("rows", _("rows[{i}] has {cells} cells, must have one per column ({columns}).")
                                   .format(i=i, cells=len(row), columns=len(columns)))
        unknown = [name for name in self.units if name not in columns]
        if unknown:
            raise v.InputError("units", _("units names {name}, which is not a column ({columns}).").format(
                name=v.quote(unknown[0]), columns=", ".join(columns)))
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "rows", tuple(tuple(_cell(x, i, j) for j, x in enumerate(row))
                                               for i, row in enumerate(rows)))
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def headers(self) -> tuple:
        return tuple(f"{c} ({self.units[c]})" if self.units.get(c) else c for c in self.columns)

    @property
    def numeric(self) -> tuple:
        """Per column: whether every cell reads as a number (then it is right-aligned)."""
        return tuple(bool(self.rows) and all(_NUMERIC.fullmatch(row[j]) for row in self.rows)
                     for j in range(len(self.columns)))

    def column(self, name: str) -> tuple:
        """The cells of one column, top to bottom."""
        return tuple(row[v.lookup("name", name, {c: j for j, c in enumerate(self.columns)})] for row in self.rows)

    # -- plain text ------------------------------------------------------------------------------------------------
    def _widths(self, width: int) -> list:
        """Column widths; while the line is too long, the widest text column narrows to the next widest (or as far
        as needed), never below its longest word (up to _LONGEST_UNBROKEN: a web address may break) nor _NARROWEST."""
        widths = [max([_width(h)] + [_width(row[j]) for row in self.rows]) for j, h in enumerate(self.headers)]
        text_columns = [j for j, numeric in enumerate(self.numeric) if not numeric]
        while (over := sum(widths) + 2 * (len(widths) - 1) - width) > 0:
            by_width = sorted(text_columns, key=lambda j: -widths[j])
            if not by_width:
                break
            widest = by_width[0]
            runner_up = widths[by_width[1]] if len(by_width) > 1 else 0
            longest_word = min(_LONGEST_UNBROKEN, max(_width(w) for row in [self.headers, *self.rows]
                                                      for w in row[widest].split() or [""]))
            narrowed = max(widths[widest] - over, runner_up, _NARROWEST, longest_word)
            if narrowed >= widths[widest]:
                if runner_up == widths[widest] and runner_up > max(_NARROWEST, longest_word):
                    narrowed = widths[widest] - 1   # two as wide: narrow them in turn
                else:
                    break
            widths[widest] = narrowed
        return widths

    def text(self, width: int = TEXT_WIDTH) -> str:
        """Aligned plain text, a rule under the header; text cells wrap to keep lines within ``width`` characters
        where they can."""
        widths, numeric = self._widths(width), self.numeric

        def lines(cells):
            wrapped = [_wrap(cell, w) or [""] if not numeric[j] and _width(cell) > w
                       else [cell] for j, (cell, w) in enumerate(zip(cells, widths))]
            for k in range(max(len(w) for w in wrapped)):
                parts = [_pad(w[k] if k < len(w) else "", widths[j], numeric[j]) for j, w in enumerate(wrapped)]
                yield "  ".join(parts).rstrip()

        out = _wrap(self.caption, width) if self.caption else []
        out += list(lines(self.headers))
        out.append("  ".join("-" * w for w in widths))
        for row in self.rows:
            out += list(lines(row))
        out += list(self.notes)
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def _repr_pretty_(self, printer, cycle):  # IPython's text/plain
        printer.text(self.text())

    # -- HTML ------------------------------------------------------------------------------------------------------
    def _repr_html_(self) -> str:
        numeric = self.numeric

        # numbers, the rows' names and short text stay on one line; long text wraps, never narrower than 16em (the
        # table scrolls instead)
        long_text = [not numeric[j] and j > 0 and any(len(row[j]) > _NARROWEST for row in self.rows)
                     for j in range(len(self.columns))]

        def cell(tag, text, j):
            style = f"text-align:{'right' if numeric[j] else 'left'};vertical-align:top;padding:2px 8px;"
            if tag == "td":
                style += "min-width:16em;" if long_text[j] else "white-space:nowrap;"
            if tag == "th":
                style += "border-bottom:1px solid currentColor;"
            return f'<{tag} style="{style}">{html.escape(text)}</{tag}>'

        head = "".join(cell("th", h, j) for j, h in enumerate(self.headers))
        body = "".join("<tr>" + "".join(cell("td", x, j) for j, x in enumerate(row)) + "</tr>" for row in self.rows)
        caption = (f'<caption style="text-align:left;caption-side:top">{html.escape(self.caption)}</caption>'
                   if self.caption else "")
        notes = "".join(f'<p style="margin:4px 0 0">{html.escape(note)}</p>' for note in self.notes)
        # mathjax_ignore: JupyterLab typesets "$4 ... $5" inside HTML outputs as a formula otherwise.
        return (f'<div class="llmest-table mathjax_ignore" style="overflow-x:auto;max-width:100%">'
                '<table style="border-collapse:collapse;table-layout:auto;margin:0;font-variant-numeric:tabular-nums">'
                f"{caption}"
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}</div>")
