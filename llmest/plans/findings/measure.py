"""Chapter 6's findings: the formulas beside what PyTorch measures (``llmest.display.findings.measure`` writes them).

Each takes what ``llmest.formulas.measure`` measured (a ``FlopCount``, ``TrainingStateBytes``, ``SavedTensor``s)
and what the chapter worked out from the formulas, and keeps the figures as plain data; none measures anything or
needs PyTorch.
"""

from __future__ import annotations

from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import measure as shown
from ...formulas import memory as mem
from ...formulas.model import ModelConfig


def _number(name: str, value):
    """A figure as plain data: an int stays an int; a SymPy number or a NumPy scalar becomes the Python number."""
    value = v.plain(value)
    if v.is_symbolic(value) and getattr(value, "is_number", False):
        value = int(value) if value.is_Integer else float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise v.InputError(name, f"{name} == {v.quote(value)}, must be a number.")
    return value


def _positive(name: str, value):
    return v.check_positive(name, _number(name, value))


def _nonnegative(name: str, value):
    return v.check_nonnegative(name, _number(name, value))


def _mapping(name: str, value, keys=None) -> dict:
    """``value`` as a non-empty dict (holding ``keys``, where given)."""
    if not isinstance(value, dict) or not value:
        raise v.InputError(name, f"{name} == {v.quote(value)}, must be a non-empty dict.")
    missing = [key for key in keys or () if key not in value]
    if missing:
        raise v.InputError(name, f"{name} has no {missing[0]!r}: it must hold {', '.join(map(repr, keys))}.")
    return value


def _measured(name: str, value, fields: tuple, what: str):
    """``value`` if it has ``fields`` (a measurement of ``llmest.formulas.measure``, or a stand-in)."""
    if not all(hasattr(value, field) for field in fields):
        raise v.InputError(name, f"{name} == {v.quote(value)}, must be a {what} (see llmest.formulas.measure).")
    return value


def _tensors(name: str, tensors) -> list:
    fields = ("module", "dtype", "shape", "nbytes")
    if isinstance(tensors, (str, bytes)) or not hasattr(tensors, "__iter__"):
        raise v.InputError(name, f"{name} == {v.quote(tensors)}, must be the SavedTensors that "
                                 "measure.saved_for_backward found.")
    return [_measured(name, t, fields, "SavedTensor") for t in tensors]


# ----------------------------------------------------------------------------------------------------------------
# Parameters and FLOPs
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def params_match(counts) -> Finding:
    """Each config's parameters as transformers builds the model and as ``count_params`` counts them (``counts``:
    config name -> (built, counted)), and whether the two are equal."""
    rows = []
    for name, pair in _mapping("counts", counts).items():
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise v.InputError("counts", f"counts[{name!r}] == {v.quote(pair)}, must be a pair (built, counted).")
        built, counted = (v.check_int("counts", x) for x in pair)
        rows.append(dict(config=str(name), built=built, counted=counted, equal=built == counted))
    return Finding(dict(rows=rows), shown.params_match)


@v.checked
def shape(cfg) -> Finding:
    """A model's shape: layers, hidden size, heads, FFN width and vocabulary."""
    if not isinstance(cfg, ModelConfig):
        raise v.InputError("cfg", f"cfg == {v.quote(cfg)}, must be a ModelConfig (see ModelConfig.from_hf_config).")
    return Finding(dict(layers=cfg.num_layers, hidden=cfg.hidden_size, heads=cfg.num_heads, kv_heads=cfg.num_kv_heads,
                        head_dim=cfg.head_dim, gated_ffn=bool(cfg.gated_ffn), ffn_hidden=cfg.ffn_hidden_size,
                        vocab=cfg.vocab_size), shown.shape)


def _flop_count(name: str, value):
    return _measured(name, value, ("tokens", "forward", "backward", "total"), "FlopCount")


@v.checked(flops=_mapping)
def flops_counted(flops, batch, seq) -> Finding:
    """The FLOPs counted for one training step with each attention (``flops``: attention -> FlopCount) of
    ``batch`` sequences of ``seq`` tokens: forward, backward, their ratio and the forward's FLOPs by op."""
    flops = _mapping("flops", flops)
    batch, seq = v.check_int("batch", batch), v.check_int("seq", seq)
    rows = [dict(attention=str(attention), forward=int(n.forward), backward=int(n.backward),
                 ratio=n.backward / n.forward, forward_by_op={str(op): int(k) for op, k in n.forward_by_op.items()})
            for attention, n in ((a, _flop_count("flops", n)) for a, n in flops.items())]
    return Finding(dict(batch=batch, seq=seq, tokens=batch * seq, rows=rows), shown.flops_counted)


