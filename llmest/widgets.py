"""Calculators and the exercise widget. They only gather input and call the library; a bad value gets its
message beside the field, never a traceback."""

from __future__ import annotations

import html
import threading

import ipywidgets as w

from . import _validate as v
from . import model as m
from .plots import PART_COLORS
from ._validate import InputError
from .units import format_bytes, format_count, format_int, format_usd

ERROR_STYLE = "color:#b00020;font-size:0.9em"


def _error_html(message: str) -> str:
    return f'<span style="{ERROR_STYLE}">{html.escape(message)}</span>' if message else ""


def bar_chart_html(rows, title: str = "") -> str:
    """A horizontal bar chart in HTML: rows of (label, value, text, color). Live widgets use it because it
    redraws in well under a millisecond, where a matplotlib figure takes tens of milliseconds."""
    largest = max((value for _, value, _, _ in rows), default=0) or 1
    lines = [f'<div style="font-size:0.9em;font-weight:bold;margin:4px 0">{html.escape(title)}</div>'] if title else []
    for label, value, text, color in rows:
        lines.append(
            '<div style="display:flex;align-items:center;font-size:0.85em;line-height:1.5">'
            f'<div style="width:11em;text-align:right;padding-right:6px">{html.escape(label)}</div>'
            f'<div style="width:{60 * value / largest:.2f}%;background:{color};height:1em"></div>'
            f'<div style="padding-left:6px;white-space:nowrap">{html.escape(text)}</div></div>')
    return "".join(lines)


def breakdown_chart_html(count: m.ParamCount) -> str:
    rows = [(part.replace("_", " "), n, f"{format_count(n)} ({n / count.total:.1%})", PART_COLORS[part])
            for part, n in count.parts.items() if n]
    return bar_chart_html(rows, "parameters by part")


# ----------------------------------------------------------------------------------------------------------------
# Exercises
# ----------------------------------------------------------------------------------------------------------------

GRADE_COLORS = {"correct": "#1b7f3b", "close": "#9a6700", "wrong": "#b00020", "empty": "#555", "invalid": "#b00020"}


def verdict_html(result) -> str:
    return f'<span style="color:{GRADE_COLORS[result.grade]}">{html.escape(result.message)}</span>'


def exercise_widget(ex) -> w.VBox:
    """Question, an entry box, Check and Hint buttons, and the verdict."""
    from .exercises import entry_placeholder

    entry = w.Text(placeholder=entry_placeholder(ex.unit), layout=w.Layout(width="16em"))
    check = w.Button(description="Check", button_style="primary", layout=w.Layout(width="6em"))
    hint = w.Button(description="Hint", layout=w.Layout(width="6em"))
    verdict = w.HTML()
    hints = w.HTML()

    def on_check(_=None):
        verdict.value = verdict_html(ex.check(entry.value))

    def on_hint(_=None):
        hints.value = "<br>".join(html.escape(line) for line in ex.hint().splitlines())

    check.on_click(on_check)
    hint.on_click(on_hint)
    box = w.VBox([w.HTML(f"<b>Exercise {ex.key}.</b> {html.escape(ex.question)}"),
                  w.HBox([entry, check, hint]), verdict, hints])
    box.add_class("llmest-exercise")  # a stable handle for the browser test
    box.entry, box.check_button, box.hint_button, box.verdict, box.hints = entry, check, hint, verdict, hints
    return box


