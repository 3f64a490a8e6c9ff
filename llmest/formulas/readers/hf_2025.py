"""Readers of the transformer model types of 2025-2026 (attention with a dense or MoE FFN), each mirroring what
transformers 5.24 builds for that type (its ``modeling_*.py``), as ``hf_build`` and ``hf_recent`` do for the others.

Where a config leaves a size out, the reader takes the default of transformers' config class for that type, since
that is what it builds. DeepSeek-V3's multi-token-prediction modules (``num_nextn_predict_layers``), which
transformers does not build, are read here too and counted apart (``ParamCount.mtp``).
"""

from __future__ import annotations

from .hf_fields import _bias
from .hf_recent import _deepseek, _glm4_moe
from ...core._validate import InputError, quote
from ...core.i18n import _


def _window(f, layers: int, default: int | None, default_local) -> dict:
    """A sliding window whose size defaults to ``default`` when the key is absent (an explicit null: none)."""
    window = None if f.config.get("sliding_window", default) is None else f.size("sliding_window", default)
    if window is None:
        return {}
    return dict(local_window=window, local_layers=f.local_layers(layers, default_local))


def _mtp(f) -> dict:
    return dict(mtp_layers=f.size("num_nextn_predict_layers", 0, minimum=0))


def _smollm3(f):
    """SmolLM3: Llama's layers, every ``no_rope_layer_interval``-th without rotary positions (NoPE). A layer without
    RoPE has the same matrices, so the count does not change; only a window, when one is switched on, goes to the
    NoPE layers."""
    fields = dict(f.llama_style(tie_default=True), attention_bias=_bias(f.flag("attention_bias", False)),
                  ffn_bias=f.flag("mlp_bias", False))
    layers = fields["num_layers"]
    rope = f.int_list("no_rope_layers")
    interval = f.size("no_rope_layer_interval", 4)
    has_rope = (lambda i: bool(rope[i])) if len(rope) >= layers else (lambda i: (i + 1) % interval != 0)
    if not f.flag("use_sliding_window", False):
        return fields
    return dict(fields, **f.window(layers, lambda i: not has_rope(i)))


def _seed_oss(f):
    """Seed-OSS: biases on Q, K and V (``attention_bias``), on the output only with ``attention_out_bias``."""
    qkv, out = f.flag("attention_bias", True), f.flag("attention_out_bias", False)
    if out and not qkv:
        raise InputError("attention_out_bias", _("config.json: 'attention_out_bias' == true with 'attention_bias' "
                                                 "== false (a bias on the output map only) is not a shape llmest "
                                                 "counts."))
    return dict(f.llama_style(), head_dim=f.size("head_dim", 128), attention_bias="all" if out else _qkv(qkv),
                ffn_bias=f.flag("mlp_bias", False))


def _qkv(flag: bool) -> str:
    return "qkv" if flag else "none"


def _olmo3(f):
    """OLMo 3: OLMo 2's layers (QK norms over all heads, norms after attention and FFN); three layers in four
    attend through a sliding window."""
    fields = dict(f.llama_style(), attention_bias=_bias(f.flag("attention_bias", False)), qk_norm=True)
    return dict(fields, **_window(f, fields["num_layers"], 4096, lambda i: (i + 1) % 4 != 0))


def _exaone4(f):
    """EXAONE 4.0: QK norms per head, norms after attention and FFN (OLMo 2's order), no biases; local layers in a
    pattern (``layer_types``, else every ``sliding_window_pattern``-th layer global)."""
    fields = dict(f.llama_style(), qk_norm=True, qk_norm_per_head=True)
    layers = fields["num_layers"]
    if "layer_types" not in f.config or f.config["layer_types"] is None:
        pattern = f.config.get("sliding_window_pattern", 4)
        if f.config.get("sliding_window", 4096) is not None and (type(pattern) is not int or pattern < 1):
            raise InputError("sliding_window_pattern", _("config.json: 'sliding_window_pattern' == {value} without "
                                                         "'layer_types': transformers needs a whole number of layers "
                                                         "here.").format(value=quote(pattern)))
        default_local = lambda i: (i + 1) % pattern != 0  # noqa: E731
    else:
        default_local = None  # layer_types decides
    return dict(fields, **_window(f, layers, 4096, default_local))


