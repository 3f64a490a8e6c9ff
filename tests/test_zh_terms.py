"""The Chinese edition's wording, beyond each entry's faithfulness (tests/test_edition.py): one term has one spelling
(the glossary's fourth column lists the spellings it rules out), MFU is glossed once a chapter and where a drill deck
opens, the prose names the statuses and buttons as the tables and widgets print them, no calque of the English
survives in the shared texts, and Chinese is spaced from Latin letters and digits the same way everywhere."""

import re

import pytest

from llmest import edition
from llmest.core.i18n import _ as _i18n
from llmest.core.i18n import speaking

CHAPTERS = sorted(p for p in edition.templates() if p.parent == edition.CHAPTER_CATALOGS)
CATALOGS = sorted(edition.templates())
CJK = "\u4e00-\u9fff"


def entries(path):
    """(English, Chinese) of each finished entry; a plural's forms one by one."""
    for message in edition.read_catalog(path):
        if not message.id or not message.string or message.fuzzy:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else [message.id]
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        for string in strings:
            if string:
                yield ids[0] if len(ids) == 1 else " ".join(ids), string


def variants() -> list[tuple[str, re.Pattern, str]]:
    """(the glossary's term, a spelling it rules out as a pattern, that spelling as written) from the glossary's
    fourth column: spellings separated by 、, a pattern between slashes."""
    out = []
    for line in edition.GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) < 4 or not cells[3] or cells[0] == "English":
            continue
        for spelling in cells[3].split("、"):
            pattern = spelling[1:-1] if len(spelling) > 2 and spelling[0] == spelling[-1] == "/" else re.escape(spelling)
            out.append((cells[1], re.compile(pattern), spelling))
    return out


def test_the_glossary_rules_out_the_spellings_readers_met():
    ruled_out = {spelling for _, _, spelling in variants()}
    for spelling in ("MFU（算力利用率）", "算力利用率 MFU", "批大小", "批量", "算力受限", "算力最优", "留存率", "抓取",
                     "本练习册", "KV缓存", "普通数据并行", "朴素数据并行", "全量检查点", "query 头", "已核实", "已发表训练"):
        assert spelling in ruled_out, spelling
    terms = dict(edition.glossary())
    assert terms["MFU"] == "MFU" and terms["model FLOPs utilisation"] == "算力利用率"
    assert terms["batch"] == "batch" and terms["KV cache"] == "KV cache" and terms["epoch"] == "epoch"
    assert terms["compute-optimal"] == "计算最优" and terms["compute-bound"] == "计算受限"


