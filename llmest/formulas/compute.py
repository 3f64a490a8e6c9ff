"""FLOPs and time formulas: 6·N·D, MFU, GPU-hours, days, cost, the reverse budget, checkpoints, serving throughput.

Formulas (functions of plain numbers) use only + - * / and work on numbers, NumPy arrays and SymPy symbols.
``peak_flops_per_s`` is a GPU's dense peak for the precision in use (see ``llmest.catalog.hardware``); MFU (model FLOPs
utilisation) is the fraction of it that the model's own FLOPs achieve.
"""

from __future__ import annotations

from ..core import _validate as v
from . import memory as mem
from ..core.i18n import _
from .hybrid_cache import state_bytes_per_sequence
from .kv_cache import at_most
from .deepseek_v4 import refuse_compressed_attention
from .model import config_from, count_params
from ..core.units import DAYS_PER_YEAR, SECONDS_PER_DAY, SECONDS_PER_HOUR, format_count  # noqa: F401 (re-exported)
# The material's margins: add 15-25% to the computed time (checkpoints, evaluation, restarts), keep 20% of memory free.
TIME_MARGIN = (0.15, 0.25)


# ----------------------------------------------------------------------------------------------------------------
# FLOPs
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def forward_flops_per_token(n_params):
    """One multiply and one add per weight: 2·N."""
    return 2 * n_params


@v.checked(recompute=v.check_bool)
def training_flops_per_token(n_params, recompute=False):
    """Forward 2N plus backward 4N (gradients for the activations and for the weights, each as costly as the
    forward): 6N. Full recomputation runs the forward twice: 8N."""
    return (8 if recompute else 6) * n_params


@v.checked(recompute=v.check_bool)
def training_flops(n_params, tokens, recompute=False):
    """C ≈ 6·N·D (8·N·D with full recomputation)."""
    return training_flops_per_token(n_params, recompute) * tokens


@v.checked
def attention_flops_per_token(layers, heads, head_dim, seq_len):
    """The attention scores and their use on V, forward and backward, per token (PaLM, Appendix B): 12·L·H·Q·T.
    Not in 6N: they multiply activations by activations, not by weights."""
    return 12 * layers * heads * head_dim * seq_len


@v.checked
def attention_flops_per_token_for(model, seq_len):
    """The attention term of a real model, layer by layer: 6 · heads · (qk width + v width) · tokens seen, which is
    12·L·H·Q·T when queries, keys and values are Q wide. Multi-head latent attention's heads are wider for the
    scores (qk_nope + qk_rope: 192 in DeepSeek-V3) than for the values (128); a local layer sees at most its window
    (what a windowed kernel computes; an eager implementation still forms the whole T×T square, masked)."""
    cfg = config_from(model)
    per_layer, full, local = _attention_layers(cfg)
    flops = 3 * per_layer * full * seq_len
    return flops + 3 * per_layer * local * at_most(seq_len, cfg.local_window) if local else flops


def _attention_layers(cfg):
    """The forward FLOPs of one query against one key in a layer, 2 · heads · (qk width + v width) (the scores and
    their use on V, a multiply and an add each), and the counts of full and local layers (a hybrid's attention
    layers only: its linear-attention, Mamba and convolution layers attend to nothing)."""
    refuse_compressed_attention(cfg, _("its attention FLOPs"))
    value_width = cfg.v_head_dim if cfg.is_mla else cfg.head_dim
    return 2 * cfg.num_heads * (cfg.head_dim + value_width), cfg.attention_layers - cfg.local_layers, cfg.local_layers


