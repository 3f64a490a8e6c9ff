"""The Chinese edition: complete, faithful catalogs, and chapters made from the English source by construction.

Every catalog entry must be translated and current (an English paragraph changed since marks it fuzzy, and fuzzy
fails here), keep the English's numbers, code, formulas and links, and use the glossary's terms. The Chinese chapters
are generated: the same code cells, the markdown from the catalogs."""

import html
import io
import re
from pathlib import Path

import nbformat
import pytest
from babel.messages.mofile import write_mo
from hypothesis import given
from hypothesis import strategies as st

from llmest import authoring, edition
from llmest.core.i18n import C_, _, speaking

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(p.stem for p in (ROOT / "solutions").glob("*.ipynb"))
SEEDS = ROOT / "tests" / "fixtures" / "material"
TEMPLATES = edition.templates()


def read(path):
    return nbformat.read(path, as_version=4)


def test_both_editions_hold_every_chapter():
    for folder in ("solutions/zh", "notebooks/zh"):
        assert sorted(p.stem for p in (ROOT / folder).glob("*.ipynb")) == CHAPTERS, folder


@pytest.mark.parametrize("path", sorted(TEMPLATES), ids=lambda p: p.stem)
def test_the_catalog_is_complete_and_faithful(path):
    problems = edition.check([path.stem])[path]
    assert not problems, "\n".join(f"{english[:80]!r}: {'; '.join(found)}" for english, found in problems[:20])


@pytest.mark.parametrize("path", sorted(p for p in TEMPLATES if p.parent == edition.LIBRARY_CATALOGS),
                         ids=lambda p: p.stem)
def test_the_compiled_catalog_is_the_current_one(path):
    compiled = io.BytesIO()
    write_mo(compiled, edition.read_catalog(path), use_fuzzy=False)
    assert path.with_suffix(".mo").read_bytes() == compiled.getvalue(), "run: python -m llmest.book.edition update"


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_chinese_chapters_are_generated_from_the_source_and_the_catalog(name):
    solved = read(ROOT / "solutions" / "zh" / f"{name}.ipynb")
    expected = authoring.chinese_solutions(ROOT / "solutions" / f"{name}.ipynb")
    assert [(c.cell_type, c.source) for c in solved.cells] == [(c.cell_type, c.source) for c in expected.cells]
    student = read(ROOT / "notebooks" / "zh" / f"{name}.ipynb")
    blank = authoring.student_version(solved, "zh")
    assert [(c.cell_type, c.source) for c in student.cells] == [(c.cell_type, c.source) for c in blank.cells]


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_code_cells_are_the_english_ones_with_their_comments_in_chinese(name):
    catalog = edition.read_catalog(edition.CHAPTER_CATALOGS / f"{name}.po")
    english = [edition.chinese_comments(c.source, catalog)
               for c in read(ROOT / "solutions" / f"{name}.ipynb").cells if c.cell_type == "code"]
    chinese = [c.source for c in read(ROOT / "solutions" / "zh" / f"{name}.ipynb").cells if c.cell_type == "code"]
    speak = "\n" + "\n".join(edition.SPEAK_CHINESE)
    changed = [(en, zh) for en, zh in zip(english, chinese) if en != zh]
    assert len(english) == len(chinese) and len(changed) == 1, "one cell differs: the one switching to Chinese"
    assert changed[0][1] == changed[0][0].rstrip("\n") + speak
    left = [text for source in chinese for _, text in edition.comments(source) if edition.english_prose(text)]
    assert left == [], "a comment of a Chinese chapter's code is still English"


def test_a_code_comment_is_translated_and_a_marker_is_not():
    code = 'x = "#1b7f3b"  # the colour of a fit\n%config X\n### BEGIN SOLUTION\n# BEGIN HIDDEN TESTS\n# noqa: x'
    assert [text for _, text in edition.comments(code)] == ["the colour of a fit"]
    catalog = edition._new_catalog("t")
    catalog.add("the colour of a fit", "拟合的颜色")
    assert edition.chinese_comments(code, catalog).splitlines()[0] == 'x = "#1b7f3b"  # 拟合的颜色'


@pytest.mark.parametrize("name", CHAPTERS)
def test_a_chinese_reader_meets_no_english_prose(name):
    for cell in read(ROOT / "notebooks" / "zh" / f"{name}.ipynb").cells:
        if cell.cell_type == "markdown":
            assert not edition.english_prose(cell.source), cell.source[:300]


