"""Chapter 2, memory: the figures of seed 004 §2 and of seed 000 §1.3, exercises 1-3 and §4."""

from __future__ import annotations

from ...formulas import memory as mem
from ... import plans
from ...core.i18n import N_, _
from ...core.units import format_bytes, format_count, format_percent
from .ch2_causes import (_A100, _A100_BYTES, _GB, _activation_cause, _batches_within, _bf16_70b_cause,
                         _case1_activations, _case1_cause, _ceil_gpus, _ex1_gpu_cause, _ex2_total_cause, _full_ft_cause,
                         _gpu_word, _kv_mha, _margin, _qlora_70b_activations, _qlora_7b, _qlora_7b_total,
                         _qlora_adapters, _recompute_ratio, _rule_factor, _serving_70b_gpus, _zero2_gpus_ex1,
                         _zero_share)
from .figure import Figure, register
from .render import Text

_S13 = "§1.3 显存估算"
_EX1, _EX2, _EX3 = "§3 练习 1：训练 7B 模型需要多少资源？", "§3 练习 2：QLoRA 微调 70B 模型需要什么？", \
    "§3 练习 3：推理服务 70B 模型需要什么？"
_S41, _S42 = "§4.1 记住关键数字", "§4.2 快速公式"
_S21 = "§2.1 权重与优化器状态：训练显存的大头"
_S22 = "§2.2 激活值：最容易被低估的一笔开销"
_S23 = "§2.3 用案例推演：7B和70B分别要吃多少显存"

_MIXED = mem.state_bytes_per_param("mixed", "adamw")          # 2 + 4 + 2 + 8


