"""Serving a mixture of experts: how many experts one decoding step reads, and what expert parallelism sends.

Each token picks k of a layer's E routed experts. With routing spread evenly and tokens independent, an expert is
left untouched by one token with probability 1 − k/E, by b tokens with (1 − k/E)^b, so a step of b tokens reads
E · (1 − (1 − k/E)^b) distinct routed experts a layer, plus every shared expert: about b·k at a small batch (few
tokens touch few experts), all E at a large one. Real routing is not even (popular experts are picked more often),
so at a given batch it touches fewer experts than this: an upper bound on the bytes read.

Decoding sends each token's hidden state to its experts and back once a layer (a dispatch and a combine, forward
only), over NVLink and the network as ``moe_comm``'s sends count them.

Formulas use only + - * / and powers and work on numbers, NumPy arrays and SymPy symbols.
"""

from __future__ import annotations

from ..core import _validate as v
from ..core.i18n import _


@v.checked
def distinct_experts(experts, top_k, tokens):
    """Routed experts a layer that at least one of ``tokens`` tokens picks, on average, each token picking
    ``top_k`` of ``experts`` uniformly: E · (1 − (1 − k/E)^b)."""
    experts = v.check_whole("experts", experts)
    tokens = v.check_positive("tokens", tokens)
    if not v.is_symbolic(experts) and not v.is_symbolic(top_k) and top_k > experts:
        raise v.InputError("top_k", _("top_k == {value}, must be <= experts ({experts}): a token picks no more "
                                      "experts than there are.").format(value=v.quote(top_k), experts=experts))
    return experts * (1 - (1 - top_k / experts) ** tokens)


@v.checked
def moe_bytes_read(other_bytes, expert_bytes, experts, top_k, tokens, moe_layers):
    """Weight bytes a decoding step of ``tokens`` tokens reads: every weight outside the routed experts
    (``other_bytes``: attention, dense layers, shared experts, embeddings and head) and, on each of ``moe_layers``
    layers, the distinct routed experts the tokens pick, ``expert_bytes`` each."""
    v.check_nonnegative("other_bytes", other_bytes)
    v.check_positive("expert_bytes", expert_bytes)
    return other_bytes + moe_layers * distinct_experts(experts, top_k, tokens) * expert_bytes


@v.checked
def decode_all_to_all_bytes_per_token(hidden, sends, moe_layers, dispatch_bytes=1 + 4 / 128, combine_bytes=2):
    """Bytes one token's decoding step sends over one kind of link: on each MoE layer ``sends`` copies of its h
    values dispatched (FP8 with a 4-byte scale per 128 values by default, as DeepSeek-V3 dispatches, §3.3.4) and
    combined back (BF16). A training step sends each twice (``moe_comm.all_to_all_bytes_per_token``)."""
    v.check_nonnegative("sends", sends)
    v.check_positive("dispatch_bytes", dispatch_bytes)
    v.check_positive("combine_bytes", combine_bytes)
    return moe_layers * sends * hidden * (dispatch_bytes + combine_bytes)
