"""The two copies of each chapter: in sync, no solution text in the student copy, every printed number pinned.

nbval itself re-runs both copies (``pytest`` collects solutions/ and notebooks/ with ``--nbval-lax``)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from llmest import authoring
from llmest.learn.exercises import EXERCISES

ROOT = Path(__file__).resolve().parent.parent
SOLVED = sorted((ROOT / "solutions").glob("*.ipynb"))
STUDENT = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))  # the chapters (index.ipynb lists them)
CHECK, IGNORE = "nbval-check-output", "nbval-ignore-output"  # cell tags, which nbval reads
ids = [p.stem for p in SOLVED]


def read(path):
    return nbformat.read(path, as_version=4)


def test_both_folders_hold_the_same_chapters():
    assert SOLVED and [p.name for p in SOLVED] == [p.name for p in STUDENT]


@pytest.mark.parametrize("path", SOLVED, ids=ids)
def test_student_copy_is_generated_from_the_solutions(path):
    expected = authoring.student_version(read(path))
    actual = read(ROOT / "notebooks" / path.name)
    assert [(c.cell_type, c.source) for c in actual.cells] == [(c.cell_type, c.source) for c in expected.cells]


@pytest.mark.parametrize("path", SOLVED, ids=ids)
def test_no_solution_text_reaches_the_student_copy(path):
    student_file = (ROOT / "notebooks" / path.name).read_text(encoding="utf-8")
    student_text = json.dumps(json.loads(student_file), ensure_ascii=False)  # sources, outputs and metadata
    assert authoring.BEGIN not in student_text and authoring.END not in student_text
    for cell in read(path).cells:
        for region in authoring.solution_regions(cell.source):
            for line in region.splitlines():
                line = line.strip()
                if len(line) > 12 and line not in authoring.CODE_PROMPT:
                    assert line not in student_text, f"solution line in notebooks/{path.name}: {line}"


def _text_outputs(cell):
    """Outputs a reader reads as text: printed streams and plain results, but not widgets or figure reprs."""
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            yield out.text
        elif out.output_type in ("execute_result", "display_data"):
            data = out.data
            if "application/vnd.jupyter.widget-view+json" in data or "image/png" in data:
                continue
            yield data.get("text/plain", "")


@pytest.mark.parametrize("path", SOLVED + STUDENT, ids=[f"solutions/{p.stem}" for p in SOLVED] +
                         [f"notebooks/{p.stem}" for p in STUDENT])
def test_every_printed_output_is_pinned_and_none_is_an_error(path):
    for cell in read(path).cells:
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            assert out.output_type != "error", f"{path.name}: stored error in cell\n{cell.source}"
            assert not (out.output_type == "stream" and out.name == "stderr"), f"stderr in\n{cell.source}"
        if any(re.search(r"\S", text) for text in _text_outputs(cell)):
            tags = cell.metadata.get("tags", [])
            assert CHECK in tags or IGNORE in tags, f"unpinned output in\n{cell.source}"


@pytest.mark.parametrize("path", SOLVED + STUDENT, ids=[f"solutions/{p.stem}" for p in SOLVED] +
                         [f"notebooks/{p.stem}" for p in STUDENT])
def test_the_reader_sees_no_test_markers(path):
    """Pinning is a cell tag: no code line or prose names nbval's markers."""
    for cell in read(path).cells:
        assert "NBVAL" not in cell.source, f"{path.name}: a test marker in\n{cell.source}"


# A call that formats a result into text for the cell to print: a chapter calls the plan or the finding instead,
# and the result shows itself (``llmest.plans.findings``).
FORMATTER = re.compile(r"\b\w+_(?:text|line)\(|\.\w*text\(\)|\b(?:memory|compute|data|measure|model|answers)_text\b"
                       r"|\blayout_tables\b|\bbook\.printed\b|\bimport [^\n]*\btables\b")


@pytest.mark.parametrize("path", SOLVED, ids=ids)
def test_no_chapter_cell_calls_a_text_formatter(path):
    calls = [(i, FORMATTER.search(cell.source).group()) for i, cell in enumerate(read(path).cells)
             if cell.cell_type == "code" and FORMATTER.search(cell.source)]
    assert calls == []


def test_a_formatter_call_is_seen():
    seen = ['print(memory_text.state_gpus_text(70e9))', 'print(plan.text())', 'from llmest import plans, tables',
            'print(mt.rule_parts_text(4096))', 'print(memory_text.states_line(n))', 'x.crawl_text()',
            'from llmest import layout_tables']
    assert all(FORMATTER.search(source) for source in seen)
    assert not FORMATTER.search('findings.state_gpus(70e9, 16, "A100 80GB")\nprint(le.count_params(tiny))')


