"""Chapter 1, parameters: the figures of seed 004 §1."""

from __future__ import annotations

from typing import Callable

from ...formulas import model as m
from ...core.units import format_count, format_int
from ...core.i18n import N_, _
from .figure import Figure, register

_S11 = "§1.1 一个标准Transformer层的参数量到底怎么算"
_S12 = "§1.2 三层快速估算：不查表也能心里有数"
_VOCAB = 32000  # the vocabulary of the material's example model (§1.1), used for its size table too


def _total(name: str) -> float:
    return m.count_params(m.preset(name)).total


def _cause_total() -> str:
    cfg = m.preset("material-7b")
    norms = m.count_params(cfg)["norms"]
    head = m.embedding_params(_VOCAB, 4096)
    return _("The rule leaves out the norms ({norms} more with LayerNorm) and counts the embedding once, as for a "
             "tied output head; an untied head adds another {head}.").format(norms=format_int(norms),
                                                                              head=format_count(head))


def _material_hidden() -> float:
    """The material's own method: subtract about 2B of embedding from 30B, divide by 48 and by 12, take the root."""
    return ((30e9 - 2e9) / 48 / 12) ** 0.5


def _cause_hidden() -> str:
    exact = m.rule_hidden_size(30e9, 48, _VOCAB)
    low, high = (e / _material_hidden() for e in (1.5e9, 2e9))
    return _("The material's method checks out. Its 1.5-2B of embedding implies a vocabulary of {low}-{high} at "
             "this width; with the V = 32,000 of §1.1 the table is only {table}, and solving 12·L·H² + V·H = N "
             "exactly gives H = {exact}. Both are about {about}.").format(
        low=format_count(low), high=format_count(high), table=format_count(m.embedding_params(_VOCAB, exact)),
        exact=f"{exact:,.0f}", about=f"{round(exact, -3):,.0f}")


def _cause_row(rule_args, real: str) -> Callable[[], str]:
    def cause() -> str:
        cfg = m.preset(real)
        H = cfg.hidden_size
        ffn = m.ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn) / H**2
        attention = m.attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim) / H**2
        return _("Recomputed with the real {real}, which has exactly this L and H. The bare 12·H² rule gives "
                 "{rule}: the real model's FFN holds {ffn}·H² a layer instead of 8·H², its attention {attention}·H² "
                 "instead of 4·H² ({kind}), and its untied output head adds {head}.").format(
            real=real, rule=format_count(m.rule_params(*rule_args, _VOCAB)), ffn=f"{ffn:.2f}",
            attention=f"{attention:.2f}", kind=cfg.attention_kind,
            head=format_count(m.embedding_params(cfg.vocab_size, H)))
    return cause


def _cause_30b() -> str:
    layers = 48 * m.rule_layer_params(6144)
    return _("48 layers of hidden 6144 hold 48·12·6144² = {layers} ({total} with the embedding), not 28-32B. A 30B "
             "dense model needs more depth or width: LLaMA-33B has 60 layers of 6656 ({llama}), and solving §1.2's "
             "quadratic for 30B at 48 layers gives H ≈ {hidden} (the material's own estimate: about 6,970).").format(
        layers=format_count(layers), total=format_count(m.rule_params(6144, 48, _VOCAB)),
        llama=format_count(_total("llama-33b")), hidden=f"{m.rule_hidden_size(30e9, 48, _VOCAB):,.0f}")


register(
    Figure("004-1.1-layer", 1, "004", _S11, N_("one layer of the H=4096 model has about 12·H² parameters"),
           "单层参数约12×4096²≈2.01亿", 2.01e8, lambda: m.rule_layer_params(4096), "rule_layer_params(4096)",
           unit="parameters", rel_tol=0.005),
    Figure("004-1.1-layers", 1, "004", _S11, N_("32 such layers"), "32层就是64.4亿", 6.44e9,
           lambda: 32 * m.rule_layer_params(4096), "32 · rule_layer_params(4096)", unit="parameters",
           rel_tol=0.005),
    Figure("004-1.1-embedding", 1, "004", _S11, N_("the embedding table, V=32,000 by H=4096"), "嵌入参数约1.31亿",
           1.31e8, lambda: m.embedding_params(_VOCAB, 4096), "embedding_params(32000, 4096)",
           unit="parameters", rel_tol=0.005),
    Figure("004-1.1-total", 1, "004", _S11, N_("the teaching model's total"), "总参数约65.7亿", 6.57e9,
           lambda: m.rule_params(4096, 32, _VOCAB), "rule_params(4096, 32, 32000)", unit="parameters", rel_tol=0.005,
           cause=_cause_total),
    Figure("004-1.2-30b-h2", 1, "004", _S12, N_("30B dense, 48 layers: H² after taking off the embedding"),
           "剩下约28B除以48再除以12约4860万", 4.86e7, lambda: (30e9 - 2e9) / 48 / 12, "(30e9 − 2e9) / 48 / 12",
           rel_tol=0.005),
    Figure("004-1.2-30b-hidden", 1, "004", _S12, N_("hidden size of a 30B dense model with 48 layers"),
           "开根号约6970 … 接近6~7K的隐藏维度", 6970, _material_hidden, "√((30e9 − 2e9) / 48 / 12)", unit="number",
           rel_tol=0.005, cause=_cause_hidden),
    Figure("004-1.2-table-7b", 1, "004", _S12, N_("size table, 7B row: 32 layers, hidden 4096"), "65~70亿",
           (6.5e9, 7.0e9), lambda: _total("llama-2-7b"), "count_params(preset('llama-2-7b'))",
           unit="parameters", rel_tol=0.0,
           cause=_cause_row((4096, 32), "llama-2-7b")),
    Figure("004-1.2-table-13b", 1, "004", _S12, N_("size table, 13B row: 40 layers, hidden 5120"), "130~140亿",
           (13e9, 14e9), lambda: _total("llama-2-13b"), "count_params(preset('llama-2-13b'))",
           unit="parameters", rel_tol=0.0,
           cause=_cause_row((5120, 40), "llama-2-13b")),
    Figure("004-1.2-table-30b", 1, "004", _S12, N_("size table, 30B row: 48 layers, hidden 6144"), "280~320亿",
           (28e9, 32e9), lambda: m.rule_params(6144, 48, _VOCAB), "rule_params(6144, 48, 32000)",
           unit="parameters", rel_tol=0.05, cause=_cause_30b),
    Figure("004-1.2-table-70b", 1, "004", _S12, N_("size table, 70B row: 80 layers, hidden 8192"), "660~710亿",
           (66e9, 71e9), lambda: _total("llama-2-70b"), "count_params(preset('llama-2-70b'))",
           unit="parameters", rel_tol=0.0,
           cause=_cause_row((8192, 80), "llama-2-70b")),
)
