"""Chapter 3's calculators: the training planner (``plans.estimate_time``) and the serving roofline."""

from __future__ import annotations

import ipywidgets as w

from ...core import _validate as v
from ...catalog import hardware
from ... import plans
from ...core.i18n import _
from ...core.units import format_percent, parse_count
from ...core.limits import check_plausible
from .form import (Form, field_style, gpu_field, in_slider, model_field, option, price_field, text, weights_field,
                   whole)
from .charts import svg_chart


# What bounds a decoding step, as a summary says it.


class TrainingPlanner(Form):
    """How long and how much: a model or a parameter count, its tokens, a GPU and how many, MFU and a price."""

    MFU_RANGE = (0.05, 0.7)

    def __init__(self, model="llama-2-7b", tokens="1T", gpu="A100 80GB", gpus=256, mfu=0.4, price=None, params="",
                 seq_len=""):
        gpu = option("gpu", gpu, hardware.CATALOG)
        price = hardware.price_per_gpu_hour(gpu) if price is None else price
        style, layout = field_style()
        inputs = {
            "model": model_field(model),
            "params": w.Text(value=text("params", params), placeholder=_("e.g. 7B, or empty"),
                             description=_("parameters N"), style=style, layout=layout),
            "tokens": w.Text(value=text("tokens", tokens), description=_("training tokens"), style=style,
                             layout=layout),
            "seq_len": w.Text(value=text("seq_len", seq_len), placeholder=_("e.g. 4096, or empty"),
                              description=_("sequence length"), style=style, layout=layout),
            "gpu": gpu_field(gpu),
            "gpus": w.IntText(value=whole("gpus", gpus), description=_("GPUs"), style=style, layout=layout),
            "mfu": w.FloatSlider(value=in_slider("mfu", mfu, *self.MFU_RANGE), min=self.MFU_RANGE[0],
                                 max=self.MFU_RANGE[1], step=0.01, description=_("MFU"), style=style,
                                 layout=layout, continuous_update=False, readout_format=".0%"),
            "price": price_field(price),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-training-summary")
        self.result = self.estimate = None
        self._build(inputs, [self.summary, self.chart], "llmest-training-planner")
        self._price_follows_gpu()
        self._recompute()

    ALIASES = {**Form.ALIASES, "n_params": "params"}

    def _clear(self):
        self.result = self.estimate = None
        self.summary.value, self.chart.value = "", ""

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}
        given = value["params"].strip()
        tokens, n_params = parse_count(value["tokens"], "tokens"), parse_count(given, "params") if given else None
        check_plausible("tokens", tokens)
        check_plausible("n_params", n_params, "params")
        seq = value["seq_len"].strip()
        seq_len = v.check_whole("seq_len", parse_count(seq, "seq_len")) if seq else None
        est = self.estimate = plans.estimate_time(
            tokens, n_params=n_params,
            model=None if given else value["model"], gpus=value["gpus"], gpu=value["gpu"], mfu=value["mfu"],
            price_per_gpu_hour=self._price(value), seq_len=seq_len)
        self.result = dict(flops=est.flops, days=est.days, gpu_hours=est.gpu_hours, cost=est.cost_usd)
        hint = "<p><small>{}</small></p>".format(_(
            "Type a count under 'parameters' (e.g. 7B, as the material's exercises do) to use it instead; the hours "
            "scale with N.")) if est.n_params_from else ""
        self.summary.value = est._repr_html_() + hint
        counts = [2 ** k for k in range(3, 15)]
        series = [(counts, [est.days_on(g, mfu) for g in counts], color,
                   _("MFU {mfu}").format(mfu=format_percent(mfu, 0)))
                  for mfu, color in ((est.mfu, "#4c72b0"), (0.6, "#55a868"), (0.2, "#c44e52"))]
        self.chart.value = svg_chart(series, _("GPUs"), _("days"), marker=(est.gpus, est.days))


class RooflineExplorer(Form):
    """Serving speed: time per decoding step bound by memory bandwidth or by compute, tokens/s and cost."""

    BATCH_RANGE = (1, 1024)

    def __init__(self, model="llama-2-7b", gpu="A100 80GB", weights="bf16", context=2048, batch=8, price=None):
        gpu = option("gpu", gpu, hardware.CATALOG)
        price = hardware.price_per_gpu_hour(gpu) if price is None else price
        style, layout = field_style()
        low, high = self.BATCH_RANGE
        inputs = {
            "model": model_field(model),
            "gpu": gpu_field(gpu),
            "weights": weights_field(weights),
            "context": w.IntText(value=whole("context", context), description=_("context tokens"), style=style,
                                 layout=layout),
            "batch": w.IntSlider(value=v.check_int("batch", batch, minimum=low, maximum=high), min=low, max=high,
                                 description=_("batch"), style=style, layout=layout, continuous_update=False),
            "tp": w.IntText(value=1, description=_("tensor parallel"), style=style, layout=layout),
            "price": price_field(price),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-roofline-summary")
        self.estimate = self.serving = None
        self._build(inputs, [self.summary, self.chart], "llmest-roofline")
        self._price_follows_gpu()
        self._recompute()

    def _clear(self):
        self.estimate = self.serving = None
        self.summary.value, self.chart.value = "", ""

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}

        def at(batch):
            return plans.decode_estimate(value["model"], value["gpu"], batch=batch, seq_len=value["context"],
                                         weights=value["weights"], tp=value["tp"])

        serving = self.serving = plans.estimate_serving(
            value["model"], value["gpu"], batch=value["batch"], seq_len=value["context"],
            weights=value["weights"], tp=value["tp"], price_per_gpu_hour=self._price(value))
        est = self.estimate = serving.decode
        self.summary.value = serving._repr_html_()
        batches = [2 ** k for k in range(0, 11)]
        estimates = [at(b) for b in batches]
        series = [(batches, [e.tokens_per_s for e in estimates], "#4c72b0", _("tokens/s (roofline)")),
                  (batches, [b / e.memory_seconds for b, e in zip(batches, estimates)], "#dd8452", _("memory bound")),
                  (batches, [b / e.compute_seconds for b, e in zip(batches, estimates)], "#55a868",
                   _("compute bound"))]
        self.chart.value = svg_chart(series, _("batch"), "tokens/s", marker=(value["batch"], est.tokens_per_s))


def training_planner(**kwargs) -> TrainingPlanner:
    return TrainingPlanner(**kwargs)


def roofline_explorer(**kwargs) -> RooflineExplorer:
    return RooflineExplorer(**kwargs)
