"""What chapter 6 prints beside its measurements, in the language shown: the counted FLOPs, the states after an AdamW
step, the saved activations and the GPU's peak, each set beside the formula the chapter works out.

The functions take what ``llmest.measure`` measured (a ``FlopCount``, ``TrainingStateBytes``, ``SavedTensor``) and
what the chapter computed from the formulas; they measure nothing and need no PyTorch. Numbers are written as the
chapter wrote them (separators, ``:g``), percentages by ``units.format_percent``.
"""

from __future__ import annotations

from ...core import _validate as v
from ...formulas import memory as mem
from ...core.i18n import N_, _
from ...formulas.model import ModelConfig
from ...display.table import Table, _pad
from ...core.units import format_bytes, format_flops, format_percent

# What transformers' Llama saves beyond chapter 2's formula, by the key the chapter gives each term.
LEFT_OUT = {
    "ids": N_("token ids and shifted labels, int64"),
    "loss weight": N_("the loss's total weight, FP32"),
    "rotary": N_("rotary cos and sin, BF16, shared"),
    "log-sum-exp": N_("SDPA's log-sum-exp per head and token, FP32"),
    "softmax": N_("the softmax kept in FP32 as well"),
    "repeated kv": N_("K and V repeated to the query heads"),
}


def _mapping(name: str, value, keys=None) -> dict:
    """``value`` as a non-empty dict (holding ``keys``, where given)."""
    if not isinstance(value, dict) or not value:
        raise v.InputError(name, f"{name} == {v.quote(value)}, must be a non-empty dict.")
    missing = [key for key in keys or () if key not in value]
    if missing:
        raise v.InputError(name, f"{name} has no {missing[0]!r}: it must hold {', '.join(map(repr, keys))}.")
    return value


def _equal(flag) -> str:
    """A comparison's result, as Python writes it."""
    return str(v.check_bool("equal", flag))


def params_table(counts) -> Table:
    """Each config's parameters as transformers builds the model and as ``count_params`` counts them (``counts``:
    config name -> (built, counted)), and whether the two are equal."""
    rows = []
    for name, pair in _mapping("counts", counts).items():
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise v.InputError("counts", f"counts[{name!r}] == {v.quote(pair)}, must be a pair (built, counted).")
        built, counted = (v.check_int("counts", x) for x in pair)
        rows.append((name, f"{built:,}", f"{counted:,}", _equal(built == counted)))
    return Table(("config.json", "transformers", "count_params", _("equal")), rows)


# ----------------------------------------------------------------------------------------------------------------
# FLOPs
# ----------------------------------------------------------------------------------------------------------------

def shape_text(cfg) -> str:
    """A model's shape in one line: layers, hidden size, heads, FFN width and vocabulary."""
    if not isinstance(cfg, ModelConfig):
        raise v.InputError("cfg", f"cfg == {v.quote(cfg)}, must be a ModelConfig (see ModelConfig.from_hf_config).")
    return _("{layers} layers of hidden size {hidden}, {heads} query and {kv_heads} KV heads of width {head_dim}, "
             "{ffn} of width {ffn_hidden}, {vocab} tokens").format(
        layers=cfg.num_layers, hidden=cfg.hidden_size, heads=cfg.num_heads, kv_heads=cfg.num_kv_heads,
        head_dim=cfg.head_dim, ffn="SwiGLU" if cfg.gated_ffn else "FFN", ffn_hidden=cfg.ffn_hidden_size,
        vocab=cfg.vocab_size)


def flops_table(flops, batch, seq) -> Table:
    """The FLOPs counted for one training step with each attention (``flops``: attention -> FlopCount) of
    ``batch`` sequences of ``seq`` tokens: forward, backward, their ratio and the forward's FLOPs by op."""
    flops = _mapping("flops", flops)
    batch, seq = v.check_int("batch", batch), v.check_int("seq", seq)
    rows = [(attention, f"{n.forward:,}", f"{n.backward:,}", f"{n.backward / n.forward:g}",
             ", ".join(f"{op}: {count}" for op, count in n.forward_by_op.items()))
            for attention, n in flops.items()]
    return Table((_("attention"), _("forward"), _("backward"), _("backward / forward"), _("forward by op")), rows,
                 caption=_("{batch} sequences × {seq} tokens = {tokens} tokens").format(
                     batch=batch, seq=seq, tokens=batch * seq))


