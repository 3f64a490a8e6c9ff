"""The plumbing of the calculators: labelled inputs, each with its error beside it, recomputed on change."""

from __future__ import annotations

import ipywidgets as w

from .. import hardware
from .. import model as m
from .._validate import InputError
from .render import error_html


class Form:
    """Shared plumbing of the chapter 3 widgets: labelled inputs with an error beside each, recomputed on change.
    ``ALIASES`` maps a library parameter name to the field that feeds it."""

    ALIASES = {"price_per_gpu_hour": "price", "seq_len": "context"}

    def _build(self, inputs: dict, outputs: list, css: str):
        self.inputs = inputs
        self.errors = {name: w.HTML() for name in inputs}
        self.general_error = w.HTML()
        rows = [w.HBox([box, self.errors[name]]) for name, box in inputs.items()]
        self.widget = w.VBox([*rows, self.general_error, *outputs])
        self.widget.add_class(css)
        for name, box in inputs.items():
            box.add_class(f"llmest-{name}")
            box.observe(self._recompute, names="value")

    def _recompute(self, _=None):
        for label in (*self.errors.values(), self.general_error):
            label.value = ""
        try:
            self._update()
        except InputError as err:
            field = self.ALIASES.get(err.param, err.param)
            self.errors.get(field, self.general_error).value = error_html(str(err))
            self._clear()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def field_style():
    return {"description_width": "10em"}, w.Layout(width="22em")


def model_field(value):
    style, layout = field_style()
    return w.Dropdown(options=list(m.PRESETS), value=value, description="model", style=style, layout=layout)


def gpu_field(value):
    style, layout = field_style()
    return w.Dropdown(options=list(hardware.CATALOG), value=value, description="GPU", style=style, layout=layout)


def price_field(value):
    style, layout = field_style()
    return w.FloatText(value=value, description="$ per GPU-hour", style=style, layout=layout)
