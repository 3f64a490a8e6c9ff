"""The texts, labels and tables of chapters 1 and 4 that the library writes: the English with the chapters' figures,
and the same in Chinese with no English prose left (in the labels, no English word but token)."""

from __future__ import annotations

import re

import pytest

from llmest import InputError, data_text, model, model_text, plans
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking

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
SECTION_33 = [(7e9, 100e9), (13e9, 200e9), (70e9, 1.4e12)]
LABELS = {  # the short labels and lines: no English word left in Chinese
    "rule_parts_text": lambda: model_text.rule_parts_text(4096, 32, 32000),
    "departures_table": lambda: str(model_text.departures_table(["gpt2", "llama-2-70b"])),
    "grouped_query_text": lambda: model_text.grouped_query_text("llama-2-70b"),
    "active_share_text": lambda: model_text.active_share_text("mixtral-8x7b"),
    "latent_attention_text": lambda: model_text.latent_attention_text("deepseek-v3"),
    "moe_layer_text": lambda: model_text.moe_layer_text("deepseek-v3", name="DeepSeek-V3"),
    "remember_text": lambda: model_text.remember_text(),
    "against_rule_text": lambda: data_text.against_rule_text(SECTION_33),
    "trained_table": lambda: str(data_text.trained_table()),
    "tokenizers_crawl_text": lambda: data_text.tokenizers_crawl_text(140e9, "chinese"),
}
TEXTS.update(LABELS)
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
    "rates_text": ["english  250M to 300M tokens per GB; the workbook uses 240M", "cleaning yield 20% to 30%"],
    "measured_text": ["1.51 MB in 242 files", "25% of its characters Chinese", "304M tokens per GB (sub-samples "
                      "251M to 334M)", "the workbook's rate: 260M, the tokenizers' median"],
    "recap": ["140B / 1.40T", "91.3B", "1,868", "240M / 260M / 250M"],
    "material_tokens_text": ["the material's 140B tokens instead: 19.7B parameters, 7.1 tokens per parameter"],
    "rule_parts_text": ["one layer, 12·H²       201,326,592  (201M)", "32 layers            6,442,450,944  (6.44B)",
                        "total                6,573,522,944  (6.57B)"],
    "departures_table": ["embed+head share (%)", "31.0", "2.25", "10.50"],
    "grouped_query_text": ["attention: 4.00·H² with MHA, 2.25·H² with 8 KV heads",
                           "FFN:       10.50·H² (SwiGLU, F = 28672) instead of 8·H²"],
    "active_share_text": ["active / total = 27.6%"],
    "latent_attention_text": ["MLA 187,105,280 a layer; Q, K, V and O for 128 heads: 587,202,560 (3.1x)"],
    "moe_layer_text": ["one MoE layer of DeepSeek-V3, norms aside: 11.5B"],
    "remember_text": ["the rule's 7B (H 4096, L 32)     6.57B", "Mixtral-8x7B active              12.9B"],
    "against_rule_text": ["7.00B: 100B tokens in §3.3, 71% of the rule's 140B",
                          "70.0B: 1.40T tokens in §3.3, 100% of the rule's 1.40T"],
    "trained_table": ["tokens per parameter", "1.7", "1,868", "15.0T"],
    "tokenizers_crawl_text": ["with cl100k_base   461 GB cleaned, 1.54 TB to 2.31 TB raw",
                              "with voyage3_base  553 GB cleaned, 1.84 TB to 2.77 TB raw"],
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


@pytest.mark.parametrize("name", LABELS)
def test_the_chinese_has_no_english_words_and_the_same_figures(name):
    english = TEXTS[name]()
    with speaking("zh"):
        text = TEXTS[name]()
    assert not english_prose(text), english_prose(text)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text)
    # no lower-case English word but the kept token(s)
    words = re.findall(r"(?<![\w.\-/:`'])[a-z]{3,}(?![\w.\-/:`'(])", text)
    assert set(words) <= {"token", "tokens"}, words
    figures = re.compile(r"\d+(?:[,.]\d+)*")
    assert set(figures.findall(english)) <= set(figures.findall(text))


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
    (lambda: model_text.rule_parts_text(4096, 32.5, 32000), "layers"),
    (lambda: model_text.departures_table("gpt2"), "models"),
    (lambda: model_text.grouped_query_text("gpt2"), "model"),
    (lambda: model_text.latent_attention_text("llama-2-7b"), "model"),
    (lambda: model_text.moe_layer_text("llama-2-7b"), "model"),
    (lambda: model_text.moe_layer_text("deepseek-v3", name=3), "name"),
    (lambda: data_text.against_rule_text([(7e9,)]), "rows"),
    (lambda: data_text.against_rule_text(SECTION_33, section=3.3), "section"),
    (lambda: data_text.tokenizers_crawl_text(0), "tokens"),
    (lambda: data_text.tokenizers_crawl_text(140e9, cleaning_yield=0.25), "cleaning_yield"),
])
def test_bad_input_names_its_parameter(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == parameter


@pytest.mark.parametrize("name", ["gpt2", "mixtral-8x7b", "deepseek-v3"])
def test_a_parameter_count_reads_its_parts_in_chinese_and_lines_up(name):
    from llmest.core.i18n import display_width

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
