"""The memory chapter's printed texts (llmest.book.printed.memory_text): the English as the chapter printed it, with its figures,
and the same texts in Chinese under ``speaking("zh")``, with no English prose left."""

import pytest

from llmest import InputError, plans
from llmest import memory_text as mt
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking


def _plan(zero=2, **settings):
    return plans.plan_memory("training", "llama-2-7b", zero=zero, seq_len=4096, **settings)


TEXTS = {
    "activations": lambda: str(mt.activations_table("llama-2-7b", micro_batch=8, seq_len=4096)),
    "selective": mt.selective_recompute_text,
    "states": lambda: mt.state_gpus_text(70e9, 16, "A100 80GB"),
    "least": lambda: mt.least_gpus_text(plans.plan_memory("training", "llama-2-70b", zero=3, seq_len=4096,
                                                         recompute="full")),
    "least, none fits": lambda: mt.least_gpus_text(_plan(zero=0, recompute="none")),
    "traffic": lambda: mt.data_parallel_traffic_text(7e9, 2),
    "buffers": lambda: str(plans.compare_memory("llama-2-7b", [dict(zero=zero) for zero in range(4)], dp=8,
                                                seq_len=4096, recompute="full")),
    "defaults": mt.zero_defaults_text,
    "largest module": lambda: mt.largest_module_text("llama-2-7b"),
    "bucket": lambda: mt.zero1_bucket_text("gpt2", dp=2),
    "offload": lambda: str(plans.compare_memory("llama-2-7b", [dict(offload=offload) for offload in
                                                                ("none", "optimizer", "optimizer+params")],
                                                zero=3, dp=8, seq_len=4096, recompute="full")),
    "kv cache": lambda: str(mt.kv_cache_table()),
    "overhead": mt.runtime_overhead_text,
    "correction": mt.shared_activations_text,
    "correction, none holds": lambda: mt.shared_activations_text(zero=0),
    "planner": lambda: mt.planner_text(_plan(recompute="full")),
    "planner, none fits": lambda: mt.planner_text(_plan(zero=0, recompute="none")),
}


def test_the_english_reads_as_the_chapter_printed_it():
    table = str(mt.activations_table("llama-2-7b"))
    assert "no recomputation" in table and "476 GB" in table and "20.0 GB" in table and "5.27 GB" in table
    assert table.endswith("no recomputation / full recomputation: 24×")
    assert mt.selective_recompute_text().splitlines()[0] == \
        "GPT-3 175B: 70% of activation memory saved for 2.7% more FLOPs"
    assert TEXTS["states"]() == "the states alone, nothing kept free: 14 GPUs; with 20% free: 17 GPUs"
    assert TEXTS["least"]() == "with the activations of micro-batch 1 × 4,096 tokens: 19 GPUs"
    assert TEXTS["traffic"]().splitlines() == ["ZeRO-0:  28.0 GB per GPU per step", "ZeRO-1:  28.0 GB per GPU per step",
                                               "ZeRO-2:  28.0 GB per GPU per step", "ZeRO-3:  42.0 GB per GPU per step",
                                               "ZeRO-3 / plain data parallel: 1.50"]
    assert TEXTS["buffers"]().splitlines()[-1] == ("ZeRO-3   1.68 GB  3.37 GB    1.68 GB    6.74 GB  1.36 GB      "
                                                   "2.50 GB    500 MB        17.8 GB  yes")
    assert TEXTS["bucket"]() == ("gpt2 on 2 GPUs: ZeRO-1 saves 747 MB of states and allocates a 1.00 GB bucket: "
                                 "3.80 GB per GPU against 3.55 GB without ZeRO")
    assert TEXTS["offload"]().splitlines()[-2] == ("offload=optimizer         1.68 GB      0 B        0 B        0 B  "
                                                   "1.36 GB      2.50 GB    500 MB        6.04 GB                13.5 GB "
                                                   "            108 GB  yes")
    assert mt.kv_cache_table().column("windowed layers") == ("none", "none", "18 of 36")
    assert mt.kv_cache_table().column("131,072 tokens") == ("42.9 GB", "9.21 GB", "4.84 GB")
    assert TEXTS["overhead"]() == ("runtime overhead per GPU: 500 MB to 2.00 GB; then keep 20% free for temporaries "
                                   "and fragmentation")
    assert TEXTS["correction"]() == ("the correction: 7e9 parameters, 50 GB of activations shared out over the GPUs: "
                                     "3 A100s")
    assert TEXTS["planner"]() == ("the planner, full recomputation, FlashAttention: llama-2-7b (6.74B parameters), "
                                  "2.50 GB of activations per GPU for 1 × 4,096 tokens: 2 A100s")
    assert TEXTS["planner, none fits"]().endswith("more of them do not help")


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_each_text_reads_in_chinese(name):
    english = TEXTS[name]()
    with speaking("zh"):
        chinese = TEXTS[name]()
    assert chinese != english
    assert english_prose(chinese) == [], chinese
    assert TEXTS[name]() == english   # the English is back outside the block


def test_chinese_counts_and_figures():
    with speaking("zh"):
        assert TEXTS["states"]() == "只放训练状态、不留余量：14 张卡；留 20% 余量：17 张卡"
        assert TEXTS["correction"]().endswith("3 张 A100")
        assert "36 层中的 18 层" in TEXTS["kv cache"]()


def test_bad_input_names_the_parameter():
    with pytest.raises(InputError) as err:
        mt.least_gpus_text(plans.plan_memory("inference", "llama-2-7b"))
    assert err.value.param == "plan"
    with pytest.raises(InputError) as err:
        mt.kv_cache_table(("llama-2-7b", "no-such-model"))
    assert err.value.param == "models"
