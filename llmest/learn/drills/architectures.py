"""Drill templates on the architectures of 2025-26: a hybrid's cache (chapter 2), sparse attention and the MTP
module's training FLOPs (chapters 3 and 1)."""

from __future__ import annotations

from ...formulas import compute as c
from ...formulas import model as m
from ...formulas.hybrid_cache import hybrid_cache_bytes_for, state_bytes_per_sequence
from ...formulas.kv_cache import kv_cache_bytes_for
from ...core.i18n import N_, _, tidy
from ...core.units import format_bytes, format_count, format_flops, format_int, format_percent
from .problem import TOKENS, Part, _chained, _pick, _problem, _size, template

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S1_MTP = N_("chapter 1, DeepSeek-V3's MTP module (01_parameters.ipynb#cell-id=8a4ae3dc)")
S2_HYBRID = N_("chapter 2, Hybrid models (02_memory.ipynb#cell-id=b2abc763)")
S3_SPARSE = N_("chapter 3, Sparse attention (03_flops_and_time.ipynb#cell-id=3658bb20)")

HYBRIDS = {"easy": ["qwen3-next-80b-a3b"], "medium": ["qwen3-next-80b-a3b", "nemotron-nano-12b-v2-base"],
           "hard": ["qwen3-next-80b-a3b", "nemotron-nano-12b-v2-base", "jamba-1.5-mini", "granite-4.0-h-tiny"]}
# (Hybrids whose attention layers keep K and V per head, whose other layers attend to nothing.)


@template("hybrid-cache", "memory")
def _hybrid_cache(rng, level):
    name = rng.choice(HYBRIDS[level])
    cfg = m.preset(name)
    seq_len = _pick(rng, level, [131072], [131072, 262144, 1048576], [65536, 524288, 1048576])
    per_token = kv_cache_bytes_for(cfg, 1)
    state = state_bytes_per_sequence(cfg)
    kv = kv_cache_bytes_for(cfg, seq_len)
    answer = hybrid_cache_bytes_for(cfg, seq_len)
    shown = dict(name=name, layers=cfg.num_layers, attention=cfg.attention_layers, kv_heads=cfg.num_kv_heads,
                 head_dim=cfg.head_dim, per_token=format_int(per_token), state=format_bytes(state),
                 seq_len=f"{seq_len:,}", kv=format_bytes(kv), cache=format_bytes(answer))
    stem = _("{name} has attention on {attention} of its {layers} layers, each with {kv_heads} key/value heads of "
             "width {head_dim}; its linear-attention or Mamba layers keep a constant state of {state} per sequence "
             "in all.").format(**shown)
    inputs = dict(attention_layers=cfg.attention_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim,
                  state=state, seq_len=seq_len)
    hint = _("Only the attention layers' cache grows with the context; the state does not.")
    if level == "hard":
        parts = (Part(_("How many bytes of BF16 KV cache does one token add?"), per_token, "count",
                      (_("2 × {attention} attention layers × {kv_heads} × {head_dim} × 2 bytes = {per_token} bytes; "
                         "{cite}").format(**shown, cite=_(S2_HYBRID)),)),
                 Part(_("How large is one sequence's whole cache at {seq_len} tokens? (GB)").format(**shown), answer,
                      "bytes", (_("{per_token} × {seq_len} = {kv}, + the state {state} = {cache}; {cite}").format(
                          **shown, cite=_(S2_HYBRID)),)))
        return _chained("hybrid-cache", level, stem, inputs, parts, hint)
    return _problem(
        "hybrid-cache", level,
        tidy(stem + " " + _("How large is one sequence's BF16 cache at {seq_len} tokens? (GB)").format(**shown)),
        inputs, answer, "bytes",
        [_("KV per token: 2 × {attention} × {kv_heads} × {head_dim} × 2 bytes = {per_token} bytes").format(**shown),
         _("× {seq_len} tokens = {kv}, + the constant state {state} = {cache}").format(**shown)], hint)


