"""A mixture of experts' training step, term by term, on a layout of pipeline and expert parallelism without tensor
parallelism (DeepSeek-V3's): the compute of the slowest pipeline rank at the precision recipe's matmul rate, the
share of the GPU that the all-to-all kernels take, the load imbalance of the experts, the pipeline's bubble, the
all-to-all that the schedule does not hide, and the data-parallel gradients. ``moe_step`` answers for any such layout;
``deepseek_v3`` for DeepSeek-V3's published one (arXiv 2412.19437 §3.1-3.3, §4.2).

Every assumption is a named constant below with where it was read."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import hardware
from ..core import _validate as v
from ..core._validate import InputError
from ..core.i18n import _
from ..core.report import Report, Shows
from ..display.moe import moe_step_report
from ..formulas import comm, moe_comm
from ..formulas import precision as prec
from ..formulas.compute import attention_flops_per_token_for, flops_params, mtp_flops_params
from ..formulas.model import config_from, count_params
from .layout_assumptions import (  # noqa: F401 - the assumptions moe_step names, kept where the search reads them
    COMMUNICATION_SMS, DEEPGEMM_H800, DEEPSEEK_FP8_EFFICIENCY, GPU_SMS, IMBALANCE, NETWORK_EFFICIENCY, NODES_PER_TOKEN,
    NVLINK_EFFICIENCY, matmul_efficiency)
from .precision_time import low_precision_efficiency
from .layout_plan import OVERLAP
from .layout_time import slowest_rank_work

# Sequences a micro-batch: not published; one 4K sequence (8,192 tokens then reach each expert at EP 64).
MICRO_BATCH = 1
SCHEDULES = {"dualpipe": "DualPipe (DeepSeek-V3 §3.2.1): two pipelines in opposite directions over the same ranks, "
                         "a forward and a backward chunk of two micro-batches overlapped so that 'both all-to-all and "
                         "PP communication can be fully hidden'; each rank holds two chunks (parameters twice)",
             "1f1b": "1F1B: one pipeline, the all-to-all between a layer's matmuls on the critical path"}


@dataclass(frozen=True)
class MoEStep(Shows):
    """A MoE training step's terms (seconds on the slowest rank; ``figures``) and the inputs it assumed
    (``inputs``)."""

    figures: dict
    inputs: dict

    def __getitem__(self, name):
        return self.figures[name]

    def report(self) -> Report:
        return moe_step_report(self)


def _layer_seconds(cfg, seq_len, r, g, share_of_gpu, low_efficiency=None):
    """Seconds a token's pass (forward and backward) takes through one layer, the output head, and a MTP module, on
    ``share_of_gpu`` of the GPU, with each part's GEMM share and routed experts' share."""
    counts = count_params(cfg)
    bf16_rate = matmul_efficiency(g.name) * g.bf16_flops_per_s
    low = low_precision_efficiency(r, g) if low_efficiency is None or r.matmul == "bf16" else low_efficiency
    low_rate = low * prec.matmul_peak_flops_per_s(r, g)
    head_params = cfg.vocab_size * cfg.embedding_dim
    router = counts.parts["router"] / cfg.num_layers
    matmul = (flops_params(cfg) - head_params - counts.parts["router"]) / cfg.num_layers

    def split(low_flops, bf16_flops):
        """Seconds of the blocks' matmul FLOPs at the recipe's rate and of the BF16 ones at BF16's."""
        return (low_flops / low_rate, bf16_flops / bf16_rate)

    attention = attention_flops_per_token_for(cfg, seq_len) / cfg.num_layers
    layer = split(6 * matmul, 6 * router + attention)
    head = split(0, 6 * head_params)
    mtp = split(6 * (mtp_flops_params(cfg) - head_params), attention + 6 * head_params) if cfg.mtp_layers \
        else (0.0, 0.0)
    experts = 6 * cfg.experts_per_token * 3 * cfg.hidden_size * cfg.expert_ffn_hidden_size * cfg.moe_layers / \
        cfg.num_layers
    per_layer = sum(layer)
    return dict(layer_s=per_layer / share_of_gpu, head_s=(sum(head) + sum(mtp)) / share_of_gpu,
                parts=tuple(cfg.num_layers * a + b + c for a, b, c in zip(layer, head, mtp)),
                gemm_share=layer[0] / per_layer, expert_share=experts / low_rate / per_layer,
                low_rate=low_rate, bf16_rate=bf16_rate)


