"""The plumbing of the calculators: labelled inputs, each with its error beside it, recomputed on change; and the
checks of the arguments that set the fields when a calculator is made."""

from __future__ import annotations

import math
import numbers
import re
import unicodedata

import ipywidgets as w

from ...core import _validate as v
from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ...core._validate import InputError
from ...core.i18n import _
from ...core.limits import LIMITS, check_plausible
from .render import error_html


def error_field(err: InputError, fields, changed=None, aliases=None):
    """The field to show ``err`` beside: the one just changed when the error names no field (a limit on a result,
    such as the mix of shares) or names the changed field too (hidden size vs heads); else the field it names;
    None for the general message."""
    field = (aliases or {}).get(err.param, err.param)
    if changed in fields and changed != field and (
            field not in fields or re.search(rf"(?<!\w){re.escape(changed)}(?!\w)", str(err))):
        return changed
    return field if field in fields else None


def labelled(message: str, labels: dict) -> str:
    """The message in the reader's terms: the field it begins with by its label ("vocab_size == 0, must be >= 1"
    becomes "vocabulary V = 0, must be >= 1") and each field it quotes ('hidden_size') by its label
    ('hidden size H'). A value quoted back ("params == 'gpus'") or a key ("mix['code']") is left as it is."""
    head = re.match(r"(\w+) == ", message)
    if head and head[1] in labels:
        message = f"{labels[head[1]]} = {message[head.end():]}"
    return re.sub(r"(?<!= )(?<!\[)'(\w+)'", lambda m: f"'{labels[m[1]]}'" if m[1] in labels else m[0], message)


def field_labels(inputs: dict, aliases: dict | None = None) -> dict:
    """Each field's label, by the field's name and by the library parameter it feeds (``aliases``)."""
    labels = {name: box.description for name, box in inputs.items() if getattr(box, "description", "")}
    return {**labels, **{param: labels[field] for param, field in (aliases or {}).items() if field in labels}}


def check_limits(values: dict, aliases: dict) -> None:
    """The fields' values within the limits of plausibility of the library parameters they feed (llmest.core.limits);
    ``aliases`` maps a parameter to the field that feeds it, when they are spelled differently."""
    fields = {field: param for param, field in aliases.items()}
    for name, value in values.items():
        param = fields.get(name, name)
        if param in LIMITS:
            check_plausible(param, value, name)


def changed_field(inputs: dict, change):
    owner = change.get("owner") if isinstance(change, dict) else None
    return next((name for name, box in inputs.items() if box is owner), None)


class Form:
    """Shared plumbing of the chapter 3 and 4 widgets: labelled inputs with an error beside each, recomputed on
    change. ``ALIASES`` maps a library parameter name to the field that feeds it."""

    ALIASES = {"price_per_gpu_hour": "price", "seq_len": "context"}

    def _build(self, inputs: dict, outputs: list, css: str):
        self.inputs = inputs
        self.errors = {name: w.HTML() for name in inputs}
        self.general_error = w.HTML()
        rows = [row(box, self.errors[name]) for name, box in inputs.items()]
        self.widget = w.VBox([*rows, self.general_error, *outputs])
        self.widget.add_class(css)
        for name, box in inputs.items():
            box.add_class(f"llmest-{name}")
            box.observe(self._recompute, names="value")

    def _recompute(self, change=None):
        for label in (*self.errors.values(), self.general_error):
            label.value = ""
        try:
            check_limits({name: box.value for name, box in self.inputs.items()}, self.ALIASES)
            self._update()
        except InputError as err:
            self._clear()
            field = error_field(err, self.errors, changed_field(self.inputs, change), self.ALIASES)
            self.errors.get(field, self.general_error).value = error_html(labelled(self._message(err),
                                                                                   field_labels(self.inputs,
                                                                                                self.ALIASES)))

    def _price_follows_gpu(self):
        """A GPU chosen brings its listed price into the price field (the plans' own default), so that the
        calculator and the command line price a GPU alike; a GPU with no listed price keeps the price typed."""
        def follow(change):
            listed = hardware.PRICE_PER_GPU_HOUR.get(change["new"])
            if listed:
                self.inputs["price"].value = listed[0]

        self.inputs["gpu"].observe(follow, names="value")

    def _price(self, value: dict):
        """The price to give a plan: None where the field holds the GPU's listed price, so the result says it is
        the listed one and where it comes from."""
        listed = hardware.PRICE_PER_GPU_HOUR.get(value["gpu"])
        return None if listed and value["price"] == listed[0] else value["price"]

    def _message(self, err: InputError) -> str:
        """What to say of ``err`` beside its field (a calculator may say it in the field's own terms)."""
        return str(err)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


