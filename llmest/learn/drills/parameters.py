"""Drill templates on parameters (chapter 1)."""

from __future__ import annotations

from ...formulas import memory as mem
from ...formulas import model as m
from ...core.i18n import N_, _
from ...core.units import format_count, format_int
from .problem import SHAPES, Part, _a, _chained, _pick, _problem, _size, template

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S12 = N_("chapter 1, §1.2 (01_parameters.ipynb#cell-id=8e00a4b9)")
S1_MOE = N_("chapter 1, Mixture of experts (01_parameters.ipynb#cell-id=094ac9f5)")
S2_LORA = N_("chapter 2, LoRA and QLoRA (02_memory.ipynb#cell-id=11f2a9f5)")


@template("params-from-shape", "parameters")
def _params_from_shape(rng, level):
    layers, hidden, vocab = rng.choice(SHAPES[level])
    answer = m.rule_params(hidden, layers, vocab)
    layer = m.rule_layer_params(hidden)
    shape = dict(layers=layers, hidden=f"{hidden:,}", vocab=f"{vocab:,}")
    hint = _("A layer holds about 12·H² (4H² attention + 8H² FFN); add V·H once.")
    if level == "hard":
        parts = (Part(_("About how many parameters does one layer hold?"), layer, "count",
                      (_("rule_layer_params(H) = 12·H² = 12 × {hidden}² = {layer}; {cite}").format(
                          hidden=f"{hidden:,}", layer=format_count(layer), cite=_(S12)),)),
                 Part(_("About how many parameters in all?"), answer, "count",
                      (_("rule_params(H, L, V) = L·12·H² + V·H = {layers} × {layer} + {vocab} × {hidden} = {total}; "
                         "{cite}").format(**shape, layer=format_count(layer), total=format_count(answer),
                                          cite=_(S12)),)))
        return _chained("params-from-shape", level,
                        _("A dense Transformer has {layers} layers of hidden size {hidden} and a {vocab}-token "
                          "vocabulary (tied embedding).").format(**shape),
                        dict(layers=layers, hidden=hidden, vocab=vocab), parts, hint)
    return _problem(
        "params-from-shape", level,
        _("A dense Transformer has {layers} layers of hidden size {hidden} and a {vocab}-token vocabulary "
          "(tied embedding). About how many parameters does it have?").format(**shape),
        dict(layers=layers, hidden=hidden, vocab=vocab), answer, "count",
        [_("One layer: 12·H² = 12 × {hidden}² = {layer}").format(hidden=f"{hidden:,}", layer=format_count(layer)),
         _("{layers} layers: {total}").format(layers=layers, total=format_count(layers * layer)),
         _("Embedding V·H = {vocab} × {hidden} = {embedding}").format(
             **shape, embedding=format_count(m.embedding_params(vocab, hidden))),
         _("Total: {total}").format(total=format_count(answer))],
        hint)


@template("hidden-from-params", "parameters")
def _hidden_from_params(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [13e9, 30e9, 70e9], [20e9, 34e9, 120e9])
    layers = _pick(rng, level, [32, 80], [40, 48, 80], [52, 60, 96])
    vocab = _pick(rng, level, [32000], [32000, 64000], [100000, 152064])
    answer = m.rule_hidden_size(n, layers, vocab)
    bare = (n / (12 * layers)) ** 0.5  # the rule without its V·H term
    plan = dict(n=_size(n), layers=layers, vocab=f"{vocab:,}")
    hint = _("Divide N by 12·L and take the square root; the embedding V·H lowers it a little.")
    if level == "hard":
        parts = (Part(_("Leaving out the embedding, which hidden size does N ≈ 12·L·H² give?"), bare, "count",
                      (_("H = √(N / 12L) = √({n} / {twelve_l}) = {bare}; {cite}").format(
                          n=_size(n), twelve_l=12 * layers, bare=f"{bare:,.0f}", cite=_(S12)),)),
                 Part(_("With the embedding V·H, which hidden size?"), answer, "count",
                      (_("rule_hidden_size(N, L, V): the positive root of 12·L·H² + V·H = N, H = {hidden}; "
                         "{cite}").format(hidden=f"{answer:,.0f}", cite=_(S12)),)))
        return _chained("hidden-from-params", level,
                        _("Someone plans a {n}-parameter dense model with {layers} layers and a {vocab}-token "
                          "vocabulary.").format(**plan), dict(n=n, layers=layers, vocab=vocab), parts, hint)
    return _problem(
        "hidden-from-params", level,
        _("Someone plans a {n}-parameter dense model with {layers} layers and a {vocab}-token "
          "vocabulary. Which hidden size does the 12·H² rule give?").format(**plan),
        dict(n=n, layers=layers, vocab=vocab), answer, "count",
        [_("Without the embedding: H ≈ √(N / 12L) = √({n} / {twelve_l}) = {bare}").format(
            n=_size(n), twelve_l=12 * layers, bare=f"{bare:,.0f}"),
         _("With it, solve 12·L·H² + V·H = N for the positive root: H = {hidden}").format(hidden=f"{answer:,.0f}")],
        hint)


