"""Chapter 6's exercises (measure it yourself): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import compute as cp
from ...formulas import memory as mem
from ...formulas import model as m
from ..grading import Exercise
from ...core.i18n import N_
from ...core.units import format_count
from .registry import register


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
        N_("A Llama-style model: 4 layers of hidden size 256, 8 query and 2 key/value heads of width 32, a SwiGLU FFN "
        "of width 704, RMSNorm, a 1,000-token vocabulary, untied head. FlopCounterMode counts one forward pass "
        "(with the loss) of 2 sequences of 256 tokens on the CPU, with PyTorch's fused attention (SDPA). How many "
        "FLOPs does it report?"),
        lambda: _counted_matmul_flops_per_token(_SMALL_LLAMA) * 2 * 256, unit="FLOPs", rel_tol=0.02,
        hints=(N_("2 FLOPs per weight per token, for the weights of matrix products: Q, K, V, O, the three FFN "
               "matrices, and the output head; the input embedding is a lookup."),
               N_("On the CPU the counter has no formula for the fused attention kernel: nothing for the scores."),
               N_("Or measure it: measure.count_flops(measure.build_model(config), measure.token_batch(...))."))),
    Exercise(
        "6.2",
        N_("The same model and batch with eager attention: how many FLOPs does the counter report for the whole "
        "training step, forward and backward?"),
        lambda: (3 * _counted_matmul_flops_per_token(_SMALL_LLAMA) * 2 * 256
                 + cp.attention_flops_per_token(4, 8, 32, 256) * 2 * 256), unit="FLOPs", rel_tol=0.02,
        hints=(N_("The backward pass counts twice the forward: 6 FLOPs per weight per token in all."),
               N_("Eager attention adds the scores and their product with V, over the full 256 × 256: "
               "12·L·H·Q·T per token (PaLM's count), forward and backward together."))),
    Exercise(
        "6.3",
        N_("Llama-3-8B (count its real parameters) trained Megatron-style: bf16 weights, an fp32 master copy, "
        "gradients kept in fp32, AdamW with fp32 moments. How many GB (10⁹ bytes) of training states, before any "
        "activations?"),
        lambda: m.count_params(m.preset("llama-3-8b")).total * mem.state_bytes_per_param("megatron-bf16").total,
        unit="bytes", rel_tol=0.03,
        hints=(N_("Per parameter: 2 (bf16 weights) + 4 (master) + 4 (fp32 gradients) + 4 + 4 (m and v)."),
               N_("Llama-3-8B has {params} parameters (its 128,256-token vocabulary makes the embeddings large).")),
        values={"params": format_count(m.count_params(m.preset("llama-3-8b")).total)}),
    Exercise(
        "6.4",
        N_("By chapter 2's formula, how many GB (10⁹ bytes) do the attention scores (the softmax output, one 16-bit "
        "value per head, query and key; Llama has no dropout) add to one layer of Llama-2-7B (32 heads) for one "
        "sequence of 8,192 tokens, when attention is not fused (no FlashAttention)?"),
        lambda: _scores_bytes(m.preset("llama-2-7b"), 1, 8192), unit="bytes", rel_tol=0.03,
        hints=(N_("The softmax output: one value per head, query and key, a·s²·b values, in 16 bits."),
               N_("Measured with transformers' eager attention it is more: the softmax is also kept in fp32."))),
    Exercise(
        "6.5",
        N_("Llama-2-7B (32 layers, hidden 4,096, vocabulary 32,000) trains on micro-batches of 2 sequences of 4,096 "
        "tokens with activation checkpointing of every layer. By chapter 2's formula, how many GB (10⁹ bytes) of "
        "activations are kept when the forward pass ends: each layer's input plus the output layer?"),
        lambda: _checkpointed_bytes(m.preset("llama-2-7b"), 2, 4096), unit="bytes", rel_tol=0.03,
        hints=(N_("Each checkpointed layer keeps only its input: s·b·h values in 16 bits."),
               N_("The output layer keeps the final RMSNorm's input in fp32 (4 bytes), its normalised input and the "
               "head's input in bf16 (2 each), 1/rms in fp32 (4 bytes a token), and the logits in fp32 for the "
               "loss: 8·s·b·h + 4·s·b + 4·s·b·V bytes."))),
)
