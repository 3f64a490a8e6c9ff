"""Each chapter ends with a short "check yourself" list: questions its own sections answered, each linked to the
section (by the anchor JupyterLab and the static pages give its heading)."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLVED = sorted((ROOT / "solutions").glob("*.ipynb"))


def read(path):
    return nbformat.read(path, as_version=4)


CHAPTERS = [p for p in SOLVED if p.stem[:2] != "90"]
_LINK = re.compile(r"\]\(#([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\)")


def _anchor(heading: str) -> str:
    """The id JupyterLab and nbconvert give a Markdown heading: its text with spaces as hyphens."""
    return heading.lstrip("#").strip().replace(" ", "-")


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_each_chapter_ends_with_questions_linked_to_where_it_answers_them(path):
    cells = read(path).cells
    headings = {_anchor(line) for cell in cells if cell.cell_type == "markdown"
                for line in cell.source.splitlines() if line.startswith("#")}
    titles = [cell.source.splitlines()[0] for cell in cells if cell.cell_type == "markdown"]
    assert "## Check yourself · 自测" in titles, f"{path.name} has no check-yourself list"
    check = next(cell for cell in cells if cell.source.startswith("## Check yourself"))
    assert titles.index("## Check yourself · 自测") < titles.index("## Summary · 小结")
    questions = [line for line in check.source.splitlines() if re.match(r"\d+\. ", line)]
    assert 5 <= len(questions) <= 7
    for question in questions:
        targets = _LINK.findall(question)
        assert targets, f"{path.name}: a question without a link: {question}"
        for target in targets:
            assert target in headings, f"{path.name}: no heading has the anchor #{target}"