# ----------------------------------------------------------------------------------------------------------------
# Chapter 1: the parameter calculator
# ----------------------------------------------------------------------------------------------------------------

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
        "vocab_size": ("vocabulary V", 1, 2_000_000),
        "num_heads": ("attention heads", 1, 4096),
        "num_kv_heads": ("KV heads", 1, 4096),
        "ffn_hidden_size": ("FFN width F", 1, 2_000_000),
        "num_experts": ("experts (0 = dense)", 0, 4096),
        "experts_per_token": ("experts per token", 0, 4096),
    }

    def __init__(self, model: str = "llama-2-7b"):
        self._updating = False
        self.model = w.Dropdown(options=list(m.PRESETS), value=model, description="model",
                                style={"description_width": "11em"})
        style, layout = {"description_width": "11em"}, w.Layout(width="28em")
        self.inputs = {
            "hidden_size": w.IntSlider(min=64, max=32768, step=64, description="hidden size H", style=style,
                                       layout=layout, continuous_update=False),
            "num_layers": w.IntSlider(min=1, max=200, description="layers L", style=style, layout=layout,
                                      continuous_update=False),
        }
        for field, (label, low, high) in self.NUMBERS.items():
            self.inputs[field] = w.IntText(description=label, style=style, layout=w.Layout(width="22em"))
        self.inputs["gated_ffn"] = w.Checkbox(description="gated FFN (SwiGLU: 3 matrices)", indent=False)
        self.inputs["tie_embeddings"] = w.Checkbox(description="output head tied to the embedding", indent=False)
        self.errors = {field: w.HTML() for field in self.inputs}
        self.general_error = w.HTML()
        self.summary = w.HTML()
        self.chart = w.HTML(layout=w.Layout(width="40em"))
        self.count: m.ParamCount | None = None

        self.model.observe(self._load_preset, names="value")
        self.inputs["num_heads"].observe(self._kv_heads_follow, names="value")
        for box in self.inputs.values():
            box.observe(self._recompute, names="value")
        rows = [w.HBox([box, self.errors[field]]) for field, box in self.inputs.items()]
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
            for field, box in self.inputs.items():
                box.value = getattr(self._base, field)
        finally:
            self._updating = False
        self._recompute()

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
        if values["num_experts"] == 0:
            moe_fields = ("experts_per_token", "expert_ffn_hidden_size", "shared_expert_ffn_hidden_size",
                          "moe_layers")
            values.update({f: None for f in moe_fields}, num_shared_experts=0, shared_expert_gate=False)
        return self._base.replace(**{**self._derived, **values}, name="")

    def _recompute(self, _=None):
        if self._updating:
            return
        for label in (*self.errors.values(), self.general_error):
            label.value = ""
        try:
            cfg = self.config()
        except InputError as err:
            target = self.errors.get(err.param, self.general_error)
            target.value = _error_html(str(err))
            self.count = None
            self.summary.value = '<span style="color:#555">Fix the highlighted field to see the count.</span>'
            self.chart.value = ""  # no chart of a model the fields no longer describe
            return
        self.count = m.count_params(cfg)
        rule = m.rule_params(cfg.hidden_size, cfg.num_layers, cfg.vocab_size)
        active = (f" · active per token <b>{format_int(self.count.active)}</b> ({format_count(self.count.active)})"
                  if self.count.active != self.count.total else "")
        self.summary.value = (
            f"Total <b>{format_int(self.count.total)}</b> ({format_count(self.count.total)}){active}"
            f"<br>The 12·H² rule (L·12H² + V·H) gives {format_count(rule)}, "
            f"{rule / self.count.total - 1:+.1%} from the exact count.")
        self.chart.value = breakdown_chart_html(self.count)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def param_calculator(model: str = "llama-2-7b") -> ParamCalculator:
    return ParamCalculator(model)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 2: the memory planner
# ----------------------------------------------------------------------------------------------------------------

_MEMORY_LABELS = {"weights": "weights", "gradients": "gradients", "optimizer": "optimizer + master",
                  "adapters": "adapters", "activations": "activations", "kv_cache": "KV cache", "overhead": "overhead"}


def memory_bar_html(breakdown, gpu, margin) -> str:
    """A stacked bar of one GPU's memory by part, against the GPU's capacity and its usable part."""
    from .hardware import gpu as find_gpu
    from .plots import MEMORY_COLORS

    parts = dict(breakdown.parts)
    parts["optimizer"] = parts.get("optimizer", 0) + parts.pop("master", 0)
    capacity = find_gpu(gpu).memory_bytes
    scale = max(breakdown.total, capacity) * 1.05
    segments = "".join(
        f'<div title="{_MEMORY_LABELS[p]}: {format_bytes(b)}" style="width:{100 * b / scale:.3f}%;'
        f'background:{MEMORY_COLORS[p]};height:100%"></div>' for p, b in parts.items() if b > 0)
    marks = "".join(
        f'<div style="position:absolute;left:{100 * x / scale:.3f}%;top:0;height:100%;border-left:2px '
        f'{style} #000"></div>' for x, style in ((capacity * (1 - margin), "dashed"), (capacity, "solid")))
    legend = " · ".join(
        f'<span style="color:{MEMORY_COLORS[p]}">■</span> {_MEMORY_LABELS[p]} {format_bytes(b)}'
        for p, b in parts.items() if b > 0)
    return (f'<div style="position:relative;display:flex;height:1.6em;width:36em;border:1px solid #ccc">'
            f'{segments}{marks}</div><div style="font-size:0.85em;margin-top:3px">{legend}<br>dashed: usable '
            f'({1 - margin:.0%} of {format_bytes(capacity)}); solid: the GPU\'s memory</div>')


