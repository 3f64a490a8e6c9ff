"""The Chinese edition, made from the English source and translation catalogs keyed by the English text.

``python -m llmest.book.edition update`` brings every catalog in step with its source: each chapter's markdown
(``locale/zh_CN/<chapter>.po``, one entry a paragraph) and the library's shown text (``llmest/locale/zh_CN/<part>.po``,
the strings in ``_()`` and ``N_()``, one catalog a subpackage or top-level module). A new paragraph gets
an empty entry; a changed one keeps its old translation marked fuzzy, with the previous English beside it, until a
translator revises it. The library's catalogs are then compiled to ``.mo``. ``python -m llmest.edition check`` lists
what is missing, fuzzy or unfaithful (a number, a code span, a formula or a link of the English lost, a glossary
term not used); the tests fail on the same list. ``make notebooks`` writes ``solutions/zh/`` and ``notebooks/zh/``
from ``solutions/`` with :func:`chinese`: the same code cells, the markdown from the catalog.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(__file__).resolve().parents[1]
CHAPTER_CATALOGS = ROOT / "locale" / "zh_CN"
GLOSSARY = CHAPTER_CATALOGS / "glossary.md"
LIBRARY_CATALOGS = PACKAGE / "locale" / "zh_CN"
APP = PACKAGE / "surfaces" / "app" / "llmest-calculators.ipynb"  # the calculators page (make app); its catalog: app.po
CHINESE_APP = APP.with_name("llmest-calculators-zh.ipynb")
LOCALE = "zh_CN"
STAMP = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)  # fixed, so a rebuild changes no header
KEYWORDS = {"_": None, "N_": None, "C_": ((1, "c"), 2), "NC_": ((1, "c"), 2)}
SPEAK_CHINESE = ["", "import llmest", "", 'llmest.set_language("zh")  # 中文版：练习、提示、判分、小工具与习题用中文']
_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION")
_FENCE = re.compile(r"^[ \t]*(```|\$\$)")
_CODE_SPAN = re.compile(r"`[^`]*`")
# A formula between single dollars; a dollar before a digit is an amount ("$2-3 an hour", "$1,000"), not one's start.
_MATH = re.compile(r"\$\$.*?\$\$|(?<!\\)\$(?!\d)[^$\n]+?(?<!\\)\$", re.DOTALL)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)[^)]*\)")
_HTML_TAG = re.compile(r"<[^>]+>")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")


# ---- paragraphs --------------------------------------------------------------------------------------------------

def pieces(markdown: str) -> list[tuple[bool, str]]:
    """A markdown cell as (translatable, text) pieces whose lines, joined by newlines, give the cell back: the
    paragraphs (a fenced block or a $$ display whole), and between them blank lines and solution markers as
    they are."""
    out, block, fenced = [], [], None

    def flush():
        if block:
            text = "\n".join(block)
            out.append((is_prose(text), text))
            block.clear()

    for line in markdown.split("\n"):
        fence = _FENCE.match(line)
        if fenced:
            block.append(line)
            if fence and fence.group(1) == fenced and len(block) > 1:
                fenced = None
            continue
        if fence and not (fence.group(1) == "$$" and line.strip().endswith("$$") and len(line.strip()) > 2):
            fenced = fence.group(1)
        if not fenced and (not line.strip() or _MARKER.match(line)):
            flush()
            out.append((False, line))
        else:
            block.append(line)
    flush()
    return out


def is_prose(text: str) -> bool:
    """Whether a paragraph has words to translate once its code, formulas, links' targets and tags are taken out."""
    if _FENCE.match(text) and text.lstrip().startswith("```"):
        return False
    bare = _HTML_TAG.sub("", _LINK_TARGET.sub("]", _MATH.sub("", _CODE_SPAN.sub("", text))))
    return bool(re.search(r"[A-Za-z]{2,}", bare))


def paragraphs(nb) -> list[tuple[str, str]]:
    """(cell id, paragraph) for each translatable paragraph of a notebook's markdown cells and each comment of its
    code cells, in order."""
    return [(cell.get("id", ""), text) for cell in nb.cells
            for text in ([text for prose, text in pieces(cell.source) if prose] if cell.cell_type == "markdown"
                         else [text for _, text in comments(cell.source)] if cell.cell_type == "code" else [])]


