"""Readers of hybrid model types, whose layers do not all have attention: linear attention (Qwen3-Next, Kimi
Linear), short convolutions (LFM2) and Mamba (Nemotron-H, Jamba, Falcon-H1, Granite 4.0-H, Bamba), each mirroring
what transformers builds for that type (its ``modeling_*.py``), as ``hf_build`` does for the others.

Each reads which layers have which block as transformers' config class does (``layer_types``, a pattern string, a
period and offset, a list of indices) and returns how many layers have each: ``mixer_layers`` (the other mixer,
whose kind and shape ``mixer`` gives), ``attention_layers``, ``ffn_layers`` and ``moe_layers``.
"""

from __future__ import annotations

from .hf_fields import _bias
from ...core._validate import InputError, quote
from ...core.i18n import _

# transformers' newer names for a layer's kind, and the older ones it still reads (configuration_utils'
# _LEGACY_LAYER_TYPE_REMAP): "mamba" is a linear-attention layer, "attention" a full-attention one.
_LEGACY = {"mamba": "linear_attention", "attention": "full_attention"}
_NEMOTRON_PATTERN = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}


def _layer_types(f, key: str, layers: int | None, allowed: tuple, default) -> list:
    """The kind of each layer: ``key``'s list (legacy names mapped), else ``default`` (a list)."""
    types = f.str_list(key)
    if types is None:
        return default
    types = [_LEGACY.get(t, t) for t in types]
    if layers is not None and len(types) != layers:
        raise InputError(key, _("config.json: '{key}' has {count} entries, must have one per layer ({layers}).")
                         .format(key=key, count=len(types), layers=layers))
    wrong = next((t for t in types if t not in allowed), None)
    if wrong is not None:
        raise InputError(key, _("config.json: '{key}' lists {value}, must list only {allowed}.").format(
            key=key, value=quote(wrong), allowed=", ".join(allowed)))
    return types


def _number(f, key: str, default: float) -> float:
    value = f.config.get(key, default)
    value = default if value is None else value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InputError(key, _("config.json: '{key}' == {value}, must be a number > 0.").format(
            key=key, value=quote(value)))
    return value


def _split(types: list, mixer_kind: str = "linear_attention") -> dict:
    return dict(mixer_layers=types.count(mixer_kind), attention_layers=types.count("full_attention"))


def _qwen3_next(f):
    """Qwen3-Next: gated DeltaNet on three layers in four, gated attention (queries twice as wide) on the fourth;
    Qwen-style MoE with a gated shared expert."""
    fields = dict(f.llama_style(), num_kv_heads=f.size("num_key_value_heads", 2), head_dim=f.size("head_dim", 256),
                  attention_bias=_bias(f.flag("attention_bias", False)), qk_norm=True, qk_norm_per_head=True,
                  attention_gate=True)
    layers = fields["num_layers"]
    interval = f.size("full_attention_interval", 4)
    types = _layer_types(f, "layer_types", layers, ("linear_attention", "full_attention"),
                         ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(layers)])
    mixer = dict(kind="gated_deltanet", linear_num_key_heads=f.size("linear_num_key_heads", 16),
                 linear_key_head_dim=f.size("linear_key_head_dim", 128),
                 linear_num_value_heads=f.size("linear_num_value_heads", 32),
                 linear_value_head_dim=f.size("linear_value_head_dim", 128),
                 linear_conv_kernel_dim=f.size("linear_conv_kernel_dim", 4))
    fields = dict(fields, mixer=mixer, **_split(types))
    return f.qwen_moe(fields, f.size("num_experts", 0, minimum=0))