CHINESE = sorted((ROOT / "solutions" / "zh").glob("*.ipynb"))
# What may hold a '$' that is not money: code (fenced or in backticks) and a formula ($x$, $$x$$; a '$' before a
# digit opens no formula).
CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.MULTILINE | re.DOTALL)
FORMULA = re.compile(r"\$\$.*?\$\$|(?<!\\)\$(?!\d)[^$\n]+?(?<!\\)\$", re.DOTALL)


def bare_dollars(markdown: str) -> list[str]:
    """The dollar signs of a markdown cell's prose not written \\\\$, each with what follows it. Markdown reads
    "$4 an hour ... $3-5" as a formula between the two signs, and so does JupyterLab with \\$4 (jupyterlab#8645):
    its Markdown renderer turns \\$ into $ before MathJax reads the cell. Written \\\\$4, the renderer leaves \\$4,
    which MathJax shows as $4 (its escape); the static pages do the same."""
    prose = FORMULA.sub("", CODE.sub("", markdown))
    return [prose[m.start():m.start() + 8] for m in re.finditer(r"\$", prose)
            if prose[max(m.start() - 2, 0):m.start()] != "\\\\"]


def test_a_bare_dollar_is_seen_and_money_written_for_jupyterlab_is_not():
    assert bare_dollars(r"at $4 an hour") and bare_dollars(r"at \$4 an hour, the material's \$3-5")
    assert bare_dollars(r"units: days, \$, FLOPs")
    assert len(bare_dollars("| H100 | \\$4 |\n|---|---|\n| total | \\$3-5 |")) == 2
    assert not bare_dollars(r"at \\$4 an hour, the material's \\$3-5; the rule $C = 6ND$ and $$D = 20N$$")
    assert not bare_dollars("`$LLMEST_PROGRESS` and\n```bash\necho $HOME $PATH\n```")


@pytest.mark.parametrize("path", SOLVED + CHINESE, ids=ids + [f"zh/{p.stem}" for p in CHINESE])
def test_money_in_prose_is_not_read_as_mathematics(path):
    """Money in a chapter's prose, in both editions, is written \\\\$4: see ``bare_dollars``."""
    for cell in read(path).cells:
        if cell.cell_type == "markdown":
            bare = bare_dollars(cell.source)
            assert not bare, f"{path.relative_to(ROOT)}: {bare} not written \\\\$ in\n{cell.source}"


@pytest.mark.parametrize("path", SOLVED, ids=ids)
def test_chapter_opens_with_its_goals_and_the_material_heading(path):
    first = read(path).cells[0]
    assert first.cell_type == "markdown"
    assert "you can" in first.source and re.search(r"[\u4e00-\u9fff]", first.source)
    headings = [line for c in read(path).cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("## ")]
    assert all(re.search(r"[\u4e00-\u9fff]", h) for h in headings), "every section names the material's heading"


@pytest.mark.parametrize("path", [p for p in SOLVED if p.stem[:2].isdigit() and int(p.stem[:2]) < 90], ids=str)
def test_every_exercise_of_the_chapter_is_in_its_notebook(path):
    number = int(path.stem[:2])
    keys = [k for k in EXERCISES if k.split(".")[0] == str(number)]
    assert len(keys) >= 5
    text = path.read_text(encoding="utf-8")
    for key in keys:
        assert f'le.exercise(\\"{key}\\")' in text


def test_a_changed_pinned_number_fails_nbval(tmp_path):
    nb = read(ROOT / "solutions" / "01_parameters.ipynb")
    changed = 0
    for cell in nb.cells:  # the number printed (a stream) or shown in a table (its text and HTML)
        texts = [(out, "text") for out in cell.get("outputs", []) if out.output_type == "stream"]
        texts += [(out.data, mime) for out in cell.get("outputs", []) if out.output_type == "execute_result"
                  for mime in ("text/plain", "text/html") if mime in out.data]
        hits = [(holder, key) for holder, key in texts if "6,738,415,616" in holder[key]]
        for holder, key in hits:
            holder[key] = holder[key].replace("6,738,415,616", "6,738,415,617")
        changed += bool(hits)
    assert changed
    nbformat.write(nb, tmp_path / "changed.ipynb")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-vv", "-p", "no:cacheprovider", "--nbval-lax", "--rootdir", str(tmp_path),
         "-c", "/dev/null", str(tmp_path / "changed.ipynb")], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1, result.stdout[-2000:]
    assert f"{changed} failed" in result.stdout and "6,738,415,617" in result.stdout