@v.checked(flops=_mapping)
def forward_terms(flops, *, n, norms, plain, matmul, attention, step) -> Finding:
    """The counted FLOPs (``flops``: "sdpa" and "eager" -> FlopCount) against chapter 3's terms, all for the whole
    batch: ``n``, flops_params's N, and its ``norms``; ``plain``, 2·N·tokens; ``matmul``, 2·(N − norms)·tokens;
    ``attention``, 12·L·H·Q·T·tokens; ``step``, 6·(N − norms)·tokens + the attention."""
    flops = _mapping("flops", flops, ("sdpa", "eager"))
    sdpa, eager = _flop_count("flops", flops["sdpa"]), _flop_count("flops", flops["eager"])
    terms = {name: _nonnegative(name, value) for name, value in (("n", n), ("norms", norms), ("plain", plain),
                                                                  ("matmul", matmul), ("attention", attention),
                                                                  ("step", step))}
    with_eager = terms["matmul"] + terms["attention"] / 3
    return Finding(dict(**terms, eager=with_eager, sdpa_forward=int(sdpa.forward), eager_forward=int(eager.forward),
                        eager_step=int(eager.total), sdpa_equal=terms["matmul"] == sdpa.forward,
                        eager_equal=with_eager == eager.forward, step_equal=terms["step"] == eager.total),
                   shown.forward_terms)


@v.checked(flops=_mapping)
def ops_without_formula(flops) -> Finding:
    """For each attention (``flops``: attention -> FlopCount), the ops that ran with no FLOP formula, counted as 0:
    the attention kernels by name, how many others, and whether the softmax is among them."""
    rows = []
    for attention, counted in _mapping("flops", flops).items():
        ops = [str(op) for op in _measured("flops", counted, ("ops_without_formula",), "FlopCount").ops_without_formula]
        kernels = [op for op in ops if "attention" in op]
        rows.append(dict(attention=str(attention), kernels=kernels, others=len(ops) - len(kernels),
                         softmax="aten._softmax" in ops))
    return Finding(dict(rows=rows), shown.ops_without_formula)


@v.checked
def step_flops(counted, *, matmul, attention, norms_share) -> Finding:
    """One step's counted FLOPs per token (``counted``: a FlopCount) against 6·(N − norms) (``matmul``) plus
    12·L·H·Q·T (``attention``), both per token; attention's share of the step and the norm scales' of N."""
    counted = _measured("counted", counted, ("tokens", "total"), "FlopCount")
    matmul, attention = _positive("matmul", matmul), _nonnegative("attention", attention)
    per_token = counted.total / counted.tokens
    return Finding(dict(tokens=int(counted.tokens), total=int(counted.total), per_token=per_token, matmul=matmul,
                        attention=attention, equal=per_token == matmul + attention, share=attention / per_token,
                        norms_share=_nonnegative("norms_share", norms_share)), shown.step_flops)


# ----------------------------------------------------------------------------------------------------------------
# Training states and the GPU's peak
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def states_held(held, tensors) -> Finding:
    """Bytes per parameter after one AdamW step, measured in each setup (``held``: convention ->
    TrainingStateBytes), beside chapter 2's, and AdamW's step counters for the model's ``tensors`` tensors."""
    tensors = v.check_int("tensors", tensors)
    rows = []
    for convention, states in _mapping("held", held).items():
        states = _measured("held", states, ("per_param", "step_counters"), "TrainingStateBytes")
        measured, expected = states.per_param(), mem.state_bytes_per_param(convention, "adamw")
        rows.append(dict(convention=convention, weights=measured.weights, master=measured.master,
                         grads=measured.grads, optimizer=measured.optimizer, total=measured.total,
                         chapter_2=expected.total, equal=measured == expected,
                         step_counters=int(states.step_counters)))
    return Finding(dict(tensors=tensors, rows=rows), shown.states_held)


def no_gpu() -> Finding:
    """What a cell that measures on the GPU shows where PyTorch sees none."""
    return Finding(dict(cuda=False), shown.no_gpu)


@v.checked
def step_peak(peak, states, activations) -> Finding:
    """The GPU's peak during one training step against the estimate: ``states`` + ``activations`` (bytes)."""
    peak, states, activations = (_positive(name, value) for name, value in
                                 (("peak", peak), ("states", states), ("activations", activations)))
    return Finding(dict(peak=peak, states=states, activations=activations, estimate=states + activations,
                        ratio=peak / (states + activations)), shown.step_peak)


