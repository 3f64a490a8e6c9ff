"""One decoding step as engines run it, on the roofline of ``serving_plan.decode_estimate`` with what that one leaves
out: the FP8 peak where the matmuls run in FP8, a step over several tokens a sequence (a speculative verification),
the routed experts a batch actually reads (``formulas.moe_serving``), expert parallelism with its all-to-all, and a
share of the roofline reached in practice. With its defaults it is ``decode_estimate`` with the attention's FLOPs
(tests/test_serving_features.py holds the two equal)."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import hardware
from ..core import _validate as v
from ..core.i18n import _
from ..core.report import Report, Shows
from ..display.serving_features import decode_step_report
from ..formulas.compute import decode_attention_flops_for, flops_params
from ..formulas.counting import count_params
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.kv_cache import BYTES_PER_VALUE
from ..formulas.memory import WEIGHT_FORMATS, model_weight_bytes
from ..formulas.model import config_from
from ..formulas.moe_comm import network_sends_per_token, nvlink_sends_per_token
from ..formulas.moe_serving import decode_all_to_all_bytes_per_token, distinct_experts, moe_bytes_read
from .memory_plan import check_parallel

MATMUL = ("bf16", "fp8")
ROUTED = ("all", "batch")   # every routed expert read each step (decode_estimate's bound), or those the batch picks
# The share of the roofline a step reaches unless the reader sets one: 1, the pure roofline (an ideal ceiling).
# The reality checks (plans.findings.serving) fit one share to one published run and hold it against the others.
ROOFLINE_SHARE = 1.0


@dataclass(frozen=True)
class DecodeStep(Shows):
    """One decoding step per GPU: bytes read, FLOPs, the all-to-all's bytes, and the times they take."""

    settings: dict
    weight_bytes: float          # read per GPU this step
    kv_bytes: float              # read per GPU this step
    flops: float                 # per GPU
    experts_read: float | None   # distinct routed experts a MoE layer the step's tokens pick (None: dense)
    memory_s: float
    compute_s: float
    network_s: float             # expert parallelism's all-to-all across nodes (0 within a node or without)
    nvlink_s: float
    step_s: float                # max of the terms (overlapped), over the roofline share

    @property
    def tokens_per_s(self) -> float:
        """Positions a second a GPU's share of the batch advances: batch × tokens a sequence over the step, over the
        tp GPUs that decode the batch together."""
        s = self.settings
        return s["batch"] * s["tokens_per_sequence"] / self.step_s / s["tp"]

    @property
    def bound(self) -> str:
        terms = {"memory": self.memory_s, "compute": self.compute_s, "network": self.network_s,
                 "nvlink": self.nvlink_s}
        return max(terms, key=terms.get)

    def report(self) -> Report:
        return decode_step_report(self)


