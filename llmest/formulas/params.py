"""The formulas for parameter counts, one function a part of a decoder layer.

They use only + - * / (and a square root) and so work the same on plain numbers, NumPy arrays and SymPy symbols;
chapter 1 derives each of them from matrix shapes. llmest.formulas.model applies them to a validated ModelConfig.
"""

from __future__ import annotations

from ..core import _validate as v
from .readers.config_file import sizes
from ..core.i18n import N_

# Parameters per channel of one normalisation layer: LayerNorm has a weight and a bias, RMSNorm a weight.
# "layernorm_no_bias" is LayerNorm with its bias removed (MPT, Command R): a weight per channel, as RMSNorm has.
# A model's parts (ParamCount's keys) as a reader reads them: in the tables, the figures and the texts.
PART_NAMES = {"embeddings": N_("embeddings"), "positions": N_("positions"),
              "embedding_projections": N_("embedding projections"), "attention": N_("attention"), "ffn": N_("ffn"),
              "experts": N_("experts"), "shared_experts": N_("shared experts"), "router": N_("router"),
              "norms": N_("norms"), "output_head": N_("output head")}
NORM_PARAMS_PER_CHANNEL = {"layernorm": 2, "layernorm_no_bias": 1, "rmsnorm": 1, "nonparametric": 0}
ATTENTION_BIASES = ("none", "qkv", "all")  # biases on nothing, on Q/K/V only, or on Q/K/V and the output
POSITION_EMBEDDINGS = ("rotary", "learned", "alibi", "none")  # only a learned table holds parameters


def _default_head_dim(hidden, n_heads):
    if isinstance(hidden, int) and isinstance(n_heads, int):
        return hidden // n_heads
    return hidden / n_heads


def embedding_params(vocab_size, dim):
    """A lookup table of ``vocab_size`` rows of ``dim`` numbers (also the size of an untied output head)."""
    vocab_size, dim = sizes(vocab_size=vocab_size, dim=dim)
    return vocab_size * dim


def attention_params(hidden, n_heads, n_kv_heads=None, head_dim=None, bias="none"):
    """Q, K, V and output projections. Q and the output have n_heads·head_dim columns, K and V n_kv_heads·head_dim
    each: multi-head (n_kv_heads = n_heads), grouped-query (fewer) or multi-query (one)."""
    hidden, n_heads = sizes(hidden=hidden, n_heads=n_heads)
    n_kv_heads, = sizes(n_kv_heads=n_heads if n_kv_heads is None else n_kv_heads)
    head_dim, = sizes(head_dim=_default_head_dim(hidden, n_heads) if head_dim is None else head_dim)
    v.check_choice("bias", bias, ATTENTION_BIASES)
    q_width, kv_width = n_heads * head_dim, n_kv_heads * head_dim
    weights = hidden * q_width + 2 * hidden * kv_width + q_width * hidden
    biases = 0
    if bias in ("qkv", "all"):
        biases = biases + q_width + 2 * kv_width
    if bias == "all":
        biases = biases + hidden
    return weights + biases


def mla_attention_params(hidden, n_heads, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim,
                         q_lora_rank=None, bias=False):
    """Multi-head latent attention's matrices (DeepSeek-V2 and V3). Keys and values come up from one latent of
    kv_lora_rank channels shared by all heads: H -> kv_lora_rank + qk_rope_head_dim (the latent and one rotary key
    shared by the heads), then kv_lora_rank -> heads·(qk_nope_head_dim + v_head_dim). Queries are
    heads·(qk_nope_head_dim + qk_rope_head_dim) wide, straight from H or through a latent of q_lora_rank; the output
    maps heads·v_head_dim back to H. ``bias`` puts biases on the first query map (through a latent only), the KV
    down-projection and the output, as transformers does. The latents' own norms are norm_params(rank)."""
    hidden, n_heads, kv_lora_rank = sizes(hidden=hidden, n_heads=n_heads, kv_lora_rank=kv_lora_rank)
    qk_nope_head_dim, = sizes(qk_nope_head_dim=qk_nope_head_dim)
    qk_rope_head_dim, v_head_dim = sizes(qk_rope_head_dim=qk_rope_head_dim, v_head_dim=v_head_dim)
    v.check_bool("bias", bias)
    q_width = n_heads * (qk_nope_head_dim + qk_rope_head_dim)
    if q_lora_rank is None:
        query = hidden * q_width
    else:
        q_lora_rank, = sizes(q_lora_rank=q_lora_rank)
        query = hidden * q_lora_rank + q_lora_rank * q_width + (q_lora_rank if bias else 0)
    keys_values = (hidden * (kv_lora_rank + qk_rope_head_dim) + kv_lora_rank * n_heads * (qk_nope_head_dim + v_head_dim)
                   + ((kv_lora_rank + qk_rope_head_dim) if bias else 0))
    output = n_heads * v_head_dim * hidden + (hidden if bias else 0)
    return query + keys_values + output


