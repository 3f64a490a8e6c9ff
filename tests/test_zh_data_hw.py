"""The GPU catalog's notes and sources and the published runs' bases read in Chinese where shown, and stay English
outside a Chinese block."""

from llmest import hardware, material, runs
from llmest.book.edition import english_prose
from llmest.core.i18n import _, speaking


def test_memory_source_shown_is_the_english_outside_chinese():
    for g in hardware.CATALOG.values():
        assert g.memory_source_shown == g.memory_source
    assert hardware.gpu("V100").memory_source == "nvidia-smi: Tesla V100-SXM2-32GB, 32,768 MiB, in public issues and logs"


def test_gpu_notes_in_material_causes():
    english = str(material.boxes(["000-2-a100", "000-2-h200"]))
    with speaking("zh"):
        shown = str(material.boxes(["000-2-a100", "000-2-h200"]))
    assert "The PCIe card exposes the same" in english and "Same compute as" in english
    assert "The PCIe card exposes the same" not in shown and "Same compute as" not in shown
    assert "PCIe 版的设备报告同样是 81,920 MiB" in shown


def test_mfu_range_and_bases_in_chinese():
    english, table = str(runs.mfu_range()), str(runs.mfu_table())
    with speaking("zh"):
        shown, shown_table = str(runs.mfu_range()), str(runs.mfu_table())
        bases = [_(r.basis) for r in runs.published_mfus()]
    assert not english_prose(shown) and all(not english_prose(b) for b in bases)
    assert "实测吞吐量" in shown_table and "Patterson 等人对其 V100 卡时的估算" in shown_table
    assert english == str(runs.mfu_range()) and "its measured throughput" in table
    assert len(english) < 160  # one sentence: each run and its basis are in the table (it was 617 characters)
    assert {r.basis for r in runs.RUNS} >= {runs.HOURS, runs.THROUGHPUT}   # the English keys stay


def test_mfu_table_and_deepseek_summary_in_chinese():
    english = str(runs.mfu_table()), str(runs.deepseek_v3_example())
    with speaking("zh"):
        shown = str(runs.mfu_table()), str(runs.deepseek_v3_example())
    assert all(not english_prose(text) for text in shown)
    assert "计入注意力 FLOPs" in shown[0] and "稠密 BF16 峰值的" in shown[1]
    assert "with the attention FLOPs, as the paper counts them" in english[0]
    assert english[1].startswith("cost: $5,576,000 for 2,788,000 H800-hours\npre-training MFU with N = 37.0B: ")
    assert (str(runs.mfu_table()), str(runs.deepseek_v3_example())) == english


def test_layout_comparison_in_chinese():
    from llmest import published_layouts as pl

    english = str(pl.comparison())
    with speaking("zh"):
        shown = str(pl.comparison())
    assert not english_prose(shown) and "留出检验" in shown and "用于拟合" in shown and "不作要求" in shown
    assert "held out" in english and "fitted" in english
    # the same figures in both: the Megatron-LM 1T row it is fitted to
    row = next(line for line in english.splitlines() if line.startswith("Megatron-LM 1T"))
    assert row.split()[2:6] == ["8×1×64×1", "56.3%", "56.3%", "-0.0"]
    assert next(line for line in shown.splitlines() if line.startswith("Megatron-LM 1T")).split()[2:6] == row.split()[2:6]
