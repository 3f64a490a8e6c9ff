"""A static HTML copy of the solved workbook, for reading without Jupyter and without a network.

    python -m llmest.export --out build/html

writes one page per chapter of ``solutions/`` (code, worked answers and figures as stored) and an ``index.html``, with
MathJax copied beside them, so the pages open from the disk with nothing fetched from elsewhere. Every page links to
the previous and the next one and lists all the chapters. A widget cannot run in a static page; each stands as a
static copy of what it showed when the chapter ran (its saved state), with a note saying where to use it.
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

from .authoring import BEGIN, END, SOLUTIONS, self_study
from .export_page import STYLE, copy_mathjax, page_exporter
from .export_widgets import VIEW, saved_models, static_copy

INDEX = "index.html"
WIDGET_NOTE = ("<p class=\"llmest-static-note\"><em>A static copy of what this widget showed when the chapter ran: "
               "open the chapter in JupyterLab (<code>make lab</code>) to use it.</em></p>")
# Lines that serve the authoring and the tests, not the reader.
HIDDEN_LINES = (BEGIN, END)


def _title(nb) -> str:
    """The chapter's first heading line."""
    first = nb.cells[0].source.splitlines()[0] if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    return first.lstrip("# ").strip() or "llmest"


def readable(nb):
    """The notebook as a reader sees it: solution markers and autograded test cells dropped, each widget replaced
    by a static copy of its saved state (and a note)."""
    models = saved_models(nb)
    self_study(nb)  # the autograder's test cells are a class's, not a reader's
    nb.metadata.pop("widgets", None)  # else nbconvert's template would load a widget manager from the web
    for cell in nb.cells:
        cell.source = "\n".join(line for line in cell.source.splitlines()
                                if line.strip() not in HIDDEN_LINES).strip()
        for out in cell.get("outputs", []):
            if VIEW in out.get("data", {}):
                drawn = static_copy(out.data[VIEW], models)
                shown = f"<div>{drawn}</div>" if drawn is not None else ""
                out.data = {"text/html": f'<div class="llmest-static-widget">{shown}{WIDGET_NOTE}</div>'}
    return nb


def navigation(pages: list[tuple[str, str]], current: int) -> str:
    """The bar at the top and bottom of page ``current`` of ``pages`` ((file name, title), the index first): the
    previous and next pages and the list of contents."""
    def link(i: int, rel: str, text: str) -> str:
        name, title = pages[i]
        return f'<a rel="{rel}" href="{name}">{text.format(html.escape(title))}</a>'

    before = link(current - 1, "prev", "← Previous: {}") if current > 0 else "<span></span>"
    after = link(current + 1, "next", "Next: {} →") if current + 1 < len(pages) else "<span></span>"
    # The index is the list of contents itself; the chapters keep theirs folded in the bar.
    listed = f"<details><summary>Contents</summary>{contents(pages, current)}</details>" if current else ""
    return f'<nav class="llmest-nav" aria-label="chapters">{before}{listed}{after}</nav>'


def contents(pages: list[tuple[str, str]], current: int) -> str:
    """Every page, the current one marked."""
    here = ' aria-current="page"'
    items = "".join(f'<li><a href="{name}"{here if i == current else ""}>{html.escape(title)}</a></li>'
                    for i, (name, title) in enumerate(pages))
    return f'<ul class="llmest-toc">{items}</ul>'


def _index_page(pages: list[tuple[str, str]]) -> str:
    nav = navigation(pages, 0)
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>llmest workbook</title>'
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1.0\">"
            "<style>body{font-family:sans-serif;max-width:44em;margin:2em auto;padding:0 1em;line-height:1.6}"
            f"{STYLE}</style></head><body>{nav}<h1>llmest: estimating what a large language model costs</h1>"
            f"<p>The solved workbook, one page a chapter.</p>{contents(pages[1:], -1)}{nav}</body></html>\n")


def export(out_dir, source: Path = SOLUTIONS) -> list[Path]:
    """Write one HTML page per chapter, an index and MathJax; return the pages written, index first."""
    import nbformat

    paths = sorted(Path(source).glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no notebooks in {source}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    copy_mathjax(out)
    notebooks = [readable(nbformat.read(path, as_version=4)) for path in paths]
    pages = [(INDEX, "Contents"), *((f"{path.stem}.html", _title(nb)) for path, nb in zip(paths, notebooks))]
    exporter = page_exporter()
    written = []
    for i, (nb, (name, title)) in enumerate(zip(notebooks, pages[1:]), 1):
        print(f"[{i}/{len(paths)}] {name}", file=sys.stderr)  # nbconvert takes a few seconds a chapter
        page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title},
                                                             "llmest_nav": navigation(pages, i)})
        written.append(out / name)
        written[-1].write_text(page, encoding="utf-8")
    index = out / INDEX
    index.write_text(_index_page(pages), encoding="utf-8")
    return [index, *written]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llmest.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="build/html", help="folder to write into (default build/html)")
    args = parser.parse_args(argv)
    for path in export(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
