"""Chapters 2 and 3's findings on training precision (llmest.plans.findings.precision): the recipes side by side and
NVIDIA's published FP8 speedups beside the model's, in English with their figures and in Chinese with no English
prose. ``SAMPLES`` feeds tests/test_findings.py; tests/test_precision.py holds the figures to their sources."""

from __future__ import annotations

import functools

from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.plans.findings import precision as findings


@functools.lru_cache(maxsize=None)
def _speedups():
    return findings.fp8_speedups()


@functools.lru_cache(maxsize=None)
def _blackwell():
    return findings.blackwell_speedups()


SAMPLES = {
    "precision_recipes": [lambda: findings.precision_recipes("H100 SXM"), lambda: findings.precision_recipes("B200")],
    "fp8_speedups": [_speedups],
    "blackwell_speedups": [_blackwell],
}


def test_the_recipes_read_with_their_bytes_and_peaks():
    text = str(findings.precision_recipes("H100 SXM"))
    assert "fp8-deepseek" in text and "1,979" in text and "(assumed)" in text
    with speaking("zh"):
        chinese = str(findings.precision_recipes("H100 SXM"))
    assert "配方" in chinese and english_prose(chinese) == []


def test_the_speedups_say_both_mfu_conventions():
    text = str(_speedups())
    assert "1.40×" in text and "held out of the fit" in text and "FP8 MFU (BF16 peak)" in text
    with speaking("zh"):
        chinese = str(findings.fp8_speedups())
    assert "相对 BF16 峰值" in chinese and english_prose(chinese) == []


def test_the_blackwell_pairs_read_in_both_languages():
    text = str(_blackwell())
    assert "mxfp8 → nvfp4" in text and "fitted to it" in text and "GB300" in text
    with speaking("zh"):
        chinese = str(findings.blackwell_speedups())
    assert "Blackwell" in chinese and english_prose(chinese) == []
