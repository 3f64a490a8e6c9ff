"""How a layout search shows itself (``plans.search_layouts``): what was searched, the best layouts as a table and,
for a layout given, its step time in parts, MFU, memory and rank."""

from __future__ import annotations

from ..core._validate import check_int
from ..core.i18n import N_, _
from ..core.units import UNITS, format_bytes, format_percent
from .memory import RECOMPUTATION
from .table import Table
from ..core.report import Report

# The columns a report lists, and the figures of a layout given.
SHOWN = ("tp", "cp", "pp", "dp", "ep", "vp", "zero", "micro_batch", "micro_batches", "recompute", "tp_in_node",
         "memory_per_gpu_bytes", "step_time_s", "mfu", "fits", "compute_s", "bubble_s", "comm_s", "exposed_comm_s")
RECOMPUTE_SHORT = {"none": N_("none"), "selective": N_("selective"), "full": N_("full")}


def layout_name(zero, dp, tp=1, pp=1) -> str:
    """A layout as a table names it: "data parallel", "ZeRO-3 / FSDP", "TP 8 × PP 4 × ZeRO-1 over 2"."""
    check_int("zero", zero, minimum=0, maximum=3)
    data = _("data parallel") if zero == 0 else _("ZeRO-3 / FSDP") if zero == 3 else f"ZeRO-{zero}"
    split = [f"TP {tp}"] * (tp > 1) + [f"PP {pp}"] * (pp > 1)
    if not split:
        return data
    return _("{split} × {data} over {dp}").format(split=" × ".join(split), data=data, dp=dp)


def evaluated_text(row, found) -> str:
    """A layout that ``found.evaluate`` returned, as ``evaluated_line`` writes it."""
    return evaluated_line(row, len(found), found.best)


def evaluated_line(row, count, best) -> str:
    """A layout that ``LayoutSearch.evaluate`` returned (``row``, with its ``rank`` among the ``count`` layouts
    searched): its step time in parts, MFU, memory and rank, and how much longer it takes than the search's
    ``best`` (a row, or None when no layout fits)."""
    layout = f"TP {row['tp']} × CP {row['cp']} × PP {row['pp']} × DP {row['dp']}"
    layout += f" × EP {row['ep']}" * (row["ep"] > 1) + f", VP {row['vp']}" * (row["vp"] > 1)
    text = _("The layout {layout}, ZeRO-{zero}, micro-batches of {sequences}, {recompute}: {step} s a step (compute "
             "{compute} s, bubble {bubble} s, exposed communication {exposed} s), MFU {mfu}, {memory} a GPU ({fits}); "
             "rank {rank} of {count}.").format(
        layout=layout, zero=row["zero"], sequences=row["micro_batch"], recompute=_(RECOMPUTATION[row["recompute"]]),
        step=f"{row['step_time_s']:.3f}", compute=f"{row['compute_s']:.3f}", bubble=f"{row['bubble_s']:.3f}",
        exposed=f"{row['exposed_comm_s']:.3f}", mfu=format_percent(row["mfu"], 1),
        memory=format_bytes(row["memory_per_gpu_bytes"]), fits=_("fits") if row["fits"] else _("does not fit"),
        rank=f"{row['rank']:,}", count=f"{count:,}")
    if best is not None and row["rank"] > 1:
        text += _(" It takes {longer} longer than the best ({step} s, MFU {mfu}).").format(
            longer=format_percent(row["step_time_s"] / best["step_time_s"] - 1, 1),
            step=f"{best['step_time_s']:.3f}", mfu=format_percent(best["mfu"], 1))
    return text


def layouts_table(rows, experts: bool, chunks: bool) -> Table:
    """The layouts one a row: the degrees, ZeRO stage, sequences a micro-batch (mb), micro-batches a step (m),
    recomputation, whether TP stays in a node, memory per GPU, step time, MFU and whether it fits."""
    yes, no = _("yes"), _("no")
    columns = ["TP", "CP", "PP", "DP"] + ["EP"] * experts + ["VP"] * chunks + [
        "ZeRO", _("mb"), _("m"), _("recompute"), _("tp in node"), _("memory/GPU"), _("step"), "MFU", _("fits")]
    cells = []
    for r in rows:
        cells.append([str(r["tp"]), str(r["cp"]), str(r["pp"]), str(r["dp"])] + [str(r["ep"])] * experts
                     + [str(r["vp"])] * chunks
                     + [str(r["zero"]), str(r["micro_batch"]), str(r["micro_batches"]),
                        _(RECOMPUTE_SHORT[r["recompute"]]), yes if r["tp_in_node"] else no,
                        format_bytes(r["memory_per_gpu_bytes"]), f"{r['step_time_s']:.3f} s",
                        UNITS["fraction"].format(r["mfu"]), yes if r["fits"] else no])
    return Table(columns, cells)


def search_report(found, top=10, **given) -> Report:
    """``top``: the layouts listed (None: all); ``given``: a layout to evaluate (``LayoutSearch.evaluate``)."""
    s = found.settings
    rows = found.rows(top, SHOWN)
    title = _("{model} on {gpus} × {gpu}, sequences of {seq_len} tokens, {batch} tokens a step: {searched} layouts, "
              "{fitting} fit (overlap {overlap}, efficiency {efficiency}, {schedule})").format(
        model=found.model, gpus=f"{found.gpus:,}", gpu=found.gpu, seq_len=f"{found.seq_len:,}",
        batch=f"{found.global_batch_tokens:,}", searched=f"{len(found):,}", fitting=f"{found.fitting:,}",
        overlap=f"{s['overlap']:g}", efficiency=f"{s['compute_efficiency']:.3g}", schedule=s["schedule"])
    # A mixture of experts has an expert-parallel degree too: rows that differ only in it must not look the same.
    experts = any(r["ep"] != 1 for r in found.rows(columns=("ep",)))
    lines = [] if found.fitting else [
        _("No layout fits: more GPUs, a smaller micro-batch or recomputation would be needed.")]
    if s.get("precision"):
        lines.append(_("precision {recipe}: its states, saved activations and matmul speed; MFU against the BF16 "
                       "peak").format(recipe=s["precision"]))
    if experts:
        lines.append(_("experts: the busiest GPU's get {imbalance}× the mean tokens; {routing}").format(
            imbalance=f"{s.get('imbalance', 1):g}",
            routing=_("each token sent to at most {nodes} nodes, once to each").format(nodes=s["nodes_per_token"])
            if s.get("nodes_per_token") else _("each expert's copy of a token sent to its GPU")))
    data = {"model": found.model, "gpu": found.gpu, "gpus": found.gpus, "seq_len": found.seq_len,
            "global_batch_tokens": found.global_batch_tokens, "searched": len(found), "fitting": found.fitting,
            "settings": s, "layouts": rows}
    if given:
        chosen = found.evaluate(**given)
        data["layout"] = {k: chosen[k] for k in (*SHOWN, "rank")}
        lines += ["", evaluated_line(chosen, len(found), found.best)]
    table = layouts_table(rows, experts, s["schedule"] == "interleaved")
    return Report(title, data=data, blocks=(table,), lines=tuple(lines))
