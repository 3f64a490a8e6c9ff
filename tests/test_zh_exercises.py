"""The Chinese edition of the exercises, the grader and the material's boxes: under ``speaking("zh")`` what a reader
sees is Chinese (no run of English prose), a Chinese answer grades as its English twin does, and outside the block
every text is the English it was."""

import re

import pytest

from llmest import material
from llmest.book.edition import english_prose
from llmest.learn.exercises import EXERCISES
from llmest.learn.grading import Exercise, entry_placeholder, read_entry
from llmest.core.i18n import _, speaking
from llmest.core.units import UNITS

GARBAGE = ["abc", "1e400", "-3", "nan", [1, 2], "7 apples", "7 8", "0", True, "15,2", "2.5 GPUs", "3 GPU-hours",
           "5 人民币", "1.2 (3.4)", "x" * 201]
CHINESE = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def zh():
    with speaking("zh"):
        yield


def _zh_examples(unit):
    """The figures of a unit's example as the Chinese edition writes it ('"37 张卡" 或 37')."""
    return [read_entry(a.strip().strip('"'), unit) for a in re.split(r'\s+或\s+|、|,\s+(?=")', _shown_example(unit))]


def _shown_example(unit):
    with speaking("zh"):
        return _(UNITS[unit].example)


def _en_examples(unit):
    return [read_entry(a.strip().strip('"'), unit) for a in re.split(r',\s+(?=")|\s+or\s+', UNITS[unit].example)]


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_every_exercise_shows_its_question_and_hints_in_chinese(key, zh):
    ex = EXERCISES[key]
    shown = [ex.title, ex.shown_question, *ex.shown_hints]
    assert ex.title.startswith(f"练习 {key}：") and ex.shown_question != ex.question
    assert CHINESE.search(ex.shown_question) and not any(english_prose(text) for text in shown), shown
    assert "{" not in " ".join(shown), "every placeholder is filled in"
    # Every number of the English question is in the Chinese one (the values filled in included).
    numbers = re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", ex.question)
    assert all(n.replace(",", "") in ex.shown_question.replace(",", "") for n in numbers), numbers


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_hints_are_revealed_one_by_one_in_chinese(key, zh):
    ex = Exercise(key, EXERCISES[key].question, EXERCISES[key].answer, hints=EXERCISES[key]._templates[1],
                  values=EXERCISES[key].values)
    lines = [ex.hint() for _ in ex.hints][-1].splitlines()
    assert [line.split("：", 1)[0] for line in lines] == [f"提示 {i + 1}" for i in range(len(ex.hints))]
    assert all(not english_prose(line) for line in lines)


def _typed(value, unit):
    """A value as a reader types it in the unit: GB for bytes, percent for a fraction."""
    if unit == "bytes":
        return f"{value / 1e9:.12g} GB"
    return f"{value * 100:.12g}%" if unit == "fraction" else f"{value:.12g}"


def _verdicts(ex):
    """One entry of each kind the exercise can meet, by the grade it must get."""
    expected = ex.expected()
    out = {"correct": _typed(expected, ex.unit), "empty": "", "invalid": "abc"}
    if ex.minimum:
        out["wrong"] = _typed(expected - 1, ex.unit)
    elif ex.rel_tol == 0:
        out["wrong"] = _typed(expected + 1, ex.unit)
    else:
        out["close"], out["wrong"] = _typed(expected * 1.5, ex.unit), _typed(expected * 50, ex.unit)
    return out


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_each_kind_of_verdict_reads_in_chinese(key, zh):
    ex = EXERCISES[key]
    for grade, entry in _verdicts(ex).items():
        verdict = ex.check(entry)
        assert verdict.grade == grade, (entry, verdict.message)
        assert CHINESE.search(verdict.shown) and not english_prose(verdict.shown), verdict.shown


@pytest.mark.parametrize("entry", GARBAGE, ids=repr)
def test_what_the_grader_cannot_read_it_explains_in_chinese(entry, zh):
    for ex in (EXERCISES["2.1"], EXERCISES["1.1"], EXERCISES["3.2"], EXERCISES["2.4"], EXERCISES["3.4"]):
        verdict = ex.check(entry)
        assert verdict.grade == "invalid", (entry, verdict.message)
        assert verdict.shown.startswith("无法识别：你的答案 "), verdict.shown
        assert not english_prose(verdict.shown), verdict.shown
        with pytest.raises(AssertionError, match="^无法识别"):
            ex.assert_form(entry)