@v.checked
def forward_peak(batch, above, estimate) -> Finding:
    """The GPU's peak during one forward pass of ``batch`` sequences, ``above`` the weights, against the formula's
    ``estimate`` (bytes)."""
    batch = v.check_int("batch", batch)
    above, estimate = _nonnegative("above", above), _positive("estimate", estimate)
    return Finding(dict(batch=batch, above=above, estimate=estimate, ratio=above / estimate), shown.forward_peak)


# ----------------------------------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def saved(tensors, *, tokens=None, strip="") -> Finding:
    """The tensors saved for the backward pass (``SavedTensor``s): module (less the prefix ``strip``; "" for the
    model's own forward, where the loss is computed), dtype, shape and bytes, and with ``tokens`` the bytes per
    token."""
    if not isinstance(strip, str):
        raise v.InputError("strip", f"strip == {v.quote(strip)}, must be a module name's prefix, e.g. 'model.'.")
    if tokens is not None:
        tokens = v.check_int("tokens", tokens)
    rows = []
    for t in _tensors("tensors", tensors):
        row = dict(module=t.module.removeprefix(strip), dtype=str(t.dtype), shape=[int(x) for x in t.shape],
                   bytes=int(t.nbytes))
        rows.append(row if tokens is None else dict(row, per_token=t.nbytes / tokens))
    return Finding(dict(tokens=tokens, strip=strip, rows=rows), shown.saved)


@v.checked
def layer_formula(per_token) -> Finding:
    """Chapter 2's bytes per token that one layer saves (with fused attention)."""
    return Finding(dict(per_token=_positive("per_token", per_token)), shown.layer_formula)


@v.checked
def output_formula(nbytes) -> Finding:
    """Chapter 2's bytes for the output layer (its input and the FP32 logits)."""
    return Finding(dict(nbytes=_positive("nbytes", nbytes)), shown.output_formula)


@v.checked
def dtypes(tensors) -> Finding:
    """The dtypes of the tensors saved for the backward pass (``SavedTensor``s), sorted."""
    found = sorted({str(t.dtype) for t in _tensors("tensors", tensors)})
    if not found:
        raise v.InputError("tensors", "tensors is empty: give the SavedTensors measure.saved_for_backward found.")
    return Finding(dict(dtypes=found), shown.dtypes)


@v.checked
def formula_short(measured, formula) -> Finding:
    """The bytes saved for the backward pass with each attention (``measured``: attention -> bytes) against chapter
    2's formula (``formula``, the same keys), and how far the formula falls short."""
    measured = _mapping("measured", measured)
    formula = _mapping("formula", formula, tuple(measured))
    rows = []
    for attention, nbytes in measured.items():
        nbytes, expected = _positive("measured", nbytes), _positive("formula", formula[attention])
        rows.append(dict(attention=str(attention), measured=nbytes, formula=expected, short=1 - expected / nbytes))
    return Finding(dict(rows=rows), shown.formula_short)


@v.checked
def left_out_terms(attention, terms, equal) -> Finding:
    """What ``attention`` saves beyond chapter 2's formula: ``terms``, (key of LEFT_OUT, bytes as a formula, bytes)
    for each; ``equal``: whether the formula and these make the measured total."""
    keys = {key: key for key in shown.LEFT_OUT}
    rows = [dict(key=v.lookup("terms", key, keys), formula=str(formula), bytes=int(_number("terms", nbytes)))
            for key, formula, nbytes in terms]
    return Finding(dict(attention=str(attention), rows=rows, equal=v.check_bool("equal", equal)),
                   shown.left_out_terms)


@v.checked
def per_token_sweep(sweep, exact) -> Finding:
    """Bytes saved per token as batch and sequence grow (``sweep``: (attention, batch, seq) -> bytes), with either
    attention, and whether the formula with the left-out terms gives each exactly (``exact``, the same keys)."""
    sweep, exact = _mapping("sweep", sweep), _mapping("exact", exact, tuple(sweep))
    if not all(isinstance(key, tuple) and len(key) == 3 for key in sweep):
        raise v.InputError("sweep", f"sweep == {v.quote(sweep)}, must be keyed by (attention, batch, seq).")
    attentions = list(dict.fromkeys(attention for attention, _batch, _seq in sweep))
    shapes = list(dict.fromkeys((batch, seq) for _attention, batch, seq in sweep))
    rows = [dict(batch=int(batch), seq=int(seq),
                 per_token={a: _positive("sweep", sweep[a, batch, seq]) / (batch * seq) for a in attentions},
                 exact=all(v.check_bool("exact", exact[a, batch, seq]) for a in attentions)) for batch, seq in shapes]
    return Finding(dict(attentions=[str(a) for a in attentions], rows=rows), shown.per_token_sweep)


