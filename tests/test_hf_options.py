"""The options of the new model types that their published configs leave at a default, each switched on a small
config and counted against transformers' own model on the meta device: total, and active where there are experts."""

import pytest

import llmest as le
from conftest import require

BASE = dict(vocab_size=256, hidden_size=64, intermediate_size=96, num_hidden_layers=4, num_attention_heads=4,
            num_key_value_heads=2, head_dim=16)
DEEPSEEK = dict(BASE, num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8,
                qk_nope_head_dim=8, v_head_dim=12, moe_intermediate_size=32, n_routed_experts=4,
                num_experts_per_tok=2, n_shared_experts=2, first_k_dense_replace=1, n_group=1, topk_group=1)
OPTIONS = {
    "deepseek_v3 with attention biases": dict(DEEPSEEK, model_type="deepseek_v3", attention_bias=True),
    "deepseek_v2 without a query latent, biases": dict(DEEPSEEK, model_type="deepseek_v2", q_lora_rank=None,
                                                      attention_bias=True),
    "deepseek_v3 all dense": dict(DEEPSEEK, model_type="deepseek_v3", first_k_dense_replace=4),
    "qwen3 with attention biases, tied": dict(BASE, model_type="qwen3", attention_bias=True,
                                             tie_word_embeddings=True),
    "qwen3_moe with dense layers and a sparse step": dict(BASE, model_type="qwen3_moe", num_experts=4,
                                                         num_experts_per_tok=2, moe_intermediate_size=32,
                                                         decoder_sparse_step=2, mlp_only_layers=[3]),
    "gemma2 with a layer pattern": dict(BASE, model_type="gemma2", sliding_window=8,
                                        layer_types=["sliding_attention", "sliding_attention", "full_attention",
                                                     "full_attention"]),
    "gemma3_text with its own pattern": dict(BASE, model_type="gemma3_text", sliding_window=8,
                                             sliding_window_pattern=2),
    "phi with QK layer norms": dict(BASE, model_type="phi", qk_layernorm=True, num_key_value_heads=4),
    "starcoder2 without biases, tied": dict(BASE, model_type="starcoder2", use_bias=False, tie_word_embeddings=True),
    "olmoe with attention biases": dict(BASE, model_type="olmoe", attention_bias=True, num_experts=4,
                                        num_experts_per_tok=2),
    "gpt_oss without attention biases": dict(BASE, model_type="gpt_oss", attention_bias=False, num_local_experts=4,
                                             num_experts_per_tok=2, sliding_window=8),
    "glm4 without attention biases": dict(BASE, model_type="glm4", attention_bias=False, pad_token_id=0),
    "glm4_moe with QK norms and biases": dict(BASE, model_type="glm4_moe", use_qk_norm=True, attention_bias=True,
                                              n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1,
                                              moe_intermediate_size=32, first_k_dense_replace=1, n_group=1,
                                              topk_group=1),
    "cohere with QK norms, untied": dict(BASE, model_type="cohere", use_qk_norm=True, tie_word_embeddings=False,
                                         num_key_value_heads=4),
    "granite with biases": dict(BASE, model_type="granite", attention_bias=True, mlp_bias=True),
    "llama4_text with dense layers between": dict(BASE, model_type="llama4_text", intermediate_size=32,
                                                  intermediate_size_mlp=96, num_local_experts=4,
                                                  num_experts_per_tok=1, interleave_moe_layer_step=2,
                                                  attention_chunk_size=8),
    "mistral without a window": dict(BASE, model_type="mistral", sliding_window=None),
}


def built(config: dict):
    torch, transformers = require("torch"), require("transformers")
    transformers.logging.set_verbosity_error()
    with torch.device("meta"):
        return transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))


@pytest.mark.parametrize("name", OPTIONS)
def test_the_option_counts_as_transformers_builds_it(name):
    config = OPTIONS[name]
    model = built(config)
    cfg = le.ModelConfig.from_hf_config(config)
    count = le.count_params(cfg)
    total = sum(p.numel() for p in model.parameters())
    assert count.total == total
    unused = sum((cfg.num_experts - cfg.experts_per_token) * sum(p.numel() for p in module.parameters())
                 // cfg.num_experts for module_name, module in model.named_modules() if module_name.endswith(".experts"))
    assert count.active == total - unused


def test_an_mpt_shape_transformers_cannot_build_is_refused():
    config = dict(model_type="mpt", vocab_size=256, d_model=64, n_heads=4, n_layers=2, expansion_ratio=2)
    with pytest.raises(le.InputError, match="'expansion_ratio' == 2: transformers' MPT builds expansion_ratio 4"):
        le.ModelConfig.from_hf_config(config)


def test_qwen3s_sliding_window_switch_is_refused_rather_than_ignored():
    with pytest.raises(le.InputError, match="'use_sliding_window' == true is not supported"):
        le.ModelConfig.from_hf_config(dict(BASE, model_type="qwen3", use_sliding_window=True, sliding_window=8))