class MemoryPlanner:
    """Will it fit? Memory per GPU for training or serving a model, and the smallest GPU count that fits."""

    def __init__(self, model: str = "llama-2-7b", gpu: str = "A100 80GB"):
        from . import hardware
        from . import memory as mem

        self._mem = mem
        style = {"description_width": "9em"}
        small = w.Layout(width="20em")  # wide enough for "llama-3.1-70b" and "A100 80GB" beside their labels

        def dropdown(label, options, value):
            return w.Dropdown(options=options, value=value, description=label, style=style, layout=small)

        def number(label, value):
            return w.IntText(value=value, description=label, style=style, layout=small)

        self.inputs = {
            "model": dropdown("model", list(m.PRESETS), model),
            "config": w.Textarea(placeholder="…or paste a config.json here", layout=w.Layout(width="32em",
                                                                                          height="4em")),
            "task": w.ToggleButtons(options=["training", "inference"], value="training"),
            "gpu": dropdown("GPU", list(hardware.CATALOG), gpu),
            "convention": dropdown("precision", list(mem.CONVENTIONS), "mixed"),
            "optimizer": dropdown("optimizer", list(mem.OPTIMIZERS), "adamw"),
            "micro_batch": number("micro-batch", 1),
            "seq_len": number("sequence", 4096),
            "recompute": dropdown("recomputation", list(mem.RECOMPUTE), "none"),
            "flash": w.Checkbox(value=True, description="FlashAttention", indent=False),
            "zero": dropdown("ZeRO stage", [0, 1, 2, 3], 3),
            "dp": number("data parallel", 8),
            "tp": number("tensor parallel", 1),
            "pp": number("pipeline parallel", 1),
            "weights": dropdown("weights", list(mem.WEIGHT_FORMATS), "bf16"),
            "tokens": number("tokens / request", 2048),
            "batch": number("requests", 1),
        }
        self.errors = {name: w.HTML() for name in self.inputs}
        self.general_error, self.bar, self.verdict = w.HTML(), w.HTML(), w.HTML()
        self.plan = self.breakdown = self.smallest = None
        self._training_only = ("convention", "optimizer", "micro_batch", "seq_len", "recompute", "flash", "zero",
                               "dp", "pp")
        self._inference_only = ("weights", "tokens", "batch")
        self.rows = {name: w.HBox([box, self.errors[name]]) for name, box in self.inputs.items()}
        for box in self.inputs.values():
            box.observe(self._recompute, names="value")
        self.widget = w.VBox([*self.rows.values(), self.general_error, self.bar, self.verdict])
        # Stable handles for the browser test.
        self.widget.add_class("llmest-memory-planner")
        self.verdict.add_class("llmest-verdict")
        for name, box in self.inputs.items():
            box.add_class(f"llmest-{name}")
        self._recompute()

    def _config(self):
        text = self.inputs["config"].value.strip()
        if text:
            try:
                return m.ModelConfig.from_hf_config(text)
            except InputError as err:
                raise InputError("config", str(err)) from None
        return m.preset(self.inputs["model"].value)

    def _settings(self) -> dict:
        """The fields as the keywords of the task's memory function."""
        value = {name: box.value for name, box in self.inputs.items()}
        if value["task"] == "training":
            names = ("convention", "optimizer", "zero", "dp", "tp", "pp", "micro_batch", "seq_len", "recompute",
                     "flash")
            return {name: value[name] for name in names}
        return dict(weights=value["weights"], tokens=value["tokens"], batch=value["batch"], tp=value["tp"])

    def _recompute(self, _=None):
        training = self.inputs["task"].value == "training"
        for name in self._training_only:
            self.rows[name].layout.display = "" if training else "none"
        for name in self._inference_only:
            self.rows[name].layout.display = "none" if training else ""
        for label in (*self.errors.values(), self.general_error):
            label.value = ""
        gpu = self.inputs["gpu"].value
        try:
            plan = self._mem.plan_memory(self.inputs["task"].value, self._config(), gpu=gpu, **self._settings())
        except InputError as err:
            self.plan = self.breakdown = self.smallest = None
            self.errors.get(err.param, self.general_error).value = _error_html(str(err))
            self.bar.value, self.verdict.value = "", ""
            return
        self.plan, self.breakdown, self.smallest = plan, plan.breakdown, plan.least
        self.bar.value = memory_bar_html(self.breakdown, gpu, plan.margin)
        usable = format_bytes(plan.usable_bytes)
        per_gpu = f"{format_bytes(self.breakdown.total)} per GPU on {self.breakdown.gpus} GPU(s)"
        verdict = (f'<b style="color:#1b7f3b">Fits</b>: {per_gpu}, within the {usable} usable.' if plan.fits else
                   f'<b style="color:#b00020">Does not fit</b>: {per_gpu}, over the {usable} usable.')
        if plan.least is None:
            smallest = f"No count up to {self._mem.GPU_SEARCH_LIMIT:,} fits with these settings."
        elif training:
            smallest = (f"Smallest that fits: data parallel {plan.least} × TP·PP {plan.other_gpus} = "
                        f"{plan.least_gpus} GPUs (ZeRO stage {plan.settings['zero']}).")
        else:
            smallest = f"Smallest that fits: tensor parallel over {plan.least} GPUs."
        lines = [verdict, smallest]
        if training:
            lines.append(f"{html.escape(plan.model.name or 'The model')} has {format_count(plan.trainable_params)} "
                         f"parameters; their states alone, sharded evenly (ZeRO-3), need {plan.state_gpus} GPU(s).")
            lines.append(html.escape(plan.activations_note[0].upper() + plan.activations_note[1:]) + ".")
        self.verdict.value = "<br>".join(lines)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def memory_planner(model: str = "llama-2-7b", gpu: str = "A100 80GB") -> MemoryPlanner:
    return MemoryPlanner(model, gpu)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 3: the training planner and the serving roofline