def forward_text(flops, *, n, norms, plain, matmul, attention, step) -> str:
    """The counted FLOPs (``flops``: "sdpa" and "eager" -> FlopCount) against chapter 3's terms, all for the whole
    batch: ``n``, flops_params's N, and its ``norms``; ``plain``, 2·N·tokens; ``matmul``, 2·(N − norms)·tokens;
    ``attention``, 12·L·H·Q·T·tokens; ``step``, 6·(N − norms)·tokens + the attention."""
    flops = _mapping("flops", flops, ("sdpa", "eager"))
    for name, value in (("n", n), ("norms", norms), ("plain", plain), ("matmul", matmul),
                        ("attention", attention), ("step", step)):
        v.check_nonnegative(name, value)
    eager = matmul + attention / 3
    return "\n".join([
        _("N of 6·N (flops_params) = {n}, of which norm scales: {norms}").format(n=f"{n:,}", norms=f"{norms:,}"),
        f"{'2·N·tokens':<31}{plain:>13,}",
        f"{'2·(N − norms)·tokens':<31}{matmul:>13,}   "
        + _("= sdpa's forward: {equal}").format(equal=_equal(matmul == flops["sdpa"].forward)),
        _pad("  + " + _("a third of 12·L·H·Q·T·tokens"), 32, False) + f" {eager:>11,.0f}   "
        + _("= eager's forward: {equal}").format(equal=_equal(eager == flops["eager"].forward)),
        _("eager's whole step = 6·(N − norms)·tokens + 12·L·H·Q·T·tokens: {equal}").format(
            equal=_equal(step == flops["eager"].total)),
    ])


def ops_without_formula_text(flops) -> str:
    """For each attention (``flops``: attention -> FlopCount), the ops that ran with no FLOP formula, counted as 0:
    the attention kernels by name, the others by what they are."""
    lines = []
    for attention, counted in _mapping("flops", flops).items():
        kernels = [op for op in counted.ops_without_formula if "attention" in op]
        others = len(counted.ops_without_formula) - len(kernels)
        lines.append(_("{attention}: ran, counted as 0 FLOPs: {kernels}").format(
            attention=attention, kernels=kernels or _("no attention kernel")))
        what = (_("elementwise arithmetic (norms, SiLU, rotary), the S × S softmax and its causal mask, the embedding "
                  "lookup, the loss, views and copies") if "aten._softmax" in counted.ops_without_formula else
                _("elementwise arithmetic (norms, SiLU, rotary), the embedding lookup, the loss, views and copies"))
        lines.append(" " * (len(attention) + 2) + _("and {others} other ops: {what}").format(others=others, what=what))
    return "\n".join(lines)


def step_flops_text(counted, *, matmul, attention, norms_share) -> str:
    """One step's counted FLOPs per token (``counted``: a FlopCount) against 6·(N − norms) (``matmul``) plus
    12·L·H·Q·T (``attention``), both per token; attention's share of the step and the norm scales' of N."""
    v.check_positive("matmul", matmul)
    v.check_nonnegative("attention", attention)
    per_token = counted.total / counted.tokens
    return "\n".join([
        _("{tokens} tokens; counted per token: {flops} FLOPs").format(tokens=f"{counted.tokens:,}",
                                                                      flops=format_flops(per_token)),
        _("6·(N − norms) + 12·L·H·Q·T = {matmul} + {attention}: equal to the count: {equal}").format(
            matmul=format_flops(matmul), attention=format_flops(attention),
            equal=_equal(per_token == matmul + attention)),
        _("attention's share of the step: {share}; the norm scales' share of N: {norms}").format(
            share=format_percent(attention / per_token, 1),
            norms=format_percent(v.check_nonnegative("norms_share", norms_share), 4)),
    ])