@v.checked
def decode_attention_flops_for(model, seq_len):
    """The forward attention FLOPs of one new token that attends ``seq_len`` tokens (its own and those cached):
    a third of ``attention_flops_per_token_for``, which counts forward and backward. Multi-head latent attention
    decodes in its MQA mode (FlashMLA, vLLM): each head scores the cached latent and rotary key (qk =
    kv_lora_rank + qk_rope_head_dim) and sums the latents (v = kv_lora_rank), the up-projections folded into the
    query and the output, so a key costs 2·heads·(576 + 512) in DeepSeek-V3, not 2·heads·(192 + 128). With DeepSeek
    sparse attention (``index_topk``) it reads only the top k keys, beside its indexer."""
    cfg = config_from(model)
    if not cfg.is_mla:
        return attention_flops_per_token_for(cfg, seq_len) / 3
    mqa_mode = dict(layers=cfg.attention_layers, heads=cfg.num_heads, v_width=cfg.kv_lora_rank,
                    qk_width=cfg.kv_lora_rank + cfg.qk_rope_head_dim)
    if cfg.index_topk is None:
        return attention_flops_per_key(**mqa_mode) * seq_len
    return sparse_decode_attention_flops(**mqa_mode, seq_len=seq_len, top_k=cfg.index_topk,
                                         index_heads=cfg.index_heads, index_head_dim=cfg.index_head_dim)


@v.checked
def attention_flops_per_key(layers, heads, qk_width, v_width):
    """The forward FLOPs of one query against one key, in every layer: 2 · L · heads · (qk + v), the score and its
    use on the value, a multiply and an add each."""
    return 2 * layers * heads * (qk_width + v_width)


@v.checked
def indexer_flops_per_key(layers, index_heads, index_head_dim):
    """DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2), scoring one earlier token for one query in every
    layer: 2 · L · H_I · (d_I + 1), its heads' dot products and their weighted sum I = Σ_j w_j · ReLU(q_j · k)."""
    return 2 * layers * index_heads * (index_head_dim + 1)


@v.checked
def sparse_decode_attention_flops(layers, heads, qk_width, v_width, seq_len, top_k, index_heads, index_head_dim):
    """DeepSeek sparse attention (DSA, DeepSeek-V3.2): the forward attention FLOPs of one new token that attends
    ``seq_len`` tokens. The indexer scores every one of them; the attention proper reads only the ``top_k``
    best-scored: ``attention_flops_per_key`` · min(T, k) + ``indexer_flops_per_key`` · T. The indexer stays linear in
    T, but small; dense attention is the first term with k = T. DeepSeek-V3.2 runs its attention in MLA's MQA mode:
    qk = 576 (the 512-wide latent and the 64-wide rotary key), v = 512."""
    return (attention_flops_per_key(layers, heads, qk_width, v_width) * at_most(seq_len, top_k)
            + indexer_flops_per_key(layers, index_heads, index_head_dim) * seq_len)


@v.checked
def causal_keys(prompt_tokens, window=None):
    """Query-key pairs of a causal prompt: token i attends to itself and the i − 1 before it, so P·(P + 1)/2 in
    all; on a local layer at most ``window`` of them: m·(m + 1)/2 + (P − m)·window with m = min(P, window)."""
    if window is None:
        return prompt_tokens * (prompt_tokens + 1) / 2
    m = at_most(prompt_tokens, window)
    return m * (m + 1) / 2 + (prompt_tokens - m) * window


@v.checked
def prefill_attention_flops_for(model, prompt_tokens):
    """The forward attention FLOPs of a causal prompt, layer by layer: each token attends to itself and the tokens
    before it, exactly (``causal_keys``), as a causal kernel computes (FlashAttention skips the masked blocks).
    The training term (``attention_flops_per_token_for``, PaLM's convention) counts the whole T × T square at
    every token instead, about twice as many pairs."""
    cfg = config_from(model)
    per_layer, full, local = _attention_layers(cfg)
    flops = per_layer * full * causal_keys(prompt_tokens)
    return flops + per_layer * local * causal_keys(prompt_tokens, cfg.local_window) if local else flops


