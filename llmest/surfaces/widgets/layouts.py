"""Chapter 5's layout explorer: every parallel layout of a training run (``plans.search_layouts``), the fastest
that fit, and step time against memory per GPU for all of them."""

from __future__ import annotations

import html

import ipywidgets as w

from ...core import _validate as v
from ...formulas import comm
from ...catalog import hardware
from ... import plans
from ...core.i18n import N_, _
from ...formulas.memory import MEMORY_MARGIN
from ...plans.layout_assumptions import matmul_efficiency
from ...plans.layout_plan import COMPUTE_EFFICIENCY, OVERLAP
from ...core.units import format_bytes, format_int, format_percent, parse_count
from .form import Form, field_style, gpu_field, in_slider, model_field, option, text, whole
from .charts import svg_scatter

SHOWN = 5
_RECOMPUTE = {"none": N_("no recomputation"), "selective": N_("selective recomputation"),
              "full": N_("full recomputation")}


class LayoutExplorer(Form):
    """A model, a GPU kind and count, a sequence length and a global batch: every layout, ranked."""

    ALIASES = {**Form.ALIASES, "seq_len": "seq_len", "global_batch_tokens": "batch_tokens",
               "compute_efficiency": "efficiency"}

    def __init__(self, model="llama-2-70b", gpu="H100 SXM", gpus=256, seq_len=4096, batch_tokens="4194304",
                 schedule="1f1b", overlap=OVERLAP, efficiency=COMPUTE_EFFICIENCY):
        style, layout = field_style()
        if efficiency is None:  # the figure fitted for the GPU's generation
            efficiency = matmul_efficiency(hardware.gpu(gpu).name)

        def slider(name, value, description, low, step=0.05, readout=".0%"):
            return w.FloatSlider(value=in_slider(name, value, low, 1), min=low, max=1, step=step,
                                 description=description, style=style, layout=layout, continuous_update=False,
                                 readout_format=readout)

        inputs = {
            "model": model_field(model),
            "gpu": gpu_field(gpu),
            "gpus": w.IntText(value=whole("gpus", gpus), description=_("GPUs"), style=style, layout=layout),
            "seq_len": w.IntText(value=whole("seq_len", seq_len), description=_("sequence length"), style=style,
                                 layout=layout),
            "batch_tokens": w.Text(value=text("batch_tokens", batch_tokens), description=_("tokens per step"),
                                   placeholder=_("e.g. 4194304"), style=style, layout=layout),
            "schedule": w.Dropdown(options=list(comm.SCHEDULES), value=option("schedule", schedule, comm.SCHEDULES),
                                   description=_("pipeline schedule"), style=style, layout=layout),
            "overlap": slider("overlap", overlap, _("overlap"), 0),
            # Fine steps, so that the fitted figure is the library's to the digit.
            "efficiency": slider("efficiency", efficiency, _("matmul efficiency"), 0.05, 0.0001, ".1%"),
        }
        self.summary, self.table, self.chart = w.HTML(), w.HTML(), w.HTML()
        self.summary.add_class("llmest-layout-summary")
        self.search = None
        self._build(inputs, [self.summary, self.table, self.chart], "llmest-layout-explorer")
        self._recompute()

    def _clear(self):
        self.search = None
        self.summary.value = self.table.value = self.chart.value = ""

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}
        tokens = parse_count(value["batch_tokens"], "batch_tokens")
        if tokens != int(tokens):
            raise v.InputError("batch_tokens", _("batch_tokens == {tokens}, must be a whole number of tokens.").format(
                tokens=f"{tokens:g}"))
        found = self.search = plans.search_layouts(
            value["model"], value["gpus"], value["gpu"], value["seq_len"], int(tokens), schedule=value["schedule"],
            overlap=value["overlap"], compute_efficiency=value["efficiency"])
        best = found.best
        usable = hardware.gpu(found.gpu).memory_bytes * (1 - MEMORY_MARGIN)
        if best is None:
            self.summary.value = _("{n} layouts, <b>none fits</b> in {usable} per GPU: more GPUs, or a smaller "
                                   "model.").format(n=format_int(len(found)), usable=format_bytes(usable))
        else:
            self.summary.value = _(
                "{n} layouts, {fitting} fit. <b>Fastest that fits: TP {tp} × CP {cp} × PP {pp} × DP {dp}</b>, "
                "ZeRO-{zero}, micro-batch {micro_batch} ({micro_batches} a step), {recompute}: step <b>{step} s</b>, "
                "MFU <b>{mfu}</b>, {memory} per GPU").format(
                n=format_int(len(found)), fitting=format_int(found.fitting), tp=best["tp"], cp=best["cp"],
                pp=best["pp"], dp=best["dp"], zero=best["zero"], micro_batch=best["micro_batch"],
                micro_batches=best["micro_batches"], recompute=_(_RECOMPUTE[best["recompute"]]),
                step=f"{best['step_time_s']:.2f}", mfu=format_percent(best["mfu"], 1),
                memory=format_bytes(best["memory_per_gpu_bytes"]))
        self.table.value = _table(found.rows(SHOWN, tuple(found.columns)))
        c = found.columns
        groups = [(c["memory_per_gpu_bytes"][rows] / 1e9, c["step_time_s"][rows], color, label)
                  for rows, color, label in ((c["fits"], "#4c72b0", _("fits")),
                                             (~c["fits"], "#c44e52", _("does not fit"))) if rows.any()]
        self.chart.value = svg_scatter(groups, _("memory per GPU (GB)"), _("step time (s)"),
                                       marker=(best["memory_per_gpu_bytes"] / 1e9, best["step_time_s"]) if best
                                       else None, x_line=(usable / 1e9, _("usable")))


def _table(rows) -> str:
    head = ("TP", "CP", "PP", "DP", "ZeRO", _("micro-batch"), _("recompute"), _("TP in node"), _("memory/GPU"),
            _("step"), "MFU", _("compute"), _("bubble"), _("comm. exposed"))
    cells = [(r["tp"], r["cp"], r["pp"], r["dp"], r["zero"], r["micro_batch"], r["recompute"],
              _("yes") if r["tp_in_node"] else _("no"), format_bytes(r["memory_per_gpu_bytes"]),
              f"{r['step_time_s']:.2f} s",
              format_percent(r["mfu"], 1), f"{r['compute_s']:.2f} s", f"{r['bubble_s']:.2f} s",
              f"{r['exposed_comm_s']:.2f} s") for r in rows]
    th = "".join(f"<th style='padding:0 6px'>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td style='padding:0 6px;text-align:right'>{html.escape(str(x))}</td>"
                                    for x in row) + "</tr>" for row in cells)
    return f"<table style='font-size:0.85em;border-collapse:collapse'><tr>{th}</tr>{body}</table>"


def layout_explorer(**kwargs) -> LayoutExplorer:
    return LayoutExplorer(**kwargs)
