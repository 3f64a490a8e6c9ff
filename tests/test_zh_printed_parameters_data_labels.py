"""Chapters 1 and 4's remaining labels that the library now writes: the English with the chapters' figures, and the
same in Chinese with no English prose left."""

from __future__ import annotations

import re

import pytest

from llmest import InputError, data_text, model_text
from llmest.edition import english_prose
from llmest.i18n import speaking

SECTION_33 = [(7e9, 100e9), (13e9, 200e9), (70e9, 1.4e12)]

TEXTS = {
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
ENGLISH = {
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
    "tokenizers_crawl_text": ["with cl100k_base   463 GB cleaned, 1.54 TB to 2.31 TB raw",
                              "with voyage3_base  554 GB cleaned, 1.85 TB to 2.77 TB raw"],
}


@pytest.mark.parametrize("name", TEXTS)
def test_the_english_carries_the_chapters_figures(name):
    text = TEXTS[name]()
    for part in ENGLISH[name]:
        assert part in text


@pytest.mark.parametrize("name", TEXTS)
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
