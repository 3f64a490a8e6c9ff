"""Hybrid models (linear attention, short convolutions, Mamba beside attention) against transformers: each type
built on the meta device from its default configuration and from a published config.json, total, every part and
active checked against count_params, with the part of each parameter read from the module that holds it; and the
constant state of the layers without attention checked against what transformers' cache holds after a forward pass
of a small model."""

import json
import re

import pytest

import llmest as le
from llmest.formulas.hybrid_cache import (hybrid_cache_bytes_for, mamba2_state, mixer_state_values,
                                          state_bytes_per_sequence)
from llmest.formulas.kv_cache import kv_cache_bytes_for
from llmest.formulas.params import mamba2_params
from llmest.formulas.readers.config_file import CONFIGS
from llmest.formulas.readers.hf_hybrid import HYBRID_READERS
from conftest import require
from test_hf_configs import PART_OF_NAME, _meta_model

HYBRID_TYPES = ["qwen3_next", "kimi_linear", "lfm2", "nemotron_h", "jamba", "falcon_h1", "granitemoehybrid", "bamba"]
FIXTURES = sorted(p for p in CONFIGS.glob("*.json")
                  if json.loads(p.read_text(encoding="utf-8"))["model_type"] in HYBRID_READERS)

# The part of a layer's module, by its class: a mixer's parameters (its norms too) are its part; attention's own
# norms (QK norms, MLA's latent norm) are norms, as count_params counts them.
MODULE_PARTS = [
    ("linear_attention", r"GatedDeltaNet$|DeltaAttention$"),
    ("mamba", r"Mamba2?Mixer$|MambaLayer$|BambaMixer$|FalconH1Mixer$"),
    ("short_conv", r"ShortConv$"),
    ("attention", r"Attention$"),
]


def _default(model_type: str) -> dict:
    transformers = require("transformers")
    return transformers.AutoConfig.for_model(model_type).to_dict()


def _measured(model, cfg) -> dict:
    """Parameters by part, each layer's modules classified by class, the rest by name as test_hf_configs does."""
    owners = {}
    for name, module in model.named_modules():
        if re.fullmatch(r"model\.layers\.\d+\.\w+", name):
            owners[name + "."] = type(module).__name__
    measured = {}
    for name, p in model.named_parameters():
        prefix = re.match(r"model\.layers\.\d+\.\w+\.", name)
        kind = owners.get(prefix.group(0)) if prefix else None
        part = next((part for part, pattern in MODULE_PARTS if kind and re.search(pattern, kind)), None)
        if part == "attention" and re.search(r"norm\.weight$", name):
            part = "norms"
        if part is None and kind and re.search(r"MLP$", kind) and not re.search(r"shared_expert", name):
            # Granite 4.0-H's shared_mlp is its shared expert beside a MoE, its FFN without one.
            part = "shared_experts" if ".shared_mlp." in name and cfg.is_moe else "ffn"
        if part is None and re.search(r"\.mixer\.gate\.weight$", name):  # Nemotron-H's router
            part = "router"
        if name == "model.embeddings.weight":  # Nemotron-H's token embedding
            part = "embeddings"
        if part is None:
            part = next(part for part, pattern in PART_OF_NAME if re.search(pattern, name))
        measured[part] = measured.get(part, 0) + p.numel()
    return measured


CASES = [f"default {t}" for t in HYBRID_TYPES] + FIXTURES


@pytest.fixture(scope="module", params=CASES, ids=lambda p: p if isinstance(p, str) else p.stem)
def built(request):
    if isinstance(request.param, str):
        config = _default(request.param.split()[1])
    else:
        config = json.loads(request.param.read_text(encoding="utf-8"))
    return config, _meta_model(config)


def test_every_hybrid_type_has_a_published_fixture_and_a_reader():
    types = {json.loads(p.read_text(encoding="utf-8"))["model_type"] for p in FIXTURES}
    assert set(HYBRID_TYPES) == types == set(HYBRID_READERS)


def test_total_equals_transformers(built):
    config, model = built
    assert le.count_params(le.ModelConfig.from_hf_config(config)).total == sum(p.numel() for p in model.parameters())


def test_every_part_equals_transformers(built):
    config, model = built
    cfg = le.ModelConfig.from_hf_config(config)
    count = le.count_params(cfg)
    assert {k: n for k, n in count.parts.items() if n} == _measured(model, cfg)


