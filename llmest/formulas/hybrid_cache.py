"""The cache of a hybrid model: a KV cache on its attention layers, a constant state on the others.

A layer whose mixer is a linear attention, a Mamba layer or a short convolution keeps, whatever the context's
length, two things per sequence:
- a recurrent state: gated DeltaNet keeps value heads × key width × value width (one key-by-value matrix a head),
  Kimi Delta Attention heads × width × width, Mamba-2 heads × head width × state size, Mamba-1 inner width ×
  state size; a short convolution keeps none;
- a convolution state: the last inputs of its depthwise convolution, channels × taps. The channels are what the
  convolution runs over (gated DeltaNet: q, k and v, 2·key heads·key width + value heads·value width; Kimi: 3·heads
  ·width; Mamba-2: inner width + 2·groups·state; Mamba-1: inner width; LFM2: H). transformers keeps as many inputs
  as the kernel has taps (its LinearAttentionLayer's conv_states: channels × kernel); K − 1 would do, since the
  newest input arrives with the token, so a server may keep one fewer.
The attention layers keep their KV cache (llmest.formulas.kv_cache), growing with the context; so a hybrid's
cache is kv_cache_bytes_for (its attention layers only) plus batch × the layers' constant state, whose recurrent
part transformers keeps in FP32 even when the model runs in BF16.
"""

from __future__ import annotations

from ..core import _validate as v
from .kv_cache import BYTES_PER_VALUE, kv_cache_bytes_for, kv_cache_shards
from .mixers import Mixer
from .model import config_from
from .readers.config_file import sizes


@v.checked
def gated_deltanet_state(linear_num_key_heads, linear_key_head_dim, linear_num_value_heads, linear_value_head_dim,
                         linear_conv_kernel_dim):
    """Values one gated-DeltaNet layer keeps per sequence: nv·dk·dv + (2·nk·dk + nv·dv)·kernel."""
    nk, dk, nv = sizes(linear_num_key_heads=linear_num_key_heads, linear_key_head_dim=linear_key_head_dim,
                       linear_num_value_heads=linear_num_value_heads)
    dv, kernel = sizes(linear_value_head_dim=linear_value_head_dim, linear_conv_kernel_dim=linear_conv_kernel_dim)
    return nv * dk * dv + (2 * nk * dk + nv * dv) * kernel


@v.checked
def kimi_delta_state(linear_num_heads, linear_head_dim, linear_conv_kernel_dim):
    """Values one Kimi-Delta-Attention layer keeps per sequence: n·d·d + 3·n·d·kernel."""
    n, d, kernel = sizes(linear_num_heads=linear_num_heads, linear_head_dim=linear_head_dim,
                         linear_conv_kernel_dim=linear_conv_kernel_dim)
    return n * d * d + 3 * n * d * kernel


@v.checked
def mamba2_state(mamba_n_heads, mamba_d_head, mamba_n_groups, mamba_d_state, mamba_d_conv):
    """Values one Mamba-2 layer keeps per sequence: heads·head width·state + (inner + 2·groups·state)·kernel."""
    heads, d_head, groups = sizes(mamba_n_heads=mamba_n_heads, mamba_d_head=mamba_d_head,
                                  mamba_n_groups=mamba_n_groups)
    d_state, d_conv = sizes(mamba_d_state=mamba_d_state, mamba_d_conv=mamba_d_conv)
    return heads * d_head * d_state + (heads * d_head + 2 * groups * d_state) * d_conv


@v.checked
def mamba1_state(mamba_d_inner, mamba_d_state, mamba_d_conv):
    """Values one Mamba-1 layer keeps per sequence: inner·state + inner·kernel."""
    inner, d_state, d_conv = sizes(mamba_d_inner=mamba_d_inner, mamba_d_state=mamba_d_state, mamba_d_conv=mamba_d_conv)
    return inner * d_state + inner * d_conv


@v.checked
def short_conv_state(hidden, conv_L_cache):
    """Values one LFM2 short-convolution layer keeps per sequence: H·taps (no recurrent state)."""
    hidden, taps = sizes(hidden=hidden, conv_L_cache=conv_L_cache)
    return hidden * taps


