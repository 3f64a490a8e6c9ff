"""Chapter 2's exercises (memory): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import memory as mem
from ...formulas import model as m
from ... import plans
from ..grading import Exercise
from ...core.i18n import N_
from ...core.units import format_count
from .registry import KEPT_FREE, USABLE, register


# The parts of GRPO's memory a learner adds by hand (plan_memory's "grpo" task): the policy's states, the reference's
# weights, the engine's weights and its KV cache; activations, ZeRO's buffers and the runtime left out.
_GRPO_PARTS = ("weights", "master", "gradients", "optimizer", "reference", "rollout", "kv_cache")


def _grpo_models_bytes() -> float:
    b = plans.grpo_memory("llama-3-8b", dp=8, prompts=2, group=16, seq_len=4096)
    return sum(b.parts[part] for part in _GRPO_PARTS)


register(
    Exercise(
        "2.1",
        N_("The material's exercise 1: full training of a 7B with mixed-precision AdamW (16 bytes per parameter) and "
        "about 50 GB of activations, spread evenly over the GPUs. With ZeRO-2 on A100 80GB GPUs, keeping {kept_free} "
        "of each free, how many GPUs are needed?"),
        lambda: plans.zero_gpus(7e9, "A100 80GB", zero=2, activations_shared_bytes=50e9), unit="GPUs", rel_tol=0,
        hints=(N_("ZeRO-2 shards gradients and optimizer states (with the master copy) but not the weights."),
               N_("Per GPU: 2·N + (2 + 4 + 8)·N / n + 50 GB / n must stay under {usable} ({share} of {memory}).")),
        values={"kept_free": KEPT_FREE, **USABLE["A100 80GB"]}),
    Exercise(
        "2.2",
        N_("The material's exercise 2: QLoRA of Llama-2-70B (hidden 8,192, 64 query and 8 KV heads of width 128, FFN "
        "width 28,672, 80 layers) with rank-64 adapters on all seven projections (q, k, v, o, gate, up, down). "
        "How many adapter parameters?"),
        lambda: mem.lora_params("llama-2-70b", 64, mem.LORA_TARGETS), rel_tol=0.02,
        hints=(N_("An adapter on a rows × cols matrix holds r·(rows + cols) parameters."),
               N_("k_proj and v_proj map 8,192 to 8 · 128 = 1,024; gate, up and down involve 28,672."),
               N_("Sum the seven per layer, then multiply by 80."))),
    Exercise(
        "2.3",
        N_("The material's exercise 3: serving Llama-2-70B in BF16 (count its real parameters, 80 layers, 8 KV heads "
        "of width 128) to 32 requests of 2,048 tokens. Keeping {kept_free} of each A100 80GB free, and with tensor "
        "parallelism that must divide its 64 heads, how many A100s?"),
        lambda: plans.plan_memory("inference", "llama-2-70b", gpu="A100 80GB", seq_len=2048, batch=32).least,
        unit="GPUs", rel_tol=0,
        hints=(N_("KV cache: 2 · layers · KV heads · head width · 2 bytes · tokens · requests, with 8 KV heads."),
               N_("Add the weights (2 bytes per parameter) and about 0.5 GB of runtime per GPU; each A100 may use "
               "{usable} ({share} of {memory})."),
               N_("Round up to a count that divides 64.")),
        values={"kept_free": KEPT_FREE, **USABLE["A100 80GB"]}),
    Exercise(
        "2.4",
        N_("A 13B model trains with mixed-precision AdamW under ZeRO-2 on 4 GPUs. How many GB (10⁹ bytes) of training "
        "states does each GPU hold (weights, master copy, gradients, optimizer)?"),
        lambda: sum(mem.sharded_state_bytes(13e9, mem.state_bytes_per_param("mixed"), zero=2, dp=4).values()),
        unit="bytes", rel_tol=0.05,
        hints=(N_("ZeRO-2 keeps a full copy of the 2-byte weights on every GPU."),
               N_("The other 14 bytes per parameter are split four ways."))),
    Exercise(
        "2.5",
        N_("Llama-2-13B (40 layers, hidden 5,120, 40 heads) trains on micro-batches of 2 sequences of 4,096 tokens "
        "with FlashAttention and no recomputation. Counting the tensors transformers' Llama layer saves (SwiGLU "
        "width 13,824, no dropout, RMSNorms computed in fp32), how many GB (10⁹ bytes) of activations do its 40 "
        "layers keep? Leave out the output layer."),
        lambda: 40 * mem.model_layer_activation_bytes(m.preset("llama-2-13b"), 2, 4096, flash=True), unit="bytes",
        rel_tol=0.05,
        hints=(N_("Each of the 2 RMSNorms keeps its input in fp32 (4 bytes a value), its normalised input in bf16 (2) "
               "and 1/rms in fp32 (4 bytes a token). In 16 bits: the QKV input, Q, K, V, the attention output, the "
               "FFN input (each s·b·h values), and the gate, up, activation and product (each s·b·F values)."),
               N_("That is s·b·(12·h + 8 + 8·h + 4·h + 8·F) bytes with multi-head attention; FlashAttention keeps no "
               "scores."))),
    Exercise(
        "2.6",
        N_("Qwen2-7B (28 layers, 4 KV heads of width 128) serves 16 requests of 8,192 tokens each with a BF16 KV "
        "cache. How many GB (10⁹ bytes) does the cache take?"),
        lambda: mem.kv_cache_bytes_for("qwen2-7b", 8192, 16), unit="bytes", rel_tol=0.05,
        hints=(N_("2 (K and V) · layers · KV heads · head width · 2 bytes per token."),
               N_("Multiply the bytes per token by 16 · 8,192 tokens; a GB is 10⁹ bytes, not 2³⁰."))),
    Exercise(
        "2.7",
        N_("A 34B model with mixed-precision AdamW, states sharded evenly over H100 80GB GPUs (ZeRO-3), {kept_free} of "
        "each kept free: how many GPUs just for the states, before activations?"),
        lambda: plans.state_gpus(34e9, 16, "H100 SXM", margin=mem.MEMORY_MARGIN), unit="GPUs", rel_tol=0,
        hints=(N_("16 bytes per parameter."),
               N_("Divide by {usable} ({share} of {memory}) usable per GPU and round up.")),
        values={"kept_free": KEPT_FREE, **USABLE["H100 SXM"]}),
    Exercise(
        "2.8",
        N_("gpt-oss-120b: 36 layers, 8 KV heads of width 64; every other layer attends to a sliding window of 128 "
        "tokens, the rest to the whole context. How many GB (10⁹ bytes) of BF16 KV cache does one request of "
        "131,072 tokens hold?"),
        lambda: mem.kv_cache_bytes_for("gpt-oss-120b", 131072), unit="bytes", rel_tol=0.05,
        hints=(N_("A full layer keeps K and V of every token: 2 · 8 · 64 · 2 bytes a token."),
               N_("A window layer keeps at most the window less one token: 127 earlier tokens, the new one "
                  "making 128."),
               N_("18 full layers hold nearly all of it."))),
    Exercise(
        "2.9",
        N_("GRPO of Llama 3 8B ({n} parameters; 32 layers, 8 KV heads of width 128) on 8 H100s at ZeRO-3 with "
        "mixed-precision AdamW, every model on the same GPUs: each GPU keeps its share of the trained policy's "
        "states and of the frozen reference's BF16 weights, and an inference engine with a whole BF16 copy of the "
        "weights and the KV cache of the 2 prompts × 16 answers it generates, 4,096 tokens each. Leaving out "
        "activations, ZeRO's buffers and the runtime, how many GB does each GPU hold for these models?"),
        lambda: _grpo_models_bytes(), unit="bytes", rel_tol=0.05,
        values={"n": format_count(m.count_params(m.preset("llama-3-8b")).total)},
        hints=(N_("The policy keeps 16 bytes a parameter and the reference 2, both divided by the 8 GPUs at ZeRO-3."),
               N_("The engine's weights are not sharded: 2 bytes a parameter on every GPU."),
               N_("KV cache: 2 (K and V) · 32 layers · 8 KV heads · 128 · 2 bytes a token, for 32 sequences of "
                  "4,096 tokens."))),
)

