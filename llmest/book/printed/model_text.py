"""Chapter 1's comparisons as a reader sees them: the rule against exact counts, the material's size table, where
real models depart from the rule (grouped-query and latent attention, gated FFNs, mixtures of experts) and what a
mixture-of-experts model's card counts as active. Every figure comes from llmest.formulas.model and llmest.params; the
words are the library's, so they read in the language shown."""

from __future__ import annotations

from ...core import _validate as v
from ...core.i18n import N_, _, display_width, language
from ...formulas.model import config_from, count_params
from ...formulas.params import PART_NAMES as PARTS
from ...formulas.params import (attention_params, embedding_params, ffn_params, mla_attention_params, rule_layer_params,
                                rule_params)
from ...display.table import Table
from ...core.units import format_count, format_int, format_percent



def _name(model, cfg) -> str:
    """A model as the caller named it: the preset's name, else the config's."""
    return model if isinstance(model, str) else cfg.name or _("the model")


def versus_rule(exact, rule) -> str:
    """An exact count against the rule's: the rule's figure and what the exact count has more."""
    v.check_positive("exact", exact)
    v.check_positive("rule", rule)
    return _("rule: {rule};  exact minus rule: {gap}").format(rule=format_int(rule), gap=format_int(exact - rule))


def _size_row(row, vocab_size):
    if not isinstance(row, (list, tuple)) or len(row) != 5 or not isinstance(row[3], (list, tuple)) \
            or len(row[3]) != 2:
        raise v.InputError("rows", f"rows has {v.quote(row)}, must be (name, layers, hidden, (low, high), real "
                                   "model or None).")
    name, layers, hidden, (low, high), real = row
    real_text = "-" if real is None else f"{real} {format_count(count_params(config_from(real)).total)}"
    return (str(name), str(layers), str(hidden), f"{format_count(low)} - {format_count(high)}",
            format_count(rule_params(hidden, layers, vocab_size)), real_text)


def size_table(rows, vocab_size=32000) -> Table:
    """The material's size table: per row (name, layers, hidden, (low, high), a real model with that L and H or
    None), the range it states, the rule L·12H² + V·H at that shape, and the real model's exact count."""
    if not isinstance(rows, (list, tuple)) or not rows:
        raise v.InputError("rows", f"rows == {v.quote(rows)}, must be a list of (name, layers, hidden, (low, high), "
                                   "real model or None).")
    v.check_int("vocab_size", vocab_size)
    return Table((_("row"), "L", "H", _("material"), _("rule"), _("real model")),
                 [_size_row(row, vocab_size) for row in rows])


def rule_table(models) -> Table:
    """The rule L·12H² + V·H against each model's exact count, with what the rule leaves out: the attention kind,
    a gated FFN, an untied head."""
    if not isinstance(models, (list, tuple)) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a list of presets or ModelConfigs.")
    rows = []
    for model in models:
        cfg = config_from(model)
        exact = count_params(cfg).total
        rule = rule_params(cfg.hidden_size, cfg.num_layers, cfg.vocab_size)
        rows.append((_name(model, cfg), format_int(exact), format_count(rule),
                     format_percent(rule / exact - 1, 1, signed=True), cfg.attention_kind,
                     _("gated") if cfg.gated_ffn else "4H", _("tied") if cfg.tie_embeddings else _("untied")))
    return Table((_("model"), _("exact"), _("rule"), _("rule error"), _("attention"), "FFN", _("head")), rows)


def active_table(models) -> Table:
    """Mixture-of-experts models' total and active parameters, and the active count as each one's card counts it:
    ``models`` maps a preset to the parts its card leaves out (``ParamCount.active_without``)."""
    if not isinstance(models, dict) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a dict of preset: parts left out, "
                                     "e.g. {'deepseek-v3': ('embeddings',)}.")
    rows = []
    for model, left_out in models.items():
        cfg = config_from(model)
        count = count_params(cfg)
        left_out = (left_out,) if isinstance(left_out, str) else tuple(left_out)
        parts = ("、" if language() == "zh" else ", ").join(_(PARTS.get(part, part)) for part in left_out)
        rows.append((_name(model, cfg), format_count(count.total), format_count(count.active),
                     format_count(count.active_without(*left_out)), parts or _("nothing")))
    return Table((_("model"), _("total"), _("active"), _("as its card counts"), _("left out")), rows)


def _lines(rows, width) -> str:
    """Rows of (label, *cells) as lines, the labels padded to ``width`` columns (a wide character taking two)."""
    return "\n".join(label + " " * max(width - display_width(label), 0) + "".join(cells) for label, *cells in rows)


def rule_parts_text(hidden=4096, layers=32, vocab_size=32000) -> str:
    """The rule L·12H² + V·H part by part: one layer, all the layers, the embedding and the total, each exact and
    as a count."""
    v.check_int("layers", layers)
    per_layer = rule_layer_params(hidden)
    parts = ((_("one layer, 12·H²"), per_layer), (_("{layers} layers").format(layers=layers), layers * per_layer),
             (_("embedding V·H"), embedding_params(vocab_size, hidden)),
             (_("total"), rule_params(hidden, layers, vocab_size)))
    return _lines([(label, f" {format_int(n):>15}  ({format_count(n)})") for label, n in parts], 18)


