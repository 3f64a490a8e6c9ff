"""Expert parallelism's all-to-all, counted per token of a MoE layer, and the other terms a MoE step has that a dense
one has not: the load imbalance of the experts and the bubble of DualPipe's schedule.

A MoE layer sends each token to its top-k experts (the *dispatch*) and brings their outputs back (the *combine*),
forward; backward, the combine's gradient goes out as a dispatch and the dispatch's comes back as a combine: four
transfers a layer, two of each kind (GShard; DeepEP's ``dispatch_backward`` "is actually a combine").

Where the expert-parallel group spans nodes, the bytes split by link:

- plain expert parallelism (Megatron-Core's all-to-all) sends each of the k copies of a token to its expert's GPU:
  k · (ep − g)/ep of them cross the network, k · (g − 1)/ep stay on NVLink (g GPUs a node);
- node-limited routing (DeepSeek-V3 §2.1.2: "each token will be sent to at most M nodes", M = 4) sends a token
  once to each node it needs, over the network to the GPU of the same index there, which forwards it over NVLink
  to the GPUs holding its experts (§3.2.2): M · (n − 1)/n network sends (its own node is one of the M, M/n of the
  time, with the experts' load spread evenly) and k · (g − 1)/g NVLink sends (a copy stays where it lands 1/g of
  the time).

Formulas use only + - * / and work on numbers, NumPy arrays and SymPy symbols.
"""

from __future__ import annotations

from ..core import _validate as v
from ..core._validate import InputError
from ..core.i18n import _


def _nodes_per_token(nodes_per_token, top_k):
    if nodes_per_token is None:
        return None
    nodes_per_token = v.check_whole("nodes_per_token", nodes_per_token)
    if not v.is_symbolic(nodes_per_token) and not v.is_symbolic(top_k) and nodes_per_token > top_k:
        raise InputError("nodes_per_token", _("nodes_per_token == {value}, must be <= top_k ({top_k}): a token "
                                              "reaches no more nodes than it has experts.").format(
            value=v.quote(nodes_per_token), top_k=top_k))
    return nodes_per_token


@v.checked
def network_sends_per_token(top_k, ep, gpus_per_node, nodes_per_token=None):
    """Copies of one token a MoE layer's dispatch sends over the network, on average: k · (ep − g)/ep without a node
    limit; M · (n − 1)/n with node-limited routing to at most M = ``nodes_per_token`` of the n = ep/g nodes; none
    when the group fits in a node."""
    nodes_per_token = _nodes_per_token(nodes_per_token, top_k)
    nodes = ep / gpus_per_node
    if not v.is_symbolic(nodes) and nodes <= 1:
        return 0 * top_k
    if nodes_per_token is None:
        return top_k * (ep - gpus_per_node) / ep
    return nodes_per_token * (nodes - 1) / nodes


@v.checked
def nvlink_sends_per_token(top_k, ep, gpus_per_node, nodes_per_token=None):
    """Copies of one token a MoE layer's dispatch moves over NVLink, on average: k · (g − 1)/ep without a node limit
    (those of its experts on other GPUs of its own node); k · (g − 1)/g with node-limited routing (each copy is
    forwarded from the GPU that received the token, unless it lands there); k · (ep − 1)/ep within one node."""
    nodes_per_token = _nodes_per_token(nodes_per_token, top_k)
    if not v.is_symbolic(ep) and ep <= gpus_per_node:
        return top_k * (ep - 1) / ep
    if nodes_per_token is None:
        return top_k * (gpus_per_node - 1) / ep
    return top_k * (gpus_per_node - 1) / gpus_per_node


@v.checked
def all_to_all_bytes_per_token(hidden, sends, dispatch_bytes=2, combine_bytes=2):
    """Bytes a token's MoE layer sends over one kind of link in a training step, forward and backward: ``sends``
    copies (``network_sends_per_token`` or ``nvlink_sends_per_token``) of h values, each copy dispatched and combined
    twice. ``dispatch_bytes``: bytes a dispatched value takes (DeepSeek-V3: FP8 with a 4-byte scale per 128,
    1 + 4/128; §3.3.4 quantizes "the activation before MoE up-projections into FP8" and "the activation gradient
    before MoE down-projections" likewise); ``combine_bytes``: a combined value's (BF16 both ways: "we retain them in
    BF16")."""
    v.check_nonnegative("sends", sends)
    v.check_positive("dispatch_bytes", dispatch_bytes)
    v.check_positive("combine_bytes", combine_bytes)
    return 2 * sends * hidden * (dispatch_bytes + combine_bytes)


@v.checked
def imbalanced_seconds(seconds, imbalance, busy_share=1.0):
    """Seconds of work of which ``busy_share`` waits on the busiest expert-parallel GPU: that share stretched by the
    ``imbalance`` factor (the busiest GPU's routed tokens over the mean, >= 1), the rest as it is."""
    v.check_nonnegative("seconds", seconds)
    v.check_number("imbalance", imbalance, low=1)
    v.check_number("busy_share", busy_share, low=0, high=1)
    return seconds * (1 + busy_share * (imbalance - 1))


@v.checked
def dualpipe_bubble_seconds(stages, forward_s, backward_s, weight_s, overlapped_s=None):
    """DualPipe's idle time a step (its README's table, from the DeepSeek-V3 report's Table 2): (PP/2 − 1) ·
    (F&B + B − 3W), none where that is negative, with F a chunk's forward, B its whole backward, W the backward's
    weight-gradient part, and F&B a forward and a backward chunk run overlapped (taken as F + B, their compute,
    where the communication hides). 1F1B's is (PP − 1)(F + B)."""
    stages = v.check_whole("stages", stages)
    for name, value in (("forward_s", forward_s), ("backward_s", backward_s), ("weight_s", weight_s)):
        v.check_nonnegative(name, value)
    if not v.is_symbolic(stages) and stages % 2:
        raise InputError("stages", _("stages == {value}, must be even: DualPipe runs two pipelines in opposite "
                                     "directions over the same ranks.").format(value=v.quote(stages)))
    both = forward_s + backward_s if overlapped_s is None else v.check_nonnegative("overlapped_s", overlapped_s)
    idle = both + backward_s - 3 * weight_s
    return (stages / 2 - 1) * (idle + abs(idle)) / 2   # never below none
