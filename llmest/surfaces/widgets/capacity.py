"""The serving chapter's capacity planner: a thin form over ``plans.plan_capacity``, the GPUs and layout for a load
under TTFT and TPOT targets (the serving planner, ``serving``, answers a static batch)."""

from __future__ import annotations

import ipywidgets as w

from ...catalog import hardware
from ... import plans
from ...core.i18n import _
from .form import (Form, field_style, gpu_field, in_slider, model_field, option, price_field, real, weights_field,
                   whole_field)


class CapacityPlanner(Form):
    """R requests a second of a prompt/answer mix under a TTFT and a TPOT target: the GPUs, the layout (tensor
    parallelism searched within the GPU's NVLink domain), the batch, and the price of input and output tokens."""

    HIT_RANGE = (0.0, 0.95)

    def __init__(self, model="llama-2-70b", gpu="H100 SXM", weights="bf16", requests_per_s=100.0, prompt_tokens=1024,
                 output_tokens=256, ttft_s=0.2, tpot_s=0.05, prefix_hit_rate=0.0, disaggregated=False, price=None):
        gpu = option("gpu", gpu, hardware.CATALOG)
        price = hardware.price_per_gpu_hour(gpu) if price is None else price
        style, layout = field_style()
        low, high = self.HIT_RANGE

        def number(name, value, label):
            return w.FloatText(value=real(name, value), description=label, style=style, layout=layout)

        inputs = {
            "model": model_field(model),
            "gpu": gpu_field(gpu),
            "weights": weights_field(weights),
            "requests_per_s": number("requests_per_s", requests_per_s, _("requests/s")),
            "prompt_tokens": whole_field("prompt_tokens", prompt_tokens, _("prompt tokens")),
            "output_tokens": whole_field("output_tokens", output_tokens, _("output tokens")),
            "ttft_s": number("ttft_s", ttft_s, _("TTFT target (s)")),
            "tpot_s": number("tpot_s", tpot_s, _("TPOT target (s)")),
            "prefix_hit_rate": w.FloatSlider(value=in_slider("prefix_hit_rate", prefix_hit_rate, low, high), min=low,
                                             max=high, step=0.05, description=_("prefix cache hits"), style=style,
                                             layout=layout, continuous_update=False, readout_format=".0%"),
            "disaggregated": w.Checkbox(value=bool(disaggregated), description=_("prefill and decode apart"),
                                        style=style, layout=layout),
            "price": price_field(price),
        }
        self.summary = w.HTML()
        self.summary.add_class("llmest-capacity-summary")
        self.plan = None
        self._build(inputs, [self.summary], "llmest-capacity-planner")
        self._price_follows_gpu()
        self._recompute()

    def _clear(self):
        self.plan = None
        self.summary.value = ""

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}
        self.plan = plans.plan_capacity(
            value["model"], value["gpu"], requests_per_s=value["requests_per_s"],
            prompt_tokens=value["prompt_tokens"], output_tokens=value["output_tokens"], ttft_s=value["ttft_s"],
            tpot_s=value["tpot_s"], weights=value["weights"], prefix_hit_rate=value["prefix_hit_rate"],
            disaggregated=value["disaggregated"], price_per_gpu_hour=self._price(value))
        self.summary.value = self.plan._repr_html_()


def capacity_planner(**kwargs) -> CapacityPlanner:
    return CapacityPlanner(**kwargs)
