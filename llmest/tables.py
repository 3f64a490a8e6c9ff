"""Tables for the chapters and the command line.

A ``Table`` holds cells already written as text (by the formatters of ``llmest.units``) and computes nothing. In a
notebook it shows as an HTML table that scrolls sideways when it is wider than the page; ``str()`` gives the same
cells as aligned plain text for a terminal. Columns whose cells are all numbers are right-aligned in both.

The functions below the type build the tables a reader asks for (the training conventions, bytes per parameter by
optimizer, the GPU catalog, where decoding turns compute-bound), every figure from a library call.
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field

from . import _validate as v
from .i18n import N_, _
from .i18n import display_width as _width
from .units import format_number

TEXT_WIDTH = 100     # the plain-text form wraps its widest text column to stay within this many characters
_NARROWEST = 24      # ... but never wraps a column narrower than this
_LONGEST_UNBROKEN = 24  # a longer word (a web address, a file path) may break across lines
# A cell that reads as a number: "16", "-7%", "+7%", "$1,000", "4.2e22", "6.61B", "14.0 GB", "88,239 (+7%)", or a
# dash for none.
_NUMERIC = re.compile(r"[-+−]?\$?\d[\d,]*(\.\d+)?(e[-+]?\d+)?[a-z%×]*(\s.*)?|[-–—]", re.IGNORECASE)


def _pad(text: str, width: int, right: bool) -> str:
    room = " " * max(width - _width(text), 0)
    return room + text if right else text + room


# A wide character (a line may break beside it), a run of other characters, or spaces.
_PIECES = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]+|\s+")


def _wrap(text: str, width: int) -> list:
    """``text`` in lines of at most ``width`` columns where it can be broken, a wide character taking two."""
    if _width(text) == len(text):
        return textwrap.wrap(text, width, break_on_hyphens=False)
    lines, line = [], ""
    for piece in _PIECES.findall(text):
        if line and _width(line + piece.rstrip()) > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
        while _width(line) > width:  # a word longer than a line breaks across lines
            cut = max([1] + [k for k in range(len(line)) if _width(line[:k]) <= width])
            lines.append(line[:cut])
            line = line[cut:]
    return [*lines, line.rstrip()] if line.strip() else lines


def _cell(value, row: int, column: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, (int, float)):
        try:
            return format_number(value)
        except v.InputError as err:
            raise v.InputError("rows", f"rows[{row}][{column}]: {err}") from None
    raise v.InputError("rows", _("rows[{row}][{column}] == {value}, must be text or a number (format it with "
                                 "llmest.units first).").format(row=row, column=column, value=v.quote(value)))


@dataclass(frozen=True)
class Table:
    """Rows of cells under named columns. ``units``: a column's unit, written after its name ("memory (GB)");
    ``caption``: one line above the table; ``notes``: lines below it."""

    columns: tuple
    rows: tuple
    caption: str = ""
    units: dict = field(default_factory=dict)
    notes: tuple = ()

    def __post_init__(self):
        if not isinstance(self.columns, (list, tuple)) or not self.columns:
            raise v.InputError("columns", _("columns == {value}, must be a list of column names.").format(
                value=v.quote(self.columns)))
        columns = tuple(str(c) for c in self.columns)
        if not isinstance(self.rows, (list, tuple)) or not all(isinstance(r, (list, tuple)) for r in self.rows):
            raise v.InputError("rows", _("rows == {value}, must be a list of rows, each a list of cells.").format(
                value=v.quote(self.rows)))
        if not isinstance(self.units, dict):
            raise v.InputError("units", _("units == {value}, must be a dict of column: unit.").format(
                value=v.quote(self.units)))
        rows = tuple(tuple(row) for row in self.rows)
        for i, row in enumerate(rows):
            if len(row) != len(columns):
                raise v.InputError("rows", _("rows[{i}] has {cells} cells, must have one per column ({columns}).")
                                   .format(i=i, cells=len(row), columns=len(columns)))
        unknown = [name for name in self.units if name not in columns]
        if unknown:
            raise v.InputError("units", _("units names {name}, which is not a column ({columns}).").format(
                name=v.quote(unknown[0]), columns=", ".join(columns)))
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "rows", tuple(tuple(_cell(x, i, j) for j, x in enumerate(row))
                                               for i, row in enumerate(rows)))
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def headers(self) -> tuple:
        return tuple(f"{c} ({self.units[c]})" if self.units.get(c) else c for c in self.columns)

    @property
    def numeric(self) -> tuple:
        """Per column: whether every cell reads as a number (then it is right-aligned)."""
        return tuple(bool(self.rows) and all(_NUMERIC.fullmatch(row[j]) for row in self.rows)
                     for j in range(len(self.columns)))

    def column(self, name: str) -> tuple:
        """The cells of one column, top to bottom."""
        return tuple(row[v.lookup("name", name, {c: j for j, c in enumerate(self.columns)})] for row in self.rows)

    # -- plain text ------------------------------------------------------------------------------------------------
    def _widths(self, width: int) -> list:
        """Column widths; while the line is too long, the widest text column narrows to the next widest (or as far
        as needed), never below its longest word (up to _LONGEST_UNBROKEN: a web address may break) nor _NARROWEST."""
        widths = [max([_width(h)] + [_width(row[j]) for row in self.rows]) for j, h in enumerate(self.headers)]
        text_columns = [j for j, numeric in enumerate(self.numeric) if not numeric]
        while (over := sum(widths) + 2 * (len(widths) - 1) - width) > 0:
            by_width = sorted(text_columns, key=lambda j: -widths[j])
            if not by_width:
                break
            widest = by_width[0]
            runner_up = widths[by_width[1]] if len(by_width) > 1 else 0
            longest_word = min(_LONGEST_UNBROKEN, max(_width(w) for row in [self.headers, *self.rows]
                                                      for w in row[widest].split() or [""]))
            narrowed = max(widths[widest] - over, runner_up, _NARROWEST, longest_word)
            if narrowed >= widths[widest]:
                if runner_up == widths[widest] and runner_up > max(_NARROWEST, longest_word):
                    narrowed = widths[widest] - 1   # two as wide: narrow them in turn
                else:
                    break
            widths[widest] = narrowed
        return widths

    def text(self, width: int = TEXT_WIDTH) -> str:
        """Aligned plain text, a rule under the header; text cells wrap to keep lines within ``width`` characters
        where they can."""
        widths, numeric = self._widths(width), self.numeric

        def lines(cells):
            wrapped = [_wrap(cell, w) or [""] if not numeric[j] and _width(cell) > w
                       else [cell] for j, (cell, w) in enumerate(zip(cells, widths))]
            for k in range(max(len(w) for w in wrapped)):
                parts = [_pad(w[k] if k < len(w) else "", widths[j], numeric[j]) for j, w in enumerate(wrapped)]
                yield "  ".join(parts).rstrip()

        out = _wrap(self.caption, width) if self.caption else []
        out += list(lines(self.headers))
        out.append("  ".join("-" * w for w in widths))
        for row in self.rows:
            out += list(lines(row))
        out += list(self.notes)
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def _repr_pretty_(self, printer, cycle):  # IPython's text/plain
        printer.text(self.text())

    # -- HTML ------------------------------------------------------------------------------------------------------
    def _repr_html_(self) -> str:
        numeric = self.numeric

        # numbers, the rows' names and short text stay on one line; long text wraps, never narrower than 16em (the
        # table scrolls instead)
        long_text = [not numeric[j] and j > 0 and any(len(row[j]) > _NARROWEST for row in self.rows)
                     for j in range(len(self.columns))]

        def cell(tag, text, j):
            style = f"text-align:{'right' if numeric[j] else 'left'};vertical-align:top;padding:2px 8px;"
            if tag == "td":
                style += "min-width:16em;" if long_text[j] else "white-space:nowrap;"
            if tag == "th":
                style += "border-bottom:1px solid currentColor;"
            return f'<{tag} style="{style}">{html.escape(text)}</{tag}>'

        head = "".join(cell("th", h, j) for j, h in enumerate(self.headers))
        body = "".join("<tr>" + "".join(cell("td", x, j) for j, x in enumerate(row)) + "</tr>" for row in self.rows)
        caption = (f'<caption style="text-align:left;caption-side:top">{html.escape(self.caption)}</caption>'
                   if self.caption else "")
        notes = "".join(f'<p style="margin:4px 0 0">{html.escape(note)}</p>' for note in self.notes)
        # mathjax_ignore: JupyterLab typesets "$4 ... $5" inside HTML outputs as a formula otherwise.
        return (f'<div class="llmest-table mathjax_ignore" style="overflow-x:auto;max-width:100%">'
                '<table style="border-collapse:collapse;table-layout:auto;margin:0;font-variant-numeric:tabular-nums">'
                f"{caption}"
                f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{notes}</div>")


# ----------------------------------------------------------------------------------------------------------------
# The tables a reader asks for
# ----------------------------------------------------------------------------------------------------------------

def conventions(optimizer: str = "adamw") -> Table:
    """Bytes per parameter of each training state under each convention, for one optimizer, and who uses it."""
    from . import memory as mem

    rows = []
    for name, convention in mem.CONVENTIONS.items():
        s = mem.state_bytes_per_param(name, optimizer)
        rows.append((name, s.weights, s.master, s.grads, s.optimizer, s.total, _(convention.used_by)))
    return Table((_("convention"), _("weights"), _("master"), _("gradients"), _("optimizer"), _("total"),
                  _("used by")), rows,
                 caption=_("bytes per parameter of each training state, {optimizer}").format(optimizer=optimizer))


def state_bytes_by_optimizer(optimizers=None, conventions=None) -> Table:
    """Bytes per parameter of all training states: one row per convention, one column per optimizer."""
    from . import memory as mem

    optimizers = list(mem.OPTIMIZERS) if optimizers is None else list(optimizers)
    conventions = list(mem.CONVENTIONS) if conventions is None else list(conventions)
    rows = [(c, *(mem.state_bytes_per_param(c, o).total for o in optimizers)) for c in conventions]
    return Table((_("convention"), *optimizers), rows,
                 caption=_("bytes per parameter, all training states, by convention and optimizer"))


def weight_formats(model="llama-2-70b") -> Table:
    """Bytes per parameter of each weight format, constants included, and a model's weights in each."""
    from . import memory as mem
    from .model import config_from
    from .units import format_bytes

    cfg = config_from(model)
    rows = [(name, f"{fmt.bytes_per_param:.4f}", format_bytes(mem.model_weight_bytes(cfg, name)), _(fmt.note))
            for name, fmt in mem.WEIGHT_FORMATS.items()]
    return Table((_("format"), _("bytes/param"), cfg.name or _("model"), _("note")), rows,
                 caption=_("weight formats; {model} in each (embeddings, head and norms in 16 bits)").format(
                     model=cfg.name or _("the model")))