def shown(cell) -> list[str]:
    """The lines a reader sees of a code cell's outputs: printed text, tables (HTML, else plain text); not a
    figure's or a widget's plain-text stand-in."""
    lines = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            lines += out.text.splitlines()
            continue
        data = out.get("data", {})
        if "image/png" in data or "application/vnd.jupyter.widget-view+json" in data:
            continue
        if "text/html" in data:
            markup = re.sub(r"<style.*?</style>|<script.*?</script>", "", data["text/html"], flags=re.DOTALL)
            lines += html.unescape(re.sub(r"<[^>]+>", "\n", markup)).splitlines()
        elif "text/plain" in data:
            lines += data["text/plain"].splitlines()
    return [line.strip() for line in lines if line.strip()]


@pytest.mark.parametrize("name", CHAPTERS)
def test_what_a_chinese_chapter_prints_has_no_english_prose(name):
    found = {cell.get("id"): hits for cell in read(ROOT / "solutions" / "zh" / f"{name}.ipynb").cells
             if cell.cell_type == "code" and (hits := edition.english_prose("\n".join(shown(cell))))}
    assert found == {}


# The English words a Chinese chapter may print, each with why it stays: names and values a reader types (presets,
# options, fits), libraries and formats, the material's own words (its quotes are verbatim) and the glossary's
# kept terms. Titles of papers and pages are left out before the check. Any other word is a label to translate.
KEPT_WORDS = {
    "token": "the glossary keeps token", "tokens": "the glossary keeps token",
    "cache": "the glossary's KV cache",
    "batch": "the glossary keeps batch, as the material does (batch size8)", "size": "the glossary's batch size",
    "prompt": "kept in English, as serving engines and papers name it (prompt 长度)",
    "epoch": "the material's own word (重复epoch的问题)",
    "bytes": "the material's quotes (4N bytes)", "context": "the material's quote (2048 context, batch=32)",
    "adamw": "an optimizer as typed", "adafactor": "an optimizer as typed", "mixed": "a convention as typed",
    "hoffmann": "a loss fit as typed, dt.fit('hoffmann')", "besiroglu": "a loss fit as typed",
    "none": "offload=none as typed", "optimizer": "offload=optimizer as typed",
    "params": "offload=optimizer+params as typed",
    "sbh": "the formula's s·b·h", "logits": "the output layer's tensor, as the chapter names it",
    "dropout": "the layer's name, as the chapter names it", "absmax": "bitsandbytes' name for a block's scale",
    "bit": "a unit (4 bit)", "autocast": "torch.autocast", "torchtune": "a library", "bitsandbytes": "a library",
    "man": "man pages, the Unix manual", "manpages": "Debian's packages manpages, manpages-zh",
    "copyleft": "the licence's name, Linux man-pages copyleft",
    "architecture": "the Cloud TPU page's title, System architecture",
    "checkpointing": "the material's quote, Gradient checkpointing（用计算换显存…）",
    "selective": "recompute='selective' as typed", "llmest": "the library",
    "review": "the command llmest review, as typed",
    "sdpa": "torch's attention implementation, attention='sdpa'", "eager": "torch's attention, attention='eager'",
    "epochs": "a drill template as typed", "torch": "a library", "transformers": "a library",
    "cpu": "torch's version, 2.13.0+cpu", "norms": "the count's key in 2·(N − norms), as the formulas write it",
    "softmax": "a function", "cos": "a function", "sin": "a function", "scores": "the formula scores·V",
    "mlp": "a module's path, model.layers.0.mlp",
    "rollout": "kept in English, as RL frameworks name it (rollout 引擎)", "verl": "a library",
    "dualpipe": "schedule='dualpipe' as typed", "amax": "Transformer Engine's name for a tensor's largest magnitude",
    "roofline": "the model's name, as papers write it (roofline 模型)", "yaml": "a file's type, its yaml",
}
_TITLE = re.compile(r"[A-Z][\w-]*(?:[ :]+(?:[A-Z][\w-]*|for|with|of|and|the|in|on|to|a))*[ :]+[A-Z][\w-]*")
_TYPED = re.compile(r"\b\w+\s*==?\s*\S+")  # a parameter as spelled, with its value: answer == 'two weeks', zero=3
_WORD = re.compile(r"(?<![\w.\-/:`'])(?:[a-z]{3,}|on|of|to|in|by|at|is|as|or|an)(?![\w.\-/:`'(])")


