"""Chapter 3's serving planner: a thin form over ``plans.estimate_request``."""

from __future__ import annotations

import ipywidgets as w

from ...core import _validate as v
from ...catalog import hardware
from ... import plans
from ...core.i18n import _
from .form import (Form, field_style, gpu_field, in_slider, model_field, option, price_field, weights_field,
                   whole_field)
from .charts import svg_chart

BATCHES = [2 ** k for k in range(0, 17)]   # the chart's batches, up to 65,536


class ServingPlanner(Form):
    """A static batch of requests: time to the first token, time per output token, throughput, memory per GPU, the
    largest batch the paged KV cache leaves room for, and the price of input and output tokens."""

    EFFICIENCY_RANGE = (0.05, 0.9)

    def __init__(self, model="llama-2-7b", gpu="A100 80GB", weights="bf16", tp=1, prompt_tokens=512,
                 output_tokens=256, batch=16, prefill_efficiency=plans.PREFILL_EFFICIENCY, price=None):
        gpu = option("gpu", gpu, hardware.CATALOG)
        price = hardware.price_per_gpu_hour(gpu) if price is None else price
        style, layout = field_style()
        low, high = self.EFFICIENCY_RANGE

        inputs = {
            "model": model_field(model),
            "gpu": gpu_field(gpu),
            "weights": weights_field(weights),
            "tp": whole_field("tp", tp, _("tensor parallel")),
            "prompt_tokens": whole_field("prompt_tokens", prompt_tokens, _("prompt tokens")),
            "output_tokens": whole_field("output_tokens", output_tokens, _("output tokens")),
            "batch": whole_field("batch", batch, _("batch")),
            "prefill_efficiency": w.FloatSlider(value=in_slider("prefill_efficiency", prefill_efficiency, low, high),
                                                min=low, max=high, step=0.01, description=_("prefill efficiency"),
                                                style=style, layout=layout, continuous_update=False,
                                                readout_format=".0%"),
            "price": price_field(price),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-serving-summary")
        self.estimate = None
        self._build(inputs, [self.summary, self.chart], "llmest-serving-planner")
        self._price_follows_gpu()
        self._recompute()

    ALIASES = {"price_per_gpu_hour": "price"}

    def _clear(self):
        self.estimate = None
        self.summary.value, self.chart.value = "", ""

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}
        v.check_int("batch", value["batch"])   # before the chart's batches are tried

        def at(batch):
            return plans.estimate_request(
                value["model"], value["gpu"], prompt_tokens=value["prompt_tokens"],
                output_tokens=value["output_tokens"], batch=batch, tp=value["tp"], weights=value["weights"],
                prefill_efficiency=value["prefill_efficiency"], price_per_gpu_hour=self._price(value))

        est = self.estimate = at(value["batch"])
        self.summary.value = est._repr_html_()
        batches = sorted({b for b in BATCHES if b <= max(1024, 2 * est.max_batch)} | {value["batch"]})
        estimates = [at(b) for b in batches]
        series = [(batches, [e.tokens_per_s for e in estimates], "#4c72b0", "tokens/s"),
                  (batches, [e.tpot_s * 1e3 for e in estimates], "#dd8452", "TPOT (ms)")]
        largest = _("largest batch {max_batch}").format(max_batch=f"{est.max_batch:,}")
        self.chart.value = svg_chart(series, _("batch"), _("tokens/s · ms per token"),
                                     marker=(value["batch"], est.tokens_per_s),
                                     vline=(est.max_batch, largest) if est.max_batch else None)


def serving_planner(**kwargs) -> ServingPlanner:
    return ServingPlanner(**kwargs)
