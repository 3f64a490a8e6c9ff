"""Chapter 3's serving planner: a thin form over ``plans.estimate_request``."""

from __future__ import annotations

import ipywidgets as w

from .. import _validate as v
from .. import hardware
from .. import memory as mem
from .. import plans
from ..i18n import _
from ..units import format_bytes, format_flops, format_percent, format_usd
from .form import Form, field_style, gpu_field, in_slider, model_field, option, price_field, whole
from .compute import BOUNDS
from .render import svg_chart

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

        def integer(name, value, label):
            return w.IntText(value=whole(name, value), description=label, style=style, layout=layout)

        inputs = {
            "model": model_field(model),
            "gpu": gpu_field(gpu),
            "weights": w.Dropdown(options=list(mem.WEIGHT_FORMATS), description=_("weights"), style=style,
                                  layout=layout,
                                  value=option("weights", weights, mem.WEIGHT_FORMATS)),
            "tp": integer("tp", tp, _("tensor parallel")),
            "prompt_tokens": integer("prompt_tokens", prompt_tokens, _("prompt tokens")),
            "output_tokens": integer("output_tokens", output_tokens, _("output tokens")),
            "batch": integer("batch", batch, _("batch")),
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
                prefill_efficiency=value["prefill_efficiency"], price_per_gpu_hour=value["price"])

        est = self.estimate = at(value["batch"])
        s = est.settings
        fits = ('<span style="color:#1b7f3b">{}</span>'.format(_("fits")) if est.fits else
                '<span style="color:#b00020">{}</span>'.format(_("does not fit")))
        self.summary.value = _(
            "<b>TTFT {ttft} ms</b> ({flops} FLOPs of prefill, {prefill_bound}) · <b>TPOT {tpot} ms</b> at {context} "
            "tokens of context ({bound}) · <b>{speed} tokens/s</b> while decoding · a request takes {request} s<br>"
            "memory per GPU {per_gpu}: {fits} with {margin} kept free · <b>largest batch {max_batch}</b> ({blocks} "
            "blocks of {block_tokens} tokens a sequence, {waste} empty in the last)<br>{input_price} per million "
            "input tokens · {output_price} per million output tokens").format(
            ttft=f"{est.ttft_s * 1e3:,.1f}", flops=format_flops(est.prefill_flops),
            prefill_bound=_(BOUNDS[est.prefill_bound]), tpot=f"{est.tpot_s * 1e3:,.2f}",
            context=f"{est.decode_context_tokens:,}", bound=_(BOUNDS[est.bound]), speed=f"{est.tokens_per_s:,.0f}",
            request=f"{est.request_s:,.2f}", per_gpu=format_bytes(est.memory_per_gpu_bytes), fits=fits,
            margin=format_percent(s["margin"], 0), max_batch=f"{est.max_batch:,}",
            blocks=f"{est.blocks_per_sequence:,}", block_tokens=s["block_tokens"],
            waste=format_bytes(est.waste_bytes_per_sequence), input_price=format_usd(est.usd_per_million_input_tokens),
            output_price=format_usd(est.usd_per_million_output_tokens))
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
