"""How chapter 1's findings read (``llmest.plans.findings.parameters`` works them out)."""

from __future__ import annotations

from ...core.i18n import _, display_width, language
from ...core.report import Report
from ...core.units import format_count, format_int, format_percent
from ...formulas.params import PART_NAMES
from ..table import Table


def _model(name) -> str:
    return name or _("the model")


def _table(columns, rows, **options) -> Report:
    return Report("", blocks=(Table(columns, rows, **options),))


def rule_parts(f: dict) -> Report:
    parts = ((_("one layer, 12·H²"), f["per_layer"]), (_("{layers} layers").format(layers=f["layers"]),
                                                       f["all_layers"]),
             (_("embedding V·H"), f["embedding"]), (_("total"), f["total"]))
    return Report("", fields=tuple((label, f" {format_int(n):>15}  ({format_count(n)})") for label, n in parts))


def versus_rule(f: dict) -> Report:
    return Report("", lines=(_("rule: {rule};  exact minus rule: {gap}").format(rule=format_int(f["rule"]),
                                                                                 gap=format_int(f["gap"])),))


def size_table(f: dict) -> Report:
    rows = [(row["name"], str(row["layers"]), str(row["hidden"]),
             f"{format_count(row['low'])} - {format_count(row['high'])}", format_count(row["rule"]),
             "-" if row["real_model"] is None else f"{row['real_model']} {format_count(row['real_params'])}")
            for row in f["rows"]]
    return _table((_("row"), "L", "H", _("material"), _("rule"), _("real model")), rows)


def rule_table(f: dict) -> Report:
    rows = [(_model(row["model"]), format_int(row["exact"]), format_count(row["rule"]),
             format_percent(row["error"], 1, signed=True), row["attention"], _("gated") if row["gated_ffn"] else "4H",
             _("tied") if row["tied"] else _("untied")) for row in f["models"]]
    return _table((_("model"), _("exact"), _("rule"), _("rule error"), _("attention"), "FFN", _("head")), rows)


def departures_table(f: dict) -> Report:
    rows = [(_model(row["model"]), f"{row['attention']:.2f}", f"{row['ffn']:.2f}", f"{row['heads_width']:.2f}",
             f"{row['embedding_share'] * 100:.1f}") for row in f["models"]]
    share = _("embed+head share")
    return _table((_("model"), _("attention/H²"), "FFN/H²", _("heads×width/H"), share), rows, units={share: "%"})


def grouped_query(f: dict) -> Report:
    return Report("", lines=(
        _("attention: {mha}·H² with MHA, {gqa}·H² with {kv} KV heads").format(mha=f"{f['mha']:.2f}",
                                                                              gqa=f"{f['gqa']:.2f}", kv=f["kv_heads"]),
        _("FFN:       {ffn}·H² (SwiGLU, F = {width}) instead of 8·H²").format(ffn=f"{f['ffn']:.2f}",
                                                                          width=f["ffn_width"])))


def active_share(f: dict) -> Report:
    return Report("", lines=(_("active / total = {share}").format(share=format_percent(f["share"], 1)),))


def latent_attention(f: dict) -> Report:
    return Report("", lines=(_("MLA {latent} a layer; Q, K, V and O for {heads} heads: {mha} ({ratio}x)").format(
        latent=format_int(f["latent"]), heads=f["heads"], mha=format_int(f["mha"]), ratio=f"{f['ratio']:.1f}"),))


def moe_layer(f: dict) -> Report:
    return Report("", lines=(_("one MoE layer of {model}, norms aside: {params}").format(
        model=_model(f["model"]), params=format_count(f["params"])),))


def mtp_module(f: dict) -> Report:
    return Report("", lines=(
        _("{model}: {total} + MTP {mtp} (one transformer layer {layer}, the projection and norms {projection})")
        .format(model=_model(f["model"]), total=format_count(f["total"]), mtp=format_count(f["mtp"]),
                layer=format_count(f["layer"]), projection=format_count(f["projection"])),
        _("with the checkpoint's own copies of the embedding and output head ({copies}): {checkpoint}").format(
            copies=format_count(f["copies"]), checkpoint=format_count(f["checkpoint"], 4)),
        _("training it adds {extra} to the N of 6·N·D ({n}): {share} more FLOPs").format(
            extra=format_count(f["mtp_flops_params"]), n=format_count(f["flops_params"]),
            share=format_percent(f["mtp_flops_params"] / f["flops_params"], 1))))


def active_table(f: dict) -> Report:
    comma = "、" if language() == "zh" else ", "
    rows = [(_model(row["model"]), format_count(row["total"]), format_count(row["active"]),
             format_count(row["as_card_counts"]),
             comma.join(_(PART_NAMES.get(part, part)) for part in row["left_out"]) or _("nothing"))
            for row in f["models"]]
    return _table((_("model"), _("total"), _("active"), _("as its card counts"), _("left out")), rows)


def remember(f: dict) -> Report:
    rows = ((_("12·H² at H = 4096"), f["layer_rule"]), (_("the rule's 7B (H 4096, L 32)"), f["rule_7b"]),
            (_("{model} exact").format(model="Llama-2-7B"), f["llama_2_7b"]),
            (_("{model} exact").format(model="Llama-2-70B"), f["llama_2_70b"]),
            (_("{model} total").format(model="Mixtral-8x7B"), f["mixtral_total"]),
            (_("{model} active").format(model="Mixtral-8x7B"), f["mixtral_active"]))
    counts = [format_count(n) for _label, n in rows]
    width = max([7] + [display_width(count) for count in counts])
    return Report("", fields=tuple((label, " " + " " * (width - display_width(count)) + count)
                                   for (label, _n), count in zip(rows, counts)))
