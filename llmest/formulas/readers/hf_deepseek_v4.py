"""The reader of DeepSeek-V4's ``config.json`` (``model_type`` "deepseek_v4"), mirroring what transformers 5.24 builds
for it (``models/deepseek_v4/configuration_deepseek_v4.py`` and ``modeling_deepseek_v4.py``); its parts are counted
by llmest.formulas.deepseek_v4.

Where a config leaves a size out, the reader takes the default of transformers' ``DeepseekV4Config`` (the shape of
DeepSeek-V4-Flash), since that is what transformers builds. Keys that transformers reads but that would make it
build something other than the config says (several KV heads, several shared experts, biases) are refused by name.
The MTP module of the checkpoint (``num_nextn_predict_layers``) is neither built by transformers nor counted here.
"""

from __future__ import annotations

from ...core._validate import InputError, quote
from ...core.i18n import _

# transformers' names of the attention kinds, and the compression rates of legacy ``compress_ratios`` entries.
SLIDING, CSA, HCA = "sliding_attention", "compressed_sparse_attention", "heavily_compressed_attention"
RATIO_TO_TYPE = {0: SLIDING, 4: CSA, 128: HCA}
DEFAULT_RATES = {CSA: 4, HCA: 128}
DEFAULT_HASH_LAYERS = 3


def _layer_types(f, layers: int) -> list:
    """Each layer's attention kind: ``layer_types``, else legacy ``compress_ratios`` (0, 4 or 128 per layer), else
    transformers' default (two HCA layers, then CSA and HCA in turn). Published configs list a ratio for each MTP
    layer after the model's; transformers keeps the first ``num_hidden_layers``."""
    types = f.str_list("layer_types")
    if types is None and f.config.get("compress_ratios") is not None:
        ratios = f.config["compress_ratios"]
        if not isinstance(ratios, list) or not all(type(r) is int and r in RATIO_TO_TYPE for r in ratios):
            raise InputError("compress_ratios", _("config.json: 'compress_ratios' == {value}, must be a list of 0, 4 "
                                                  "or 128 (one per layer).").format(value=quote(ratios)))
        types = [RATIO_TO_TYPE[r] for r in ratios]
    if types is None:
        types = [HCA] * min(layers, 2) + [CSA if i % 2 else HCA for i in range(max(layers - 2, 0))]
    key = "layer_types" if f.config.get("layer_types") is not None else "compress_ratios"
    if len(types) < layers or any(t not in (SLIDING, CSA, HCA) for t in types[:layers]):
        raise InputError(key, _("config.json: '{key}' must give one of {kinds} for each of the {layers} layers.")
                         .format(key=key, kinds=", ".join((SLIDING, CSA, HCA)), layers=layers))
    return types[:layers]


def _rates(f) -> dict:
    rates = f.config.get("compress_rates")
    if rates is not None and (not isinstance(rates, dict) or not set(rates) <= {CSA, HCA}):
        raise InputError("compress_rates", _("config.json: 'compress_rates' == {value}, must map {csa} and {hca} to "
                                             "a rate.").format(value=quote(rates), csa=CSA, hca=HCA))
    rates = {**DEFAULT_RATES, **(rates or {})}
    for kind, key in ((CSA, "compress_rate_csa"), (HCA, "compress_rate_hca")):
        rates[kind] = f.size(key, rates[kind])
    for kind in (CSA, HCA):
        if type(rates[kind]) is not int or rates[kind] < 1:
            raise InputError("compress_rates", _("config.json: 'compress_rates' gives {kind} == {value}, must be an "
                                                 "integer >= 1.").format(kind=kind, value=quote(rates[kind])))
    return rates


def _hash_layers(f, layers: int) -> int:
    types = f.str_list("mlp_layer_types")
    if types is None:
        return min(layers, f.size("num_hash_layers", DEFAULT_HASH_LAYERS, minimum=0))
    if len(types) < layers or any(t not in ("hash_moe", "moe") for t in types[:layers]):
        raise InputError("mlp_layer_types", _("config.json: 'mlp_layer_types' must give 'hash_moe' or 'moe' for each "
                                              "of the {layers} layers.").format(layers=layers))
    return sum(t == "hash_moe" for t in types[:layers])


def _refuse_unbuilt(f):
    """Keys whose other values transformers would not build: it builds one shared key-value head, one shared
    expert of moe_intermediate_size and no attention biases whatever the config says, and biases on the shared
    expert only (not the routed ones) with mlp_bias."""
    for key, built in (("num_key_value_heads", 1), ("n_shared_experts", 1), ("attention_bias", False),
                       ("mlp_bias", False)):
        value = f.config.get(key)
        if value is not None and (type(value) is not type(built) or value != built):
            raise InputError(key, _("config.json: '{key}' == {value}: transformers builds DeepSeek-V4 with {key} == "
                                    "{built} whatever the config says, so llmest does not count another value.")
                             .format(key=key, value=quote(value), built=quote(built)))


def _deepseek_v4(f):
    """DeepSeek-V4: on every layer, attention with one shared key-value head, queries through a latent, a grouped
    low-rank output map, a learned sink per head and a sliding window, plus on CSA layers an overlapping compressor
    and an indexer with its own, on HCA layers a compressor alone; a MoE with one shared expert on every layer, the
    first ones routed by a token-id table; four residual streams mixed by hyper-connections."""
    _refuse_unbuilt(f)
    layers = f.size("num_hidden_layers", 43)
    types, rates = _layer_types(f, layers), _rates(f)
    csa, hca = types.count(CSA), types.count(HCA)
    width = f.size("moe_intermediate_size", 2048)
    return dict(vocab_size=f.size("vocab_size", 129280), hidden_size=f.size("hidden_size", 4096), num_layers=layers,
                num_heads=f.size("num_attention_heads", 64), num_kv_heads=1, head_dim=f.size("head_dim", 512),
                tie_embeddings=f.flag("tie_word_embeddings", False), norm="rmsnorm", gated_ffn=True,
                ffn_hidden_size=width, shared_kv=True, q_lora_rank=f.size("q_lora_rank", 1024),
                output_groups=f.size("o_groups", 8), output_lora_rank=f.size("o_lora_rank", 1024),
                # Every layer attends through the window; the CSA and HCA layers also read compressed entries of the
                # whole context, so only the sliding-window layers are local (as transformers' cache lays them out).
                attention_sinks=True, local_window=f.size("sliding_window", 128), local_layers=types.count(SLIDING),
                csa_layers=csa, csa_rate=rates[CSA] if csa else None, hca_layers=hca,
                hca_rate=rates[HCA] if hca else None,
                index_heads=f.size("index_n_heads", 64) if csa else None,
                index_head_dim=f.size("index_head_dim", 128) if csa else None,
                index_topk=f.size("index_topk", 512) if csa else None,
                num_experts=f.size(("n_routed_experts", "num_local_experts"), 256),
                experts_per_token=f.size("num_experts_per_tok", 6), expert_ffn_hidden_size=width,
                num_shared_experts=1, shared_expert_ffn_hidden_size=width, hash_moe_layers=_hash_layers(f, layers),
                residual_streams=f.size("hc_mult", 4))


READERS_V4 = {"deepseek_v4": _deepseek_v4}