@v.checked
def prefill_flops_for(model, prompt_tokens, batch=1):
    """Processing prompts of P tokens for a batch of B sequences: B · (2·N·P + the causal attention), N the
    matmul (active) parameters of ``flops_params``. The 2·N·P part is linear in P; the attention grows as
    P·(P + 1)/2 (linearly in P past a local layer's window)."""
    cfg = config_from(model)
    return batch * (forward_flops_per_token(flops_params(cfg)) * prompt_tokens
                    + prefill_attention_flops_for(cfg, prompt_tokens))


@v.checked
def seq_len_for_attention_share(n_params, layers, heads, head_dim, share):
    """The sequence length at which attention is ``share`` of all training FLOPs:
    12·L·H·Q·T = share · (6N + 12·L·H·Q·T), so T = share · 6N / ((1 − share) · 12·L·H·Q)."""
    return share * 6 * n_params / ((1 - share) * 12 * layers * heads * head_dim)


@v.checked(recompute=v.check_bool)
def lora_training_flops_per_token(n_params, adapter_params, recompute=False):
    """Fine-tuning adapters on a frozen base: the forward (2N) and the gradients for the activations (2N) still go
    through every frozen weight; only the weight gradients (2N) are saved. Adapters add their own 6 per parameter.
    Gradient checkpointing, as QLoRA uses, repeats the forward: another 2N."""
    return (6 if recompute else 4) * n_params + 6 * adapter_params


@v.checked
def flops_params(model) -> int:
    """The N of 6·N·D: weights that multiply activations in each token's path. The input embedding (and a learned
    position table) is a lookup, not a matmul, so it is left out; the output head is in, tied or not. For a mixture
    of experts, the active parameters."""
    cfg = config_from(model)
    count = count_params(cfg)
    lookups = count["embeddings"] + count["positions"]
    tied_head = count["embeddings"] if cfg.tie_embeddings else 0
    return count.active - lookups + tied_head


def mtp_flops_params(model) -> int:
    """What a model's multi-token-prediction modules add to the N of 6·N·D while training (DeepSeek-V3, arXiv
    2412.19437 §2.2): each module's active parameters (its projection 2H -> H, its norms, one transformer layer with
    a token's experts only) and the output head it shares, which multiplies again for the extra prediction. The
    embedding it shares is a lookup. Serving may drop the modules, or use them to draft tokens."""
    cfg = config_from(model)
    return count_params(cfg).mtp_active + cfg.mtp_layers * cfg.vocab_size * cfg.embedding_dim


# ----------------------------------------------------------------------------------------------------------------
# Time and cost
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def gpu_seconds(flops, peak_flops_per_s, mfu):
    """GPU-seconds of work: FLOPs / (peak × MFU). Divide by 3,600 for GPU-hours."""
    return flops / (peak_flops_per_s * mfu)


@v.checked
def gpu_hours(flops, peak_flops_per_s, mfu):
    return gpu_seconds(flops, peak_flops_per_s, mfu) / SECONDS_PER_HOUR


@v.checked
def training_seconds(flops, gpus, peak_flops_per_s, mfu):
    """Wall-clock seconds on ``gpus`` GPUs: FLOPs / (gpus × peak × MFU)."""
    return gpu_seconds(flops, peak_flops_per_s, mfu) / gpus


@v.checked
def training_days(flops, gpus, peak_flops_per_s, mfu):
    """days = FLOPs / (gpus × peak × MFU) / 86,400."""
    return training_seconds(flops, gpus, peak_flops_per_s, mfu) / SECONDS_PER_DAY


