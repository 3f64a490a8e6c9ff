"""Communication formulas: the bytes each GPU sends for a collective, the traffic of each kind of parallelism per
step, the pipeline bubble of each schedule, and the time these take on a link.

Formulas use only + - * / and work on numbers, NumPy arrays and SymPy symbols. Sizes are bytes; a collective over
n GPUs in a ring (what NCCL runs for large messages) sends, from each GPU:

- all-reduce of S bytes:       2 · (n − 1)/n · S   (a reduce-scatter, then an all-gather)
- all-gather to S bytes:       (n − 1)/n · S       (S is the gathered size; each GPU holds S/n before)
- reduce-scatter of S bytes:   (n − 1)/n · S
- all-to-all of S bytes:       (n − 1)/n · S       (S is what each GPU holds; 1/n of it stays)

NCCL's tests report a collective's "bus bandwidth" as exactly these bytes over the time, so that a link's
bandwidth per direction is the figure to compare against (nccl-tests, doc/PERFORMANCE.md).
The time of a collective is its bytes over the slowest link its ring crosses (within a node: NVLink, per GPU and
direction; between nodes: each GPU's network port), plus the link's latency for each of its ``ring_steps``, which
is what makes many small messages (a deep ring-attention ring, a wide tensor-parallel group) slow.
"""

from __future__ import annotations

from ..core import _validate as v
from .moe_comm import dualpipe_bubble_seconds


def _share(n):
    """(n − 1)/n: the part of a ring collective's data that leaves each GPU."""
    return (n - 1) / n


@v.checked
def all_reduce_bytes(size_bytes, gpus):
    """Bytes each GPU sends in a ring all-reduce of ``size_bytes``: 2 · (n − 1)/n · S."""
    return 2 * _share(gpus) * size_bytes


@v.checked
def all_gather_bytes(size_bytes, gpus):
    """Bytes each GPU sends in a ring all-gather (or reduce-scatter) of a tensor of ``size_bytes`` in all:
    (n − 1)/n · S."""
    return _share(gpus) * size_bytes


@v.checked
def all_to_all_bytes(size_bytes, gpus):
    """Bytes each GPU sends in an all-to-all of the ``size_bytes`` it holds: all but its own 1/n."""
    return _share(gpus) * size_bytes


@v.checked
def transfer_seconds(size_bytes, bandwidth_bytes_per_s):
    """Seconds to send ``size_bytes`` over a link of ``bandwidth_bytes_per_s`` (per direction)."""
    return size_bytes / bandwidth_bytes_per_s


@v.checked
def ring_steps(gpus, all_reduce=False):
    """Messages each GPU sends one after another in a ring collective: n − 1 (all-gather, reduce-scatter,
    all-to-all), 2(n − 1) for an all-reduce. Each costs the link's latency however small it is."""
    return (2 if all_reduce else 1) * (gpus - 1)


@v.checked
def matmul_intensity(rows, inner, cols, bytes_per_value=2):
    """FLOPs per byte of a (rows × inner) · (inner × cols) matmul that reads both and writes the product once:
    2·m·k·n / (bytes · (m·k + k·n + m·n)). Below the GPU's ridge (peak over bandwidth, chapter 3's roofline) the
    matmul is bound by memory, not by compute: what a small micro-batch or a fine split costs."""
    return 2 * rows * inner * cols / (bytes_per_value * (rows * inner + inner * cols + rows * cols))


# ----------------------------------------------------------------------------------------------------------------
# Traffic per GPU of each kind of parallelism
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def tensor_parallel_bytes(micro_batch, seq_len, hidden, layers, tp, bytes_per_value=2, all_reduces=4):
    """Bytes each GPU sends for tensor parallelism over one micro-batch of ``layers`` layers (Megatron-LM,
    Shoeybi et al. 2019): each layer all-reduces its b·s·h output twice forward (after attention and after the
    FFN) and twice backward, 4 all-reduces a layer; 6 when full recomputation repeats the forward. Sequence
    parallelism turns each all-reduce into an all-gather and a reduce-scatter: the same bytes."""
    return layers * all_reduces * all_reduce_bytes(micro_batch * seq_len * hidden * bytes_per_value, tp)


@v.checked
def context_parallel_bytes(micro_batch, seq_len, kv_heads, head_dim, layers, cp, tp=1, bytes_per_value=2):
    """Bytes each GPU sends for context parallelism (ring attention) over one micro-batch: each GPU holds s/cp of
    the sequence and passes its K and V chunk (2·b·(s/cp)·k·d values, 1/tp of the heads) around the ring, cp − 1
    hops forward; backward sends K and V again and their gradients, 2·(cp − 1) hops (Megatron-Core's context
    parallelism)."""
    chunk = 2 * micro_batch * (seq_len / cp) * kv_heads * head_dim * bytes_per_value / tp
    return layers * 3 * (cp - 1) * chunk


@v.checked
def pipeline_parallel_bytes(micro_batch, seq_len, hidden, tp=1, bytes_per_value=2):
    """Bytes a pipeline stage sends per micro-batch: its output activations forward and their gradient backward,
    b·s·h values each; with tensor parallelism each of the tp GPUs sends 1/tp (Megatron-LM's scatter/gather)."""
    return 2 * micro_batch * seq_len * hidden * bytes_per_value / tp


