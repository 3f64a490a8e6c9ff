"""Chapter 5's findings on parallel layouts: the memory per GPU and data-parallel bytes of layouts given as (ZeRO
stage, dp, tp, pp), how the layout search (``plans.search_layouts``) times the same layouts against its own best,
the best layout of each of several searches, and a layout the search evaluated (``llmest.display.findings.layouts``
writes them)."""

from __future__ import annotations

import numpy as np

from ...catalog import hardware
from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import layouts as shown
from ...display.layout import SHOWN
from ...display.memory import RECOMPUTATION
from ...formulas.memory import data_parallel_traffic_bytes, pipeline_bubble
from ...formulas.model import config_from, count_params
from ..layout_plan import LayoutSearch
from ..memory_plan import fits, training_memory

# The figures of a layout the search timed, as the tables show them.
TIMED = ("tp", "cp", "pp", "dp", "zero", "memory_per_gpu_bytes", "compute_s", "bubble_s", "exposed_comm_s",
         "step_time_s", "mfu", "fits")
BEST = ("tp", "cp", "pp", "dp", "zero", "micro_batches", "step_time_s", "bubble_s", "exposed_comm_s", "mfu")


def _layouts(name, layouts) -> list:
    """Layouts as a list of (zero, dp, tp, pp), named by the display, or a dict of name: (zero, dp, tp, pp): a list
    of dicts with the name (None: the display's) and the four degrees."""
    named = layouts.items() if isinstance(layouts, dict) else \
        [(None, layout) for layout in layouts] if isinstance(layouts, (list, tuple)) else None
    if not named or not all((label is None or isinstance(label, str)) and isinstance(layout, (list, tuple))
                            and len(layout) == 4 for label, layout in named):
        raise v.InputError(name, f"{name} == {v.quote(layouts)}, must be a list of (zero, dp, tp, pp), or a dict of "
                                 "name: (zero, dp, tp, pp).")
    out = []
    for label, (zero, dp, tp, pp) in named:
        v.check_int("zero", zero, minimum=0, maximum=3)
        out.append(dict(name=label, zero=zero, dp=v.check_whole("dp", dp), tp=v.check_whole("tp", tp),
                        pp=v.check_whole("pp", pp)))
    return out


def _pair(name, value) -> list:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise v.InputError(name, f"{name} == {v.quote(value)}, must be two numbers of micro-batches, such as (8, 32).")
    return [v.check_whole(name, m) for m in value]


@v.checked(layouts=_layouts, micro_batches=_pair, **v.WHOLE)
def layout_memory(model, layouts, gpu="A100 80GB", *, micro_batch=1, seq_len=4096, recompute="full",
                  micro_batches=(8, 32)) -> Finding:
    """Per layout (a list of (zero, dp, tp, pp), or a dict of name: (zero, dp, tp, pp)): the memory per GPU
    (``training_memory``), whether it fits, and the bytes each GPU sends per step for data parallelism; and the
    bubble of the deepest pipeline with each of two numbers of ``micro_batches``."""
    cfg = config_from(model)
    n = count_params(cfg).total
    rows = []
    for layout in layouts:
        zero, dp, tp, pp = (layout[k] for k in ("zero", "dp", "tp", "pp"))
        plan = training_memory(cfg, zero=zero, dp=dp, tp=tp, pp=pp, micro_batch=micro_batch, seq_len=seq_len,
                               recompute=recompute)
        rows.append(dict(layout, memory_bytes=plan.total, fits=fits(plan, gpu),
                         traffic_bytes=data_parallel_traffic_bytes(n / (tp * pp), zero=zero, dp=dp)))
    few, many = _pair("micro_batches", micro_batches)
    stages = max(layout["pp"] for layout in layouts)
    return Finding(dict(model=cfg.name or None, gpu=hardware.gpu(gpu).name, micro_batch=micro_batch, seq_len=seq_len,
                        recompute=recompute, layouts=rows, stages=stages, micro_batches=[few, many],
                        bubbles=[pipeline_bubble(stages, few), pipeline_bubble(stages, many)]), shown.layout_memory)