@v.checked
def s2(measured, formula, per) -> Finding:
    """The bytes per s² that eager attention saves for one sequence, all layers, ``measured`` and by the
    ``formula``; and each divided by ``per`` (heads × layers)."""
    measured, formula = _nonnegative("measured", measured), _nonnegative("formula", formula)
    per = v.check_int("per", per)
    return Finding(dict(measured=measured, formula=formula, per=per, measured_each=measured / per,
                        formula_each=formula / per), shown.s2)


@v.checked
def checkpointed(measured, *, without, layer_inputs, output_layer, equal) -> Finding:
    """The bytes saved with activation checkpointing, ``measured``, against those ``without`` it and against the
    formula's ``layer_inputs`` + ``output_layer``; ``equal``: whether that with the ids, labels and the loss's total
    weight makes the measured."""
    figures = {name: _positive(name, value) for name, value in (("measured", measured), ("without", without),
                                                                 ("layer_inputs", layer_inputs),
                                                                 ("output_layer", output_layer))}
    return Finding(dict(**figures, ratio=figures["without"] / figures["measured"],
                        equal=v.check_bool("equal", equal)), shown.checkpointed)


@v.checked
def checkpoint_ratio(measured, formula) -> Finding:
    """How many times less the tiny model keeps at the end of the forward pass with checkpointing."""
    return Finding(dict(measured=_positive("measured", measured), formula=_positive("formula", formula)),
                   shown.checkpoint_ratio)


@v.checked
def long_checkpoint(name, seq, *, without, with_checkpointing, peak) -> Finding:
    """Model ``name``'s activations for one sequence of ``seq`` tokens, by the formula: ``without`` and
    ``with_checkpointing`` at the end of the forward pass, and the ``peak`` with one layer recomputed."""
    seq = v.check_int("seq", seq)
    figures = {label: _positive(label, value) for label, value in (("without", without),
                                                                   ("with_checkpointing", with_checkpointing),
                                                                   ("peak", peak))}
    return Finding(dict(name=str(name), seq=seq, **figures, ratio=figures["without"] / figures["with_checkpointing"]),
                   shown.long_checkpoint)


@v.checked
def extras(kept, formula) -> Finding:
    """What transformers' Llama would keep without checkpointing (``kept``: the formula's bytes with the extras
    measured) against the ``formula``'s."""
    kept, formula = _positive("kept", kept), _positive("formula", formula)
    return Finding(dict(kept=kept, formula=formula, more=kept / formula - 1), shown.extras)


@v.checked
def bf16_norms(fused, kept) -> Finding:
    """The formula counting the norms' inputs in BF16 (``fused`` bytes), short of what is ``kept``."""
    fused, kept = _positive("fused", fused), _positive("kept", kept)
    return Finding(dict(fused=fused, kept=kept, short=1 - fused / kept), shown.bf16_norms)


# ----------------------------------------------------------------------------------------------------------------
# What to remember
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def summary(*, backward_ratio, attention_share, states, short, s2, checkpointed) -> Finding:
    """The chapter's measurements to remember: the backward / forward FLOPs, attention's share of a step,
    bytes per parameter after AdamW (``states``: convention -> bytes), how far chapter 2's activations fall short
    (``short``: attention -> fraction), the eager softmax's bytes per s² per head and layer (``s2``: measured,
    formula) and the fraction of the activations kept with checkpointing."""
    states, short = _mapping("states", states), _mapping("short", short)
    if not (isinstance(s2, (tuple, list)) and len(s2) == 2):
        raise v.InputError("s2", f"s2 == {v.quote(s2)}, must be a pair (measured, formula).")
    return Finding(dict(backward_ratio=_nonnegative("backward_ratio", backward_ratio),
                        attention_share=_nonnegative("attention_share", attention_share),
                        states={str(c): _nonnegative("states", x) for c, x in states.items()},
                        short={str(a): _number("short", x) for a, x in short.items()},
                        s2=[_nonnegative("s2", x) for x in s2],
                        checkpointed=_nonnegative("checkpointed", checkpointed)), shown.summary)
