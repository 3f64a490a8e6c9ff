"""Counting a ModelConfig's parameters part by part: ``count_params`` and the ParamCount it returns.

The formulas it applies, the functions ending in ``_params``, live in llmest.formulas.params.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core._validate import InputError, quote
from ..core.report import Block, Report
from ..core.i18n import _, display_width, language
from ..core.units import format_count, format_int, format_percent
from .params import (PART_NAMES, attention_params, embedding_params, ffn_params, indexer_params, mla_attention_params,
                     mtp_module_params, norm_params, router_params)
from .mixers import MIXER_PARTS
from .deepseek_v4 import (compressed_indexer_params, compressor_params, grouped_output_params, hyper_connection_params,
                          hyper_head_params, shared_kv_attention_params)
from .shape import ModelConfig



PARTS = ("embeddings", "positions", "embedding_projections", "attention", "grouped_output", "csa_compressor",
         "hca_compressor", "indexer", "linear_attention", "mamba", "short_conv", "ffn", "experts", "shared_experts",
         "router", "hash_router", "hyper_connections", "norms", "output_head")


@dataclass(frozen=True)
class ParamCount:
    """Parameters by part. ``total`` counts tied weights once, as ``sum(p.numel() for p in model.parameters())``
    does; ``active`` is what one token uses (the experts it is not routed to left out). ``mtp`` is apart: the
    multi-token-prediction modules a checkpoint may hold beside the model (DeepSeek-V3's "671B + 14B"), in neither
    ``total`` nor ``active``, as the model card counts them and as transformers builds the model (without them)."""

    parts: dict
    active: int
    config_name: str = ""
    mtp: int = 0
    mtp_active: int = 0   # what a token uses of the MTP modules (their experts it is not routed to left out)
    layers: tuple = ()    # a hybrid's (part, layers) pairs: how many layers have attention, each mixer, FFN, experts

    @property
    def total_with_mtp(self) -> int:
        """The model and its MTP modules (their shared embedding and head once)."""
        return self.total + self.mtp

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    def __getitem__(self, part: str) -> int:
        return self.parts[part]

    def active_without(self, *parts: str) -> int:
        """``active`` less some parts, to match a model card: DeepSeek-V3's "37B activated" (36.6B in its weights
        note) and gpt-oss's "3.6B active" leave out the input embedding; GLM-4.5-Air's "12B" the output head too."""
        for part in parts:
            if part not in self.parts:
                raise InputError("parts", _("part == {part}, must be one of {parts}.").format(
                    part=quote(part), parts=", ".join(self.parts)))
        return self.active - sum(self.parts[part] for part in parts)

    def _rows(self) -> list:
        """(name, parameters, share) a part, then the total (and what a token uses). The English names each part by
        its key, as ``count["output_head"]`` reads it; the Chinese by its name."""
        def name(part):
            label = part if language() == "en" else _(PART_NAMES.get(part, part))
            layers = dict(self.layers).get(part)
            if layers is None:
                return label
            return (_("{part} (1 layer)") if layers == 1 else _("{part} ({layers} layers)")).format(
                part=label, layers=layers)

        rows = [(name(part), format_int(n), format_percent(n / self.total, 1)) for part, n in self.parts.items() if n]
        rows.append((_("total"), format_int(self.total), format_count(self.total)))
        if self.active != self.total:
            rows.append((_("active (per token)"), format_int(self.active), format_count(self.active)))
        if self.mtp:
            rows.append((name("mtp"), format_int(self.mtp), format_count(self.mtp)))
            rows.append((_("total with MTP"), format_int(self.total_with_mtp), format_count(self.total_with_mtp)))
        return rows

    def table(self) -> str:
        """One line a part: its parameters and share, then the total (and what a token uses)."""
        rows = self._rows()
        width = max(display_width(label) for label in [row[0] for row in rows] + [_("active (per token)")])
        return "\n".join(f"{label}{' ' * (width - display_width(label))}  {n:>17}  {share:>6}"
                         for label, n, share in rows)

    def report(self) -> Report:
        """How the count shows itself: the model's name, then its table."""
        data = {"model": self.config_name, "parts": self.parts, "total": self.total, "active": self.active}
        if self.mtp:
            data["mtp"] = self.mtp
        if self.layers:
            data["layers"] = dict(self.layers)
        header = (_("part"), _("parameters"), _("share"))
        return Report(self.config_name, data=data, blocks=(Block(self.table(), header, tuple(self._rows())),))

    def __str__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        return self.report()._repr_html_()

    def to_dict(self) -> dict:
        return self.report().to_dict()

    def __repr__(self) -> str:
        name = f"{self.config_name}: " if self.config_name else ""
        active = f", active={format_int(self.active)}" if self.active != self.total else ""
        return f"ParamCount({name}total={format_int(self.total)}{active})"