register(
    # seed 000 §1.3: the table of training memory
    Figure("000-1.3-optimizer", 2, "000", _S13, N_("AdamW's states (momentum and variance, FP32) per parameter"),
           "优化器状态 (2+2)N = 4N bytes (动量+方差, FP32)", 4, lambda: _MIXED.optimizer,
           "state_bytes_per_param('mixed', 'adamw').optimizer", unit="bytes/param",
           cause=N_("Two FP32 tensors are 4 + 4 = 8 bytes per parameter; (2 + 2) would be two 16-bit tensors.")),
    Figure("000-1.3-total", 2, "000", _S13, N_("the table's total: bytes per parameter of mixed-precision AdamW"),
           "模型参数 2N bytes 梯度 2N bytes 优化器状态 (2+2)N = 4N bytes … 总计约 ~16N bytes（含激活值）", 16,
           lambda: _MIXED.total, N_("state_bytes_per_param('mixed', 'adamw').total: the states alone"),
           unit="bytes/param",
           cause=lambda: _("The total is right, but not its parts or its words: the rows add up to 2 + 2 + 4 = 8 "
                           "bytes, and activations are not in the 16 (they grow with batch and sequence, not with N). "
                           "16 is the states alone: {weights} (BF16 weights) + {master} (FP32 master copy, missing "
                           "from the table) + {grads} (gradients) + {moments} (two FP32 moments, not 4).").format(
               weights=_MIXED.weights, master=_MIXED.master, grads=_MIXED.grads, moments=_MIXED.optimizer)),
    # seed 000 exercise 1
    Figure("000-ex1-weights", 2, "000", _EX1, N_("7B weights in BF16"), "参数：14 GB (BF16)", 14 * _GB,
           lambda: mem.weight_bytes(7e9, _MIXED.weights), "weight_bytes(7e9, 2)", unit="bytes"),
    Figure("000-ex1-grads", 2, "000", _EX1, N_("7B gradients in BF16"), "梯度：14 GB", 14 * _GB,
           lambda: 7e9 * _MIXED.grads, "7e9 × state_bytes_per_param().grads", unit="bytes"),
    Figure("000-ex1-optimizer", 2, "000", _EX1, N_("7B optimizer states (FP32)"), "优化器：28 GB (FP32)", 28 * _GB,
           lambda: 7e9 * (_MIXED.optimizer + _MIXED.master), N_("7e9 × (8 bytes of moments + 4 of master copy)"),
           unit="bytes",
           cause=lambda: _("28 GB is one FP32 copy of 7B parameters. AdamW keeps two FP32 moments ({moments}) and "
                           "mixed precision an FP32 master copy ({master}): {both}.").format(
               moments=format_bytes(7e9 * _MIXED.optimizer), master=format_bytes(7e9 * _MIXED.master),
               both=format_bytes(7e9 * (_MIXED.optimizer + _MIXED.master)))),
    Figure("000-ex1-total", 2, "000", _EX1, N_("7B full training: states plus 50-100 GB of activations"),
           "总计：~106-156 GB", (106 * _GB, 156 * _GB),
           lambda: mem.training_state_bytes(7e9) + 50 * _GB, N_("training_state_bytes(7e9) + 50 GB (the low end)"),
           unit="bytes", rel_tol=0.02,
           cause=lambda: _("With the states at {states} (16 bytes per parameter), the total is {low} to {high}: the "
                           "exercise's {stated} of states carries the optimizer error above.").format(
               states=format_bytes(mem.training_state_bytes(7e9)),
               low=format_bytes(mem.training_state_bytes(7e9) + 50 * _GB),
               high=format_bytes(mem.training_state_bytes(7e9) + 100 * _GB), stated=format_bytes(7e9 * (2 + 2 + 4)))),
    Figure("000-ex1-gpus", 2, "000", _EX1, N_("A100 80GB GPUs for 7B full training with ZeRO-2"),
           "需要 2x A100 80GB（使用 ZeRO-2）", 2, lambda: _zero2_gpus_ex1(50 * _GB),
           N_("the smallest n with ZeRO-2 states + 50 GB / n of activations ≤ 80% of 80 GiB"), unit="GPUs",
           depends_on=N_("how the activations are counted: the material's 50-100 GB shared out over the GPUs, or "
                         "one micro-batch kept on each GPU with full recomputation"),
           cause=_ex1_gpu_cause),
    # seed 000 exercise 2: QLoRA of a 70B
    Figure("000-ex2-base", 2, "000", _EX2, N_("a 70B base in 4 bits"), "基座模型（4-bit）：~35 GB", 35 * _GB,
           lambda: mem.weight_bytes(70e9, 0.5), "weight_bytes(70e9, 0.5)", unit="bytes",
           cause=lambda: _("Real Llama-2-70B in NF4 with double quantisation, embeddings and head in BF16: {size}.")
           .format(size=format_bytes(mem.model_weight_bytes("llama-2-70b", "nf4-dq")))),
    Figure("000-ex2-lora", 2, "000", _EX2, N_("LoRA rank 64 adapters on a 70B, in BF16"), "LoRA 参数（BF16）：~160 MB",
           160e6, lambda: _qlora_adapters() * 2, N_("lora_params('llama-2-70b', 64, all seven projections) × 2 bytes"),
           unit="bytes", depends_on=N_("which projections carry the adapters"),
           cause=lambda: _("The material gives the rank, not the projections. The QLoRA recipe puts rank-64 adapters "
                           "on all seven projections of every layer: {params} parameters from Llama-2-70B's shapes. "
                           "160 MB is 80M parameters (in BF16, as the material counts them): about q_proj alone "
                           "({q}); q_proj and v_proj, PEFT's default for Llama, give {qv}.").format(
               params=format_count(_qlora_adapters()),
               q=format_bytes(2 * mem.lora_params("llama-2-70b", 64, ["q_proj"])),
               qv=format_bytes(2 * mem.lora_params("llama-2-70b", 64, ["q_proj", "v_proj"])))),
    Figure("000-ex2-optimizer", 2, "000", _EX2, N_("AdamW states of those adapters"), "梯度 + 优化器：~320 MB + ~640 MB",
           640e6, lambda: _qlora_adapters() * _MIXED.optimizer, N_("adapters × 8 bytes (two FP32 moments)"),
           unit="bytes", depends_on=N_("which projections carry the adapters"),
           cause=lambda: _("Consistent with {params} adapter parameters (160 MB in BF16) with an FP32 gradient and "
                           "{moments} bytes of moments each, so it inherits the adapter count above: {times} times "
                           "more with all seven projections.").format(
               params=format_count(160e6 / 2), moments=_MIXED.optimizer,
               times=f"{_qlora_adapters() / (160e6 / 2):.0f}")),
    Figure("000-ex2-activations", 2, "000", _EX2, N_("QLoRA activations, 70B, gradient checkpointing"),
           "激活值：~20-40 GB", (20 * _GB, 40 * _GB), lambda: plans.qlora_memory("llama-2-70b")["activations"],
           "qlora_memory('llama-2-70b', micro-batch 1 × 2,048 tokens)['activations']", unit="bytes",
           depends_on=N_("the batch"),
           cause=lambda: _("With gradient checkpointing a micro-batch of 1 × 2,048 tokens keeps {size}; 20-40 GB is "
                           "what micro-batches of {batches} keep.").format(
               size=format_bytes(plans.qlora_memory("llama-2-70b")["activations"]),
               batches="-".join(map(str, _batches_within(_qlora_70b_activations, 20 * _GB, 40 * _GB))))),
    Figure("000-ex2-total", 2, "000", _EX2, N_("QLoRA of a 70B, all of it, on one GPU"),
           "总计：~56-76 GB -> 单张 A100 80GB 可行", (56 * _GB, 76 * _GB), lambda: plans.qlora_memory("llama-2-70b").total,
           N_("qlora_memory('llama-2-70b', rank 64, all projections, micro-batch 1 × 2,048 tokens)"), unit="bytes",
           depends_on=N_("the batch"), cause=_ex2_total_cause),
    Figure("000-ex2-tokens", 2, "000", _EX2, N_("fine-tuning tokens"), "10K x 2048 token = ~20M token", 20e6,
           lambda: 10_000 * 2048, "10,000 × 2,048", unit="tokens", rel_tol=0.05),
    # seed 000 exercise 3: serving a 70B
    Figure("000-ex3-bf16", 2, "000", _EX3, N_("70B weights in BF16"), "BF16 权重：140 GB", 140 * _GB,
           lambda: mem.weight_bytes(70e9, 2), "weight_bytes(70e9, 2)", unit="bytes"),
    Figure("000-ex3-bf16-gpus", 2, "000", _EX3, N_("what holds 140 GB of weights"),
           "-> 2x A100 80GB 或 1x H200 141GB", 2,
           lambda: plans.gpus_to_hold(mem.weight_bytes(70e9, 2), _A100),
           Text(lambda: _("A100s for the weights alone with the {margin} margin").format(
               margin=format_percent(mem.MEMORY_MARGIN, 0))), unit="GPUs",
           depends_on=N_("how much of each GPU is kept free"), cause=_bf16_70b_cause),
    Figure("000-ex3-kv", 2, "000", _EX3, N_("KV cache of a 70B, 2,048 tokens × 32 requests"),
           "KV Cache（2048 context, batch=32）：~40-80 GB", (40 * _GB, 80 * _GB),
           lambda: mem.kv_cache_bytes_for("llama-2-70b", 2048, 32), "kv_cache_bytes_for('llama-2-70b', 2048, 32)",
           unit="bytes",
           cause=lambda: _("Llama-2-70B's 8 KV heads of width 128 hold {gqa}; full multi-head attention (64 KV heads) "
                           "would hold {mha}. The range matches neither.").format(
               gqa=format_bytes(mem.kv_cache_bytes_for("llama-2-70b", 2048, 32)), mha=format_bytes(_kv_mha(32)))),
    Figure("000-ex3-bf16-total", 2, "000", _EX3, N_("serving a 70B in BF16 with that KV cache, in all"),
           "总计：~180-220 GB", (180 * _GB, 220 * _GB),
           lambda: plans.inference_memory("llama-2-70b", seq_len=2048, batch=32).total,
           "inference_memory('llama-2-70b', seq_len=2048, batch=32)", unit="bytes",
           cause=N_("Lower than the material's because its KV cache figure is too high (above).")),
    Figure("000-ex3-total-gpus", 2, "000", _EX3, N_("A100s to serve a 70B in BF16 with that KV cache"),
           "总计：~180-220 GB -> 3-4x A100", (3, 4),
           _serving_70b_gpus,
           "plan_memory('inference', 'llama-2-70b', seq_len=2048, batch=32).least", unit="GPUs",
           cause=lambda: _("{total} would fit in {gpus} by memory alone, but tensor parallelism must divide the 64 "
                           "heads, so the smallest usable count is {least}.").format(
               total=format_bytes(plans.inference_memory("llama-2-70b", seq_len=2048, batch=32).total),
               gpus=_gpu_word(_ceil_gpus()), least=_serving_70b_gpus())),
    Figure("000-ex3-int4", 2, "000", _EX3, N_("70B weights in INT4"), "权重：~35 GB -> 1x A100 80GB", 35 * _GB,
           lambda: mem.weight_bytes(70e9, 0.5), "weight_bytes(70e9, 0.5)", unit="bytes",
           cause=lambda: _("With group-wise constants and 16-bit embeddings, real Llama-2-70B in INT4 is {size}.")
           .format(size=format_bytes(mem.model_weight_bytes("llama-2-70b", "int4")))),
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
           cause=lambda: _("It {fits} one A100 within {margin}.").format(
               fits=_("fits") if plans.fits(plans.inference_memory("llama-2-70b", weights="int4", seq_len=2048,
                                                                    batch=32), _A100) else _("does not fit"),
               margin=_margin())),
    # seed 000 §4
    Figure("000-4.1-infer-7b", 2, "000", _S41, N_("serving a 7B in BF16"), "推理 7B (BF16)：~14 GB 显存", 14 * _GB,
           lambda: mem.weight_bytes(7e9, 2), "weight_bytes(7e9, 2)", unit="bytes",
           cause=N_("Weights only; the KV cache and runtime come on top.")),
    Figure("000-4.1-infer-70b-int4", 2, "000", _S41, N_("serving a 70B in INT4"), "推理 70B (INT4)：~35 GB 显存",
           35 * _GB, lambda: mem.weight_bytes(70e9, 0.5), "weight_bytes(70e9, 0.5)", unit="bytes",
           cause=N_("Weights only.")),
    Figure("000-4.1-full-ft-70b", 2, "000", _S41, N_("A100s for full fine-tuning of a 70B"), "全参数微调 70B：需要 8+ A100",
           (8, None), lambda: plans.state_gpus(70e9, 16, _A100),
           N_("state_gpus(70e9, 16 bytes, 'A100 80GB', margin 0): the states alone, nothing kept free"), unit="GPUs",
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
           N_("qlora_memory('llama-2-7b', rank 64, all projections, micro-batch 1 × 2,048 tokens)"), unit="bytes",
           rel_tol=0.05, depends_on=N_("the batch"),
           cause=lambda: _("The minimum, a micro-batch of 1 × 2,048 tokens, needs {size}; 16-20 GB is what "
                           "micro-batches of {batches} need.").format(
               size=format_bytes(_qlora_7b()),
               batches="-".join(map(str, _batches_within(_qlora_7b_total, 16 * _GB, 20 * _GB))))),
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
           N_("Llama-2-7B's saved bytes per layer / (s·b·h · 2 bytes), at 4,096 tokens"), unit="number", rel_tol=0.0,
           cause=lambda: _("The rule multiplies by 2 bytes and by the factor, so the factor is half the bytes saved "
                           "per token and hidden unit. A Llama-2-7B layer gives {llama} at 4,096 tokens; a GPT-style "
                           "layer (4h GELU MLP, dropout) {gpt}; with FlashAttention {flash}. The factor grows with the "
                           "sequence.").format(llama=f"{_rule_factor():.0f}", gpt=f"{_rule_factor(gated=False):.0f}",
                                               flash=f"{_rule_factor(flash=True):.0f}")),
    Figure("004-2.2-quarter", 2, "004", _S22, N_("activation peak with FlashAttention and checkpointing, vs none"),
           "显存峰值能降到原来的四分之一甚至更低", (None, 0.25), _recompute_ratio,
           N_("activations_per_gpu(llama-2-7b, 8 × 4,096, full recompute + flash) / (no recompute, no flash)"),
           unit="fraction", rel_tol=0.0),
    Figure("004-2.2-recompute-cost", 2, "004", _S22, N_("extra compute of gradient checkpointing"),
           "以大约30%的额外计算量", 0.30, lambda: 8 / 6 - 1, N_("(8N − 6N) / 6N: one more forward pass"), unit="fraction",
           rel_tol=0.15,
           cause=lambda: _("Full recomputation repeats the forward pass: 8N FLOPs per token instead of 6N, {more}.")
           .format(more=format_percent(8 / 6 - 1, 0, signed=True))),
    Figure("004-2.3-zero3-7b", 2, "004", _S23, N_("a 7B's states per GPU, ZeRO-3 on 8 GPUs"), "每卡参数相关显存约14GB",
           14 * _GB, lambda: sum(mem.sharded_state_bytes(7e9, _MIXED, zero=3, dp=8).values()),
           N_("sharded_state_bytes(7e9, 16 bytes, zero=3, dp=8)"), unit="bytes"),
    Figure("004-2.3-micro-batch", 2, "004", _S23, N_("per-GPU batch for a global batch of 512 on 8 GPUs"),
           "全局batch512单卡batch通常是64", 64, lambda: 512 / 8, "512 / 8", unit="sequences"),
    Figure("004-2.3-activations", 2, "004", _S23, N_("activations per GPU, 64 sequences of 4,096 tokens"),
           "激活值可能被压到每卡10~20GB", (10 * _GB, 20 * _GB), _case1_activations,
           N_("activations_per_gpu(llama-2-7b, 64 × 4,096, full recompute, flash)"), unit="bytes", cause=_case1_cause),
    Figure("004-5.2-zero-share", 2, "004", "§5.2 并行策略怎么改变你的估算结果",
           N_("per-GPU states when ZeRO shards parameters, gradients and optimizer states over 8 GPUs, vs one GPU"),
           "单卡显存约等于原来的一份除以卡数", 1 / 8,
           lambda: sum(mem.sharded_state_bytes(7e9, _MIXED, zero=3, dp=8).values()) / mem.training_state_bytes(7e9),
           "sharded_state_bytes(7e9, zero=3, dp=8) / training_state_bytes(7e9)", unit="fraction",
           stated_note=N_("one copy over the 8 GPUs of §2.3's case"),
           cause=lambda: _("True when all three are sharded (ZeRO-3, FSDP). ZeRO-1 keeps {one} and ZeRO-2 {two} of the "
                           "states on each of 8 GPUs.").format(one=format_percent(_zero_share(1), 0),
                                                               two=format_percent(_zero_share(2), 0))),
    Figure("004-2.3-70b-bf16", 2, "004", _S23, N_("a 70B's weights in BF16"), "权重本身约140GB", 140 * _GB,
           lambda: mem.weight_bytes(70e9, 2), "weight_bytes(70e9, 2)", unit="bytes"),
    Figure("004-2.3-70b-int8", 2, "004", _S23, N_("a 70B's weights in INT8"), "用INT8/INT4量化把权重压到70GB甚至更低",
           70 * _GB, lambda: mem.weight_bytes(70e9, 1), "weight_bytes(70e9, 1)", unit="bytes"),
    Figure("004-2.3-70b-states", 2, "004", _S23, N_("a 70B's training states"), "70×10⁹×16 1120GB", 1120 * _GB,
           lambda: mem.training_state_bytes(70e9), "training_state_bytes(70e9)", unit="bytes"),
    Figure("004-2.3-70b-gpus", 2, "004", _S23, N_("80 GB GPUs that just hold those states"),
           "用80G卡要16张才刚好从账面上放下", 16, lambda: plans.state_gpus(70e9, 16, _A100),
           N_("state_gpus(70e9, 16 bytes, 'A100 80GB', margin 0): the states alone, nothing kept free"), unit="GPUs",
           rel_tol=0.0,
           cause=lambda: _("{states} / {memory} (80 GiB) = {gpus} GPUs just hold the states on paper; 16 (two 8-GPU "
                           "nodes) leave {spare} spare. With the material's own {margin} margin it is {kept}.").format(
               states=format_bytes(mem.training_state_bytes(70e9)), memory=format_bytes(_A100_BYTES),
               gpus=plans.state_gpus(70e9, 16, _A100),
               spare=format_percent(1 - mem.training_state_bytes(70e9) / (16 * _A100_BYTES), 1),
               margin=format_percent(mem.MEMORY_MARGIN, 0), kept=plans.state_gpus(70e9, 16, _A100, mem.MEMORY_MARGIN))),
    Figure("004-2.3-kv-request", 2, "004", _S23, N_("KV cache of one 2,048-token request, 70B, by 2·L·S·H·2"),
           "单条请求、序列长度2048、半精度算下来约5GB", 5 * _GB, lambda: _kv_mha(1),
           N_("kv_cache_bytes(80 layers, 64 KV heads × 128 = H, 2,048 tokens)"), unit="bytes", rel_tol=0.1,
           cause=lambda: _("约5GB gives one significant figure, so 4.5-5.5 GB all read as 5 GB: the tolerance is 10%. "
                           "{size} is exactly {binary}, which is why the 32 requests below come to 160. The formula "
                           "assumes every head has its own K and V; Llama-2-70B's 8 KV heads need {gqa}.").format(
               size=format_bytes(_kv_mha(1)), binary=format_bytes(_kv_mha(1), binary=True),
               gqa=format_bytes(mem.kv_cache_bytes_for("llama-2-70b", 2048)))),
    Figure("004-2.3-kv-32", 2, "004", _S23, N_("the same for 32 concurrent requests"), "并发32条请求就是160GB",
           160 * _GB, lambda: _kv_mha(32), "kv_cache_bytes(80, 64, 128, 2048, batch=32)", unit="bytes",
           rel_tol=0.02,
           cause=lambda: _("32 × {one} = {all}, which is {binary}: the 160 is GiB written as GB. With Llama-2-70B's "
                           "GQA (8 KV heads) the cache is {gqa}.").format(
               one=format_bytes(_kv_mha(1)), all=format_bytes(_kv_mha(32)),
               binary=format_bytes(_kv_mha(32), binary=True),
               gqa=format_bytes(mem.kv_cache_bytes_for("llama-2-70b", 2048, 32)))),
)
