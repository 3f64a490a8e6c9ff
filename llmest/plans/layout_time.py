"""The layout search's step time (``step_times``): for every layout at once, the compute of the slowest pipeline
stage at a matmul efficiency that depends on the shapes a split leaves, the pipeline's bubble, and the communication
of each kind, its bytes over the links its group crosses plus a latency per collective. Every assumption is a named
constant of ``layout_assumptions``, with its source."""

from __future__ import annotations

import functools
import math

import numpy as np

from ..core import _validate as v
from ..core.i18n import _
from ..formulas import comm, moe_comm
from ..formulas.compute import attention_flops_per_token_for, flops_params, mtp_flops_params
from ..formulas.memory import RECOMPUTE
from ..formulas.model import count_params
from .memory_plan import check_config
from .layout_assumptions import (COMMUNICATION_SMS, GPU_SMS, HIDDEN_KINDS, IMBALANCE, MATMUL_OVERHEAD_S,
                                 MATMULS_PER_LAYER, NCCL_BASE_LATENCY_S, NETWORK_EFFICIENCY, NETWORK_STEP_LATENCY_S,
                                 NVLINK_EFFICIENCY, NVLINK_STEP_LATENCY_S)


def step_times(c, cfg, g, gpus, seq_len, tokens, schedule, overlap, efficiency, tp_comm_overlap=False,
               gemm_speedup=1.0, moe=None):
    """Add each layout's compute, bubble, communication by kind and step time to the columns ``c``. ``gemm_speedup``:
    how many times faster than BF16 the blocks' matmuls run under a low-precision recipe (``precision_time``); the
    output layer, attention and a MoE's router stay BF16, as every recipe of ``formulas.precision`` keeps them.
    ``moe``: for a mixture of experts, dict(dispatch_bytes=, nodes_per_token=, imbalance=), as ``moe_plan`` takes
    them (None: BF16 dispatch, no node limit, ``IMBALANCE``)."""
    tp, cp, pp, dp, ep, vp, b, m = (c[k] for k in ("tp", "cp", "pp", "dp", "ep", "vp", "micro_batch",
                                                    "micro_batches"))
    net = g.network
    moe = {"dispatch_bytes": 2, "nodes_per_token": None, "imbalance": IMBALANCE, **(moe or {})}
    matmul = 6 * flops_params(cfg)
    attention = attention_flops_per_token_for(cfg, seq_len)
    model_flops = (matmul + attention) * tokens
    # Per token, forward and backward: the output layer (6·h·V), and each layer's share of the rest. Recomputation
    # repeats a layer's forward: all of it for "full" (a third of its matmuls and attention), the attention scores
    # for "selective" (a third of attention); never the output layer's. A multi-token-prediction module (DeepSeek-V3
    # §2.2) is one more layer and output layer on the last stage: its work is in the time, not in the MFU.
    head = 6 * cfg.hidden_size * cfg.vocab_size
    router = 6 * count_params(cfg).parts.get("router", 0)
    layer_gemm = (matmul - head - router) / cfg.num_layers / gemm_speedup
    layer_matmul, layer_attention = layer_gemm + router / cfg.num_layers, attention / cfg.num_layers
    if cfg.mtp_layers:
        head += 6 * (mtp_flops_params(cfg) - cfg.hidden_size * cfg.vocab_size) / gemm_speedup + layer_attention + \
            6 * cfg.hidden_size * cfg.vocab_size
    repeat = np.array([0.0, layer_attention / 3, (layer_matmul + layer_attention) / 3])  # RECOMPUTE's order
    repeat_attention = np.array([0.0, layer_attention / 3, layer_attention / 3])
    layer = layer_matmul + layer_attention + repeat[c["recompute_code"]]
    largest = _largest_stage(c, cfg.num_layers, pp, layer, head, schedule)
    tokens_per_gpu = seq_len / cp
    layers = stage_layers(cfg, pp)
    full = c["recompute_code"] == RECOMPUTE.index("full")
    # The slowest stage's work for its 1/dp of the tokens, split over its tp·cp GPUs, at the matmul efficiency (less
    # below the roofline's ridge), and each of its matmuls' fixed cost for each micro-batch; DualPipe's compute runs
    # on the SMs its all-to-all kernels leave.
    roofline = _roofline(cfg, g, b * tokens_per_gpu, tp, ep)
    share = 1 - COMMUNICATION_SMS / GPU_SMS if schedule == "dualpipe" else 1.0
    compute_s = (tokens / dp * largest / (tp * cp * g.bf16_flops_per_s * efficiency * roofline)
                 + m * layers * (MATMULS_PER_LAYER + 4 * full) * MATMUL_OVERHEAD_S) / share
    if cfg.is_moe:   # the routed experts' share of it waits on the busiest expert-parallel GPU
        experts = 6 * cfg.experts_per_token * 3 * cfg.hidden_size * cfg.expert_ffn_hidden_size * cfg.moe_layers
        compute_s = moe_comm.imbalanced_seconds(compute_s, moe["imbalance"],
                                                experts / cfg.num_layers / gemm_speedup / layer)
    bubble_s = _bubble(compute_s, pp, m, vp, schedule, layer_gemm / layer)

    all_reduces = np.where(full, 6, 4)
    tp_span = np.where(c["tp_in_node"], 1, net.gpus_per_node)  # a ring across nodes: its ranks a node apart
    tp_bytes = comm.tensor_parallel_bytes(b, tokens_per_gpu, cfg.hidden_size, layers, tp, all_reduces=all_reduces)
    held = np.where(pp > 1, 2, 1) if schedule == "dualpipe" else 1   # DualPipe: two stages' parameters a rank
    parts = {
        "tp_s": m * (tp_bytes / _ring(net, tp_span, tp) + layers * all_reduces * _latency(net, tp_span, tp)),
        "cp_s": m * (comm.context_parallel_bytes(b, seq_len, cfg.num_kv_heads, cfg.head_dim, layers, cp, tp)
                     / _point_to_point(net, tp, cp) + layers * 3 * comm.ring_steps(cp) * _send(net, tp, cp)),
        # ... and send each micro-batch's activations across v times as many stage boundaries.
        "pp_s": np.where(pp > 1, vp * m * (comm.pipeline_parallel_bytes(b, tokens_per_gpu, cfg.hidden_size, tp)
                                           / _point_to_point(net, tp * cp * dp, pp)
                                           + 2 * _send(net, tp * cp * dp, pp)), 0.0),
        "dp_s": (_dp_bytes(c, cfg, tp, pp // held, dp * cp, m) / _ring(net, tp, cp * dp)
                 + layers * _zero_messages(c["zero"], m) * _latency(net, tp, cp * dp)),
        "ep_s": _expert_seconds(c, cfg, net, tokens_per_gpu, schedule, moe) if cfg.is_moe else np.zeros(len(tp)),
    }
    total = sum(parts.values())
    # Only the kinds that run beside the compute (HIDDEN_KINDS, and the tensor-parallel collectives where they are
    # split into the matmuls: Transformer Engine's tp_comm_overlap) can hide behind it, at most ``overlap`` of them;
    # ring attention's sends hide only behind the attention they feed. DualPipe hides the all-to-all of its
    # overlapped pairs behind the other micro-batch's compute (moe_plan's count): all but the chunks a rank runs
    # alone before its first pair and after its last, about p/2 forwards and p/2 backwards of its m.
    attention_s = compute_s * (layer_attention + repeat_attention[c["recompute_code"]]) / layer
    hidden_cp = np.minimum(overlap * parts["cp_s"], attention_s)
    hidden_ep = (1 - np.minimum(1.0, pp / 2 / m)) * np.minimum(parts["ep_s"], compute_s) \
        if schedule == "dualpipe" else 0.0
    others = sum(parts[kind] for kind in HIDDEN_KINDS + ("tp_s",) * tp_comm_overlap if kind != "cp_s")
    hidden = hidden_cp + hidden_ep + np.minimum(overlap * others, np.maximum(0.0, compute_s - hidden_cp - hidden_ep))
    c.update(parts)
    c["compute_s"], c["bubble_s"], c["comm_s"], c["exposed_comm_s"] = compute_s, bubble_s, total, total - hidden
    c["step_time_s"] = compute_s + bubble_s + total - hidden
    c["mfu"] = model_flops / (gpus * g.bf16_flops_per_s * c["step_time_s"])


def _bubble(compute_s, pp, m, vp, schedule, gemm_share):
    """The pipeline's idle time: ``comm.bubble_ratio`` of the compute (interleaved: v model chunks per GPU cut it v
    times; vp is 1 for every other schedule); DualPipe's from a chunk's forward (a third of a micro-batch's work),
    backward (two thirds) and weight gradient (the backward's matmul share), as moe_plan counts it."""
    if schedule != "dualpipe":
        return compute_s * comm.bubble_ratio(pp, m, schedule) / vp
    out = np.zeros(len(pp))
    for stages in np.unique(pp).tolist():
        rows = pp == stages
        chunk = compute_s[rows] / m[rows]
        out[rows] = moe_comm.dualpipe_bubble_seconds(stages, chunk / 3, 2 * chunk / 3, chunk * gemm_share[rows] / 3)
    return out


def _expert_seconds(c, cfg, net, tokens_per_gpu, schedule, moe):
    """Expert parallelism's all-to-all, a step: the bytes ``moe_comm`` counts per token over each link (node-limited
    routing where ``nodes_per_token`` says so, the dispatch in the recipe's format) for the tokens of the slowest
    stage's MoE layers (a DualPipe rank's mean: its two stages), at NVLink's and the GPU's own network port's
    speeds, the slower link setting the time; and a latency per all-to-all. The group's ranks are tp apart: its
    members in a node are the node's "GPUs" of the formulas; each of the tp GPUs dispatches its 1/tp of the tokens
    (Megatron-Core runs a MoE with tensor parallelism only with sequence parallelism, "When using MoE and tensor
    parallelism, sequence parallelism must be used", its arguments.py)."""
    tp, pp, ep, b, m = c["tp"], c["pp"], c["ep"], c["micro_batch"], c["micro_batches"]
    moe_layers = (cfg.moe_layers + cfg.mtp_layers) / pp if schedule == "dualpipe" else \
        stage_layers(cfg, pp, cfg.moe_layers)
    members = _members(net, tp, ep)[0]
    rates = (NETWORK_EFFICIENCY * net.inter_node_bytes_per_s, NVLINK_EFFICIENCY * net.intra_node_bytes_per_s)
    per_token = np.zeros(len(tp))
    k, limit = cfg.experts_per_token, moe["nodes_per_token"]
    for size, inside in {(int(e), int(n)) for e, n in zip(ep.tolist(), members.tolist())}:
        rows = (ep == size) & (members == inside)
        sends = (moe_comm.network_sends_per_token(k, size, inside, limit),
                 moe_comm.nvlink_sends_per_token(k, size, inside, limit))
        per_token[rows] = max(moe_comm.all_to_all_bytes_per_token(cfg.hidden_size, n, moe["dispatch_bytes"], 2) / rate
                              for n, rate in zip(sends, rates))
    return m * (b * tokens_per_gpu / tp * moe_layers * per_token + moe_layers * 4 * _send(net, tp, ep))


def _largest_stage(c, num_layers, pp, layer, head, schedule="1f1b"):
    """The work per token of the slowest pipeline stage (``slowest_rank_work``), for every row: ``layer`` is each
    row's work of a layer, ``head`` the output layer's."""
    out = np.empty(len(pp))
    for stages in np.unique(pp).tolist():
        rows = pp == stages
        for work in np.unique(layer[rows]).tolist():
            picked = rows & (layer == work)
            out[picked] = slowest_rank_work(num_layers, work, head, stages, schedule)[0]
    return out


def slowest_rank_work(num_layers, layer, head, stages, schedule="1f1b"):
    """The work per token of the slowest pipeline rank, and the mean: whole layers dealt to the stages so that the
    slowest is as light as it can be. The last stage holds the output layer besides its layers: k layers on it and
    the rest as evenly as they go on the others (Megatron-Core's first- and last-stage layer counts; Llama 3 took a
    layer off each end). DualPipe puts stage i and stage p − 1 − i on a rank (so the rank with the embedding holds
    the output layer of the other direction), and a rank costs the mean of its two."""
    mean = (num_layers * layer + head) / stages
    if stages == 1:
        return num_layers * layer + head, mean
    if schedule == "dualpipe":
        pairs = stages // 2
        if pairs == 1:
            return (num_layers * layer + head) / 2, mean
        return min(max((n * layer + head) / 2, math.ceil((num_layers - n) / (pairs - 1)) * layer / 2)
                   for n in range(num_layers + 1)), mean
    return min(max(k * layer + head, math.ceil((num_layers - k) / (stages - 1)) * layer)
               for k in range(0, -(-num_layers // stages) + 1)), mean


def _roofline(cfg, g, tokens, tp, ep):
    """The share of the matmul speed that a layer's largest matmul on one GPU keeps below the ridge (chapter 3's
    roofline), where it is bound by memory: the FFN's up projection, the tokens of a micro-batch's chunk by the
    hidden size by 1/tp of the FFN width; an expert gets top-k/E of the tokens of the ep GPUs that send it theirs."""
    if cfg.is_moe:
        tokens = tokens * cfg.experts_per_token * ep / cfg.num_experts
        intensity = comm.matmul_intensity(tokens, cfg.hidden_size, cfg.expert_ffn_hidden_size / tp)
    else:
        intensity = comm.matmul_intensity(tokens, cfg.hidden_size, cfg.ffn_hidden_size / tp)
    return np.minimum(1.0, intensity / (g.bf16_flops_per_s / g.bandwidth_bytes_per_s))


def _in_node(inner, size, per_node):
    """Whether a group of ``size`` ranks, ``inner`` apart, lies within one node of ``per_node`` GPUs: the scale-up
    domain of the GPU's row (8 GPUs of an HGX server, 72 of an NVL72 rack, a TPU pod). A group that fits is placed
    within one domain, even where the domain is no multiple of it (groups of 16 in a rack of 72: four of them, the
    other 8 GPUs to another job or idle, as NVL72 jobs are laid out)."""
    return inner * size <= per_node


@functools.lru_cache(maxsize=1024)
def _largest_divisor(size: int, most: int) -> int:
    return max(d for d in range(1, min(size, most) + 1) if size % d == 0)


def _members(net, inner, size):
    """The ranks of a group, ``inner`` apart, in each node, and the nodes it spans. A group larger than a node is
    spread over nodes in equal shares, as many ranks in each as divide its size and fit (128 ranks over racks of 72:
    64 in each of 2)."""
    inner, size = np.broadcast_arrays(np.asarray(inner), np.asarray(size))
    most = np.maximum(1, net.gpus_per_node // inner)
    pairs, where = np.unique(np.stack([size.ravel(), most.ravel()]).astype(np.int64), axis=1, return_inverse=True)
    shares = np.array([_largest_divisor(int(s), int(m)) for s, m in pairs.T], dtype=np.int64)
    members = shares[where.ravel()].reshape(size.shape)
    return members, np.maximum(1, size // members)


def _ring(net, inner, size):
    """A collective's bus bandwidth per GPU: NVLink within a node; across nodes, the network ports of the group's
    members in each node (NCCL runs a ring per port), never more than NVLink; at the share NCCL reaches."""
    members = _members(net, inner, size)[0]
    nvlink = NVLINK_EFFICIENCY * net.intra_node_bytes_per_s
    across = np.minimum(nvlink, members * NETWORK_EFFICIENCY * net.inter_node_bytes_per_s)
    return np.where(_in_node(inner, size, net.gpus_per_node), nvlink, across)


def _point_to_point(net, inner, size):
    """A ring of sends (ring attention, a pipeline's stages) goes as fast as its slowest hop: NVLink within a node;
    across nodes, one GPU's own network port."""
    return np.where(_in_node(inner, size, net.gpus_per_node), NVLINK_EFFICIENCY * net.intra_node_bytes_per_s,
                    NETWORK_EFFICIENCY * net.inter_node_bytes_per_s)


def _all_to_all(net, inner, size):
    """Seconds per byte sent in an all-to-all: of the size − 1 peers, those in the GPU's node are reached over
    NVLink, the others through its own network port, both at once; the slower share sets the time."""
    members = _members(net, inner, size)[0]
    peers = np.maximum(size - 1, 1)
    return np.maximum((members - 1) / peers / (NVLINK_EFFICIENCY * net.intra_node_bytes_per_s),
                      (size - members) / peers / (NETWORK_EFFICIENCY * net.inter_node_bytes_per_s))


def _send(net, inner, size):
    """One send's latency: NCCL's base latency and one step, within a node or across nodes."""
    return NCCL_BASE_LATENCY_S + np.where(_in_node(inner, size, net.gpus_per_node), NVLINK_STEP_LATENCY_S,
                                          NETWORK_STEP_LATENCY_S)


def _latency(net, inner, size):
    """A collective's latency as NCCL models a tree all-reduce: its base latency, and 2 · ((k − 1) steps over
    NVLink + log2(nodes) over the network) for k ranks in each node; none for a group of one."""
    members, nodes = _members(net, inner, size)
    steps = 2 * ((members - 1) * NVLINK_STEP_LATENCY_S + np.ceil(np.log2(nodes)) * NETWORK_STEP_LATENCY_S)
    return np.where(size > 1, NCCL_BASE_LATENCY_S + steps, 0.0)


def _zero_messages(zero, m):
    """Collectives a layer's parameters take per step, a message per layer (as DeepSpeed and FSDP bucket them):
    one all-reduce (ZeRO 0-1, counted as two ring passes); a reduce-scatter per micro-batch and one all-gather
    (ZeRO-2); two all-gathers and a reduce-scatter per micro-batch (ZeRO-3)."""
    return np.where(zero == 3, 3 * m, np.where(zero == 2, m + 1, 2))


def stage_layers(cfg, pp, layers=None):
    """Layers (or ``layers`` of a kind) in the largest pipeline stage: ⌈L/p⌉ (Megatron-LM may also split unevenly
    by hand). ``pp`` may be an array, one per layout; more stages than layers are refused."""
    check_config(cfg)
    total = cfg.num_layers if layers is None else v.check_whole("layers", layers)
    pp = v.check_whole("pp", pp)
    if np.any(pp > total):
        raise v.InputError("pp", _("pp == {pp}, must be <= {layers}: a pipeline stage needs a layer.").format(
            pp=v.quote(pp), layers=total))
    return -(-total // pp)


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
