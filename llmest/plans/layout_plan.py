"""The layout search: every way to split a training run over a number of GPUs (tensor × context × pipeline × data
parallel degrees, with a ZeRO stage, a micro-batch, a recomputation and where the tensor-parallel group sits), its
memory per GPU, its step time (compute, the pipeline's bubble, the communication that does not overlap), and the
MFU that follows; those that fit first, fastest first.

Every layout is computed at once, as NumPy arrays through the formulas of ``memory`` and ``comm``, so that the
thousands of layouts of 1,024 GPUs take a fraction of a second.

How ranks are placed (Megatron-LM's order): tensor-parallel ranks are neighbours, then context-, data- and
pipeline-parallel ones. A group's ring runs over NVLink when its span of ranks fits in a node, and over the network
(each GPU's own port) when it does not. ``tp_in_node=False`` is the same layout with the tensor-parallel ring
across nodes (its ranks a node apart) and the other groups on the links they had: the layout that shows why
tensor parallelism stays within a node.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..core import _validate as v
from ..formulas import comm, moe_comm
from ..catalog import hardware
from ..core._validate import InputError
from ..display.layout import search_report
from ..core.report import Report, Shows
from ..core.i18n import _
from ..formulas.memory import (MEMORY_MARGIN, RECOMPUTE, RUNTIME_OVERHEAD_BYTES, model_layer_activation_bytes,
                               output_activation_bytes, state_bytes_per_param)
from ..formulas.model import config_from
from ..formulas.precision import (dispatch_bytes_per_value, matmul_input_values, recipe_activation_bytes,
                                  recipe_state_bytes)
from .layout_assumptions import IMBALANCE, matmul_efficiency
from .precision_time import recipe_gemm_speedup
from .layout_time import stage_layers, step_times
from .memory_plan import training_states, zero_buffers

# The share of a step's communication of the kinds that run beside the compute (layout_assumptions.HIDDEN_KINDS)
# hidden behind it, when there is compute to hide it: Megatron-Core overlaps the data-parallel reduce and gather
# bucket by bucket with the backward and forward passes, all but the last bucket's.
OVERLAP = 0.9
# None: the matmul efficiency fitted for the GPU's generation (layout_assumptions.matmul_efficiency).
COMPUTE_EFFICIENCY = None
MICRO_BATCHES = (1, 2, 4, 8, 16)
SETTINGS = ("tp", "cp", "pp", "dp", "zero", "micro_batch", "recompute", "tp_in_node", "ep", "vp")
COLUMNS = ("tp", "cp", "pp", "dp", "zero", "micro_batch", "recompute", "tp_in_node", "ep", "vp",
           "memory_per_gpu_bytes", "step_time_s", "mfu", "fits")


@functools.lru_cache(maxsize=4096)
def _divisors(n: int, most: int) -> tuple:
    return tuple(d for d in range(1, min(n, most) + 1) if n % d == 0)


def _placements(tp, gpus, per_node) -> tuple:
    """Whether the tensor-parallel ring lies in a node: both ways when it can (one node holds it, and there are
    other nodes to spread it over), else the only way there is."""
    if tp > per_node:
        return (False,)
    return (True, False) if tp > 1 and gpus > per_node else (True,)


def _virtual_stages(cfg, pp, micro_batches, schedule) -> tuple:
    """Model chunks per GPU (v): with the interleaved schedule, each v that divides the largest stage's layers, where
    the micro-batches of a step are a multiple of the stages (Megatron-LM's condition); 1 otherwise."""
    if schedule != "interleaved" or pp == 1 or micro_batches % pp:
        return (1,)
    layers = stage_layers(cfg, pp)
    return _divisors(layers, layers)


def _expert_degrees(cfg, replicas) -> list:
    """Expert-parallel degrees for a mixture of experts: those that divide both its experts and the dp·cp GPUs
    holding the same dense layers (Megatron-Core carves the expert-parallel group out of them); 1 for a dense
    model."""
    if not cfg.is_moe:
        return (1,)
    return tuple(ep for ep in _divisors(replicas, cfg.num_experts) if cfg.num_experts % ep == 0)


@dataclass(frozen=True, eq=False)
class LayoutSearch(Shows):
    """Every layout searched, as columns (NumPy arrays of one row per layout), and ``order``: the rows best first
    (fitting layouts by step time, then the others by step time). Besides ``COLUMNS``: micro_batches (per step,
    per pipeline), states_bytes, buffer_bytes (ZeRO's), activation_bytes, compute_s, bubble_s, the communication
    of each kind (tp_s, cp_s, pp_s, dp_s, ep_s), comm_s (their sum) and exposed_comm_s (what overlap does not
    hide). ``ep`` is the expert-parallel degree (1 for a dense model), ``vp`` the model chunks per GPU of the
    interleaved schedule (1 for the others)."""

    model: str
    gpu: str
    gpus: int
    seq_len: int
    global_batch_tokens: int
    settings: dict
    columns: dict = field(repr=False)
    order: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.order)

    def report(self, top: int | None = 10, **given) -> Report:
        """How the search shows itself: its ``top`` layouts (None: all), and a layout ``given`` with its rank."""
        return search_report(self, top, **given)

    def __eq__(self, other) -> bool:
        """The same search: the same inputs and every column equal."""
        return isinstance(other, LayoutSearch) and (self.model, self.gpu, self.gpus, self.seq_len,
                                                    self.global_batch_tokens, self.settings) == (
            other.model, other.gpu, other.gpus, other.seq_len, other.global_batch_tokens, other.settings) and \
            self.columns.keys() == other.columns.keys() and \
            all(np.array_equal(self.columns[k], other.columns[k]) for k in self.columns)

    @property
    def fitting(self) -> int:
        return int(self.columns["fits"].sum())

    def rows(self, top: int | None = None, columns=COLUMNS) -> list:
        """The layouts as dicts, best first (all, or the first ``top``), in plain Python numbers."""
        chosen = self.order if top is None else self.order[:v.check_int("top", top)]
        picked = {name: self.columns[name][chosen].tolist() for name in columns}
        return [dict(zip(picked, values)) for values in zip(*picked.values())]

    def _matching(self, layout) -> np.ndarray:
        """Which rows have the settings ``layout``."""
        rows = np.ones(len(self.order), dtype=bool)
        for name, value in layout.items():
            if name not in SETTINGS:
                raise InputError(name, _("{name}: not a setting of a layout (one of {settings}).").format(
                    name=name, settings=", ".join(SETTINGS)))
            rows &= self.columns[name] == value
        return rows

    def find(self, **layout) -> dict:
        """The layout with these settings (tp, cp, pp, dp, zero, micro_batch, recompute, tp_in_node; those left
        out must leave one row), with every column."""
        found = np.flatnonzero(self._matching(layout))
        if len(found) != 1:
            raise InputError("layout", _("layout == {layout}: {count} layouts match, not one.").format(
                layout=layout, count=len(found)))
        return {name: column[found[0]].item() if hasattr(column[found[0]], "item") else column[found[0]]
                for name, column in self.columns.items()}

    def evaluate(self, **given) -> dict:
        """The fastest layout with the settings ``given`` (any of SETTINGS; those left out are the search's best
        choice for the rest), with every column and ``rank``: its place among all the layouts searched, 1 for the
        best."""
        ranked = self._matching(given)[self.order]
        if not ranked.any():
            shown = ", ".join(f"{name} {value}" for name, value in given.items())
            raise InputError("layout", _("layout {layout}: not among the {count} layouts searched (each degree must "
                                         "divide what it splits: tp the heads, cp the sequence, pp the layers, dp "
                                         "the sequences, tp·cp·pp·dp the GPUs).").format(
                layout=shown, count=f"{len(self.order):,}"))
        place = int(np.argmax(ranked))
        row = self.order[place]
        found = {name: column[row].item() if hasattr(column[row], "item") else column[row]
                 for name, column in self.columns.items()}
        return {**found, "rank": place + 1}

    @property
    def best(self) -> dict | None:
        """The fastest layout that fits, or None when none does."""
        return self.rows(1, tuple(self.columns))[0] if self.fitting else None


