"""The Chinese edition of the calculators, the practice widgets, the tables, the figures and the flashcards: under
``speaking("zh")`` every label, button, placeholder and result a reader sees is Chinese, an error names the field by
its Chinese label, and outside the block the English is as it was."""

import html
import re

import pytest

from conftest import require
from llmest import flashcards, plans
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.formulas.model import preset

w = pytest.importorskip("ipywidgets")
# Where no font with Chinese glyphs is installed, matplotlib warns of each missing glyph; the text is what is tested.
pytestmark = pytest.mark.filterwarnings("ignore:Glyph .* missing from font")
matplotlib = require("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from llmest import plots  # noqa: E402
from llmest import widgets as W  # noqa: E402
from llmest.learn.exercises import EXERCISES  # noqa: E402

CALCULATORS = (W.ParamCalculator, W.MemoryPlanner, W.TrainingPlanner, W.RooflineExplorer, W.ServingPlanner,
               W.DataPlanner, W.ScalingExplorer, W.LayoutExplorer, W.CapacityPlanner)
CJK = re.compile(r"[\u4e00-\u9fff]")
# Labels that stay as they are in Chinese: names of the library's settings, of GPUs and of methods.
KEPT = {"GPU", "FlashAttention", "batch size", "MFU", ""}  # the glossary keeps batch size (as the material does) and MFU


def _plain(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", " ", markup))


def _parts(widget):
    stack = [widget]
    while stack:
        part = stack.pop()
        yield part
        stack.extend(getattr(part, "children", ()))


def _texts(widget, leave_out=()) -> list[str]:
    """What the reader sees of a widget tree: labels, placeholders, toggles' labels and HTML, less ``leave_out`` (text
    that other parts of the library write, such as a plan's notes)."""
    texts = []
    for part in _parts(widget):
        texts += [getattr(part, name) for name in ("description", "placeholder", "tooltip")
                  if isinstance(getattr(part, name, None), str)]
        if isinstance(part, w.ToggleButtons):
            texts += list(part._options_labels)
        if isinstance(part, w.HTML):
            texts.append(_plain(part.value))
    for text in leave_out:
        texts = [t.replace(text, "") for t in texts]
    return texts


def _english(texts) -> list[str]:
    return [hit for text in texts for hit in english_prose(text)]


def _labels(calc) -> dict:
    boxes = dict(calc.inputs, model=calc.model) if isinstance(calc, W.ParamCalculator) else calc.inputs
    return {name: box.description for name, box in boxes.items() if hasattr(box, "description")}


def _from_plans(calc) -> list[str]:
    """The notes a calculator shows from ``llmest.plans`` as they are."""
    if isinstance(calc, W.MemoryPlanner) and calc.plan is not None:
        note = calc.plan.activations_note
        return [note[:1].upper() + note[1:], calc.plan.no_fit_reason]
    if isinstance(calc, W.TrainingPlanner) and calc.estimate is not None:
        return [calc.estimate.n_params_from]
    return []


@pytest.mark.parametrize("cls", CALCULATORS, ids=lambda cls: cls.__name__)
def test_a_calculator_in_chinese_shows_no_english_prose_and_chinese_labels(cls):
    with speaking("zh"):
        calc = cls()
        texts = _texts(calc.widget, _from_plans(calc))
        labels = _labels(calc)
    assert _english(texts) == []
    untranslated = {name: label for name, label in labels.items() if not CJK.search(label) and label not in KEPT}
    assert untranslated == {}
    with speaking("en"):
        english = _labels(cls())
    assert set(english) == set(labels) and all(english[n] != labels[n] for n in labels if labels[n] not in KEPT)


@pytest.mark.parametrize("cls, setting", [
    (W.ParamCalculator, lambda c: setattr(c.model, "value", "mixtral-8x7b")),
    (W.MemoryPlanner, lambda c: setattr(c.inputs["task"], "value", "inference")),
    (W.MemoryPlanner, lambda c: (setattr(c.inputs["zero"], "value", 0), setattr(c.inputs["model"], "value",
                                                                               "llama-2-70b"))),
    (W.MemoryPlanner, lambda c: (setattr(c.inputs["cp"], "value", 2), setattr(c.inputs["offload"], "value",
                                                                             "optimizer"))),
    (W.TrainingPlanner, lambda c: setattr(c.inputs["seq_len"], "value", "4096")),
    (W.TrainingPlanner, lambda c: setattr(c.inputs["params"], "value", "7B")),
    (W.LayoutExplorer, lambda c: setattr(c.inputs["gpus"], "value", 8)),
    (W.ServingPlanner, lambda c: setattr(c.inputs["batch"], "value", 4096)),
], ids=["moe", "inference", "no-zero", "cp-offload", "attention", "params-given", "none-fits", "big-batch"])
def test_a_calculator_in_chinese_after_a_change(cls, setting):
    with speaking("zh"):
        calc = cls()
        setting(calc)
        assert _english(_texts(calc.widget, _from_plans(calc))) == []


@pytest.mark.parametrize("cls, field, value, starts", [
    (W.ParamCalculator, "vocab_size", 0, "词表大小 V = 0"),
    (W.MemoryPlanner, "dp", 0, "数据并行 = 0"),
    (W.TrainingPlanner, "tokens", "lots", "训练 token 数 = "),
    (W.LayoutExplorer, "batch_tokens", "4.5", "每步 token 数 = 4.5，必须是整数个 token。"),
    (W.DataPlanner, "english", 0.9, "各占比之和为 120%"),
    (W.ServingPlanner, "batch", 0, "batch size = 0"),
])
def test_a_bad_entry_in_chinese_names_the_chinese_label_beside_its_field(cls, field, value, starts):
    with speaking("zh"):
        calc = cls()
        calc.inputs[field].value = value
        message = _plain(calc.errors[field].value).strip()
    assert message.startswith(starts), message
    calc = cls()
    calc.inputs[field].value = value
    english = _plain(calc.errors[field].value).strip()
    assert english and not CJK.search(english)


def test_a_quoted_field_in_chinese_is_named_by_its_chinese_label():
    with speaking("zh"):
        calc = W.ParamCalculator()
        calc.inputs["num_heads"].value = 7
        message = _plain(calc.errors["num_heads"].value)
    assert "'隐藏维度 H'" in message and "'注意力头数'" in message


def test_the_toggle_keeps_its_values_and_shows_chinese_labels():
    with speaking("zh"):
        planner = W.MemoryPlanner()
    assert planner.inputs["task"].options == (("训练", "training"), ("推理", "inference"), ("LoRA", "lora"),
                                              ("QLoRA", "qlora"), ("全参数微调", "full"), ("DPO", "dpo"),
                                              ("PPO", "ppo"), ("GRPO", "grpo"))
    planner.inputs["task"].value = "inference"
    assert planner.plan.task == "inference" and planner.rows["tokens"].layout.display == ""
    assert W.MemoryPlanner().inputs["task"].options == (("training", "training"), ("inference", "inference"),
                                                        ("LoRA", "lora"), ("QLoRA", "qlora"),
                                                        ("full fine-tuning", "full"), ("DPO", "dpo"), ("PPO", "ppo"),
                                                        ("GRPO", "grpo"))


def test_the_precision_recipe_keeps_its_values_and_shows_chinese_labels():
    with speaking("zh"):
        planner = W.MemoryPlanner()
        box = planner.inputs["precision"]
        assert box.description == "精度配方" and box.options[0] == ("无：沿用上面的精度", "")
        box.value = "fp8-te"
        assert planner.plan.settings["precision"] == "fp8-te"
        assert _english(_texts(planner.widget, _from_plans(planner))) == []
    assert [value for _label, value in box.options[1:]] == [label for label, _value in box.options[1:]] == [
        "bf16", "fp8-deepseek", "fp8-te", "mxfp8", "nvfp4"]
    assert W.MemoryPlanner().inputs["precision"].options[0] == ("none: the precision above", "")


def test_the_exercise_box_in_chinese():
    ex = EXERCISES["1.1"]
    with speaking("zh"):
        box = ex.widget()
        assert (box.check_button.description, box.hint_button.description) == ("判分", "提示")
        assert _plain(box.children[0].value).strip().startswith("练习 1.1。")
    assert ex.widget().check_button.description == "Check"


def test_the_flashcards_in_chinese_and_their_deck():
    with speaking("zh"):
        cards = flashcards.cards()
        deck = W.flashcard_deck()
        first = _texts(deck.widget)
        deck.reveal.click()
        while deck.index < len(deck.deck):
            deck.grade(deck.index % 2 == 0)
        done = _texts(deck.widget)
    assert len(cards) == len(flashcards.cards())
    assert _english([text for card in cards for text in (card.front, card.back)]) == []
    assert all(CJK.search(card.front) for card in cards)
    assert _english(first + done) == [] and "待复习：" in " ".join(done)
    assert [c.topic for c in cards] == [c.topic for c in flashcards.cards()]


def test_the_timed_session_in_chinese():
    """The session's own words: the intro, the header, the buttons, the clock and the score (the questions and
    the verdicts are the drills' and the grader's)."""
    with speaking("zh"):
        session = W.timed_session(n=3, seed=1, level="hard")
        intro = _texts(session.widget)
        header = session.header.value
        session.start()
        asked = [session.header.value, session.timer.value, session.submit.description]
        for _ in session.items:
            session.answer("1", timed_out=True)
            asked.append(session.next.description)
            session._advance()
        score = session.header.value
    assert _english(intro + [_plain(t) for t in asked]) == [] and _english([_plain(score)]) == []
    assert header.startswith("<b>限时练习：3 道题") and score.startswith("<b>得分：")


def test_the_progress_view_in_chinese(tmp_path):
    from llmest import progress

    store = progress.Store(tmp_path / "progress.sqlite3")
    with speaking("zh"):
        deck = W.flashcard_deck(store=store)
        deck.grade(True)
        deck.grade(False)
        view = W.progress_view(store)
        texts = _texts(view.widget)
    assert _english(texts) == [] and view.refresh_button.description == "刷新"


def _drawn(ax) -> list[str]:
    legend = ax.get_legend()
    return [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts),
            *(t.get_text() for t in (legend.get_texts() if legend else []))]


FIGURES = {
    "days_vs_gpus": lambda: plots.days_vs_gpus(4.2e22),
    "decode_speed": lambda: plots.decode_speed("llama-2-7b", ["A100 80GB", "H100 SXM"], batch=64),
    "mfu_by_year": lambda: plots.mfu_by_year(),
    "roofline": lambda: plots.roofline("llama-2-7b", "A100 80GB"),
    "isoflop_curves": lambda: plots.isoflop_curves(),
    "tokens_per_param": lambda: plots.tokens_per_param(),
    "fit_optima": lambda: plots.fit_optima()[1],
    "tokens_per_gb_spread": lambda: plots.tokens_per_gb_spread(),
    "layout_search": lambda: plots.layout_search(plans.search_layouts("llama-2-7b", 64, "A100 80GB", 4096, 2 ** 22)),
    "memory_by_zero_stage": lambda: plots.memory_by_zero_stage("llama-2-7b", dp=8),
    "parallel_layouts": lambda: plots.parallel_layouts("llama-2-7b", {"ZeRO-3": (3, 8, 1, 1)}),
    "bytes_per_param": lambda: plots.bytes_per_param()[0],
    "activations_vs_sequence": lambda: plots.activations_vs_sequence(preset("llama-2-7b")),
    "kv_cache_vs_tokens": lambda: plots.kv_cache_vs_tokens(["llama-2-7b", "deepseek-v3", "gemma-2-9b"]),
    "part_shares": lambda: plots.part_shares(["llama-2-7b", "mixtral-8x7b"]),
    "rule_error": lambda: plots.rule_error(["llama-2-7b"]),
    "size_table_curves": lambda: plots.size_table_curves([("7B", 32, 4096, (6e9, 8e9))]),
    "accuracy_by_topic": lambda: plots.accuracy_by_topic({}),
}


@pytest.mark.parametrize("name", FIGURES)
def test_a_figure_in_chinese_shows_no_english_prose(name):
    with speaking("zh"):
        texts = _drawn(FIGURES[name]())
    english = _drawn(FIGURES[name]())
    plt.close("all")
    assert _english(texts) == []
    assert texts != english


def test_published_mfu_in_chinese_says_its_own_words():
    """The legend quotes how each run's MFU is known (``llmest.catalog.runs``) as it is; the rest is Chinese."""
    from llmest import runs

    with speaking("zh"):
        texts = _drawn(plots.published_mfu())
    plt.close("all")
    bases = {run.basis for run in runs.mfu_range().runs}
    assert _english([t for t in texts if not any(basis in t for basis in bases)]) == []
    assert any(t.startswith("依据：") for t in texts)


def test_a_flashcard_keeps_its_progress_when_the_language_changes():
    from llmest.learn.flashcards import cards
    from llmest.learn.progress import flashcard_id

    english = cards()
    with speaking("zh"):
        chinese = cards()
    assert [flashcard_id(c) for c in chinese] == [flashcard_id(c) for c in english]
    assert all(c.front != e.front for c, e in zip(chinese, english) if not c.front.isascii())
    assert sum(c.front != e.front for c, e in zip(chinese, english)) > len(english) // 2


def test_the_chinese_calculators_page_shows_its_calculators_in_chinese():
    """``make app-zh`` serves llmest/surfaces/app/llmest-calculators-zh.ipynb: run as Voila runs it, each calculator it shows
    reads in Chinese."""
    import ast

    import nbformat

    from llmest.book.edition import CHINESE_APP

    namespace, shown = {}, []
    with speaking("en"):  # the page switches the library to Chinese; the block puts English back afterwards
        for cell in nbformat.read(CHINESE_APP, as_version=4).cells:
            if cell.cell_type == "code":
                tree = ast.parse(cell.source)
                last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
                exec(compile(tree, CHINESE_APP.name, "exec"), namespace)
                if last is not None:
                    shown.append(eval(compile(ast.Expression(last.value), CHINESE_APP.name, "eval"), namespace))
        calculators = [calc for calc in shown if isinstance(calc, CALCULATORS)]
        assert len(calculators) == 8 and {type(c) for c in calculators} <= set(CALCULATORS)
        for calc in calculators:
            assert _english(_texts(calc.widget, _from_plans(calc))) == [], type(calc).__name__
