"""Chapter 4's findings (llmest.plans.findings.data): the English as the chapter shows it, with its figures, and the
Chinese with no English prose left (in the short labels, no English word but token). ``SAMPLES`` feeds
tests/test_findings.py."""

from __future__ import annotations


import pytest

from conftest import assert_keeps_the_figures, chinese_text

from llmest import InputError, plans
from llmest.core.i18n import speaking
from llmest.plans.findings import data as findings

SECTION_33 = [(7e9, 100e9), (13e9, 200e9), (70e9, 1.4e12)]


def corpus():
    return plans.estimate_corpus(gpus=64, days=30, peak_flops_per_s=200e12, mfu=0.5, mix={"chinese": 1.0})


def chinese_crawls():
    return [plans.estimate_corpus(7e9, tokens=140e9, mix={"chinese": 1.0}, cleaning_yield=share)
            for share in (0.2, 0.25, 0.3)]


SAMPLES = {
    "against_rule": lambda: findings.against_rule(SECTION_33),
    "closed_form_checks": [lambda: findings.closed_form_checks(True, True, True),
                           lambda: findings.closed_form_checks(True, False, True)],
    "fits_table": lambda: findings.fits_table(),
    "trained": lambda: findings.trained("Chinchilla 70B", name="Chinchilla"),
    "rounding": lambda: findings.rounding(),
    "trained_table": lambda: findings.trained_table(),
    "optimal_instead": lambda: findings.optimal_instead("Llama 3 8B"),
    "rates": lambda: findings.rates(),
    "measured": lambda: findings.measured(),
    "crawls": [lambda: findings.crawls(chinese_crawls()),
               lambda: findings.crawls([plans.estimate_corpus(7e9, mix={"english": 0.5, "code": 0.5})])],
    "tokenizers_crawl": lambda: findings.tokenizers_crawl(140e9, "chinese"),
    "material_tokens": lambda: findings.material_tokens(corpus(), 140e9),
    "recap": lambda: findings.recap(),
}
TEXTS = {name: SAMPLES[name] for name in ("closed_form_checks", "fits_table", "trained", "rounding",
                                          "optimal_instead", "rates", "measured", "recap", "material_tokens")}
TEXTS["closed_form_checks"] = SAMPLES["closed_form_checks"][0]
LABELS = {  # the short labels and lines: no English word left in Chinese
    "against_rule": SAMPLES["against_rule"],
    "trained_table": SAMPLES["trained_table"],
    "tokenizers_crawl": SAMPLES["tokenizers_crawl"],
    "crawls": SAMPLES["crawls"][0],
    "crawls of a mix": SAMPLES["crawls"][1],
}
TEXTS.update(LABELS)
ENGLISH = {
    "closed_form_checks": ["the root of dL/dN = 0 is the closed form: True", "spends exactly C: True"],
    "fits_table": ["32.2B", "2.98T", "92.6", "0.3392", "2085.43", "18.4"],
    "trained": ["Chinchilla was trained with 70.0B parameters on 1.40T tokens: 20 per parameter"],
    "rounding": ["N_opt 32.2B with the rounded constants, 40.3B unrounded"],
    "optimal_instead": ["budget 7.23e23: compute-optimal 81.2B on 1.48T tokens; inference per token 10.1× "
                        "Llama 3 8B's"],
    "rates": ["english  250M to 300M tokens per GB; the workbook uses 240M", "cleaning yield 20% to 30%"],
    "measured": ["1.51 MB in 242 files", "25% of its characters Chinese", "304M tokens per GB (sub-samples "
                 "251M to 334M)", "the workbook's rate: 260M, the tokenizers' median"],
    "recap": ["140B / 1.40T", "91.3B", "1,868", "240M / 260M / 250M"],
    "material_tokens": ["the material's 140B tokens instead: 19.7B parameters, 7.1 tokens per parameter"],
    "against_rule": ["7.00B: 100B tokens in §3.3, 71% of the rule's 140B",
                     "70.0B: 1.40T tokens in §3.3, 100% of the rule's 1.40T"],
    "trained_table": ["tokens per parameter", "1.7", "1,868", "15.0T"],
    "tokenizers_crawl": ["with cl100k_base   461 GB cleaned, 1.54 TB to 2.31 TB raw",
                         "with voyage3_base  553 GB cleaned, 1.84 TB to 2.77 TB raw"],
    "crawls": ["yield 20%: 140B tokens / 260M per GB = 538 GB cleaned, / 20% = 2.69 TB of raw crawl",
               "yield 30%: 140B tokens / 260M per GB = 538 GB cleaned, / 30% = 1.79 TB of raw crawl"],
    "crawls of a mix": ["yield 25%: ", " cleaned, / 25% = ", " of raw crawl"],
}


@pytest.mark.parametrize("name", TEXTS)
def test_the_english_carries_the_chapters_figures(name):
    text = str(TEXTS[name]())
    for part in ENGLISH[name]:
        assert part in text


