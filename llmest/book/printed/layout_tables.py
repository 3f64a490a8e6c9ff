"""Tables of parallel layouts, in the language shown: the memory per GPU and data-parallel bytes of named layouts
(ZeRO stage, dp, tp, pp), and how the layout search times the same layouts against its own best."""

from __future__ import annotations

from ...core import _validate as v
from ... import plans
from ...core.i18n import _
from ...formulas.memory import data_parallel_traffic_bytes, pipeline_bubble
from ...formulas.model import config_from, count_params
from .answers_text import one_gpu
from ...display.layout import evaluated_text  # noqa: F401  (the chapters' name for it)
from ...display.memory import RECOMPUTATION
from ...display.table import Table
from ...core.units import format_bytes, format_int, format_percent


@v.checked
def layout_name(zero, dp, tp=1, pp=1) -> str:
    """A layout as a table names it: "data parallel", "ZeRO-3 / FSDP", "TP 8 × PP 4 × ZeRO-1 over 2"."""
    v.check_int("zero", zero, minimum=0, maximum=3)
    data = _("data parallel") if zero == 0 else _("ZeRO-3 / FSDP") if zero == 3 else f"ZeRO-{zero}"
    split = [f"TP {tp}"] * (tp > 1) + [f"PP {pp}"] * (pp > 1)
    if not split:
        return data
    return _("{split} × {data} over {dp}").format(split=" × ".join(split), data=data, dp=dp)


def _layouts(layouts) -> dict:
    if not isinstance(layouts, dict) or not layouts or not all(
            isinstance(name, str) and isinstance(layout, tuple) and len(layout) == 4 for name, layout in
            layouts.items()):
        raise v.InputError("layouts", f"layouts == {v.quote(layouts)}, must be a dict of name: (zero, dp, tp, pp).")
    return layouts


@v.checked(**v.WHOLE)
def layout_memory(model, layouts, gpu="A100 80GB", *, micro_batch=1, seq_len=4096, recompute="full",
                  micro_batches=(8, 32)) -> Table:
    """Per named layout (name -> (zero, dp, tp, pp)): memory per GPU (``training_memory``), whether it fits, and
    the bytes each GPU sends per step for data parallelism; below, the bubble of the deepest pipeline with each of
    two numbers of ``micro_batches``."""
    cfg = config_from(model)
    n = count_params(cfg).total
    rows = []
    for name, (zero, dp, tp, pp) in _layouts(layouts).items():
        plan = plans.training_memory(cfg, zero=zero, dp=dp, tp=tp, pp=pp, micro_batch=micro_batch, seq_len=seq_len,
                                     recompute=recompute)
        traffic = data_parallel_traffic_bytes(n / (tp * pp), zero=zero, dp=dp)
        rows.append((name, format_bytes(plan.total), plans.fits(plan, gpu), format_bytes(traffic)))
    few, many = (v.check_whole("micro_batches", m) for m in micro_batches)
    stages = max(pp for _zero, _dp, _tp, pp in layouts.values())
    notes = [] if stages == 1 else [
        _("pipeline of {stages} stages: idle {few_idle} of the time with {few} micro-batches, {many_idle} with "
          "{many}").format(stages=stages, few=few, many=many, few_idle=format_percent(pipeline_bubble(stages, few), 0),
                           many_idle=format_percent(pipeline_bubble(stages, many), 0))]
    fits = _("fits {one_gpu}").format(one_gpu=one_gpu(gpu))
    return Table((_("layout"), _("memory/GPU"), fits, _("DP traffic/GPU/step")), rows, notes=notes)


def search_summary(found) -> str:
    """How many layouts a search tried and how many fit, with the memory it kept free."""
    if not isinstance(found, plans.LayoutSearch):
        raise v.InputError("found", f"found == {v.quote(found)}, must be what plans.search_layouts returns.")
    return _("{searched} layouts searched, {fitting} fit {one_gpu} with {margin} kept free").format(
        searched=format_int(len(found)), fitting=format_int(found.fitting), one_gpu=one_gpu(found.gpu),
        margin=format_percent(found.settings["margin"], 0))