@v.checked
def gpus_for_deadline(flops, days, peak_flops_per_s, mfu):
    """The fewest GPUs that finish ``flops`` within ``days``: ⌈GPU-seconds / (days × 86,400)⌉."""
    return int(-(-gpu_seconds(flops, peak_flops_per_s, mfu) // (days * SECONDS_PER_DAY)))


@v.checked
def cost(gpu_hours_, price_per_gpu_hour):
    """GPU-hours × the price of one GPU-hour."""
    return gpu_hours_ * price_per_gpu_hour


@v.checked
def implied_mfu(n_params, tokens, gpu_hours_, peak_flops_per_s):
    """The MFU a published run implies: 6·N·D / (GPU-hours × 3,600 × peak)."""
    return training_flops(n_params, tokens) / (gpu_hours_ * SECONDS_PER_HOUR * peak_flops_per_s)


@v.checked
def mfu_from_throughput(tokens_per_s, flops_per_token, chips, peak_flops_per_s):
    """MFU from a measured rate (PaLM's definition): tokens/s × FLOPs per token / (chips × peak)."""
    return tokens_per_s * flops_per_token / (chips * peak_flops_per_s)


@v.checked(recompute=v.check_bool)
def hfu_from_mfu(mfu, recompute=True):
    """Hardware FLOPs utilisation counts the recomputed forward too: with full recomputation, HFU = MFU · 8/6."""
    return mfu * (8 / 6 if recompute else 1)


# ----------------------------------------------------------------------------------------------------------------
# The reverse budget
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def compute_budget(gpus, days, peak_flops_per_s, mfu):
    """The FLOPs a cluster delivers: gpus × peak × MFU × days × 86,400."""
    return gpus * peak_flops_per_s * mfu * days * SECONDS_PER_DAY


@v.checked
def affordable_params(budget_flops, tokens):
    """The largest N a budget trains on D tokens: C / (6·D)."""
    return budget_flops / (6 * tokens)


@v.checked
def affordable_tokens(budget_flops, n_params):
    """The tokens a budget buys for a model of N parameters: C / (6·N)."""
    return budget_flops / (6 * n_params)


# ----------------------------------------------------------------------------------------------------------------
# Checkpoints and data loading
# ----------------------------------------------------------------------------------------------------------------

_MIXED = mem.state_bytes_per_param("mixed", "adamw")
# A checkpoint to resume mixed-precision AdamW from: weights, FP32 master copy and moments; gradients are not saved.
RESUME_CHECKPOINT_BYTES_PER_PARAM = _MIXED.weights + _MIXED.master + _MIXED.optimizer


@v.checked
def checkpoint_bytes(n_params, bytes_per_param=2):
    """A checkpoint of the weights (2 bytes a parameter in BF16), or with ``RESUME_CHECKPOINT_BYTES_PER_PARAM``
    one to resume training from."""
    return mem.weight_bytes(n_params, bytes_per_param)


@v.checked
def checkpoint_storage_bytes(n_params, run_hours, interval_hours, keep=None,
                             bytes_per_param=RESUME_CHECKPOINT_BYTES_PER_PARAM):
    """Disk for the checkpoints of a run saved every ``interval_hours``; ``keep`` the most recent only."""
    saved = int(run_hours // interval_hours)
    if keep is not None:
        saved = min(saved, keep)
    return saved * checkpoint_bytes(n_params, bytes_per_param)


@v.checked
def tokens_per_second_per_gpu(tokens, days, gpus):
    """The rate each GPU must be fed to finish ``tokens`` in ``days``."""
    return tokens / (days * SECONDS_PER_DAY * gpus)


# ----------------------------------------------------------------------------------------------------------------
# Serving: decode throughput
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def decode_step_seconds(weight_bytes, kv_bytes, n_params, batch, bandwidth_bytes_per_s, peak_flops_per_s,
                        attention_flops=0):
    """One decoding step for a batch: it must read every weight and the KV cache from memory, and do 2N FLOPs per
    sequence, plus ``attention_flops`` per sequence if given (``decode_attention_flops_for``). Whichever takes
    longer bounds it (a roofline with perfect overlap)."""
    memory_time = (weight_bytes + kv_bytes) / bandwidth_bytes_per_s
    compute_time = (2 * n_params + attention_flops) * batch / peak_flops_per_s
    return max(memory_time, compute_time)


@v.checked
def prefill_seconds(flops, bytes_read, gpus, peak_flops_per_s, bandwidth_bytes_per_s, efficiency):
    """Processing the prompts on ``gpus`` tensor-parallel GPUs: their FLOPs at ``efficiency`` of the peak, or
    reading the weights once (a batch of one short prompt), whichever takes longer."""
    return max(flops / (gpus * peak_flops_per_s * efficiency), bytes_read / (gpus * bandwidth_bytes_per_s))


@v.checked
def kv_context_limit(n_params, kv_bytes_per_token, bandwidth_bytes_per_s, peak_flops_per_s):
    """The context length beyond which decoding can never become compute-bound: there, reading one sequence's
    KV cache (kv · context / bandwidth) takes longer than its 2N FLOPs (2N / peak), whatever the batch."""
    return 2 * n_params * bandwidth_bytes_per_s / (peak_flops_per_s * kv_bytes_per_token)


@v.checked
def kv_context_limit_for(model, bandwidth_bytes_per_s, peak_flops_per_s) -> float:
    """kv_context_limit for a real model, its cache as built: past its windows a local layer's cache stops growing,
    so only the full layers push the limit down; with every layer windowed there is none (infinity). A hybrid's
    constant state comes off the bytes a step may read first."""
    cfg = config_from(model)
    n = flops_params(cfg)
    budget = 2 * n * bandwidth_bytes_per_s / peak_flops_per_s   # KV bytes one sequence may read per step
    budget -= state_bytes_per_sequence(cfg)   # a hybrid's constant state is read at every step too
    if budget <= 0:
        return 0.0  # the state alone takes longer to read than the sequence's compute: no context is compute-bound
    per_token = mem.kv_cache_bytes_for(cfg, 1)
    within = budget / per_token
    if not cfg.local_layers or within <= cfg.local_window - 1:
        return within
    full = cfg.attention_layers - cfg.local_layers
    if full == 0:
        return float("inf")
    per_layer = per_token / cfg.attention_layers   # a local layer's cache stays at window - 1 tokens
    return (budget - per_layer * cfg.local_layers * (cfg.local_window - 1)) / (per_layer * full)


@v.checked
def compute_bound_batch(weight_bytes, n_params, bandwidth_bytes_per_s, peak_flops_per_s):
    """The batch at which reading the weights and computing take equal time (KV cache left out):
    2N·B / peak = weights / bandwidth, so B = peak · weights / (2N · bandwidth)."""
    return peak_flops_per_s * weight_bytes / (2 * n_params * bandwidth_bytes_per_s)


@v.checked
def cost_per_million_tokens(price_per_gpu_hour, gpus, tokens_per_s):
    """Dollars per million generated tokens: the GPUs' hourly price over the tokens they make in an hour."""
    return price_per_gpu_hour * gpus / (tokens_per_s * SECONDS_PER_HOUR) * 1e6


@v.checked
def gpus_for_request_rate(requests_per_s, tokens_per_request, tokens_per_s_per_replica, gpus_per_replica=1):
    """GPUs to sustain a request rate: enough replicas to produce the tokens, rounded up."""
    replicas = -(-(requests_per_s * tokens_per_request) // tokens_per_s_per_replica)
    return int(replicas) * gpus_per_replica


# ----------------------------------------------------------------------------------------------------------------
# What N counts
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def flops_params_note(model) -> str:
    """What the N of 6·N·D counts for a model, against its parameter count."""
    cfg = config_from(model)
    count = count_params(cfg)
    extra = _("; only the active experts count") if count.active != count.total else ""
    extra += _("; the tied output head counts, as a matmul") if cfg.tie_embeddings else ""
    lookups = _("the input embedding and position table are lookups, not matmuls") if count["positions"] else \
        _("the input embedding is a lookup, not a matmul")
    return _("N = {n}, {model}'s weights that multiply activations ({total} parameters in all; {lookups}{extra})"
             ).format(n=format_count(flops_params(cfg)), model=cfg.name or _("the model"),
                      total=format_count(count.total), lookups=lookups, extra=extra)