# ----------------------------------------------------------------------------------------------------------------
# Training states
# ----------------------------------------------------------------------------------------------------------------

def states_table(held, tensors) -> Table:
    """Bytes per parameter after one AdamW step, measured in each setup (``held``: convention ->
    TrainingStateBytes), beside chapter 2's, and AdamW's step counters for the model's ``tensors`` tensors."""
    tensors = v.check_int("tensors", tensors)
    rows = []
    for convention, states in _mapping("held", held).items():
        measured, expected = states.per_param(), mem.state_bytes_per_param(convention, "adamw")
        rows.append((convention, *(f"{x:g}" for x in (measured.weights, measured.master, measured.grads,
                                                       measured.optimizer, measured.total, expected.total)),
                     measured == expected,
                     _("{bytes} bytes for {tensors} tensors").format(bytes=states.step_counters, tensors=tensors)))
    return Table((_("convention"), _("weights"), _("master"), _("grads"), "m + v", _("total"), _("chapter 2"),
                  _("equal"), _("step counters")), rows)


# ----------------------------------------------------------------------------------------------------------------
# The GPU's peak
# ----------------------------------------------------------------------------------------------------------------

def no_gpu_text() -> str:
    """What a cell that measures on the GPU says where there is none."""
    return _("No GPU here: torch.cuda.max_memory_allocated has nothing to measure; skipped.")


def step_peak_text(peak, states, activations) -> str:
    """The GPU's peak during one training step against the estimate: ``states`` + ``activations`` (bytes)."""
    for name, value in (("peak", peak), ("states", states), ("activations", activations)):
        v.check_positive(name, value)
    return _("peak during one mixed-precision step: {peak}; estimate: states {states} + activations {activations} "
             "= {total} ({ratio}×)").format(
        peak=format_bytes(peak), states=format_bytes(states), activations=format_bytes(activations),
        total=format_bytes(states + activations), ratio=f"{peak / (states + activations):.2f}")


def forward_peak_text(batch, above, estimate) -> str:
    """The GPU's peak during one forward pass of ``batch`` sequences, ``above`` the weights, against the formula's
    ``estimate`` (bytes)."""
    batch = v.check_int("batch", batch)
    v.check_nonnegative("above", above)
    v.check_positive("estimate", estimate)
    return _("batch {batch}: peak above the weights {above}, formula {estimate} ({ratio}×)").format(
        batch=batch, above=format_bytes(above), estimate=format_bytes(estimate), ratio=f"{above / estimate:.2f}")


# ----------------------------------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------------------------------

def saved_table(tensors, *, tokens=None, strip="") -> Table:
    """The tensors saved for the backward pass (``SavedTensor``s): module (less the prefix ``strip``; "(the loss)"
    for the model's own forward), dtype, shape and bytes, and with ``tokens`` the bytes per token."""
    if not isinstance(strip, str):
        raise v.InputError("strip", f"strip == {v.quote(strip)}, must be a module name's prefix, e.g. 'model.'.")
    if tokens is not None:
        tokens = v.check_int("tokens", tokens)
    rows = []
    for t in tensors:
        row = [t.module.removeprefix(strip) or _("(the loss)"), t.dtype, str(t.shape), f"{t.nbytes:,}"]
        rows.append(row if tokens is None else [*row, f"{t.nbytes / tokens:g}"])
    columns = [_("module"), _("dtype"), _("shape"), _("bytes")]
    return Table(columns if tokens is None else [*columns, _("per token")], rows)


def layer_formula_text(per_token) -> str:
    """Chapter 2's bytes per token that one layer saves (with fused attention), and the formula."""
    return _("chapter 2, one layer: 20·h + 8 + 4·k·d + 8·F = {bytes} bytes per token").format(
        bytes=f"{v.check_positive('per_token', per_token):g}")


def output_formula_text(nbytes) -> str:
    """Chapter 2's bytes for the output layer (its input and the FP32 logits), and the formula."""
    return _("chapter 2, output layer: 8·s·b·h + 4·s·b + 4·s·b·V = {bytes} bytes").format(
        bytes=f"{v.check_positive('nbytes', nbytes):,.0f}")