@v.checked(**v.WHOLE)
def layout_search_table(found, layouts, top=3, *, micro_batch=1, recompute="full") -> Table:
    """The search's timing of named layouts (name -> (zero, dp, tp, pp), no context parallelism, TP inside a node,
    micro-batches of ``micro_batch`` sequences, ``recompute``), then its ``top`` layouts: the degrees, memory per
    GPU, compute, bubble, exposed communication, step time, MFU and whether each fits."""
    search_summary(found)  # checks found
    v.check_choice("recompute", recompute, RECOMPUTATION)
    cols = found.columns

    def timed(row):
        return (f"{cols['tp'][row]}×{cols['cp'][row]}×{cols['pp'][row]}×{cols['dp'][row]}",
                f"ZeRO-{cols['zero'][row]}", format_bytes(cols["memory_per_gpu_bytes"][row]),
                *(f"{cols[name][row]:.1f} s" for name in ("compute_s", "bubble_s", "exposed_comm_s", "step_time_s")),
                f"{cols['mfu'][row] * 100:.1f}", bool(cols["fits"][row]))

    rows = []
    for name, (zero, dp, tp, pp) in _layouts(layouts).items():
        picked = ((cols["zero"] == zero) & (cols["dp"] == dp) & (cols["tp"] == tp) & (cols["pp"] == pp)
                  & (cols["cp"] == 1) & (cols["micro_batch"] == micro_batch) & (cols["recompute"] == recompute)
                  & cols["tp_in_node"]).nonzero()[0]
        if not len(picked):
            raise v.InputError("layouts", f"layouts[{v.quote(name)}] == {(zero, dp, tp, pp)}: not a layout the "
                                          "search tried with these settings.")
        rows.append((name, *timed(picked[0])))
    rows += [(_("search's #{rank}").format(rank=rank), *timed(row)) for rank, row in enumerate(found.order[:top], 1)]
    sequences = _("one sequence") if micro_batch == 1 else _("{n} sequences").format(n=micro_batch)
    note = _("{recompute} and micro-batches of {sequences} for the named layouts; the search picks its own").format(
        recompute=_(RECOMPUTATION[recompute]), sequences=sequences)
    return Table((_("layout"), "TP×CP×PP×DP", "ZeRO", _("memory/GPU"), _("compute"), _("bubble"), _("comm. exposed"),
                  _("step"), "MFU", _("fits")), rows, units={"MFU": "%"}, notes=[note])


def best_layouts_text(searches) -> str:
    """The best layout of each search (``plans.search_layouts``), one line a GPU count: the degrees, ZeRO stage,
    micro-batches, step time, bubble, exposed communication and MFU."""
    if not isinstance(searches, (list, tuple)) or not searches or not all(
            isinstance(found, plans.LayoutSearch) for found in searches):
        raise v.InputError("searches", f"searches == {v.quote(searches)}, must be a list of what "
                                       "plans.search_layouts returns.")
    line = _("{gpus} GPUs: TP {tp} × CP {cp} × PP {pp} × DP {dp}, ZeRO-{zero}, {micro_batches} micro-batches: step "
             "{step} s, bubble {bubble} s, communication exposed {exposed} s, MFU {mfu}")
    return "\n".join(line.format(
        gpus=f"{found.gpus:>5,}", tp=found.best["tp"], cp=found.best["cp"], pp=found.best["pp"],
        dp=f"{found.best['dp']:>3}", zero=found.best["zero"], micro_batches=f"{found.best['micro_batches']:>4}",
        step=f"{found.best['step_time_s']:6.2f}", bubble=f"{found.best['bubble_s']:5.2f}",
        exposed=f"{found.best['exposed_comm_s']:5.2f}", mfu=format_percent(found.best["mfu"], 1)) for found in searches)