def matmul_peak(gpu, matmul) -> float:
    """A GPU's dense peak in the precision its matmuls run in."""
    g = hardware.gpu(gpu)
    peak = g.bf16_flops_per_s if matmul == "bf16" else g.fp8_flops_per_s
    if peak is None:
        raise v.InputError("matmul", _("matmul == 'fp8', but the {gpu} has no FP8 tensor cores: use 'bf16'.").format(
            gpu=g.name))
    return peak


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), matmul=v.one_of(MATMUL), routed=v.one_of(ROUTED), **v.WHOLE)
def decode_step(model, gpu, *, batch=1, seq_len=2048, weights="bf16", tp=1, kv_dtype="bf16", matmul="bf16",
                tokens_per_sequence=1, routed="all", ep=1, nodes_per_token=None,
                roofline_share=ROOFLINE_SHARE) -> DecodeStep:
    """One decoding step of ``batch`` sequences of ``seq_len`` tokens on one GPU of a tensor-parallel group of
    ``tp`` (and of an expert-parallel group of ``ep``), each sequence advancing ``tokens_per_sequence`` positions (1:
    plain decoding; k + 1: verifying k draft tokens).

    Bytes read per GPU: the weights outside the routed experts over tp; the routed experts over ep · tp, all of
    them (``routed="all"``) or the distinct ones the step's tokens pick (``"batch"``: ``distinct_experts`` of batch
    · tokens_per_sequence · ep tokens, each GPU of the expert-parallel group bringing its own batch, its attention
    data-parallel as DeepSeek and SGLang run it); and the KV cache of the batch once, however many positions a
    sequence advances. FLOPs: 2N and the attention at ``seq_len`` a position (N the active parameters), over tp, at
    the dense peak of ``matmul`` ("bf16" or "fp8"). Expert parallelism across nodes adds the dispatch and combine
    of each token (``decode_all_to_all_bytes_per_token``; ``nodes_per_token``: node-limited routing, as ``moe_comm``
    counts it) over the network and NVLink. The terms overlap (the step is the longest), and ``roofline_share`` of
    that ceiling is reached."""
    cfg = config_from(model)
    check_parallel(cfg, 1, tp, 1, 0)
    tokens_per_sequence = v.check_whole("tokens_per_sequence", tokens_per_sequence)
    ep = v.check_whole("ep", ep)
    if nodes_per_token is not None:
        nodes_per_token = v.check_whole("nodes_per_token", nodes_per_token)
    share = v.check_fraction("roofline_share", roofline_share)
    g = hardware.gpu(gpu)
    peak = matmul_peak(gpu, matmul)
    tokens = batch * tokens_per_sequence
    total = model_weight_bytes(cfg, weights)
    experts_read, network_s, nvlink_s = None, 0.0, 0.0
    if cfg.num_experts:
        expert_bytes = count_params(cfg)["experts"] * WEIGHT_FORMATS[weights].bytes_per_param
        other = (total - expert_bytes) / tp
        each = expert_bytes / (cfg.moe_layers * cfg.num_experts) / (ep * tp)
        group_tokens = tokens * ep
        experts_read = (cfg.num_experts if routed == "all"
                        else distinct_experts(cfg.num_experts, cfg.experts_per_token, group_tokens))
        weight_bytes = moe_bytes_read(other, each, cfg.num_experts, cfg.experts_per_token, group_tokens,
                                      cfg.moe_layers) if routed == "batch" else other + each * cfg.num_experts * \
            cfg.moe_layers
        if ep > 1:
            net, k = g.network, cfg.experts_per_token
            per_token = {kind: decode_all_to_all_bytes_per_token(
                cfg.hidden_size, sends(k, ep, net.gpus_per_node, nodes_per_token), cfg.moe_layers)
                for kind, sends in (("network", network_sends_per_token), ("nvlink", nvlink_sends_per_token))}
            network_s = tokens * per_token["network"] / net.inter_node_bytes_per_s
            nvlink_s = tokens * per_token["nvlink"] / net.intra_node_bytes_per_s
    else:
        if ep > 1:
            raise v.InputError("ep", _("ep == {ep}, must be 1: {model} has no experts to spread.").format(
                ep=ep, model=cfg.name or _("the model")))
        weight_bytes = total / tp
    kv_bytes = cache_bytes_per_gpu(cfg, seq_len, batch, kv_dtype, tp)
    flops = (2 * flops_params(cfg) + decode_attention_flops_for(cfg, seq_len)) / tp * tokens
    memory_s = (weight_bytes + kv_bytes) / g.bandwidth_bytes_per_s
    compute_s = flops / peak
    step = max(memory_s, compute_s, network_s, nvlink_s) / share
    settings = dict(model=cfg.name, gpu=g.name, batch=batch, seq_len=seq_len, weights=weights, tp=tp,
                    kv_dtype=kv_dtype, matmul=matmul, tokens_per_sequence=tokens_per_sequence, routed=routed, ep=ep,
                    nodes_per_token=nodes_per_token, roofline_share=share, experts=cfg.num_experts or None)
    return DecodeStep(settings, weight_bytes, kv_bytes, flops, experts_read, memory_s, compute_s, network_s,
                      nvlink_s, step)