def _ernie4_5_moe(f):
    """ERNIE 4.5 MoE: Llama's attention; layer i is MoE when moe_layer_start_index <= i <= moe_layer_end_index and
    (i + 1) % moe_layer_interval == 0; the shared experts are one MLP of their summed width. The router's score
    correction is a parameter here (one per expert, counted with the router)."""
    if f.flag("use_bias", False):
        raise InputError("use_bias", _("config.json: 'use_bias' == true: transformers then puts biases on attention, "
                                       "the dense and shared MLPs and the head but not on the experts, a shape llmest "
                                       "does not count."))
    fields = f.llama_style(tie_default=True)
    layers = fields["num_layers"]
    start = f.size("moe_layer_start_index", 1, minimum=0)
    end = f.config.get("moe_layer_end_index", -1)
    end = layers - 1 if end == -1 else f.size("moe_layer_end_index", -1, minimum=0)
    step = f.size("moe_layer_interval", 1)
    end = min(end, layers - 1)
    moe_layers = max(0, (end + 1) // step - start // step) if end >= start else 0  # i + 1 a multiple of step
    if moe_layers == 0:
        return fields
    width, shared = f.size("moe_intermediate_size", 1536), f.size("moe_num_shared_experts", 2, minimum=0)
    return dict(fields, num_experts=f.size(("moe_num_experts", "num_experts"), 64),
                experts_per_token=f.size(("moe_k", "num_experts_per_tok"), 6), expert_ffn_hidden_size=width,
                num_shared_experts=1 if shared else 0, shared_expert_ffn_hidden_size=width * shared if shared else None,
                router_bias=True, moe_layers=moe_layers)


def _mla(f, q_lora_required=False) -> dict:
    """Multi-head latent attention's fields, as DeepSeek-V3 spells them."""
    nope, rope = f.size("qk_nope_head_dim"), f.size("qk_rope_head_dim")
    return dict(f.common(tie_default=False), ffn_hidden_size=f.size("intermediate_size"), gated_ffn=True,
                norm="rmsnorm", head_dim=nope + rope, kv_lora_rank=f.size("kv_lora_rank"),
                q_lora_rank=f.size("q_lora_rank", *(() if q_lora_required else (None,))), qk_rope_head_dim=rope,
                v_head_dim=f.size("v_head_dim"), attention_bias=_bias(f.flag("attention_bias", False)))


def _moe_from_types(f, fields: dict, dense_default: int, shared_default: int) -> dict:
    """DeepSeek-style MoE whose layers ``mlp_layer_types`` lists ('sparse' or 'dense'); by default the first
    ``dense_default`` dense."""
    layers = fields["num_layers"]
    types = f.str_list("mlp_layer_types")
    if types is not None and len(types) != layers:
        raise InputError("mlp_layer_types", _("config.json: 'mlp_layer_types' has {count} entries, must have one "
                                              "per layer ({layers}).").format(count=len(types), layers=layers))
    moe_layers = sum(t == "sparse" for t in types) if types is not None else layers - min(dense_default, layers)
    if moe_layers == 0:
        return fields
    shared = f.size("n_shared_experts", shared_default, minimum=0)
    width = f.size("moe_intermediate_size")
    return dict(fields, num_experts=f.size("n_routed_experts"), experts_per_token=f.size("num_experts_per_tok"),
                expert_ffn_hidden_size=width, num_shared_experts=shared,
                shared_expert_ffn_hidden_size=width if shared else None, moe_layers=moe_layers)


def _glm4_moe_lite(f):
    """GLM-4.7-Flash: DeepSeek-V3's MLA and MoE; the first layer dense unless ``mlp_layer_types`` says otherwise
    (``first_k_dense_replace`` is not read). Its MTP layer, in the checkpoint and skipped by transformers, is
    counted apart."""
    return _moe_from_types(f, dict(_mla(f), **_mtp(f)), 1, 1)


def _deepseek_v3(f):
    """DeepSeek-V3 as ``hf_recent`` reads it, with its MTP modules counted apart."""
    return dict(_deepseek(f), **_mtp(f))


def _glm4_moe_mtp(f):
    """GLM-4.5 as ``hf_recent`` reads it, with its MTP layer (DeepSeek-V3's layout) counted apart."""
    return dict(_glm4_moe(f), **_mtp(f))


def _deepseek_v32(f):
    """DeepSeek-V3.2: V3's MLA (always with a query latent) and MoE, and on every layer the indexer of DeepSeek
    sparse attention, which keeps the ``index_topk`` best-scored tokens for each query."""
    fields = dict(_mla(f, q_lora_required=True), index_heads=f.size("index_n_heads", 64),
                  index_head_dim=f.size("index_head_dim", 128), index_topk=f.size("index_topk", 2048), **_mtp(f))
    return _moe_from_types(f, fields, f.size("first_k_dense_replace", 3, minimum=0), 1)


def _minimax_m2(f):
    """MiniMax-M2: every layer MoE (experts of ``intermediate_size``, no shared expert, the router's correction a
    buffer), QK norms over all heads, ``head_dim`` 128 unless given. Its config's MTP keys (``use_mtp``,
    ``num_mtp_modules``) describe modules transformers does not build; they are not counted."""
    return dict(f.llama_style(), head_dim=f.size("head_dim", 128), qk_norm=True,
                num_experts=f.size(("num_local_experts", "num_experts"), 256),
                experts_per_token=f.size("num_experts_per_tok", 8))


def _longcat_flash(f):
    """LongCat-Flash: ``num_layers`` blocks of two MLA layers, each with its own dense FFN, and one MoE beside them
    (shortcut-connected), whose router also scores ``zero_expert_num`` zero-computation experts: they return the
    token unchanged and hold no weights. Active counts the most a token uses (all its experts real ones)."""
    blocks = f.size("num_layers", None)
    blocks = f.size("num_hidden_layers") // 2 if blocks is None else blocks
    nope, rope = f.size("qk_nope_head_dim"), f.size("qk_rope_head_dim")
    return dict(vocab_size=f.size("vocab_size"), hidden_size=f.size("hidden_size"), num_layers=2 * blocks,
                num_heads=f.size("num_attention_heads"), tie_embeddings=f.flag("tie_word_embeddings", False),
                ffn_hidden_size=f.size(("ffn_hidden_size", "intermediate_size")), gated_ffn=True, norm="rmsnorm",
                head_dim=nope + rope, kv_lora_rank=f.size("kv_lora_rank"), q_lora_rank=f.size("q_lora_rank"),
                qk_rope_head_dim=rope, v_head_dim=f.size("v_head_dim"),
                attention_bias=_bias(f.flag("attention_bias", False)),
                num_experts=f.size(("n_routed_experts", "num_local_experts")),
                experts_per_token=f.size(("moe_topk", "num_experts_per_tok")),
                expert_ffn_hidden_size=f.size(("expert_ffn_hidden_size", "moe_intermediate_size")),
                zero_experts=f.size("zero_expert_num", 0, minimum=0), router_bias=f.flag("router_bias", False),
                ffn_beside_moe=True, moe_layers=blocks)


READERS_2025 = {
    "smollm3": _smollm3, "seed_oss": _seed_oss, "olmo3": _olmo3, "exaone4": _exaone4, "ernie4_5_moe": _ernie4_5_moe,
    "glm4_moe_lite": _glm4_moe_lite, "minimax_m2": _minimax_m2, "longcat_flash": _longcat_flash,
    "deepseek_v32": _deepseek_v32,
    # These two replace hf_recent's readers: the same fields, and the MTP modules counted apart.
    "deepseek_v3": _deepseek_v3, "glm4_moe": _glm4_moe_mtp,
}

# Types that transformers builds but llmest does not count yet, and why: refused by name.
# (DeepSeek-V4, once refused here, is read by hf_deepseek_v4.)
REFUSED_2025: dict = {}
