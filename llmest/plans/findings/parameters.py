"""Chapter 1's findings: the rule L·12H² + V·H against exact counts, the material's size table, where real models
depart from the rule (grouped-query and latent attention, gated FFNs, mixtures of experts) and what a
mixture-of-experts model's card counts as active (``llmest.display.findings.parameters`` writes them)."""

from __future__ import annotations

from ...core import _validate as v
from ...core.i18n import _
from ...core.report import Finding
from ...display.findings import parameters as shown
from ...formulas.model import config_from, count_params
from ...formulas import compute as c
from ...formulas.params import (attention_params, embedding_params, ffn_params, mla_attention_params,
                                mtp_module_params, rule_layer_params, rule_params)
from . import configs


def _name(model, cfg):
    """A model as the caller named it: the preset's name, else the config's (None: the display says "the model")."""
    return model if isinstance(model, str) else cfg.name or None


def _models(models) -> list:
    """(model, its config) for each of a list of presets or configs; a bad one is named "models[i]"."""
    return list(zip(models, configs("models", models)))


@v.checked
def rule_parts(hidden=4096, layers=32, vocab_size=32000) -> Finding:
    """The rule L·12H² + V·H part by part: one layer, all the layers, the embedding and the total."""
    v.check_int("layers", layers)
    per_layer = rule_layer_params(hidden)
    return Finding(dict(hidden=hidden, layers=layers, vocab_size=vocab_size, per_layer=per_layer,
                        all_layers=layers * per_layer, embedding=embedding_params(vocab_size, hidden),
                        total=rule_params(hidden, layers, vocab_size)), shown.rule_parts)


def versus_rule(exact, rule) -> Finding:
    """An exact count against the rule's: the rule's figure and what the exact count has more."""
    v.check_positive("exact", exact)
    v.check_positive("rule", rule)
    return Finding(dict(exact=exact, rule=rule, gap=exact - rule), shown.versus_rule)


def _size_rows(name, rows):
    if not isinstance(rows, (list, tuple)) or not rows:
        raise v.InputError(name, f"rows == {v.quote(rows)}, must be a list of (name, layers, hidden, (low, high), "
                                 "real model or None).")
    for row in rows:
        if not isinstance(row, (list, tuple)) or len(row) != 5 or not isinstance(row[3], (list, tuple)) \
                or len(row[3]) != 2:
            raise v.InputError(name, f"rows has {v.quote(row)}, must be (name, layers, hidden, (low, high), real "
                                     "model or None).")
    return rows


@v.checked(rows=_size_rows)
def size_table(rows, vocab_size=32000) -> Finding:
    """The material's size table: per row (name, layers, hidden, (low, high), a real model with that L and H or
    None), the range it states, the rule L·12H² + V·H at that shape, and the real model's exact count."""
    v.check_int("vocab_size", vocab_size)
    out = []
    for name, layers, hidden, (low, high), real in rows:
        cfg = None if real is None else config_from(real)
        out.append(dict(name=str(name), layers=layers, hidden=hidden, low=low, high=high,
                        rule=rule_params(hidden, layers, vocab_size),
                        real_model=None if real is None else _name(real, cfg) or str(real),
                        real_params=None if real is None else count_params(cfg).total))
    return Finding(dict(vocab_size=vocab_size, rows=out), shown.size_table)


def rule_table(models) -> Finding:
    """The rule L·12H² + V·H against each model's exact count, with what the rule leaves out: the attention kind,
    a gated FFN, an untied head."""
    rows = []
    for model, cfg in _models(models):
        exact = count_params(cfg).total
        rule = rule_params(cfg.hidden_size, cfg.num_layers, cfg.vocab_size)
        rows.append(dict(model=_name(model, cfg), exact=exact, rule=rule, error=rule / exact - 1,
                         attention=cfg.attention_kind, gated_ffn=bool(cfg.gated_ffn),
                         tied=bool(cfg.tie_embeddings)))
    return Finding(dict(models=rows), shown.rule_table)


def departures_table(models) -> Finding:
    """Where each model departs from the rule, per layer in units of H²: its attention and FFN, its heads' total
    width, and the share of its parameters held by the embedding and the output head."""
    rows = []
    for model, cfg in _models(models):
        H, parts = cfg.hidden_size, count_params(cfg).parts
        rows.append(dict(model=_name(model, cfg),
                         attention=attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim) / H**2,
                         ffn=ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn) / H**2,
                         heads_width=cfg.num_heads * cfg.head_dim / H,
                         embedding_share=(parts["embeddings"] + parts["output_head"]) / sum(parts.values())))
    return Finding(dict(models=rows), shown.departures_table)


def grouped_query(model="llama-2-70b") -> Finding:
    """A model with grouped-query attention and a gated FFN against the rule: its attention per layer with as many
    KV heads as query heads and with its own, and its FFN against 8·H²."""
    cfg = config_from(model)
    if not cfg.gated_ffn or cfg.num_kv_heads >= cfg.num_heads:
        raise v.InputError("model", f"model == {v.quote(model)}, must have grouped-query attention and a gated FFN "
                                    "(e.g. llama-2-70b).")
    H2 = cfg.hidden_size**2
    return Finding(dict(model=_name(model, cfg), kv_heads=cfg.num_kv_heads,
                        mha=attention_params(cfg.hidden_size, cfg.num_heads) / H2,
                        gqa=attention_params(cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim) / H2,
                        ffn=ffn_params(cfg.hidden_size, cfg.ffn_hidden_size, gated=True) / H2,
                        ffn_width=cfg.ffn_hidden_size), shown.grouped_query)


