"""The memory chapter's printed lines moved into llmest.book.printed.memory_text and the plans' breakdown: the English as the
chapter printed it, with its figures, and the same lines in Chinese under ``speaking("zh")``, with no English prose."""

import pytest

from llmest import InputError, plans
from llmest import memory_text as mt
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking

_PLAN = dict(zero=3, dp=8, micro_batch=1, seq_len=4096, recompute="full")

TEXTS = {
    "states": (lambda: mt.states_line(7e9), "7.00B parameters: states   112 GB, BF16 weights  14.0 GB"),
    "factors": (mt.activation_factors_text, "full recomputation           2  × sbh"),
    "fits": (lambda: str(plans.compare_memory("llama-2-7b", [dict(micro_batch=1)], zero=3, dp=8, seq_len=4096,
                                              recompute="full")),
             "micro-batch 1  1.68 GB  3.37 GB    1.68 GB    6.74 GB  1.36 GB      2.50 GB    500 MB        17.8 GB  yes"),
    "kv": (lambda: mt.kv_per_token_line("llama-2-70b"),
           "llama-2-70b  GQA   8 KV heads × 128:    320 KiB per token,  21.5 GB for 32 × 2,048 tokens"),
    "zero": (lambda: str(plans.compare_memory("llama-2-70b", [dict(zero=zero) for zero in range(4)], dp=8, tp=8,
                                              micro_batch=1, seq_len=4096, recompute="full", sequence_parallel=True)),
             "ZeRO-3   2.16 GB  4.31 GB    2.16 GB    8.62 GB  1.17 GB       974 MB    500 MB        19.9 GB  yes"),
    "layout": (lambda: str(plans.compare_memory("mixtral-8x7b", [dict(dp=8), dict(dp=8, ep=8), dict(dp=8, ep=8, cp=2)],
                                                zero=1, seq_len=8192, recompute="full")),
               "dp=8, ep=8, cp=2  14.5 GB  11.7 GB    14.5 GB    23.4 GB  1.00 GB      2.55 GB    500 MB        68.1 GB    "
               "16  yes"),
    "bubble": (lambda: mt.bubble_line(8, 4), "p = 8, m =  4: idle 64%"),
    "mla": (mt.mla_cache_text, "4,997,120 bytes a token against 70,272: 71x"),
    "lora": (mt.lora_shapes_text, "32.8M adapter parameters"),
    "gpu": (lambda: mt.gpu_memory_line("A100 80GB"),
            "A100 80GB  label 80.0 GB   exposes 80.0 GiB = 85.9 GB     usable with 20% free: 68.7 GB"),
    "key numbers": (mt.key_numbers_text, "QLoRA of Llama-2-70B, rank 64, all projections 54.0 GB"),
    "breakdown": (lambda: str(plans.training_memory("llama-2-7b", zero=3, dp=8, offload="optimizer")),
                  "CPU total       13.5 GB  per GPU's process"),
}


@pytest.mark.parametrize("name", TEXTS)
def test_the_english_reads_as_the_chapter_printed_it(name):
    text, line = TEXTS[name]
    assert line in text()


@pytest.mark.parametrize("name", TEXTS)
def test_the_chinese_has_no_english_prose(name):
    text, _line = TEXTS[name]
    with speaking("zh"):
        shown = text()
    assert not english_prose(shown), shown
    assert "GB" in shown or "sbh" in shown or "%" in shown or "," in shown


def test_the_chinese_names_the_parts():
    with speaking("zh"):
        shown = str(plans.qlora_memory("llama-2-70b"))
    assert "适配器" in shown and "合计" in shown and "54.0 GB" in shown


def test_bad_input_names_the_parameter():
    with pytest.raises(InputError, match="variants"):
        plans.compare_memory("llama-2-7b", "zero")
    with pytest.raises(InputError, match="model"):
        mt.mla_cache_text("llama-2-7b")


def test_the_fewest_serving_gpus_read_as_the_chapter_printed_them_and_in_chinese():
    english = mt.serving_gpus_text("llama-2-70b", formats=("bf16",), devices=("H200", "MI300X"), seq_len=4096,
                                   batch=16)
    # 70B in BF16 is 140 GB of weights alone: more than one H200's usable memory, within one MI300X's
    assert english.splitlines() == ["bf16  on H200      : 2 GPU(s)", "bf16  on MI300X    : 1 GPU(s)"]
    with speaking("zh"):
        chinese = mt.serving_gpus_text("llama-2-70b", formats=("bf16",), devices=("H200", "MI300X"), seq_len=4096,
                                       batch=16)
    assert chinese.splitlines() == ["bf16  · H200      ：2 张卡", "bf16  · MI300X    ：1 张卡"]