@pytest.mark.parametrize("path", STUDENT, ids=[p.stem for p in STUDENT])
def test_the_student_copy_stores_no_widgets(path):
    """A stored widget needs the kernel that drew it: it would open as raw text or "Error displaying widget"."""
    nb = read(path)
    assert "widgets" not in nb.metadata
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert authoring.WIDGET_VIEW not in out.get("data", {}), f"{path.name}: a stored widget in\n{cell.source}"


def test_dropping_the_widgets_keeps_every_other_output():
    nb = nbformat.v4.new_notebook(metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {}}})
    text = nbformat.v4.new_output("stream", text="6,738,415,616\n")
    table = nbformat.v4.new_output("display_data", data={"text/html": "<table></table>", "text/plain": "table"})
    widget = nbformat.v4.new_output("display_data", data={authoring.WIDGET_VIEW: {"model_id": "1"},
                                                          "text/plain": "VBox(children=(...))"})
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[text, widget, table]), nbformat.v4.new_markdown_cell("# 1")]
    authoring.without_widgets(nb)
    assert "widgets" not in nb.metadata and nb.cells[0].outputs == [text, table]


def test_make_lab_trusts_the_student_copies_before_opening_them():
    """Trusted, their HTML outputs render in full; the browser test opens them the same way."""
    recipe = re.search(r"^lab:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE).group(1)
    lines = [line.strip() for line in recipe.splitlines()]
    trust = lines.index("$(BIN)/jupyter trust notebooks/*.ipynb notebooks/zh/*.ipynb")
    assert any(line.startswith("$(BIN)/jupyter lab") for line in lines[trust + 1:])


def test_make_lab_opens_the_index_with_no_news_prompt_over_it():
    """The address JupyterLab prints opens the index of both editions, and the news and update prompts (a toast
    over every chapter) are off in the workbook's own environment, not in the reader's settings."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^lab:(.*)\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert "$(LAB_SETTINGS)" in recipe.group(1)
    assert "--LabApp.default_url=/lab/tree/index.ipynb" in recipe.group(2)
    assert re.search(r"^LAB_SETTINGS := \$\(VENV\)/share/jupyter/lab/settings/overrides.json$", makefile, re.MULTILINE)
    quiet = json.loads(re.search(r"^QUIET_LAB := (.*)$", makefile, re.MULTILINE).group(1))
    assert quiet == {"@jupyterlab/apputils-extension:notification": {"checkForUpdates": False, "fetchNews": "false"}}


def misaligned_rows(text: str) -> list:
    """The rows of each printed table (a header, a rule of dashes, rows up to a blank line or a line of prose, which
    has no two spaces running) with a character where the rule has the gap between two columns, counting a Chinese
    character as two columns, as a terminal shows it."""
    from llmest.core.i18n import display_width

    def columns(line):  # the character at each display column
        cells = []
        for char in line:
            cells += [char] * display_width(char)
        return cells

    bad, lines = [], text.split("\n")
    for i, rule in enumerate(lines):
        if i == 0 or not re.fullmatch(r"-+(  +-+)+", rule.strip()) or rule != rule.lstrip():
            continue
        gaps = [col for col, char in enumerate(rule) if char == " "]
        for row in [lines[i - 1]] + lines[i + 1:]:
            if not row.strip() or "  " not in row.strip():
                break
            cells = columns(row)
            if any(col < len(cells) and cells[col] != " " for col in gaps) and display_width(row) <= len(rule):
                bad.append(row)
    return bad


def test_a_misaligned_table_row_is_seen():
    table = "part   n\n-----  --\nattn   12\nFFN    3\n"
    assert not misaligned_rows(table)
    assert misaligned_rows(table.replace("FFN    3", "专家层  3"))  # 专家层 is six columns wide
    assert not misaligned_rows(table.replace("FFN    3", "专家   3"))
    assert not misaligned_rows(table + "a note: 3 parts\n")


@pytest.mark.parametrize("path", SOLVED + CHINESE, ids=ids + [f"zh/{p.stem}" for p in CHINESE])
def test_printed_tables_keep_their_columns(path):
    """Every printed table, in both editions, lines up in a terminal-width font: Chinese counts two columns."""
    for cell in read(path).cells:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            bad = misaligned_rows(text if isinstance(text, str) else "".join(text))
            assert not bad, f"{path.relative_to(ROOT)}: {bad}"