def _tflops(flops_per_s) -> str:
    from .hardware import TERA

    return "-" if not flops_per_s else f"{flops_per_s / TERA:.1f}"


def gpu_catalog() -> Table:
    """The GPU catalog: dense peaks (no 2:4 sparsity), memory as the device exposes it, bandwidth and interconnect."""
    from . import hardware

    rows = [(g.name, _tflops(g.bf16_flops_per_s), _tflops(g.fp8_flops_per_s), _tflops(g.tf32_flops_per_s),
             _tflops(g.fp32_flops_per_s), f"{g.memory_gib:.1f}", f"{g.memory_gb:.1f}",
             f"{g.bandwidth_bytes_per_s / hardware.TERA:.2f}", _(g.interconnect)) for g in hardware.CATALOG.values()]
    bandwidth = _("bandwidth")
    return Table(("GPU", "BF16", "FP8", "TF32", "FP32", "GiB", "GB", bandwidth, _("interconnect")), rows,
                 caption=_("dense peaks in TFLOPS (FP32: CUDA cores, not tensor cores); memory as the device exposes "
                           "it, in GiB (2^30 bytes) and GB (1e9 bytes)"),
                 units={bandwidth: "TB/s"})


def gpu_sources() -> Table:
    """Where each catalog row comes from, its caveat, where its exposed memory was read, and the fields not found in
    a stored copy of the source."""
    from . import hardware

    rows = [(g.name, _("{source}; exposed memory: {memory_source}").format(source=_(g.source),
                                                                         memory_source=g.memory_source_shown),
             _(g.note), ", ".join(_(field) for field in g.recalled) or "-") for g in hardware.CATALOG.values()]
    return Table(("GPU", _("source"), _("note"), _("not found in a stored copy")), rows)


