"""A static copy of a widget, drawn from the state the notebook saved when it ran, for the static pages.

The chapters in ``solutions/`` are executed with the widgets' state stored in the notebook's metadata
(``application/vnd.jupyter.widget-state+json``): every model of every widget tree with its values, so the HTML a
calculator printed, the fields' values and the buttons are all there. ipywidgets' own embedding would need its
widget manager from the web (it ships on npm only), so the pages draw the same tree as plain, inert HTML instead.
Nothing here computes: it copies what the library produced when the chapter ran.
"""

from __future__ import annotations

import html
import math

VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
_PREFIX = "IPY_MODEL_"
# The layout properties that a static copy keeps, as CSS.
_LAYOUT_CSS = ("width", "max_width", "min_width", "height", "margin", "padding", "border", "flex_flow", "overflow")


def saved_models(nb) -> dict:
    """The widget models the notebook saved, by model id (empty when it saved none)."""
    return dict(nb.metadata.get("widgets", {}).get(STATE, {}).get("state", {}))


def static_copy(view: dict, models: dict) -> str | None:
    """HTML for the widget a ``widget-view+json`` output displays, or None where its model was not saved."""
    model_id = view.get("model_id", "")
    if model_id not in models:
        return None
    return _draw(model_id, models)


def _ref(value: str) -> str:
    return value[len(_PREFIX):] if value.startswith(_PREFIX) else value


def _state_of(ref, models: dict) -> dict:
    return models.get(_ref(ref or ""), {}).get("state", {})


def _draw(model_id: str, models: dict) -> str:
    model = models.get(_ref(model_id))
    if model is None:
        return ""
    state = model["state"]
    layout = _state_of(state.get("layout"), models)
    if layout.get("display") == "none" or layout.get("visibility") == "hidden":
        return ""  # hidden when the chapter ran (a hint not yet opened, say): hidden here too
    name = model["model_name"].removesuffix("Model")
    draw = _DRAWERS.get(name) or (_box if "children" in state else _field)
    classes = " ".join(["llmest-w", f"llmest-w-{name.lower()}", *state.get("_dom_classes", [])])
    css = ";".join(f"{key.replace('_', '-')}:{layout[key]}" for key in _LAYOUT_CSS if layout.get(key))
    style = f' style="{html.escape(css)}"' if css else ""
    return f'<div class="{html.escape(classes)}"{style}>{draw(state, models)}</div>'


def _box(state: dict, models: dict) -> str:
    return "".join(_draw(child, models) for child in state.get("children", []))


def _description(state: dict, models: dict) -> str:
    text = state.get("description") or ""
    if not text:
        return ""
    width = _state_of(state.get("style"), models).get("description_width") or ""
    style = f' style="width:{html.escape(width)}"' if width else ""
    shown = text if state.get("description_allow_html") else html.escape(text)
    return f'<span class="llmest-w-description"{style}>{shown}</span>'


def _html(state: dict, models: dict) -> str:
    return state.get("value") or ""


def _html_math(state: dict, models: dict) -> str:
    # The pages' MathJax skips HTML outputs, widgets among them (JupyterLab's HTML widget typesets nothing either);
    # HTMLMath asks for it back.
    return f'<span class="tex2jax_process">{_html(state, models)}</span>'


def _label(state: dict, models: dict) -> str:
    return html.escape(str(state.get("value") or ""))


def _button(state: dict, models: dict) -> str:
    kind = state.get("button_style") or ""
    pressed = ' aria-pressed="true"' if state.get("value") is True else ""
    return f'<button disabled class="llmest-w-button-{html.escape(kind)}"{pressed}>' \
           f'{html.escape(state.get("description") or "")}</button>'


def _checkbox(state: dict, models: dict) -> str:
    checked = " checked" if state.get("value") else ""
    return f'<label><input type="checkbox" disabled{checked}> {html.escape(state.get("description") or "")}</label>'


def _chosen(state: dict) -> str:
    labels, index = state.get("_options_labels") or [], state.get("index")
    return labels[index] if isinstance(index, int) and 0 <= index < len(labels) else ""


def _dropdown(state: dict, models: dict) -> str:
    return f'{_description(state, models)}<select disabled><option selected>{html.escape(_chosen(state))}</option>' \
           "</select>"


def _toggle_buttons(state: dict, models: dict) -> str:
    chosen, pressed = _chosen(state), ' aria-pressed="true"'
    buttons = "".join(f'<button disabled{pressed if label == chosen else ""}>{html.escape(label)}</button>'
                      for label in state.get("_options_labels") or [])
    return f"{_description(state, models)}<span class=\"llmest-w-toggles\">{buttons}</span>"


def _readout(state: dict) -> str:
    value = state.get("value")
    try:
        return format(value, state.get("readout_format") or "")
    except (TypeError, ValueError):  # a d3 format that Python does not read: the plain value
        return str(value)


def _slider(state: dict, models: dict, position=None) -> str:
    value = state.get("value") if position is None else position
    attrs = " ".join(f'{key}="{html.escape(str(state[key]))}"' for key in ("min", "max", "step") if key in state)
    return f'{_description(state, models)}<input type="range" disabled {attrs} value="{html.escape(str(value))}">' \
           f"<output>{html.escape(_readout(state))}</output>"


def _log_slider(state: dict, models: dict) -> str:
    # Its min, max and step are exponents of its base; the range input shows where the value sits among them.
    value, base = state.get("value"), state.get("base") or 10
    position = math.log(value, base) if isinstance(value, (int, float)) and value > 0 else None
    return _slider(state, models, position)


def _textarea(state: dict, models: dict) -> str:
    placeholder = html.escape(state.get("placeholder") or "")
    return f'{_description(state, models)}<textarea disabled placeholder="{placeholder}">' \
           f'{html.escape(str(state.get("value") or ""))}</textarea>'


def _field(state: dict, models: dict) -> str:
    """A text or number entry, and any other control: its label and the value it held."""
    value = state.get("value")
    shown = "" if value is None else html.escape(str(value))
    placeholder = html.escape(state.get("placeholder") or "")
    return f'{_description(state, models)}<input type="text" disabled value="{shown}" placeholder="{placeholder}">'


_DRAWERS = {
    "HTML": _html, "HTMLMath": _html_math, "Label": _label,
    "Button": _button, "ToggleButton": _button, "Checkbox": _checkbox,
    "Dropdown": _dropdown, "ToggleButtons": _toggle_buttons, "RadioButtons": _toggle_buttons,
    "IntSlider": _slider, "FloatSlider": _slider, "FloatLogSlider": _log_slider, "Textarea": _textarea,
}