def test_a_ruled_out_spelling_is_caught():
    found = [term for term, pattern, _ in variants() if pattern.search("全局批大小 512，训练 3 轮")]
    assert sorted(found) == ["batch size", "epoch"]


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.stem)
def test_each_term_has_one_spelling(path):
    """A spelling the glossary rules out may stay only where the English itself has it (an alias a reader types,
    such as the 轮 that the epochs unit accepts)."""
    rules = variants()
    found = [f"{spelling!r} → {term!r}: {chinese[:90]!r}" for english, chinese in entries(path)
             for term, pattern, spelling in rules if pattern.search(chinese) and not pattern.search(english)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_each_chapter_glosses_mfu_once_then_writes_mfu(path):
    """As the material does (算力利用率也就是常说的MFU): the chapter's first mention is 算力利用率（MFU）, the later ones
    MFU; a definition may spell it out (**算力利用率**（MFU，model FLOPs utilisation））."""
    mentions = [chinese for _, chinese in entries(path) if "MFU" in chinese]
    if not mentions:
        return
    assert re.search(r"算力利用率(\*\*)?（MFU", mentions[0]), mentions[0][:200]
    again = [chinese[:120] for chinese in mentions[1:] if "算力利用率（MFU）" in chinese]
    assert not again, again


# ---- MFU in the learning material: glossed where a deck opens, then MFU --------------------------------------------
GLOSS = "算力利用率（MFU）"
TIMED_INTRO = ("Topics: {topics}. Each question has its own clock; when it runs out, what you have typed is graded. "
               "Press Start when you are ready: question 1 and its clock start then.")


def _drill_text(problem) -> str:
    parts = [text for part in problem.parts for text in (part.question, part.answer_text, *part.steps)]
    return " ".join([problem.question, problem.hint or "", problem.answer_text, *problem.steps, *parts])


def test_drill_cards_write_mfu_and_the_decks_introduction_glosses_it():
    """A drill set comes in an order drawn for its seed, so no card is sure to come first: the gloss stands in the
    deck's introduction (a worksheet's instructions, a timed session's opening), and every card writes MFU."""
    from llmest.learn import drills
    from llmest.learn.worksheets import INSTRUCTIONS, worksheet_markdown

    with speaking("zh"):
        texts = [_drill_text(drills.generate(key, seed, level)) for key in drills.TEMPLATES for level in drills.LEVELS
                 for seed in range(2)]
        sheet = worksheet_markdown(drills.drill_set(3, 8, topics="compute"), 3)
        intros = [_i18n(INSTRUCTIONS), _i18n(TIMED_INTRO)]
    assert sum(text.count("MFU") for text in texts) > 50
    assert [text[:120] for text in texts if GLOSS in text] == []
    assert all(intro.count(GLOSS) == 1 for intro in intros), intros
    first_problem = sheet.index("\n## ")
    assert sheet.count(GLOSS) == 1 and sheet.index(GLOSS) < first_problem < sheet.index("MFU", first_problem)


def test_the_flashcards_gloss_mfu_on_the_card_that_teaches_it_only():
    from llmest.learn.flashcards import cards

    with speaking("zh"):
        named = [(card.key, f"{card.front} {card.back}") for card in cards() if "MFU" in card.front + card.back]
    glossed = [key for key, text in named if GLOSS in text]
    assert len(named) >= 2 and glossed == ["Typical MFU of large pre-training runs, and a well-measured one"]


def test_the_chapters_exercises_write_mfu_after_the_chapters_gloss():
    """An exercise stands in its chapter after the prose that glosses MFU (test_each_chapter_glosses_mfu_once)."""
    from llmest.learn.exercises import EXERCISES

    with speaking("zh"):
        texts = [" ".join([ex.shown_question, *ex.shown_hints]) for ex in EXERCISES.values()]
    assert sum("MFU" in text for text in texts) >= 5
    assert [text[:120] for text in texts if GLOSS in text] == []


def _library(english, context=None):
    for path in CATALOGS:
        if path.parent == edition.LIBRARY_CATALOGS:
            message = edition.read_catalog(path).get(english, context)
            if message is not None and message.string:
                return message.string
    raise LookupError(english)


def test_the_prose_names_the_statuses_as_the_tables_print_them():
    terms = dict(edition.glossary())
    assert _library("confirmed") == terms["status “confirmed”"] == "核实无误"
    assert _library("depends") == terms["status “depends”"] == "视输入而定"
    for path in CHAPTERS:
        for english, chinese in entries(path):
            for word, status in (("confirmed", "核实无误"), ("depends", "视输入而定"), ("erratum", "勘误")):
                if f"**{word}**" in english or f'"{word}"' in english:
                    assert status in chinese, (word, chinese[:200])


def test_the_prose_names_the_buttons_as_the_widgets_label_them():
    """Chapter 1 tells a reader to press **Check**: the Chinese names the button's own label (判分)."""
    pressed = 0
    for path in CHAPTERS:
        for english, chinese in entries(path):
            for button in re.findall(r"press \*\*(\w+)\*\*|\*\*(Hint)\*\* reveals", english):
                label = _library(button[0] or button[1])
                assert f"**{label}**" in chinese, (button, label, chinese[:200])
                pressed += 1
    assert pressed >= 2 and _library("Check") == "判分"


# Words that said something else than the English means.
WRONG_WORDS = {
    "应得": "the tokens a budget can feed a model, not what it deserves (能喂)",
    "相差在": "a tolerance reads 相差不超过 X, not the calque 相差在 X 以内",
    "承载FLOPs": "the parameters that count toward FLOPs: 计入 FLOPs 的参数",
    "居中的一半": "the middle half is the interquartile range: 居中 50% 的区间（四分位距）",
    "已发表训练": "published runs: 公开训练",
}


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.stem)
def test_no_calque_survives(path):
    found = []
    for english, chinese in entries(path):
        found += [f"{word!r} ({why}): {chinese[:90]!r}" for word, why in WRONG_WORDS.items() if word in chinese]
        bare = _protected(chinese)
        if re.search(r"\S\s?次\s?FLOPs", bare):
            found.append(f"次FLOPs (FLOPs counts operations: N 次浮点运算 or N FLOPs): {chinese[:90]!r}")
        if re.search(rf"(?<=[\d}}])×\s*(?=[{CJK}，。；：、）]|$)", bare):
            found.append(f"× for 'times as much' (倍): {chinese[:90]!r}")
        if re.search(rf"[{CJK}]\s*,|,\s*[{CJK}]", re.sub(r"\w+\([^()]*(\([^()]*\))?[^()]*\)", "", bare)):
            found.append(f"an ASCII comma in Chinese text: {chinese[:90]!r}")
        if re.search(r"（ |[）、，。：；！？] (?=[^\s<|])", bare):
            found.append(f"a space inside or after a full-width bracket or punctuation mark: {chinese[:90]!r}")
    assert not found, "\n".join(found)


