"""Each chapter ends with a short "check yourself" list: questions its own sections answered, each linked to the
cell that holds the section's heading. The links are #cell-id=... because JupyterLab and the static pages both
follow them; a link to a heading's own anchor fails in JupyterLab when the heading is not ASCII (it compares the
percent-encoded fragment with the heading's text)."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = [p for p in sorted((ROOT / "solutions").glob("*.ipynb")) if not p.stem.startswith("90")]
LINK = re.compile(r"\]\(#([^)\s]*)\)")


def check_yourself(nb):
    titles = [cell.source.splitlines()[0] for cell in nb.cells if cell.cell_type == "markdown" and cell.source]
    assert "## Check yourself · 自测" in titles, "no check-yourself list"
    assert titles.index("## Check yourself · 自测") == titles.index("## Summary · 小结") - 1, "not just before the summary"
    return next(cell for cell in nb.cells if cell.source.startswith("## Check yourself"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_each_chapter_ends_with_questions_linked_to_the_sections_that_answer_them(path):
    nb = nbformat.read(path, as_version=4)
    sections = {cell.id for cell in nb.cells if cell.cell_type == "markdown"
                and re.search(r"^#{2,3} ", cell.source, re.MULTILINE)}
    questions = [line for line in check_yourself(nb).source.splitlines() if re.match(r"\d+\. ", line)]
    assert 5 <= len(questions) <= 7
    for question in questions:
        targets = LINK.findall(question)
        assert targets, f"a question without a link: {question}"
        for target in targets:
            assert target.startswith("cell-id=") and target.removeprefix("cell-id=") in sections, \
                f"#{target} is not a cell with a section heading"


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_the_student_copy_keeps_the_cells_the_links_lead_to(path):
    solved, student = (nbformat.read(p, as_version=4) for p in (path, ROOT / "notebooks" / path.name))
    assert check_yourself(student).source == check_yourself(solved).source
    student_ids = {cell.id for cell in student.cells}
    for target in LINK.findall(check_yourself(solved).source):
        assert target.removeprefix("cell-id=") in student_ids
