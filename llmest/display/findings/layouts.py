"""How chapter 5's findings on parallel layouts read (``llmest.plans.findings.layouts`` works them out)."""

from __future__ import annotations

from ...core.i18n import _
from ...core.report import Report
from ...core.units import format_bytes, format_int, format_percent
from ..layout import evaluated_line, layout_name
from ..memory import RECOMPUTATION
from ..table import Table
from .drills import one_gpu


def _name(layout: dict) -> str:
    """A layout as given: its own name, or as a table names it ("TP 8 × PP 4 × ZeRO-1 over 2")."""
    return layout["name"] or layout_name(layout["zero"], layout["dp"], layout["tp"], layout["pp"])


def layout_memory(f: dict) -> Report:
    rows = [(_name(row), format_bytes(row["memory_bytes"]), row["fits"], format_bytes(row["traffic_bytes"]))
            for row in f["layouts"]]
    (few, many), (few_idle, many_idle) = f["micro_batches"], f["bubbles"]
    notes = [] if f["stages"] == 1 else [
        _("pipeline of {stages} stages: idle {few_idle} of the time with {few} micro-batches, {many_idle} with "
          "{many}").format(stages=f["stages"], few=few, many=many, few_idle=format_percent(few_idle, 0),
                           many_idle=format_percent(many_idle, 0))]
    fits = _("fits {one_gpu}").format(one_gpu=one_gpu(f["gpu"]))
    return Report("", blocks=(Table((_("layout"), _("memory/GPU"), fits, _("DP traffic/GPU/step")), rows,
                                    notes=notes),))


def _timed(row: dict) -> tuple:
    return (f"{row['tp']}×{row['cp']}×{row['pp']}×{row['dp']}", f"ZeRO-{row['zero']}",
            format_bytes(row["memory_per_gpu_bytes"]),
            *(f"{row[name]:.1f} s" for name in ("compute_s", "bubble_s", "exposed_comm_s", "step_time_s")),
            f"{row['mfu'] * 100:.1f}", bool(row["fits"]))


def layout_search(f: dict) -> Report:
    summary = _("{searched} layouts searched, {fitting} fit {one_gpu} with {margin} kept free").format(
        searched=format_int(f["searched"]), fitting=format_int(f["fitting"]), one_gpu=one_gpu(f["gpu"]),
        margin=format_percent(f["margin"], 0))
    rows = [(_name(row), *_timed(row)) for row in f["layouts"]]
    rows += [(_("search's #{rank}").format(rank=row["rank"]), *_timed(row)) for row in f["best"]]
    sequences = _("one sequence") if f["micro_batch"] == 1 else _("{n} sequences").format(n=f["micro_batch"])
    note = _("{recompute} and micro-batches of {sequences} for the named layouts; the search picks its own").format(
        recompute=_(RECOMPUTATION[f["recompute"]]), sequences=sequences)
    table = Table((_("layout"), "TP×CP×PP×DP", "ZeRO", _("memory/GPU"), _("compute"), _("bubble"),
                   _("comm. exposed"), _("step"), "MFU", _("fits")), rows, units={"MFU": "%"}, notes=[note])
    return Report(summary, blocks=(table,))


def best_layouts(f: dict) -> Report:
    line = _("{gpus} GPUs: TP {tp} × CP {cp} × PP {pp} × DP {dp}, ZeRO-{zero}, {micro_batches} micro-batches: step "
             "{step} s, bubble {bubble} s, communication exposed {exposed} s, MFU {mfu}")
    lines = []
    for found in f["searches"]:
        best = found["best"]
        if best is None:
            lines.append(_("{gpus} GPUs: no layout fits").format(gpus=f"{found['gpus']:>5,}"))
            continue
        lines.append(line.format(
            gpus=f"{found['gpus']:>5,}", tp=best["tp"], cp=best["cp"], pp=best["pp"], dp=f"{best['dp']:>3}",
            zero=best["zero"], micro_batches=f"{best['micro_batches']:>4}", step=f"{best['step_time_s']:6.2f}",
            bubble=f"{best['bubble_s']:5.2f}", exposed=f"{best['exposed_comm_s']:5.2f}",
            mfu=format_percent(best["mfu"], 1)))
    return Report("", lines=tuple(lines))


def evaluated_layout(f: dict) -> Report:
    return Report("", lines=(evaluated_line(f["layout"], f["searched"], f["best"]),))