@template("moe-active", "parameters")
def _moe_active(rng, level):
    layers, hidden = _pick(rng, level, [(32, 4096)], [(32, 4096), (56, 6144)], [(24, 2048), (48, 5120)])
    ffn = _pick(rng, level, [14336, 16384], [14336, 16384], [1408, 8192])
    experts, top_k = _pick(rng, level, [(8, 2)], [(8, 2), (16, 2)], [(64, 4), (60, 6), (128, 8)])
    shared = _pick(rng, level, [1.6e9, 2e9], [1.6e9, 5e9], [0.9e9, 3.2e9])
    expert = m.ffn_params(hidden, ffn, gated=True)
    answer = shared + layers * top_k * expert
    model = dict(layers=layers, experts=experts, ffn=f"{ffn:,}", hidden=f"{hidden:,}", top_k=top_k,
                 shared=_size(shared))
    inputs = dict(layers=layers, hidden=hidden, ffn=ffn, experts=experts, top_k=top_k, shared=shared)
    hint = _("Active = shared + layers × top-k × one expert's 3·H·F.")
    if level == "hard":
        parts = (Part(_("How many parameters does one expert hold?"), expert, "count",
                      (_("ffn_params(H, F, gated=True) = 3·H·F = 3 × {hidden} × {ffn} = {expert}; {cite}").format(
                          **model, expert=format_count(expert), cite=_(S1_MOE)),)),
                 Part(_("How many parameters does one token use?"), answer, "count",
                      (_("shared + L × top-k × expert = {shared} + {layers} × {top_k} × {expert} = {active}; "
                         "{cite}").format(**model, expert=format_count(expert), active=format_count(answer),
                                          cite=_(S1_MOE)),)))
        return _chained("moe-active", level,
                        _("A mixture-of-experts model has {layers} layers, each with {experts} SwiGLU experts of "
                          "width {ffn} on hidden size {hidden}; each token is routed to {top_k}. Everything else "
                          "holds {shared} parameters.").format(**model), inputs, parts, hint)
    return _problem(
        "moe-active", level,
        _("A mixture-of-experts model has {layers} layers, each with {experts} SwiGLU experts of width {ffn} on "
          "hidden size {hidden}; each token is routed to {top_k}. Everything else (attention, embeddings, norms, "
          "routers) holds {shared} parameters. How many parameters does one token use?").format(**model),
        inputs, answer, "count",
        [_("One expert: 3·H·F = 3 × {hidden} × {ffn} = {expert}").format(**model, expert=format_count(expert)),
         _("A token uses {top_k} per layer: {layers} × {top_k} × {expert} = {used}").format(
             **model, expert=format_count(expert), used=format_count(layers * top_k * expert)),
         _("Plus the shared {shared}: {active} active (of {total} in all)").format(
             shared=_size(shared), active=format_count(answer),
             total=format_count(shared + layers * experts * expert))],
        hint)


# The projections a LoRA adapts, by their number.
PROJECTIONS = {2: N_("Q and V"), 4: N_("Q, K, V and O")}


@template("lora-params", "parameters")
def _lora_params(rng, level):
    layers, hidden, _shape = rng.choice(SHAPES[level])
    rank = _pick(rng, level, [8, 16], [8, 16, 64], [32, 64, 128])
    matrices = _pick(rng, level, [2], [2, 4], [4])
    per_matrix = mem.lora_matrix_params(rank, hidden, hidden)
    answer = layers * matrices * per_matrix
    adapted = dict(rank=rank, names=_(PROJECTIONS[matrices]),
                   model=_a(_("{layers}-layer").format(layers=layers)), hidden=f"{hidden:,}")
    inputs = dict(layers=layers, hidden=hidden, rank=rank, matrices=matrices)
    hint = _("A rank-r adapter on a d_in × d_out matrix adds r·(d_in + d_out).")
    if level == "hard":
        parts = (Part(_("How many parameters does one adapted matrix add?"), per_matrix, "count",
                      (_("lora_matrix_params(r, d_in, d_out) = r·(d_in + d_out) = {rank} × {two_h} = {added}; "
                         "{cite}").format(rank=rank, two_h=f"{2 * hidden:,}", added=format_int(per_matrix),
                                          cite=_(S2_LORA)),)),
                 Part(_("How many trainable parameters in all?"), answer, "count",
                      (_("{matrices} matrices × {layers} layers × {added} = {total}; {cite}").format(
                          matrices=matrices, layers=layers, added=format_int(per_matrix),
                          total=format_count(answer), cite=_(S2_LORA)),)))
        return _chained("lora-params", level,
                        _("LoRA of rank {rank} on the {names} projections of {model} model with full "
                          "multi-head attention (each projection {hidden} × {hidden}).").format(**adapted),
                        inputs, parts, hint)
    return _problem(
        "lora-params", level,
        _("LoRA of rank {rank} on the {names} projections of {model} model with full multi-head "
          "attention (so each projection is {hidden} × {hidden}): how many trainable parameters?").format(**adapted),
        inputs, answer, "count",
        [_("One adapted matrix: r·(d_in + d_out) = {rank} × {two_h} = {added}").format(
            rank=rank, two_h=f"{2 * hidden:,}", added=format_int(per_matrix)),
         _("{matrices} matrices × {layers} layers: {total}").format(matrices=matrices, layers=layers,
                                                                   total=format_count(answer))],
        hint)
