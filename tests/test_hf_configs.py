"""count_params against transformers' own models, built from real config.json files on the meta device."""

import json
import re
from pathlib import Path

import pytest

import llmest as le
from llmest._hf import READERS
from conftest import require

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.json"))
MODEL_TYPES = ["llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "gemma", "phi3", "gpt2", "gpt_neox", "falcon",
               "opt", "olmo2"]

# How transformers names the parameters of each part; the first pattern that matches wins.
PART_OF_NAME = [
    ("experts", r"\.experts\."),
    ("shared_experts", r"shared_expert"),
    ("router", r"\.mlp\.gate\.weight$"),
    ("norms", r"norm|\.ln_"),
    ("embedding_projections", r"project_(in|out)"),
    ("positions", r"\.wpe\.|embed_positions"),
    ("embeddings", r"embed_tokens|\.wte\.|word_embeddings|embed_in"),
    ("output_head", r"^lm_head|embed_out"),
    ("attention", r"attn|attention"),
    ("ffn", r"mlp|\.fc[12]\."),
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
    config = json.loads(request.param.read_text())
    return config, _meta_model(config)


def test_every_supported_model_type_has_a_fixture():
    types = {json.loads(p.read_text())["model_type"] for p in FIXTURES}
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
