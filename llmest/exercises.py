"""The chapters' exercises, keyed "chapter.number": each a question, the answer computed by llmest, a tolerance
and hints. Grading (``Exercise``, ``Verdict``, reading an entry) lives in ``llmest.grading``.
"""

from __future__ import annotations

from . import compute as cp
from . import data as dt
from . import hardware
from . import memory as mem
from . import model as m
from . import plans
from ._registry import Registry
from .grading import Exercise
from .units import SECONDS_PER_DAY, SECONDS_PER_HOUR, format_bytes, format_count, format_percent

__all__ = ["EXERCISES", "get", "register"]

EXERCISES = Registry("exercise")
register, get = EXERCISES.register, EXERCISES.lookup

_KEPT_FREE = format_percent(mem.MEMORY_MARGIN, 0)   # the material's memory margin, as the questions say it
_USABLE = {name: f"{format_bytes(plans.usable_bytes(name))} ({format_percent(1 - mem.MEMORY_MARGIN, 0)} of "
                 f"{format_bytes(hardware.gpu(name).memory_bytes, binary=True)})" for name in ("A100 80GB", "H100 SXM")}


# ----------------------------------------------------------------------------------------------------------------
# Chapter 1: parameters
# ----------------------------------------------------------------------------------------------------------------

def _gqa_saving():
    cfg = m.preset("llama-2-70b")
    mha = m.attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_heads, cfg.head_dim)
    gqa = m.attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim)
    return cfg.num_layers * (mha - gqa)


register(
    Exercise(
        "1.1",
        "A dense model has 24 layers of hidden size 2,048 and a 50,000-token vocabulary. How many parameters does "
        "the material's rule (12·H² a layer, one embedding table) give?",
        lambda: m.rule_params(2048, 24, 50000), rel_tol=0.02,
        hints=("One layer holds about 12·H² parameters.", "Add V·H once for the embedding table.")),
    Exercise(
        "1.2",
        "Qwen2-0.5B: vocabulary 151,936, hidden 896, 24 layers, 14 query heads and 2 key/value heads of width 64, "
        "biases on Q, K and V only, a SwiGLU FFN of width 4,864, RMSNorm (a scale vector: two per layer and a "
        "final one), and an output head tied to the embedding. Count its parameters exactly.",
        lambda: m.count_params(m.preset("qwen2-0.5b")).total, rel_tol=1e-7,
        hints=("Attention: Q and O are H × (14·64); K and V are H × (2·64) each; add the Q, K, V biases.",
               "SwiGLU: three matrices of H × F per layer (gate, up, down).",
               "Norms: (2·L + 1)·H. The tied head adds nothing beyond the V·H embedding.")),
    Exercise(
        "1.3",
        "Someone plans a 30B dense model with 60 layers and a 32,000-token vocabulary. Which hidden size does the "
        "12·H² rule give? (Solve 12·L·H² + V·H = N.)",
        lambda: m.rule_hidden_size(30e9, 60, 32000), rel_tol=0.05,
        hints=("Ignore the embedding first: H ≈ √(N / (12·L)).",
               "Then correct for V·H, or use the quadratic formula and keep the positive root.")),
    Exercise(
        "1.4",
        "Llama-2-70B has 64 query heads but only 8 key/value heads (GQA), head width 128, hidden 8,192, 80 layers. "
        "How many parameters does GQA save over full multi-head attention, in the whole model?",
        _gqa_saving, rel_tol=0.02,
        hints=("Only K and V shrink; Q and the output projection keep their size.",
               "K and V are each H × (KV heads · head width): compare 64 KV heads with 8.",
               "Count both matrices, then every layer.")),
    Exercise(
        "1.5",
        "Mixtral-8x22B: 56 layers, hidden 6,144, 48 query and 8 key/value heads of width 128, 8 experts per layer "
        "(each a SwiGLU FFN of width 16,384), each token routed to 2, a 32,000-token vocabulary, untied head. "
        "How many parameters does one token use (the active parameters)?",
        lambda: m.count_params(m.preset("mixtral-8x22b")).active, rel_tol=0.02,
        hints=("Everything but the experts is used by every token.",
               "One expert holds 3 · 6144 · 16384 parameters; a token uses 2 of them in each layer.")),
    Exercise(
        "1.6",
        "GPT-2 XL ties its output head to its token embedding: vocabulary 50,257, hidden 1,600. How many "
        "parameters would an untied output head add?",
        lambda: m.embedding_params(50257, 1600), rel_tol=0.01,
        hints=("The head maps the hidden state to one score per token of the vocabulary.",)),
)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 2: memory
# ----------------------------------------------------------------------------------------------------------------