_BOUNDS = {"memory": N_("memory"), "compute": N_("compute")}  # what bounds a decoding step


def _tokens(limit: float) -> str:
    from .units import format_int

    return _("none (every layer windowed)") if limit == float("inf") else format_int(limit)


def decode_limits(model, gpus, seq_len: int = 1024, batch: int = 1, weights: str = "bf16") -> Table:
    """Where decoding a model turns compute-bound on each GPU: the batch (no KV cache), the context past which no
    batch is, and the decode speed of ``batch`` sequences at ``seq_len`` tokens (``plans.decode_estimate``)."""
    from . import compute as c
    from . import hardware, plans
    from .memory import model_weight_bytes
    from .model import config_from
    from .units import format_int

    cfg = config_from(model)
    weight_bytes, n = model_weight_bytes(cfg, weights), c.flops_params(cfg)
    rows = []
    for name in gpus:
        g = hardware.gpu(name)
        speed = plans.decode_estimate(cfg, name, batch=batch, seq_len=seq_len, weights=weights)
        rows.append((g.name,
                     format_int(c.compute_bound_batch(weight_bytes, n, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)),
                     _tokens(c.kv_context_limit_for(cfg, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)),
                     format_int(speed.tokens_per_s), _(_BOUNDS.get(speed.bound, speed.bound))))
    never, speed = _("never past"), _("speed at batch {batch}").format(batch=batch)
    caption = (_("decoding {model} in {weights}: the batch from which it is compute-bound with no KV cache, the "
                 "context past which no batch is, and the speed of {batch} sequence at {seq_len} tokens")
               if batch <= 1 else
               _("decoding {model} in {weights}: the batch from which it is compute-bound with no KV cache, the "
                 "context past which no batch is, and the speed of {batch} sequences at {seq_len} tokens"))
    return Table(("GPU", _("compute-bound from batch"), never, speed, _("bound")), rows,
                 caption=caption.format(model=cfg.name or _("the model"), weights=weights, batch=batch,
                                        seq_len=f"{seq_len:,}"),
                 units={never: _("tokens"), speed: "tokens/s"})


