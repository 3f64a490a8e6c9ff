"""count_params against transformers' own models, built from real config.json files on the meta device."""

import json
import re

import pytest

import llmest as le
from llmest.formulas.readers.hf_build import READERS
from llmest.formulas.readers.hf_hybrid import HYBRID_READERS
from llmest.formulas.readers.config_file import CONFIGS
from conftest import require

# The hybrids' layers are not all alike: tests/test_hf_hybrid.py checks their fixtures, part by part, by module.
FIXTURES = sorted(p for p in CONFIGS.glob("*.json")
                  if json.loads(p.read_text(encoding="utf-8"))["model_type"] not in HYBRID_READERS)
MODEL_TYPES = ["llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "phi3", "gpt2", "gpt_neox", "falcon",
               "opt", "olmo2", "deepseek_v2", "deepseek_v3", "qwen3", "qwen3_moe", "gemma2", "gemma3_text", "phi",
               "bloom", "mpt", "starcoder2", "olmoe", "gpt_oss", "glm4", "glm4_moe", "cohere", "granite",
               "llama4_text"]
# The transformer types of 2025-2026, each also built from transformers' default configuration of the type.
TYPES_2025 = ["smollm3", "seed_oss", "olmo3", "exaone4", "ernie4_5_moe", "glm4_moe_lite", "minimax_m2",
              "longcat_flash", "deepseek_v32", "deepseek_v4"]
MODEL_TYPES += TYPES_2025

# How transformers names the parameters of each part; the first pattern that matches wins.
PART_OF_NAME = [
    ("hyper_connections", r"_hc\.|\.hc_head\."),  # DeepSeek-V4's attn_hc, ffn_hc and hc_head
    ("grouped_output", r"\.o_[ab]_proj\."),
    ("indexer", r"\.indexer\."),
    ("router", r"e_score_correction_bias$"),  # a parameter in ERNIE 4.5 (a buffer in the others)
    ("experts", r"\.experts\."),
    ("shared_experts", r"shared_expert"),
    ("router", r"\.mlp\.gate\.weight$|\.router\."),
    ("norms", r"norm|\.ln_"),
    ("embedding_projections", r"project_(in|out)"),
    ("positions", r"\.wpe\.|embed_positions"),
    ("embeddings", r"embed_tokens|\.wte\.|word_embeddings|embed_in"),
    ("output_head", r"^lm_head|embed_out"),
    ("attention", r"attn|attention"),
    ("ffn", r"mlp|\.fc[12]\.|\.ffn\.|feed_forward"),
]


def _part(name: str) -> str:
    for part, pattern in PART_OF_NAME:
        if re.search(pattern, name):
            return part
    raise AssertionError(f"no part for parameter {name}")


def _meta_model(config: dict):
    torch = require("torch")
    transformers = require("transformers")
    transformers.logging.set_verbosity_error()
    hf_config = transformers.AutoConfig.for_model(**config)
    with torch.device("meta"):
        return transformers.AutoModelForCausalLM.from_config(hf_config)


def _default_config(model_type: str) -> dict:
    transformers = require("transformers")
    return transformers.AutoConfig.for_model(model_type).to_dict()


@pytest.fixture(scope="module", params=FIXTURES + [f"default {t}" for t in TYPES_2025],
                ids=lambda p: p if isinstance(p, str) else p.stem)
def built(request):
    if isinstance(request.param, str):
        config = _default_config(request.param.split()[1])
    else:
        config = json.loads(request.param.read_text(encoding="utf-8"))
    return config, _meta_model(config)


def _unused_rows(module) -> int:
    """transformers 5.24 sizes LongCat-Flash's gate_up_proj for the routed and the zero-computation experts
    together (768 rows for 512 + 256), though the zero experts skip it and the checkpoint holds 512: the rows of the
    zero experts are weights no token uses, left out here (and the total checked against the report's 560B in
    test_longcat_flash_counts_as_its_report_says)."""
    routed = getattr(module, "num_routed_experts", None)
    gate_up = getattr(module, "gate_up_proj", None)
    if routed is None or gate_up is None or gate_up.shape[0] == routed:
        return 0
    return (gate_up.shape[0] - routed) * gate_up.shape[1] * gate_up.shape[2]