def test_active_equals_transformers_minus_unused_experts(built):
    config, model = built
    cfg = le.ModelConfig.from_hf_config(config)
    unused = 0
    for name, module in model.named_modules():
        if name.endswith(".experts"):
            per_expert = sum(p.numel() for p in module.parameters()) // cfg.num_experts
            unused += (cfg.num_experts - cfg.experts_per_token) * per_expert
    assert le.count_params(cfg).active == sum(p.numel() for p in model.parameters()) - unused


# Published totals, as the model cards and reports state them, against the exact count of each fixture.
PUBLISHED = {
    "qwen3-next-80b-a3b": (80e9, 0.01), "kimi-linear-48b-a3b": (48e9, 0.03), "lfm2-1.2b": (1.17e9, 0.005),
    "jamba-1.5-mini": (52e9, 0.01),
    "granite-4.0-h-tiny": (7e9, 0.02), "granite-4.0-h-1b": (1.5e9, 0.03), "bamba-9b": (9.78e9, 0.001),
}


@pytest.mark.parametrize("stem", sorted(PUBLISHED))
def test_fixture_totals_are_the_published_sizes(stem):
    total = le.count_params(le.ModelConfig.from_hf_config(CONFIGS / f"{stem}.json")).total
    size, tolerance = PUBLISHED[stem]
    assert abs(total / size - 1) <= tolerance


def test_the_table_names_each_kind_of_block_and_its_layers():
    count = le.count_params(le.ModelConfig.from_hf_config(CONFIGS / "qwen3-next-80b-a3b.json"))
    assert dict(count.layers) == {"attention": 12, "linear_attention": 36, "experts": 48}
    assert "attention (12 layers)" in count.table() and "linear_attention (36 layers)" in count.table()
    nemotron = le.count_params(le.ModelConfig.from_hf_config(CONFIGS / "nemotron-nano-12b-v2-base.json"))
    assert dict(nemotron.layers) == {"attention": 6, "mamba": 28, "ffn": 28}
    assert le.count_params(le.preset("llama-2-7b")).layers == ()  # a plain transformer's table is as before


def test_mamba2_formula_is_symbolic_and_matches_one_layer():
    sympy = require("sympy")
    H, n, d, g, s, k = sympy.symbols("H n d g s k", positive=True, integer=True)
    inner = n * d
    by_shapes = H * (2 * inner + 2 * g * s + n) + (inner + 2 * g * s) * (k + 1) + 3 * n + inner + inner * H
    assert sympy.simplify(mamba2_params(H, n, d, g, s, k) - by_shapes) == 0
    assert sympy.expand(mamba2_state(n, d, g, s, k)) == sympy.expand(n * d * s + (n * d + 2 * g * s) * k)


# Small models of each type, run for real on the CPU: what their cache holds after a forward pass.
SMALL = {
    "qwen3_next": dict(hidden_size=64, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                       linear_num_key_heads=2, linear_key_head_dim=8, linear_num_value_heads=4,
                       linear_value_head_dim=12, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       shared_expert_intermediate_size=32, vocab_size=100),
    "kimi_linear": dict(hidden_size=64, num_hidden_layers=5, num_attention_heads=4, num_key_value_heads=4,
                        vocab_size=100, linear_num_heads=4, linear_head_dim=16, kv_lora_rank=16, qk_rope_head_dim=8,
                        qk_nope_head_dim=8, v_head_dim=8, num_experts=4, num_experts_per_token=2,
                        moe_intermediate_size=32, intermediate_size=64, pad_token_id=0, bos_token_id=1,
                        eos_token_id=2),
    "lfm2": dict(hidden_size=64, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, vocab_size=100,
                 intermediate_size=96, full_attn_idxs=[1, 3]),
    "nemotron_h": dict(hidden_size=64, layers_block_type=["linear_attention", "mlp", "full_attention", "moe"],
                       num_attention_heads=4, num_key_value_heads=2, head_dim=16, mamba_num_heads=8, mamba_head_dim=12,
                       n_groups=2, ssm_state_size=16, intermediate_size=96, n_routed_experts=4,
                       moe_intermediate_size=32, moe_shared_expert_intermediate_size=32, vocab_size=100),
    "jamba": dict(hidden_size=64, num_hidden_layers=4, attn_layer_period=2, attn_layer_offset=1, num_attention_heads=4,
                  num_key_value_heads=2, num_experts=4, intermediate_size=96, vocab_size=100, use_mamba_kernels=False),
    "falcon_h1": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                      mamba_d_ssm=96, mamba_n_heads=8, mamba_n_groups=2, mamba_d_state=16, intermediate_size=96,
                      vocab_size=100),
    "granitemoehybrid": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                             layer_types=["mamba", "attention"], mamba_n_heads=8, mamba_n_groups=2, mamba_d_state=16,
                             intermediate_size=32, shared_intermediate_size=48, num_local_experts=4, vocab_size=100),
    "bamba": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                  attn_layer_indices=[1], mamba_n_heads=8, mamba_n_groups=2, mamba_d_state=16, intermediate_size=96,
                  vocab_size=100),
}