def dtypes_text(tensors) -> str:
    """The dtypes of the tensors saved for the backward pass (``SavedTensor``s), as a sorted list."""
    dtypes = sorted({t.dtype for t in tensors})
    if not dtypes:
        raise v.InputError("tensors", "tensors is empty: give the SavedTensors measure.saved_for_backward found.")
    return _("dtypes saved: {dtypes}").format(dtypes=dtypes)


def formula_short_text(measured, formula) -> str:
    """The bytes saved for the backward pass with each attention (``measured``: attention -> bytes) against chapter
    2's formula (``formula``, the same keys), and how far the formula falls short, one line for each."""
    measured = _mapping("measured", measured)
    formula = _mapping("formula", formula, tuple(measured))
    width = max(len(attention) for attention in measured) + 1
    lines = []
    for attention, nbytes in measured.items():
        nbytes, expected = v.check_positive("measured", nbytes), v.check_positive("formula", formula[attention])
        lines.append(_pad(attention, width, False) + " " + _(
            "measured {measured} bytes; chapter 2's formula {formula}: {short} short").format(
            measured=f"{nbytes:>10,}", formula=f"{expected:>10,.0f}", short=format_percent(1 - expected / nbytes, 1)))
    return "\n".join(lines)


def left_out_table(attention, terms, equal) -> Table:
    """What ``attention`` saves beyond chapter 2's formula: ``terms``, (key of LEFT_OUT, bytes as a formula, bytes)
    for each; ``equal``: whether the formula and these make the measured total."""
    rows = []
    for key, formula, nbytes in terms:
        rows.append((_(v.lookup("terms", key, LEFT_OUT)), str(formula), f"{int(nbytes):,}"))
    return Table((_("saved beyond the formula"), _("bytes, as a formula"), _("bytes")), rows,
                 caption=f"{attention}:", notes=[_("formula + these = measured: {equal}").format(equal=_equal(equal))])


def sweep_table(sweep, exact) -> Table:
    """Bytes saved per token as batch and sequence grow (``sweep``: (attention, batch, seq) -> bytes), with either
    attention, and whether the formula with the left-out terms gives each exactly (``exact``, the same keys)."""
    sweep, exact = _mapping("sweep", sweep), _mapping("exact", exact, tuple(sweep))
    attentions = list(dict.fromkeys(attention for attention, _batch, _seq in sweep))
    shapes = list(dict.fromkeys((batch, seq) for _attention, batch, seq in sweep))
    rows = [(batch, seq, *(f"{sweep[attention, batch, seq] / (batch * seq):,.1f}" for attention in attentions),
             all(exact[attention, batch, seq] for attention in attentions)) for batch, seq in shapes]
    return Table((_("batch"), _("seq"), *(_("{attention} per token").format(attention=a) for a in attentions),
                  _("exactly accounted for")), rows)


def s2_text(measured, formula, per) -> str:
    """The bytes per s² that eager attention saves for one sequence, all layers, ``measured`` and by the
    ``formula``; and each divided by ``per`` (heads × layers)."""
    v.check_nonnegative("measured", measured)
    v.check_nonnegative("formula", formula)
    per = v.check_int("per", per)
    return _("bytes per s² (one sequence, all layers): measured {measured}, formula {formula}; per head and layer "
             "{measured_each} and {formula_each}").format(measured=f"{measured:g}", formula=f"{formula:g}",
                                                          measured_each=f"{measured / per:g}",
                                                          formula_each=f"{formula / per:g}")


def checkpoint_text(measured, *, without, layer_inputs, output_layer, equal) -> str:
    """The bytes saved with activation checkpointing, ``measured``, against those ``without`` it and against the
    formula's ``layer_inputs`` + ``output_layer``; ``equal``: whether that with the ids, labels and the loss's total
    weight makes the measured."""
    for name, value in (("measured", measured), ("without", without), ("layer_inputs", layer_inputs),
                        ("output_layer", output_layer)):
        v.check_positive(name, value)
    return "\n".join([
        _("measured {measured} bytes, {ratio}× less than without; formula: layer inputs {inputs} + output layer "
          "{output}").format(measured=f"{measured:,}", ratio=f"{without / measured:.1f}",
                             inputs=f"{layer_inputs:,.0f}", output=f"{output_layer:,.0f}"),
        _("formula + ids, labels and total weight = measured: {equal}").format(equal=_equal(equal)),
    ])