# ----------------------------------------------------------------------------------------------------------------

def svg_chart(series, x_label: str, y_label: str, marker=None, width=460, height=220, y_log=True) -> str:
    """A small line chart in SVG, log x (and log y unless ``y_log`` is False): ``series`` are
    (xs, ys, color, label); ``marker`` an (x, y) dot. Live widgets use it because it redraws in well under a
    millisecond."""
    import math

    def ty(y):
        return math.log10(y) if y_log else y

    xs = [x for s in series for x in s[0]]
    ys = [y for s in series for y in s[1] if y > 0]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = ty(min(ys)), ty(max(ys))
    pad = 0.1 if y_log else 0.05 * (y1 - y0)
    y0, y1 = (y0 - pad, y1 + pad) if y1 - y0 > 1e-9 else (y0 - 1, y1 + 1)
    left, bottom, right, top = 56, height - 34, width - 10, 10

    def px(x):
        return left + (math.log10(x) - x0) / (x1 - x0) * (right - left)

    def py(y):
        return bottom - (ty(y) - y0) / (y1 - y0) * (bottom - top)

    parts = [f'<svg width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg" '
             f'style="font:11px sans-serif">',
             f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>']
    for decade in range(math.ceil(x0), math.floor(x1) + 1):
        parts.append(f'<text x="{px(10 ** decade):.1f}" y="{bottom + 14}" text-anchor="middle">'
                     f'{10 ** decade:g}</text>')
    y_ticks = ([10 ** d for d in range(math.ceil(y0), math.floor(y1) + 1)] if y_log
               else [y0 + (y1 - y0) * k / 4 for k in range(5)])
    for tick in y_ticks:
        parts.append(f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" text-anchor="end">{tick:.3g}</text>')
    for i, (sx, sy, color, label) in enumerate(series):
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(sx, sy) if y > 0)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{points}"/>')
        parts.append(f'<text x="{right - 4}" y="{top + 12 + 13 * i}" text-anchor="end" fill="{color}">'
                     f'{html.escape(label)}</text>')
    if marker is not None:
        parts.append(f'<circle cx="{px(marker[0]):.1f}" cy="{py(marker[1]):.1f}" r="4" fill="#b00020"/>')
    parts.append(f'<text x="{(left + right) / 2}" y="{height - 4}" text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(f'<text x="12" y="{(top + bottom) / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 12 {(top + bottom) / 2})">{html.escape(y_label)}</text></svg>')
    return "".join(parts)


class _Form:
    """Shared plumbing of the chapter 3 widgets: labelled inputs with an error beside each, recomputed on change.
    ``ALIASES`` maps a library parameter name to the field that feeds it."""

    ALIASES = {"price_per_gpu_hour": "price", "context_tokens": "context"}

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
            self.errors.get(field, self.general_error).value = _error_html(str(err))
            self._clear()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def _style():
    return {"description_width": "10em"}, w.Layout(width="22em")


def _model_field(value):
    style, layout = _style()
    return w.Dropdown(options=list(m.PRESETS), value=value, description="model", style=style, layout=layout)


def _gpu_field(value):
    from . import hardware

    style, layout = _style()
    return w.Dropdown(options=list(hardware.CATALOG), value=value, description="GPU", style=style, layout=layout)


def _price_field(value):
    style, layout = _style()
    return w.FloatText(value=value, description="$ per GPU-hour", style=style, layout=layout)


class TrainingPlanner(_Form):
    """How long and how much: a model or a parameter count, its tokens, a GPU and how many, MFU and a price."""

    def __init__(self, model="llama-2-7b", tokens="1T", gpu="A100 80GB", gpus=256, mfu=0.4, price=2.5, params=""):
        style, layout = _style()
        inputs = {
            "model": _model_field(model),
            "params": w.Text(value=params, placeholder="e.g. 7B, or empty: the model's", description="parameters N",
                             style=style, layout=layout),
            "tokens": w.Text(value=tokens, description="training tokens", style=style, layout=layout),
            "gpu": _gpu_field(gpu),
            "gpus": w.IntText(value=gpus, description="GPUs", style=style, layout=layout),
            "mfu": w.FloatSlider(value=mfu, min=0.05, max=0.7, step=0.01, description="MFU", style=style,
                                 layout=layout, continuous_update=False, readout_format=".0%"),
            "price": _price_field(price),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-training-summary")
        self.result = self.estimate = None
        self._build(inputs, [self.summary, self.chart], "llmest-training-planner")
        self._recompute()

    ALIASES = {**_Form.ALIASES, "n_params": "params"}

    def _clear(self):
        self.result = self.estimate = None
        self.summary.value, self.chart.value = "", ""

    def _update(self):
        from . import compute as cp
        from .units import format_flops, parse_count

        value = {name: box.value for name, box in self.inputs.items()}
        given = value["params"].strip()
        est = self.estimate = cp.estimate_time(
            parse_count(value["tokens"], "tokens"), n_params=parse_count(given, "params") if given else None,
            model=None if given else value["model"], gpus=value["gpus"], gpu=value["gpu"], mfu=value["mfu"],
            price_per_gpu_hour=value["price"])
        self.result = dict(flops=est.flops, days=est.days, gpu_hours=est.gpu_hours, cost=est.cost_usd)
        low, high = est.days_with_margin
        margin = f"{cp.TIME_MARGIN[0]:.0%}-{cp.TIME_MARGIN[1]:.0%}"
        n_from = (f"<br><small>{html.escape(est.n_params_from)}. Type a count under 'parameters' (e.g. 7B, as the "
                  "material's exercises do) to use it instead; the hours scale with N.</small>"
                  if est.n_params_from else "")
        self.summary.value = (
            f"6·N·D = 6 × {format_count(est.n_params)} × {format_count(est.tokens)} = <b>{format_flops(est.flops)}"
            f"</b> FLOPs<br><b>{est.days:,.1f} days</b> on {est.gpus:,} × {est.gpu} ({low:,.1f}-{high:,.1f} with the "
            f"{margin} margin) · {format_int(est.gpu_hours)} GPU-hours · <b>{format_usd(est.cost_usd)}</b> at "
            f"${est.price_per_gpu_hour:g}/GPU-hour{n_from}")
        counts = [2 ** k for k in range(3, 15)]
        series = [(counts, [cp.training_days(est.flops, g, est.peak_flops_per_s, mfu) for g in counts], color,
                   f"MFU {mfu:.0%}") for mfu, color in ((est.mfu, "#4c72b0"), (0.6, "#55a868"), (0.2, "#c44e52"))]
        self.chart.value = svg_chart(series, "GPUs", "days", marker=(est.gpus, est.days))


class RooflineExplorer(_Form):
    """Serving speed: time per decoding step bound by memory bandwidth or by compute, tokens/s and cost."""

    def __init__(self, model="llama-2-7b", gpu="A100 80GB", weights="bf16", context=2048, batch=8, price=2.5):
        from . import memory as mem

        style, layout = _style()
        inputs = {
            "model": _model_field(model),
            "gpu": _gpu_field(gpu),
            "weights": w.Dropdown(options=list(mem.WEIGHT_FORMATS), value=weights, description="weights",
                                  style=style, layout=layout),
            "context": w.IntText(value=context, description="context tokens", style=style, layout=layout),
            "batch": w.IntSlider(value=batch, min=1, max=1024, description="batch", style=style, layout=layout,
                                 continuous_update=False),
            "tp": w.IntText(value=1, description="tensor parallel", style=style, layout=layout),
            "price": _price_field(price),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-roofline-summary")
        self.estimate = None
        self._build(inputs, [self.summary, self.chart], "llmest-roofline")
        self._recompute()

    def _clear(self):
        self.estimate, self.summary.value, self.chart.value = None, "", ""

    def _update(self):
        from . import compute as cp
        from . import memory as mem

        value = {name: box.value for name, box in self.inputs.items()}
        v.check_number("price", value["price"], low=0)

        def at(batch):
            return cp.decode_estimate(value["model"], value["gpu"], batch=batch, context_tokens=value["context"],
                                      weights=value["weights"], tp=value["tp"])

        est = self.estimate = at(value["batch"])
        per_gpu = mem.inference_memory(value["model"], weights=value["weights"], tokens=value["context"],
                                       batch=value["batch"], tp=value["tp"])
        fits = mem.fits(per_gpu, value["gpu"])
        dollars = cp.cost_per_million_tokens(value["price"], value["tp"], est.tokens_per_s)
        self.summary.value = (
            f"step {est.step_seconds * 1e3:.2f} ms (memory {est.memory_seconds * 1e3:.2f} ms, compute "
            f"{est.compute_seconds * 1e3:.2f} ms): <b>{est.bound}-bound</b> · <b>{est.tokens_per_s:,.0f} tokens/s</b>"
            f" · ${dollars:,.2f} per million tokens<br>memory per GPU {format_bytes(per_gpu.total)}: "
            + ('<span style="color:#1b7f3b">fits</span>' if fits else
               '<span style="color:#b00020">does not fit</span>') + " with 20% kept free")
        batches = [2 ** k for k in range(0, 11)]
        estimates = [at(b) for b in batches]
        series = [(batches, [e.tokens_per_s for e in estimates], "#4c72b0", "tokens/s (roofline)"),
                  (batches, [b / e.memory_seconds for b, e in zip(batches, estimates)], "#dd8452", "memory bound"),
                  (batches, [b / e.compute_seconds for b, e in zip(batches, estimates)], "#55a868", "compute bound")]
        self.chart.value = svg_chart(series, "batch", "tokens/s", marker=(value["batch"], est.tokens_per_s))


def training_planner(**kwargs) -> TrainingPlanner:
    return TrainingPlanner(**kwargs)


def roofline_explorer(**kwargs) -> RooflineExplorer:
    return RooflineExplorer(**kwargs)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 4: the data planner and the scaling-law explorer
# ----------------------------------------------------------------------------------------------------------------

class DataPlanner(_Form):
    """Parameters ↔ tokens ↔ gigabytes: the 20× rule (or a chosen ratio), a language mix, the cleaning yield."""

    def __init__(self, params="7B", tokens_per_param=20.0, english=0.7, chinese=0.2, code=0.1, cleaning_yield=0.25):
        style, layout = _style()

        def share(label, value):
            return w.FloatSlider(value=value, min=0, max=1, step=0.05, description=label, style=style,
                                 layout=layout, continuous_update=False, readout_format=".0%")

        inputs = {
            "params": w.Text(value=params, description="parameters", style=style, layout=layout),
            "tokens_per_param": w.FloatText(value=tokens_per_param, description="tokens per parameter",
                                            style=style, layout=layout),
            "english": share("English share", english),
            "chinese": share("Chinese share", chinese),
            "code": share("code share", code),
            "cleaning_yield": w.FloatSlider(value=cleaning_yield, min=0.05, max=1, step=0.05,
                                            description="cleaning yield", style=style, layout=layout,
                                            continuous_update=False, readout_format=".0%"),
        }
        self.summary = w.HTML()
        self.summary.add_class("llmest-data-summary")
        self.result = self.estimate = None
        self._build(inputs, [self.summary], "llmest-data-planner")
        self._recompute()

    ALIASES = {**_Form.ALIASES, "n_params": "params", "mix": "english"}

    def _clear(self):
        self.result = self.estimate = None
        self.summary.value = ""

    def _update(self):
        from . import data as dt
        from .units import parse_count

        value = {name: box.value for name, box in self.inputs.items()}
        est = self.estimate = dt.estimate_corpus(
            parse_count(value["params"], "params"), tokens_per_param=value["tokens_per_param"],
            mix={language: value[language] for language in ("english", "chinese", "code")},
            cleaning_yield=value["cleaning_yield"])
        self.result = dict(tokens=est.tokens, cleaned=est.cleaned_bytes, raw=est.raw_bytes)
        rows = "".join(f"<li>{language}: {format_bytes(b)} cleaned, at {format_count(est.rates[language])} tokens "
                       "per GB</li>" for language, b in est.cleaned.items())
        self.summary.value = (f"<b>{format_count(est.tokens)} tokens</b> ({est.tokens_per_param:g} per parameter)"
                              f"<ul>{rows}</ul>in all <b>{format_bytes(est.cleaned_bytes)}</b> of cleaned text, "
                              f"<b>{format_bytes(est.raw_bytes)}</b> of raw crawl at a {est.cleaning_yield:.0%} "
                              "yield")


class ScalingExplorer(_Form):
    """A FLOP budget → the compute-optimal N and D and the fitted loss, under either fit, with its isoFLOP curve."""

    def __init__(self, flops=5.76e23, fit="besiroglu"):
        from . import data as dt

        style, layout = _style()
        inputs = {
            "flops": w.FloatLogSlider(value=flops, base=10, min=18, max=27, step=0.1, description="FLOP budget",
                                      style=style, layout=layout, continuous_update=False, readout_format=".2e"),
            "fit": w.Dropdown(options=list(dt.FITS), value=fit, description="loss fit", style=style, layout=layout),
        }
        self.summary, self.chart = w.HTML(), w.HTML()
        self.summary.add_class("llmest-scaling-summary")
        self.optimum = None
        self._build(inputs, [self.summary, self.chart], "llmest-scaling-explorer")
        self._recompute()

    def _clear(self):
        self.optimum, self.summary.value, self.chart.value = None, "", ""

    def _update(self):
        from . import data as dt

        budget = self.inputs["flops"].value
        law = dt.fit(self.inputs["fit"].value)
        n, d = self.optimum = law.optimal(budget)
        rule_n = dt.chinchilla_params_for_flops(budget)
        self.summary.value = (
            f"optimum: <b>N = {format_count(n)}</b>, <b>D = {format_count(d)}</b> tokens "
            f"({d / n:,.1f} per parameter), loss {law.loss(n, d):.3f}<br>the 20× rule: N = {format_count(rule_n)}, "
            f"D = {format_count(20 * rule_n)}")
        sizes = [n * 10 ** (k / 10) for k in range(-13, 14)]
        series = [(sizes, [law.loss(s, budget / (6 * s)) for s in sizes], "#4c72b0", "loss at this budget")]
        self.chart.value = svg_chart(series, "parameters N", "fitted loss", marker=(n, law.loss(n, d)), y_log=False)


def data_planner(**kwargs) -> DataPlanner:
    return DataPlanner(**kwargs)


def scaling_explorer(**kwargs) -> ScalingExplorer:
    return ScalingExplorer(**kwargs)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 5: flashcards and timed drill sessions
# ----------------------------------------------------------------------------------------------------------------

class FlashcardDeck:
    """The numbers to know, one card at a time: think of the answer, reveal it, and say whether you knew it.
    At the end, a summary and the cards you missed, which you can go through again."""

    def __init__(self, topics=None, seed: int = 0):
        import random

        from .drills import flashcards

        self.cards = flashcards(topics)
        random.Random(seed).shuffle(self.cards)
        self.progress, self.front, self.back, self.summary = w.HTML(), w.HTML(), w.HTML(), w.HTML()
        self.reveal = w.Button(description="Show answer", button_style="primary")
        self.knew = w.Button(description="I knew it", button_style="success")
        self.missed = w.Button(description="I didn't", button_style="warning")
        self.again = w.Button(description="Go through the missed cards")
        self.reveal.on_click(self._reveal)
        self.knew.on_click(lambda _: self.grade(True))
        self.missed.on_click(lambda _: self.grade(False))
        self.again.on_click(lambda _: self._start([c for c, known in self.results if not known]))
        self.widget = w.VBox([self.progress, self.front, self.back, w.HBox([self.reveal, self.knew, self.missed]),
                              self.summary, self.again])
        self.widget.add_class("llmest-flashcards")
        self._start(self.cards)

    def _start(self, cards):
        self.deck, self.index, self.results = list(cards), 0, []
        self.summary.value = ""
        self._show()

    def _show(self):
        done = self.index >= len(self.deck)
        for button in (self.reveal, self.knew, self.missed):
            button.layout.display = "none" if done else None
        self.again.layout.display = "none"
        self.back.value = ""
        self.knew.disabled = self.missed.disabled = True
        if done:
            self._finish()
            return
        card = self.deck[self.index]
        self.progress.value = f"<small>card {self.index + 1} of {len(self.deck)} · {html.escape(card.topic)}</small>"
        self.front.value = f"<b>{html.escape(card.front)}</b>"

    def _reveal(self, _=None):
        self.back.value = html.escape(self.deck[self.index].back)
        self.knew.disabled = self.missed.disabled = False

    def grade(self, known: bool):
        """Record the current card as known or missed and move on (nothing once the deck is done)."""
        if self.index >= len(self.deck):
            return
        self.results.append((self.deck[self.index], known))
        self.index += 1
        self._show()

    def _finish(self):
        known = sum(k for _, k in self.results)
        missed = [card for card, k in self.results if not k]
        self.progress.value = ""
        self.front.value = f"<b>Done: you knew {known} of {len(self.results)}.</b>"
        rows = "".join(f"<li>{html.escape(c.front)}: <b>{html.escape(c.back)}</b></li>" for c in missed)
        self.summary.value = f"To review:<ul>{rows}</ul>" if missed else "Nothing to review."
        self.again.layout.display = None if missed else "none"

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


class TimedSession:
    """Interview practice: ``n`` problems from the drill generator, a clock per question, the score, and a review
    of the misses with their worked solutions. When the time for a question runs out, what is typed is graded."""

    def __init__(self, n: int = 5, seed: int = 0, topics=None, level: str = "medium", seconds_per_question=180):
        import time

        from .drills import drill_set

        v.check_int("seconds_per_question", seconds_per_question, minimum=10, maximum=3600)
        self.problems = drill_set(seed, n, topics, level)
        self.limit = seconds_per_question
        self._clock = time.monotonic
        self.header, self.question, self.verdict, self.review = w.HTML(), w.HTML(), w.HTML(), w.HTML()
        self.timer = w.HTML()
        self.entry = w.Text(layout=w.Layout(width="18em"))
        self.submit = w.Button(description="Submit", button_style="primary")
        self.next = w.Button(description="Next question")
        self._stopped = threading.Event()
        self._lock = threading.RLock()  # the clock thread and a click may grade at the same moment
        self.submit.on_click(lambda _: self.answer(self.entry.value))
        self.next.on_click(lambda _: self._advance())
        self.widget = w.VBox([w.HBox([self.header, self.timer]), self.question, w.HBox([self.entry, self.submit]),
                              self.verdict, self.next, self.review])
        self.widget.add_class("llmest-timed-session")
        self.timer.add_class("llmest-timer")
        self.results: list[tuple] = []   # (problem, verdict, seconds, timed_out)
        self.index = 0
        self._show_question()

    @property
    def current(self):
        return self.problems[self.index]

    def elapsed(self) -> float:
        return self._clock() - self._started

    def _advance(self):
        with self._lock:
            if len(self.results) <= self.index:
                return  # the current question is not graded yet
            self.index += 1
            if self.index >= len(self.problems):
                self._finish()
            else:
                self._show_question()

    def _show_question(self):
        p = self.current
        self.header.value = f"<b>Question {self.index + 1} of {len(self.problems)}</b> · {p.topic} · {p.level}&nbsp;"
        self.question.value = html.escape(p.question)
        self.entry.value, self.entry.disabled, self.submit.disabled = "", False, False
        from .exercises import entry_placeholder

        self.entry.placeholder = entry_placeholder(p.unit)
        self.verdict.value = ""
        self.next.layout.display = "none"
        self._started = self._clock()
        self._tick()

    def _tick(self, _=None):
        with self._lock:
            if self.index >= len(self.problems) or self.submit.disabled:
                return
            left = max(self.limit - self.elapsed(), 0)
            self.timer.value = f"<span>{int(left) // 60}:{int(left) % 60:02d} left</span>"
            if left <= 0:
                self.answer(self.entry.value, timed_out=True)

    def answer(self, entry, timed_out: bool = False):
        """Grade the entry for the current question. An unreadable entry gets its message and can be retyped,
        unless the time is up."""
        with self._lock:
            if self.submit.disabled:  # already graded
                return self.results[-1][1]
            return self._grade(entry, timed_out)

    def _grade(self, entry, timed_out):
        verdict = self.current.check(entry)
        if verdict.grade in ("empty", "invalid") and not timed_out:
            self.verdict.value = verdict_html(verdict)
            return verdict
        self.results.append((self.current, verdict, self.elapsed(), timed_out))
        self.entry.disabled = self.submit.disabled = True
        shown = type(verdict)(verdict.grade, "Time is up. " + verdict.message) if timed_out else verdict
        self.verdict.value = f"{verdict_html(shown)}<br><small>Answer: {html.escape(self.current.answer_text)}</small>"
        self.next.description = "See the score" if self.index == len(self.problems) - 1 else "Next question"
        self.next.layout.display = None
        return verdict

    def score(self) -> dict:
        grades = [verdict.grade for _, verdict, _, _ in self.results]
        return {grade: grades.count(grade) for grade in ("correct", "close", "wrong", "empty", "invalid")}

    def _finish(self):
        self._stopped.set()
        score = self.score()
        self.header.value = (f"<b>Score: {score['correct']} correct, {score['close']} close, "
                             f"{len(self.results) - score['correct'] - score['close']} missed, "
                             f"of {len(self.results)}</b>")
        self.timer.value = self.question.value = self.verdict.value = ""
        for part in (self.entry, self.submit, self.next):
            part.layout.display = "none"
        rows = []
        for problem, verdict, seconds, timed_out in self.results:
            took = f"{seconds:.0f} s" + (", time up" if timed_out else "")
            if verdict.grade == "correct":
                rows.append(f"<li>✓ {html.escape(problem.template)} ({took})</li>")
                continue
            steps = "<br>".join(html.escape(step) for step in problem.solution().splitlines())
            rows.append(f"<li>✗ {html.escape(problem.question)} ({took})<br>{verdict_html(verdict)}"
                        f"<div style='margin:4px 0 8px 1em;font-size:0.9em'>{steps}</div></li>")
        self.review.value = "<ul>" + "".join(rows) + "</ul>"

    def _run_clock(self):
        while not self._stopped.wait(1.0):
            self._tick()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)
        # The clock runs only once shown: a kernel thread ticks each second (widgets may be updated from threads).
        threading.Thread(target=self._run_clock, daemon=True).start()


def flashcard_deck(topics=None, seed: int = 0) -> FlashcardDeck:
    return FlashcardDeck(topics, seed)


def timed_session(n: int = 5, seed: int = 0, topics=None, level: str = "medium",
                  seconds_per_question=180) -> TimedSession:
    return TimedSession(n, seed, topics, level, seconds_per_question)
