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
              "norms": N_("norms"), "output_head": N_("output head"), "indexer": N_("sparse-attention indexer"),
              "mtp": N_("MTP modules"), "linear_attention": N_("linear attention"), "mamba": N_("Mamba"),
              "short_conv": N_("short convolution"), "grouped_output": N_("grouped output map"),
              "csa_compressor": N_("CSA compressors"), "hca_compressor": N_("HCA compressors"),
              "hash_router": N_("hash-routed router"), "hyper_connections": N_("hyper-connections")}
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


def attention_params(hidden, n_heads, n_kv_heads=None, head_dim=None, bias="none", output_gate=False):
    """Q, K, V and output projections. Q and the output have n_heads·head_dim columns, K and V n_kv_heads·head_dim
    each: multi-head (n_kv_heads = n_heads), grouped-query (fewer) or multi-query (one). ``output_gate``: the query
    map is twice as wide, its second half a sigmoid gate on each output channel (Qwen3-Next's gated attention)."""
    hidden, n_heads = sizes(hidden=hidden, n_heads=n_heads)
    n_kv_heads, = sizes(n_kv_heads=n_heads if n_kv_heads is None else n_kv_heads)
    head_dim, = sizes(head_dim=_default_head_dim(hidden, n_heads) if head_dim is None else head_dim)
    v.check_choice("bias", bias, ATTENTION_BIASES)
    q_width, kv_width = n_heads * head_dim, n_kv_heads * head_dim
    gate = q_width if v.check_bool("output_gate", output_gate) else 0
    weights = hidden * (q_width + gate) + 2 * hidden * kv_width + q_width * hidden
    biases = 0
    if bias in ("qkv", "all"):
        biases = biases + q_width + gate + 2 * kv_width
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


def indexer_params(hidden, q_lora_rank, index_heads, index_head_dim):
    """The indexer of DeepSeek sparse attention (V3.2), one a layer: queries up from the query latent
    (q_lora_rank -> index_heads·index_head_dim), one key from H (H -> index_head_dim) with a LayerNorm (weight and
    bias), and a weight per head from H (H -> index_heads). It scores the earlier tokens; attention reads only the
    top-k of them."""
    hidden, q_lora_rank = sizes(hidden=hidden, q_lora_rank=q_lora_rank)
    index_heads, index_head_dim = sizes(index_heads=index_heads, index_head_dim=index_head_dim)
    return (q_lora_rank * index_heads * index_head_dim + hidden * index_head_dim + 2 * index_head_dim
            + hidden * index_heads)


def mtp_module_params(hidden, layer, norm="rmsnorm"):
    """One multi-token-prediction module of DeepSeek-V3 (arXiv 2412.19437, section 2.2), without the token embedding
    and the output head, which it shares with the main model: a norm on the previous depth's hidden state and one on
    the next token's embedding, a projection of the two side by side (2H -> H), one full transformer layer of
    ``layer`` parameters, and the norm before the shared head (``shared_head.norm`` in the checkpoint)."""
    hidden, layer = sizes(hidden=hidden, layer=layer)
    return 2 * hidden * hidden + 3 * norm_params(hidden, norm) + layer


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


# Token mixers other than attention (hybrid models), each named by the config.json keys that size it.

def gated_deltanet_params(hidden, linear_num_key_heads, linear_key_head_dim, linear_num_value_heads,
                          linear_value_head_dim, linear_conv_kernel_dim):
    """Gated DeltaNet (Qwen3-Next's linear attention): H -> q, k (key heads·key width each), v and the output gate
    z (value heads·value width each), H -> a decay and a write strength per value head, a depthwise convolution over
    q, k and v, a decay rate and time-step bias per value head, one gated norm over a value head's width, and the
    output map back to H. No biases."""
    hidden, nk, dk = sizes(hidden=hidden, linear_num_key_heads=linear_num_key_heads,
                           linear_key_head_dim=linear_key_head_dim)
    nv, dv, kernel = sizes(linear_num_value_heads=linear_num_value_heads, linear_value_head_dim=linear_value_head_dim,
                           linear_conv_kernel_dim=linear_conv_kernel_dim)
    keys, values = nk * dk, nv * dv
    return (hidden * (2 * keys + 2 * values) + hidden * 2 * nv + (2 * keys + values) * kernel + 2 * nv + dv
            + values * hidden)