def test_an_exact_count_a_least_count_and_a_close_miss_say_so_in_chinese(zh):
    gpus = Exercise("t", "Q?", lambda: 8, "GPUs", rel_tol=0, hints=("h",))
    assert gpus.check("8 张卡").shown == "正确：8 张卡。"
    assert gpus.check("9 张卡").shown == "还不对：9 张卡偏高；本题要求精确值。可以看看提示。"
    least = Exercise("t", "Q?", lambda: 8, "GPUs", rel_tol=0.05, minimum=True)
    assert least.check("七张卡").shown.startswith("不够：7 张卡偏低")
    days = Exercise("t", "Q?", lambda: 41.5, "days")
    assert days.check("约 41 天").shown == "正确：41 天与 41.5 天相差不超过 5%。"
    assert days.check("两个月").shown.startswith("接近了：") and "倍以内" in days.check("两个月").shown
    assert days.check("三天").shown == "还不对：3 天偏低，差了 10～1,000 倍。"
    count = Exercise("t", "Q?", lambda: 6.7e9, hints=("h",))
    assert "你是想写 6.7B 吗？" in count.check("6.7").shown
    assert Exercise("t", "Q?", lambda: 1).hint() == "这题没有提示。"
    with pytest.raises(AssertionError, match="^还不对"):
        gpus.assert_ok("9")


@pytest.mark.parametrize("unit, answer, chinese, english", [
    ("count", 7e9, "约 70亿", "about 7B"), ("parameters", 6.7e9, "67亿个参数", "6.7B params"),
    ("GPUs", 8, "8 张卡", "8 GPUs"), ("GPUs", 8, "每卡 8 张", "8 GPUs"), ("days", 14, "两周", "2 weeks"),
    ("days", 41.5, "41.5 天", "41.5 days"), ("GPU-hours", 93_483, "9.35万 卡时", "93,483 GPU-hours"),
    ("hours", 72, "三天", "3 days"), ("USD", 1.2e6, "120万美元", "$1.2M"), ("fraction", 0.42, "42％", "42%"),
    ("tokens", 1.4e12, "1.4万亿 token", "1.4T tokens"), ("epochs", 2, "两轮", "2 epochs"),
    ("bytes", 140e9, "140 GB 左右", "about 140 GB"), ("seconds", 0.5, "0.5 秒", "0.5 seconds"),
])
def test_a_chinese_answer_grades_as_its_english_twin(unit, answer, chinese, english):
    ex = Exercise("t", "Q?", lambda: answer, unit, rel_tol=0.01)
    with speaking("zh"):
        zh = ex.check(chinese)
    en = ex.check(english)
    assert zh.grade == en.grade == "correct", (zh.message, en.message)


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_each_units_chinese_example_reads_as_the_english_one_and_its_display_reads_back(unit):
    assert _zh_examples(unit) == pytest.approx(_en_examples(unit)), _shown_example(unit)
    with speaking("zh"):
        assert entry_placeholder(unit).startswith("例如 ")
        for value in (3, 1850.0, 2.5e7):
            shown = UNITS[unit].show(value)
            assert read_entry(shown, unit) == pytest.approx(value, rel=0.01) if unit != "bytes" else True, shown


def test_chinese_units_are_shown_and_the_placeholders_stay_distinct(zh):
    assert UNITS["GPUs"].show(1) == "1 张卡" and UNITS["days"].show(7.6) == "7.6 天"
    assert UNITS["GPU-hours"].show(2560) == "2,560 卡时" and UNITS["months"].show(1) == "1 个月"
    assert len({entry_placeholder(unit) for unit in UNITS}) == len(UNITS)