def count_params(cfg: ModelConfig) -> ParamCount:
    """Exact parameter count of a ModelConfig, part by part."""
    if not isinstance(cfg, ModelConfig):
        raise InputError("cfg", _("cfg == {cfg}, must be a ModelConfig (see ModelConfig.from_hf_config).").format(
            cfg=quote(cfg)))
    H, L = cfg.hidden_size, cfg.num_layers
    ffn_layers = cfg.ffn_layers if cfg.ffn_beside_moe else cfg.ffn_layers - cfg.moe_layers
    per_layer_norms = cfg.norms_per_layer * norm_params(H, cfg.norm)
    if cfg.qk_norm_per_head:
        per_layer_norms += 2 * norm_params(cfg.head_dim, cfg.norm)
    elif cfg.qk_norm:
        per_layer_norms += norm_params(cfg.num_heads * cfg.head_dim, cfg.norm)
        per_layer_norms += norm_params(cfg.num_kv_heads * cfg.head_dim, cfg.norm)
    if cfg.is_mla or cfg.shared_kv:  # the latents' norms (DeepSeek-V4: the query latent's and the key-value's)
        per_layer_norms += norm_params(cfg.head_dim if cfg.shared_kv else cfg.kv_lora_rank, cfg.norm)
        per_layer_norms += norm_params(cfg.q_lora_rank, cfg.norm) if cfg.q_lora_rank else 0
    # The norms inside attention (QK norms, MLA's latents), on the layers that have attention only (hybrids).
    attention_norms = per_layer_norms - cfg.norms_per_layer * norm_params(H, cfg.norm)
    if cfg.is_mla:
        attention = mla_attention_params(H, cfg.num_heads, cfg.kv_lora_rank, cfg.qk_nope_head_dim,
                                         cfg.qk_rope_head_dim, cfg.v_head_dim, cfg.q_lora_rank,
                                         bias=cfg.attention_bias != "none")
    elif cfg.shared_kv:  # DeepSeek-V4: the output map is plain here, or its own part when grouped
        attention = shared_kv_attention_params(H, cfg.num_heads, cfg.head_dim, cfg.q_lora_rank)
        attention += 0 if cfg.output_groups else cfg.num_heads * cfg.head_dim * H
    else:
        attention = attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, cfg.attention_bias,
                                     output_gate=cfg.attention_gate)
    attention += cfg.num_heads if cfg.attention_sinks else 0
    # DeepSeek-V3.2's indexer is on every layer; DeepSeek-V4's, with its own compressor, on the CSA layers only.
    indexer = (indexer_params(H, cfg.q_lora_rank, cfg.index_heads, cfg.index_head_dim)
               if cfg.index_heads and not cfg.csa_layers else 0)
    expert = shared = router = 0
    if cfg.is_moe:
        expert = ffn_params(H, cfg.expert_ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias)
        # Zero-computation experts (LongCat-Flash) have a router score each and no weights.
        routed = cfg.num_experts + cfg.zero_experts
        router = router_params(H, routed) + (routed if cfg.router_bias else 0)
    if cfg.num_shared_experts:
        shared = (cfg.num_shared_experts * ffn_params(H, cfg.shared_expert_ffn_hidden_size, cfg.gated_ffn,
                                                       cfg.ffn_bias) + (H if cfg.shared_expert_gate else 0))
    parts = {
        "embeddings": embedding_params(cfg.vocab_size, cfg.embedding_dim),
        "positions": cfg.max_positions * H if cfg.position_embedding == "learned" else 0,
        "embedding_projections": 2 * cfg.embedding_dim * H if cfg.embedding_dim != H else 0,
        "attention": cfg.attention_layers * attention,
        "grouped_output": (cfg.attention_layers * grouped_output_params(H, cfg.num_heads, cfg.head_dim,
                                                                        cfg.output_groups, cfg.output_lora_rank)
                           if cfg.output_groups else 0),
        "csa_compressor": cfg.csa_layers * compressor_params(H, cfg.head_dim, cfg.csa_rate, overlap=True)
        if cfg.csa_layers else 0,
        "hca_compressor": cfg.hca_layers * compressor_params(H, cfg.head_dim, cfg.hca_rate) if cfg.hca_layers else 0,
        "indexer": L * indexer + (cfg.csa_layers * compressed_indexer_params(
            H, cfg.q_lora_rank, cfg.index_heads, cfg.index_head_dim, cfg.csa_rate) if cfg.csa_layers else 0),
        **{part: (cfg.mixer_layers * cfg.mixer.params(H) if cfg.mixer and cfg.mixer.part == part else 0)
           for part in MIXER_PARTS},
        "ffn": ffn_layers * ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias) if ffn_layers else 0,
        "experts": cfg.moe_layers * cfg.num_experts * expert,
        "shared_experts": cfg.moe_layers * shared,
        "router": (cfg.moe_layers - cfg.hash_moe_layers) * router,
        "hash_router": cfg.hash_moe_layers * router,  # the same learned weights; a table picks the experts
        "hyper_connections": (2 * L * hyper_connection_params(H, cfg.residual_streams)
                              + hyper_head_params(H, cfg.residual_streams) if cfg.residual_streams else 0),
        "norms": (L * per_layer_norms - (L - cfg.attention_layers) * attention_norms
                  + (norm_params(H, cfg.norm) if cfg.final_norm else 0)
                  + (norm_params(cfg.embedding_dim, cfg.norm) if cfg.embedding_norm else 0)),
        "output_head": ((0 if cfg.tie_embeddings else embedding_params(cfg.vocab_size, cfg.embedding_dim))
                        + (cfg.vocab_size if cfg.output_bias else 0)),
    }
    # With zero-computation experts a token may be routed to some of them: active is then the most it can use.
    unused_experts = cfg.moe_layers * (cfg.num_experts - cfg.experts_per_token) * expert
    mtp = 0
    if cfg.mtp_layers:  # each module holds one more layer, of the last layer's kind
        last_ffn = (cfg.num_experts * expert + shared + router if cfg.moe_layers
                    else ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias))
        mtp = cfg.mtp_layers * mtp_module_params(H, attention + indexer + per_layer_norms + last_ffn, cfg.norm)
    mtp_active = mtp - (cfg.mtp_layers * (cfg.num_experts - cfg.experts_per_token) * expert if cfg.moe_layers else 0)
    layers = ()
    if cfg.is_hybrid or cfg.csa_layers or cfg.hca_layers or cfg.hash_moe_layers:
        # the parameter table says how many layers have each kind of block
        kinds = ([("attention", cfg.attention_layers)] + ([(cfg.mixer.part, cfg.mixer_layers)] if cfg.mixer else [])
                 + [("grouped_output", cfg.attention_layers if cfg.output_groups else 0),
                    ("csa_compressor", cfg.csa_layers), ("hca_compressor", cfg.hca_layers),
                    ("indexer", cfg.csa_layers), ("ffn", ffn_layers), ("experts", cfg.moe_layers)]
                 + ([("router", cfg.moe_layers - cfg.hash_moe_layers), ("hash_router", cfg.hash_moe_layers)]
                    if cfg.hash_moe_layers else []))
        layers = tuple((part, n) for part, n in kinds if n)
    return ParamCount(parts=parts, active=sum(parts.values()) - unused_experts, config_name=cfg.name, mtp=mtp,
                      mtp_active=mtp_active, layers=layers)
