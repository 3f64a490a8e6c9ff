"""The texts and tables of chapters 1 and 4 that the library now writes: the English with the chapters' figures, and
the same in Chinese with no English prose left."""

from __future__ import annotations

import pytest

from llmest import InputError, data_text, model, model_text, plans
from llmest.edition import english_prose
from llmest.i18n import speaking

SIZES = [("7B", 32, 4096, (6.5e9, 7.0e9), "llama-2-7b"), ("30B", 48, 6144, (28e9, 32e9), None)]
CARDS = {"deepseek-v3": ("embeddings",), "qwen3-30b-a3b": ()}


def corpus():
    return plans.estimate_corpus(gpus=64, days=30, peak_flops_per_s=200e12, mfu=0.5, mix={"chinese": 1.0})


TEXTS = {
    "versus_rule": lambda: model_text.versus_rule(model.count_params(model.preset("material-7b")).total,
                                                  model.rule_params(4096, 32, 32000)),
    "size_table": lambda: str(model_text.size_table(SIZES)),
    "rule_table": lambda: str(model_text.rule_table(["gpt2", "falcon-7b"])),
    "active_table": lambda: str(model_text.active_table(CARDS)),
    "closed_form_checks": lambda: data_text.closed_form_checks(True, True, True),
    "fits_table": lambda: str(data_text.fits_table()),
    "trained_text": lambda: data_text.trained_text("Chinchilla 70B", name="Chinchilla"),
    "rounding_text": lambda: data_text.rounding_text(),
    "optimal_instead_text": lambda: data_text.optimal_instead_text("Llama 3 8B"),
    "rates_text": lambda: data_text.rates_text(),
    "measured_text": lambda: data_text.measured_text(),
    "recap": lambda: str(data_text.recap()),
    "material_tokens_text": lambda: corpus().material_tokens_text(140e9),
}
ENGLISH = {
    "versus_rule": ["rule: 6,573,522,944;  exact minus rule: 532,480"],
    "size_table": ["6.50B - 7.00B", "6.57B", "llama-2-7b 6.74B", "21.9B", "real model"],
    "rule_table": ["124,439,808", "124M", "-0.7%", "+18.8%", "MQA", "tied", "rule error"],
    "active_table": ["671B", "37.6B", "36.6B", "embeddings", "nothing", "as its card counts"],
    "closed_form_checks": ["the root of dL/dN = 0 is the closed form: True", "spends exactly C: True"],
    "fits_table": ["32.2B", "2.98T", "92.6", "0.3392", "2085.43", "18.4"],
    "trained_text": ["Chinchilla was trained with 70.0B parameters on 1.40T tokens: 20 per parameter"],
    "rounding_text": ["N_opt 32.2B with the rounded constants, 40.3B unrounded"],
    "optimal_instead_text": ["budget 7.23e23: compute-optimal 81.2B on 1.48T tokens; inference per token 10.1× "
                             "Llama 3 8B's"],
    "rates_text": ["english  250M to 300M tokens per GB; the workbook uses 230M", "cleaning yield 20% to 30%"],
    "measured_text": ["1.51 MB in 251 files", "24% of its characters Chinese", "303M tokens per GB (sub-samples "
                      "251M to 338M)", "the workbook's rate: 260M, the tokenizers' median"],
    "recap": ["140B / 1.40T", "91.3B", "1,868", "230M / 260M / 250M"],
    "material_tokens_text": ["the material's 140B tokens instead: 19.7B parameters, 7.1 tokens per parameter"],
}


@pytest.mark.parametrize("name", TEXTS)
def test_the_english_carries_the_chapters_figures(name):
    text = TEXTS[name]()
    for part in ENGLISH[name]:
        assert part in text


@pytest.mark.parametrize("name", TEXTS)
def test_the_chinese_has_no_english_prose(name):
    with speaking("zh"):
        text = TEXTS[name]()
    assert not english_prose(text), english_prose(text)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_the_chinese_keeps_the_figures():
    with speaking("zh"):
        assert "532,480" in TEXTS["versus_rule"]()
        assert "7.1" in TEXTS["material_tokens_text"]()
        assert "10.1×" in TEXTS["optimal_instead_text"]()


@pytest.mark.parametrize("call, parameter", [
    (lambda: model_text.versus_rule(None, 1), "exact"),
    (lambda: model_text.size_table([("7B", 32)]), "rows"),
    (lambda: model_text.size_table(SIZES, vocab_size=0), "vocab_size"),
    (lambda: model_text.rule_table("gpt2"), "models"),
    (lambda: model_text.active_table({"deepseek-v3": ("head",)}), "parts"),
    (lambda: data_text.closed_form_checks(True, "yes", True), "optimal"),
    (lambda: data_text.fits_table(-1), "flops"),
    (lambda: data_text.trained_text("GPT-5"), "model"),
    (lambda: data_text.optimal_instead_text("Llama 3 8B", fit="kaplan"), "fit"),
    (lambda: corpus().material_tokens_text(0), "tokens"),
    (lambda: plans.estimate_corpus(7e9).material_tokens_text(140e9), "tokens"),
])
def test_bad_input_names_its_parameter(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == parameter


@pytest.mark.parametrize("name", ["gpt2", "mixtral-8x7b", "deepseek-v3"])
def test_a_parameter_count_reads_its_parts_in_chinese_and_lines_up(name):
    import re

    from llmest.i18n import display_width

    count = model.count_params(model.preset(name))
    english = str(count)
    assert english.splitlines()[0].startswith(next(iter(count.parts))), "the English names each part by its key"
    assert f"{count.total:,}" in english and "total" in english
    with speaking("zh"):
        chinese = str(count)
    assert not re.search(r"[a-z]{3,}", chinese.replace("token", "")), chinese
    figures = re.compile(r"\d[\d,]{4,}")
    assert [figures.findall(line) for line in chinese.splitlines()] == \
        [figures.findall(line) for line in english.splitlines()], "the same figures, line by line"
    # the counts are right-aligned: each ends in the same column, a Chinese character taking two
    assert len({display_width(line[:figures.search(line).end()]) for line in chinese.splitlines()}) == 1
