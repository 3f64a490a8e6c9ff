"""Chapter 4's calculators: the data planner (``plans.estimate_corpus``) and the scaling-law explorer."""

from __future__ import annotations

import ipywidgets as w

from ...formulas import data as dt
from ... import plans
from ...core.i18n import N_, _
from ...core.units import format_bytes, format_count, format_percent, parse_count
from ...core.limits import check_plausible
from .form import Form, field_style, in_slider, option, real, text
from .charts import svg_chart


# The languages of the mix, as a summary names them.
LANGUAGES = {"english": N_("english"), "chinese": N_("chinese"), "code": N_("code")}


class DataPlanner(Form):
    """Parameters ↔ tokens ↔ gigabytes: the 20× rule (or a chosen ratio), a language mix, the cleaning yield."""

    def __init__(self, params="7B", tokens_per_param=float(dt.TOKENS_PER_PARAM), english=0.7, chinese=0.2, code=0.1,
                 cleaning_yield=dt.WORKING_CLEANING_YIELD):
        style, layout = field_style()

        def share(name, value, label, low=0.0):
            return w.FloatSlider(value=in_slider(name, value, low, 1), min=low, max=1, step=0.05, style=style,
                                 description=label, layout=layout, continuous_update=False, readout_format=".0%")

        inputs = {
            "params": w.Text(value=text("params", params), description=_("parameters"), style=style, layout=layout),
            "tokens_per_param": w.FloatText(value=real("tokens_per_param", tokens_per_param),
                                            description=_("tokens per parameter"), style=style, layout=layout),
            "english": share("english", english, _("English share")),
            "chinese": share("chinese", chinese, _("Chinese share")),
            "code": share("code", code, _("code share")),
            "cleaning_yield": share("cleaning_yield", cleaning_yield, _("cleaning yield"), 0.05),
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
        total = sum(self.inputs[name].value for name in self.SHARES)
        if err.param != "mix" or abs(total - 1) <= 1e-9:  # the message's words are the reader's language
            return str(err)
        digits = 0 if abs(total - 1) >= 0.005 else 2  # never "add up to 100%" for a total just off it
        return _("shares add up to {total}; set them to add up to 100%.").format(total=format_percent(total, digits))

    def _update(self):
        value = {name: box.value for name, box in self.inputs.items()}
        n_params = parse_count(value["params"], "params")
        check_plausible("n_params", n_params, "params")
        est = self.estimate = plans.estimate_corpus(
            n_params, tokens_per_param=value["tokens_per_param"],
            mix={language: value[language] for language in self.SHARES},
            cleaning_yield=value["cleaning_yield"])
        self.result = dict(tokens=est.tokens, cleaned=est.cleaned_bytes, raw=est.raw_bytes)
        rows = "".join("<li>{}</li>".format(_("{language}: {cleaned} cleaned, at {rate} tokens per GB").format(
            language=_(LANGUAGES.get(language, language)), cleaned=format_bytes(b),
            rate=format_count(est.rates[language]))) for language, b in est.cleaned.items())
        self.summary.value = _(
            "<b>{tokens} tokens</b> ({ratio} per parameter)<ul>{rows}</ul>in all <b>{cleaned}</b> of cleaned text, "
            "<b>{raw}</b> of raw crawl at a {share} yield").format(
            tokens=format_count(est.tokens), ratio=f"{est.tokens_per_param:g}", rows=rows,
            cleaned=format_bytes(est.cleaned_bytes), raw=format_bytes(est.raw_bytes),
            share=format_percent(est.cleaning_yield, 0))


class ScalingExplorer(Form):
    """A FLOP budget → the compute-optimal N and D and the fitted loss, under either fit, with its isoFLOP curve."""

    def __init__(self, flops=5.76e23, fit="besiroglu"):
        style, layout = field_style()
        inputs = {
            "flops": w.FloatLogSlider(value=in_slider("flops", flops, 1e18, 1e27), base=10, min=18, max=27, step=0.1,
                                      description=_("FLOP budget"), style=style, layout=layout, continuous_update=False,
                                      readout_format=".2e"),
            "fit": w.Dropdown(options=list(dt.FITS), value=option("fit", fit, dt.FITS), description=_("loss fit"),
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
        self.summary.value = _(
            "optimum: <b>N = {n}</b>, <b>D = {d}</b> tokens ({ratio} per parameter), loss {loss}<br>the {rule}× rule: "
            "N = {rule_n}, D = {rule_d}").format(
            n=format_count(n), d=format_count(d), ratio=f"{d / n:,.1f}", loss=f"{law.loss(n, d):.3f}",
            rule=dt.TOKENS_PER_PARAM, rule_n=format_count(rule_n), rule_d=format_count(dt.chinchilla_tokens(rule_n)))
        sizes = [n * 10 ** (k / 10) for k in range(-13, 14)]
        series = [(sizes, [law.loss(s, budget / (6 * s)) for s in sizes], "#4c72b0", _("loss at this budget"))]
        self.chart.value = svg_chart(series, _("parameters N"), _("fitted loss"), marker=(n, law.loss(n, d)),
                                     y_log=False)


def data_planner(**kwargs) -> DataPlanner:
    return DataPlanner(**kwargs)


def scaling_explorer(**kwargs) -> ScalingExplorer:
    return ScalingExplorer(**kwargs)
