"""Memory: conventions against published accounting and measured PyTorch bytes, KV cache and LoRA against real
implementations, ZeRO and scaling properties, and bad input."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmest as le
from llmest import memory as mem
from llmest import plans
from llmest.formulas.readers.config_file import CONFIGS
from conftest import require

FIXTURES = CONFIGS


# ----------------------------------------------------------------------------------------------------------------
# Conventions: published accounting
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("convention, optimizer, total", [
    ("mixed", "adamw", 16),            # ZeRO paper (Rajbhandari et al. 2020): 2Ψ + 2Ψ + 12Ψ
    ("megatron-bf16", "adamw", 18),    # Megatron-LM distributed optimizer docs: bf16 params, fp32 grads
    ("fp32", "adamw", 16),             # Megatron-LM docs: fp32 params and grads
    ("bf16", "adamw", 8),
    ("bf16-fp32-states", "adamw", 12),
    ("bf16-fp32-states-fused", "adamw", 10),
    ("mixed", "sgd-momentum", 12),
    ("mixed", "adafactor", 8),
])
def test_bytes_per_parameter(convention, optimizer, total):
    assert mem.state_bytes_per_param(convention, optimizer).total == total


def test_8bit_adam_keeps_two_bytes_of_moments_plus_block_constants():
    per_param = mem.state_bytes_per_param("mixed", "adam8bit")
    assert per_param.optimizer == pytest.approx(2 + 2 * 4 / 2048)


# ----------------------------------------------------------------------------------------------------------------
# Conventions: measured with PyTorch on the CPU after one AdamW step
# ----------------------------------------------------------------------------------------------------------------

def _adamw_bytes_per_param(dtype_name: str, master: bool) -> float:
    torch = require("torch")
    dtype = getattr(torch, dtype_name)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)).to(dtype)
    params = list(model.parameters())
    if master:  # mixed precision by hand: the optimizer updates fp32 copies, copied back to the bf16 model
        masters = [p.detach().float().clone().requires_grad_(True) for p in params]
        optimizer = torch.optim.AdamW(masters)
    else:
        optimizer = torch.optim.AdamW(params)
    model(torch.randn(8, 64, dtype=dtype)).square().mean().backward()
    if master:
        for m, p in zip(masters, params):
            m.grad = p.grad.float()
        optimizer.step()
        for m in masters:
            m.grad = None  # the fp32 gradient is transient; the model keeps its bf16 one
    else:
        optimizer.step()
    held = [p for p in params] + [p.grad for p in params]
    held += [t for state in optimizer.state.values() for t in state.values() if t.dim() > 0]
    if master:
        held += masters
    n = sum(p.numel() for p in params)
    return sum(t.numel() * t.element_size() for t in held) / n


@pytest.mark.parametrize("dtype, master, convention", [
    ("float32", False, "fp32"), ("bfloat16", False, "bf16"), ("bfloat16", True, "mixed"),
])
def test_measured_adamw_bytes_match_the_convention(dtype, master, convention):
    assert _adamw_bytes_per_param(dtype, master) == mem.state_bytes_per_param(convention).total


# ----------------------------------------------------------------------------------------------------------------
# KV cache, LoRA and quantised weights against real implementations
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, kib_per_token", [
    ("llama-2-7b", 512), ("llama-3-8b", 128), ("mistral-7b", 128), ("llama-2-70b", 320)])
def test_kv_cache_per_token(model, kib_per_token):
    assert mem.kv_cache_bytes_for(model, seq_len=1) == kib_per_token * 1024


def test_kv_cache_equals_transformers_cache():
    torch, transformers = require("torch"), require("transformers")
    transformers.logging.set_verbosity_error()
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=3,
                                      num_attention_heads=4, num_key_value_heads=2)
    model = transformers.LlamaForCausalLM(config).to(torch.bfloat16)
    cache = model(torch.randint(0, 100, (2, 7)), use_cache=True).past_key_values
    measured = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    cfg = le.ModelConfig.from_hf_config(config.to_dict())
    assert measured == mem.kv_cache_bytes_for(cfg, seq_len=7, batch=2)


@pytest.mark.parametrize("fixture, targets", [
    ("llama-2-70b", mem.LORA_TARGETS), ("llama-2-70b", ("q_proj", "v_proj")), ("mistral-7b-v0.1", ("k_proj",)),
    ("qwen2-7b", ("o_proj", "down_proj")),
])
def test_lora_params_equal_peft(fixture, targets):
    torch, transformers, peft = require("torch"), require("transformers"), require("peft")
    transformers.logging.set_verbosity_error()
    config = json.loads((FIXTURES / f"{fixture}.json").read_text(encoding="utf-8"))
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**config))
        model = peft.get_peft_model(model, peft.LoraConfig(r=16, target_modules=list(targets)))
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == mem.lora_params(le.ModelConfig.from_hf_config(config), 16, targets)


def test_nf4_constants_as_in_the_qlora_paper():
    # QLoRA (Dettmers et al. 2023): absmax constants cost 32/64 = 0.5 bits a parameter, 0.127 with double quantisation
    assert (mem.WEIGHT_FORMATS["nf4"].bytes_per_param - 0.5) * 8 == pytest.approx(0.5)
    assert (mem.WEIGHT_FORMATS["nf4-dq"].bytes_per_param - 0.5) * 8 == pytest.approx(0.127, abs=5e-4)


def test_korthikanti_gpt3_attention_term():
    # Korthikanti et al. 2022: for GPT-3 (a = 96, s = 2048, h = 12288) 5as/h = 80
    s, b, h, a = 2048, 1, 12288, 96
    assert mem.layer_activation_bytes(s, b, h, a) / (s * b * h) == 34 + 80
    assert mem.layer_activation_bytes(s, b, h, a, tp=8) / (s * b * h) == 10 + 24 / 8 + 80 / 8
    assert mem.layer_activation_bytes(s, b, h, a, tp=8, sequence_parallel=True) / (s * b * h) == (34 + 80) / 8
    assert mem.layer_activation_bytes(s, b, h, a, recompute="selective") == mem.layer_activation_bytes(
        s, b, h, a, flash=True) == 34 * s * b * h
    assert mem.layer_activation_bytes(s, b, h, a, recompute="full") == 2 * s * b * h


def test_llama_layer_activations():
    # Llama-2-7B, per sbh: each of the 2 RMSNorms as transformers' LlamaRMSNorm saves it (its input in FP32, 4; the
    # normalised input in BF16, 2; 1/rms in FP32, 4 bytes per token), QKV input 2, Q 2, K and V 4 (MHA), attention
    # output 2, FFN input 2, gate/up/activation/product 4 · 2 · F/h; plus 2as/h of softmax output without
    # FlashAttention. With a fused norm that keeps its 16-bit input: 2 per norm, no per-token term.
    cfg = le.preset("llama-2-7b")
    s, b, h = 4096, 1, cfg.hidden_size
    rest = 2 + 2 + 4 + 2 + 2 + 8 * cfg.ffn_hidden_size / h
    expected = 2 * (4 + 2 + 4 / h) + rest
    assert mem.model_layer_activation_bytes(cfg, b, s, flash=True) == pytest.approx(expected * s * b * h)
    assert mem.model_layer_activation_bytes(cfg, b, s, flash=False) == pytest.approx(
        (expected + 2 * cfg.num_heads * s / h) * s * b * h)
    assert mem.model_layer_activation_bytes(cfg, b, s, fp32_norms=False) == pytest.approx((2 * 2 + rest) * s * b * h)
    gqa = le.preset("llama-2-70b")  # 8 KV heads of 128: K and V shrink to 2·2·s·b·1024
    per_sbh = mem.model_layer_activation_bytes(gqa, 1, 1024, flash=True, fp32_norms=False) / (1024 * gqa.hidden_size)
    assert per_sbh == pytest.approx(12 + 4 * 1024 / 8192 + 8 * 28672 / 8192)
    # The output layer: the final norm the same way, the head's BF16 input, the FP32 logits.
    V = cfg.vocab_size
    assert mem.output_activation_bytes(s, b, h, V) == 4 * s * b * h + 2 * s * b * h + 4 * s * b + 2 * s * b * h + 4 * s * b * V
    assert mem.output_activation_bytes(s, b, h, V, fp32_norms=False) == 4 * s * b * h * (1 + V / h)
    # GPT-2's LayerNorm keeps no FP32 copy: its count does not move.
    gpt2 = le.preset("gpt2")
    assert mem.activations_per_gpu(gpt2, 1, 1024) == mem.activations_per_gpu(gpt2, 1, 1024, fp32_norms=False)


def test_communication_and_bubble():
    assert mem.data_parallel_traffic_bytes(7e9) == 2 * 7e9 * 2
    assert mem.data_parallel_traffic_bytes(7e9, zero=3) == 3 * 7e9 * 2
    # A ring over 2 GPUs sends half the data per collective; over 1 GPU nothing.
    assert mem.data_parallel_traffic_bytes(7e9, dp=2) == 7e9 * 2
    assert mem.data_parallel_traffic_bytes(7e9, dp=1) == 0
    assert mem.pipeline_bubble(4, 12) == pytest.approx(3 / 15)


# ----------------------------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------------------------

models = st.sampled_from(["llama-2-7b", "mistral-7b", "gpt2", "qwen2-7b", "mixtral-8x7b", "falcon-7b"])


@settings(max_examples=60)
@given(models, st.sampled_from(list(mem.CONVENTIONS)), st.sampled_from(list(mem.OPTIMIZERS)),
       st.integers(1, 512), st.integers(1, 16), st.sampled_from([512, 2048, 8192]))
def test_zero_stages_never_increase_memory(model, convention, optimizer, dp, micro_batch, seq_len):
    # The states and activations each stage holds, for any model, setup and dp. DeepSpeed's buffers come on top
    # (a reduce bucket of 5e8 elements from stage 1, gathered parameters at stage 3) and are fixed sizes, so with
    # them the order needs a model whose sharding saves more than they take: the next test.
    per_gpu = [plans.training_memory(model, convention=convention, optimizer=optimizer, zero=z, dp=dp,
                                   micro_batch=micro_batch, seq_len=seq_len) for z in range(4)]
    held = [b.total - b["buffers"] for b in per_gpu]
    assert held[3] <= held[2] <= held[1] <= held[0]


@settings(max_examples=60)
@given(st.sampled_from(["llama-2-7b", "mistral-7b", "qwen2-7b", "mixtral-8x7b", "llama-2-70b"]),
       st.sampled_from(["mixed", "megatron-bf16", "fp32", "bf16-fp32-states"]), st.integers(2, 512),
       st.sampled_from(["none", "full"]))
def test_zero_stages_never_increase_memory_with_deepspeeds_buffers(model, convention, dp, recompute):
    per_gpu = [plans.training_memory(model, convention=convention, zero=z, dp=dp, seq_len=4096,
                                   recompute=recompute).total for z in range(4)]
    assert per_gpu[3] <= per_gpu[2] <= per_gpu[1] <= per_gpu[0]


def test_a_small_model_pays_more_for_zero_1s_bucket_than_it_saves():
    # GPT-2 (124M parameters) on 2 GPUs: ZeRO-1 shards 12 bytes per parameter (1.5 GB, half of it saved) but
    # DeepSpeed allocates its 5e8-element BF16 reduce bucket (1 GB) whatever the model's size.
    plain, zero1 = (plans.training_memory("gpt2", zero=z, dp=2) for z in (0, 1))
    saved = le.count_params(le.preset("gpt2")).total * 12 / 2
    assert zero1["buffers"] == 5e8 * 2
    assert zero1.total - plain.total == pytest.approx(1e9 - saved)
    assert zero1.total > plain.total


@settings(max_examples=60)
@given(models, st.integers(1, 32), st.integers(64, 8192), st.sampled_from(mem.RECOMPUTE), st.booleans())
def test_memory_grows_with_batch_and_sequence(model, micro_batch, seq_len, recompute, flash):
    def total(b, s):
        return plans.training_memory(model, micro_batch=b, seq_len=s, recompute=recompute, flash=flash).total
    assert total(micro_batch + 1, seq_len) > total(micro_batch, seq_len)
    assert total(micro_batch, seq_len + 64) > total(micro_batch, seq_len)


@given(st.integers(1, 128), st.sampled_from([1, 2, 4, 8, 16, 32, 64]), st.integers(1, 100_000), st.integers(1, 64))
def test_kv_cache_scales_with_kv_heads_not_heads(layers, kv_heads, tokens, batch):
    heads = 64
    cfg = le.ModelConfig(vocab_size=1000, hidden_size=heads * 128, num_layers=layers, num_heads=heads,
                         num_kv_heads=kv_heads)
    assert mem.kv_cache_bytes_for(cfg, tokens, batch) == mem.kv_cache_bytes_for(
        cfg.replace(num_heads=heads * 2, head_dim=128), tokens, batch)
    assert mem.kv_cache_bytes_for(cfg, tokens, batch) * 2 == mem.kv_cache_bytes_for(
        cfg.replace(num_heads=128, num_kv_heads=2 * kv_heads, head_dim=128), tokens, batch)


@given(st.sampled_from(["llama-2-7b", "llama-2-70b", "mistral-7b", "qwen2-7b", "gemma-7b", "mixtral-8x7b"]),
       st.sampled_from(["nf4", "nf4-dq", "int4"]))
def test_4bit_base_is_a_quarter_of_bf16_plus_constants(model, fmt):
    cfg = le.preset(model)
    quantized = mem.quantizable_params(cfg)
    bf16, four_bit = mem.model_weight_bytes(cfg, "bf16"), mem.model_weight_bytes(cfg, fmt)
    constants = quantized * mem.WEIGHT_FORMATS[fmt].constant_bytes / mem.WEIGHT_FORMATS[fmt].block
    assert four_bit == pytest.approx(bf16 - quantized * 2 + quantized * 2 / 4 + constants)


# ----------------------------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: plans.training_memory("llama-2-7b", micro_batch=-1), "micro_batch == -1, must be >= 1."),
    (lambda: plans.training_memory("llama-2-7b", zero=4), "zero == 4, must be <= 3."),
    (lambda: plans.training_memory("llama-2-7b", convention="bf32"), "convention == 'bf32', must be one of"),
    (lambda: plans.training_memory("llama-2-7b", tp=3), "tp == 3 must divide the attention heads (32 % 3 != 0)."),
    (lambda: plans.training_memory("llama-2-7b", optimizer="lion"), "optimizer == 'lion', must be one of"),
    (lambda: plans.training_memory("llama-2-7b", recompute="some"), "recompute == 'some', must be one of"),
    (lambda: mem.kv_cache_bytes_for("llama-2-7b", 2048, dtype="fp12"), "dtype == 'fp12', must be one of"),
    (lambda: mem.kv_cache_bytes_for("llama-2-7b", 0), "seq_len == 0, must be > 0."),
    (lambda: plans.inference_memory("llama-2-70b", weights="int3"), "weights == 'int3', must be one of"),
    (lambda: mem.lora_params("llama-2-7b", 0), "rank == 0, must be >= 1."),
    (lambda: mem.lora_params("llama-2-7b", 8, ["qproj"]), "Did you mean 'q_proj'"),
    (lambda: mem.lora_params("mixtral-8x7b", 8, ["up_proj"]), "adapters on expert FFNs are not modelled"),
    (lambda: plans.usable_bytes("A100"), "Did you mean"),
    (lambda: plans.usable_bytes("H100 SXM", margin=1.2), "margin == 1.2, must be in [0, 1)."),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(le.InputError) as err:
        call()
    assert message in str(err.value)