@v.checked
def conv_state_channels(mixer, hidden):
    """The channels one layer's depthwise convolution runs over (and keeps its last inputs of)."""
    mixer = Mixer.from_value(mixer)
    shape = dict(mixer.shape)
    if mixer.kind == "gated_deltanet":
        return (2 * shape["linear_num_key_heads"] * shape["linear_key_head_dim"]
                + shape["linear_num_value_heads"] * shape["linear_value_head_dim"])
    if mixer.kind == "kimi_delta":
        return 3 * shape["linear_num_heads"] * shape["linear_head_dim"]
    if mixer.kind == "mamba2":
        return shape["mamba_n_heads"] * shape["mamba_d_head"] + 2 * shape["mamba_n_groups"] * shape["mamba_d_state"]
    if mixer.kind == "mamba1":
        return shape["mamba_d_inner"]
    return hidden


@v.checked
def mixer_state_values(mixer, hidden) -> tuple:
    """(recurrent, convolution): the values one layer with ``mixer`` (a llmest.formulas.mixers.Mixer) keeps per
    sequence, by its kind's formula; the convolution keeps the last ``taps`` inputs of its channels."""
    mixer = Mixer.from_value(mixer)
    shape = {name: value for name, value in mixer.shape if not isinstance(value, bool)}
    if mixer.kind == "gated_deltanet":
        total, taps = gated_deltanet_state(**shape), shape["linear_conv_kernel_dim"]
    elif mixer.kind == "kimi_delta":
        total, taps = kimi_delta_state(**shape), shape["linear_conv_kernel_dim"]
    elif mixer.kind == "mamba2":
        total, taps = mamba2_state(**shape), shape["mamba_d_conv"]
    elif mixer.kind == "mamba1":
        total, taps = mamba1_state(shape["mamba_d_inner"], shape["mamba_d_state"], shape["mamba_d_conv"]), \
            shape["mamba_d_conv"]
    else:
        total, taps = short_conv_state(hidden, shape["conv_L_cache"]), shape["conv_L_cache"]
    conv = conv_state_channels(mixer, hidden) * taps
    return total - conv, conv


@v.checked
def state_bytes_per_sequence(model, dtype="bf16", state_dtype="fp32"):
    """The constant state of a model's layers without attention, per sequence: mixer layers × (recurrent values ×
    bytes of ``state_dtype`` + convolution values × bytes of ``dtype``); 0 for a model without such layers.
    transformers' caches hold the recurrent state in FP32 even for a BF16 model, and the convolution window in the
    model's precision (tests/test_hf_hybrid.py runs each type so). Falcon-H1's layers have attention and Mamba both,
    so each keeps both."""
    cfg = config_from(model)
    size = v.lookup("dtype", dtype, BYTES_PER_VALUE)
    state_size = v.lookup("state_dtype", state_dtype, BYTES_PER_VALUE)
    if cfg.mixer is None:
        return 0
    recurrent, conv = mixer_state_values(cfg.mixer, cfg.hidden_size)
    return cfg.mixer_layers * (recurrent * state_size + conv * size)


@v.checked
def hybrid_cache_bytes_for(model, seq_len, batch=1, dtype="bf16", state_dtype="fp32"):
    """A model's whole cache for ``batch`` sequences of ``seq_len`` tokens: the KV cache of its attention layers
    (growing with seq_len) plus the constant state of its other layers."""
    return (kv_cache_bytes_for(model, seq_len, batch, dtype)
            + batch * state_bytes_per_sequence(model, dtype, state_dtype))


@v.checked
def cache_bytes_per_gpu(model, seq_len, batch=1, dtype="bf16", tp=1):
    """What one of ``tp`` tensor-parallel GPUs keeps of a model's cache: its share of the KV cache
    (``kv_cache_shards``: KV heads split whole, MLA's latent kept whole) plus 1/tp of the constant state, whose heads
    the GPUs split as they split the mixer's (the state in FP32, the convolution window in BF16, as transformers keeps
    them). The plans of serving and inference memory use it."""
    return (kv_cache_bytes_for(model, seq_len, batch, dtype) / kv_cache_shards(model, tp)
            + batch * state_bytes_per_sequence(model) / tp)
