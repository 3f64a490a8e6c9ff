"""Chapter 2, memory: the figures of seed 004 §2 and of seed 000 §1.3, exercises 1-3 and §4."""

from __future__ import annotations

from .. import hardware
from .. import memory as mem
from .. import model as m
from .. import plans
from ..units import format_bytes, format_count, format_percent
from ..i18n import N_
from .figure import Figure, register

_S13 = "§1.3 显存估算"
_EX1, _EX2, _EX3 = "§3 练习 1：训练 7B 模型需要多少资源？", "§3 练习 2：QLoRA 微调 70B 模型需要什么？", \
    "§3 练习 3：推理服务 70B 模型需要什么？"
_S41, _S42 = "§4.1 记住关键数字", "§4.2 快速公式"
_S21 = "§2.1 权重与优化器状态：训练显存的大头"
_S22 = "§2.2 激活值：最容易被低估的一笔开销"
_S23 = "§2.3 用案例推演：7B和70B分别要吃多少显存"

_MIXED = mem.state_bytes_per_param("mixed", "adamw")          # 2 + 4 + 2 + 8
_GB = 1e9
_A100 = "A100 80GB"
_A100_BYTES = hardware.gpu(_A100).memory_bytes   # as the device exposes it: 80 GiB
# Seed 000's QLoRA exercise: rank 64 on a 70B. The QLoRA paper puts adapters on every linear layer of the blocks.
_QLORA_TARGETS = mem.LORA_TARGETS

_MARGIN = f"seed 004's {format_percent(mem.MEMORY_MARGIN, 0)} margin"


def _gpu_word(n: int) -> str:
    return f"{n} GPU" + ("" if n == 1 else "s")


def _qlora_adapters() -> int:
    return mem.lora_params("llama-2-70b", 64, _QLORA_TARGETS)


def _zero2_gpus_ex1(activations_bytes: float) -> int:
    """Seed 000 exercise 1: A100s needed with ZeRO-2 for a 7B's states plus activations shared over the GPUs."""
    return plans.zero_gpus(7e9, _A100, zero=2, activations_shared_bytes=activations_bytes)


def _ex1_planner(recompute: str) -> plans.MemoryPlan:
    """Seed 000 exercise 1 as the memory planner and `llmest memory` count it: Llama-2-7B, ZeRO-2 on two GPUs,
    one micro-batch of 1 × 4,096 tokens on each GPU."""
    return plans.plan_memory("training", "llama-2-7b", gpu=_A100, zero=2, dp=2, seq_len=4096, recompute=recompute)


def _ex1_gpu_cause() -> str:
    states = mem.sharded_state_bytes(7e9, _MIXED, zero=2, dp=2)
    full, none = _ex1_planner("full"), _ex1_planner("none")
    nominal = sum(states.values()) + full.breakdown["activations"] + full.breakdown["overhead"]
    return (f"ZeRO-2 shards gradients and optimizer states but keeps a full copy of the weights on each GPU. On two "
            f"GPUs that is {format_bytes(sum(states.values()))} of states per GPU before any activations; with 50-100 "
            f"GB of activations shared out and {_MARGIN}, {_zero2_gpus_ex1(50 * _GB)}-{_zero2_gpus_ex1(100 * _GB)}"
            " A100s are needed. The exercise's own states (14 + 14 + 28 GB) undercount the optimizer. "
            "Which assumption decides: this shares a fixed batch's activations out over the GPUs. The memory planner "
            "and `llmest memory` count what one micro-batch keeps on each GPU, which does not shrink with more GPUs: "
            f"for Llama-2-7B ({format_count(full.trainable_params)} parameters) and 1 × 4,096 tokens with full "
            f"recomputation that is {format_bytes(full.breakdown['activations'])}, and "
            f"{_gpu_word(full.least_gpus)} hold it ({format_bytes(full.breakdown.total)} per GPU on two, of "
            f"{format_bytes(full.usable_bytes)} usable; with the exercise's 7B parameters it would be "
            f"{format_bytes(nominal)}, {'within it too' if nominal <= full.usable_bytes else 'too much'}). Without "
            f"recomputation one sequence keeps {format_bytes(none.breakdown['activations'])} per GPU, and it takes "
            f"{_gpu_word(none.least_gpus)}.")


def _ceil_gpus() -> int:
    """A100s for seed 000's BF16 serving case if the memory could be split in any number of parts."""
    return plans.gpus_to_hold(plans.inference_memory("llama-2-70b", seq_len=2048, batch=32).total, _A100)


