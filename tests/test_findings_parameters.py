"""Chapter 1's findings (llmest.plans.findings.parameters): the English as the chapter shows it, with its figures,
and the Chinese with no English prose left (in the short labels, no English word but token). ``SAMPLES`` feeds
tests/test_findings.py."""

from __future__ import annotations

import re

import pytest

from conftest import assert_keeps_the_figures, chinese_text

from llmest import InputError, model
from llmest.core.i18n import display_width, speaking
from llmest.plans.findings import parameters as findings

SIZES = [("7B", 32, 4096, (6.5e9, 7.0e9), "llama-2-7b"), ("30B", 48, 6144, (28e9, 32e9), None)]
CARDS = {"deepseek-v3": ("embeddings",), "qwen3-30b-a3b": ()}

SAMPLES = {
    "mtp_module": lambda: findings.mtp_module("deepseek-v3"),
    "rule_parts": lambda: findings.rule_parts(4096, 32, 32000),
    "versus_rule": lambda: findings.versus_rule(model.count_params(model.preset("material-7b")).total,
                                                model.rule_params(4096, 32, 32000)),
    "size_table": lambda: findings.size_table(SIZES),
    "rule_table": lambda: findings.rule_table(["gpt2", "falcon-7b"]),
    "departures_table": lambda: findings.departures_table(["gpt2", "llama-2-70b"]),
    "grouped_query": lambda: findings.grouped_query("llama-2-70b"),
    "active_share": lambda: findings.active_share("mixtral-8x7b"),
    "latent_attention": [lambda: findings.latent_attention("deepseek-v3"),
                         lambda: findings.latent_attention(model.preset("deepseek-v3"))],
    "moe_layer": lambda: findings.moe_layer("deepseek-v3", name="DeepSeek-V3"),
    "active_table": lambda: findings.active_table(CARDS),
    "remember": lambda: findings.remember(),
}
TEXTS = {
    "versus_rule": SAMPLES["versus_rule"],
    "size_table": SAMPLES["size_table"],
    "rule_table": SAMPLES["rule_table"],
    "active_table": SAMPLES["active_table"],
}
LABELS = {  # the short labels and lines: no English word left in Chinese
    "rule_parts": SAMPLES["rule_parts"],
    "departures_table": SAMPLES["departures_table"],
    "grouped_query": SAMPLES["grouped_query"],
    "active_share": SAMPLES["active_share"],
    "latent_attention": SAMPLES["latent_attention"][0],
    "moe_layer": SAMPLES["moe_layer"],
    "remember": SAMPLES["remember"],
}
TEXTS.update(LABELS)
ENGLISH = {
    "versus_rule": ["rule: 6,573,522,944;  exact minus rule: 532,480"],
    "size_table": ["6.50B - 7.00B", "6.57B", "llama-2-7b 6.74B", "21.9B", "real model"],
    "rule_table": ["124,439,808", "124M", "-0.7%", "+18.8%", "MQA", "tied", "rule error"],
    "active_table": ["671B", "37.6B", "36.6B", "embeddings", "nothing", "as its card counts"],
    "rule_parts": ["one layer, 12·H²       201,326,592  (201M)", "32 layers            6,442,450,944  (6.44B)",
                   "total                6,573,522,944  (6.57B)"],
    "departures_table": ["embed+head share (%)", "31.0", "2.25", "10.50"],
    "grouped_query": ["attention: 4.00·H² with MHA, 2.25·H² with 8 KV heads",
                      "FFN:       10.50·H² (SwiGLU, F = 28672) instead of 8·H²"],
    "active_share": ["active / total = 27.6%"],
    "latent_attention": ["MLA 187,105,280 a layer; Q, K, V and O for 128 heads: 587,202,560 (3.1x)"],
    "moe_layer": ["one MoE layer of DeepSeek-V3, norms aside: 11.5B"],
    "remember": ["the rule's 7B (H 4096, L 32)     6.57B", "Mixtral-8x7B active              12.9B"],
}


@pytest.mark.parametrize("name", TEXTS)
def test_the_english_carries_the_chapters_figures(name):
    text = str(TEXTS[name]())
    for part in ENGLISH[name]:
        assert part in text