def kimi_delta_params(hidden, linear_num_heads, linear_head_dim, linear_conv_kernel_dim):
    """Kimi Delta Attention (Kimi Linear): q, k and v maps (heads·width each) and their depthwise convolution, a
    low-rank forget gate H -> width -> heads·width with a bias per channel and a decay per head, a write strength per
    head, a low-rank output gate, one gated norm over a head's width, and the output map. No biases."""
    hidden, n, d = sizes(hidden=hidden, linear_num_heads=linear_num_heads, linear_head_dim=linear_head_dim)
    kernel, = sizes(linear_conv_kernel_dim=linear_conv_kernel_dim)
    width = n * d
    qkv = 3 * hidden * width + 3 * width * kernel
    forget_gate = hidden * d + d * width + width + n
    return qkv + forget_gate + hidden * n + (hidden * d + d * width) + d + width * hidden


def mamba2_params(hidden, mamba_n_heads, mamba_d_head, mamba_n_groups, mamba_d_state, mamba_d_conv, conv_bias=True,
                  in_bias=False, out_bias=False, gated_norm=True):
    """A Mamba-2 mixer. Inner width d = heads·head width; the convolution runs over d + 2·groups·state channels
    (x, B, C). H -> z, x, B, C and a time step per head; a depthwise convolution of mamba_d_conv taps; A, D and a
    time-step bias per head; a gated norm over d (Falcon-H1 may leave it out); d -> H."""
    hidden, heads, d_head = sizes(hidden=hidden, mamba_n_heads=mamba_n_heads, mamba_d_head=mamba_d_head)
    groups, d_state, d_conv = sizes(mamba_n_groups=mamba_n_groups, mamba_d_state=mamba_d_state,
                                    mamba_d_conv=mamba_d_conv)
    inner = heads * d_head
    conv = inner + 2 * groups * d_state
    projection = inner + conv + heads
    in_proj = hidden * projection + (projection if v.check_bool("in_bias", in_bias) else 0)
    conv1d = conv * d_conv + (conv if v.check_bool("conv_bias", conv_bias) else 0)
    out_proj = inner * hidden + (hidden if v.check_bool("out_bias", out_bias) else 0)
    return in_proj + conv1d + 3 * heads + (inner if v.check_bool("gated_norm", gated_norm) else 0) + out_proj


def mamba1_params(hidden, mamba_d_inner, mamba_d_state, mamba_dt_rank, mamba_d_conv, conv_bias=True, proj_bias=False,
                  inner_norms=False):
    """A Mamba (selective SSM) mixer as Jamba builds it: H -> x and z (inner width each), a depthwise convolution,
    x -> a low-rank time step and B, C; the time step back up to the inner width (with a bias), A (inner·state) and D
    per channel, and the output map. ``inner_norms``: Jamba's norms over the time step, B and C."""
    hidden, inner, d_state = sizes(hidden=hidden, mamba_d_inner=mamba_d_inner, mamba_d_state=mamba_d_state)
    rank, d_conv = sizes(mamba_dt_rank=mamba_dt_rank, mamba_d_conv=mamba_d_conv)
    bias = v.check_bool("proj_bias", proj_bias)
    in_proj = hidden * 2 * inner + (2 * inner if bias else 0)
    conv1d = inner * d_conv + (inner if v.check_bool("conv_bias", conv_bias) else 0)
    selective = inner * (rank + 2 * d_state) + rank * inner + inner + inner * d_state + inner
    out_proj = inner * hidden + (hidden if bias else 0)
    norms = rank + 2 * d_state if v.check_bool("inner_norms", inner_norms) else 0
    return in_proj + conv1d + selective + out_proj + norms


def short_conv_params(hidden, conv_L_cache, conv_bias=False):
    """LFM2's gated short convolution: H -> three gates of H, a depthwise convolution of conv_L_cache taps over H
    channels, H -> H."""
    hidden, taps = sizes(hidden=hidden, conv_L_cache=conv_L_cache)
    bias = v.check_bool("conv_bias", conv_bias)
    return 3 * hidden * hidden + hidden * taps + hidden * hidden + (3 * hidden + hidden + hidden if bias else 0)


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