def _kimi_linear(f):
    """Kimi Linear: Kimi Delta Attention on most layers, multi-head latent attention on the others (their indices
    1-based in ``linear_attn_config``); DeepSeek-style MoE after ``first_k_dense_replace`` dense layers."""
    nope, rope = f.size("qk_nope_head_dim", 128), f.size("qk_rope_head_dim", 64)
    fields = dict(f.common(tie_default=False), ffn_hidden_size=f.size("intermediate_size"), gated_ffn=True,
                  norm="rmsnorm", head_dim=nope + rope, kv_lora_rank=f.size("kv_lora_rank", 512),
                  q_lora_rank=f.size("q_lora_rank", None), qk_rope_head_dim=rope,
                  v_head_dim=f.size("v_head_dim", 128), attention_bias=_bias(f.flag("attention_bias", False)))
    layers = fields["num_layers"]
    linear = f.config.get("linear_attn_config") or {}
    if not isinstance(linear, dict):
        raise InputError("linear_attn_config", _("config.json: 'linear_attn_config' == {value}, must be an object.")
                         .format(value=quote(linear)))
    default = ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(layers)]
    if "full_attn_layers" in linear and "kda_layers" in linear:
        inner = type(f)(linear, f.model_type)
        full = {i - 1 for i in inner.int_list("full_attn_layers")}
        default = ["full_attention" if i in full else "linear_attention" for i in range(layers)]
    types = _layer_types(f, "layer_types", layers, ("linear_attention", "full_attention"), default)
    inner = type(f)(dict(linear, **{k: f.config[k] for k in ("linear_num_heads", "linear_head_dim",
                                                            "linear_conv_kernel_dim") if k in f.config}),
                    f.model_type)
    mixer = dict(kind="kimi_delta", linear_num_heads=inner.size(("linear_num_heads", "num_heads"), 32),
                 linear_head_dim=inner.size(("linear_head_dim", "head_dim"), 128),
                 linear_conv_kernel_dim=inner.size(("linear_conv_kernel_dim", "short_conv_kernel_size"), 4))
    fields = dict(fields, mixer=mixer, **_split(types))
    dense = f.size("first_k_dense_replace", 1, minimum=0)
    mlp = _layer_types(f, "mlp_layer_types", layers, ("dense", "sparse"),
                       ["dense" if i < dense else "sparse" for i in range(layers)])
    experts = f.size(("num_experts", "num_local_experts"), 256, minimum=0)
    if experts == 0 or mlp.count("sparse") == 0:
        return fields
    shared = f.size(("num_shared_experts", "n_shared_experts"), 1, minimum=0)
    width = f.size("moe_intermediate_size")
    return dict(fields, num_experts=experts, experts_per_token=f.size(("num_experts_per_token", "num_experts_per_tok")),
                expert_ffn_hidden_size=width, num_shared_experts=shared,
                shared_expert_ffn_hidden_size=width if shared else None, moe_layers=mlp.count("sparse"))


