"""Build the student notebooks from the maintained ones: ``python -m llmest.authoring [NAME ...]``.

``solutions/`` holds the chapters with their solutions. Each region between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (nbgrader's markers, so a teacher can also grade with nbgrader) becomes a prompt in
``notebooks/``. Both copies are then executed, so both are stored with outputs for nbval to check. The student copy
keeps its printed text, tables and plots but not its widgets: a stored widget needs the kernel that made it, so it
would open as raw text (untrusted) or "Error displaying widget" (trusted) until the reader runs the cell.
A code solution must end by assigning ``answer``, which the exercise's check cell grades.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS, NOTEBOOKS = ROOT / "solutions", ROOT / "notebooks"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CODE_PROMPT = ['# YOUR ANSWER HERE: a number, or text with its unit ("6.7B", "80 GB")', "answer = None"]
MARKDOWN_PROMPT = ["*Your answer here.*"]
_REGION = re.compile(rf"^([ \t]*){re.escape(BEGIN)}[^\n]*\n(.*?)^[ \t]*{re.escape(END)}[^\n]*(\n|$)",
                     re.MULTILINE | re.DOTALL)


class AuthoringError(Exception):
    pass


def solution_regions(source: str) -> list[str]:
    """The text inside each solution region of a cell."""
    return [match.group(2) for match in _REGION.finditer(source)]


def strip_cell(cell) -> None:
    """Replace each solution region of a cell by a prompt, in place."""
    source = cell.source
    if BEGIN not in source and END not in source:
        return
    prompt = CODE_PROMPT if cell.cell_type == "code" else MARKDOWN_PROMPT

    def replace(match):
        indent, body = match.group(1), match.group(2)
        if cell.cell_type == "code" and not re.search(r"^\s*answer\s*=", body, re.MULTILINE):
            raise AuthoringError(f"a code solution must assign `answer`:\n{body}")
        return "".join(f"{indent}{line}\n" for line in prompt)

    stripped = _REGION.sub(replace, source)
    if BEGIN in stripped or END in stripped:
        raise AuthoringError(f"unbalanced solution markers in cell:\n{source}")
    cell.source = stripped.rstrip("\n")


def student_version(solution_nb):
    """A copy of a solved notebook with the solutions replaced by prompts and no outputs."""
    nb = copy.deepcopy(solution_nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        strip_cell(cell)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def without_widgets(nb):
    """Drop the widget outputs and the saved widget state of an executed notebook, in place; other outputs stay."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [out for out in cell.outputs if WIDGET_VIEW not in out.get("data", {})]
    return nb


def execute(nb, where: Path):
    """Run a notebook top to bottom with outputs and widget state stored, as a reader's kernel would."""
    from nbclient import NotebookClient

    # No timing metadata: a rebuild without edits then changes only what execution itself makes anew.
    NotebookClient(nb, timeout=900, kernel_name="python3", store_widget_state=True, record_timing=False,
                   resources={"metadata": {"path": str(where)}}).execute()
    return nb


def same(nb):
    return nb


def build(names: list[str] | None = None) -> None:
    paths = sorted(SOLUTIONS.glob("*.ipynb"))
    if names:
        paths = [p for p in paths if p.stem in names or p.name in names]
        if not paths:
            raise SystemExit(f"no notebook in {SOLUTIONS} matches {names}")
    NOTEBOOKS.mkdir(exist_ok=True)
    for path in paths:
        for label, make, finish, target in (("solutions", same, same, path),
                                            ("notebooks", student_version, without_widgets, NOTEBOOKS / path.name)):
            start = time.perf_counter()
            print(f"executing {label}/{path.name} ...", end=" ", flush=True)
            nb = make(nbformat.read(path, as_version=4))
            execute(nb, target.parent)
            nbformat.write(finish(nb), target)
            print(f"{time.perf_counter() - start:.1f} s", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="chapters to build, e.g. 01_parameters (default: all)")
    args = parser.parse_args(argv)
    try:
        build(args.names)
    except AuthoringError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