def parameter_counts(models) -> Table:
    """Each model's parameters, all of them, beside the N of 6·N·D (``compute.flops_params``: the matmul weights, a
    mixture of experts' active ones)."""
    from . import compute as c
    from .model import config_from, count_params
    from .units import format_count

    if not isinstance(models, (list, tuple)) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a list of presets or configs.")
    configs = [config_from(m) for m in models]
    rows = [(cfg.name or _("model"), format_count(count_params(cfg).total), format_count(c.flops_params(cfg)))
            for cfg in configs]
    return Table((_("model"), _("all parameters"), _("N for 6·N·D")), rows)


def largest_batches(model, gpu, prompts, output_tokens: int) -> Table:
    """For each prompt length, serving ``output_tokens`` more (``plans.estimate_request``): the largest batch that
    fits, the TTFT of one request, the attention's share of its prefill FLOPs and the TPOT."""
    from . import compute as c
    from . import plans
    from .units import format_int

    if not isinstance(prompts, (list, tuple)) or not prompts:
        raise v.InputError("prompts", f"prompts == {v.quote(prompts)}, must be a list of prompt lengths in tokens.")
    rows = []
    for prompt in prompts:
        est = plans.estimate_request(model, gpu, prompt_tokens=prompt, output_tokens=output_tokens)
        share = c.prefill_attention_flops_for(model, prompt) / est.prefill_flops
        rows.append((format_int(prompt), format_int(est.max_batch), f"{est.ttft_s * 1e3:.1f}", f"{share * 100:.1f}",
                     f"{est.tpot_s * 1e3:.2f}"))
    ttft, share, tpot = _("TTFT, 1 request"), _("attention share"), "TPOT"
    return Table((_("prompt"), _("largest batch"), ttft, share, tpot), rows,
                 units={ttft: "ms", share: "%", tpot: "ms"})


def micro_batch_memory(model, *, zero=3, dp=8, seq_len=4096, sizes=(1, 2, 4, 8)) -> Table:
    """Memory per GPU by micro-batch of ``sizes`` (``training_memory`` with ZeRO ``zero`` over ``dp`` GPUs): eager
    attention, FlashAttention, and FlashAttention with full recomputation; above, what does not grow with the
    micro-batch."""
    from .model import config_from
    from .plans import training_memory
    from .units import format_bytes

    cfg = config_from(model)

    def per_gpu(micro_batch, flash, recompute="none"):
        return training_memory(cfg, zero=zero, dp=dp, micro_batch=v.check_whole("sizes", micro_batch),
                               seq_len=seq_len, flash=flash, recompute=recompute)

    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise v.InputError("sizes", f"sizes == {v.quote(sizes)}, must be a list of micro-batch sizes.")
    static = sum(b for part, b in per_gpu(1, True).parts.items() if part != "activations")
    rows = [(str(b), *(format_bytes(plan.total) for plan in (per_gpu(b, False), per_gpu(b, True),
                                                            per_gpu(b, True, "full")))) for b in sizes]
    caption = _("static (states, ZeRO-{zero}'s buffers, runtime) per GPU: {static}").format(
        zero=zero, static=format_bytes(static))
    return Table((_("micro-batch"), _("eager attention"), "FlashAttention", _("+ checkpointing")), rows,
                 caption=caption)