register(
    Exercise(
        "2.1",
        "The material's exercise 1: full training of a 7B with mixed-precision AdamW (16 bytes per parameter) and "
        f"about 50 GB of activations, spread evenly over the GPUs. With ZeRO-2 on A100 80GB GPUs, keeping {_KEPT_FREE} "
        "of each free, how many GPUs are needed?",
        lambda: plans.zero_gpus(7e9, "A100 80GB", zero=2, activations_shared_bytes=50e9), unit="GPUs", rel_tol=0,
        hints=("ZeRO-2 shards gradients and optimizer states (with the master copy) but not the weights.",
               f"Per GPU: 2·N + (2 + 4 + 8)·N / n + 50 GB / n must stay under {_USABLE['A100 80GB']}.")),
    Exercise(
        "2.2",
        "The material's exercise 2: QLoRA of Llama-2-70B (hidden 8,192, 64 query and 8 KV heads of width 128, FFN "
        "width 28,672, 80 layers) with rank-64 adapters on all seven projections (q, k, v, o, gate, up, down). "
        "How many adapter parameters?",
        lambda: mem.lora_params("llama-2-70b", 64, mem.LORA_TARGETS), rel_tol=0.02,
        hints=("An adapter on a rows × cols matrix holds r·(rows + cols) parameters.",
               "k_proj and v_proj map 8,192 to 8 · 128 = 1,024; gate, up and down involve 28,672.",
               "Sum the seven per layer, then multiply by 80.")),
    Exercise(
        "2.3",
        "The material's exercise 3: serving Llama-2-70B in BF16 (count its real parameters, 80 layers, 8 KV heads "
        f"of width 128) to 32 requests of 2,048 tokens. Keeping {_KEPT_FREE} of each A100 80GB free, and with tensor "
        "parallelism that must divide its 64 heads, how many A100s?",
        lambda: plans.plan_memory("inference", "llama-2-70b", gpu="A100 80GB", seq_len=2048, batch=32).least,
        unit="GPUs", rel_tol=0,
        hints=("KV cache: 2 · layers · KV heads · head width · 2 bytes · tokens · requests, with 8 KV heads.",
               "Add the weights (2 bytes per parameter) and about 0.5 GB of runtime per GPU; each A100 may use "
               f"{_USABLE['A100 80GB']}.",
               "Round up to a count that divides 64.")),
    Exercise(
        "2.4",
        "A 13B model trains with mixed-precision AdamW under ZeRO-2 on 4 GPUs. How many GB (10⁹ bytes) of training "
        "states does each GPU hold (weights, master copy, gradients, optimizer)?",
        lambda: sum(mem.sharded_state_bytes(13e9, mem.state_bytes_per_param("mixed"), zero=2, dp=4).values()),
        unit="bytes", rel_tol=0.05,
        hints=("ZeRO-2 keeps a full copy of the 2-byte weights on every GPU.",
               "The other 14 bytes per parameter are split four ways.")),
    Exercise(
        "2.5",
        "Llama-2-13B (40 layers, hidden 5,120, 40 heads) trains on micro-batches of 2 sequences of 4,096 tokens "
        "with FlashAttention and no recomputation. Counting the tensors a Llama layer saves (SwiGLU width 13,824, "
        "no dropout), how many GB (10⁹ bytes) of activations do its 40 layers keep? Leave out the output layer.",
        lambda: 40 * mem.model_layer_activation_bytes(m.preset("llama-2-13b"), 2, 4096, flash=True), unit="bytes",
        rel_tol=0.05,
        hints=("Per layer, in 16 bits: two norm inputs, the QKV input, Q, K, V, the attention output, the FFN input "
               "(each s·b·h values), and the gate, up, activation and product (each s·b·F values).",
               "That is s·b·(12·h + 4·h + 8·F) bytes with multi-head attention; FlashAttention keeps no scores.")),
    Exercise(
        "2.6",
        "Qwen2-7B (28 layers, 4 KV heads of width 128) serves 16 requests of 8,192 tokens each with a BF16 KV "
        "cache. How many GB (10⁹ bytes) does the cache take?",
        lambda: mem.kv_cache_bytes_for("qwen2-7b", 8192, 16), unit="bytes", rel_tol=0.05,
        hints=("2 (K and V) · layers · KV heads · head width · 2 bytes per token.",
               "Multiply the bytes per token by 16 · 8,192 tokens; a GB is 10⁹ bytes, not 2³⁰.")),
    Exercise(
        "2.7",
        f"A 34B model with mixed-precision AdamW, states sharded evenly over H100 80GB GPUs (ZeRO-3), {_KEPT_FREE} of "
        "each kept free: how many GPUs just for the states, before activations?",
        lambda: plans.state_gpus(34e9, 16, "H100 SXM", margin=mem.MEMORY_MARGIN), unit="GPUs", rel_tol=0,
        hints=("16 bytes per parameter.", f"Divide by {_USABLE['H100 SXM']} usable per GPU and round up.")),
)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 3: FLOPs and time
# ----------------------------------------------------------------------------------------------------------------

