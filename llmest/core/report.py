"""How a result shows itself: one ``Report`` per result, read by every surface.

A result type (a memory plan, a time estimate, a layout search ...) builds its ``Report`` in the current language:
a title, the figures as labelled fields, any tables, sentences and notes, and the same figures as plain data. The
terminal prints ``str(report)``, Jupyter and the static pages show ``report._repr_html_()``, ``--json`` prints
``report.to_dict()``. ``Shows`` gives a result these three from its ``report()``, as a DataFrame or a SymPy
expression shows itself in every front end.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, replace
from typing import Callable

from .i18n import display_width


@dataclass(frozen=True)
class Report:
    """``fields``: (label, text) pairs, aligned in a terminal; ``blocks``: tables shown after the title (a ``Table``
    or lines already aligned); ``lines``: sentences after the fields; ``data``: the figures for ``--json``."""

    title: str
    fields: tuple = ()
    data: dict = field(default_factory=dict)
    blocks: tuple = ()
    lines: tuple = ()
    notes: tuple = ()

    def __str__(self) -> str:
        parts = [self.title] if self.title else []
        parts += [str(block) for block in self.blocks]
        if self.fields:
            width = max(display_width(label) for label, _ in self.fields)
            parts += [f"{label}{' ' * (width - display_width(label))}  {text}" for label, text in self.fields]
        return "\n".join(parts + list(self.lines) + list(self.notes))

    def _repr_html_(self) -> str:
        # mathjax_ignore: JupyterLab typesets "$4 ... $5" inside HTML outputs as a formula otherwise.
        out = ['<div class="llmest-report mathjax_ignore">']
        if self.title:
            out.append(f"<p><b>{html.escape(self.title)}</b></p>")
        for block in self.blocks:
            shown = getattr(block, "_repr_html_", None)
            out.append(shown() if shown else f"<pre>{html.escape(str(block))}</pre>")
        if self.fields:
            rows = "".join(f'<tr><th style="text-align:left">{html.escape(label)}</th>'
                           f'<td style="text-align:left">{html.escape(text)}</td></tr>' for label, text in self.fields)
            out.append(f"<table>{rows}</table>")
        out += [f"<p>{html.escape(line)}</p>" for line in self.lines]
        out += [f"<p><small>{html.escape(note)}</small></p>" for note in self.notes]
        return "\n".join(out + ["</div>"])

    def to_dict(self) -> dict:
        return dict(self.data)

    def _repr_pretty_(self, printer, cycle):  # IPython's text/plain: the terminal's text
        printer.text(str(self))


@dataclass(frozen=True)
class Block:
    """A block of a report in two forms: ``text`` aligned for a terminal (as the chapters print it), and for a page
    the same cells as an HTML table: ``header`` and ``rows`` of text (a column of figures is right-aligned)."""

    text: str
    header: tuple
    rows: tuple

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        right = [bool(self.rows) and all(row[j][:1].isdigit() for row in self.rows if row[j])
                 for j in range(len(self.header))]

        def cells(tag, row):
            return "".join(f'<{tag} style="text-align:{"right" if right[j] else "left"};padding:1px 8px">'
                           f"{html.escape(cell)}</{tag}>" for j, cell in enumerate(row))

        body = "".join(f"<tr>{cells('td', row)}</tr>" for row in self.rows)
        return f"<table><thead><tr>{cells('th', self.header)}</tr></thead><tbody>{body}</tbody></table>"


class Shows:
    """A result that shows itself: ``str()``, ``_repr_html_()`` and ``to_dict()`` all read its ``report()``."""

    def report(self) -> Report:
        raise NotImplementedError

    def __str__(self) -> str:
        return str(self.report())

    def _repr_html_(self) -> str:
        return self.report()._repr_html_()

    def to_dict(self) -> dict:
        return self.report().to_dict()

    def _repr_pretty_(self, printer, cycle):  # IPython's text/plain: the terminal's text, not the fields
        printer.text(str(self))

    def __init_subclass__(cls, **kwargs):
        # IPython takes a class's own __repr__ (a dataclass's) before an inherited _repr_pretty_: give each result
        # type its own, so that its text/plain is its text.
        super().__init_subclass__(**kwargs)
        cls._repr_pretty_ = Shows._repr_pretty_


@dataclass(frozen=True)
class Finding(Shows):
    """A small result a chapter shows (the GPUs that hold a model's states, the bytes each ZeRO stage sends): the
    ``figures`` a plan of ``llmest.plans.findings`` worked out, as plain data, and ``shown_by``, the function of
    ``llmest.display.findings`` that writes them as a report in the current language. ``finding["kept"]`` reads one
    figure; ``to_dict()`` gives them all."""

    figures: dict
    shown_by: Callable[[dict], Report] = field(repr=False, compare=False)

    def __getitem__(self, name):
        return self.figures[name]

    def report(self) -> Report:
        return replace(self.shown_by(self.figures), data=self.figures)
