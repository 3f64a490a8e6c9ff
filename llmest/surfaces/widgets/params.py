"""Chapter 1's calculator: a model's parameters by part, live."""

from __future__ import annotations

import math

import ipywidgets as w

from ...core import _validate as v
from ...formulas import model as m
from ...core._validate import InputError
from ...core.i18n import N_, _
from ...core.units import format_count, format_int, format_percent
from .form import FIT, changed_field, error_field, field_labels, labelled, option, row
from .render import breakdown_chart_html, error_html


def _derived_fields(cfg: m.ModelConfig) -> dict:
    """The fields a preset derives from others, set back to None so that they follow the inputs
    (head_dim follows hidden/heads unless the model sets its own, as Gemma does)."""
    derived = {}
    if cfg.head_dim * cfg.num_heads == cfg.hidden_size:
        derived["head_dim"] = None
    if cfg.is_moe and cfg.expert_ffn_hidden_size == cfg.ffn_hidden_size:
        derived["expert_ffn_hidden_size"] = None
    if cfg.moe_layers == cfg.num_layers:
        derived["moe_layers"] = None
    if cfg.embedding_dim == cfg.hidden_size:
        derived["embedding_dim"] = None
    return derived


class ParamCalculator:
    """Pick a model or set the shape by hand; see the count by part, live."""

    NUMBERS = {  # field: (label, minimum, maximum)
        "vocab_size": (N_("vocabulary V"), 1, 2_000_000),
        "num_heads": (N_("attention heads"), 1, 4096),
        "num_kv_heads": (N_("KV heads"), 1, 4096),
        "ffn_hidden_size": (N_("FFN width F"), 1, 2_000_000),
        "num_experts": (N_("experts (0 = dense)"), 0, 4096),
        "experts_per_token": (N_("experts per token"), 0, 4096),
    }

    def __init__(self, model: str = "llama-2-7b"):
        self._updating = False
        self.model = w.Dropdown(options=list(m.PRESETS), value=option("model", model, m.PRESETS),
                                description=_("model"),
                                style={"description_width": "11em"})
        style, layout = {"description_width": "11em"}, w.Layout(width="28em", max_width=FIT)
        self.inputs = {
            "hidden_size": w.IntSlider(min=64, max=32768, step=64, description=_("hidden size H"), style=style,
                                       layout=layout, continuous_update=False),
            "num_layers": w.IntSlider(min=1, max=200, description=_("layers L"), style=style, layout=layout,
                                      continuous_update=False),
        }
        for field, (label, low, high) in self.NUMBERS.items():
            self.inputs[field] = w.IntText(description=_(label), style=style,
                                            layout=w.Layout(width="22em", max_width=FIT))
        self.inputs["gated_ffn"] = w.Checkbox(description=_("gated FFN (SwiGLU: 3 matrices)"), indent=False)
        self.inputs["tie_embeddings"] = w.Checkbox(description=_("output head tied to the embedding"),
                                                  indent=False)
        self.errors = {field: w.HTML() for field in self.inputs}
        self.hidden_step_note = w.HTML()
        self.hidden_step_note.add_class("llmest-hidden-step")
        self.general_error = w.HTML()
        self.summary = w.HTML()
        self.chart = w.HTML(layout=w.Layout(width=FIT, max_width="40em"))
        self.count: m.ParamCount | None = None

        self.model.observe(self._load_preset, names="value")
        self.inputs["num_heads"].observe(self._kv_heads_follow, names="value")
        self.inputs["num_heads"].observe(self._fit_hidden_step, names="value")
        for box in self.inputs.values():
            box.observe(self._recompute, names="value")
        rows = [row(box, *([self.hidden_step_note] if field == "hidden_size" else []), self.errors[field])
                for field, box in self.inputs.items()]
        self.widget = w.VBox([self.model, *rows, self.general_error, self.summary, self.chart])
        # Stable handles for the browser test.
        self.widget.add_class("llmest-param-calculator")
        self.summary.add_class("llmest-summary")
        for field, box in self.inputs.items():
            box.add_class(f"llmest-{field}")
            self.errors[field].add_class(f"llmest-error-{field}")
        self._load_preset()

    def _load_preset(self, _=None):
        self._base = m.preset(self.model.value)
        self._derived = _derived_fields(self._base)
        self._updating = True
        try:
            self._set_hidden_steps(64, 64)  # the widest range first, so that the preset's size is not clamped
            for field, box in self.inputs.items():
                box.value = getattr(self._base, field)
        finally:
            self._updating = False
        self._fit_hidden_step()
        self._recompute()

    HIDDEN_MAX = 32768

    def _set_hidden_steps(self, step: int, minimum: int):
        slider = self.inputs["hidden_size"]
        with slider.hold_trait_notifications():  # min, max and step checked against each other once, at the end
            slider.max = max(self.HIDDEN_MAX // step * step, minimum, slider.value)
            slider.min, slider.step = minimum, step

    def _fit_hidden_step(self, change=None):
        """Slider stops that are all valid shapes. With head_dim = H / heads, H must be a multiple of the heads: a
        step of heads × gcd(head_dim, 64) keeps every stop one (GPT-2's 12 heads: 768, 1,536 ...; steps of 64 would
        make two stops in three invalid), and the model's own size is a stop. A model that sets its head_dim
        (Gemma) takes any multiple of 64."""
        if self._updating:
            return
        hidden, heads = self.inputs["hidden_size"].value, self.inputs["num_heads"].value
        if "head_dim" not in self._derived:
            self._set_hidden_steps(64, 64)
            self.hidden_step_note.value = "<small>{}</small>".format(
                _("steps of 64 (the model sets its head size, {head_dim})").format(head_dim=self._base.head_dim))
            return
        if not isinstance(heads, int) or heads < 1 or hidden % heads:
            self.hidden_step_note.value = ""  # the heads do not divide the hidden size: the message says so
            return
        step = heads * math.gcd(hidden // heads, 64)
        self._set_hidden_steps(step, step)
        self.hidden_step_note.value = "<small>{}</small>".format(
            _("steps of {step} ({heads} heads × {head_step}), so that the heads divide every size").format(
                step=f"{step:,}", heads=heads, head_step=step // heads))

    def _kv_heads_follow(self, change):
        """Multi-head attention stays multi-head: KV heads follow the heads while the two are equal."""
        kv = self.inputs["num_kv_heads"]
        if kv.value == change["old"]:
            self._updating = True
            try:
                kv.value = change["new"]
            finally:
                self._updating = False

    def config(self) -> m.ModelConfig:
        """The ModelConfig the fields describe (raises InputError naming the bad field)."""
        values = {field: box.value for field, box in self.inputs.items()}
        for field, (_label, low, high) in self.NUMBERS.items():
            v.check_int(field, values[field], minimum=low, maximum=high)
        if values["num_experts"] == 0:
            moe_fields = ("experts_per_token", "expert_ffn_hidden_size", "shared_expert_ffn_hidden_size",
                          "moe_layers")
            values.update({f: None for f in moe_fields}, num_shared_experts=0, shared_expert_gate=False)
        return self._base.replace(**{**self._derived, **values}, name="")

    def _recompute(self, change=None):
        if self._updating:
            return
        for label in (*self.errors.values(), self.general_error):
            label.value = ""
        try:
            cfg = self.config()
            count = m.count_params(cfg)
            rule = m.rule_params(cfg.hidden_size, cfg.num_layers, cfg.vocab_size)
        except InputError as err:
            field = error_field(err, self.errors, changed_field(self.inputs, change))
            self.errors.get(field, self.general_error).value = error_html(labelled(str(err),
                                                                                   field_labels(self.inputs)))
            self.count = None
            self.summary.value = '<span style="color:#555">{}</span>'.format(
                _("Fix the highlighted field to see the count."))
            self.chart.value = ""  # no chart of a model the fields no longer describe
            return
        self.count = count
        active = (_(" · active per token <b>{exact}</b> ({short})").format(
            exact=format_int(self.count.active), short=format_count(self.count.active))
            if self.count.active != self.count.total else "")
        self.summary.value = (
            _("Total <b>{exact}</b> ({short}){active}").format(
                exact=format_int(self.count.total), short=format_count(self.count.total), active=active)
            + "<br>" + _("The 12·H² rule (L·12H² + V·H) gives {rule}, {off} from the exact count.").format(
                rule=format_count(rule), off=format_percent(rule / self.count.total - 1, 1, signed=True)))
        self.chart.value = breakdown_chart_html(self.count)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def param_calculator(model: str = "llama-2-7b") -> ParamCalculator:
    return ParamCalculator(model)