@v.checked
def expert_parallel_bytes(micro_batch, seq_len, hidden, moe_layers, ep, top_k, bytes_per_value=2):
    """Bytes each GPU sends for expert parallelism over one micro-batch: each MoE layer sends every token to its
    top_k experts and back (dispatch and combine), forward and backward, 4 all-to-alls of b·s·k·h values, of
    which (ep − 1)/ep leave the GPU (GShard; DeepSpeed-MoE)."""
    return moe_layers * 4 * all_to_all_bytes(micro_batch * seq_len * top_k * hidden * bytes_per_value, ep)


@v.checked
def zero_traffic_bytes(shard_params, dp, zero=0, micro_batches=1, bytes_per_value=2):
    """Bytes each GPU sends per step to keep ``shard_params`` (a tensor- and pipeline-parallel shard) in step over
    dp replicas, with gradient accumulation over ``micro_batches``:

    - no ZeRO and ZeRO-1: one all-reduce of the gradients per step, 2 · (dp − 1)/dp · Ψ (ZeRO-1 does it as a
      reduce-scatter, then an all-gather of the updated weights: the same bytes);
    - ZeRO-2: the gradients reduce-scattered as each micro-batch's backward makes them (the full set is never
      kept), the weights all-gathered once: (m + 1) · (dp − 1)/dp · Ψ;
    - ZeRO-3 (FSDP): the weights all-gathered for each micro-batch's forward and again for its backward, the
      gradients reduce-scattered: 3 · m · (dp − 1)/dp · Ψ.

    In 16-bit values by default (bf16 gradients and weights)."""
    v.check_int("zero", zero, minimum=0, maximum=3)
    size = shard_params * bytes_per_value
    if zero == 3:
        return 3 * micro_batches * all_gather_bytes(size, dp)
    if zero == 2:
        return (micro_batches + 1) * all_gather_bytes(size, dp)
    return all_reduce_bytes(size, dp)


# ----------------------------------------------------------------------------------------------------------------
# Pipeline schedules
# ----------------------------------------------------------------------------------------------------------------

SCHEDULES = {
    "gpipe": "GPipe (Huang et al. 2019): all forwards, then all backwards; every stage holds all m micro-batches",
    "1f1b": "1F1B (PipeDream-Flush, Narayanan et al. 2021): the same bubble as GPipe, at most p micro-batches held",
    "interleaved": "interleaved 1F1B (Narayanan et al. 2021): v model chunks per GPU cut the bubble v times",
    "zb-h1": "zero bubble ZB-H1 (Qi et al. 2024): backward split into input and weight gradients; a third of "
             "1F1B's bubble at 1F1B's memory",
    "zb-h2": "zero bubble ZB-H2 (Qi et al. 2024): no bubble, for about twice 1F1B's activations",
    "dualpipe": "DualPipe (DeepSeek-V3 §3.2.1): two pipelines in opposite directions over the same ranks, a forward "
                "and a backward chunk overlapped; (p/2 − 1)(F&B + B − 3W) idle, two copies of the parameters, "
                "p + 1 micro-batches of activations; p even",
}


def _schedule(name, value):
    return v.check_choice(name, value, SCHEDULES)


@v.checked(schedule=_schedule)
def bubble_ratio(stages, micro_batches, schedule="1f1b", virtual_stages=1):
    """The pipeline's idle time over its busy time, for p stages and m micro-batches a step: (p − 1)/m for GPipe
    and 1F1B; (p − 1)/(v·m) interleaved with v chunks per GPU; a third of that for ZB-H1 (its bubble is
    (p − 1)(T_F + T_B − T_W), with T_W the weight gradient's third of the forward-and-backward work); 0 for
    ZB-H2; (p/2 − 1) · 2/(3m) for DualPipe (``moe_comm.dualpipe_bubble_seconds`` at F, B, W = 1, 2, 1). The idle
    share of the whole step is ratio / (1 + ratio): ``memory.pipeline_bubble`` for GPipe and 1F1B."""
    v.check_whole("virtual_stages", virtual_stages)
    idle = (stages - 1) / micro_batches
    if schedule == "interleaved":
        return idle / virtual_stages
    if schedule == "zb-h1":
        return idle / 3
    if schedule == "zb-h2":
        return 0 * idle
    if schedule == "dualpipe":   # F, B, W = 1, 2, 1 (W a third of F + B, as for ZB-H1), F&B taken as F + B
        return dualpipe_bubble_seconds(stages, 1, 2, 1) / (3 * micro_batches)
    return idle


@v.checked(schedule=_schedule)
def micro_batches_held(stages, micro_batches, schedule="1f1b"):
    """Micro-batches whose activations the first stage holds at once: all m for GPipe; min(p, m) for 1F1B,
    interleaved (a little more, left out) and ZB-H1; twice that for ZB-H2; one more for DualPipe (its README's
    table: PP + 1), never more than m."""
    held = micro_batches if schedule == "gpipe" else (stages + micro_batches - abs(stages - micro_batches)) / 2
    if schedule == "dualpipe":
        return (held + 1 + micro_batches - abs(held + 1 - micro_batches)) / 2
    return 2 * held if schedule == "zb-h2" else held