def test_the_chapters_lines_as_it_shows_them():
    assert str(findings.against_rule(SECTION_33)).splitlines() == [
        "7.00B: 100B tokens in §3.3, 71% of the rule's 140B",
        "13.0B: 200B tokens in §3.3, 77% of the rule's 260B",
        "70.0B: 1.40T tokens in §3.3, 100% of the rule's 1.40T"]
    assert str(findings.closed_form_checks(True, True, True)).splitlines() == [
        "the root of dL/dN = 0 is the closed form: True",
        "the library's optimal() is the closed form: True",
        "6·N_opt·D_opt spends exactly C: True"]
    assert str(findings.crawls(chinese_crawls())).splitlines() == [
        "yield 20%: 140B tokens / 260M per GB = 538 GB cleaned, / 20% = 2.69 TB of raw crawl",
        "yield 25%: 140B tokens / 260M per GB = 538 GB cleaned, / 25% = 2.15 TB of raw crawl",
        "yield 30%: 140B tokens / 260M per GB = 538 GB cleaned, / 30% = 1.79 TB of raw crawl"]
    assert str(findings.tokenizers_crawl(140e9, "chinese")).splitlines() == [
        "with cl100k_base   461 GB cleaned, 1.54 TB to 2.31 TB raw",
        "with o200k_base    547 GB cleaned, 1.82 TB to 2.73 TB raw",
        "with voyage3_base  553 GB cleaned, 1.84 TB to 2.77 TB raw"]
    assert str(findings.rates()).splitlines() == [
        "english  250M to 300M tokens per GB; the workbook uses 240M",
        "chinese  300M to 400M tokens per GB; the workbook uses 260M",
        "code     200M to 300M tokens per GB; the workbook uses 250M",
        "cleaning yield 20% to 30%"]
    assert str(findings.recap()).splitlines()[2:] == [
        "tokens for a 7B / a 70B                            140B / 1.40T",
        "compute-optimal N for 10²⁴ FLOPs (20× rule)               91.3B",
        "Llama 3 8B, tokens per parameter                          1,868",
        "tokens per GB: English / Chinese / code      240M / 260M / 250M"]


def test_the_figures():
    assert findings.closed_form_checks(True, False, True).figures == {"root": True, "optimal": False, "spends": True}
    assert [row["rule"] for row in findings.against_rule(SECTION_33)["rows"]] == [140e9, 260e9, 1.4e12]
    crawls = findings.crawls(chinese_crawls())["crawls"]
    assert [row["cleaning_yield"] for row in crawls] == [0.2, 0.25, 0.3]
    assert crawls[0]["raw_bytes"] == pytest.approx(140e9 / 260e6 * 1e9 / 0.2)
    found = findings.material_tokens(corpus(), 140e9)
    assert (round(found["params"] / 1e9, 1), round(found["tokens_per_param"], 1)) == (19.7, 7.1)


@pytest.mark.parametrize("name", TEXTS)
def test_the_chinese_has_no_english_prose(name):
    chinese_text(TEXTS[name])


def test_the_chinese_keeps_the_figures():
    with speaking("zh"):
        assert "7.1" in str(TEXTS["material_tokens"]())
        assert "10.1 倍" in str(TEXTS["optimal_instead"]())
        assert "True" not in str(TEXTS["closed_form_checks"]())


@pytest.mark.parametrize("name", LABELS)
def test_the_chinese_has_no_english_words_and_the_same_figures(name):
    assert_keeps_the_figures(str(TEXTS[name]()), chinese_text(TEXTS[name]))


@pytest.mark.parametrize("call, parameter", [
    (lambda: findings.closed_form_checks(True, "yes", True), "optimal"),
    (lambda: findings.fits_table(-1), "flops"),
    (lambda: findings.rounding(0), "flops"),
    (lambda: findings.trained("GPT-5"), "model"),
    (lambda: findings.trained("Chinchilla 70B", name=70), "name"),
    (lambda: findings.optimal_instead("Llama 3 8B", fit="kaplan"), "fit"),
    (lambda: findings.material_tokens(corpus(), 0), "tokens"),
    (lambda: findings.material_tokens(plans.estimate_corpus(7e9), 140e9), "estimate"),
    (lambda: findings.against_rule([(7e9,)]), "rows"),
    (lambda: findings.against_rule([(7e9, 0)]), "rows"),
    (lambda: findings.against_rule(SECTION_33, section=3.3), "section"),
    (lambda: findings.tokenizers_crawl(0), "tokens"),
    (lambda: findings.tokenizers_crawl(140e9, "klingon"), "kind"),
    (lambda: findings.tokenizers_crawl(140e9, cleaning_yield=0.25), "cleaning_yield"),
    (lambda: findings.crawls(plans.estimate_corpus(7e9)), "estimates"),
    (lambda: findings.crawls([]), "estimates"),
])
def test_bad_input_names_its_parameter(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == parameter
