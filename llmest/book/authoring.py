"""Build the student notebooks from the maintained ones: ``python -m llmest.book.authoring [NAME ...]``.

``solutions/`` holds the chapters with their solutions. Each region between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (nbgrader's markers, so a teacher can also grade with nbgrader) becomes a prompt in
``notebooks/``. Both copies are then executed, so both are stored with outputs for nbval to check. The student copy
keeps its printed text, tables and plots but not its widgets: a stored widget needs the kernel that made it, so it
would open as raw text (untrusted) or "Error displaying widget" (trusted) until the reader runs the cell.
A code solution must end by assigning ``answer``, which the exercise's check cell grades. The solved chapters also
carry nbgrader's metadata and an autograded test cell per exercise (:func:`mark`, applied on each rebuild);
the student copy leaves the test cells out. The Chinese edition (``solutions/zh/``, ``notebooks/zh/``) is made the
same way from each solved chapter and its catalog (:mod:`llmest.book.edition`); ``--lang`` builds one edition only.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, NOTEBOOKS = ROOT / "solutions", ROOT / "notebooks"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CODE_PROMPT = ['# YOUR ANSWER HERE: a number, or text with its unit ("6.7B", "80 GB")', "answer = None"]
MARKDOWN_PROMPT = ["*Your answer here.*"]
PROMPTS = {"en": (CODE_PROMPT, MARKDOWN_PROMPT),
           "zh": (['# 在此作答：一个数，或带单位的文字（"67亿"、"80 GB"、"约 15 天"）', "answer = None"], ["*在此作答。*"])}
POINTS = 1  # what each exercise's autograded test cell is worth
CHECK_CALL = re.compile(r'le\.exercise\("([\d.]+)"\)\.check\(answer\)')
QUESTION_CALL = re.compile(r'^le\.exercise\("([\d.]+)"\)$')
_REGION = re.compile(rf"^([ \t]*){re.escape(BEGIN)}[^\n]*\n(.*?)^[ \t]*{re.escape(END)}[^\n]*(\n|$)",
                     re.MULTILINE | re.DOTALL)


class AuthoringError(Exception):
    pass


class CourseError(AuthoringError):
    """A chapter that cannot become an nbgrader assignment as it stands."""


def solution_regions(source: str) -> list[str]:
    """The text inside each solution region of a cell."""
    return [match.group(2) for match in _REGION.finditer(source)]


def strip_cell(cell, language: str = "en") -> None:
    """Replace each solution region of a cell by a prompt (in ``language``), in place."""
    source = cell.source
    if BEGIN not in source and END not in source:
        return
    code_prompt, markdown_prompt = PROMPTS[language]
    prompt = code_prompt if cell.cell_type == "code" else markdown_prompt

    def replace(match):
        indent, body = match.group(1), match.group(2)
        if cell.cell_type == "code" and not re.search(r"^\s*answer\s*=", body, re.MULTILINE):
            raise AuthoringError(f"a code solution must assign `answer`:\n{body}")
        return "".join(f"{indent}{line}\n" for line in prompt)

    stripped = _REGION.sub(replace, source)
    if BEGIN in stripped or END in stripped:
        raise AuthoringError(f"unbalanced solution markers in cell:\n{source}")
    cell.source = stripped.rstrip("\n")


def student_version(solution_nb, language: str = "en"):
    """A copy of a solved notebook with the solutions replaced by prompts, no outputs and no autograder's cells."""
    nb = self_study(copy.deepcopy(solution_nb))
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        strip_cell(cell, language)
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


def grade_id(kind: str, key: str) -> str:
    """nbgrader's id of a cell (letters, digits, _ and - only): "test-1-1" for exercise 1.1's test."""
    return f"{kind}-{key.replace('.', '-')}"