def departures_table(models) -> Table:
    """Where each model departs from the rule, per layer in units of H²: its attention and FFN, its heads' total
    width, and the share of its parameters held by the embedding and the output head."""
    if not isinstance(models, (list, tuple)) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a list of presets or ModelConfigs.")
    rows = []
    for model in models:
        cfg = config_from(model)
        H, parts = cfg.hidden_size, count_params(cfg).parts
        attention = attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim) / H**2
        ffn = ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn) / H**2
        share = (parts["embeddings"] + parts["output_head"]) / sum(parts.values())
        rows.append((_name(model, cfg), f"{attention:.2f}", f"{ffn:.2f}", f"{cfg.num_heads * cfg.head_dim / H:.2f}",
                     f"{share * 100:.1f}"))
    share = _("embed+head share")
    return Table((_("model"), _("attention/H²"), "FFN/H²", _("heads×width/H"), share), rows, units={share: "%"})


def grouped_query_text(model="llama-2-70b") -> str:
    """A model with grouped-query attention and a gated FFN against the rule: its attention per layer with as many
    KV heads as query heads and with its own, and its FFN against 8·H²."""
    cfg = config_from(model)
    if not cfg.gated_ffn or cfg.num_kv_heads >= cfg.num_heads:
        raise v.InputError("model", f"model == {v.quote(model)}, must have grouped-query attention and a gated FFN "
                                    "(e.g. llama-2-70b).")
    H2 = cfg.hidden_size**2
    mha = attention_params(cfg.hidden_size, cfg.num_heads) / H2
    gqa = attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim) / H2
    ffn = ffn_params(cfg.hidden_size, cfg.ffn_hidden_size, gated=True) / H2
    return "\n".join((
        _("attention: {mha}·H² with MHA, {gqa}·H² with {kv} KV heads").format(mha=f"{mha:.2f}", gqa=f"{gqa:.2f}",
                                                                              kv=cfg.num_kv_heads),
        _("FFN:       {ffn}·H² (SwiGLU, F = {width}) instead of 8·H²").format(ffn=f"{ffn:.2f}",
                                                                          width=cfg.ffn_hidden_size)))


def active_share_text(model) -> str:
    """A mixture of experts' active parameters as a share of its total."""
    count = count_params(config_from(model))
    return _("active / total = {share}").format(share=format_percent(count.active / count.total, 1))


def latent_attention_text(model="deepseek-v3") -> str:
    """One layer's multi-head latent attention against ordinary multi-head attention with the same head widths (Q
    and K qk_nope + qk_rope wide, V and O v_head_dim)."""
    cfg = config_from(model)
    if not cfg.is_mla:
        raise v.InputError("model", f"model == {v.quote(model)}, must use multi-head latent attention "
                                    "(e.g. deepseek-v3).")
    latent = mla_attention_params(cfg.hidden_size, cfg.num_heads, cfg.kv_lora_rank, cfg.qk_nope_head_dim,
                                  cfg.qk_rope_head_dim, cfg.v_head_dim, q_lora_rank=cfg.q_lora_rank)
    per_head = cfg.hidden_size * cfg.num_heads * (2 * cfg.head_dim + 2 * cfg.v_head_dim)  # Q, K, V and O
    return _("MLA {latent} a layer; Q, K, V and O for {heads} heads: {mha} ({ratio}x)").format(
        latent=format_int(latent), heads=cfg.num_heads, mha=format_int(per_head), ratio=f"{per_head / latent:.1f}")


def moe_layer_text(model="deepseek-v3", name=None) -> str:
    """One mixture-of-experts layer's parameters, norms aside: a layer's attention, and the experts, shared experts
    and router of one MoE layer; ``name``: how the sentence names the model (the preset's name by default)."""
    if name is not None and not isinstance(name, str):
        raise v.InputError("name", f"name == {v.quote(name)}, must be text or None.")
    cfg = config_from(model)
    if not cfg.moe_layers:
        raise v.InputError("model", f"model == {v.quote(model)}, must have mixture-of-experts layers.")
    count = count_params(cfg)
    layer = (count["attention"] / cfg.num_layers
             + (count["experts"] + count["shared_experts"] + count["router"]) / cfg.moe_layers)
    return _("one MoE layer of {model}, norms aside: {params}").format(model=name or _name(model, cfg),
                                                                      params=format_count(layer))


def remember_text() -> str:
    """Chapter 1's figures to remember: one layer by the rule, the rule's 7B, and exact counts of Llama 2 and
    Mixtral."""
    llama7, llama70, mixtral = (count_params(config_from(name)) for name in ("llama-2-7b", "llama-2-70b",
                                                                             "mixtral-8x7b"))
    rows = ((_("12·H² at H = 4096"), rule_layer_params(4096)),
            (_("the rule's 7B (H 4096, L 32)"), rule_params(4096, 32, 32000)),
            (_("{model} exact").format(model="Llama-2-7B"), llama7.total),
            (_("{model} exact").format(model="Llama-2-70B"), llama70.total),
            (_("{model} total").format(model="Mixtral-8x7B"), mixtral.total),
            (_("{model} active").format(model="Mixtral-8x7B"), mixtral.active))
    counts = [format_count(n) for _label, n in rows]
    width = max([7] + [display_width(count) for count in counts])
    return _lines([(label, " " + " " * (width - display_width(count)) + count)
                   for (label, _n), count in zip(rows, counts)], 30)