def _enumerate(cfg, gpus, seq_seqs, per_node, micro_batches, zero_stages, recompute, schedule):
    """The grid of layouts as columns: every factorisation gpus = tp·cp·pp·dp that the model and batch allow."""
    rows = []
    for tp in _divisors(gpus, cfg.num_heads):
        if cfg.num_heads % tp or cfg.num_kv_heads % tp and tp % cfg.num_kv_heads:
            continue
        for cp in _divisors(gpus // tp, gpus):
            if seq_seqs[1] % cp:
                continue
            for pp in _divisors(gpus // (tp * cp), cfg.num_layers):
                dp = gpus // (tp * cp * pp)
                if seq_seqs[0] % dp or schedule == "dualpipe" and pp % 2:   # DualPipe: two stages a rank
                    continue
                for b in micro_batches:
                    if (seq_seqs[0] // dp) % b:
                        continue
                    for ep in _expert_degrees(cfg, dp * cp):
                        for vp in _virtual_stages(cfg, pp, seq_seqs[0] // (dp * b), schedule):
                            for in_node in _placements(tp, gpus, per_node):
                                rows.append((tp, cp, pp, dp, ep, vp, b, in_node))
    if not rows:
        return None
    grid = np.array(rows, dtype=np.int64)
    n, stages, recomputes = len(grid), len(zero_stages), len(recompute)
    columns = {name: np.repeat(grid[:, i], stages * recomputes)
               for i, name in enumerate(("tp", "cp", "pp", "dp", "ep", "vp", "micro_batch", "tp_in_node"))}
    columns["tp_in_node"] = columns["tp_in_node"].astype(bool)
    columns["zero"] = np.tile(np.repeat(np.array(zero_stages, dtype=np.int64), recomputes), n)
    columns["recompute"] = np.tile(np.array(recompute, dtype=object), n * stages)
    # The same as numbers (an index into RECOMPUTE), which compare far faster than strings.
    columns["recompute_code"] = np.tile(np.array([RECOMPUTE.index(r) for r in recompute], dtype=np.int8),
                                        n * stages)
    return columns


@v.checked(**v.WHOLE)
def search_layouts(model, gpus, gpu="H100 SXM", seq_len=4096, global_batch_tokens=4 * 2**20, *, convention="mixed",
                   optimizer="adamw", schedule="1f1b", overlap=OVERLAP, compute_efficiency=COMPUTE_EFFICIENCY,
                   tp_comm_overlap=False, sequence_parallel=True, flash=True, fp32_norms=True,
                   micro_batch_sizes=MICRO_BATCHES, zero_stages=(0, 1, 2, 3), recomputations=RECOMPUTE,
                   margin=MEMORY_MARGIN, overhead_bytes=RUNTIME_OVERHEAD_BYTES[0], precision=None,
                   low_efficiency=None, nodes_per_token=None, imbalance=IMBALANCE) -> LayoutSearch:
    """Every layout of a training run on ``gpus`` GPUs of a kind, ranked: see the module's docstring. A mixture
    of experts is also split by every expert-parallel degree that divides its experts and dp·cp.

    Memory per GPU: the states of 1/(tp·pp) of the parameters, sharded by ZeRO over the dp·cp GPUs that hold the
    same shard (Megatron-Core's distributed optimizer shards over data and context parallel ranks); the
    activations of the micro-batches the first stage holds under the schedule, each of L/pp layers at s/cp tokens;
    the output layer; the runtime's overhead. A pipeline whose stages cannot be equal holds ⌈L/pp⌉ layers in the
    largest, and the step waits for it. Step time: the step's FLOPs (6·N·D, attention, and what recomputation
    repeats) over all GPUs at ``compute_efficiency`` of the peak, times (1 + the bubble), plus the communication
    that ``overlap`` does not hide. MFU counts 6·N·D and attention, as PaLM's does, against the BF16 peak.

    ``precision``: a recipe of ``formulas.precision`` ("fp8-te", ...): its states and saved activations replace the
    convention's, and the blocks' matmuls run ``precision_time.recipe_gemm_speedup`` times faster than BF16
    (``low_efficiency`` overrides the recipe's fitted share of its peak), and a mixture of experts dispatches its
    tokens in the recipe's matmul input format (``precision.dispatch_bytes_per_value``).

    A mixture of experts' all-to-all is counted as ``plans.moe_plan`` counts it (``formulas.moe_comm``): with
    node-limited routing to at most ``nodes_per_token`` nodes (DeepSeek-V3's 4; None: every expert's copy sent), and
    the routed experts' work waiting on the busiest GPU (``imbalance``). ``schedule="dualpipe"``: DualPipe's bubble,
    its all-to-all hidden behind the other micro-batch's compute on the SMs the kernels leave, two stages a rank."""
    cfg = config_from(model)
    g = hardware.gpu(gpu)
    v.check_int("gpus", gpus, maximum=65_536)
    v.check_number("overlap", overlap, low=0, high=1)
    if compute_efficiency is None:
        compute_efficiency = matmul_efficiency(g.name)
    v.check_fraction("compute_efficiency", compute_efficiency)
    if low_efficiency is not None:
        v.check_fraction("low_efficiency", low_efficiency)
    v.check_bool("tp_comm_overlap", tp_comm_overlap)
    v.check_bool("sequence_parallel", sequence_parallel)
    v.check_bool("flash", flash)
    v.check_margin("margin", margin)
    comm.bubble_ratio(2, 2, schedule)  # checks the schedule's name
    micro_batch_sizes = _whole_tuple("micro_batch_sizes", micro_batch_sizes)
    zero_stages = tuple(v.check_int("zero_stages", z, minimum=0, maximum=3) for z in _tuple("zero_stages",
                                                                                              zero_stages))
    recomputations = tuple(v.check_choice("recomputations", r, RECOMPUTE) for r in _tuple("recomputations",
                                                                                            recomputations))
    v.check_int("global_batch_tokens", global_batch_tokens, maximum=10**10)
    if global_batch_tokens % seq_len:
        fewer = global_batch_tokens // seq_len * seq_len
        raise InputError("global_batch_tokens", _("global_batch_tokens == {tokens} must be a whole number of "
                                                  "sequences of {seq_len} tokens (the nearest are {fewer} and "
                                                  "{more}){hint}.").format(
            tokens=f"{global_batch_tokens:,}", seq_len=f"{seq_len:,}", fewer=_sequences(fewer, seq_len),
            more=_sequences(fewer + seq_len, seq_len), hint=_binary(global_batch_tokens, seq_len)))
    sequences = global_batch_tokens // seq_len
    net = g.network
    columns = _enumerate(cfg, gpus, (sequences, seq_len), net.gpus_per_node, micro_batch_sizes, zero_stages,
                         recomputations, schedule)
    if columns is None and _enumerate(cfg, gpus, (sequences, seq_len), net.gpus_per_node, (1,), (0,), ("none",),
                                      schedule):
        raise InputError("micro_batch_sizes", _("micro_batch_sizes == {sizes}: none divides the {sequences} "
                                                "sequences of a step evenly over the data-parallel replicas of any "
                                                "layout; include 1.").format(sizes=micro_batch_sizes,
                                                                              sequences=f"{sequences:,}"))
    if columns is None:
        raise InputError("gpus", _("gpus == {gpus}: no layout splits {sequences} sequences of {seq_len} tokens and "
                                   "{model} over them (the data-parallel degree must divide the sequences, the "
                                   "tensor-parallel one the heads, the pipeline one the layers).").format(
            gpus=f"{gpus:,}", sequences=f"{sequences:,}", seq_len=f"{seq_len:,}", model=cfg.name or _("the model")))
    v.check_bool("fp32_norms", fp32_norms)
    v.check_number("imbalance", imbalance, low=1, high=cfg.num_experts if cfg.is_moe else None)
    if nodes_per_token is not None:
        v.check_whole("nodes_per_token", nodes_per_token)
        if cfg.is_moe:
            moe_comm.network_sends_per_token(cfg.experts_per_token, 1, 1, nodes_per_token)   # at most top_k
    moe = dict(dispatch_bytes=2 if precision is None else dispatch_bytes_per_value(precision),
               nodes_per_token=nodes_per_token, imbalance=imbalance)
    _memory(columns, cfg, seq_len, sequences, convention, optimizer, schedule, sequence_parallel, flash, fp32_norms,
            overhead_bytes, precision)
    step_times(columns, cfg, g, gpus, seq_len, global_batch_tokens, schedule, overlap, compute_efficiency,
               tp_comm_overlap, 1.0 if precision is None else recipe_gemm_speedup(precision, g, low_efficiency), moe)
    columns["fits"] = columns["memory_per_gpu_bytes"] <= g.memory_bytes * (1 - margin)
    # Fitting layouts first, then by step time; among equally fast ones the least memory first.
    order = np.lexsort((columns["memory_per_gpu_bytes"], columns["step_time_s"], ~columns["fits"]))
    settings = dict(convention=convention, optimizer=optimizer, schedule=schedule, overlap=overlap,
                    compute_efficiency=compute_efficiency, tp_comm_overlap=tp_comm_overlap,
                    sequence_parallel=sequence_parallel, flash=flash,
                    fp32_norms=fp32_norms,
                    margin=margin, overhead_bytes=overhead_bytes, precision=precision,
                    nodes_per_token=nodes_per_token, imbalance=imbalance)
    return LayoutSearch(cfg.name or "model", g.name, gpus, seq_len, global_batch_tokens, settings, columns, order)


def _sequences(tokens, seq_len) -> str:
    """A whole number of sequences as its product: 1,024 × 4,096 = 4,194,304."""
    return f"{tokens // seq_len:,} × {seq_len:,} = {tokens:,}"


def _binary(tokens, seq_len) -> str:
    """A hint for a batch typed in decimal millions: papers' "4M tokens" usually means 4 × 2**20."""
    millions = tokens // 10**6
    binary = millions * 2**20
    return _("; a paper's '{millions}M tokens' is usually {millions} × 2**20 = {tokens}").format(
        millions=millions, tokens=_sequences(binary, seq_len) if binary % seq_len == 0 else f"{binary:,}") \
        if tokens % 10**6 == 0 and millions else ""


def _tuple(name, values) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)) or not values:
        raise InputError(name, _("{name} == {value}, must be a non-empty list.").format(name=name,
                                                                                     value=v.quote(values)))
    return tuple(values)


def _whole_tuple(name, values) -> tuple:
    return tuple(v.check_int(name, x, maximum=4096) for x in _tuple(name, values))


def _memory(c, cfg, seq_len, sequences, convention, optimizer, schedule, sequence_parallel, flash, fp32_norms,
            overhead, precision=None):
    """training_memory's count for every layout at once: the same compositions of states and buffers, and the
    activations of the micro-batches the first pipeline stage holds."""
    tp, cp, pp, dp, ep, b = c["tp"], c["cp"], c["pp"], c["dp"], c["ep"], c["micro_batch"]
    per_param = state_bytes_per_param(convention, optimizer)  # checked whether or not a recipe replaces it
    if precision is not None:
        per_param = recipe_state_bytes(precision, optimizer)
    states, buffers = np.zeros(len(tp)), np.zeros(len(tp))
    stages = pp // 2 if schedule == "dualpipe" else pp   # DualPipe: a rank holds two stages' parameters
    for zero in np.unique(c["zero"]).tolist():
        rows = c["zero"] == zero
        parts = training_states(cfg, per_param, zero, dp[rows], tp[rows], stages[rows], cp[rows], ep[rows])["gpu"]
        states[rows] = sum(parts.values())
        buffers[rows] = zero_buffers(cfg, per_param, zero, tp[rows], stages[rows])
    micro = sequences // (dp * b)
    held = comm.micro_batches_held(pp, micro, schedule)
    activations = np.zeros(len(tp))
    tokens = seq_len / cp
    for code, way in enumerate(RECOMPUTE):
        rows = c["recompute_code"] == code
        if not rows.any():
            continue
        args = (cfg, b[rows], tokens[rows], tp[rows], sequence_parallel)
        kept = model_layer_activation_bytes(*args, recompute=way, flash=flash, fp32_norms=fp32_norms)
        if precision is not None and way != "full":  # full recomputation keeps only the layers' BF16 inputs
            inputs = matmul_input_values(tokens[rows], b[rows], cfg.hidden_size, cfg.ffn_hidden_size, tp[rows],
                                         sequence_parallel)
            kept = recipe_activation_bytes(kept - 2 * inputs, inputs, precision,
                                           tokens[rows] * b[rows] * cfg.hidden_size / tp[rows])
        activations[rows] = stage_layers(cfg, pp[rows]) * held[rows] * kept
        if way == "full":  # one layer recomputed at a time during backward
            activations[rows] += model_layer_activation_bytes(*args, recompute="none", flash=flash,
                                                              fp32_norms=fp32_norms)
    activations += output_activation_bytes(tokens, b, cfg.hidden_size, cfg.vocab_size, tp,
                                           fp32_norms and cfg.norm == "rmsnorm")
    c["micro_batches"] = micro
    c["states_bytes"], c["buffer_bytes"], c["activation_bytes"] = states, buffers, activations
    c["memory_per_gpu_bytes"] = states + buffers + activations + overhead
