"""Chapter 3's labels and lines that the library now writes (attention beside 6N, a run's time and cost, the
training estimate, the figures to remember, the material's recomputations): the English with the chapter's figures,
and in Chinese with no English word left but names, code and units."""

from __future__ import annotations

import re

import pytest

from llmest import InputError, compute_text, material, plans
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking


def _texts() -> dict:
    est = plans.estimate_training("llama-2-7b", 1e11, 64, gpu="A100 80GB", mfu=0.5, peak_flops_per_s=200e12)
    return {
        "attention": compute_text.attention_flops_text(["llama-3.1-70b", "deepseek-v3", "gpt-oss-120b"], 32768),
        "cost": compute_text.training_cost_text(7e9, 1e12, 256, "A100 80GB", mfu=0.4, price_low=2, price_high=3),
        # the memory table's part names are MemoryBreakdown's, not this text's
        "training": "\n".join(str(est).splitlines()[::len(str(est).splitlines()) - 1]),
        "remember": compute_text.remember_text(),
        "how": material.boxes(["000-2-a100", "004-3.1-petaflop", "004-4.3-params", "004-3.1-attention"]),
        "serving how": material.get("000-4.3-serving").box(),
    }


def test_the_english_keeps_the_chapters_figures():
    t = _texts()
    assert t["attention"].splitlines()[0] == "llama-3.1-70b  6N  4.17e11   attention  2.58e11   (38% of all)"
    assert "(69% of all)" in t["attention"] and "(49% of all)" in t["attention"]
    assert t["cost"].splitlines() == [
        "FLOPs 4.2e22; GPU-seconds 336,538,462; GPU-hours 93,483",
        "one A100: 3,895 days = 10.7 years; 256 A100s: 15.2 days; at $2-3 an hour: $186,966 to $280,449"]
    assert t["training"].splitlines() == ["3.96e21 FLOPs, 7.2 days (8.2-9.0 with margin), 11,012 GPU-hours",
                                          "fits in 68.7 GB usable: True"]
    assert t["remember"].splitlines() == [
        "7B on 1T tokens                        4.2e22 FLOPs",
        "… on A100s at 40% MFU                  93,483 GPU-hours",
        "A100 / H100 SXM dense BF16             312 / 989 TFLOPS",
        "published MFU (21 runs, 6·N only)      13% to 51%, median 35%"]
    assert "hardware.gpu('A100 80GB').bf16_flops_per_s (dense)" in t["how"]
    assert "estimate_time(4.2e22, 1 machine, 1e15 FLOP/s, MFU 1).seconds" in t["how"]
    assert "affordable_params(budget, 140e9)" in t["how"]


def test_the_chinese_keeps_the_figures_and_no_english_words():
    with speaking("zh"):
        t = _texts()
    assert "（占全部的 38%）" in t["attention"] and "卡时 93,483" in t["cost"] and "$186,966 到 $280,449" in t["cost"]
    assert "11,012 卡时" in t["training"] and "放得下：是" in t["training"]
    assert "93,483 卡时" in t["remember"] and "13%～51%，中位数 35%" in t["remember"]
    assert "（稠密）" in t["how"] and "1 台机器" in t["how"] and "affordable_params(预算, 140e9)" in t["how"]
    for name, text in t.items():
        assert not english_prose(text), (name, english_prose(text))
    # no lowercase English word of three letters or more outside code (a call, an identifier) and quoted names
    for name in ("attention", "cost", "training", "remember"):
        words = re.findall(r"(?<![\w.\-/:`'])[a-z]{3,}(?![\w.\-/:`'(])", t[name])
        assert set(words) <= {"tokens", "token"}, (name, words)


def test_bad_input_is_refused_by_name():
    with pytest.raises(InputError) as err:
        compute_text.attention_flops_text("llama-2-7b", 4096)
    assert err.value.param == "models"
    with pytest.raises(InputError) as err:
        compute_text.training_cost_text(7e9, 1e12, 256, price_low=-1)
    assert err.value.param == "price_low"
