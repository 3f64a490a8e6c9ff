"""Drill templates on parameters (chapter 1)."""

from __future__ import annotations

from .. import memory as mem
from .. import model as m
from ..units import format_count, format_int
from .problem import SHAPES, Part, _a, _chained, _pick, _problem, _size, template

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S12 = "chapter 1, §1.2 (01_parameters.ipynb#cell-id=8e00a4b9)"
S1_MOE = "chapter 1, Mixture of experts (01_parameters.ipynb#cell-id=094ac9f5)"
S2_LORA = "chapter 2, LoRA and QLoRA (02_memory.ipynb#cell-id=11f2a9f5)"


@template("params-from-shape", "parameters")
def _params_from_shape(rng, level):
    layers, hidden, vocab = rng.choice(SHAPES[level])
    answer = m.rule_params(hidden, layers, vocab)
    layer = m.rule_layer_params(hidden)
    if level == "hard":
        parts = (Part("About how many parameters does one layer hold?", layer, "count",
                      (f"rule_layer_params(H) = 12·H² = 12 × {hidden:,}² = {format_count(layer)}; {S12}",)),
                 Part("About how many parameters in all?", answer, "count",
                      (f"rule_params(H, L, V) = L·12·H² + V·H = {layers} × {format_count(layer)} + {vocab:,} × "
                       f"{hidden:,} = {format_count(answer)}; {S12}",)))
        return _chained("params-from-shape", level,
                        f"A dense Transformer has {layers} layers of hidden size {hidden:,} and a {vocab:,}-token "
                        "vocabulary (tied embedding).", dict(layers=layers, hidden=hidden, vocab=vocab), parts,
                        "A layer holds about 12·H² (4H² attention + 8H² FFN); add V·H once.")
    return _problem(
        "params-from-shape", level,
        f"A dense Transformer has {layers} layers of hidden size {hidden:,} and a {vocab:,}-token vocabulary "
        "(tied embedding). About how many parameters does it have?",
        dict(layers=layers, hidden=hidden, vocab=vocab), answer, "count",
        [f"One layer: 12·H² = 12 × {hidden:,}² = {format_count(layer)}",
         f"{layers} layers: {format_count(layers * layer)}",
         f"Embedding V·H = {vocab:,} × {hidden:,} = {format_count(m.embedding_params(vocab, hidden))}",
         f"Total: {format_count(answer)}"],
        "A layer holds about 12·H² (4H² attention + 8H² FFN); add V·H once.")


@template("hidden-from-params", "parameters")
def _hidden_from_params(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [13e9, 30e9, 70e9], [20e9, 34e9, 120e9])
    layers = _pick(rng, level, [32, 80], [40, 48, 80], [52, 60, 96])
    vocab = _pick(rng, level, [32000], [32000, 64000], [100000, 152064])
    answer = m.rule_hidden_size(n, layers, vocab)
    if level == "hard":
        bare = (n / (12 * layers)) ** 0.5  # the rule without its V·H term
        parts = (Part("Leaving out the embedding, which hidden size does N ≈ 12·L·H² give?", bare, "count",
                      (f"H = √(N / 12L) = √({_size(n)} / {12 * layers}) = {bare:,.0f}; "
                       f"{S12}",)),
                 Part("With the embedding V·H, which hidden size?", answer, "count",
                      (f"rule_hidden_size(N, L, V): the positive root of 12·L·H² + V·H = N, H = {answer:,.0f}; "
                       f"{S12}",)))
        return _chained("hidden-from-params", level,
                        f"Someone plans a {_size(n)}-parameter dense model with {layers} layers and a {vocab:,}-token "
                        "vocabulary.", dict(n=n, layers=layers, vocab=vocab), parts,
                        "Divide N by 12·L and take the square root; the embedding V·H lowers it a little.")
    return _problem(
        "hidden-from-params", level,
        f"Someone plans a {_size(n)}-parameter dense model with {layers} layers and a {vocab:,}-token "
        "vocabulary. Which hidden size does the 12·H² rule give?",
        dict(n=n, layers=layers, vocab=vocab), answer, "count",
        [f"Without the embedding: H ≈ √(N / 12L) = √({_size(n)} / {12 * layers}) = "
         f"{(n / (12 * layers)) ** 0.5:,.0f}",
         f"With it, solve 12·L·H² + V·H = N for the positive root: H = {answer:,.0f}"],
        "Divide N by 12·L and take the square root; the embedding V·H lowers it a little.")


