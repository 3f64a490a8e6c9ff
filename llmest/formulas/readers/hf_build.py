"""Hugging Face ``config.json`` -> the keyword arguments of ModelConfig, one reader per ``model_type``.

Each reader mirrors what transformers builds for that model type (its ``modeling_*.py``): which matrices carry
biases, how many norms a layer has, whether the output head is tied by default. Sizes are required; flags that
published configs often leave out take transformers' defaults for that model type.
"""

from __future__ import annotations

from .hf_fields import _bias, _Fields
from .hf_recent import RECENT_READERS
from .hf_2025 import READERS_2025, REFUSED_2025
from .hf_hybrid import HYBRID_READERS
from .hf_deepseek_v4 import READERS_V4
from ...core._validate import InputError, quote
from .config_file import load as _load
from ...core.i18n import _

def _llama(f):
    return dict(f.llama_style(), attention_bias=_bias(f.flag("attention_bias", False)),
                ffn_bias=f.flag("mlp_bias", False))


def _mistral(f):
    fields = f.llama_style(kv_required=True)
    return dict(fields, **f.window(fields["num_layers"]))  # Mistral-7B-v0.1: a 4,096-token window on every layer


def _mixtral(f):
    fields = f.llama_style(kv_required=True)
    return dict(fields, num_experts=f.size("num_local_experts"), experts_per_token=f.size("num_experts_per_tok"),
                **f.window(fields["num_layers"]))


def _qwen2(f):
    return dict(f.llama_style(), attention_bias="qkv")


def _qwen2_moe(f):
    fields = dict(f.llama_style(), attention_bias="qkv" if f.flag("qkv_bias", True) else "none")
    return f.qwen_moe(fields, f.size("num_experts", minimum=0))


def _gemma(f):
    fields = f.llama_style(tie_default=True, kv_required=True)
    return dict(fields, head_dim=f.size("head_dim"), attention_bias=_bias(f.flag("attention_bias", False)))


def _phi3(f):
    fields = f.llama_style()
    return dict(fields, **f.window(fields["num_layers"]))  # Phi-3-mini-4k: 2,047 tokens on every layer


def _olmo2(f):
    return dict(f.llama_style(), attention_bias=_bias(f.flag("attention_bias", False)), qk_norm=True)


def _gpt2(f):
    hidden = f.size(("n_embd", "hidden_size"))
    return dict(vocab_size=f.size("vocab_size"), hidden_size=hidden,
                num_layers=f.size(("n_layer", "num_hidden_layers")),
                num_heads=f.size(("n_head", "num_attention_heads")), ffn_hidden_size=f.size("n_inner", 4 * hidden),
                attention_bias="all", ffn_bias=True, tie_embeddings=f.flag("tie_word_embeddings", True),
                position_embedding="learned", max_positions=f.size(("n_positions", "max_position_embeddings")))


def _gpt_neox(f):
    return dict(f.common(tie_default=False), ffn_hidden_size=f.size("intermediate_size"),
                attention_bias=_bias(f.flag("attention_bias", True)), ffn_bias=True,
                parallel_blocks=f.flag("use_parallel_residual", True), norms_per_layer=2)


def _falcon(f):
    fields = dict(f.common(tie_default=True), hidden_size=f.size(("hidden_size", "n_embed")))
    heads = fields["num_heads"]
    new_architecture = f.flag("new_decoder_architecture", False)
    parallel = f.flag("parallel_attn", True)
    if new_architecture:
        kv_heads = f.size("num_kv_heads", heads)
    else:
        kv_heads = 1 if f.flag("multi_query", True) else heads
    norms_in_parallel = f.size("num_ln_in_parallel_attn", 2 if new_architecture else None)
    bias = f.flag("bias", False)
    return dict(fields, num_kv_heads=kv_heads, ffn_hidden_size=f.size("ffn_hidden_size", 4 * fields["hidden_size"]),
                attention_bias=_bias(bias), ffn_bias=bias, parallel_blocks=parallel,
                norms_per_layer=2 if (not parallel or norms_in_parallel == 2) else 1,
                position_embedding="alibi" if f.flag("alibi", False) else "rotary")


