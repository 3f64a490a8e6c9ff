"""The figures as Jupyter shows them: a box with a status badge, and a table, in HTML beside the plain text that
``print``, the command line and nbval read.

Inline styles only (a notebook's output may carry no stylesheet or script; the one class, mathjax_ignore, keeps
JupyterLab from reading money as mathematics), dark ink on a light card so a box reads the same in JupyterLab, in a
static page and in a dark theme, and the status always written in words. Every piece of text is escaped; the HTML
holds no ids or addresses, so a re-run writes the same bytes and nbval can pin it.
"""

from __future__ import annotations

from functools import partial
from html import escape as _escape
from typing import Callable

from ...core.i18n import N_, _, speaking

# Each status: its word on the badge, the box's title in plain text, the label of its last line, and its colours
# (ink on tint for the badge, an accent for the card's edge and the plot's marks). Ink on tint and text on white keep
# WCAG's 4.5:1. The words are English; _() gives them in the language shown.
STATUS_WORDS = {"confirmed": N_("confirmed"), "erratum": N_("erratum"), "depends": N_("depends"),
                "contested": N_("contested")}
TITLES = {"erratum": N_("Erratum"), "confirmed": N_("Confirmed"),
          "depends": N_("Depends on an input the material does not give"), "contested": N_("Contested")}
CAUSE_LABELS = {"erratum": N_("cause"), "confirmed": N_("note"), "depends": N_("so"), "contested": N_("so")}
# The rows of a box and the columns of a table.
LABELS = {"status": N_("status"), "source": N_("source"), "material": N_("material"), "literature": N_("literature"),
          "recomputed": N_("recomputed"), "figure": N_("figure"), "claim": N_("claim")}
STATUS_COLORS = {
    "confirmed": {"ink": "#116329", "tint": "#dafbe1", "accent": "#1a7f37"},
    "erratum": {"ink": "#a40e26", "tint": "#ffebe9", "accent": "#cf222e"},
    "depends": {"ink": "#7d4e00", "tint": "#fff8c5", "accent": "#bf8700"},
    "contested": {"ink": "#6639ba", "tint": "#fbefff", "accent": "#8250df"},
}
# Text between tags needs only &, < and > escaped; the HTML writes no attribute from a figure's text.
escape = partial(_escape, quote=False)
TEXT, MUTED, CARD, RULE = "#1f2328", "#57606a", "#ffffff", "#d0d7de"

_FONT = "font-family:system-ui,-apple-system,'Segoe UI','Noto Sans','Noto Sans CJK SC',sans-serif"
_CJK = ' lang="zh"'   # lets the browser pick a Chinese font for the material's words
# JupyterLab typesets "$160,000 to $240,000" inside HTML outputs as a formula unless told not to.
_NO_MATH = ' class="mathjax_ignore"'


class Text(str):
    """A text made from recomputed numbers (what the literature says, with figures): the English as a str, and
    ``shown()`` made again in the language shown."""

    def __new__(cls, make: Callable[[], str]):
        with speaking("en"):
            self = super().__new__(cls, make())
        self.make = make
        return self

    def shown(self) -> str:
        return self.make()


def shown(text: str) -> str:
    """A figure's text in the language shown."""
    return text.shown() if isinstance(text, Text) else _(text)


class Rendered(str):
    """Text that prints as itself (``print``, the command line, nbval's text/plain) and that Jupyter shows as HTML."""

    def __new__(cls, text: str, html: str):
        self = super().__new__(cls, text)
        self.html = html
        return self

    def _repr_html_(self) -> str:
        return self.html

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))


def badge(status: str) -> str:
    colors = STATUS_COLORS[status]
    return (f'<span style="display:inline-block;padding:0 7px;border-radius:10px;border:1px solid {colors["accent"]};'
            f'background:{colors["tint"]};color:{colors["ink"]};font-weight:600;font-size:0.85em;line-height:1.5;'
            f'white-space:nowrap">{escape(_(STATUS_WORDS[status]))}</span>')


def _row(label: str, content: str) -> str:
    return (f'<div style="color:{MUTED};text-align:right;white-space:nowrap">{escape(_(label))}</div>'
            f'<div style="min-width:0;overflow-wrap:anywhere">{content}</div>')


