"""Chapter 4's calculators: the data planner (``plans.estimate_corpus``) and the scaling-law explorer."""

from __future__ import annotations

import ipywidgets as w

from .. import data as dt
from .. import plans
from ..units import format_bytes, format_count, format_percent, parse_count
from ..limits import check_plausible
from .form import Form, field_style, in_slider, option, real, text
from .render import svg_chart


class DataPlanner(Form):
    """Parameters ↔ tokens ↔ gigabytes: the 20× rule (or a chosen ratio), a language mix, the cleaning yield."""

    def __init__(self, params="7B", tokens_per_param=float(dt.TOKENS_PER_PARAM), english=0.7, chinese=0.2, code=0.1,
                 cleaning_yield=dt.WORKING_CLEANING_YIELD):
        style, layout = field_style()

        def share(name, value, low=0.0, label=None):
            return w.FloatSlider(value=in_slider(name, value, low, 1), min=low, max=1, step=0.05, style=style,
                                 description=label or f"{name.capitalize()} share", layout=layout,
                                 continuous_update=False, readout_format=".0%")

        inputs = {
            "params": w.Text(value=text("params", params), description="parameters", style=style, layout=layout),
            "tokens_per_param": w.FloatText(value=real("tokens_per_param", tokens_per_param),
                                            description="tokens per parameter", style=style, layout=layout),
            "english": share("english", english),
            "chinese": share("chinese", chinese),
            "code": share("code", code, label="code share"),
            "cleaning_yield": share("cleaning_yield", cleaning_yield, 0.05, "cleaning yield"),
        }
        self.summary = w.HTML()
        self.summary.add_class("llmest-data-summary")
        self.result = self.estimate = None
        self._build(inputs, [self.summary], "llmest-data-planner")
        self._recompute()

    ALIASES = {**Form.ALIASES, "n_params": "params"}  # an error of the mix sits beside the share just changed

    def _clear(self):
        self.result = self.estimate = None
        self.summary.value = ""

    SHARES = ("english", "chinese", "code")

    def _message(self, err):
        """The mix's total in the sliders' own unit, percent: "shares add up to 125%", not "sum to 1.25"."""
        if err.param != "mix" or "sum to" not in str(err):
            return str(err)
        total = sum(self.inputs[name].value for name in self.SHARES)
        digits = 0 if abs(total - 1) >= 0.005 else 2  # never "add up to 100%" for a total just off it
        return f"shares add up to {format_percent(total, digits)}; set them to add up to 100%."

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}
        n_params = parse_count(value["params"], "params")
        check_plausible("n_params", n_params, "params")
        est = self.estimate = plans.estimate_corpus(
            n_params, tokens_per_param=value["tokens_per_param"],
            mix={language: value[language] for language in self.SHARES},
            cleaning_yield=value["cleaning_yield"])
        self.result = dict(tokens=est.tokens, cleaned=est.cleaned_bytes, raw=est.raw_bytes)
        rows = "".join(f"<li>{language}: {format_bytes(b)} cleaned, at {format_count(est.rates[language])} tokens "
                       "per GB</li>" for language, b in est.cleaned.items())
        self.summary.value = (f"<b>{format_count(est.tokens)} tokens</b> ({est.tokens_per_param:g} per parameter)"
                              f"<ul>{rows}</ul>in all <b>{format_bytes(est.cleaned_bytes)}</b> of cleaned text, "
                              f"<b>{format_bytes(est.raw_bytes)}</b> of raw crawl at a "
                              f"{format_percent(est.cleaning_yield, 0)} "
                              "yield")


class ScalingExplorer(Form):
    """A FLOP budget → the compute-optimal N and D and the fitted loss, under either fit, with its isoFLOP curve."""

    def __init__(self, flops=5.76e23, fit="besiroglu"):
        style, layout = field_style()
        inputs = {
            "flops": w.FloatLogSlider(value=in_slider("flops", flops, 1e18, 1e27), base=10, min=18, max=27, step=0.1,
                                      description="FLOP budget", style=style, layout=layout, continuous_update=False,
                                      readout_format=".2e"),
            "fit": w.Dropdown(options=list(dt.FITS), value=option("fit", fit, dt.FITS), description="loss fit",
                              style=style, layout=layout),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-scaling-summary")
        self.optimum = None
        self._build(inputs, [self.summary, self.chart], "llmest-scaling-explorer")
        self._recompute()

    def _clear(self):
        self.optimum, self.summary.value, self.chart.value = None, "", ""

    def _update(self):
        budget = self.inputs["flops"].value
        law = dt.fit(self.inputs["fit"].value)
        n, d = self.optimum = law.optimal(budget)
        rule_n = dt.chinchilla_params_for_flops(budget)
        self.summary.value = (
            f"optimum: <b>N = {format_count(n)}</b>, <b>D = {format_count(d)}</b> tokens "
            f"({d / n:,.1f} per parameter), loss {law.loss(n, d):.3f}<br>the {dt.TOKENS_PER_PARAM}× rule: N = "
            f"{format_count(rule_n)}, D = {format_count(dt.chinchilla_tokens(rule_n))}")
        sizes = [n * 10 ** (k / 10) for k in range(-13, 14)]
        series = [(sizes, [law.loss(s, budget / (6 * s)) for s in sizes], "#4c72b0", "loss at this budget")]
        self.chart.value = svg_chart(series, "parameters N", "fitted loss", marker=(n, law.loss(n, d)), y_log=False)


def data_planner(**kwargs) -> DataPlanner:
    return DataPlanner(**kwargs)


def scaling_explorer(**kwargs) -> ScalingExplorer:
    return ScalingExplorer(**kwargs)
