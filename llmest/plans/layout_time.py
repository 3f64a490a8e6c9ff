"""The layout search's step time (``step_times``): for every layout at once, the compute at the matmul efficiency
the reader sets (less where a split leaves matmuls too small to be bound by compute), the pipeline's bubble, and
the communication of each kind, its bytes over the links its group crosses plus a latency per message."""

from __future__ import annotations

import numpy as np

from .. import comm
from ..compute import attention_flops_per_token_for, flops_params
from ..memory import RECOMPUTE
from ..model import count_params


def step_times(c, cfg, g, gpus, seq_len, tokens, schedule, overlap, efficiency):
    """Add each layout's compute, bubble, communication by kind and step time to the columns ``c``."""
    tp, cp, pp, dp, ep, vp, b, m = (c[k] for k in ("tp", "cp", "pp", "dp", "ep", "vp", "micro_batch",
                                                    "micro_batches"))
    net = g.network
    matmul = 6 * flops_params(cfg)
    attention = attention_flops_per_token_for(cfg, seq_len)
    model_flops = (matmul + attention) * tokens
    # Recomputation repeats forward work: all of it for "full" (2N and a third of attention), the attention
    # scores for "selective" (a third of attention).
    full = c["recompute_code"] == RECOMPUTE.index("full")
    selective = c["recompute_code"] == RECOMPUTE.index("selective")
    repeated = np.where(full, matmul / 3 + attention / 3, np.where(selective, attention / 3, 0.0)) * tokens
    # An uneven pipeline waits for its largest stage: ⌈L/p⌉ layers where L/p would balance it.
    imbalance = stage_layers(cfg, pp) * pp / cfg.num_layers
    tokens_per_gpu = seq_len / cp
    # A layer's largest matmul on one GPU: below the ridge it is bound by memory and runs slower than the peak.
    intensity = _ffn_intensity(cfg, b * tokens_per_gpu, tp, ep)
    roofline = np.minimum(1.0, intensity / (g.bf16_flops_per_s / g.bandwidth_bytes_per_s))
    compute_s = (model_flops + repeated) * imbalance / (gpus * g.bf16_flops_per_s * efficiency * roofline)
    # Interleaved: v model chunks per GPU cut the bubble v times (vp is 1 for every other schedule) ...
    bubble_s = compute_s * comm.bubble_ratio(pp, m, schedule) / vp

    def link(inner, size):
        """A group's bandwidth per GPU: NVLink within a node; across nodes, the network ports of the group's
        members in each node (NCCL runs a ring per port), never more than NVLink."""
        members = np.maximum(1, np.minimum(size, net.gpus_per_node // inner))
        across = np.minimum(net.intra_node_bytes_per_s, members * net.inter_node_bytes_per_s)
        return np.where(_span_in_node(inner, size, net.gpus_per_node), net.intra_node_bytes_per_s, across)

    def hop(inner, size):
        """The latency of one message in a group's ring."""
        return np.where(_span_in_node(inner, size, net.gpus_per_node), net.intra_node_latency_s,
                        net.inter_node_latency_s)

    layers, moe_layers = stage_layers(cfg, pp), stage_layers(cfg, pp, cfg.moe_layers) if cfg.is_moe else 0
    all_reduces = np.where(full, 6, 4)
    tp_link = np.where(c["tp_in_node"], link(1, tp), net.inter_node_bytes_per_s)
    tp_hop = np.where(c["tp_in_node"], hop(1, tp), net.inter_node_latency_s)
    parts = {
        "tp_s": m * (comm.tensor_parallel_bytes(b, tokens_per_gpu, cfg.hidden_size, layers, tp,
                                                all_reduces=all_reduces) / tp_link
                     + layers * all_reduces * comm.ring_steps(tp, all_reduce=True) * tp_hop),
        "cp_s": m * (comm.context_parallel_bytes(b, seq_len, cfg.num_kv_heads, cfg.head_dim, layers, cp, tp)
                     / link(tp, cp) + layers * 3 * comm.ring_steps(cp) * hop(tp, cp)),
        # ... and send each micro-batch's activations across v times as many stage boundaries.
        "pp_s": np.where(pp > 1, vp * m * (comm.pipeline_parallel_bytes(b, tokens_per_gpu, cfg.hidden_size, tp)
                                           / link(tp * cp * dp, pp) + 2 * hop(tp * cp * dp, pp)), 0.0),
        "dp_s": (_dp_bytes(c, cfg, tp, pp, dp * cp, m) / link(tp, cp * dp)
                 + layers * _zero_messages(c["zero"], m) * comm.ring_steps(dp * cp) * hop(tp, cp * dp)),
        "ep_s": m * (comm.expert_parallel_bytes(b, tokens_per_gpu, cfg.hidden_size, moe_layers, ep,
                                                cfg.experts_per_token) / link(tp, ep)
                     + moe_layers * 4 * comm.ring_steps(ep) * hop(tp, ep)) if cfg.is_moe else np.zeros(len(tp)),
    }
    total = sum(parts.values())
    hidden = np.minimum(overlap * total, compute_s)
    c.update(parts)
    c["compute_s"], c["bubble_s"], c["comm_s"], c["exposed_comm_s"] = compute_s, bubble_s, total, total - hidden
    c["step_time_s"] = compute_s + bubble_s + total - hidden
    c["mfu"] = model_flops / (gpus * g.bf16_flops_per_s * c["step_time_s"])


def _ffn_intensity(cfg, tokens, tp, ep):
    """FLOPs per byte of the FFN's up projection on one GPU: the tokens of a micro-batch by the hidden size by
    1/tp of the FFN width; an expert gets top-k/E of the tokens of the ep GPUs that send it theirs."""
    if cfg.is_moe:
        tokens = tokens * cfg.experts_per_token * ep / cfg.num_experts
        return comm.matmul_intensity(tokens, cfg.hidden_size, cfg.expert_ffn_hidden_size / tp)
    return comm.matmul_intensity(tokens, cfg.hidden_size, cfg.ffn_hidden_size / tp)


def _zero_messages(zero, m):
    """Collectives a layer's parameters take per step, a message per layer (as DeepSpeed and FSDP bucket them):
    one all-reduce (ZeRO 0-1, counted as two ring passes); a reduce-scatter per micro-batch and one all-gather
    (ZeRO-2); two all-gathers and a reduce-scatter per micro-batch (ZeRO-3)."""
    return np.where(zero == 3, 3 * m, np.where(zero == 2, m + 1, 2))


def stage_layers(cfg, pp, layers=None):
    """Layers (or ``layers`` of a kind) in the largest pipeline stage: ⌈L/p⌉ (Megatron-LM may also split unevenly
    by hand)."""
    return -(-(cfg.num_layers if layers is None else layers) // pp)


def _span_in_node(inner, size, per_node):
    """Whether a group of ``size`` ranks, ``inner`` apart, lies within one node of ``per_node`` GPUs."""
    return inner * size <= per_node


def _dp_bytes(c, cfg, tp, pp, replicas, m):
    """ZeRO's traffic per GPU: the dense shard kept in step over the dp·cp replicas, the experts' 1/ep of theirs over
    the dp·cp/ep that hold the same experts (both on the same links: a simplification)."""
    counts = count_params(cfg)
    experts = counts.parts["experts"]
    out = np.zeros(len(tp))
    for zero in np.unique(c["zero"]).tolist():
        rows = c["zero"] == zero
        split, ep = (tp * pp)[rows], c["ep"][rows]
        out[rows] = comm.zero_traffic_bytes((counts.total - experts) / split, replicas[rows], zero, m[rows])
        if experts:
            out[rows] += comm.zero_traffic_bytes(experts / split / ep, replicas[rows] / ep, zero, m[rows])
    return out