def _serving_70b_gpus() -> int:
    """Seed 000 exercise 3: the least A100s (a tp that divides the heads) for Llama-2-70B, 32 × 2,048 tokens."""
    return plans.plan_memory("inference", "llama-2-70b", gpu=_A100, seq_len=2048, batch=32).least


def _kv_mha(batch: int) -> float:
    """Seed 004's KV formula: 2·L·S·H·2 bytes, i.e. full multi-head attention (kv_heads·head_dim = H)."""
    return mem.kv_cache_bytes(80, 64, 128, 2048, batch)


def _bf16_70b_cause() -> str:
    weights = mem.weight_bytes(70e9, 2)
    return (f"{format_bytes(weights)} of weights fill {format_percent(weights / 141e9, 0)} of an H200 and "
            f"{format_percent(weights / 160e9, 0)} of "
            f"two A100s, leaving nothing for the KV cache or {_MARGIN}: with nothing kept free two A100s hold them, "
            f"as the material says. With the margin the "
            f"weights alone need {plans.gpus_to_hold(weights, _A100)} "
            f"A100s; real Llama-2-70B with a 32 × 2,048-token KV cache needs {_serving_70b_gpus()} "
            "(tensor parallelism must divide its 64 heads).")


def _full_ft_cause() -> str:
    return (f"The states of mixed-precision AdamW are {format_bytes(mem.training_state_bytes(70e9))}: "
            f"{plans.state_gpus(70e9, 16, _A100)} A100s just to hold them, "
            f"{plans.state_gpus(70e9, 16, _A100, mem.MEMORY_MARGIN)} with "
            f"{_MARGIN}, before activations. Read as a bound, 8+ holds, but it is too loose to plan with: eight A100s "
            f"({format_bytes(8 * _A100_BYTES)}) suffice only with CPU/NVMe offload "
            "(ZeRO-Infinity) or a lighter optimizer.")


def _activation_cause() -> str:
    cfg = m.preset("llama-2-7b")
    per_layer = mem.layer_activation_bytes(4096, 8, 4096, 32)
    flash = mem.layer_activation_bytes(4096, 8, 4096, 32, flash=True)
    sbh = 4096 * 8 * 4096
    llama = cfg.num_layers * mem.model_layer_activation_bytes(cfg, 8, 4096, flash=False)
    return (f"32 × 8 × 4096 × 4096 × 2 × 40 = {format_bytes(mem.activation_bytes_rule(32, 8, 4096, 4096))}; "
            f"{format_bytes(mem.activation_bytes_rule(32, 8, 4096, 4096, factor=32))} is what a factor of 32 gives. "
            f"Counting the saved tensors instead: GPT-style layers of this shape (Korthikanti et al.) keep "
            f"{format_bytes(cfg.num_layers * per_layer)} (the attention scores alone are "
            f"{(per_layer - flash) / sbh:.0f} of each layer's {per_layer / sbh:.0f} bytes per sbh), Llama-2-7B's "
            f"layers {format_bytes(llama)}.")


def _rule_factor(gated=True, flash=False) -> float:
    """Bytes a 7B layer saves per (token × hidden unit), halved: the factor of the material's rule."""
    cfg = m.preset("llama-2-7b")
    if not gated:
        cfg = cfg.replace(gated_ffn=False, ffn_hidden_size=4 * cfg.hidden_size)
    return mem.model_layer_activation_bytes(cfg, 1, 4096, flash=flash) / (4096 * cfg.hidden_size * 2)


def _zero_share(stage: int) -> float:
    return sum(mem.sharded_state_bytes(7e9, _MIXED, zero=stage, dp=8).values()) / mem.training_state_bytes(7e9)


def _recompute_ratio() -> float:
    cfg = m.preset("llama-2-7b")
    plain = mem.activations_per_gpu(cfg, 8, 4096, recompute="none", flash=False)
    return mem.activations_per_gpu(cfg, 8, 4096, recompute="full", flash=True) / plain


def _case1_activations() -> float:
    return mem.activations_per_gpu(m.preset("llama-2-7b"), 64, 4096, recompute="full", flash=True)


