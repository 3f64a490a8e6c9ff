"""Counting a ModelConfig's parameters part by part: ``count_params`` and the ParamCount it returns.

The formulas it applies, the functions ending in ``_params``, live in llmest.formulas.params.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core._validate import InputError, quote
from ..core.report import Block, Report
from ..core.i18n import _, display_width, language
from ..core.units import format_count, format_int, format_percent
from .params import (PART_NAMES, attention_params, embedding_params, ffn_params, mla_attention_params, norm_params,
                     router_params)
from .model import ModelConfig



PARTS = ("embeddings", "positions", "embedding_projections", "attention", "ffn", "experts", "shared_experts",
         "router", "norms", "output_head")


@dataclass(frozen=True)
class ParamCount:
    """Parameters by part. ``total`` counts tied weights once, as ``sum(p.numel() for p in model.parameters())``
    does; ``active`` is what one token uses (the experts it is not routed to left out)."""

    parts: dict
    active: int
    config_name: str = ""

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
            return part if language() == "en" else _(PART_NAMES.get(part, part))

        rows = [(name(part), format_int(n), format_percent(n / self.total, 1)) for part, n in self.parts.items() if n]
        rows.append((_("total"), format_int(self.total), format_count(self.total)))
        if self.active != self.total:
            rows.append((_("active (per token)"), format_int(self.active), format_count(self.active)))
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
    dense_layers = L - cfg.moe_layers
    per_layer_norms = cfg.norms_per_layer * norm_params(H, cfg.norm)
    if cfg.qk_norm_per_head:
        per_layer_norms += 2 * norm_params(cfg.head_dim, cfg.norm)
    elif cfg.qk_norm:
        per_layer_norms += norm_params(cfg.num_heads * cfg.head_dim, cfg.norm)
        per_layer_norms += norm_params(cfg.num_kv_heads * cfg.head_dim, cfg.norm)
    if cfg.is_mla:  # the latents' norms
        per_layer_norms += norm_params(cfg.kv_lora_rank, cfg.norm)
        per_layer_norms += norm_params(cfg.q_lora_rank, cfg.norm) if cfg.q_lora_rank else 0
    if cfg.is_mla:
        attention = mla_attention_params(H, cfg.num_heads, cfg.kv_lora_rank, cfg.qk_nope_head_dim,
                                         cfg.qk_rope_head_dim, cfg.v_head_dim, cfg.q_lora_rank,
                                         bias=cfg.attention_bias != "none")
    else:
        attention = attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, cfg.attention_bias)
    attention += cfg.num_heads if cfg.attention_sinks else 0
    expert = shared = router = 0
    if cfg.is_moe:
        expert = ffn_params(H, cfg.expert_ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias)
        router = router_params(H, cfg.num_experts) + (cfg.num_experts if cfg.router_bias else 0)
    if cfg.num_shared_experts:
        shared = (cfg.num_shared_experts * ffn_params(H, cfg.shared_expert_ffn_hidden_size, cfg.gated_ffn,
                                                       cfg.ffn_bias) + (H if cfg.shared_expert_gate else 0))
    parts = {
        "embeddings": embedding_params(cfg.vocab_size, cfg.embedding_dim),
        "positions": cfg.max_positions * H if cfg.position_embedding == "learned" else 0,
        "embedding_projections": 2 * cfg.embedding_dim * H if cfg.embedding_dim != H else 0,
        "attention": L * attention,
        "ffn": dense_layers * ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias) if dense_layers else 0,
        "experts": cfg.moe_layers * cfg.num_experts * expert,
        "shared_experts": cfg.moe_layers * shared,
        "router": cfg.moe_layers * router,
        "norms": (L * per_layer_norms + (norm_params(H, cfg.norm) if cfg.final_norm else 0)
                  + (norm_params(cfg.embedding_dim, cfg.norm) if cfg.embedding_norm else 0)),
        "output_head": ((0 if cfg.tie_embeddings else embedding_params(cfg.vocab_size, cfg.embedding_dim))
                        + (cfg.vocab_size if cfg.output_bias else 0)),
    }
    unused_experts = cfg.moe_layers * (cfg.num_experts - cfg.experts_per_token) * expert
    return ParamCount(parts=parts, active=sum(parts.values()) - unused_experts, config_name=cfg.name)