_H100 = hardware.gpu("H100 SXM")


register(
    Exercise(
        "3.1",
        "A 13B model trains on 2T tokens on H100 SXM GPUs (989 dense BF16 TFLOPS) at 40% MFU. How many GPU-hours?",
        lambda: plans.estimate_time(2e12, n_params=13e9, gpu="H100 SXM", mfu=0.4).gpu_hours, unit="GPU-hours",
        rel_tol=0.05,
        hints=("FLOPs ≈ 6·N·D.", f"FLOPs / (peak × MFU) gives GPU-seconds; divide by {SECONDS_PER_HOUR:,}.")),
    Exercise(
        "3.2",
        "The same run on 512 H100s: how many days, before any margin?",
        lambda: plans.estimate_time(2e12, n_params=13e9, gpus=512, gpu="H100 SXM", mfu=0.4).days, unit="days",
        rel_tol=0.05,
        hints=("GPU-hours / GPUs / 24.",)),
    Exercise(
        "3.3",
        "You have 256 A100s (312 TFLOPS) for 21 days at 40% MFU, and want 20 training tokens per parameter. What is "
        "the largest model (parameters) you can train?",
        lambda: plans.estimate_budget(256, 21, gpu="A100 80GB", mfu=0.4).chinchilla()[0],
        rel_tol=0.05,
        hints=("The budget is GPUs × peak × MFU × seconds.", "With D = 20·N, C = 6·N·20·N = 120·N²: solve for N.")),
    Exercise(
        "3.4",
        "A team reports training a 30B model on 600B tokens in 21 days on 1,024 A100s. What MFU does that imply?",
        lambda: plans.estimate_mfu(30e9, 600e9, gpus=1024, days=21, gpu="A100 80GB").mfu,
        unit="fraction", rel_tol=0.05,
        hints=("MFU = model FLOPs / (GPUs × peak × seconds).",)),
    Exercise(
        "3.5",
        "Llama-2-7B has 32 layers of 32 heads of width 128 and about "
        f"{format_count(cp.flops_params('llama-2-7b'))} matmul weights (N, the embedding left out). At what "
        "sequence length T do the attention FLOPs, 12·L·H·Q·T per token, reach 10% of a training token's FLOPs "
        "(6N + 12·L·H·Q·T)?",
        lambda: cp.seq_len_for_attention_share(cp.flops_params("llama-2-7b"), 32, 32, 128, 0.1), rel_tol=0.05,
        hints=("Solve 12·L·H·Q·T = 0.1 · (6N + 12·L·H·Q·T) for T.",)),
    Exercise(
        "3.6",
        "Llama-2-7B in BF16 decodes one sequence at a time on an H100 SXM (3.35 TB/s). Every step reads all the "
        "weights (its 6.74B parameters, 2 bytes each); ignore the KV cache. At most how many tokens per second?",
        lambda: _H100.bandwidth_bytes_per_s / mem.model_weight_bytes("llama-2-7b", "bf16"), unit="tokens/s",
        rel_tol=0.05,
        hints=("At batch 1 decoding is bound by memory bandwidth, not by FLOPs.",
               "Time per token = weight bytes / bandwidth.")),
    Exercise(
        "3.7",
        "At what batch size does decoding Llama-2-7B in BF16 on an H100 SXM become compute-bound if the KV cache "
        "is negligible (very short contexts)? Compute per step 2·N·B at 989 TFLOPS; memory per step the weights at "
        f"3.35 TB/s; N = {format_count(cp.flops_params('llama-2-7b'))} matmul weights, "
        f"{format_count(m.count_params(m.preset('llama-2-7b')).total)} parameters read.",
        lambda: cp.compute_bound_batch(mem.model_weight_bytes("llama-2-7b", "bf16"), cp.flops_params("llama-2-7b"),
                                       _H100.bandwidth_bytes_per_s, _H100.bf16_flops_per_s), rel_tol=0.05,
        hints=("Set 2·N·B / peak equal to weight bytes / bandwidth.",)),
)