def _case1_cause() -> str:
    cfg = m.preset("llama-2-7b")
    per_mb = {b: mem.activations_per_gpu(cfg, b, 4096, recompute="full", flash=True) for b in range(1, 65)}
    low, high = _batches_within(per_mb.get, 10 * _GB, 20 * _GB, limit=65)  # the material's 10-20 GB
    return (f"64 sequences of 4,096 tokens at once need {format_bytes(_case1_activations())} per GPU even with full "
            f"recomputation and FlashAttention (every layer's input, one layer recomputed, fp32 logits). 10-20 GB "
            f"holds only with micro-batches of {low}-{high} ({format_bytes(per_mb[low])}-{format_bytes(per_mb[high])})"
            " and gradient accumulation up to the 64.")


def _batches_within(size_of, low: float, high: float, limit: int = 512) -> tuple:
    """The least and the largest micro-batch whose ``size_of(b)`` lies inside [low, high]: a size that grows with b."""
    inside = [b for b in range(1, limit) if low <= size_of(b) <= high]
    return inside[0], inside[-1]


def _qlora_70b_activations(b: int) -> float:
    return plans.qlora_memory("llama-2-70b", micro_batch=b)["activations"]


def _ex2_total_cause() -> str:
    qlora = plans.plan_memory("qlora", "llama-2-70b", gpu=_A100)
    plan = qlora.breakdown
    totals = {b: plans.qlora_memory("llama-2-70b", micro_batch=b).total for b in range(1, 17)}
    inside = _batches_within(totals.get, 56 * _GB, 76 * _GB, limit=17)
    adapters = sum(plan[p] for p in ("adapters", "gradients", "optimizer"))
    return (f"FP32 adapters (PEFT's default) with AdamW, gradient checkpointing and a micro-batch of 1: it "
            f"{'fits' if qlora.fits else 'does not fit'} one A100 within {_MARGIN} "
            f"({format_bytes(qlora.usable_bytes)} usable). The total lands near the material's, but the parts "
            f"differ: activations {format_bytes(plan['activations'])} at this micro-batch, and the adapters with "
            f"their gradients and states {format_bytes(adapters)}, not "
            f"{format_bytes(160e6 + 320e6 + 640e6)}. The total carries the activations' batch: micro-batches of "
            f"{min(inside)}-{max(inside)} give {format_bytes(totals[min(inside)])} to "
            f"{format_bytes(totals[max(inside)])}, inside the material's 56-76 GB.")


def _qlora_7b_total(b: int) -> float:
    return plans.qlora_memory("llama-2-7b", micro_batch=b).total


def _qlora_7b() -> float:
    return plans.qlora_memory("llama-2-7b", rank=64, micro_batch=1, seq_len=2048).total