def _part_in(model, name: str) -> str:
    """A parameter's part; DeepSeek-V4's compressors and routers by the kind of their layer (config.layer_types,
    config.mlp_layer_types), which the name alone does not say."""
    layer = re.search(r"layers\.(\d+)\.", name)
    if layer and re.search(r"self_attn\.compressor\.(?!indexer\.)", name):
        kind = model.config.layer_types[int(layer[1])]
        return {"compressed_sparse_attention": "csa_compressor", "heavily_compressed_attention": "hca_compressor"}[kind]
    if layer and name.endswith("mlp.gate.weight") and getattr(model.config, "mlp_layer_types", None):
        return "hash_router" if model.config.mlp_layer_types[int(layer[1])] == "hash_moe" else "router"
    return _part(name)


def _measured(model) -> dict:
    measured = {}
    for name, p in model.named_parameters():
        measured[_part_in(model, name)] = measured.get(_part_in(model, name), 0) + p.numel()
    measured["experts"] = measured.get("experts", 0) - sum(_unused_rows(m) for m in model.modules())
    return {part: n for part, n in measured.items() if n}


def test_every_supported_model_type_has_a_fixture():
    types = {json.loads(p.read_text(encoding="utf-8"))["model_type"] for p in FIXTURES}
    assert set(MODEL_TYPES) <= types
    assert set(MODEL_TYPES) <= set(READERS)


def test_total_equals_transformers(built):
    config, model = built
    count = le.count_params(le.ModelConfig.from_hf_config(config))
    assert count.total == sum(p.numel() for p in model.parameters()) - sum(_unused_rows(m) for m in model.modules())


def test_every_part_equals_transformers(built):
    config, model = built
    count = le.count_params(le.ModelConfig.from_hf_config(config))
    assert {k: n for k, n in count.parts.items() if n} == _measured(model)


def test_active_equals_transformers_minus_unused_experts(built):
    config, model = built
    cfg = le.ModelConfig.from_hf_config(config)
    total = sum(_measured(model).values())
    unused = 0
    for name, module in model.named_modules():
        if name.endswith(".experts"):
            per_expert = (sum(p.numel() for p in module.parameters()) - _unused_rows(module)) // cfg.num_experts
            unused += (cfg.num_experts - cfg.experts_per_token) * per_expert
    assert le.count_params(cfg).active == total - unused


# Phi-2's config.json (microsoft/phi-2): model_type 'phi'. Its neighbour 'phi3' is another architecture (LayerNorm
# with biases, a plain GELU MLP, a head with a bias), so reading one as the other would count wrong: each type has
# its own reader, and an unknown type is refused rather than matched to a neighbour (below).
PHI_2 = {"model_type": "phi", "vocab_size": 51200, "hidden_size": 2560, "intermediate_size": 10240,
         "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32, "partial_rotary_factor": 0.4,
         "qk_layernorm": False, "tie_word_embeddings": False, "hidden_act": "gelu_new", "layer_norm_eps": 1e-05,
         "max_position_embeddings": 2048}


def test_a_neighbouring_model_type_would_count_wrong():
    phi2 = sum(p.numel() for p in _meta_model(PHI_2).parameters())
    assert phi2 == 2_779_683_840  # the published size of Phi-2, 2.78B
    assert le.count_params(le.ModelConfig.from_hf_config(PHI_2)).total == phi2
    as_phi3 = le.count_params(le.ModelConfig.from_hf_config(dict(PHI_2, model_type="phi3"))).total
    assert abs(as_phi3 / phi2 - 1) > 0.2


@pytest.mark.parametrize("model_type", ["phi4", "llama3", "qwen3_5", "gemma3", "llama4", "mistral3", "olmo",
                                        "qwen2_vl", "gpt", "deepseek"])
def test_near_miss_model_types_are_refused_without_substitution(model_type):
    config = json.loads((CONFIGS / "llama-2-7b.json").read_text(encoding="utf-8"))
    with pytest.raises(le.InputError, match=f"'model_type' == '{model_type}' is not supported") as err:
        le.ModelConfig.from_hf_config(dict(config, model_type=model_type))
    assert "Did you mean" not in str(err.value)