def test_outside_the_block_everything_is_the_english_it_was():
    ex = EXERCISES["2.1"]
    before = (repr(ex), ex.check("abc").shown, ex.check("").shown, ex.check("3").shown, str(material.boxes()),
              entry_placeholder("GPUs"), UNITS["GPUs"].show(1), ex.shown_question)
    with speaking("zh"):
        assert repr(ex) != before[0] and str(material.boxes()) != before[4]
    after = (repr(ex), ex.check("abc").shown, ex.check("").shown, ex.check("3").shown, str(material.boxes()),
             entry_placeholder("GPUs"), UNITS["GPUs"].show(1), ex.shown_question)
    assert after == before
    assert before[0].startswith("Exercise 2.1: The material's exercise 1") and before[5] == 'e.g. 37 GPUs or 37'
    assert before[1].startswith("Could not read that: your answer 'abc' is not a number of GPUs")
    assert before[3] == "Correct: 3 GPUs." and before[6] == "1 GPU" and before[7] == ex.question


# ---------------------------------------------------------------------------------------------------------------
# The material's boxes, table and plot
# ---------------------------------------------------------------------------------------------------------------

LABELS = ("状态", "出处", "资料", "文献", "重算", "原因", "备注", "因此")


@pytest.mark.parametrize("figure", material.figures(), ids=lambda f: f.key)
def test_every_material_box_has_chinese_labels_and_claims(figure, zh):
    title, *rows = figure.box().splitlines()
    assert title.split("：", 1)[0] in ("核实无误", "勘误", "取决于资料未给出的输入", "有争议"), title
    assert [row.strip().split("：", 1)[0] for row in rows if row.startswith("  ")] and all(
        row.strip().split("：", 1)[0] in LABELS for row in rows if row.startswith("  ")), rows
    shown = [title, figure.status_text, figure.stated_text, figure.document_title]
    assert all(not english_prose(text) for text in shown), shown
    html = figure._repr_html_()
    assert all(f">{label}</div>" not in html for label in ("source", "material", "recomputed", "cause", "note"))
    assert ">出处</div>" in html and ">重算</div>" in html


# Causes made only of a GPU's note in llmest.catalog.hardware, which its own catalog translates.
HARDWARE_NOTES = {"000-2-a100", "000-2-h200", "000-2-b200"}


@pytest.mark.parametrize("figure", [f for f in material.figures() if f.cause_text and f.key not in HARDWARE_NOTES],
                         ids=lambda f: f.key)
def test_every_cause_and_what_the_literature_says_read_in_chinese(figure):
    english = (figure.cause_text, [says for says, _source in figure.literature])
    with speaking("zh"):
        cause = figure.cause_text
        literature = [line for line in figure.box().splitlines() if line.startswith("  文献：")]
    assert CHINESE.search(cause) and cause != english[0], cause
    assert len(literature) == len(english[1]) and all(CHINESE.search(line) for line in literature), literature
    # The English is as it was once the block ends, and every number of it is in the Chinese.
    assert figure.cause_text == english[0]
    numbers = re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", english[0])
    assert all(n.replace(",", "") in cause.replace(",", "") for n in numbers), numbers


def test_how_each_figure_is_recomputed_reads_in_chinese_around_its_code(zh):
    from llmest.book.material.render import shown

    for figure in material.figures():
        words = [w for w in english_prose(shown(figure.how)) if " et al" not in w]   # authors keep their names
        assert words == [], (figure.key, shown(figure.how))


def test_the_table_and_its_html_have_chinese_headers(zh):
    table = material.table(2)
    assert str(table).splitlines()[0].split() == ["条目", "状态", "资料", "重算"]
    assert all(f">{word}</th>" in table.html for word in ("条目", "状态", "说法", "资料", "重算"))
    assert ">核实无误</span>" in table.html and ">勘误</span>" in table.html


def test_the_plot_labels_are_chinese(zh):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from llmest.book.material import plot

    overview, ratios = plot.material_vs_recomputed()
    texts = [overview.get_title(), overview.get_xlabel(), overview.get_ylabel(), ratios.get_xlabel(),
             *[t.get_text() for t in ratios.get_yticklabels()], *[t.get_text() for t in overview.get_legend().texts]]
    assert all(CHINESE.search(text) and not english_prose(text) for text in texts), texts
    import matplotlib.pyplot as plt

    plt.close("all")