@v.checked(**v.WHOLE)
def moe_step(model="deepseek-v3", gpu="H800", gpus=2048, seq_len=4096, global_batch_tokens=15360 * 4096, *, pp=16,
             ep=64, precision="fp8-deepseek", schedule="dualpipe", nodes_per_token=NODES_PER_TOKEN,
             imbalance=IMBALANCE, micro_batch=MICRO_BATCH, low_efficiency=None) -> MoEStep:
    """A MoE training step on ``gpus`` GPUs split as PP × DP (no tensor or context parallelism), the experts over EP
    of the DP ranks, ZeRO-1: its terms on the slowest rank, step time, GPU-hours per trillion tokens and MFU (6·N·D
    and attention over the BF16 peak, the workbook's convention; the MTP module's work is in the time, not in N).
    ``low_efficiency``: the share of the recipe's peak its matmuls reach (None: ``precision_time``'s)."""
    cfg = config_from(model)
    g = hardware.gpu(gpu)
    if not cfg.is_moe:
        raise InputError("model", _("model == {value}: not a mixture of experts (no routed experts to split).")
                         .format(value=v.quote(cfg.name or model)))
    v.check_choice("schedule", schedule, SCHEDULES)
    r = v.lookup("precision", precision, prec.RECIPES)
    prec.matmul_peak_flops_per_s(r, g)   # refuses a recipe the GPU cannot run
    global_batch_tokens = v.check_int("global_batch_tokens", global_batch_tokens, maximum=10**12)
    pp = v.check_int("pp", pp, maximum=cfg.num_layers)
    if gpus % pp:
        raise InputError("pp", _("pp == {pp} must divide the GPUs ({gpus} % {pp} != 0).").format(pp=pp, gpus=gpus))
    if schedule == "dualpipe" and pp % 2:
        raise InputError("pp", _("pp == {pp}, must be even for DualPipe: it runs two pipelines in opposite "
                                 "directions over the same ranks.").format(pp=pp))
    dp = gpus // pp
    if ep > dp or dp % ep or cfg.num_experts % ep:
        raise InputError("ep", _("ep == {ep} must divide the data-parallel ranks ({dp}) and the routed experts "
                                 "({experts}).").format(ep=ep, dp=dp, experts=cfg.num_experts))
    if nodes_per_token is not None:
        moe_comm.network_sends_per_token(cfg.experts_per_token, ep, g.network.gpus_per_node, nodes_per_token)
    v.check_number("imbalance", imbalance, low=1, high=cfg.num_experts)
    if low_efficiency is not None:
        v.check_fraction("low_efficiency", low_efficiency)
    if global_batch_tokens % (seq_len * dp * micro_batch):
        raise InputError("global_batch_tokens", _("global_batch_tokens == {tokens} must be a whole number of "
                                                  "micro-batches of {micro_batch} × {seq_len} tokens for each of "
                                                  "the {dp} data-parallel replicas.").format(
            tokens=f"{global_batch_tokens:,}", micro_batch=micro_batch, seq_len=f"{seq_len:,}", dp=dp))
    return _step(cfg, g, gpus, seq_len, global_batch_tokens, pp, dp, ep, r, schedule, nodes_per_token, imbalance,
                 micro_batch, low_efficiency)


