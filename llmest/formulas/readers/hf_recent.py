"""Readers of the model types of 2022-2025 (multi-head latent attention, shared-expert MoE, sliding windows), each
mirroring what transformers builds for that type (its ``modeling_*.py``), as ``hf_build`` does for the others.

Where a config leaves a layer pattern out, the reader derives it as transformers' config class does: Gemma 2 and
gpt-oss alternate sliding and full layers, Gemma 3 has one full layer in ``sliding_window_pattern``, Llama 4 one
full (and position-free) layer in four, the others chunked.
"""

from __future__ import annotations

from .hf_fields import _bias
from ...core._validate import InputError, quote
from ...core.i18n import _


def _moe_from_layer(f, fields, first_dense_key: str, routed_key: str) -> dict:
    """DeepSeek-style MoE: the first k layers dense, then routed experts and shared experts of one width."""
    layers = fields["num_layers"]
    dense = f.size(first_dense_key, 0, minimum=0)
    experts = f.size(routed_key, 0, minimum=0)
    if experts == 0 or dense >= layers:
        return fields
    shared = f.size("n_shared_experts", 0, minimum=0)
    width = f.size("moe_intermediate_size")
    return dict(fields, num_experts=experts, experts_per_token=f.size("num_experts_per_tok"),
                expert_ffn_hidden_size=width, num_shared_experts=shared,
                shared_expert_ffn_hidden_size=width if shared else None, moe_layers=layers - dense)


def _deepseek(f):
    """DeepSeek-V2 and V3: MLA, the first k layers dense. transformers makes every later layer MoE
    (``moe_layer_freq`` is not read). V3's router correction bias is a buffer, not a parameter."""
    nope, rope = f.size("qk_nope_head_dim"), f.size("qk_rope_head_dim")
    fields = dict(f.common(tie_default=False), ffn_hidden_size=f.size("intermediate_size"), gated_ffn=True,
                  norm="rmsnorm", head_dim=nope + rope, kv_lora_rank=f.size("kv_lora_rank"),
                  q_lora_rank=f.size("q_lora_rank", None), qk_rope_head_dim=rope, v_head_dim=f.size("v_head_dim"),
                  attention_bias=_bias(f.flag("attention_bias", False)))
    return _moe_from_layer(f, fields, "first_k_dense_replace", "n_routed_experts")


def _qwen3(f):
    if f.flag("use_sliding_window", False):
        raise InputError("use_sliding_window", _("config.json: 'use_sliding_window' == true is not supported for "
                                                 "model_type '{model_type}' (its published models leave it off).")
                         .format(model_type=f.model_type))
    return dict(f.llama_style(), attention_bias=_bias(f.flag("attention_bias", False)), qk_norm=True,
                qk_norm_per_head=True)


def _qwen3_moe(f):
    fields = _qwen3(f)
    experts = f.size("num_experts", 0, minimum=0)
    moe_layers = f.sparse_moe_layers(fields["num_layers"], experts)
    if moe_layers == 0:
        return fields
    return dict(fields, num_experts=experts, experts_per_token=f.size("num_experts_per_tok"),
                expert_ffn_hidden_size=f.size("moe_intermediate_size"), moe_layers=moe_layers)


def _gemma2(f):
    fields = dict(f.llama_style(tie_default=True, kv_required=True), head_dim=f.size("head_dim"),
                  attention_bias=_bias(f.flag("attention_bias", False)), norms_per_layer=4)
    return dict(fields, **f.window(fields["num_layers"], lambda i: (i + 1) % 2 != 0))


def _gemma3_text(f):
    pattern = f.size("sliding_window_pattern", 6)
    # A Gemma 3 checkpoint's config nests this as its text_config, often without the vocabulary: transformers' default.
    fields = dict(f.llama_style(tie_default=True, vocab_default=262208),
                  num_kv_heads=f.size("num_key_value_heads", 4), head_dim=f.size("head_dim", 256),
                  attention_bias=_bias(f.flag("attention_bias", False)), norms_per_layer=4, qk_norm=True,
                  qk_norm_per_head=True)
    window = f.size("sliding_window", 4096)
    return dict(fields, local_window=window,
                local_layers=f.local_layers(fields["num_layers"], lambda i: (i + 1) % pattern != 0))


def _phi(f):
    """Phi-1/1.5/2: attention and MLP in parallel after one LayerNorm, biases everywhere, the head's too."""
    qk_norm = f.flag("qk_layernorm", False)
    return dict(f.common(tie_default=False), num_kv_heads=f.size("num_key_value_heads", None),
                ffn_hidden_size=f.size("intermediate_size"), attention_bias="all", ffn_bias=True,
                parallel_blocks=True, norm="layernorm", qk_norm=qk_norm, qk_norm_per_head=qk_norm, output_bias=True)


def _bloom(f):
    return dict(vocab_size=f.size("vocab_size"), hidden_size=f.size(("hidden_size", "n_embed")),
                num_layers=f.size(("num_hidden_layers", "n_layer")),
                num_heads=f.size(("num_attention_heads", "n_head")), attention_bias="all", ffn_bias=True,
                tie_embeddings=f.flag("tie_word_embeddings", True), position_embedding="alibi", embedding_norm=True)


