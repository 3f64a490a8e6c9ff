"""The KV cache by architecture against transformers' own cache objects: full attention (GQA), multi-head latent
attention, sliding windows (every layer, alternating, five in six) and Llama 4's chunks, on small configs run for
real; and the local layers of every fixture as transformers' cache would lay them out."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import llmest as le
from conftest import require
from llmest import config_file
from llmest import memory as mem

FIXTURES = sorted(config_file.CONFIGS.glob("*.json"))
SMALL = dict(vocab_size=100, hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2)
MOE = dict(moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1, n_group=1,
           topk_group=1)
CONFIGS = {
    "llama (GQA)": dict(SMALL, model_type="llama", num_hidden_layers=3),
    "mistral (window on every layer)": dict(SMALL, model_type="mistral", num_hidden_layers=2, sliding_window=4),
    "gemma2 (alternating)": dict(SMALL, model_type="gemma2", num_hidden_layers=4, head_dim=16, sliding_window=4),
    "gemma3_text (five in six)": dict(SMALL, model_type="gemma3_text", num_hidden_layers=7, head_dim=16,
                                      sliding_window=5),
    "gpt_oss (alternating, sinks)": dict(SMALL, model_type="gpt_oss", num_hidden_layers=4, head_dim=16,
                                         sliding_window=4, num_local_experts=4, num_experts_per_tok=2),
    "llama4_text (chunks)": dict(SMALL, model_type="llama4_text", num_hidden_layers=4, head_dim=16,
                                 intermediate_size=32, intermediate_size_mlp=128, attention_chunk_size=4,
                                 num_local_experts=2, num_experts_per_tok=1),
    "deepseek_v3 (MLA, query latent)": dict(SMALL, **MOE, model_type="deepseek_v3", num_hidden_layers=2,
                                            num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=24,
                                            qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=12,
                                            first_k_dense_replace=1),
    "deepseek_v2 (MLA)": dict(SMALL, **MOE, model_type="deepseek_v2", num_hidden_layers=2, num_key_value_heads=4,
                              kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8, qk_nope_head_dim=16,
                              v_head_dim=12, first_k_dense_replace=1),
}


def measured_cache_bytes(config: dict, tokens: int, batch: int) -> int:
    torch, transformers = require("torch"), require("transformers")
    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
    model = model.to(torch.bfloat16).eval()
    with torch.no_grad():
        cache = model(torch.randint(0, 100, (batch, tokens)), use_cache=True).past_key_values
    return sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("tokens", [3, 9])  # within the windows, and past them
def test_the_kv_cache_equals_transformers_cache(name, tokens):
    config = CONFIGS[name]
    cfg = le.ModelConfig.from_hf_config(config)
    assert mem.kv_cache_bytes_for(cfg, seq_len=tokens, batch=2) == measured_cache_bytes(config, tokens, 2)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_local_layers_are_those_transformers_caches_by_window(path):
    transformers = require("transformers")
    from transformers.cache_utils import get_layer_types_and_kwargs

    transformers.logging.set_verbosity_error()
    config = json.loads(path.read_text(encoding="utf-8"))
    types, kwargs = get_layer_types_and_kwargs(transformers.AutoConfig.for_model(**config).get_text_config())
    # The windowed layers (sliding or chunked): a hybrid's Mamba, linear-attention and MLP-only layers have none.
    windows = [k["sliding_window"] for k in kwargs if "sliding_window" in k]
    cfg = le.ModelConfig.from_hf_config(config)
    assert cfg.local_layers == len(windows)
    assert set(windows) == ({cfg.local_window} if windows else set())


def test_deepseek_v3_caches_a_fifth_of_llama_3_70b_per_token():
    """DeepSeek-V3 keeps 576 values a layer (512 latent + 64 rotary) in 61 layers; Llama-3-70B keeps 2 · 8 · 128 in
    80. Per token in BF16: 70,272 bytes against 327,680."""
    v3 = le.ModelConfig.from_hf_config(FIXTURES[0].parent / "deepseek-v3.json")
    llama = le.ModelConfig.from_hf_config(FIXTURES[0].parent / "llama-3.1-70b.json")
    assert mem.kv_cache_bytes_for(v3, 1) == 61 * (512 + 64) * 2 == 70_272
    assert mem.kv_cache_bytes_for(llama, 1) == 80 * 2 * 8 * 128 * 2 == 327_680
    # Caching every head's K and V instead (what MLA's latent replaces) would take 128 · (192 + 128) a layer:
    assert mem.kv_cache_bytes(61, 128, (192 + 128) / 2, 1) / mem.kv_cache_bytes_for(v3, 1) == pytest.approx(71.1, 0.01)


@given(st.integers(1, 10**6), st.integers(2, 10**5))
def test_a_local_layer_never_keeps_more_than_its_window(tokens, window):
    cfg = le.ModelConfig(vocab_size=1000, hidden_size=256, num_layers=4, num_heads=4, local_window=window)
    per_token = mem.kv_cache_bytes_for(cfg.replace(local_window=None), 1)
    assert mem.kv_cache_bytes_for(cfg, tokens) == per_token * min(tokens, window - 1)


def test_cached_tokens_works_on_arrays_and_symbols():
    sympy = pytest.importorskip("sympy")
    from llmest.formulas.kv_cache import cached_tokens

    np.testing.assert_array_equal(cached_tokens(np.array([1, 100, 5000]), 4096), [1, 100, 4095])
    T = sympy.Symbol("T", positive=True)
    assert cached_tokens(T, 4096) == sympy.Min(T, 4095)
