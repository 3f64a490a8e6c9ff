"""The chapters' plots draw what the plans compute: bar lengths and lines are compared with the library's numbers,
and bad input is an InputError naming the parameter."""

import pytest

from conftest import require

matplotlib = require("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from llmest import plans, plots  # noqa: E402
from llmest import memory as mem  # noqa: E402
from llmest.core._validate import InputError  # noqa: E402
from llmest.core.units import format_bytes, format_int  # noqa: E402

ZERO_EXAMPLE = dict(dp=8, tp=8, micro_batch=1, seq_len=4096, recompute="full", sequence_parallel=True)
LAYOUTS = {"data parallel": (0, 64, 1, 1), "ZeRO-3 / FSDP": (3, 64, 1, 1), "TP 8 × PP 4 × ZeRO-1 over 2": (1, 2, 8, 4)}
GPUS = ["A100 80GB", "H100 SXM", "RTX 4090"]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _bar_ends(ax):
    """Per bar row (y centre): the right end of its last segment."""
    ends = {}
    for patch in ax.patches:
        y = round(patch.get_y() + patch.get_height() / 2, 6)
        ends[y] = max(ends.get(y, 0), patch.get_x() + patch.get_width())
    return [ends[y] for y in sorted(ends)]


def _segments(ax, label):
    container = next(c for c in ax.containers if c.get_label() == label)
    return [patch.get_width() for patch in container]


def _vertical_lines(ax):
    return {line.get_label(): line.get_xdata()[0] for line in ax.lines}


def test_bytes_per_param_stacks_each_state_of_each_convention_per_optimizer():
    axes = plots.bytes_per_param()
    assert [ax.get_title() for ax in axes] == list(mem.OPTIMIZERS)
    assert [t.get_text() for t in axes[0].get_yticklabels()] == list(mem.CONVENTIONS)   # the panels share them
    for ax, optimizer in zip(axes, mem.OPTIMIZERS):
        states = [mem.state_bytes_per_param(c, optimizer) for c in mem.CONVENTIONS]
        for label, field in (("weights", "weights"), ("master", "master"), ("gradients", "grads"),
                             ("optimizer", "optimizer")):
            assert _segments(ax, label) == pytest.approx([getattr(s, field) for s in states])
        assert _bar_ends(ax) == pytest.approx([s.total for s in states])
        assert ax.get_xlabel() == "bytes per parameter"


def test_memory_by_zero_stage_draws_the_plans_and_the_usable_line():
    ax = plots.memory_by_zero_stage("llama-2-70b", gpu="A100 80GB", **ZERO_EXAMPLE)
    expected = [plans.training_memory("llama-2-70b", zero=z, **ZERO_EXAMPLE) for z in range(4)]
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"ZeRO-{z}" for z in range(4)]
    assert _bar_ends(ax) == pytest.approx([p.total / 1e9 for p in expected])
    assert _segments(ax, "optimizer") == pytest.approx([p.parts["optimizer"] / 1e9 for p in expected])
    lines = _vertical_lines(ax)
    assert lines["usable (80%)"] == pytest.approx(plans.usable_bytes("A100 80GB") / 1e9)
    assert lines["A100 80GB: 80.0 GiB = 85.9 GB"] == pytest.approx(80 * 2**30 / 1e9)
    assert {t.get_text().strip() for t in ax.texts} >= {format_bytes(p.total) for p in expected}
    assert ax.get_xlabel() == "GB per GPU"


def test_parallel_layouts_draws_each_layouts_plan_and_says_the_total_of_a_cut_bar():
    ax = plots.parallel_layouts("llama-2-70b", LAYOUTS, micro_batch=1, seq_len=4096, recompute="full")
    expected = [plans.training_memory("llama-2-70b", zero=z, dp=d, tp=t, pp=p, micro_batch=1, seq_len=4096,
                                      recompute="full") for z, d, t, p in LAYOUTS.values()]
    assert _bar_ends(ax) == pytest.approx([p.total / 1e9 for p in expected])
    end = ax.get_xlim()[1]
    assert end == pytest.approx(2 * 80 * 2**30 / 1e9)   # twice the 80 GiB an A100 80GB exposes
    labels = [t.get_text().strip() for t in ax.texts]
    for plan in expected:
        shown = format_bytes(plan.total) + (" →" if plan.total / 1e9 > end else "")
        assert shown in labels
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"{name}, {p.gpus} GPUs"
                                                            for name, p in zip(LAYOUTS, expected)]


def test_decode_speed_draws_the_decode_plan_per_gpu():
    ax = plots.decode_speed("llama-3-8b", GPUS, batch=4, seq_len=2048)
    expected = [plans.decode_estimate("llama-3-8b", g, batch=4, seq_len=2048) for g in GPUS]
    widths = {round(p.get_y() + p.get_height() / 2): p.get_width() for p in ax.patches}
    assert [widths[i] for i in range(len(GPUS))] == pytest.approx([e.tokens_per_s for e in expected])
    assert [t.get_text() for t in ax.get_yticklabels()] == GPUS
    assert [t.get_text().strip() for t in ax.texts] == [format_int(e.tokens_per_s) for e in expected]
    assert ax.get_xlabel() == "tokens/s per GPU"


@pytest.mark.parametrize("call, param", [
    (lambda: plots.bytes_per_param(optimizers=[]), "optimizers"),
    (lambda: plots.bytes_per_param(optimizers=["adam9"]), "optimizer"),
    (lambda: plots.bytes_per_param(conventions=["fp64"]), "convention"),
    (lambda: plots.memory_by_zero_stage("llama-2-7b", stages=(0, 5)), "stages"),
    (lambda: plots.memory_by_zero_stage("llama-2-7b", stages=3), "stages"),
    (lambda: plots.memory_by_zero_stage("llama-2-7b", stages=()), "stages"),
    (lambda: plots.memory_by_zero_stage("llama-2-7b", gpu="A100 90GB"), "gpu"),
    (lambda: plots.parallel_layouts("llama-2-70b", {}), "layouts"),
    (lambda: plots.parallel_layouts("llama-2-70b", {"odd": (1, 8, 7, 1)}), "layouts"),
    (lambda: plots.parallel_layouts("llama-2-70b", {"short": (1, 8)}), "layouts"),
    (lambda: plots.decode_speed("llama-3-8b", "A100 80GB"), "gpus"),
    (lambda: plots.decode_speed("llama-3-8b", []), "gpus"),
    (lambda: plots.decode_speed("llama-3-8b", ["A100 90GB"]), "gpu"),
    (lambda: plots.decode_speed("llama-3-8b", GPUS, batch=0), "batch"),
    (lambda: plots.memory_stacks({}), "breakdowns"),
    (lambda: plots.memory_by_zero_stage("llama-2-7b", dp=0), "dp"),        # a setting keeps its own name
    (lambda: plots.memory_by_zero_stage("llama-2-8b"), "model"),
    (lambda: plots.parallel_layouts("llama-2-70b", LAYOUTS, micro_batch=0), "micro_batch"),
])
def test_bad_input_is_refused_by_name(call, param):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == param
