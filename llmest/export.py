"""A static HTML copy of the solved workbook, for reading without Jupyter.

    python -m llmest.export --out build/html

writes one page per chapter of ``solutions/`` (code, worked answers and figures as stored) and an ``index.html``.
Interactive widgets cannot run in a static page; each is replaced by a note saying where to use it.
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

import re

from .authoring import BEGIN, END, SOLUTIONS

WIDGET = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = ("<p><em>An interactive widget: open this chapter in JupyterLab (<code>make lab</code>) to use "
               "it.</em></p>")
# Lines that serve the authoring and the tests, not the reader.
HIDDEN_LINES = (BEGIN, END)
_EXERCISE_CELL = re.compile(r'^\s*le\.exercise\("([^"]+)"\)\s*$')


def _title(nb) -> str:
    """The chapter's first heading line."""
    first = nb.cells[0].source.splitlines()[0] if nb.cells and nb.cells[0].cell_type == "markdown" else ""
    return first.lstrip("# ").strip() or "llmest"


def _static_view(cell) -> str:
    """What stands for a widget on a static page: an exercise's question, or a note for a calculator."""
    from .exercises import get

    match = _EXERCISE_CELL.match(cell.source)
    if match:
        exercise = get(match.group(1))
        return f"<p><b>Exercise {html.escape(exercise.key)}.</b> {html.escape(exercise.question)}</p>"
    return WIDGET_NOTE


def readable(nb):
    """The notebook as a reader sees it: solution markers dropped, each widget replaced by its exercise's question or
    by a note."""
    nb.metadata.pop("widgets", None)  # else the page would load a widget manager from the internet
    for cell in nb.cells:
        cell.source = "\n".join(line for line in cell.source.splitlines()
                                if line.strip() not in HIDDEN_LINES).strip()
        for out in cell.get("outputs", []):
            if WIDGET in out.get("data", {}):
                out.data = {"text/html": _static_view(cell)}
    return nb


def export(out_dir, source: Path = SOLUTIONS) -> list[Path]:
    """Write one HTML page per chapter and an index; return the pages written, index first."""
    import nbformat
    from nbconvert import HTMLExporter

    paths = sorted(Path(source).glob("*.ipynb"))
    if not paths:
        raise FileNotFoundError(f"no notebooks in {source}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    written, entries = [], []
    for i, path in enumerate(paths, 1):
        nb = readable(nbformat.read(path, as_version=4))
        title = _title(nb)
        print(f"[{i}/{len(paths)}] {path.name}", file=sys.stderr)  # nbconvert takes a few seconds a chapter
        page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
        target = out / f"{path.stem}.html"
        target.write_text(page, encoding="utf-8")
        written.append(target)
        entries.append(f'<li><a href="{target.name}">{html.escape(title)}</a></li>')
    index = out / "index.html"
    index.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>llmest workbook</title>'
        "<style>body{font-family:sans-serif;max-width:40em;margin:2em auto;line-height:1.6}</style></head><body>"
        "<h1>llmest: estimating what a large language model costs</h1><p>The solved workbook, one page a "
        "chapter.</p><ol>" + "".join(entries) + "</ol></body></html>\n", encoding="utf-8")
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