def _search(name, found):
    if not isinstance(found, LayoutSearch):
        raise v.InputError(name, f"{name} == {v.quote(found)}, must be what plans.search_layouts returns.")
    return found


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _timed(found, row) -> dict:
    return {name: _plain(found.columns[name][row]) for name in TIMED}


@v.checked(found=_search, layouts=_layouts, **v.WHOLE)
def layout_search(found, layouts, top=3, *, micro_batch=1, recompute="full") -> Finding:
    """How many layouts a search tried and how many fit, with the memory it kept free; the search's timing of the
    ``layouts`` given (as ``layout_memory`` takes them; no context parallelism, TP inside a node, micro-batches of
    ``micro_batch`` sequences, ``recompute``), then its ``top`` layouts: the degrees, memory per GPU, compute,
    bubble, exposed communication, step time, MFU and whether each fits."""
    v.check_choice("recompute", recompute, RECOMPUTATION)
    v.check_int("top", top, minimum=0, maximum=v.SEARCH_LIMIT)
    cols = found.columns
    rows = []
    for layout in layouts:
        zero, dp, tp, pp = (layout[k] for k in ("zero", "dp", "tp", "pp"))
        picked = ((cols["zero"] == zero) & (cols["dp"] == dp) & (cols["tp"] == tp) & (cols["pp"] == pp)
                  & (cols["cp"] == 1) & (cols["micro_batch"] == micro_batch) & (cols["recompute"] == recompute)
                  & cols["tp_in_node"]).nonzero()[0]
        if not len(picked):
            raise v.InputError("layouts", f"layouts has {(zero, dp, tp, pp)}: not a layout the search tried with "
                                          "these settings.")
        rows.append(dict(layout, **_timed(found, picked[0])))
    best = [dict(rank=rank, **_timed(found, row)) for rank, row in enumerate(found.order[:top], 1)]
    return Finding(dict(model=found.model, gpu=found.gpu, gpus=found.gpus, seq_len=found.seq_len,
                        global_batch_tokens=found.global_batch_tokens, searched=len(found), fitting=found.fitting,
                        margin=found.settings["margin"], micro_batch=micro_batch, recompute=recompute, layouts=rows,
                        best=best), shown.layout_search)


def _searches(name, searches) -> list:
    if not isinstance(searches, (list, tuple)) or not searches or not all(
            isinstance(found, LayoutSearch) for found in searches):
        raise v.InputError(name, f"{name} == {v.quote(searches)}, must be a list of what plans.search_layouts "
                                 "returns.")
    return list(searches)


@v.checked(searches=_searches)
def best_layouts(searches) -> Finding:
    """The best layout of each search (``plans.search_layouts``), one a GPU count: the degrees, ZeRO stage,
    micro-batches, step time, bubble, exposed communication and MFU (None where no layout fits)."""
    return Finding(dict(searches=[dict(model=found.model, gpu=found.gpu, gpus=found.gpus, seq_len=found.seq_len,
                                       global_batch_tokens=found.global_batch_tokens,
                                       best=None if found.best is None else {k: found.best[k] for k in BEST})
                                  for found in searches]), shown.best_layouts)


def _row(name, row) -> dict:
    if not isinstance(row, dict) or "rank" not in row:
        raise v.InputError(name, f"{name} == {v.quote(row)}, must be what a search's evaluate() returns.")
    return row


@v.checked(row=_row, found=_search)
def evaluated_layout(row, found) -> Finding:
    """A layout that ``found.evaluate`` returned: its step time in parts, MFU, memory and rank among the layouts
    searched, and the search's best (None when no layout fits)."""
    best = found.best
    return Finding(dict(model=found.model, gpu=found.gpu, gpus=found.gpus, searched=len(found),
                        layout={k: _plain(row[k]) for k in (*SHOWN, "rank")},
                        best=None if best is None else {k: best[k] for k in ("step_time_s", "mfu")}),
                   shown.evaluated_layout)
