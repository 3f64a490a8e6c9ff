"""count_params against transformers' own models, built from real config.json files on the meta device."""

import json
import re

import pytest

import llmest as le
from llmest.formulas.readers.hf_build import READERS
from llmest.formulas.readers.config_file import CONFIGS
from conftest import require

FIXTURES = sorted(CONFIGS.glob("*.json"))
MODEL_TYPES = ["llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "phi3", "gpt2", "gpt_neox", "falcon",
               "opt", "olmo2", "deepseek_v2", "deepseek_v3", "qwen3", "qwen3_moe", "gemma2", "gemma3_text", "phi",
               "bloom", "mpt", "starcoder2", "olmoe", "gpt_oss", "glm4", "glm4_moe", "cohere", "granite",
               "llama4_text"]

# How transformers names the parameters of each part; the first pattern that matches wins.
PART_OF_NAME = [
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


@pytest.fixture(scope="module", params=FIXTURES, ids=lambda p: p.stem)
def built(request):
    config = json.loads(request.param.read_text(encoding="utf-8"))
    return config, _meta_model(config)


def test_every_supported_model_type_has_a_fixture():
    types = {json.loads(p.read_text(encoding="utf-8"))["model_type"] for p in FIXTURES}
    assert set(MODEL_TYPES) <= types
    assert set(MODEL_TYPES) <= set(READERS)


def test_total_equals_transformers(built):
    config, model = built
    count = le.count_params(le.ModelConfig.from_hf_config(config))
    assert count.total == sum(p.numel() for p in model.parameters())


def test_every_part_equals_transformers(built):
    config, model = built
    measured = {}
    for name, p in model.named_parameters():
        measured[_part(name)] = measured.get(_part(name), 0) + p.numel()
    count = le.count_params(le.ModelConfig.from_hf_config(config))
    assert {k: n for k, n in count.parts.items() if n} == measured


def test_active_equals_transformers_minus_unused_experts(built):
    config, model = built
    cfg = le.ModelConfig.from_hf_config(config)
    total = sum(p.numel() for p in model.parameters())
    unused = 0
    for name, module in model.named_modules():
        if name.endswith(".experts"):
            per_expert = sum(p.numel() for p in module.parameters()) // cfg.num_experts
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


@pytest.mark.parametrize("model_type", ["phi4", "llama3", "qwen3_next", "gemma3", "llama4", "mistral3", "olmo",
                                        "qwen2_vl", "gpt", "deepseek"])
def test_near_miss_model_types_are_refused_without_substitution(model_type):
    config = json.loads((CONFIGS / "llama-2-7b.json").read_text(encoding="utf-8"))
    with pytest.raises(le.InputError, match=f"'model_type' == '{model_type}' is not supported") as err:
        le.ModelConfig.from_hf_config(dict(config, model_type=model_type))
    assert "Did you mean" not in str(err.value)
