"""Chapter 5's findings on training a mixture of experts: DeepSeek-V3's published cost per trillion tokens beside
the model's from its published layout, term by term, and what each of its choices is worth; and a held-out run,
NVIDIA's published DeepSeek-V3 pre-training on H100, beside the layout search's timing of its layout
(``llmest.display.findings.moe`` writes them)."""

from __future__ import annotations

from ...core import _validate as v
from ...core.i18n import N_
from ...core.report import Finding
from ...display.findings import moe as shown
from .. import moe_plan
from ...formulas.compute import attention_flops_per_token_for, flops_params
from ...formulas.model import config_from
from ..layout_plan import search_layouts
from ..moe_plan import DEEPSEEK_V3, DEEPSEEK_V3_GPU_HOURS_PER_TRILLION, IMBALANCE

# What each of DeepSeek-V3's choices is worth: the step with that one choice undone.
UNDONE = (("bf16", dict(precision="bf16")), ("1f1b", dict(schedule="1f1b")),
          ("no node limit", dict(nodes_per_token=None)), ("per-tensor fp8", dict(low_efficiency=None)))


def deepseek_v3_cost(imbalance=IMBALANCE) -> Finding:
    """DeepSeek-V3's published 180K H800 GPU-hours per trillion tokens beside the model's for its published layout
    (``moe_plan.deepseek_v3``), with each term of the step, and the GPU-hours with FP8, DualPipe or node-limited
    routing undone one at a time; ``imbalance``: the busiest GPU's routed tokens over the mean."""
    v.check_number("imbalance", imbalance, low=1, high=256)
    step = moe_plan.deepseek_v3(imbalance=imbalance)
    published = DEEPSEEK_V3_GPU_HOURS_PER_TRILLION
    tokens = DEEPSEEK_V3["global_batch_tokens"]
    published_step_s = published * 3600 / DEEPSEEK_V3["gpus"] * tokens / 1e12
    undone = [dict(change=name, gpu_hours_per_trillion=moe_plan.deepseek_v3(imbalance=imbalance, **change)
                   ["gpu_hours_per_trillion"]) for name, change in UNDONE]
    return Finding(dict(figures=step.figures, inputs=step.inputs, published_gpu_hours_per_trillion=published,
                        published_step_s=published_step_s,
                        published_mfu=step["mfu"] * step["step_s"] / published_step_s,
                        difference=step["gpu_hours_per_trillion"] / published - 1, undone=undone),
                   shown.deepseek_v3_cost)


# NVIDIA's published DeepSeek-V3 pre-training on DGX H100: Megatron-Bridge docs/performance-summary.md, "25.09 NeMo
# Container", "System: DGX-H100" (commit ea29906 "perf page update 25.09 draft", kept in
# performance-summary-archive.md): "DeepSeekV3 | 1024 | 8192 | 1 | 4096 | 0 | 2 | 8 | 1 | 4 | 64 | 128 | 1297 |
# 338 (330)": 1,024 GPUs, GBS 8,192, MBS 1, 4,096 tokens, no FSDP, TP 2, PP 8, CP 1, VP 4, EP 64, 128 micro-batches,
# 1,297 tokens/s a GPU and 338 model TFLOP/s (330 "with 128×128 for weights and 1×128 for activations"; so the 338
# and its 1,297 are taken as the recipe matrix's other FP8, per-tensor current scaling: the workbook's fp8-te). Its
# recipe at that commit (scripts/performance/run_script.py, configs/deepseek/deepseek_v3_llm_pretrain.yaml): DeepEP
# on H100 with moe_router_force_load_balancing (balanced experts: imbalance 1), recompute_granularity "selective"
# with recompute_modules ["mla_up_proj", "mlp"], overlap_moe_expert_parallel_comm and delay_wgrad_compute on,
# overlap_grad_reduce off, the distributed optimizer (ZeRO-1), MTP 1 layer; the model provider's group-limited routing
# (moe_router_num_groups 8, moe_router_group_topk 4: 4 groups of 32 experts, each group 8 expert-parallel ranks = 2
# nodes at TP 2, so at most 8 of the 16 nodes a token, which DeepEP reaches once each).
NVIDIA_H100 = dict(model="deepseek-v3", gpus=1024, gpu="H100 SXM", seq_len=4096, global_batch_tokens=8192 * 4096,
                   schedule="interleaved", precision="fp8-te", imbalance=1.0, nodes_per_token=8)