def test_the_chapters_lines_as_it_shows_them():
    assert str(findings.rule_parts(4096, 32, 32000)).splitlines() == [
        "one layer, 12·H²       201,326,592  (201M)",
        "32 layers            6,442,450,944  (6.44B)",
        "embedding V·H          131,072,000  (131M)",
        "total                6,573,522,944  (6.57B)"]
    assert str(findings.remember()).splitlines() == [
        "12·H² at H = 4096                 201M",
        "the rule's 7B (H 4096, L 32)     6.57B",
        "Llama-2-7B exact                 6.74B",
        "Llama-2-70B exact                69.0B",
        "Mixtral-8x7B total               46.7B",
        "Mixtral-8x7B active              12.9B"]
    assert str(findings.size_table([("70B", 80, 8192, (66e9, 71e9), "llama-2-70b")])).splitlines()[2] == \
        "70B  80  8192  66.0B - 71.0B  64.7B  llama-2-70b 69.0B"


def test_the_figures_are_the_counts():
    parts = findings.rule_parts(4096, 32, 32000)
    assert (parts["per_layer"], parts["all_layers"], parts["embedding"], parts["total"]) == \
        (201_326_592, 6_442_450_944, 131_072_000, 6_573_522_944)
    assert findings.versus_rule(6_574_055_424, 6_573_522_944)["gap"] == 532_480
    cards = findings.active_table(CARDS)["models"]
    assert [row["left_out"] for row in cards] == [["embeddings"], []]
    assert findings.latent_attention(model.preset("deepseek-v3"))["model"] == "deepseek-v3"


@pytest.mark.parametrize("name", TEXTS)
def test_the_chinese_has_no_english_prose(name):
    chinese_text(TEXTS[name])


def test_the_chinese_keeps_the_figures():
    with speaking("zh"):
        assert "532,480" in str(TEXTS["versus_rule"]())
        assert str(findings.active_share("mixtral-8x7b")) == "激活 / 合计 = 27.6%"


@pytest.mark.parametrize("name", LABELS)
def test_the_chinese_has_no_english_words_and_the_same_figures(name):
    assert_keeps_the_figures(str(TEXTS[name]()), chinese_text(TEXTS[name]))


@pytest.mark.parametrize("call, parameter", [
    (lambda: findings.versus_rule(None, 1), "exact"),
    (lambda: findings.versus_rule(1, 0), "rule"),
    (lambda: findings.size_table([("7B", 32)]), "rows"),
    (lambda: findings.size_table("7B"), "rows"),
    (lambda: findings.size_table(SIZES, vocab_size=0), "vocab_size"),
    (lambda: findings.rule_table("gpt2"), "models"),
    (lambda: findings.active_table({"deepseek-v3": ("head",)}), "models"),  # "models['deepseek-v3']: part == ..."
    (lambda: findings.active_table({"no-such-model": ()}), "models"),
    (lambda: findings.rule_table(["llama-2-7b", "no-such-model"]), "models"),
    (lambda: findings.active_table([]), "models"),
    (lambda: findings.rule_parts(4096, 32.5, 32000), "layers"),
    (lambda: findings.rule_parts(0, 32, 32000), "hidden"),
    (lambda: findings.departures_table("gpt2"), "models"),
    (lambda: findings.grouped_query("gpt2"), "model"),
    (lambda: findings.latent_attention("llama-2-7b"), "model"),
    (lambda: findings.moe_layer("llama-2-7b"), "model"),
    (lambda: findings.moe_layer("deepseek-v3", name=3), "name"),
    (lambda: findings.active_share("no-such-model"), "model"),
])
def test_bad_input_names_its_parameter(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == parameter


@pytest.mark.parametrize("name", ["gpt2", "mixtral-8x7b", "deepseek-v3"])
def test_a_parameter_count_reads_its_parts_in_chinese_and_lines_up(name):
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


def test_deepseek_v3s_mtp_module_and_its_checkpoint():
    """The module's projection 2H·H and three norms of H (H 7,168), the rest its layer (the weights note's "11.5B
    unique parameters"); the checkpoint's own embedding and head (129,280 × 7,168 each); the card's 671B + 14B."""
    f = findings.mtp_module("deepseek-v3").figures
    assert f["projection"] == 2 * 7168 * 7168 + 3 * 7168
    assert round(f["layer"] / 1e8) == 115 and f["copies"] == 2 * 129280 * 7168
    assert f["checkpoint"] == f["total"] + f["mtp"] + f["copies"] and round(f["total"] / 1e9) == 671
    assert 684e9 < f["checkpoint"] < 685e9   # the card's 685B also counts the FP8 scales stored beside the weights
    with pytest.raises(InputError, match="num_nextn_predict_layers"):
        findings.mtp_module("llama-2-7b")