def nbgrader_meta(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    meta = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked, "schema_version": 3,
            "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def test_source(check: str) -> str:
    """The source of an autograded cell for the check ``check`` (e.g. 'le.exercise("1.1")'): the form of the
    answer in sight, its value hidden."""
    return "\n".join([f"{check}.assert_form(answer)",
                      "### BEGIN HIDDEN TESTS", f"{check}.assert_ok(answer)", "### END HIDDEN TESTS"])


def test_cell(check: str, gid: str):
    cell = nbformat.v4.new_code_cell(test_source(check))
    cell.id = gid
    cell.metadata["nbgrader"] = nbgrader_meta(gid, grade=True, locked=True, points=POINTS)
    return cell


def is_test(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def mark(nb):
    """Give a solved chapter nbgrader's metadata, in place, and return it: each exercise's question cell locked,
    its answer cell a solution cell, and its test cell after it (added where missing, rewritten where stale)."""
    cells = []
    for cell in nb.cells:
        if is_test(cell):
            continue  # written anew after its answer cell
        cells.append(cell)
        question = QUESTION_CALL.match(cell.source.strip()) if cell.cell_type == "code" else None
        if question:
            cell.metadata["nbgrader"] = nbgrader_meta(grade_id("question", question.group(1)), locked=True)
        if BEGIN not in cell.source:
            continue
        keys = CHECK_CALL.findall(cell.source)
        if cell.cell_type != "code" or len(keys) != 1:
            raise CourseError("an answer cell must be code and end with one le.exercise(KEY).check(answer); "
                              f"this one does not:\n{cell.source}")
        cell.metadata["nbgrader"] = nbgrader_meta(grade_id("answer", keys[0]), solution=True)
        previous = next((c for c in nb.cells if c.id == grade_id("test", keys[0])), None)
        test = test_cell(f'le.exercise("{keys[0]}")', grade_id("test", keys[0]))
        if previous is not None and previous.source == test.source:
            test.outputs, test.execution_count = previous.outputs, previous.execution_count
        cells.append(test)
    nb.cells = cells
    return nb


def self_study(nb):
    """The chapter without nbgrader: no test cells, no nbgrader metadata (in place; returned)."""
    nb.cells = [cell for cell in nb.cells if not is_test(cell)]
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return nb


def chinese_solutions(path: Path):
    """The solved chapter ``path`` in Chinese, as ``solutions/zh/`` holds it (before execution)."""
    from .edition import chinese

    return mark(chinese(nbformat.read(path, as_version=4), path.stem))


INDEX = NOTEBOOKS / "index.ipynb"


def index_notebook():
    """The page ``make lab`` opens: every chapter in English and in Chinese, titled by its first two headings."""
    rows = []
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        english, chinese = (line.lstrip("# ").strip() for line in
                            nbformat.read(path, as_version=4).cells[0].source.splitlines()[:2])
        rows.append(f"| [{english}]({path.name}) | [{chinese}](zh/{path.name}) |")
    text = "\n".join([
        "# llmest: what a large language model costs · 大模型训练与推理成本估算", "",
        "Open a chapter in the language you read; both editions have the same code, exercises and numbers.",
        "选择你阅读的语言打开一章；两个版本的代码、练习和数字完全相同。", "",
        "| English | 中文 |", "|---|---|", *rows])
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    nb.cells[0].id = "index"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def build(names: list[str] | None = None, languages=("en", "zh")) -> None:
    """Execute and write the solved and the student copy of each chapter (or those named), in each language."""
    paths = sorted(SOLUTIONS.glob("*.ipynb"))
    if names:
        paths = [p for p in paths if p.stem in names or p.name in names]
        if not paths:
            raise SystemExit(f"no notebook in {SOLUTIONS} matches {names}")
    for path in paths:
        steps = []
        if "en" in languages:
            steps += [(lambda p=path: mark(nbformat.read(p, as_version=4)), lambda nb: nb, path),
                      (lambda p=path: student_version(nbformat.read(p, as_version=4)), without_widgets,
                       NOTEBOOKS / path.name)]
        if "zh" in languages:
            zh = SOLUTIONS / "zh" / path.name
            steps += [(lambda p=path: chinese_solutions(p), lambda nb: nb, zh),
                      (lambda z=zh: student_version(nbformat.read(z, as_version=4), "zh"), without_widgets,
                       NOTEBOOKS / "zh" / path.name)]
        for make, finish, target in steps:
            start = time.perf_counter()
            print(f"executing {target.relative_to(ROOT)} ...", end=" ", flush=True)
            nb = make()
            target.parent.mkdir(parents=True, exist_ok=True)
            execute(nb, target.parent)
            nbformat.write(finish(nb), target)
            print(f"{time.perf_counter() - start:.1f} s", flush=True)
    nbformat.write(index_notebook(), INDEX)
    from .edition import CHINESE_APP, chinese_app

    nbformat.write(chinese_app(), CHINESE_APP)  # Voila runs it: stored without outputs, as the English page


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="chapters to build, e.g. 01_parameters (default: all)")
    parser.add_argument("--lang", choices=("en", "zh"), action="append",
                        help="build only this edition (repeatable; default: both)")
    args = parser.parse_args(argv)
    try:
        build(args.names, tuple(args.lang or ("en", "zh")))
    except AuthoringError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