# ----------------------------------------------------------------------------------------------------------------
# The arguments of a calculator, checked before they set its fields (a field would refuse them with a TraitError
# or clamp them silently)
# ----------------------------------------------------------------------------------------------------------------

def option(name: str, value, options):
    """One of a dropdown's options, by its name or one that differs only in case and punctuation."""
    return v.lookup(name, value, {key: key for key in options})


def whole(name: str, value) -> int:
    """An integer for an integer field; its range is the field's message."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(name, _("{name} == {value}, must be an integer.").format(name=name, value=repr(value)))
    return int(value)


def real(name: str, value) -> float:
    """A number for a number field; its range is the field's message."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(name, _("{name} == {value}, must be a number.").format(name=name, value=repr(value)))
    return float(value)


def text(name: str, value) -> str:
    """The text of a text field: a string, or a number written out."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        # Every digit, so that the field reads back the number given (1048576, not 1.04858e+06).
        return str(int(value)) if math.isfinite(value) and float(value).is_integer() else repr(float(value))
    raise InputError(name, _("{name} == {value}, must be text such as {example} or a number.").format(
        name=name, value=repr(value), example='"7B"'))


def in_slider(name: str, value, low, high):
    """A value inside a slider's range (a slider would clamp one outside without a word)."""
    return v.check_number(name, real(name, value), low=low, high=high)


# The most a field or chart may take: its row, less its margins (a widget's margin is outside its width, so 100%
# would run 4 px past a phone's screen and give the box a sideways scroll bar).
FIT = "calc(100% - 2 * var(--jp-widgets-margin, 2px))"


# The longest answer a reader types with its unit, in digit widths (CSS ch): "260,000,000,000（2600亿）" or "about
# 93,483 GPU-hours" (tests/test_widgets.py holds it to every exercise's and drill's answer).
ANSWER_COLUMNS = 26


def columns(text: str) -> int:
    """How many digit widths (CSS ch) ``text`` takes, about: a Chinese character two, any other one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def answer_width(placeholder: str) -> str:
    """An answer box's width: its placeholder or the longest answer, whichever is wider, and the box's padding.
    Its max-width (FIT) narrows it to a phone's page."""
    return f"{max(columns(placeholder), ANSWER_COLUMNS) + 3}ch"


def choices(values) -> list:
    """A toggle's options: each value shown by its label in the reader's language, (label, value) where they
    differ, so that the value stays the library's name."""
    pairs = [(_(value), value) for value in values]
    return [value for label, value in pairs] if all(label == value for label, value in pairs) else pairs


def row(*children) -> w.HBox:
    """A field and its message side by side, the message below on a screen too narrow for both."""
    return w.HBox(list(children), layout=w.Layout(flex_flow="row wrap", align_items="center"))


def field_style():
    # max_width: a 390 px phone gets the field at its own width, not a page that scrolls sideways.
    return {"description_width": "11em"}, w.Layout(width="23em", max_width=FIT)


def model_field(value):
    style, layout = field_style()
    return w.Dropdown(options=list(m.PRESETS), value=option("model", value, m.PRESETS), description=_("model"),
                      style=style, layout=layout)


def gpu_field(value):
    style, layout = field_style()
    return w.Dropdown(options=list(hardware.CATALOG), value=option("gpu", value, hardware.CATALOG), description="GPU",
                      style=style, layout=layout)


def weights_field(value):
    style, layout = field_style()
    return w.Dropdown(options=list(mem.WEIGHT_FORMATS), value=option("weights", value, mem.WEIGHT_FORMATS),
                      description=_("weights"), style=style, layout=layout)


def whole_field(name, value, label):
    style, layout = field_style()
    return w.IntText(value=whole(name, value), description=label, style=style, layout=layout)


def price_field(value):
    style, layout = field_style()
    return w.FloatText(value=real("price", value), description=_("$ per GPU-hour"), style=style, layout=layout)