@pytest.mark.parametrize("model_type", sorted(SMALL))
def test_state_and_kv_cache_equal_what_transformers_caches(model_type):
    torch = require("torch")
    transformers = require("transformers")
    transformers.logging.set_verbosity_error()
    hf_config = transformers.AutoConfig.for_model(model_type, **SMALL[model_type])
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(hf_config).to(torch.bfloat16).eval()
    tokens = 7
    with torch.no_grad():
        cache = model(input_ids=torch.randint(3, 100, (1, tokens)), use_cache=True).past_key_values
    shapes, state_bytes, kv_bytes = [], 0, 0
    for layer in cache.layers:
        recurrent, conv = ([t for t in (getattr(layer, name, None) or {}).values() if t is not None]
                           for name in ("recurrent_states", "conv_states"))
        if recurrent or conv:
            shapes.append((sum(t.numel() for t in recurrent), sum(t.numel() for t in conv)))
        state_bytes += sum(t.nbytes for t in recurrent + conv)
        kv_bytes += sum(t.nbytes for t in [getattr(layer, name, None) for name in ("keys", "values")] if t is not None)
    cfg = le.ModelConfig.from_hf_config(hf_config.to_dict())
    assert len(shapes) == cfg.mixer_layers and shapes
    assert set(shapes) == {mixer_state_values(cfg.mixer, cfg.hidden_size)}  # (recurrent, conv) values, each layer
    # In bytes, as this model runs in BF16: the recurrent state in FP32, the convolution window and KV in BF16
    assert state_bytes_per_sequence(cfg) == state_bytes
    assert kv_cache_bytes_for(cfg, tokens) == kv_bytes  # the attention layers only
    assert hybrid_cache_bytes_for(cfg, tokens) == kv_bytes + state_bytes


def test_a_hybrid_cache_at_a_million_tokens_is_its_attention_layers_plus_a_constant():
    cfg = le.ModelConfig.from_hf_config(CONFIGS / "qwen3-next-80b-a3b.json")
    state = state_bytes_per_sequence(cfg)
    # 36 gated-DeltaNet layers: 32 value heads of a 128 × 128 matrix in FP32, and q, k, v's last 4 inputs (8,192
    # channels) in BF16
    assert state == 36 * (32 * 128 * 128 * 4 + (2 * 16 * 128 + 32 * 128) * 4 * 2)
    for tokens in (131072, 1048576):
        kv = 12 * 2 * 2 * 256 * tokens * 2  # 12 attention layers, 2 KV heads of 256
        assert hybrid_cache_bytes_for(cfg, tokens) == kv + state
    dense = cfg.replace(mixer=None, mixer_layers=None, attention_layers=None)  # every layer attention
    assert kv_cache_bytes_for(dense, 1048576) == 4 * kv_cache_bytes_for(cfg, 1048576)


@pytest.mark.parametrize("bad, param", [
    ({"mixer_layers": 3}, "mixer_layers"),
    ({"mixer": {"kind": "mamba3"}}, "mixer"),
    ({"mixer": {"kind": "short_conv"}}, "conv_L_cache"),
    ({"mixer": {"kind": "short_conv", "conv_L_cache": 3, "width": 2}}, "width"),
    ({"attention_layers": 9}, "attention_layers"),
    ({"ffn_layers": -1}, "ffn_layers"),
])
def test_bad_hybrid_fields_are_refused_by_name(bad, param):
    with pytest.raises(le.InputError) as err:
        le.ModelConfig(vocab_size=100, hidden_size=64, num_layers=8, num_heads=4, **bad)
    assert err.value.param == param


def test_a_nemotron_pattern_with_an_unknown_block_is_refused():
    config = json.loads((CONFIGS / "nemotron-nano-12b-v2-base.json").read_text(encoding="utf-8"))
    with pytest.raises(le.InputError, match="hybrid_override_pattern"):
        le.ModelConfig.from_hf_config(dict(config, hybrid_override_pattern="M-X*"))