def test_deepseek_v4_counts_every_new_part_with_its_layers():
    # transformers 5.24 builds 284,325,869,015 parameters from DeepSeek-V4's default configuration (V4-Pro's layer
    # pattern at V4-Flash's sizes) and 284,332,230,231 from V4-Flash's config.json (21 CSA and 20 HCA layers after
    # two sliding-window ones), both checked part by part above; the model card says 284B total, 13B activated.
    default = le.count_params(le.ModelConfig.from_hf_config(_default_config("deepseek_v4")))
    flash = le.count_params(le.ModelConfig.from_hf_config(CONFIGS / "deepseek-v4-flash.json"))
    assert (default.total, flash.total) == (284_325_869_015, 284_332_230_231)
    assert flash.active == 13_799_622_231 and round(flash.active_without("embeddings") / 1e9) == 13
    assert dict(flash.layers) == {"attention": 43, "grouped_output": 43, "csa_compressor": 21, "hca_compressor": 20,
                                  "indexer": 21, "experts": 43, "router": 40, "hash_router": 3}
    assert flash["hyper_connections"] == 43 * 2 * (24 * 4 * 4096 + 24 + 3) + (4 * 4 * 4096 + 4 + 1)
    assert flash["grouped_output"] == 43 * (64 * 512 * 1024 + 8 * 1024 * 4096)


@pytest.mark.parametrize("change, key", [
    ({"num_key_value_heads": 8}, "num_key_value_heads"), ({"n_shared_experts": 2}, "n_shared_experts"),
    ({"mlp_bias": True}, "mlp_bias"), ({"compress_ratios": [0, 4, 64] * 15}, "compress_ratios"),
    ({"compress_ratios": [0, 4]}, "compress_ratios"), ({"mlp_layer_types": ["moe"] * 3}, "mlp_layer_types"),
])
def test_deepseek_v4_shapes_transformers_would_not_build_as_written_are_refused_by_key(change, key):
    # transformers builds one shared key-value head and one shared expert whatever the config says, and maps only
    # the ratios 0, 4 and 128 to a kind of attention: another value is refused by its key, not counted as written.
    config = dict(json.loads((CONFIGS / "deepseek-v4-flash.json").read_text(encoding="utf-8")), **change)
    with pytest.raises(le.InputError) as err:
        le.ModelConfig.from_hf_config(config)
    assert err.value.param == key and f"'{key}'" in str(err.value)


def test_deepseek_v4_layer_kinds_read_alike_from_layer_types_and_compress_ratios():
    config = json.loads((CONFIGS / "deepseek-v4-flash.json").read_text(encoding="utf-8"))
    kinds = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
    spelled = dict({k: v for k, v in config.items() if k not in ("compress_ratios", "num_hash_layers")},
                   layer_types=[kinds[r] for r in config["compress_ratios"][:43]],
                   mlp_layer_types=["hash_moe"] * 3 + ["moe"] * 40)
    assert le.ModelConfig.from_hf_config(spelled) == le.ModelConfig.from_hf_config(config)
    assert (le.count_params(le.ModelConfig.from_hf_config(spelled)).total
            == sum(p.numel() for p in _meta_model(spelled).parameters()))


@pytest.mark.parametrize("fixture, change, key", [
    ("seed-oss-36b", {"attention_bias": False, "attention_out_bias": True}, "attention_out_bias"),
    ("ernie-4.5-21b-a3b", {"use_bias": True}, "use_bias"),
    ("exaone-4.0-32b", {"sliding_window_pattern": "LLLG"}, "sliding_window_pattern"),
])
def test_shapes_transformers_builds_unevenly_or_not_at_all_are_refused_by_key(fixture, change, key):
    config = dict(json.loads((CONFIGS / f"{fixture}.json").read_text(encoding="utf-8")), **change)
    with pytest.raises(le.InputError) as err:
        le.ModelConfig.from_hf_config(config)
    assert err.value.param == key and f"'{key}'" in str(err.value)


def test_a_pattern_spelled_out_in_layer_types_needs_no_number():
    config = json.loads((CONFIGS / "exaone-4.0-32b.json").read_text(encoding="utf-8"))
    types = ["sliding_attention" if (i + 1) % 4 else "full_attention" for i in range(64)]
    cfg = le.ModelConfig.from_hf_config(dict(config, sliding_window_pattern="LLLG", layer_types=types))
    assert cfg == le.ModelConfig.from_hf_config(config) and cfg.local_layers == 48


def test_nope_layers_change_no_parameter():
    config = json.loads((CONFIGS / "smollm3-3b.json").read_text(encoding="utf-8"))
    every_layer_rope = dict(config, no_rope_layers=[1] * 36)
    assert (sum(p.numel() for p in _meta_model(config).parameters())
            == sum(p.numel() for p in _meta_model(every_layer_rope).parameters())
            == le.count_params(le.ModelConfig.from_hf_config(config)).total == 3_075_098_624)