@pytest.mark.parametrize("name", CHAPTERS)
def test_what_a_chinese_chapter_prints_has_no_english_word_but_names_and_kept_terms(name):
    found = {}
    for cell in read(ROOT / "solutions" / "zh" / f"{name}.ipynb").cells:
        if cell.cell_type == "code":
            for line in shown(cell):
                for word in _WORD.findall(_TITLE.sub("", _TYPED.sub("", line))):
                    if word not in KEPT_WORDS:
                        found.setdefault(word, f"{cell.get('id')}: {line[:100]}")
    assert found == {}


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_solution_text_reaches_the_chinese_student_copy(name):
    student = (ROOT / "notebooks" / "zh" / f"{name}.ipynb").read_text(encoding="utf-8")
    for cell in read(ROOT / "solutions" / "zh" / f"{name}.ipynb").cells:
        for region in authoring.solution_regions(cell.source):
            for line in (line.strip() for line in region.splitlines()):
                if len(line) > 12 and line not in authoring.PROMPTS["zh"][0]:
                    assert line not in student, f"solution line in notebooks/zh/{name}: {line}"


def test_a_changed_english_paragraph_marks_its_translation_fuzzy_and_fails():
    from babel.messages.catalog import Catalog

    old = "Mixed precision keeps 16 bytes per parameter."
    catalog = Catalog(locale="zh_CN")
    catalog.add(old, "混合精度每个参数占 16 字节。")
    template = Catalog(locale="zh_CN")
    template.add("Mixed precision keeps 18 bytes per parameter.")
    catalog.update(template)
    entry = catalog.get("Mixed precision keeps 18 bytes per parameter.")
    assert entry.fuzzy and entry.string == "混合精度每个参数占 16 字节。" and entry.previous_id == [old]
    assert edition.faults(entry, [])[0].startswith("fuzzy")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(entry.id),
                                         nbformat.v4.new_code_cell("import llmest as le")])
    assert edition.chinese(nb, "x", catalog).cells[0].source == entry.id  # the English stays until revised


@pytest.mark.parametrize("english, chinese, fault", [
    ("A 7B model holds 112 GB.", "一个 7B 模型占 GB。", "lost '112'"),
    ("Call `rule_params(h, l, v)` for it.", "用 rule_params 计算。", "lost '`rule_params(h, l, v)`'"),
    ("So $N = 12LH^2$ here.", "所以 N = 12LH^2。", "lost '$N = 12LH^2$'"),
    ("At $2.5, the middle of $2-3 an hour.", "按每小时 $2-3 的中间值。", "lost '2.5'"),
    ("See [chapter 3](03_flops_and_time.ipynb).", "见第3章。", "lost '03_flops_and_time.ipynb'"),
    ("The optimizer states take 12 bytes.", "优化器的状态占 12 字节。", "glossary: 'optimizer states' is '优化器状态'"),
    ("{n} GPUs fit.", "{m} 张卡放得下。", "placeholders differ"),
])
def test_the_check_catches_an_unfaithful_translation(english, chinese, fault):
    from babel.messages.catalog import Message

    assert fault in edition.faults(Message(english, chinese), edition.glossary())
    assert not edition.faults(Message("A 7B model holds 112 GB.", "一个 7B（70亿）模型占 112 GB。"), edition.glossary())


def test_a_dollar_amount_is_not_a_formula():
    from babel.messages.catalog import Message

    english = "GPU-hours × $2.5, the middle of $2-3, and $x$ as a formula"
    assert edition._MATH.findall(english) == ["$x$"]
    assert not edition.faults(Message(english, "卡时 × $2.5，即 $2-3 的中间值，$x$ 是公式"), edition.glossary())
    assert "lost '$x$'" in edition.faults(Message(english, "卡时 × $2.5，即 $2-3 的中间值"), edition.glossary())