register(
    # seed 000 §1.3: the table of training memory
    Figure("000-1.3-optimizer", 2, "000", _S13, N_("AdamW's states (momentum and variance, FP32) per parameter"),
           "优化器状态 (2+2)N = 4N bytes (动量+方差, FP32)", 4, lambda: _MIXED.optimizer,
           "state_bytes_per_param('mixed', 'adamw').optimizer", unit="bytes/param",
           cause=N_("Two FP32 tensors are 4 + 4 = 8 bytes per parameter; (2 + 2) would be two 16-bit tensors.")),
    Figure("000-1.3-total", 2, "000", _S13, N_("the table's total: bytes per parameter of mixed-precision AdamW"),
           "模型参数 2N bytes 梯度 2N bytes 优化器状态 (2+2)N = 4N bytes … 总计约 ~16N bytes（含激活值）", 16,
           lambda: _MIXED.total, "state_bytes_per_param('mixed', 'adamw').total: the states alone", unit="bytes/param",
           cause=lambda: f"The total is right, but not its parts or its words: the rows add up to 2 + 2 + 4 = 8 "
                         f"bytes, and activations are not in the 16 (they grow with batch and sequence, not with "
                         f"N). 16 is the states alone: {_MIXED.weights} (BF16 "
                         f"weights) + {_MIXED.master} (FP32 master copy, missing from the table) + {_MIXED.grads} "
                         f"(gradients) + {_MIXED.optimizer} (two FP32 moments, not 4)."),
    # seed 000 exercise 1
    Figure("000-ex1-weights", 2, "000", _EX1, N_("7B weights in BF16"), "参数：14 GB (BF16)", 14 * _GB,
           lambda: mem.weight_bytes(7e9, _MIXED.weights), "weight_bytes(7e9, 2)", unit="bytes"),
    Figure("000-ex1-grads", 2, "000", _EX1, N_("7B gradients in BF16"), "梯度：14 GB", 14 * _GB,
           lambda: 7e9 * _MIXED.grads, "7e9 × state_bytes_per_param().grads", unit="bytes"),
    Figure("000-ex1-optimizer", 2, "000", _EX1, N_("7B optimizer states (FP32)"), "优化器：28 GB (FP32)", 28 * _GB,
           lambda: 7e9 * (_MIXED.optimizer + _MIXED.master), "7e9 × (8 bytes of moments + 4 of master copy)",
           unit="bytes",
           cause=lambda: f"28 GB is one FP32 copy of 7B parameters. AdamW keeps two FP32 moments "
                         f"({format_bytes(7e9 * _MIXED.optimizer)}) and mixed precision an FP32 master copy "
                         f"({format_bytes(7e9 * _MIXED.master)}): "
                         f"{format_bytes(7e9 * (_MIXED.optimizer + _MIXED.master))}."),
    Figure("000-ex1-total", 2, "000", _EX1, N_("7B full training: states plus 50-100 GB of activations"),
           "总计：~106-156 GB", (106 * _GB, 156 * _GB),
           lambda: mem.training_state_bytes(7e9) + 50 * _GB, "training_state_bytes(7e9) + 50 GB (the low end)",
           unit="bytes", rel_tol=0.02,
           cause=lambda: f"With the states at {format_bytes(mem.training_state_bytes(7e9))} (16 bytes per parameter), "
                         f"the total is {format_bytes(mem.training_state_bytes(7e9) + 50 * _GB)} to "
                         f"{format_bytes(mem.training_state_bytes(7e9) + 100 * _GB)}: the exercise's "
                         f"{format_bytes(7e9 * (2 + 2 + 4))} of states carries the optimizer error above."),
    Figure("000-ex1-gpus", 2, "000", _EX1, N_("A100 80GB GPUs for 7B full training with ZeRO-2"),
           "需要 2x A100 80GB（使用 ZeRO-2）", 2, lambda: _zero2_gpus_ex1(50 * _GB),
           "the smallest n with ZeRO-2 states + 50 GB / n of activations ≤ 80% of 80 GiB", unit="GPUs",
           cause=_ex1_gpu_cause),
    # seed 000 exercise 2: QLoRA of a 70B
    Figure("000-ex2-base", 2, "000", _EX2, N_("a 70B base in 4 bits"), "基座模型（4-bit）：~35 GB", 35 * _GB,
           lambda: mem.weight_bytes(70e9, 0.5), "weight_bytes(70e9, 0.5)", unit="bytes",
           cause=lambda: f"Real Llama-2-70B in NF4 with double quantisation, embeddings and head in BF16: "
                         f"{format_bytes(mem.model_weight_bytes('llama-2-70b', 'nf4-dq'))}."),
    Figure("000-ex2-lora", 2, "000", _EX2, N_("LoRA rank 64 adapters on a 70B, in BF16"), "LoRA 参数（BF16）：~160 MB",
           160e6, lambda: _qlora_adapters() * 2, "lora_params('llama-2-70b', 64, all seven projections) × 2 bytes",
           unit="bytes", depends_on=N_("which projections carry the adapters"),
           cause=lambda: f"The material gives the rank, not the projections. The QLoRA recipe puts rank-64 adapters "
                         f"on all seven projections of every layer: {format_count(_qlora_adapters())} parameters from "
                         f"Llama-2-70B's shapes. 160 MB is 80M parameters (in BF16, as the material counts them): "
                         f"about q_proj alone ({format_bytes(2 * mem.lora_params('llama-2-70b', 64, ['q_proj']))}); "
                         f"q_proj and v_proj, PEFT's default for Llama, give "
                         f"{format_bytes(2 * mem.lora_params('llama-2-70b', 64, ['q_proj', 'v_proj']))}."),
    Figure("000-ex2-optimizer", 2, "000", _EX2, N_("AdamW states of those adapters"), "梯度 + 优化器：~320 MB + ~640 MB",
           640e6, lambda: _qlora_adapters() * _MIXED.optimizer, "adapters × 8 bytes (two FP32 moments)",
           unit="bytes", depends_on=N_("which projections carry the adapters"),
           cause=lambda: f"Consistent with {format_count(160e6 / 2)} adapter parameters (160 MB in BF16) with an FP32 "
                         f"gradient and {_MIXED.optimizer} bytes of moments each, so it inherits the adapter count "
                         f"above: {_qlora_adapters() / (160e6 / 2):.0f} times more with all seven projections."),
    Figure("000-ex2-activations", 2, "000", _EX2, N_("QLoRA activations, 70B, gradient checkpointing"),
           "激活值：~20-40 GB", (20 * _GB, 40 * _GB), lambda: plans.qlora_memory("llama-2-70b")["activations"],
           "qlora_memory('llama-2-70b', micro-batch 1 × 2,048 tokens)['activations']", unit="bytes",
           depends_on=N_("the batch"),
           cause=lambda: f"With gradient checkpointing a micro-batch of 1 × 2,048 tokens keeps "
                         f"{format_bytes(plans.qlora_memory('llama-2-70b')['activations'])}; 20-40 GB is what "
                         "micro-batches of "
                         f"{'-'.join(map(str, _batches_within(_qlora_70b_activations, 20 * _GB, 40 * _GB)))} keep."),
    Figure("000-ex2-total", 2, "000", _EX2, N_("QLoRA of a 70B, all of it, on one GPU"),
           "总计：~56-76 GB -> 单张 A100 80GB 可行", (56 * _GB, 76 * _GB), lambda: plans.qlora_memory("llama-2-70b").total,
           "qlora_memory('llama-2-70b', rank 64, all projections, micro-batch 1 × 2,048 tokens)", unit="bytes",
           depends_on=N_("the batch"), cause=_ex2_total_cause),
    Figure("000-ex2-tokens", 2, "000", _EX2, N_("fine-tuning tokens"), "10K x 2048 token = ~20M token", 20e6,
           lambda: 10_000 * 2048, "10,000 × 2,048", unit="tokens", rel_tol=0.05),
    # seed 000 exercise 3: serving a 70B
    Figure("000-ex3-bf16", 2, "000", _EX3, N_("70B weights in BF16"), "BF16 权重：140 GB", 140 * _GB,
           lambda: mem.weight_bytes(70e9, 2), "weight_bytes(70e9, 2)", unit="bytes"),
    Figure("000-ex3-bf16-gpus", 2, "000", _EX3, N_("what holds 140 GB of weights"),
           "-> 2x A100 80GB 或 1x H200 141GB", 2,
           lambda: plans.gpus_to_hold(mem.weight_bytes(70e9, 2), _A100),
           f"A100s for the weights alone with the {format_percent(mem.MEMORY_MARGIN, 0)} margin", unit="GPUs",
           depends_on=N_("how much of each GPU is kept free"), cause=_bf16_70b_cause),
    Figure("000-ex3-kv", 2, "000", _EX3, N_("KV cache of a 70B, 2,048 tokens × 32 requests"),
           "KV Cache（2048 context, batch=32）：~40-80 GB", (40 * _GB, 80 * _GB),
           lambda: mem.kv_cache_bytes_for("llama-2-70b", 2048, 32), "kv_cache_bytes_for('llama-2-70b', 2048, 32)",
           unit="bytes",
           cause=lambda: "Llama-2-70B's 8 KV heads of width 128 hold "
                         f"{format_bytes(mem.kv_cache_bytes_for('llama-2-70b', 2048, 32))}; "
                         f"full multi-head attention (64 KV heads) would hold {format_bytes(_kv_mha(32))}. "
                         "The range matches neither."),
    Figure("000-ex3-bf16-total", 2, "000", _EX3, N_("serving a 70B in BF16 with that KV cache, in all"),
           "总计：~180-220 GB", (180 * _GB, 220 * _GB),
           lambda: plans.inference_memory("llama-2-70b", seq_len=2048, batch=32).total,
           "inference_memory('llama-2-70b', seq_len=2048, batch=32)", unit="bytes",
           cause=N_("Lower than the material's because its KV cache figure is too high (above).")),
    Figure("000-ex3-total-gpus", 2, "000", _EX3, N_("A100s to serve a 70B in BF16 with that KV cache"),
           "总计：~180-220 GB -> 3-4x A100", (3, 4),
           _serving_70b_gpus,
           "plan_memory('inference', 'llama-2-70b', seq_len=2048, batch=32).least", unit="GPUs",
           cause=lambda: f"{format_bytes(plans.inference_memory('llama-2-70b', seq_len=2048, batch=32).total)} would "
                         f"fit in {_gpu_word(_ceil_gpus())} by memory alone, but tensor parallelism must divide the "
                         f"64 heads, so the smallest usable count is {_serving_70b_gpus()}."),
    Figure("000-ex3-int4", 2, "000", _EX3, N_("70B weights in INT4"), "权重：~35 GB -> 1x A100 80GB", 35 * _GB,
           lambda: mem.weight_bytes(70e9, 0.5), "weight_bytes(70e9, 0.5)", unit="bytes",
           cause=lambda: f"With group-wise constants and 16-bit embeddings, real Llama-2-70B in INT4 is "
                         f"{format_bytes(mem.model_weight_bytes('llama-2-70b', 'int4'))}."),
    Figure("000-ex3-int4-kv", 2, "000", _EX3, N_("KV cache and runtime beside INT4 weights"),
           "KV Cache + 运行时：~20-30 GB", (20 * _GB, 30 * _GB),
           lambda: sum(plans.inference_memory("llama-2-70b", weights="int4", seq_len=2048, batch=32)[p]
                       for p in ("kv_cache", "overhead")),
           "inference_memory(..., weights='int4')['kv_cache'] + ['overhead']", unit="bytes",
           cause=N_("Right for Llama-2-70B's 8 KV heads, although the BF16 case above used 40-80 GB for the same "
                    "cache.")),
    Figure("000-ex3-int4-total", 2, "000", _EX3, N_("serving a 70B in INT4 with the 32 × 2,048 KV cache"),
           "总计：~55-65 GB -> 1x A100 80GB", (55 * _GB, 65 * _GB),
           lambda: plans.inference_memory("llama-2-70b", weights="int4", seq_len=2048, batch=32).total,
           "inference_memory('llama-2-70b', weights='int4', seq_len=2048, batch=32)", unit="bytes",
           cause=lambda: ("It " + ("fits" if plans.fits(plans.inference_memory("llama-2-70b", weights="int4",
                                                                               seq_len=2048, batch=32), _A100)
                                   else "does not fit") + f" one A100 within {_MARGIN}.")),
    # seed 000 §4
    Figure("000-4.1-infer-7b", 2, "000", _S41, N_("serving a 7B in BF16"), "推理 7B (BF16)：~14 GB 显存", 14 * _GB,
           lambda: mem.weight_bytes(7e9, 2), "weight_bytes(7e9, 2)", unit="bytes",
           cause=N_("Weights only; the KV cache and runtime come on top.")),
    Figure("000-4.1-infer-70b-int4", 2, "000", _S41, N_("serving a 70B in INT4"), "推理 70B (INT4)：~35 GB 显存",
           35 * _GB, lambda: mem.weight_bytes(70e9, 0.5), "weight_bytes(70e9, 0.5)", unit="bytes",
           cause=N_("Weights only.")),
    Figure("000-4.1-full-ft-70b", 2, "000", _S41, N_("A100s for full fine-tuning of a 70B"), "全参数微调 70B：需要 8+ A100",
           (8, None), lambda: plans.state_gpus(70e9, 16, _A100),
           "state_gpus(70e9, 16 bytes, 'A100 80GB', margin 0): the states alone, nothing kept free", unit="GPUs",
           rel_tol=0.0, cause=_full_ft_cause),
    Figure("000-4.2-bf16", 2, "000", _S42, N_("model size in BF16, 7B"), "模型大小 (BF16) = 2N bytes -> 7B 约 14 GB",
           14 * _GB, lambda: mem.weight_bytes(7e9, 2), "weight_bytes(7e9, 2)", unit="bytes"),
    Figure("000-4.2-int4", 2, "000", _S42, N_("model size in INT4, 7B"), "模型大小 (INT4) = 0.5N bytes -> 7B 约 3.5 GB",
           3.5 * _GB, lambda: mem.weight_bytes(7e9, 0.5), "weight_bytes(7e9, 0.5)", unit="bytes"),
    Figure("000-4.2-train", 2, "000", _S42, N_("training memory, 7B"), "训练显存 ≈ 16N bytes -> 7B 约 112 GB", 112 * _GB,
           lambda: mem.training_state_bytes(7e9), "training_state_bytes(7e9)", unit="bytes",
           cause=N_("States only, as §2.1 of seed 004 says; activations come on top.")),
    Figure("000-4.2-qlora-7b", 2, "000", _S42, N_("QLoRA of a 7B"),
           "QLoRA 显存 ≈ 0.5N (基座) + LoRA 参数 + 激活值 -> 7B 约 16-20 GB", (16 * _GB, 20 * _GB), _qlora_7b,
           "qlora_memory('llama-2-7b', rank 64, all projections, micro-batch 1 × 2,048 tokens)", unit="bytes",
           rel_tol=0.05, depends_on=N_("the batch"),
           cause=lambda: f"The minimum, a micro-batch of 1 × 2,048 tokens, needs "
                         f"{format_bytes(_qlora_7b())}; 16-20 GB is what micro-batches of "
                         f"{'-'.join(map(str, _batches_within(_qlora_7b_total, 16 * _GB, 20 * _GB)))} need."),
    # seed 004 §2
    Figure("004-2.1-bytes", 2, "004", _S21, N_("bytes per parameter, mixed-precision Adam"),
           "权重半精度2B 权重FP32副本4B 梯度2B 动量FP32 4B 二阶动量FP32 4B 16字节", 16, lambda: _MIXED.total,
           "state_bytes_per_param('mixed', 'adamw')", unit="bytes/param"),
    Figure("004-2.1-7b", 2, "004", _S21, N_("a 7B's training states"), "7×10⁹×16≈112GB", 112 * _GB,
           lambda: mem.training_state_bytes(7e9), "training_state_bytes(7e9)", unit="bytes"),
    Figure("004-2.1-7b-bf16", 2, "004", _S21, N_("a 7B's weights in FP16/BF16"), "7B模型权重约14GB", 14 * _GB,
           lambda: mem.weight_bytes(7e9, 2), "weight_bytes(7e9, 2)", unit="bytes"),
    Figure("004-2.2-activations", 2, "004", _S22, N_("activations of the 7B example by the material's rule"),
           "32×8×4096×4096×2×40≈275GB", 275 * _GB, lambda: mem.activation_bytes_rule(32, 8, 4096, 4096),
           "activation_bytes_rule(32, 8, 4096, 4096, 2, 40)", unit="bytes", cause=_activation_cause),
    Figure("004-2.2-factor", 2, "004", _S22, N_("the rule's factor for its 7B example, no recomputation"),
           "这个系数在不同框架和算子实现里差异很大常见范围在30到60之间", (30, 60), _rule_factor,
           "Llama-2-7B's saved bytes per layer / (s·b·h · 2 bytes), at 4,096 tokens", unit="number", rel_tol=0.0,
           cause=lambda: f"The rule multiplies by 2 bytes and by the factor, so the factor is half the bytes saved "
                         f"per token and hidden unit. A Llama-2-7B layer gives {_rule_factor():.0f} at 4,096 tokens; "
                         f"a GPT-style layer (4h GELU MLP, dropout) {_rule_factor(gated=False):.0f}; with "
                         f"FlashAttention {_rule_factor(flash=True):.0f}. The factor grows with the sequence."),
    Figure("004-2.2-quarter", 2, "004", _S22, N_("activation peak with FlashAttention and checkpointing, vs none"),
           "显存峰值能降到原来的四分之一甚至更低", (None, 0.25), _recompute_ratio,
           "activations_per_gpu(llama-2-7b, 8 × 4,096, full recompute + flash) / (no recompute, no flash)",
           unit="fraction", rel_tol=0.0),
    Figure("004-2.2-recompute-cost", 2, "004", _S22, N_("extra compute of gradient checkpointing"),
           "以大约30%的额外计算量", 0.30, lambda: 8 / 6 - 1, "(8N − 6N) / 6N: one more forward pass", unit="fraction",
           rel_tol=0.15,
           cause=lambda: f"Full recomputation repeats the forward pass: 8N FLOPs per token instead of 6N, "
                         f"{format_percent(8 / 6 - 1, 0, signed=True)}."),
    Figure("004-2.3-zero3-7b", 2, "004", _S23, N_("a 7B's states per GPU, ZeRO-3 on 8 GPUs"), "每卡参数相关显存约14GB",
           14 * _GB, lambda: sum(mem.sharded_state_bytes(7e9, _MIXED, zero=3, dp=8).values()),
           "sharded_state_bytes(7e9, 16 bytes, zero=3, dp=8)", unit="bytes"),
    Figure("004-2.3-micro-batch", 2, "004", _S23, N_("per-GPU batch for a global batch of 512 on 8 GPUs"),
           "全局batch512单卡batch通常是64", 64, lambda: 512 / 8, "512 / 8", unit="sequences"),
    Figure("004-2.3-activations", 2, "004", _S23, N_("activations per GPU, 64 sequences of 4,096 tokens"),
           "激活值可能被压到每卡10~20GB", (10 * _GB, 20 * _GB), _case1_activations,
           "activations_per_gpu(llama-2-7b, 64 × 4,096, full recompute, flash)", unit="bytes", cause=_case1_cause),
    Figure("004-5.2-zero-share", 2, "004", "§5.2 并行策略怎么改变你的估算结果",
           N_("per-GPU states when ZeRO shards parameters, gradients and optimizer states over 8 GPUs, vs one GPU"),
           "单卡显存约等于原来的一份除以卡数", 1 / 8,
           lambda: sum(mem.sharded_state_bytes(7e9, _MIXED, zero=3, dp=8).values()) / mem.training_state_bytes(7e9),
           "sharded_state_bytes(7e9, zero=3, dp=8) / training_state_bytes(7e9)", unit="fraction",
           stated_note=N_("one copy over the 8 GPUs of §2.3's case"),
           cause=lambda: "True when all three are sharded (ZeRO-3, FSDP). ZeRO-1 keeps "
                         f"{format_percent(_zero_share(1), 0)} and ZeRO-2 {format_percent(_zero_share(2), 0)} of the "
                         "states on each of 8 GPUs."),
    Figure("004-2.3-70b-bf16", 2, "004", _S23, N_("a 70B's weights in BF16"), "权重本身约140GB", 140 * _GB,
           lambda: mem.weight_bytes(70e9, 2), "weight_bytes(70e9, 2)", unit="bytes"),
    Figure("004-2.3-70b-int8", 2, "004", _S23, N_("a 70B's weights in INT8"), "用INT8/INT4量化把权重压到70GB甚至更低",
           70 * _GB, lambda: mem.weight_bytes(70e9, 1), "weight_bytes(70e9, 1)", unit="bytes"),
    Figure("004-2.3-70b-states", 2, "004", _S23, N_("a 70B's training states"), "70×10⁹×16 1120GB", 1120 * _GB,
           lambda: mem.training_state_bytes(70e9), "training_state_bytes(70e9)", unit="bytes"),
    Figure("004-2.3-70b-gpus", 2, "004", _S23, N_("80 GB GPUs that just hold those states"),
           "用80G卡要16张才刚好从账面上放下", 16, lambda: plans.state_gpus(70e9, 16, _A100),
           "state_gpus(70e9, 16 bytes, 'A100 80GB', margin 0): the states alone, nothing kept free", unit="GPUs",
           rel_tol=0.0,
           cause=lambda: f"{format_bytes(mem.training_state_bytes(70e9))} / {format_bytes(_A100_BYTES)} (80 GiB) = "
                         f"{plans.state_gpus(70e9, 16, _A100)} GPUs just hold the states on paper; 16 (two 8-GPU "
                         f"nodes) leave {format_percent(1 - mem.training_state_bytes(70e9) / (16 * _A100_BYTES), 1)}"
                         f" spare. With the material's own {format_percent(mem.MEMORY_MARGIN, 0)} margin it is "
                         f"{plans.state_gpus(70e9, 16, _A100, mem.MEMORY_MARGIN)}."),
    Figure("004-2.3-kv-request", 2, "004", _S23, N_("KV cache of one 2,048-token request, 70B, by 2·L·S·H·2"),
           "单条请求、序列长度2048、半精度算下来约5GB", 5 * _GB, lambda: _kv_mha(1),
           "kv_cache_bytes(80 layers, 64 KV heads × 128 = H, 2,048 tokens)", unit="bytes", rel_tol=0.1,
           cause=lambda: f"约5GB gives one significant figure, so 4.5-5.5 GB all read as 5 GB: the tolerance is 10%. "
                         f"{format_bytes(_kv_mha(1))} is exactly {format_bytes(_kv_mha(1), binary=True)}, which is why "
                         f"the 32 requests below come to 160. The formula assumes every head has its own K and V; "
                         f"Llama-2-70B's 8 KV heads need {format_bytes(mem.kv_cache_bytes_for('llama-2-70b', 2048))}."),
    Figure("004-2.3-kv-32", 2, "004", _S23, N_("the same for 32 concurrent requests"), "并发32条请求就是160GB",
           160 * _GB, lambda: _kv_mha(32), "kv_cache_bytes(80, 64, 128, 2048, batch=32)", unit="bytes",
           rel_tol=0.02,
           cause=lambda: f"32 × {format_bytes(_kv_mha(1))} = {format_bytes(_kv_mha(32))}, which is "
                         f"{format_bytes(_kv_mha(32), binary=True)}: the 160 is GiB written as GB. With Llama-2-70B's "
                         "GQA (8 KV heads) the cache is "
                         f"{format_bytes(mem.kv_cache_bytes_for('llama-2-70b', 2048, 32))}."),
)