def _step(cfg, g, gpus, seq_len, batch_tokens, pp, dp, ep, r, schedule, nodes_per_token, imbalance, micro_batch,
          low_efficiency):
    net = g.network
    share = 1 - COMMUNICATION_SMS / GPU_SMS if schedule == "dualpipe" else 1.0
    parts = _layer_seconds(cfg, seq_len, r, g, share, low_efficiency)
    tokens = batch_tokens / dp                          # a replica's tokens a step: every rank of it passes them all
    cost, mean = slowest_rank_work(cfg.num_layers, parts["layer_s"], parts["head_s"], pp, schedule)
    balanced_s, compute_s = tokens * mean, tokens * cost
    expert_s = compute_s * parts["expert_share"]
    imbalanced_s = moe_comm.imbalanced_seconds(compute_s, imbalance, parts["expert_share"])
    m = int(batch_tokens // (seq_len * micro_batch * dp))   # micro-batches a replica's step
    chunk = imbalanced_s / m
    forward, backward, weight = chunk / 3, 2 * chunk / 3, chunk * parts["gemm_share"] / 3
    if schedule == "dualpipe":
        bubble_s = moe_comm.dualpipe_bubble_seconds(pp, forward, backward, weight)
    else:
        bubble_s = imbalanced_s * comm.bubble_ratio(pp, m, "1f1b")
    # The all-to-all: bytes of a replica's tokens through the MoE layers of one rank (its mean share of them).
    moe_layers = (cfg.moe_layers + cfg.mtp_layers) / pp
    dispatch = prec.dispatch_bytes_per_value(r)
    k, per_node = cfg.experts_per_token, net.gpus_per_node
    sends = {"network": moe_comm.network_sends_per_token(k, ep, per_node, nodes_per_token),
             "nvlink": moe_comm.nvlink_sends_per_token(k, ep, per_node, nodes_per_token)}
    rates = {"network": NETWORK_EFFICIENCY * net.inter_node_bytes_per_s,
             "nvlink": NVLINK_EFFICIENCY * net.intra_node_bytes_per_s}
    a2a_bytes = {link: tokens * moe_layers * moe_comm.all_to_all_bytes_per_token(cfg.hidden_size, sends[link],
                                                                                  dispatch, 2)
                 for link in sends}
    a2a_s = max(a2a_bytes[link] / rates[link] for link in sends)
    if schedule == "dualpipe":
        # Hidden in the overlapped pairs (as long as the pairs' compute outlasts it); the chunks a rank runs alone
        # before its first pair and after its last (about PP/2 forwards and PP/2 backwards, as DualPipe's schedule
        # figure shows them) expose theirs.
        alone = min(1.0, pp / 2 / m)
        exposed_a2a_s = alone * a2a_s + max(0.0, (1 - alone) * a2a_s - (1 - alone) * imbalanced_s)
    else:
        exposed_a2a_s = a2a_s
    # ZeRO-1's gradients (in the recipe's format): each rank's dense share over the replicas holding it (twice as many
    # with DualPipe's two copies), its experts over the dp/ep ranks holding the same; over the network.
    counts = count_params(cfg)
    copies = 2 if schedule == "dualpipe" else 1
    grad_bytes = prec.format_bytes_per_value(r.grads)
    held = copies / pp
    dp_bytes = (comm.all_reduce_bytes((counts.total - counts.parts["experts"]) * held * grad_bytes, dp * copies)
                + (comm.all_reduce_bytes(counts.parts["experts"] * held / ep * grad_bytes, dp // ep * copies)
                   if dp > ep else 0.0))
    dp_s = dp_bytes / rates["network"]
    exposed_dp_s = (1 - OVERLAP) * dp_s
    step_s = imbalanced_s + bubble_s + exposed_a2a_s + exposed_dp_s
    model_flops = (6 * flops_params(cfg) + attention_flops_per_token_for(cfg, seq_len)) * batch_tokens
    figures = dict(
        model=cfg.name or None, gpu=g.name, gpus=gpus, pp=pp, dp=dp, ep=ep, micro_batches=m,
        balanced_compute_s=balanced_s, **dict(zip(("low_precision_s", "bf16_s"),
                                                  (tokens * x / pp for x in parts["parts"]))),
        communication_sms_s=balanced_s * (1 - share), stage_imbalance_s=compute_s - balanced_s, expert_s=expert_s,
        imbalance_s=imbalanced_s - compute_s, compute_s=imbalanced_s, bubble_s=bubble_s,
        network_bytes=a2a_bytes["network"], nvlink_bytes=a2a_bytes["nvlink"], all_to_all_s=a2a_s,
        exposed_all_to_all_s=exposed_a2a_s, dp_bytes=dp_bytes, dp_s=dp_s, exposed_dp_s=exposed_dp_s,
        step_s=step_s, gpu_hours_per_trillion=step_s * gpus / 3600 * 1e12 / batch_tokens,
        mfu=model_flops / (gpus * g.bf16_flops_per_s * step_s),
        low_precision_flops_per_s=parts["low_rate"], bf16_flops_per_s=parts["bf16_rate"],
        network_sends=sends["network"], nvlink_sends=sends["nvlink"], dispatch_bytes=dispatch)
    inputs = dict(seq_len=seq_len, global_batch_tokens=batch_tokens, precision=r.name, schedule=schedule,
                  nodes_per_token=nodes_per_token, imbalance=imbalance, micro_batch=micro_batch,
                  low_efficiency=low_efficiency, gpu_sms=GPU_SMS,
                  communication_sms=COMMUNICATION_SMS if schedule == "dualpipe" else 0)
    return MoEStep(figures, inputs)


# DeepSeek-V3 §3.1 and §4.2: 2,048 H800, PP 16 (DualPipe), EP 64 over 8 nodes, ZeRO-1, no TP; 4K sequences, a batch
# of 15,360 (after its ramp from 3,072 over the first 469B tokens); "each trillion tokens requires only 180K H800 GPU
# hours" (§1, Table 1: 2,664K GPU-hours of pre-training for 14.8T tokens).
DEEPSEEK_V3_GPU_HOURS_PER_TRILLION = 180e3
DEEPSEEK_V3 = dict(model="deepseek-v3", gpu="H800", gpus=2048, seq_len=4096, global_batch_tokens=15360 * 4096,
                   pp=16, ep=64, precision="fp8-deepseek", schedule="dualpipe")


def deepseek_v3(imbalance=IMBALANCE, nodes_per_token=NODES_PER_TOKEN, precision="fp8-deepseek",
                schedule="dualpipe", low_efficiency=DEEPSEEK_FP8_EFFICIENCY) -> MoEStep:
    """DeepSeek-V3's published layout through ``moe_step``, its FP8 matmuls at its own kernels' rate
    (``DEEPSEEK_FP8_EFFICIENCY``; None: the recipe's, ``precision_time``); change one setting to see what it is
    worth."""
    return moe_step(**{**DEEPSEEK_V3, "precision": precision, "schedule": schedule},
                    nodes_per_token=nodes_per_token, imbalance=imbalance, low_efficiency=low_efficiency)