@template("moe-active", "parameters")
def _moe_active(rng, level):
    layers, hidden = _pick(rng, level, [(32, 4096)], [(32, 4096), (56, 6144)], [(24, 2048), (48, 5120)])
    ffn = _pick(rng, level, [14336, 16384], [14336, 16384], [1408, 8192])
    experts, top_k = _pick(rng, level, [(8, 2)], [(8, 2), (16, 2)], [(64, 4), (60, 6), (128, 8)])
    shared = _pick(rng, level, [1.6e9, 2e9], [1.6e9, 5e9], [0.9e9, 3.2e9])
    expert = m.ffn_params(hidden, ffn, gated=True)
    answer = shared + layers * top_k * expert
    if level == "hard":
        parts = (Part("How many parameters does one expert hold?", expert, "count",
                      (f"ffn_params(H, F, gated=True) = 3·H·F = 3 × {hidden:,} × {ffn:,} = {format_count(expert)}; "
                       f"{S1_MOE}",)),
                 Part("How many parameters does one token use?", answer, "count",
                      (f"shared + L × top-k × expert = {_size(shared)} + {layers} × {top_k} × {format_count(expert)} "
                       f"= {format_count(answer)}; {S1_MOE}",)))
        return _chained("moe-active", level,
                        f"A mixture-of-experts model has {layers} layers, each with {experts} SwiGLU experts of width "
                        f"{ffn:,} on hidden size {hidden:,}; each token is routed to {top_k}. Everything else holds "
                        f"{_size(shared)} parameters.",
                        dict(layers=layers, hidden=hidden, ffn=ffn, experts=experts, top_k=top_k, shared=shared),
                        parts, "Active = shared + layers × top-k × one expert's 3·H·F.")
    return _problem(
        "moe-active", level,
        f"A mixture-of-experts model has {layers} layers, each with {experts} SwiGLU experts of width {ffn:,} on "
        f"hidden size {hidden:,}; each token is routed to {top_k}. Everything else (attention, embeddings, norms, "
        f"routers) holds {_size(shared)} parameters. How many parameters does one token use?",
        dict(layers=layers, hidden=hidden, ffn=ffn, experts=experts, top_k=top_k, shared=shared), answer, "count",
        [f"One expert: 3·H·F = 3 × {hidden:,} × {ffn:,} = {format_count(expert)}",
         f"A token uses {top_k} per layer: {layers} × {top_k} × {format_count(expert)} = "
         f"{format_count(layers * top_k * expert)}",
         f"Plus the shared {_size(shared)}: {format_count(answer)} active "
         f"(of {format_count(shared + layers * experts * expert)} in all)"],
        "Active = shared + layers × top-k × one expert's 3·H·F.")


@template("lora-params", "parameters")
def _lora_params(rng, level):
    layers, hidden, _ = rng.choice(SHAPES[level])
    rank = _pick(rng, level, [8, 16], [8, 16, 64], [32, 64, 128])
    matrices = _pick(rng, level, [2], [2, 4], [4])
    per_matrix = mem.lora_matrix_params(rank, hidden, hidden)
    answer = layers * matrices * per_matrix
    names = {2: "Q and V", 4: "Q, K, V and O"}[matrices]
    if level == "hard":
        parts = (Part("How many parameters does one adapted matrix add?", per_matrix, "count",
                      (f"lora_matrix_params(r, d_in, d_out) = r·(d_in + d_out) = {rank} × {2 * hidden:,} = "
                       f"{format_int(per_matrix)}; {S2_LORA}",)),
                 Part("How many trainable parameters in all?", answer, "count",
                      (f"{matrices} matrices × {layers} layers × {format_int(per_matrix)} = {format_count(answer)}; "
                       f"{S2_LORA}",)))
        return _chained("lora-params", level,
                        f"LoRA of rank {rank} on the {names} projections of {_a(f'{layers}-layer')} model with full "
                        f"multi-head attention (each projection {hidden:,} × {hidden:,}).",
                        dict(layers=layers, hidden=hidden, rank=rank, matrices=matrices), parts,
                        "A rank-r adapter on a d_in × d_out matrix adds r·(d_in + d_out).")
    return _problem(
        "lora-params", level,
        f"LoRA of rank {rank} on the {names} projections of {_a(f'{layers}-layer')} model with full multi-head "
        f"attention (so each projection is {hidden:,} × {hidden:,}): how many trainable parameters?",
        dict(layers=layers, hidden=hidden, rank=rank, matrices=matrices), answer, "count",
        [f"One adapted matrix: r·(d_in + d_out) = {rank} × {2 * hidden:,} = {format_int(per_matrix)}",
         f"{matrices} matrices × {layers} layers: {format_count(answer)}"],
        "A rank-r adapter on a d_in × d_out matrix adds r·(d_in + d_out).")