def _mpt(f):
    """MPT: ALiBi, no biases (LayerNorm without its bias), a 4·d FFN. transformers builds only that shape, whatever
    ``expansion_ratio`` and ``no_bias`` say, so other values are refused rather than counted as it builds them."""
    if f.size("expansion_ratio", 4) != 4 or not f.flag("no_bias", True):
        key = "expansion_ratio" if f.config.get("expansion_ratio", 4) != 4 else "no_bias"
        raise InputError(key, _("config.json: '{key}' == {value}: transformers' MPT builds expansion_ratio 4 with "
                                "no_bias true only, so this shape cannot be checked.").format(
            key=key, value=quote(f.config[key])))
    hidden = f.size("d_model")
    return dict(vocab_size=f.size("vocab_size"), hidden_size=hidden, num_layers=f.size("n_layers"),
                num_heads=f.size("n_heads"), ffn_hidden_size=4 * hidden, norm="layernorm_no_bias",
                tie_embeddings=f.flag("tie_word_embeddings", True), position_embedding="alibi")


def _starcoder2(f):
    bias = f.flag("use_bias", True)
    fields = dict(f.common(tie_default=True), num_kv_heads=f.size("num_key_value_heads", None),
                  ffn_hidden_size=f.size("intermediate_size"), attention_bias=_bias(bias), ffn_bias=bias)
    return dict(fields, **f.window(fields["num_layers"]))


def _olmoe(f):
    return dict(f.llama_style(), attention_bias=_bias(f.flag("attention_bias", False)), qk_norm=True,
                num_experts=f.size("num_experts"), experts_per_token=f.size("num_experts_per_tok"))


def _gpt_oss(f):
    """gpt-oss: biases on attention, experts and router; a learned sink per head; alternate layers local."""
    fields = dict(f.llama_style(), head_dim=f.size("head_dim", 64),
                  attention_bias=_bias(f.flag("attention_bias", True)), attention_sinks=True,
                  num_experts=f.size("num_local_experts"), experts_per_token=f.size("num_experts_per_tok"),
                  ffn_bias=True, router_bias=True)
    return dict(fields, **f.window(fields["num_layers"], lambda i: (i + 1) % 2 != 0))


def _glm4(f):
    """GLM-4 (0414): four norms a layer; biases on Q, K and V only."""
    return dict(f.llama_style(), attention_bias="qkv" if f.flag("attention_bias", True) else "none",
                norms_per_layer=4)


def _glm4_moe(f):
    """GLM-4.5: DeepSeek-style MoE (the router's correction bias a buffer) on ordinary GQA attention."""
    qk_norm = f.flag("use_qk_norm", False)
    fields = dict(f.llama_style(), attention_bias="qkv" if f.flag("attention_bias", False) else "none",
                  qk_norm=qk_norm, qk_norm_per_head=qk_norm)
    return _moe_from_layer(f, fields, "first_k_dense_replace", "n_routed_experts")


def _cohere(f):
    """Command R: attention and MLP in parallel after one LayerNorm without bias; QK norms over all heads."""
    return dict(f.llama_style(tie_default=True), attention_bias=_bias(f.flag("attention_bias", False)),
                norm="layernorm_no_bias", parallel_blocks=True, qk_norm=f.flag("use_qk_norm", False))


def _granite(f):
    return dict(f.llama_style(), attention_bias=_bias(f.flag("attention_bias", False)),
                ffn_bias=f.flag("mlp_bias", False))


def _llama4_text(f):
    """Llama 4: every ``interleave_moe_layer_step``-th layer MoE (one shared expert), the others dense of
    ``intermediate_size_mlp``; QK norms without weights; chunked attention on the layers with rotary positions."""
    fields = dict(f.llama_style(), ffn_hidden_size=f.size("intermediate_size_mlp"),
                  attention_bias=_bias(f.flag("attention_bias", False)))
    layers = fields["num_layers"]
    step = f.size("interleave_moe_layer_step", 1)
    listed = f.int_list("moe_layers")
    moe_layers = len({i for i in listed if 0 <= i < layers}) if listed else len(range(step - 1, layers, step))
    width = f.size("intermediate_size")
    if moe_layers:
        fields = dict(fields, num_experts=f.size("num_local_experts"), experts_per_token=f.size("num_experts_per_tok"),
                      expert_ffn_hidden_size=width, num_shared_experts=1, shared_expert_ffn_hidden_size=width,
                      moe_layers=moe_layers)
    chunk = f.size("attention_chunk_size", None)
    if chunk is None:
        return fields
    rope = f.int_list("no_rope_layers")  # 1: the layer has rotary positions (and is chunked); [] means the default
    chunked = (lambda i: bool(rope[i])) if len(rope) == layers else (lambda i: (i + 1) % 4 != 0)
    return dict(fields, local_window=chunk, local_layers=f.local_layers(layers, chunked))


RECENT_READERS = {
    "deepseek_v2": _deepseek, "deepseek_v3": _deepseek, "qwen3": _qwen3, "qwen3_moe": _qwen3_moe,
    "gemma2": _gemma2, "gemma3_text": _gemma3_text, "phi": _phi, "bloom": _bloom, "mpt": _mpt,
    "starcoder2": _starcoder2, "olmoe": _olmoe, "gpt_oss": _gpt_oss, "glm4": _glm4, "glm4_moe": _glm4_moe,
    "cohere": _cohere, "granite": _granite, "llama4_text": _llama4_text,
}