def _lfm2(f):
    """LFM2: gated short convolutions on most layers, attention with per-head QK norms on the others; the SwiGLU
    width adjusted as transformers' Lfm2MLP does (2/3, times a multiplier, rounded up to a multiple)."""
    layers = f.size("num_hidden_layers")
    width = f.size(("block_ff_dim", "intermediate_size"))
    if f.flag("block_auto_adjust_ff_dim", True):
        width = int(2 * width / 3)
        multiplier = f.config.get("block_ffn_dim_multiplier", 1.0)
        if multiplier is not None:
            width = int(_number(f, "block_ffn_dim_multiplier", 1.0) * width)
            multiple = f.size("block_multiple_of", 256)
            width = multiple * ((width + multiple - 1) // multiple)
    full = f.int_list("full_attn_idxs") if f.config.get("full_attn_idxs") is not None else list(range(layers))
    types = _layer_types(f, "layer_types", layers, ("full_attention", "conv"),
                         ["full_attention" if i in full else "conv" for i in range(layers)])
    tie = f.flag("tie_embedding", True) if "tie_embedding" in f.config else f.flag("tie_word_embeddings", True)
    return dict(vocab_size=f.size("vocab_size"), hidden_size=f.size("hidden_size"), num_layers=layers,
                num_heads=f.size("num_attention_heads"), num_kv_heads=f.size("num_key_value_heads", 8),
                ffn_hidden_size=width, gated_ffn=True, norm="rmsnorm", tie_embeddings=tie, qk_norm=True,
                qk_norm_per_head=True, mixer=dict(kind="short_conv", conv_L_cache=f.size("conv_L_cache", 3),
                                                  conv_bias=f.flag("conv_bias", False)),
                **_split(types, "conv"))


def _mamba2(heads, d_head, groups, state, conv, **flags) -> dict:
    return dict(kind="mamba2", mamba_n_heads=heads, mamba_d_head=d_head, mamba_n_groups=groups, mamba_d_state=state,
                mamba_d_conv=conv, **flags)


def _nemotron_h(f):
    """Nemotron-H: each block one of Mamba-2, attention, a squared-ReLU MLP or a MoE of such experts (with one shared
    expert), after one norm. The multi-token-prediction layers are not built by transformers, so not counted."""
    if f.config.get("moe_latent_size") is not None:
        raise InputError("moe_latent_size", _("config.json: 'moe_latent_size' == {value}: experts working in a latent "
                                              "space are not counted yet.").format(
            value=quote(f.config["moe_latent_size"])))
    pattern = f.config.get("hybrid_override_pattern")
    if f.config.get("layers_block_type") is None and isinstance(pattern, str):
        if any(c not in _NEMOTRON_PATTERN for c in pattern) or not pattern:
            raise InputError("hybrid_override_pattern", _("config.json: 'hybrid_override_pattern' == {value}, must "
                                                          "be made of M, *, - and E.").format(value=quote(pattern)))
        types = [_NEMOTRON_PATTERN[c] for c in pattern]
    else:
        types = _layer_types(f, "layers_block_type", None, tuple(_NEMOTRON_PATTERN.values()),
                             ["linear_attention", "moe", "full_attention", "mlp"])
    bias = f.flag("mlp_bias", False)
    moe = types.count("moe")
    if moe and bias:
        raise InputError("mlp_bias", _("config.json: 'mlp_bias' == true with MoE blocks: transformers' experts have "
                                       "no biases where its MLPs do, which this count does not separate."))
    proj_bias = f.flag("use_bias", False)
    fields = dict(vocab_size=f.size("vocab_size"), hidden_size=f.size("hidden_size"), num_layers=len(types),
                  num_heads=f.size("num_attention_heads"), num_kv_heads=f.size("num_key_value_heads", None),
                  head_dim=f.size("head_dim", None), ffn_hidden_size=f.size("intermediate_size"), ffn_bias=bias,
                  norm="rmsnorm", norms_per_layer=1, tie_embeddings=f.flag("tie_word_embeddings", False),
                  mixer=_mamba2(f.size("mamba_num_heads"), f.size("mamba_head_dim"),
                                f.size(("n_groups", "mamba_n_groups"), 8), f.size("ssm_state_size"),
                                f.size(("conv_kernel", "mamba_d_conv"), 4),
                                conv_bias=f.flag(("use_conv_bias", "mamba_conv_bias"), True), in_bias=proj_bias,
                                out_bias=proj_bias),
                  ffn_layers=types.count("mlp") + moe, **_split(types))
    if not moe:
        return fields
    return dict(fields, num_experts=f.size(("n_routed_experts", "num_local_experts")),
                experts_per_token=f.size("num_experts_per_tok"), expert_ffn_hidden_size=f.size("moe_intermediate_size"),
                num_shared_experts=1, shared_expert_ffn_hidden_size=f.size("moe_shared_expert_intermediate_size"),
                moe_layers=moe)


def _jamba(f):
    """Jamba: Mamba on seven layers in eight, attention on the other (``attn_layer_period``/``offset``); a MoE on
    every other layer (``expert_layer_period``/``offset``)."""
    fields = dict(f.llama_style(), num_kv_heads=f.size("num_key_value_heads", 8))
    hidden, layers = fields["hidden_size"], fields["num_layers"]
    period, offset = f.size("attn_layer_period", 8), f.size("attn_layer_offset", 4, minimum=0)
    attention = sum(1 for i in range(layers) if i % period == offset)
    rank = f.config.get("mamba_dt_rank", "auto")
    rank = -(-hidden // 16) if rank == "auto" else f.size("mamba_dt_rank")
    fields = dict(fields, attention_layers=attention, mixer_layers=layers - attention,
                  mixer=dict(kind="mamba1", mamba_d_inner=f.size("mamba_expand", 2) * hidden,
                             mamba_d_state=f.size("mamba_d_state", 16), mamba_dt_rank=rank,
                             mamba_d_conv=f.size("mamba_d_conv", 4), conv_bias=f.flag("mamba_conv_bias", True),
                             proj_bias=f.flag("mamba_proj_bias", False), inner_norms=True))
    experts = f.size(("num_experts", "num_local_experts"), 16)
    period, offset = f.size("expert_layer_period", 2), f.size("expert_layer_offset", 1, minimum=0)
    moe_layers = sum(1 for i in range(layers) if i % period == offset)
    if experts == 1 or moe_layers == 0:
        return fields
    return dict(fields, num_experts=experts, experts_per_token=f.size("num_experts_per_tok"), moe_layers=moe_layers)


def _mamba_inner(f, hidden: int, inner_key: str | None = None) -> tuple:
    """Mamba-2's heads and head width: ``mamba_d_head`` may be "auto", the inner width (``mamba_d_ssm`` for
    Falcon-H1, else ``mamba_expand``·H) over the heads."""
    heads = f.size("mamba_n_heads", 128)
    inner = f.size(inner_key, None) if inner_key else None
    inner = f.size("mamba_expand", 2) * hidden if inner is None else inner
    d_head = f.config.get("mamba_d_head", "auto")
    d_head = inner // heads if d_head in ("auto", None) else f.size("mamba_d_head")
    if heads * d_head != inner:
        raise InputError("mamba_d_head", _("config.json: 'mamba_n_heads' × 'mamba_d_head' == {product}, must equal "
                                           "the Mamba inner width {inner}, as transformers checks.").format(
            product=heads * d_head, inner=inner))
    return heads, d_head


def _falcon_h1(f):
    """Falcon-H1: attention and Mamba-2 side by side in every layer, then a SwiGLU MLP."""
    fields = dict(f.llama_style(), num_kv_heads=f.size("num_key_value_heads", 8),
                  attention_bias=_bias(f.flag("attention_bias", False)), ffn_bias=f.flag("mlp_bias", False))
    heads, d_head = _mamba_inner(f, fields["hidden_size"], "mamba_d_ssm")
    layers = fields["num_layers"]
    return dict(fields, attention_layers=layers, mixer_layers=layers,
                mixer=_mamba2(heads, d_head, f.size("mamba_n_groups", 1), f.size("mamba_d_state", 256),
                              f.size("mamba_d_conv", 4), conv_bias=f.flag("mamba_conv_bias", True),
                              in_bias=f.flag("mamba_proj_bias", False), out_bias=f.flag("projectors_bias", False),
                              gated_norm=f.flag("mamba_rms_norm", False)))


def _mamba2_of(f, hidden: int) -> dict:
    """Bamba's and Granite 4.0-H's Mamba-2 (gated norm, one bias flag for both projections)."""
    heads, d_head = _mamba_inner(f, hidden)
    bias = f.flag("mamba_proj_bias", False)
    return _mamba2(heads, d_head, f.size("mamba_n_groups", 1), f.size("mamba_d_state", 256),
                   f.size("mamba_d_conv", 4), conv_bias=f.flag("mamba_conv_bias", True), in_bias=bias, out_bias=bias)


def _bamba(f):
    """Bamba: Mamba-2 on every layer but those ``attn_layer_indices`` lists; a SwiGLU MLP on every layer."""
    fields = dict(f.llama_style(), num_kv_heads=f.size("num_key_value_heads", 8),
                  attention_bias=_bias(f.flag("attention_bias", False)), ffn_bias=f.flag("mlp_bias", False))
    layers = fields["num_layers"]
    attention = len({i for i in f.int_list("attn_layer_indices") if 0 <= i < layers})
    return dict(fields, attention_layers=attention, mixer_layers=layers - attention,
                mixer=_mamba2_of(f, fields["hidden_size"]))


def _granitemoehybrid(f):
    """Granite 4.0-H: Mamba-2 or attention per ``layer_types``; a MoE (if any experts) beside a shared SwiGLU MLP
    of ``shared_intermediate_size`` on every layer (that MLP is the FFN when there are no experts)."""
    fields = dict(f.common(tie_default=False), num_kv_heads=f.size("num_key_value_heads", None), gated_ffn=True,
                  norm="rmsnorm", attention_bias=_bias(f.flag("attention_bias", False)),
                  ffn_hidden_size=f.size("shared_intermediate_size", 1024))
    layers = fields["num_layers"]
    types = _layer_types(f, "layer_types", layers, ("linear_attention", "full_attention"),
                         ["linear_attention"] * layers)
    fields = dict(fields, mixer=_mamba2_of(f, fields["hidden_size"]), **_split(types))
    experts = f.size("num_local_experts", 8, minimum=0)
    if experts == 0:
        return fields
    return dict(fields, num_experts=experts, experts_per_token=f.size("num_experts_per_tok", 2),
                expert_ffn_hidden_size=f.size("intermediate_size"), num_shared_experts=1,
                shared_expert_ffn_hidden_size=fields["ffn_hidden_size"])


HYBRID_READERS = {
    "qwen3_next": _qwen3_next, "kimi_linear": _kimi_linear, "lfm2": _lfm2, "nemotron_h": _nemotron_h,
    "jamba": _jamba, "falcon_h1": _falcon_h1, "bamba": _bamba, "granitemoehybrid": _granitemoehybrid,
}
