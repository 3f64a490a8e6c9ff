"""A static HTML copy of the solved workbook, for reading without Jupyter and without a network.

    python -m llmest.book.export --out build/html

writes one page per chapter of ``solutions/`` (code, worked answers and figures as stored) and an ``index.html``, with
MathJax copied beside them, so the pages open from the disk with nothing fetched from elsewhere; the Chinese edition
(``solutions/zh/``) goes to ``zh/`` below them, its links and notes in Chinese, each index linking the other. Every
page links to the previous and the next one and lists all the chapters. A widget cannot run in a static page; each
stands as a static copy of what it showed when the chapter ran (its saved state), with a note saying where to use it.
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

from .authoring import BEGIN, END, SOLUTIONS, self_study
from .export_page import MATHJAX_DIR, STYLE, copy_mathjax, page_exporter
from .export_widgets import VIEW, saved_models, static_copy
from ..core.i18n import _, speaking

INDEX = "index.html"
CHINESE = "zh"  # the Chinese edition's folder, below the English pages
HTML_LANGUAGE = {"en": "en", "zh": "zh"}  # ISO 639-1, as nbconvert requires
# Lines that serve the authoring and the tests, not the reader.
HIDDEN_LINES = (BEGIN, END)


def _title(nb) -> str:
    """The chapter's first heading line."""
    first = nb.cells[0].source.splitlines()[0] if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    return first.lstrip("# ").strip() or "llmest"


def widget_note() -> str:
    """What stands below a widget's static copy, in the language spoken."""
    note = _("A static copy of what this widget showed when the chapter ran: open the chapter in JupyterLab "
             "({command}) to use it.").format(command="<code>make lab</code>")
    return f'<p class="llmest-static-note"><em>{note}</em></p>'


def readable(nb):
    """The notebook as a reader sees it: solution markers and autograded test cells dropped, each widget replaced
    by a static copy of its saved state (and a note)."""
    models = saved_models(nb)
    self_study(nb)  # the autograder's test cells are a class's, not a reader's
    nb.metadata.pop("widgets", None)  # else nbconvert's template would load a widget manager from the web
    for cell in nb.cells:
        if BEGIN in cell.source:
            cell.metadata["llmest_worked"] = True  # folded on the page (export_page.TEMPLATE)
        cell.source = "\n".join(line for line in cell.source.splitlines()
                                if line.strip() not in HIDDEN_LINES).strip()
        for out in cell.get("outputs", []):
            if VIEW in out.get("data", {}):
                drawn = static_copy(out.data[VIEW], models)
                shown = f"<div>{drawn}</div>" if drawn is not None else ""
                out.data = {"text/html": f'<div class="llmest-static-widget">{shown}{widget_note()}</div>'}
    return nb


def navigation(pages: list[tuple[str, str]], current: int) -> str:
    """The bar at the top and bottom of page ``current`` of ``pages`` ((file name, title), the index first): the
    previous and next pages and the list of contents."""
    def link(i: int, rel: str, text: str) -> str:
        name, title = pages[i]
        return f'<a rel="{rel}" href="{name}">{text.format(html.escape(title))}</a>'

    before = link(current - 1, "prev", _("← Previous: {}")) if current > 0 else "<span></span>"
    after = link(current + 1, "next", _("Next: {} →")) if current + 1 < len(pages) else "<span></span>"
    # The index is the list of contents itself; the chapters keep theirs folded in the bar.
    summary = _("Contents")
    listed = f"<details><summary>{summary}</summary>{contents(pages, current)}</details>" if current else ""
    label = _("chapters")
    return f'<nav class="llmest-nav" aria-label="{label}">{before}{listed}{after}</nav>'


def contents(pages: list[tuple[str, str]], current: int) -> str:
    """Every page, the current one marked."""
    here = ' aria-current="page"'
    items = "".join(f'<li><a href="{name}"{here if i == current else ""}>{html.escape(title)}</a></li>'
                    for i, (name, title) in enumerate(pages))
    return f'<ul class="llmest-toc">{items}</ul>'


def _index_page(pages: list[tuple[str, str]], language: str, other: tuple | None) -> str:
    """The list of contents; ``other``: (address, name, language) of the other edition's index, linked at the top."""
    nav = navigation(pages, 0)
    title = html.escape(_("llmest workbook"))
    heading = html.escape(_("llmest: estimating what a large language model costs"))
    lead = html.escape(_("The solved workbook, one page a chapter."))
    edition = "" if other is None else (f'<p class="llmest-edition"><a href="{other[0]}" hreflang="{other[2]}" '
                                        f'lang="{other[2]}">{html.escape(other[1])}</a></p>')
    return (f'<!DOCTYPE html>\n<html lang="{HTML_LANGUAGE[language]}"><head><meta charset="utf-8">'
            f"<title>{title}</title>"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\">"
            "<style>body{font-family:sans-serif;max-width:44em;margin:2em auto;padding:0 1em;line-height:1.6}"
            f"{STYLE}</style></head><body>{edition}{nav}"
            f"<h1>{heading}</h1><p>{lead}</p>{contents(pages[1:], -1)}{nav}"
            "</body></html>\n")


def export(out_dir, source: Path = SOLUTIONS, language: str = "en", mathjax: str | None = None,
           other: tuple | None = None) -> list[Path]:
    """Write one HTML page per chapter, an index and MathJax; return the pages written, index first. ``language``:
    that of the chapters in ``source`` (the pages' links and notes follow it); ``mathjax``: where MathJax already
    is, relative to the pages (else it is copied beside them); ``other``: the other edition's index, as
    (address, name, language)."""
    import nbformat

    paths = sorted(Path(source).glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no notebooks in {source}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if mathjax is None:
        copy_mathjax(out)
    with speaking(language):
        notebooks = [readable(nbformat.read(path, as_version=4)) for path in paths]
        pages = [(INDEX, _("Contents")), *((f"{path.stem}.html", _title(nb)) for path, nb in zip(paths, notebooks))]
        exporter = page_exporter(mathjax or MATHJAX_DIR, HTML_LANGUAGE[language])
        written = []
        for i, (nb, (name, title)) in enumerate(zip(notebooks, pages[1:]), 1):
            print(f"[{i}/{len(paths)}] {name}", file=sys.stderr)  # nbconvert takes a few seconds a chapter
            page, _resources = exporter.from_notebook_node(nb, resources={"metadata": {"name": title},
                                                                          "llmest_nav": navigation(pages, i),
                                                                          "llmest_worked": _("Worked answer")})
            written.append(out / name)
            written[-1].write_text(page, encoding="utf-8")
        index = out / INDEX
        index.write_text(_index_page(pages, language, other), encoding="utf-8")
    return [index, *written]


def export_book(out_dir, source: Path = SOLUTIONS) -> list[Path]:
    """Both editions: the English pages (from ``source``) in ``out_dir``, the Chinese ones (from its ``zh/``) in
    ``out_dir/zh``, sharing one MathJax."""
    out = Path(out_dir)
    english = export(out, source, other=(f"{CHINESE}/{INDEX}", "中文版", HTML_LANGUAGE["zh"]))
    chinese = export(out / CHINESE, Path(source) / CHINESE, "zh", mathjax=f"../{MATHJAX_DIR}",
                     other=(f"../{INDEX}", "English", HTML_LANGUAGE["en"]))
    return english + chinese


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llmest.book.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="build/html", help="folder to write into (default build/html)")
    args = parser.parse_args(argv)
    for path in export_book(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