def active_share(model) -> Finding:
    """A mixture of experts' active parameters as a share of its total."""
    cfg = config_from(model)
    count = count_params(cfg)
    return Finding(dict(model=_name(model, cfg), total=count.total, active=count.active,
                        share=count.active / count.total), shown.active_share)


def latent_attention(model="deepseek-v3") -> Finding:
    """One layer's multi-head latent attention against ordinary multi-head attention with the same head widths (Q
    and K qk_nope + qk_rope wide, V and O v_head_dim)."""
    cfg = config_from(model)
    if not cfg.is_mla:
        raise v.InputError("model", f"model == {v.quote(model)}, must use multi-head latent attention "
                                    "(e.g. deepseek-v3).")
    latent = mla_attention_params(cfg.hidden_size, cfg.num_heads, cfg.kv_lora_rank, cfg.qk_nope_head_dim,
                                  cfg.qk_rope_head_dim, cfg.v_head_dim, q_lora_rank=cfg.q_lora_rank)
    per_head = cfg.hidden_size * cfg.num_heads * (2 * cfg.head_dim + 2 * cfg.v_head_dim)  # Q, K, V and O
    return Finding(dict(model=_name(model, cfg), heads=cfg.num_heads, latent=latent, mha=per_head,
                        ratio=per_head / latent), shown.latent_attention)


def moe_layer(model="deepseek-v3", name=None) -> Finding:
    """One mixture-of-experts layer's parameters, norms aside: a layer's attention, and the experts, shared experts
    and router of one MoE layer; ``name``: how the sentence names the model (the preset's name by default)."""
    if name is not None and not isinstance(name, str):
        raise v.InputError("name", f"name == {v.quote(name)}, must be text or None.")
    cfg = config_from(model)
    if not cfg.moe_layers:
        raise v.InputError("model", f"model == {v.quote(model)}, must have mixture-of-experts layers.")
    count = count_params(cfg)
    attention = count["attention"] / cfg.attention_layers
    experts = (count["experts"] + count["shared_experts"] + count["router"]) / cfg.moe_layers
    return Finding(dict(model=name or _name(model, cfg), attention=attention, experts=experts,
                        params=attention + experts), shown.moe_layer)


def mtp_module(model="deepseek-v3") -> Finding:
    """A model's multi-token-prediction modules (``mtp_layers``), counted apart from it: their parameters, the one
    transformer layer each holds, the copies of the embedding and output head a checkpoint stores beside them (the
    modules share the main model's), the checkpoint's whole count, and what they add to the N of 6·N·D in training
    (``compute.mtp_flops_params``)."""
    cfg = config_from(model)
    if not cfg.mtp_layers:
        raise v.InputError("model", _("model == {model} has no multi-token-prediction module (its config.json sets no "
                                      "num_nextn_predict_layers).").format(model=v.quote(model)))
    count = count_params(cfg)
    copies = cfg.mtp_layers * (count["embeddings"] + embedding_params(cfg.vocab_size, cfg.embedding_dim))
    projection = cfg.mtp_layers * (mtp_module_params(cfg.hidden_size, 1, cfg.norm) - 1)  # and norms: all but the layer
    return Finding(dict(model=_name(model, cfg), modules=cfg.mtp_layers, total=count.total, mtp=count.mtp,
                        layer=count.mtp - projection, projection=projection, copies=copies,
                        checkpoint=count.total + count.mtp + copies, flops_params=c.flops_params(cfg),
                        mtp_flops_params=c.mtp_flops_params(cfg)), shown.mtp_module)


def active_table(models) -> Finding:
    """Mixture-of-experts models' total and active parameters, and the active count as each one's card counts it:
    ``models`` maps a preset to the parts its card leaves out (``ParamCount.active_without``)."""
    if not isinstance(models, dict) or not models:
        raise v.InputError("models", f"models == {v.quote(models)}, must be a dict of preset: parts left out, "
                                     "e.g. {'deepseek-v3': ('embeddings',)}.")
    rows = []
    for model, left_out in models.items():
        with v.item_of("models", v.quote(model)):  # a bad preset or part: "models['x']: ..."
            cfg = config_from(model)
            count = count_params(cfg)
            left_out = [left_out] if isinstance(left_out, str) else left_out
            if not isinstance(left_out, (list, tuple)) or not all(isinstance(part, str) for part in left_out):
                raise v.InputError("models", _("models[{key}] == {value}, must be a part the card leaves out or a "
                                               "list of them, from {parts}.").format(
                    key=v.quote(model), value=v.quote(left_out), parts=", ".join(count.parts)))
            rows.append(dict(model=_name(model, cfg), total=count.total, active=count.active,
                             as_card_counts=count.active_without(*left_out), left_out=list(left_out)))
    return Finding(dict(models=rows), shown.active_table)


def remember() -> Finding:
    """Chapter 1's figures to remember: one layer by the rule at H = 4096, the rule's 7B (H 4096, L 32, V 32000),
    and exact counts of Llama 2 7B and 70B and of Mixtral 8x7B (total and active)."""
    llama7, llama70, mixtral = (count_params(config_from(name)) for name in ("llama-2-7b", "llama-2-70b",
                                                                             "mixtral-8x7b"))
    return Finding(dict(hidden=4096, layers=32, vocab_size=32000, layer_rule=rule_layer_params(4096),
                        rule_7b=rule_params(4096, 32, 32000), llama_2_7b=llama7.total, llama_2_70b=llama70.total,
                        mixtral_total=mixtral.total, mixtral_active=mixtral.active), shown.remember)
