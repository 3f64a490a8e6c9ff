"""Drill templates on parameters (chapter 1)."""

from __future__ import annotations

from .. import memory as mem
from .. import model as m
from ..units import format_count, format_int
from .problem import SHAPES, _a, _pick, _problem, _size, template


@template("params-from-shape", "parameters")
def _params_from_shape(rng, level):
    layers, hidden, vocab = rng.choice(SHAPES[level])
    answer = m.rule_params(hidden, layers, vocab)
    layer = m.rule_layer_params(hidden)
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
    return _problem(
        "lora-params", level,
        f"LoRA of rank {rank} on the {names} projections of {_a(f'{layers}-layer')} model with full multi-head "
        f"attention (so each projection is {hidden:,} × {hidden:,}): how many trainable parameters?",
        dict(layers=layers, hidden=hidden, rank=rank, matrices=matrices), answer, "count",
        [f"One adapted matrix: r·(d_in + d_out) = {rank} × {2 * hidden:,} = {format_int(per_matrix)}",
         f"{matrices} matrices × {layers} layers: {format_count(answer)}"],
        "A rank-r adapter on a d_in × d_out matrix adds r·(d_in + d_out).")