def comments(code: str) -> list[tuple[tuple[int, int], str]]:
    """The comments of a code cell that have words to translate, as ((line, column) of the '#', the text after it):
    "# by part: embeddings, attention" gives "by part: embeddings, attention"; a solution marker does not."""
    import tokenize

    # IPython's magics and shell lines are not Python: blank them out, keeping the lines where they are.
    source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.split("\n"))
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            text = token.string.lstrip("#").strip()
            if (token.type == tokenize.COMMENT and not _MARKER.match(token.string)
                    and re.search(r"[A-Za-z]{2,}\W+[A-Za-z]{2,}", text) and not text.startswith("noqa")
                    and not re.fullmatch(r"(BEGIN|END) [A-Z ]+", text)):  # nbgrader's markers stay
                found.append((token.start, text))
    except (tokenize.TokenError, SyntaxError):
        return []
    return found


def chinese_comments(code: str, catalog) -> str:
    """A code cell with each comment the catalog translates written in Chinese."""
    lines = code.split("\n")
    for (row, column), text in comments(code):
        entry = catalog.get(text)
        if entry is not None and entry.string and not entry.fuzzy:
            lines[row - 1] = lines[row - 1][:column] + "# " + entry.string
    return "\n".join(lines)


# ---- catalogs ----------------------------------------------------------------------------------------------------

def _new_catalog(domain: str):
    from babel.messages.catalog import Catalog

    return Catalog(locale=LOCALE, domain=domain, project="llmest", creation_date=STAMP, revision_date=STAMP,
                   language_team="llmest", copyright_holder="the llmest authors",
                   last_translator="llmest translators", fuzzy=False)


def chapter_template(path: Path):
    """The catalog a chapter's English asks for: one message a paragraph, located by its cell."""
    import nbformat

    template = _new_catalog(path.stem)
    for index, (cell_id, text) in enumerate(paragraphs(nbformat.read(path, as_version=4))):
        template.add(text, locations=[(path.name, index + 1)], auto_comments=[f"cell {cell_id}"])
    return template


def library_sources() -> dict[str, list[Path]]:
    """The library's modules by catalog: a subpackage's name, or a top-level module's."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        part = path.relative_to(PACKAGE).parts
        groups.setdefault(part[0] if len(part) > 1 else path.stem, []).append(path)
    return groups


def library_template(name: str, paths: list[Path]):
    """The strings of ``paths`` passed to ``_`` or ``N_`` as literals."""
    from babel.messages.extract import extract_from_file

    template = _new_catalog(name)
    for path in paths:
        where = str(path.relative_to(ROOT))
        for lineno, message, comments, context in extract_from_file("python", path, KEYWORDS):
            if isinstance(message, str) and message:
                template.add(message, locations=[(where, lineno)], auto_comments=comments, context=context)
    return template


def templates() -> dict[Path, object]:
    """Every catalog's file and the template it must match."""
    out = {CHAPTER_CATALOGS / f"{path.stem}.po": chapter_template(path)
           for path in sorted((ROOT / "solutions").glob("*.ipynb"))}
    out[CHAPTER_CATALOGS / "app.po"] = chapter_template(APP)
    for name, paths in library_sources().items():
        template = library_template(name, paths)
        if len(template):
            out[LIBRARY_CATALOGS / f"{name}.po"] = template
    return out


def read_catalog(path: Path):
    from babel.messages.pofile import read_po

    if not path.exists():
        return _new_catalog(path.stem)
    with path.open("rb") as handle:
        return read_po(handle, locale=LOCALE, domain=path.stem)


def write_catalog(path: Path, catalog) -> None:
    from babel.messages.pofile import write_po

    catalog.revision_date = catalog.creation_date = STAMP
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, ignore_obsolete=True, include_previous=True, include_lineno=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def compile_catalog(path: Path, catalog) -> None:
    from babel.messages.mofile import write_mo

    with path.with_suffix(".mo").open("wb") as handle:
        write_mo(handle, catalog, use_fuzzy=False)


def update(names=None) -> dict[Path, tuple[int, int]]:
    """Bring every catalog (or those named) in step with its source; (entries, unfinished) for each."""
    report = {}
    for path, template in templates().items():
        if names and path.stem not in names:
            continue
        catalog = read_catalog(path)
        catalog.update(template, update_header_comment=False)
        write_catalog(path, catalog)
        if path.parent == LIBRARY_CATALOGS:
            compile_catalog(path, catalog)
        entries = [m for m in catalog if m.id]
        report[path] = (len(entries), sum(1 for m in entries if m.fuzzy or not m.string))
    return report


# ---- faithfulness ------------------------------------------------------------------------------------------------