# ----------------------------------------------------------------------------------------------------------------
# Chapter 4: data and tokens
# ----------------------------------------------------------------------------------------------------------------

register(
    Exercise(
        "4.1",
        "By Chinchilla's rule of thumb, how many training tokens does a compute-optimal 13B model get?",
        lambda: dt.chinchilla_tokens(13e9), rel_tol=0.02,
        hints=(f"About {dt.TOKENS_PER_PARAM} tokens per parameter.",)),
    Exercise(
        "4.2",
        "A budget of 10²³ FLOPs, spent the rule's way (D = 20·N, C = 6·N·D): how many parameters?",
        lambda: dt.chinchilla_params_for_flops(1e23), rel_tol=0.03,
        hints=("C = 6 · N · 20N = 120·N².",)),
    Exercise(
        "4.3",
        "The same 10²³ FLOPs under the fit printed in the Chinchilla paper (E 1.69, A 406.4, B 410.7, α 0.34, "
        "β 0.28): what is the compute-optimal N?",
        lambda: dt.fit("hoffmann").optimal(1e23)[0], rel_tol=0.03,
        hints=("N_opt = G·(C/6)^(β/(α+β)) with G = (αA / (βB))^(1/(α+β)).",)),
    Exercise(
        "4.4",
        "A team trains a 3B-parameter model on 9T tokens, to serve it cheaply. How many tokens per parameter is "
        "that?",
        lambda: 9e12 / 3e9, rel_tol=0.03,
        hints=(f"Divide tokens by parameters; compare with Chinchilla's {dt.TOKENS_PER_PARAM}.",)),
    Exercise(
        "4.5",
        "300B training tokens from a mix of 70% English, 20% Chinese and 10% code, at the workbook's rates (the "
        "material's worked figures for English and Chinese, the middle of its range for code: "
        + ", ".join(f"{dt.tokens_per_gb(lang) / 1e8:g}" for lang in ("english", "chinese", "code"))
        + " × 10⁸ tokens per GB): how many GB (10⁹ bytes) of cleaned text?",
        lambda: sum(dt.mixture_bytes(300e9, {"english": 0.7, "chinese": 0.2, "code": 0.1}).values()), unit="bytes",
        rel_tol=0.03,
        hints=("Split the tokens by the shares, divide each by its rate per GB, and add.",)),
    Exercise(
        "4.6",
        "At a cleaning yield of 25%, how many GB of raw crawl give the cleaned text of exercise 4.5?",
        lambda: dt.raw_bytes(sum(dt.mixture_bytes(300e9, {"english": 0.7, "chinese": 0.2, "code": 0.1}).values()),
                             0.25), unit="bytes", rel_tol=0.03,
        hints=("Cleaned = yield × raw.",)),
    Exercise(
        "4.7",
        "You have 300B unique tokens of good data and want to train on 2.4T tokens. How many epochs is that?",
        lambda: dt.epochs(2.4e12, 300e9), unit="epochs", rel_tol=0.01,
        hints=("Training tokens / unique tokens.",
               f"Then set it beside the {dt.EPOCHS_NEARLY_FREE} epochs of repeated data that Muennighoff et al. (2023) "
               "found to change the loss little against unique data.")),
)

# Chapter 5 (interview drills): exercises registered below this line.