NVIDIA_H100_LAYOUT = dict(tp=2, cp=1, pp=8, dp=64, ep=64, vp=4, micro_batch=1, zero=1, recompute="selective")
NVIDIA_H100_TOKENS_PER_S_PER_GPU = 1297
NVIDIA_H100_SOURCE = N_("Megatron-Bridge docs/performance-summary.md, its 25.09 NeMo container's DGX-H100 table "
                        "(commit ea29906); the recipe: scripts/performance/run_script.py")


def nvidia_h100_deepseek_v3() -> Finding:
    """NVIDIA's published DeepSeek-V3 pre-training on 1,024 H100 (``NVIDIA_H100``: 1,297 tokens/s a GPU) beside the
    layout search's timing of its published layout, nothing fitted to it: each term of the model's step, and the two
    things the recipe does that the model does not (the all-to-all overlapped with another micro-batch's compute;
    the MLP recomputed rather than the attention scores), each with its size."""
    cfg = config_from(NVIDIA_H100["model"])
    found = search_layouts(NVIDIA_H100["model"], NVIDIA_H100["gpus"], NVIDIA_H100["gpu"], NVIDIA_H100["seq_len"],
                           NVIDIA_H100["global_batch_tokens"], schedule=NVIDIA_H100["schedule"],
                           precision=NVIDIA_H100["precision"], imbalance=NVIDIA_H100["imbalance"],
                           nodes_per_token=NVIDIA_H100["nodes_per_token"], margin=0.0)
    row = found.evaluate(**NVIDIA_H100_LAYOUT)
    plain = found.evaluate(**{**NVIDIA_H100_LAYOUT, "recompute": "none"})
    tokens, gpus = NVIDIA_H100["global_batch_tokens"], NVIDIA_H100["gpus"]
    published_step_s = tokens / (NVIDIA_H100_TOKENS_PER_S_PER_GPU * gpus)
    # The MLP's forward (routed and shared experts, the dense layers' FFN) over a token's work without
    # recomputation: what recomputing it adds, at the same rate.
    experts = cfg.experts_per_token * cfg.expert_ffn_hidden_size + cfg.num_shared_experts * \
        cfg.shared_expert_ffn_hidden_size
    mlp = 2 * 3 * cfg.hidden_size * (experts * cfg.moe_layers + cfg.ffn_hidden_size * (cfg.num_layers - cfg.moe_layers))
    work = 6 * flops_params(cfg) + attention_flops_per_token_for(cfg, NVIDIA_H100["seq_len"])
    model_tokens = tokens / (row["step_time_s"] * gpus)
    figures = dict(
        source=NVIDIA_H100_SOURCE, gpus=gpus, gpu=NVIDIA_H100["gpu"], layout=NVIDIA_H100_LAYOUT,
        precision=NVIDIA_H100["precision"], published_tokens_per_s_per_gpu=NVIDIA_H100_TOKENS_PER_S_PER_GPU,
        model_tokens_per_s_per_gpu=model_tokens, difference=model_tokens / NVIDIA_H100_TOKENS_PER_S_PER_GPU - 1,
        published_step_s=published_step_s, step_s=row["step_time_s"], compute_s=row["compute_s"],
        bubble_s=row["bubble_s"], all_to_all_s=row["ep_s"], other_exposed_s=row["exposed_comm_s"] - row["ep_s"],
        mfu=row["mfu"], published_mfu=row["mfu"] * row["step_time_s"] / published_step_s,
        hidden_all_to_all_s=row["step_time_s"] - published_step_s,
        all_hidden_step_s=row["step_time_s"] - row["ep_s"],
        attention_recompute_s=row["compute_s"] - plain["compute_s"], mlp_recompute_s=plain["compute_s"] * mlp / work)
    return Finding(figures, shown.nvidia_h100_deepseek_v3)