def _opt(f):
    bias = f.flag("enable_bias", True)
    return dict(f.common(tie_default=True), ffn_hidden_size=f.size("ffn_dim"), attention_bias=_bias(bias),
                ffn_bias=bias, position_embedding="learned",
                # OPT's learned position table has two extra rows (an offset kept from fairseq).
                max_positions=f.size("max_position_embeddings") + 2,
                embedding_dim=f.size("word_embed_proj_dim", None),
                norm="layernorm" if f.flag("layer_norm_elementwise_affine", True) else "nonparametric",
                final_norm=f.flag("do_layer_norm_before", True) and not f.flag("_remove_final_layer_norm", False))


READERS = {
    "llama": _llama, "mistral": _mistral, "mixtral": _mixtral, "qwen2": _qwen2, "qwen2_moe": _qwen2_moe,
    "gemma": _gemma, "phi3": _phi3, "olmo2": _olmo2, "gpt2": _gpt2, "gpt_neox": _gpt_neox, "falcon": _falcon,
    "opt": _opt, **RECENT_READERS, **READERS_2025, **HYBRID_READERS, **READERS_V4,
}


# ModelConfig's field names and the config.json keys they may be read from, so that an error found while building
# the config names the key the user wrote ("num_key_value_heads"), not the internal field ("num_kv_heads").
CONFIG_KEYS = {
    "vocab_size": ("vocab_size",), "hidden_size": ("hidden_size", "n_embd", "n_embed"),
    "num_layers": ("num_hidden_layers", "n_layer"), "num_heads": ("num_attention_heads", "n_head"),
    "num_kv_heads": ("num_key_value_heads", "num_kv_heads"), "head_dim": ("head_dim",),
    "ffn_hidden_size": ("intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size"),
    "num_experts": ("num_local_experts", "num_experts"), "experts_per_token": ("num_experts_per_tok",),
    "expert_ffn_hidden_size": ("moe_intermediate_size",),
    "shared_expert_ffn_hidden_size": ("shared_expert_intermediate_size",),
    "max_positions": ("max_position_embeddings", "n_positions"), "embedding_dim": ("word_embed_proj_dim",),
}


def _config_error(err: InputError, config) -> InputError:
    """``err``, raised by ModelConfig for a config read from config.json, with each field named by its config key."""
    config = _load(config)
    message, param = str(err), err.param
    for field, keys in CONFIG_KEYS.items():
        key = next((k for k in keys if k in config), None)
        if key is None or key == field:
            continue
        message = message.replace(f"'{field}'", f"'{key}'").replace(f"{field} ==", f"{key} ==")
        param = key if param == field else param
    if not message.startswith("config.json"):
        message = f"config.json: {message}"
    return InputError(param, message)


def hf_config_fields(config) -> dict:
    """ModelConfig's keyword arguments for a config (``ModelConfig.from_hf_config`` builds it)."""
    config = _load(config)
    model_type = config.get("model_type")
    if model_type is None:
        raise InputError("model_type", _("config.json: 'model_type' is missing; supported: {types}.").format(
            types=", ".join(READERS)))
    if not isinstance(model_type, str):
        raise InputError("model_type", _("config.json: 'model_type' == {value}, must be a string such as 'llama'.")
                         .format(value=quote(model_type)))
    if model_type in REFUSED_2025:
        raise InputError("model_type", _("config.json: 'model_type' == {value} is not supported: {why}.").format(
            value=quote(model_type), why=_(REFUSED_2025[model_type])))
    if model_type not in READERS:
        # No "did you mean": a model type with a similar name is another architecture (Phi-2's 'phi' is not 'phi3'),
        # and reading a config as its neighbour would count it silently wrong.
        raise InputError("model_type", _("config.json: 'model_type' == {value} is not supported; supported: {types}. "
                                         "A type with a similar name is a different architecture, so none is "
                                         "substituted.").format(value=quote(model_type), types=", ".join(READERS)))
    fields = READERS[model_type](_Fields(config, model_type))
    name = config.get("_name_or_path")
    return dict(fields, name=name if isinstance(name, str) and name else model_type)


def build_from_hf_config(model_config, config):
    """``model_config`` (the ModelConfig class) built from a config; its errors name the config's keys."""
    config = _load(config)
    fields = hf_config_fields(config)
    try:
        return model_config(**fields)
    except InputError as err:
        raise _config_error(err, config) from None