def ffn_params(hidden, ffn_hidden, gated=False, bias=False):
    """Up and down projections (two matrices), plus a gate matrix when gated (SwiGLU, GeGLU: three)."""
    hidden, ffn_hidden = sizes(hidden=hidden, ffn_hidden=ffn_hidden)
    n_in = 2 if v.check_bool("gated", gated) else 1
    weights = (n_in + 1) * hidden * ffn_hidden
    return weights + (n_in * ffn_hidden + hidden if v.check_bool("bias", bias) else 0)


def norm_params(dim, norm="layernorm"):
    """One normalisation layer over ``dim`` channels."""
    dim, = sizes(dim=dim)
    v.check_choice("norm", norm, NORM_PARAMS_PER_CHANNEL)
    return NORM_PARAMS_PER_CHANNEL[norm] * dim


def router_params(hidden, num_experts):
    """The MoE router: one linear map from the hidden state to a score per expert (no bias in these models)."""
    hidden, num_experts = sizes(hidden=hidden, num_experts=num_experts)
    return hidden * num_experts


def layer_params(hidden, n_heads, n_kv_heads=None, head_dim=None, ffn_hidden=None, gated=False,
                 norm="layernorm", norms_per_layer=2):
    """One dense decoder layer without biases: attention + FFN + its normalisation layers."""
    hidden, = sizes(hidden=hidden)
    ffn_hidden = 4 * hidden if ffn_hidden is None else ffn_hidden
    if not v.is_symbolic(norms_per_layer):
        norms_per_layer = v.check_int("norms_per_layer", norms_per_layer, minimum=0, maximum=4)
    return (attention_params(hidden, n_heads, n_kv_heads, head_dim)
            + ffn_params(hidden, ffn_hidden, gated)
            + norms_per_layer * norm_params(hidden, norm))


def rule_layer_params(hidden):
    """The material's rule for one layer: 4H² of attention + 8H² of FFN = 12H² (small terms dropped)."""
    hidden, = sizes(hidden=hidden)
    return 12 * hidden**2


def rule_params(hidden, layers, vocab_size):
    """The material's rule for a whole dense model: L·12H² + V·H (one embedding table, tied head)."""
    hidden, layers, vocab_size = sizes(hidden=hidden, layers=layers, vocab_size=vocab_size)
    return layers * rule_layer_params(hidden) + embedding_params(vocab_size, hidden)


def rule_hidden_size(total_params, layers, vocab_size):
    """Reverse the rule: the positive root H of 12·L·H² + V·H − N = 0."""
    total_params, layers, vocab_size = sizes(total_params=total_params, layers=layers, vocab_size=vocab_size)
    discriminant = vocab_size**2 + 48 * layers * total_params
    # (√D − V) / 24L, written as 2N / (√D + V): the same root, without cancelling when V² dwarfs 48·L·N.
    return 2 * total_params / (_sqrt(discriminant) + vocab_size)


def _sqrt(x):
    if v.is_symbolic(x):
        import sympy  # only when the caller is already working in SymPy

        return sympy.sqrt(x)
    return x**0.5
