"""The KV cache: what each layer keeps per token, by architecture (llmest.formulas.memory's, re-exported there).

Full attention keeps K and V of every token: 2 · kv_heads · head_dim values a layer (GQA and MQA keep fewer
heads). Multi-head latent attention (DeepSeek-V2, V3) keeps the compressed latent and the one rotary key the heads
share: kv_lora_rank + qk_rope_head_dim values a layer, whatever the number of heads. A local layer (a sliding window,
or Llama 4's chunks) keeps at most the window less one token: the new token attends to itself and the window's other
tokens, as transformers' DynamicSlidingWindowLayer stores them.
"""

from __future__ import annotations

from ..core import _validate as v
from ..core.i18n import _
from .model import config_from
from .deepseek_v4 import refuse_compressed_attention

BYTES_PER_VALUE = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


@v.checked
def kv_cache_bytes(layers, kv_heads, head_dim, seq_len, batch=1, bytes_per_value=2):
    """K and V for every layer and token: 2 · L · kv_heads · head_dim · bytes · seq_len · batch."""
    return 2 * layers * kv_heads * head_dim * bytes_per_value * seq_len * batch


@v.checked
def mla_kv_cache_bytes(layers, kv_lora_rank, qk_rope_head_dim, seq_len, batch=1, bytes_per_value=2):
    """Multi-head latent attention's cache: the latent and the shared rotary key of every layer and token,
    L · (kv_lora_rank + qk_rope_head_dim) · bytes · seq_len · batch."""
    return layers * (kv_lora_rank + qk_rope_head_dim) * bytes_per_value * seq_len * batch


@v.checked
def at_most(tokens, window):
    """The tokens a local layer sees: min(tokens, window), for numbers, NumPy arrays and SymPy symbols alike."""
    if v.is_symbolic(tokens):
        import sympy  # only when the caller is already working in SymPy

        return sympy.Min(tokens, window)
    if type(tokens).__name__ == "ndarray":
        import numpy

        return numpy.minimum(tokens, window)
    return min(tokens, window)


@v.checked
def cached_tokens(seq_len, window=None):
    """Tokens a layer keeps: all of them, or at most ``window`` − 1 on a local layer (``window`` None: all)."""
    return seq_len if window is None else at_most(seq_len, window - 1)


@v.checked
def kv_cache_bytes_for(model, seq_len, batch=1, dtype="bf16") -> float:
    """The KV cache of a real model, layer by layer as it is built: its KV heads and head width (GQA, MQA), MLA's
    latent, and its local layers' windows. A hybrid's layers without attention keep no KV cache (their constant
    state is llmest.formulas.hybrid_cache's)."""
    cfg = config_from(model)
    refuse_compressed_attention(cfg, _("its KV cache"))
    size = v.lookup("dtype", dtype, BYTES_PER_VALUE)
    full, local = cfg.attention_layers - cfg.local_layers, cfg.local_layers

    def cache(layers, tokens):
        if cfg.is_mla:
            return mla_kv_cache_bytes(layers, cfg.kv_lora_rank, cfg.qk_rope_head_dim, tokens, batch, size)
        return kv_cache_bytes(layers, cfg.num_kv_heads, cfg.head_dim, tokens, batch, size)

    total = cache(full, seq_len) if full else 0
    if local:
        total = total + cache(local, cached_tokens(seq_len, cfg.local_window))
    return total


# ----------------------------------------------------------------------------------------------------------------
# A paged cache: tokens kept in blocks of a fixed number of slots
# ----------------------------------------------------------------------------------------------------------------

# vLLM's default block size: 16 tokens a block (CacheConfig.DEFAULT_BLOCK_SIZE = 16 in vllm/config/cache.py, read
# at docs.vllm.ai/en/stable/api/vllm/config/cache/; its docs say CUDA supports blocks of up to 32).
BLOCK_TOKENS = 16


@v.checked
def kv_blocks(tokens, block_tokens=BLOCK_TOKENS):
    """The blocks a sequence of ``tokens`` takes: ⌈tokens / block⌉ (a block is allocated whole)."""
    return -(-tokens // block_tokens)


@v.checked
def paged_tokens(tokens, block_tokens=BLOCK_TOKENS):
    """The token slots a sequence holds in whole blocks: ⌈tokens / block⌉ · block."""
    return kv_blocks(tokens, block_tokens) * block_tokens


@v.checked
def paged_waste_tokens(tokens, block_tokens=BLOCK_TOKENS):
    """The empty slots of a sequence's last, partly filled block: ⌈tokens / block⌉ · block − tokens, from 0 to
    block − 1: paging wastes at most one block a sequence (Kwon et al. 2023, the PagedAttention paper, §4.2;
    not read in a stored copy)."""
    return paged_tokens(tokens, block_tokens) - tokens


@v.checked
def sequences_that_fit(memory_bytes, weight_bytes, kv_bytes_per_sequence, overhead_bytes=0):
    """The most sequences whose KV cache fits beside the weights and the runtime's overhead:
    ⌊(memory − weights − overhead) / KV per sequence⌋; refused where the weights and overhead alone do not fit."""
    if weight_bytes + overhead_bytes > memory_bytes:
        raise v.InputError("weight_bytes", _(
            "weight_bytes == {weights:g} and overhead_bytes == {overhead:g} are more than memory_bytes == {memory:g}: "
            "the weights alone do not fit, so no sequence does.").format(
            weights=weight_bytes, overhead=overhead_bytes, memory=memory_bytes))
    return (memory_bytes - weight_bytes - overhead_bytes) // kv_bytes_per_sequence


@v.checked
def kv_cache_shards(model, tp) -> int:
    """The share of the KV cache one of ``tp`` tensor-parallel GPUs holds is 1 / this. KV heads are split whole,
    so past ``kv_heads`` GPUs they are copied (each GPU keeps max(1, kv_heads // tp) heads); MLA's latent serves
    every head, so each GPU keeps all of it: 1. As vLLM's ModelConfig.get_num_kv_heads counts them (MLA "becomes
    MQA" in decode), read in a stored copy of vllm/config.py."""
    cfg = config_from(model)
    if cfg.is_mla:
        return 1
    return cfg.num_kv_heads // max(1, cfg.num_kv_heads // tp)
