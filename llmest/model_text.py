"""Chapter 1's comparisons as a reader sees them: the rule against exact counts, the material's size table, and
what a mixture-of-experts model's card counts as active. Every figure comes from llmest.model and llmest.params; the
words are the library's, so they read in the language shown."""

from __future__ import annotations

from . import _validate as v
from .i18n import N_, _, language
from .model import config_from, count_params
from .params import PART_NAMES as PARTS
from .params import rule_params
from .tables import Table
from .units import format_count, format_int, format_percent



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