def glossary() -> list[tuple[str, str]]:
    """(English term, Chinese term) from the glossary's table: the terms every translation must use."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 2 and cells[0] and not set(cells[0]) <= set("-: "):
            rows.append((cells[0], cells[1]))
    return rows[1:]  # the first row is the table's header


def _kept(english: str) -> list[str]:
    """What a translation must carry over unchanged: code spans, formulas, links' targets, numbers."""
    numbers = [n.replace(",", "") for n in _NUMBER.findall(_MATH.sub("", _CODE_SPAN.sub("", english)))]
    return (_CODE_SPAN.findall(english) + _MATH.findall(english) + _LINK_TARGET.findall(english)
            + [n for n in numbers if n])


def faults(message, terms=None) -> list[str]:
    """What is wrong with one catalog entry: missing, fuzzy, or a part of the English the translation lost."""
    if not message.string:
        return ["not translated"]
    if message.fuzzy:
        return ["fuzzy: its English changed since it was translated"]
    chinese = message.string
    plain = chinese.replace(",", "")
    lost = [part for part in _kept(message.id) if part not in chinese and part not in plain]
    out = [f"lost {part!r}" for part in dict.fromkeys(lost)]
    words = re.sub(r"\{\w*\}", "", message.id)  # a placeholder's name is not prose
    for english, term in terms if terms is not None else glossary():
        if re.search(rf"(?<![\w-]){re.escape(english)}(?![\w-])", words, re.IGNORECASE) and term not in chinese:
            out.append(f"glossary: {english!r} is {term!r}")
    if re.search(r"\{\w*\}", message.id) and set(re.findall(r"\{\w*\}", message.id)) != set(
            re.findall(r"\{\w*\}", chinese)):
        out.append("placeholders differ")
    return out


def check(paths=None) -> dict[Path, list[tuple[str, list[str]]]]:
    """The faults of each catalog, against its template: entries missing from the file count too."""
    terms = glossary()
    report = {}
    for path, template in templates().items():
        if paths and path.stem not in paths and path.name not in paths:
            continue
        catalog = read_catalog(path)
        problems = []
        for message in template:
            if not message.id:
                continue
            entry = catalog.get(message.id, message.context)
            found = faults(entry, terms) if entry is not None else ["not in the catalog: run the update"]
            if found:
                problems.append((message.id, found))
        report[path] = problems
    return report


_PROSE = re.compile(r"(?<![\w`'/.-])[A-Za-z][a-z]+(?:[ ,]+[a-z]{2,}){2,}(?![\w`'/-])")


def english_prose(text: str) -> list[str]:
    """Runs of three or more English words outside code spans, formulas and authors' names ("Hoffmann et al."):
    prose a Chinese reader would meet."""
    return _PROSE.findall(re.sub(r"\bet al\.", "", _MATH.sub("", _CODE_SPAN.sub("", text))))


# ---- the Chinese chapters ----------------------------------------------------------------------------------------

def chinese(nb, name: str, catalog=None):
    """A copy of a chapter in Chinese: each paragraph from the catalog (the English where it is unfinished), the
    same code cells, and the first cell that imports llmest switching the library to Chinese."""
    nb = copy.deepcopy(nb)
    catalog = catalog if catalog is not None else read_catalog(CHAPTER_CATALOGS / f"{name}.po")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = chinese_comments(cell.source, catalog)
        if cell.cell_type != "markdown":
            continue
        out = []
        for prose, text in pieces(cell.source):
            entry = catalog.get(text) if prose else None
            out.append(entry.string if entry is not None and entry.string and not entry.fuzzy else text)
        cell.source = re.sub(r"\]\(\.\./", "](../../", "\n".join(out))  # one folder deeper
    first = next(c for c in nb.cells if c.cell_type == "code" and re.search(r"^\s*(import|from) llmest", c.source,
                                                                            re.MULTILINE))
    first.source = first.source.rstrip("\n") + "\n" + "\n".join(SPEAK_CHINESE)
    nb.metadata["language"] = "zh"
    return nb


def chinese_app():
    """The calculators page in Chinese (``make app-zh``), as :func:`chinese` makes a chapter."""
    import nbformat

    return chinese(nbformat.read(APP, as_version=4), "app", read_catalog(CHAPTER_CATALOGS / "app.po"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("update", "check"))
    parser.add_argument("catalogs", nargs="*", help="catalogs to update or check, e.g. 01_parameters or widgets")
    args = parser.parse_args(argv)
    if args.action == "update":
        for path, (entries, unfinished) in update(args.catalogs).items():
            print(f"{path.relative_to(ROOT)}: {entries} entries, {unfinished} to translate")
        return 0
    report = check(args.catalogs)
    for path, problems in report.items():
        print(f"{path.relative_to(ROOT)}: {len(problems)} to fix")
        for english, found in problems:
            print(f"  {english[:100]!r}: {'; '.join(found)}")
    return 1 if any(report.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
