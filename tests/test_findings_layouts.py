"""Chapter 5's findings on parallel layouts (llmest.plans.findings.layouts): the English as the chapter shows it,
with its figures, and the Chinese with no English prose. ``SAMPLES`` feeds tests/test_findings.py."""

from __future__ import annotations

import functools

import pytest

import llmest as le
from llmest import InputError, plans
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.display.layout import layout_name
from llmest.plans.findings import layouts as findings

LLAMA70 = le.preset("llama-2-70b")
LAYOUTS = [(0, 64, 1, 1), (3, 64, 1, 1), (1, 2, 8, 4)]   # (zero, dp, tp, pp)


@functools.lru_cache(maxsize=None)
def _search():
    return plans.search_layouts(LLAMA70, 64, "A100 80GB", 4096, 256 * 4096)


@functools.lru_cache(maxsize=None)
def _growing():
    return tuple(plans.search_layouts(LLAMA70, n, "H100 SXM", 4096, 4 * 2**20) for n in (64, 4096))


@functools.lru_cache(maxsize=None)
def _llama3():
    return plans.search_layouts("llama-3.1-405b", 16384, "H100 SXM", 8192, 16 * 2**20, schedule="interleaved")


def _evaluated():
    return findings.evaluated_layout(_llama3().evaluate(tp=8, cp=1, pp=16, dp=128, recompute="none"), _llama3())


SAMPLES = {
    "layout_memory": [lambda: findings.layout_memory(LLAMA70, LAYOUTS),
                      lambda: findings.layout_memory(LLAMA70, {"mine": (3, 64, 1, 1)}, "H100 SXM")],
    "layout_search": lambda: findings.layout_search(_search(), LAYOUTS, top=3),
    "best_layouts": lambda: findings.best_layouts(list(_growing())),
    "evaluated_layout": _evaluated,
}


def texts() -> dict:
    return {name: str(calls[0]() if isinstance(calls, list) else calls()) for name, calls in SAMPLES.items()}


def test_the_english_carries_the_chapters_figures():
    shown = texts()
    assert "pipeline of 4 stages: idle 27% of the time with 8 micro-batches, 9% with 32" in shown["layout_memory"]
    assert shown["layout_search"].splitlines()[0] == ("7,728 layouts searched, 2,981 fit an A100 80GB with 20% kept "
                                                      "free")
    assert "MFU (%)" in shown["layout_search"]
    row = next(line for line in shown["layout_search"].splitlines() if line.startswith("TP 8 × PP 4"))
    assert "8×1×4×2" in row and "24.0 GB" in row and "53.0 s" in row and "44.1" in row
    assert shown["best_layouts"].splitlines() == [
        "   64 GPUs: TP 1 × CP 8 × PP 8 × DP   1, ZeRO-1, 1024 micro-batches: step  53.32 s, bubble  0.36 s, "
        "communication exposed  0.43 s, MFU 55.2%",
        "4,096 GPUs: TP 8 × CP 1 × PP 1 × DP 512, ZeRO-2,    1 micro-batches: step   1.09 s, bubble  0.00 s, "
        "communication exposed  0.30 s, MFU 42.1%"]
    assert shown["evaluated_layout"] == (
        "The layout TP 8 × CP 1 × PP 16 × DP 128, VP 8, ZeRO-1, micro-batches of 1, no recomputation: 6.004 s a step "
        "(compute 4.725 s, bubble 0.554 s, exposed communication 0.725 s), MFU 45.3%, 114 GB a GPU (does not fit); "
        "rank 74,377 of 128,220. It takes 11.4% longer than the best (5.389 s, MFU 50.4%).")


def test_the_layouts_are_named_as_the_table_names_them():
    assert layout_name(0, 64) == "data parallel"
    assert layout_name(1, 2, 8, 4) == "TP 8 × PP 4 × ZeRO-1 over 2"
    table = str(SAMPLES["layout_memory"][0]())
    assert [line.split("  ")[0] for line in table.splitlines()[2:5]] == [
        "data parallel", "ZeRO-3 / FSDP", "TP 8 × PP 4 × ZeRO-1 over 2"]
    named = SAMPLES["layout_memory"][1]()
    assert str(named).splitlines()[2].startswith("mine") and "pipeline" not in str(named)
    assert named["layouts"][0]["fits"] is True


def test_the_figures_are_the_searchs():
    found = _search()
    search = SAMPLES["layout_search"]()
    assert (search["searched"], search["fitting"]) == (len(found), found.fitting)
    assert [row["step_time_s"] for row in search["best"]] == [row["step_time_s"] for row in found.rows(3)]
    best = SAMPLES["best_layouts"]()
    assert [s["best"]["mfu"] for s in best["searches"]] == [f.best["mfu"] for f in _growing()]


def test_the_chinese_has_no_english_prose():
    with speaking("zh"):
        shown = texts()
        assert layout_name(1, 8, 8) == "TP 8 × ZeRO-1（8 路）"
    assert "留出 20% 空闲" in shown["layout_search"]
    assert "64 张卡：TP 1 × CP 8" in shown["best_layouts"]
    for name, text in shown.items():
        assert not english_prose(text), (name, text)


@pytest.mark.parametrize("call, param", [
    (lambda: findings.layout_memory(LLAMA70, {"x": (1, 2)}), "layouts"),
    (lambda: findings.layout_memory(LLAMA70, []), "layouts"),
    (lambda: findings.layout_memory(LLAMA70, [(4, 64, 1, 1)]), "zero"),
    (lambda: findings.layout_memory(LLAMA70, LAYOUTS, micro_batches=(8,)), "micro_batches"),
    (lambda: findings.layout_search(None, LAYOUTS), "found"),
    (lambda: findings.layout_search(_search(), [(1, 3, 1, 1)]), "layouts"),
    (lambda: findings.layout_search(_search(), LAYOUTS, recompute="some"), "recompute"),
    (lambda: findings.best_layouts([]), "searches"),
    (lambda: findings.best_layouts([None]), "searches"),
    (lambda: findings.evaluated_layout({"tp": 8}, _search()), "row"),
    (lambda: findings.evaluated_layout(_search().best | {"rank": 1}, "search"), "found"),
])
def test_bad_input_names_the_parameter(call, param):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == param


def test_the_plot_names_a_list_of_layouts_as_the_table_does():
    from llmest import plots

    ax = plots.parallel_layouts(LLAMA70, LAYOUTS, micro_batch=1, seq_len=4096, recompute="full")
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "data parallel, 64 GPUs", "ZeRO-3 / FSDP, 64 GPUs", "TP 8 × PP 4 × ZeRO-1 over 2, 64 GPUs"]
    for bad in ([(4, 64, 1, 1)], [(1, 8)], []):
        with pytest.raises(InputError) as err:
            plots.parallel_layouts(LLAMA70, bad)
        assert err.value.param == "layouts"