register(
    Exercise(
        "5.1",
        "The material's exercise 1: a 7B trained on 1T tokens on 256 A100s (312 TFLOPS BF16) at 40% MFU. How many "
        "days?",
        lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256, gpu="A100 80GB", mfu=0.4).days,
        unit="days", rel_tol=0.05,
        hints=("6·N·D FLOPs, divided by 256 × 312 TFLOPS × 0.4, gives seconds.", f"A day is {SECONDS_PER_DAY:,} "
                                                                                 "seconds.")),
    Exercise(
        "5.2",
        "The material's exercise 2: QLoRA of Llama-2-70B with rank-64 adapters on all seven projections (kept in fp32 "
        "with AdamW, as PEFT does), the base in NF4 with double quantisation, one sequence of 2,048 tokens with full "
        "checkpointing and FlashAttention, 0.5 GB of runtime. Total memory on the GPU, in GB?",
        lambda: plans.qlora_memory(m.preset("llama-2-70b"), rank=64, micro_batch=1, seq_len=2048).total,
        unit="bytes", rel_tol=0.1,
        hints=("The base: parameters × (4 bits + one 8-bit constant per 64 + one fp32 constant per 256 blocks).",
               "Adapters: r·(d_in + d_out) per projection, per layer; 16 bytes each with gradients and AdamW.",
               "Activations with full checkpointing: every layer's input (2·s·h bytes) plus one layer recomputed.")),
    Exercise(
        "5.3",
        "The material's exercise 3: serve Llama-2-70B in BF16 with 32 requests of 2,048 tokens, split with tensor "
        f"parallelism over A100 80GB GPUs, keeping {_KEPT_FREE} of each free. How many GPUs? (Tensor parallelism must "
        "divide "
        "its 64 heads.)",
        lambda: plans.plan_memory("inference", "llama-2-70b", gpu="A100 80GB", seq_len=2048, batch=32).least,
        unit="GPUs", rel_tol=0,
        hints=("Weights: count the parameters × 2 bytes. KV cache: 2 · 80 layers · 8 KV heads · 128 · 2 bytes a token.",
               f"Each GPU may use {_USABLE['A100 80GB']}; 3 does not divide 64 heads.")),
    Exercise(
        "5.4",
        "The interview question on GPT-3: 175B parameters, 300B tokens, V100s at 125 TFLOPS and 40% MFU. How many "
        "GPU-hours?",
        lambda: plans.estimate_time(300e9, n_params=175e9, gpu="V100", mfu=0.4).gpu_hours,
        unit="GPU-hours", rel_tol=0.05,
        hints=(f"6·N·D FLOPs / (125 TFLOPS × 0.4) gives GPU-seconds; then divide by {SECONDS_PER_HOUR:,}.",)),
    Exercise(
        "5.5",
        "An OOM hunt: Llama-2-7B with mixed-precision AdamW and ZeRO-3 over 8 GPUs, one sequence of 4,096 tokens, "
        "eager attention (no FlashAttention) and no recomputation, 0.5 GB of runtime. Memory per GPU, in GB?",
        lambda: plans.training_memory(m.preset("llama-2-7b"), zero=3, dp=8, micro_batch=1, seq_len=4096,
                                    recompute="none", flash=False).total,
        unit="bytes", rel_tol=0.1,
        hints=("States: 16 bytes a parameter, all sharded over 8 GPUs.",
               "Activations per layer: the gated count plus the softmax output, 2·a·s² bytes, which dominates here.",
               "Add the output layer: 4·s·h·(1 + V/h) bytes, with fp32 logits.")),
    Exercise(
        "5.6",
        "A 7B on 100B tokens with 64 GPUs of 200 TFLOPS at 50% MFU (the article's §3.2 example): how many days "
        f"should the plan say, with the top of the article's {plans.TIME_MARGIN_TEXT} time margin?",
        lambda: plans.estimate_time(100e9, n_params=7e9, gpus=64, peak_flops_per_s=200e12, mfu=0.5).days_with_margin[1],
        unit="days", rel_tol=0.05,
        hints=(f"First the formula's days: 6ND / (64 × 200 TFLOPS × 0.5) / {SECONDS_PER_DAY:,}.",
               f"Then add {format_percent(cp.TIME_MARGIN[1], 0)}.")),
)

# Chapter 6 (measure it yourself): exercises registered below this line.

# The chapter's tiny Llama scaled up, for the FLOP counter of exercises 6.1 and 6.2.
_SMALL_LLAMA = m.ModelConfig(vocab_size=1000, hidden_size=256, num_layers=4, num_heads=8, num_kv_heads=2,
                             ffn_hidden_size=704, gated_ffn=True, norm="rmsnorm", name="small-llama")


def _counted_matmul_flops_per_token(cfg):
    """What FlopCounterMode counts per token of a forward pass with fused attention on the CPU: 2 FLOPs per weight
    of a matrix product. The norm scales, in flops_params's N, multiply elementwise and are not counted."""
    return cp.forward_flops_per_token(cp.flops_params(cfg) - m.count_params(cfg)["norms"])


def _scores_bytes(cfg, micro_batch, seq_len):
    """What the attention scores add to one layer's activations when attention is not fused."""
    return (mem.model_layer_activation_bytes(cfg, micro_batch, seq_len, flash=False)
            - mem.model_layer_activation_bytes(cfg, micro_batch, seq_len, flash=True))