@template("sparse-attention", "compute")
def _sparse_attention(rng, level):
    cfg = m.preset("deepseek-v3.2-exp")
    seq_len = _pick(rng, level, [131072], [32768, 131072], [65536, 163840])
    dense = c.decode_attention_flops_for(cfg.replace(index_heads=None, index_head_dim=None, index_topk=None), seq_len)
    answer = c.decode_attention_flops_for(cfg, seq_len)
    per_key = c.attention_flops_per_key(cfg.attention_layers, cfg.num_heads, cfg.kv_lora_rank + cfg.qk_rope_head_dim,
                                        cfg.kv_lora_rank)
    indexer = c.indexer_flops_per_key(cfg.attention_layers, cfg.index_heads, cfg.index_head_dim)
    shown = dict(layers=cfg.attention_layers, heads=cfg.num_heads, qk=cfg.kv_lora_rank + cfg.qk_rope_head_dim,
                 v=cfg.kv_lora_rank, top_k=f"{cfg.index_topk:,}", index_heads=cfg.index_heads,
                 index_dim=cfg.index_head_dim, seq_len=f"{seq_len:,}", per_key=format_flops(per_key),
                 indexer=format_flops(indexer), dense=format_flops(dense), flops=format_flops(answer),
                 ratio=f"{dense / answer:.1f}")
    stem = _("DeepSeek-V3.2 decodes with {layers} layers of {heads} heads that score {qk}-wide keys and sum {v}-wide "
             "values, but attends only to the top {top_k} tokens its indexer picks; the indexer scores every token "
             "with {index_heads} heads {index_dim} wide.").format(**shown)
    inputs = dict(layers=cfg.attention_layers, heads=cfg.num_heads, qk=shown["qk"], v=cfg.kv_lora_rank,
                  top_k=cfg.index_topk, index_heads=cfg.index_heads, index_head_dim=cfg.index_head_dim, seq_len=seq_len)
    hint = _("Attention reads min(T, k) keys; the indexer reads all T.")
    if level == "hard":
        parts = (Part(_("How many FLOPs would one new token's attention take over all {seq_len} tokens?").format(
                          **shown), dense, "FLOPs",
                      (_("2 × {layers} × {heads} × ({qk} + {v}) = {per_key} a key, × {seq_len} = {dense}; "
                         "{cite}").format(**shown, cite=_(S3_SPARSE)),)),
                 Part(_("How many with the indexer and the top {top_k}?").format(**shown), answer, "FLOPs",
                      (_("{per_key} × {top_k} + {indexer} × {seq_len} = {flops}, {ratio} times fewer; "
                         "{cite}").format(**shown, cite=_(S3_SPARSE)),)))
        return _chained("sparse-attention", level, stem, inputs, parts, hint)
    return _problem(
        "sparse-attention", level,
        tidy(stem + " " + _("How many attention FLOPs does one new token take at {seq_len} tokens of context?").format(
            **shown)),
        inputs, answer, "FLOPs",
        [_("Attention: 2 × {layers} × {heads} × ({qk} + {v}) = {per_key} a key, for {top_k} keys").format(**shown),
         _("Indexer: 2 × {layers} × {index_heads} × ({index_dim} + 1) = {indexer} a key, for all {seq_len}; in all "
           "{flops}").format(**shown)], hint)


@template("mtp-training", "compute")
def _mtp_training(rng, level):
    cfg = m.preset("deepseek-v3")
    tokens = _pick(rng, level, *TOKENS)
    n, extra = c.flops_params(cfg), c.mtp_flops_params(cfg)
    main, answer = c.training_flops(n, tokens), c.training_flops(n + extra, tokens)
    shown = dict(n=format_count(n), extra=format_count(extra), tokens=_size(tokens), main=format_flops(main),
                 flops=format_flops(answer), share=format_percent(extra / n, 1))
    stem = _("DeepSeek-V3 has {n} active parameters in the N of 6·N·D; the multi-token-prediction module it trains "
             "beside them adds {extra} (its layer as a token uses it, and the output head again).").format(**shown)
    inputs = dict(n=n, extra=extra, tokens=tokens)
    hint = _("6 FLOPs per parameter per token, the module's parameters too.")
    if level == "hard":
        parts = (Part(_("How many FLOPs does training the main model on {tokens} tokens take?").format(**shown), main,
                      "FLOPs", (_("6 × {n} × {tokens} = {main}; {cite}").format(**shown, cite=_(S1_MTP)),)),
                 Part(_("And with the MTP module?"), answer, "FLOPs",
                      (_("6 × ({n} + {extra}) × {tokens} = {flops}, {share} more; {cite}").format(
                          **shown, cite=_(S1_MTP)),)))
        return _chained("mtp-training", level, stem, inputs, parts, hint)
    return _problem(
        "mtp-training", level,
        tidy(stem + " " + _("How many FLOPs does training it on {tokens} tokens take, with the module?").format(
            **shown)),
        inputs, answer, "FLOPs",
        [_("6 × {n} × {tokens} = {main} for the main model").format(**shown),
         _("6 × ({n} + {extra}) × {tokens} = {flops} with the module, {share} more").format(**shown)], hint)