def test_the_glossary_follows_the_material():
    material = "".join(p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt"))
    rows = [line for line in edition.GLOSSARY.read_text(encoding="utf-8").splitlines() if line.startswith("| ")]
    terms = edition.glossary()
    assert len(terms) >= 40 and len({en.lower() for en, _ in terms}) == len(terms)
    for english, chinese in terms:
        row = next(r for r in rows if r.startswith(f"| {english} |"))
        if "资料" in row.split("|")[3]:
            assert chinese in material, f"{chinese} is marked as the material's term but the material lacks it"
    for required in ("显存", "激活值", "优化器状态", "卡时", "算力利用率", "张量并行", "流水并行"):
        assert required in {zh for _, zh in terms}


@given(st.lists(st.sampled_from(["text", "", "### BEGIN SOLUTION", "### END SOLUTION", "```python", "```", "$$",
                                 "x = 1", "- a list item", "| a | b |"]), max_size=12))
def test_a_cell_splits_into_pieces_that_give_it_back(lines):
    source = "\n".join(lines)
    assert "\n".join(text for _, text in edition.pieces(source)) == source


def test_the_pieces_of_every_chapter_give_it_back():
    for name in CHAPTERS:
        for cell in read(ROOT / "solutions" / f"{name}.ipynb").cells:
            if cell.cell_type == "markdown":
                assert "\n".join(text for _, text in edition.pieces(cell.source)) == cell.source


def test_the_library_speaks_chinese_only_when_asked():
    from llmest import InputError, set_language

    entries = [m for path in TEMPLATES if path.parent == edition.LIBRARY_CATALOGS
               for m in edition.read_catalog(path) if m.id and m.string and not m.fuzzy]
    assert len(entries) > 100
    shown = (lambda m: C_(m.context, m.id) if m.context else _(m.id))
    with speaking("zh"):
        assert [shown(m) for m in entries] == [m.string for m in entries]
    assert [shown(m) for m in entries] == [m.id for m in entries]
    with pytest.raises(InputError, match="language == 'fr'"):
        set_language("fr")


def test_the_index_make_lab_opens_offers_both_editions():
    index = read(authoring.INDEX)
    assert [c.source for c in index.cells] == [c.source for c in authoring.index_notebook().cells]
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", index.cells[0].source)
    assert sorted(links) == sorted([f"{n}.ipynb" for n in CHAPTERS] + [f"zh/{n}.ipynb" for n in CHAPTERS])
    assert all((ROOT / "notebooks" / link).is_file() for link in links)


def test_one_english_text_has_one_chinese_across_the_librarys_catalogs():
    """The library looks a text up in all its catalogs at once: two translations of one English (in one context)
    would show one of them everywhere."""
    found = {}
    for path in sorted(edition.LIBRARY_CATALOGS.glob("*.po")):
        for message in edition.read_catalog(path):
            if message.id:
                found.setdefault((message.context, message.id), {})[path.stem] = message.string
    differ = {english: where for english, where in found.items() if len(set(where.values())) > 1}
    assert not differ


def _chinese_solutions():
    from test_solutions import CHECK_CALL

    for path in sorted((ROOT / "solutions" / "zh").glob("*.ipynb")):
        for cell in read(path).cells:
            if cell.cell_type == "code" and authoring.BEGIN in cell.source:
                for key in CHECK_CALL.findall(cell.source):
                    yield path.name, key, cell


@pytest.mark.parametrize("name, key, cell", list(_chinese_solutions()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_chinese_solution_key_grades_correct_in_chinese(name, key, cell):
    """As for the English key (tests/test_solutions.py): the pinned verdict is the library's word for Correct."""
    from llmest.learn.exercises import get
    from test_solutions import _last_text

    ex = get(key)
    with speaking("zh"):
        correct = re.split("[:：]", ex.check(ex.expected()).message)[0]
    assert correct == "正确" and _last_text(cell).startswith(correct + "："), (name, key, _last_text(cell))
    assert "nbval-check-output" in cell.metadata.get("tags", [])


def test_the_chinese_calculators_page_is_made_from_the_english_one_and_the_catalog():
    stored, expected = read(edition.CHINESE_APP), edition.chinese_app()
    assert [(c.cell_type, c.source) for c in stored.cells] == [(c.cell_type, c.source) for c in expected.cells]
    assert not [cell for cell in stored.cells if cell.cell_type == "code" and cell.outputs], "Voila runs it"
    prose = [cell.source for cell in stored.cells if cell.cell_type == "markdown"]
    assert prose and not [text for text in prose if edition.english_prose(text)]