def figure_html(figure) -> str:
    """One figure's box: badge and claim, the rule it meets, the source, the material's words and figure, the
    literature, the recomputed figure and how, and the cause."""
    status = figure.status
    strong = f"font-weight:600;color:{TEXT}"
    material = (f'<span{_CJK} style="font-size:1.05em;background:#f6f8fa;border-radius:3px;padding:0 4px">'
                f'{escape(figure.quote)}</span>')
    if figure.stated_text:
        material += f' <span style="color:{MUTED}">&rarr;</span> <span style="{strong}">' \
                    f'{escape(figure.stated_text)}</span>'
    rows = [_row(LABELS["source"], escape(_("{document}, {section}")).format(
                document=escape(figure.document_title), section=f'<span{_CJK}>{escape(figure.section)}</span>')),
            _row(LABELS["material"], material)]
    rows += [_row(LABELS["literature"],
                  f'{escape(shown(says))} <span style="color:{MUTED}">({escape(shown(source))})</span>')
             for says, source in figure.literature]
    rows.append(_row(LABELS["recomputed"], f'<span style="{strong}">{escape(figure.recomputed_text)}</span> '
                                   f'<code style="color:{MUTED};background:none;font-size:0.9em">'
                                   f'{escape(shown(figure.how))}</code>'))
    if figure.cause_text:
        rows.append(_row(CAUSE_LABELS[status], escape(figure.cause_text)))
    return (f'<div{_NO_MATH} style="{_FONT};color:{TEXT};background:{CARD};border:1px solid {RULE};'
            f'border-left:6px solid {STATUS_COLORS[status]["accent"]};border-radius:6px;padding:8px 12px;'
            f'margin:6px 0;line-height:1.45;max-width:60em">'
            f'<div style="margin-bottom:2px">{badge(status)} <span style="{strong}">{escape(figure.shown_claim)}</span>'
            f' <code style="color:{MUTED};background:none;font-size:0.8em">{escape(figure.key)}</code></div>'
            f'<div style="color:{MUTED};font-size:0.9em;margin-bottom:6px">{escape(figure.status_text)}</div>'
            f'<div style="display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px">'
            f'{"".join(rows)}</div></div>')


def boxes_html(figures) -> str:
    return f'<div{_NO_MATH} style="{_FONT}">{"".join(figure_html(f) for f in figures)}</div>'


def table_html(figures, cells) -> str:
    """A table of figures that scrolls sideways rather than wrap: key, status badge, claim, material, recomputed.
    ``cells``: (key, status, material, recomputed) as the plain-text table writes them."""
    pad = "padding:3px 10px;vertical-align:top"
    head = "".join(f'<th style="{pad};text-align:{align};color:{MUTED};font-weight:600;border-bottom:2px solid {RULE};'
                   f'white-space:nowrap">{escape(_(LABELS[name]))}</th>'
                   for name, align in (("figure", "left"), ("status", "left"), ("claim", "left"),
                                       ("material", "right"), ("recomputed", "right")))
    body = []
    for i, (figure, (key, _status, stated, new)) in enumerate(zip(figures, cells)):
        background = CARD if i % 2 == 0 else "#f6f8fa"
        body.append(
            f'<tr style="background:{background};border-bottom:1px solid {RULE}">'
            f'<td style="{pad};text-align:left;white-space:nowrap">'
            f'<code style="background:none;color:{TEXT};white-space:nowrap">{escape(key)}</code></td>'
            f'<td style="{pad};text-align:left">{badge(figure.status)}</td>'
            f'<td style="{pad};text-align:left;min-width:12em">{escape(figure.shown_claim)}</td>'
            f'<td style="{pad};text-align:right;white-space:nowrap">{escape(stated)}</td>'
            f'<td style="{pad};text-align:right;white-space:nowrap;font-weight:600">{escape(new)}</td></tr>')
    return (f'<div{_NO_MATH} style="overflow-x:auto;max-width:100%"><table style="{_FONT};border-collapse:collapse;'
            f'table-layout:auto;margin:4px 0;color:{TEXT};background:{CARD};font-size:0.9em">'
            f'<thead><tr style="background:{CARD}">{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')