# ---- spacing: Chinese | Latin letters, digits, code, formulas -------------------------------------------------

_LATIN_LIKE = re.compile(r"```.*?```|\$\$.*?\$\$|(?<!\\)\$(?!\d)[^$\n]+?(?<!\\)\$|`[^`\n]*`|https?://[^\s)>\]]+",
                         re.DOTALL)
_NEUTRAL = re.compile(r"\]\([^)]*\)|<[^>]+>|\{[^{}]*\}|%\(\w+\)[sd]")


def _protected(text: str) -> str:
    """The text with code, formulas and URLs as a Latin letter, links' targets, tags and placeholders taken out."""
    return _NEUTRAL.sub("\u3000", _LATIN_LIKE.sub("x", text))


def unspaced(text: str) -> list[str]:
    """Where Chinese touches a Latin letter, a digit, code or a formula with no space between (emphasis markers
    aside); 第3章 and 70亿 stay whole."""
    bare = _protected(text)
    bare = re.sub(r"第\d+(?:\.\d+)?[章节]", "第章", bare)
    bare = re.sub(r"\d+(?:\.\d+)?(?=[万亿])", "", bare)
    latin = r"A-Za-z0-9%⁰¹²³⁴⁵⁶⁷⁸⁹"
    return [m.group(1) for m in re.finditer(rf"(?=([{CJK}]\*{{0,2}}[{latin}]|[{latin})]\*{{0,2}}[{CJK}]))", bare)]


@pytest.mark.parametrize("text, found", [
    ("用 Adam 做混合精度训练，每个参数 16 字节", []),
    ("用Adam做混合精度训练", ["用A", "m做"]),
    ("第3章的 `training_memory` 给出 70亿 个参数", []),
    ("见`training_memory`：", ["见x"]),
    ("记 *s* 为序列长度，**MFU** 的定义", []),
    ("记*s*为序列长度", ["记*s", "s*为"]),
    ("{gpus}张卡，见 [第2章](02_memory.ipynb)", []),
])
def test_the_spacing_rule(text, found):
    assert unspaced(text) == found


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.stem)
def test_chinese_is_spaced_from_latin_and_digits(path):
    found = [f"{hits}: {chinese[:90]!r}" for _, chinese in entries(path) if (hits := unspaced(chinese))]
    assert not found, "\n".join(found[:30])