def checkpoint_ratio_text(measured, formula) -> str:
    """How many times less the tiny model keeps at the end of the forward pass with checkpointing."""
    return _("tiny model, end of the forward pass: measured {measured}× less, formula {formula}× less").format(
        measured=f"{v.check_positive('measured', measured):.1f}",
        formula=f"{v.check_positive('formula', formula):.1f}")


def long_checkpoint_text(name, seq, *, without, with_checkpointing, peak) -> str:
    """Model ``name``'s activations for one sequence of ``seq`` tokens, by the formula: ``without`` and
    ``with_checkpointing`` at the end of the forward pass, and the ``peak`` with one layer recomputed."""
    seq = v.check_int("seq", seq)
    for label, value in (("without", without), ("with_checkpointing", with_checkpointing), ("peak", peak)):
        v.check_positive(label, value)
    return _("{name}, one sequence of {seq} tokens, by the formula: {without} without, {with_checkpointing} with "
             "checkpointing ({ratio}× less); peak with one layer recomputed {peak}").format(
        name=name, seq=f"{seq:,}", without=format_bytes(without), with_checkpointing=format_bytes(with_checkpointing),
        ratio=f"{without / with_checkpointing:.1f}", peak=format_bytes(peak))


def extras_text(kept, formula) -> str:
    """What transformers' Llama would keep without checkpointing (``kept``: the formula's bytes with the extras
    measured) against the ``formula``'s."""
    v.check_positive("kept", kept)
    v.check_positive("formula", formula)
    return _("with the extras measured above, transformers' Llama would keep {kept} without checkpointing, {more} "
             "more than the formula").format(kept=format_bytes(kept), more=format_percent(kept / formula - 1, 2))


def bf16_norms_text(fused, kept) -> str:
    """The formula counting the norms' inputs in BF16 (``fused`` bytes), short of what is ``kept``."""
    v.check_positive("fused", fused)
    v.check_positive("kept", kept)
    return _("counting the norms' inputs in BF16 (fp32_norms=False) the formula gives {fused}, {short} short of "
             "it").format(fused=format_bytes(fused), short=format_percent(1 - fused / kept, 0))


# ----------------------------------------------------------------------------------------------------------------
# What to remember
# ----------------------------------------------------------------------------------------------------------------

def summary_table(*, backward_ratio, attention_share, states, short, s2, checkpointed) -> Table:
    """The chapter's measurements to remember: the backward / forward FLOPs, attention's share of a step,
    bytes per parameter after AdamW (``states``: convention -> bytes), how far chapter 2's activations fall short
    (``short``: attention -> fraction), the eager softmax's bytes per s² per head and layer (``s2``: measured,
    formula) and the fraction of the activations kept with checkpointing."""
    states, short = _mapping("states", states), _mapping("short", short)
    rows = [
        (_("backward / forward FLOPs, on the CPU"), f"{backward_ratio:g}"),
        (_("attention's share of Llama-2-7B's step at its context"), format_percent(attention_share, 1)),
        (_("bytes per parameter after AdamW: {conventions}").format(conventions=", ".join(states)),
         ", ".join(f"{total:g}" for total in states.values())),
        (_("chapter 2's activations short of the measured, {attentions}").format(attentions=" / ".join(short)),
         " / ".join(format_percent(x, 0) for x in short.values())),
        (_("eager softmax bytes per s² per head and layer, measured / formula"), " / ".join(f"{x:g}" for x in s2)),
        (_("activations kept with checkpointing, fraction of without"), format_percent(checkpointed, 0)),
    ]
    return Table((_("measured in this chapter"), _("value")), rows)