def _checkpointed_bytes(cfg, micro_batch, seq_len):
    """Activations kept when the forward pass ends with every layer checkpointed: each layer's input and the output
    layer (during the backward pass one recomputed layer comes on top, as activations_per_gpu counts)."""
    return (cfg.num_layers * mem.model_layer_activation_bytes(cfg, micro_batch, seq_len, recompute="full")
            + mem.output_activation_bytes(seq_len, micro_batch, cfg.hidden_size, cfg.vocab_size))


register(
    Exercise(
        "6.1",
        "A Llama-style model: 4 layers of hidden size 256, 8 query and 2 key/value heads of width 32, a SwiGLU FFN "
        "of width 704, RMSNorm, a 1,000-token vocabulary, untied head. FlopCounterMode counts one forward pass "
        "(with the loss) of 2 sequences of 256 tokens on the CPU, with PyTorch's fused attention (SDPA). How many "
        "FLOPs does it report?",
        lambda: _counted_matmul_flops_per_token(_SMALL_LLAMA) * 2 * 256, unit="FLOPs", rel_tol=0.02,
        hints=("2 FLOPs per weight per token, for the weights of matrix products: Q, K, V, O, the three FFN "
               "matrices, and the output head; the input embedding is a lookup.",
               "On the CPU the counter has no formula for the fused attention kernel: nothing for the scores.",
               "Or measure it: measure.count_flops(measure.build_model(config), measure.token_batch(...)).")),
    Exercise(
        "6.2",
        "The same model and batch with eager attention: how many FLOPs does the counter report for the whole "
        "training step, forward and backward?",
        lambda: (3 * _counted_matmul_flops_per_token(_SMALL_LLAMA) * 2 * 256
                 + cp.attention_flops_per_token(4, 8, 32, 256) * 2 * 256), unit="FLOPs", rel_tol=0.02,
        hints=("The backward pass counts twice the forward: 6 FLOPs per weight per token in all.",
               "Eager attention adds the scores and their product with V, over the full 256 × 256: "
               "12·L·H·Q·T per token (PaLM's count), forward and backward together.")),
    Exercise(
        "6.3",
        "Llama-3-8B (count its real parameters) trained Megatron-style: bf16 weights, an fp32 master copy, "
        "gradients kept in fp32, AdamW with fp32 moments. How many GB (10⁹ bytes) of training states, before any "
        "activations?",
        lambda: m.count_params(m.preset("llama-3-8b")).total * mem.state_bytes_per_param("megatron-bf16").total,
        unit="bytes", rel_tol=0.03,
        hints=("Per parameter: 2 (bf16 weights) + 4 (master) + 4 (fp32 gradients) + 4 + 4 (m and v).",
               f"Llama-3-8B has {format_count(m.count_params(m.preset('llama-3-8b')).total)} parameters (its "
               "128,256-token vocabulary makes the embeddings large).")),
    Exercise(
        "6.4",
        "By chapter 2's formula, how many GB (10⁹ bytes) do the attention scores (the softmax output, one 16-bit "
        "value per head, query and key; Llama has no dropout) add to one layer of Llama-2-7B (32 heads) for one "
        "sequence of 8,192 tokens, when attention is not fused (no FlashAttention)?",
        lambda: _scores_bytes(m.preset("llama-2-7b"), 1, 8192), unit="bytes", rel_tol=0.03,
        hints=("The softmax output: one value per head, query and key, a·s²·b values, in 16 bits.",
               "Measured with transformers' eager attention it is more: the softmax is also kept in fp32.")),
    Exercise(
        "6.5",
        "Llama-2-7B (32 layers, hidden 4,096, vocabulary 32,000) trains on micro-batches of 2 sequences of 4,096 "
        "tokens with activation checkpointing of every layer. By chapter 2's formula, how many GB (10⁹ bytes) of "
        "activations are kept when the forward pass ends: each layer's input plus the output layer?",
        lambda: _checkpointed_bytes(m.preset("llama-2-7b"), 2, 4096), unit="bytes", rel_tol=0.03,
        hints=("Each checkpointed layer keeps only its input: s·b·h values in 16 bits.",
               "The output layer keeps the final norm's and the head's inputs (2 bytes each) and the logits in "
               "fp32 for the loss: 4·s·b·h + 4·s·b·V bytes.")),
)
