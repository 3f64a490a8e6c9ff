"""The drills in Chinese: every template at every level gives, under speaking("zh"), the same inputs, answers, units
and grading as in English, with its question, parts, steps and hint in Chinese; ``llmest drill --lang zh`` writes a
Chinese worksheet and key with the English key's answers; a Chinese answer is graded as the English one is."""

import io
import re
import sys

import pytest

from llmest import cli, drills
from llmest import memory as mem
from llmest.learn.drills import LEVELS, TEMPLATES, generate
from llmest.learn.drills.memory import USED_BY
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.learn.worksheets import worksheet_html, worksheet_markdown

SEEDS = range(4)
# A call of the library's API ("compute_budget(gpus, days, peak, mfu)") is code: its names stay English.
API_CALL = re.compile(r"\b[a-z]\w*_\w*\([^()]*\)")
CHINESE = re.compile(r"[\u4e00-\u9fff]")


def _texts(problem) -> list[str]:
    return [problem.solution(), problem.question, problem.hint, *problem.steps,
            *(part.question for part in problem.parts), *(step for part in problem.parts for step in part.steps)]


def _graded(problem) -> list[tuple]:
    return [(part.answer, part.unit, part.tolerance, part.minimum) for part in problem.graded]


@pytest.mark.parametrize("key", list(TEMPLATES))
def test_a_problem_in_chinese_has_the_english_numbers_and_chinese_words(key):
    for level in LEVELS:
        for seed in SEEDS:
            english = generate(key, seed, level)
            with speaking("zh"):
                chinese = generate(key, seed, level)
                texts = _texts(chinese)   # the solution's "Answer" is said where it is shown
            assert (chinese.inputs, chinese.answer, chinese.unit, chinese.tolerance, chinese.minimum) == (
                english.inputs, english.answer, english.unit, english.tolerance, english.minimum)
            assert _graded(chinese) == _graded(english)
            for text in texts:
                assert not english_prose(API_CALL.sub("", text)), (key, level, seed, text)
            assert CHINESE.search(chinese.question) and CHINESE.search(chinese.hint)
            assert "答案：" in texts[0] and all(CHINESE.search(part.question) for part in chinese.parts)
            assert generate(key, seed, level) == english  # English again after the block


def test_a_cited_section_keeps_its_link_and_reads_in_chinese():
    with speaking("zh"):
        problem = generate("moe-active", 1, "hard")
    assert problem.steps[0].endswith("第1章 MoE 模型（混合专家）：总参数与激活参数（01_parameters.ipynb#cell-id=094ac9f5）")
    assert "chapter 1, Mixture of experts (01_parameters.ipynb#cell-id=094ac9f5)" in generate(
        "moe-active", 1, "hard").steps[0]


def test_the_setups_shown_are_the_memory_modules():
    assert all(USED_BY[name] == mem.CONVENTIONS[name].used_by for name in USED_BY)


def test_a_chinese_answer_is_graded_as_the_english_one():
    params = generate("params-from-shape", 1, "easy")   # 64.7B
    gpus = generate("gpus-for-deadline", 1, "easy")
    days = generate("training-days", 1, "easy")
    with speaking("zh"):
        chinese = {params.check(f"约 {params.answer / 1e8:.0f}亿").grade, gpus.check(f"{gpus.answer} 张卡").grade,
                   days.check(f"约 {days.answer:.0f} 天").grade}
        wrong = params.check(f"约 {params.answer / 1e9:.0f}亿").grade   # 65亿 is 6.5B: ten times too few
    assert chinese == {params.check(f"{params.answer / 1e9:.1f}B").grade, gpus.check(f"{gpus.answer}").grade,
                       days.check(f"{days.answer:.0f} days").grade} == {"correct"}
    assert wrong == params.check(f"{params.answer / 1e10:.1f}B").grade == "wrong"


def _answers(key: str) -> list[str]:
    return re.findall(r"^\*\*(?:Answer|答案)[^:：]*(?:: |：)(.*)\*\*$", key, re.MULTILINE)


def test_llmest_drill_lang_zh_writes_the_english_keys_answers_in_chinese(tmp_path, capsys):
    assert cli.main(["drill", "--seed", "7", "--out", str(tmp_path / "en")]) == 0
    assert cli.main(["drill", "--lang", "zh", "--seed", "7", "--out", str(tmp_path / "zh")]) == 0
    english, chinese = ((tmp_path / lang / "key.md").read_text(encoding="utf-8") for lang in ("en", "zh"))
    parts = [part for problem in drills.drill_set(7, 10, level="mixed") for part in problem.part_exercises]
    assert len(_answers(chinese)) == len(_answers(english)) == len(parts) >= 10
    with speaking("zh"):   # each answer of the Chinese key is the English key's, as its step grades it
        assert {part.check(answer).grade for part, answer in zip(parts, _answers(chinese))} == {"correct"}
    assert {part.check(answer).grade for part, answer in zip(parts, _answers(english))} == {"correct"}
    sheet = (tmp_path / "zh" / "worksheet.md").read_text(encoding="utf-8")
    assert sheet.startswith("# 练习卷：10 道估算题（种子 7；") and "、" in sheet.split("\n")[0]
    assert "每题答案误差在 25% 以内算对" in sheet
    assert chinese.startswith("# 参考答案：10 道估算题（种子 7；")
    page = (tmp_path / "zh" / "key.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and "<strong>答案" in page
    for text in (sheet, chinese, page):
        assert not english_prose(API_CALL.sub("", re.sub(r"<[^>]+>", " ", text)))
    assert (tmp_path / "en" / "worksheet.md").read_text(encoding="utf-8").startswith("# Worksheet: 10 estimation")


def test_a_worksheet_in_chinese_names_its_topics_and_levels_in_chinese():
    problems = drills.drill_set(3, 6, level="hard")
    with speaking("zh"):
        sheet, key, page = (worksheet_markdown(problems, 3), worksheet_markdown(problems, 3, key=True),
                            worksheet_html(problems, 3))
    assert "· 困难" in sheet and "答案 (a)：______________________" in sheet and "**答案 (a)：" in key
    assert not re.search(r"\b(parameters|memory|compute|data|serving|hard)\b", sheet.split("\n")[0])
    assert "<h2>1. " in page and "Answer" not in page
    assert worksheet_markdown(problems, 3).startswith("# Worksheet: 6 estimation problems (seed 3; ")


def test_llmest_drill_help_names_the_languages(capsys):
    with pytest.raises(SystemExit):
        cli.main(["drill", "--help"])
    assert "--lang {en,zh}" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        cli.main(["drill", "--lang", "fr"])
    assert exit_.value.code == 2 and "--lang" in capsys.readouterr().err


def test_llmest_review_lang_zh_asks_in_chinese(tmp_path, monkeypatch, capsys):
    pytest.importorskip("fsrs")
    pytest.importorskip("platformdirs")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ny\n"))
    assert cli.main(["review", "--lang", "zh", "--db", str(tmp_path / "p.sqlite3"), "--topics", "memory"]) == 0
    out = capsys.readouterr().out
    assert "（按回车查看答案）" in out and "记住了吗？[y/n]" in out and "下次复习：" in out
    assert "已复习 1 张卡片：答对 1 张。" in out and "现在到期：" in out
