"""How chapter 4's findings read (``llmest.plans.findings.data`` works them out)."""

from __future__ import annotations

from ...core.i18n import NC_, C_, _
from ...core.report import Report
from ...core.units import format_bytes, format_count, format_flops, format_percent
from ..common import TRUE_FALSE
from ..table import Table

# The kinds of text as the chapter names them, lower-case in English ("english: Debian manpages ...").
KINDS = {"english": NC_("text kind", "english"), "chinese": NC_("text kind", "chinese"),
         "code": NC_("text kind", "code")}


def _kind(kind: str) -> str:
    return C_("text kind", KINDS.get(kind, kind))


def _table(columns, rows) -> Report:
    return Report("", blocks=(Table(columns, rows),))


def against_rule(f: dict) -> Report:
    return Report("", lines=tuple(_("{params}: {tokens} tokens in {section}, {share} of the rule's {rule}").format(
        params=format_count(row["params"]), tokens=format_count(row["tokens"]), section=f["section"],
        share=format_percent(row["share"], 0), rule=format_count(row["rule"])) for row in f["rows"]))


def closed_form_checks(f: dict) -> Report:
    checks = ((_("the root of dL/dN = 0 is the closed form"), f["root"]),
              (_("the library's optimal() is the closed form"), f["optimal"]),
              (_("6·N_opt·D_opt spends exactly C"), f["spends"]))
    return Report("", lines=tuple(_("{check}: {outcome}").format(check=check, outcome=_(TRUE_FALSE[ok]))
                                  for check, ok in checks))


def fits_table(f: dict) -> Report:
    rows = [(row["fit"], f"{row['E']:.4g}", f"{row['A']:.5g}", f"{row['B']:.6g}", f"{row['alpha']:.4g}",
             f"{row['beta']:.4g}", format_count(row["n_opt"]), format_count(row["d_opt"]),
             f"{row['tokens_per_param']:.1f}") for row in f["fits"]]
    return _table((_("fit"), "E", "A", "B", "α", "β", "N_opt", "D_opt", "D/N"), rows)


def trained(f: dict) -> Report:
    return Report("", lines=(_("{model} was trained with {params} parameters on {tokens} tokens: {per} per "
                               "parameter").format(model=f["name"], params=format_count(f["params"]),
                                                   tokens=format_count(f["tokens"]),
                                                   per=f"{f['tokens_per_param']:.0f}"),))


def rounding(f: dict) -> Report:
    return Report("", lines=(_("N_opt {rounded} with the rounded constants, {unrounded} unrounded").format(
        rounded=format_count(f["rounded"]), unrounded=format_count(f["unrounded"])),))


def trained_table(f: dict) -> Report:
    rows = [(m["model"], format_count(m["params"]), format_count(m["tokens"]),
             f"{m['tokens_per_param']:,.1f}" if m["tokens_per_param"] < 10 else f"{m['tokens_per_param']:,.0f}")
            for m in f["models"]]
    return _table((_("model"), _("parameters"), _("tokens"), _("tokens per parameter")), rows)


def optimal_instead(f: dict) -> Report:
    return Report("", lines=(_("budget {flops}: compute-optimal {params} on {tokens} tokens; inference per token "
                               "{ratio}× {model}'s").format(flops=format_flops(f["budget_flops"]),
                                                            params=format_count(f["params"]),
                                                            tokens=format_count(f["tokens"]),
                                                            ratio=f"{f['ratio']:.1f}", model=f["model"]),))


def rates(f: dict) -> Report:
    lines = [_("{kind} {low} to {high} tokens per GB; the workbook uses {rate}").format(
        kind=f"{_kind(row['kind']):<8}", low=format_count(row["low"]), high=format_count(row["high"]),
        rate=format_count(row["rate"])) for row in f["kinds"]]
    low, high = f["cleaning_yield"]
    lines.append(_("cleaning yield {low} to {high}").format(low=format_percent(low, 0), high=format_percent(high, 0)))
    return Report("", lines=tuple(lines))


def measured(f: dict) -> Report:
    lines = []
    for row in f["kinds"]:
        lines.append(_("{kind}: {name} {version}, {size} in {files} files, {licence}; {share} of its characters "
                       "Chinese").format(kind=_kind(row["kind"]), name=_(row["name"]), version=row["version"],
                                         size=format_bytes(row["bytes"]), files=row["files"],
                                         licence=_(row["licence"]), share=format_percent(row["cjk_share"], 0)))
        for t in row["tokenizers"]:
            lines.append("    " + _("{tokenizer} {rate} tokens per GB (sub-samples {low} to {high})").format(
                tokenizer=f"{t['tokenizer']:<13}", rate=f"{format_count(t['rate']):>5}",
                low=format_count(t["low"]), high=format_count(t["high"])))
        lines.append("    " + _("the workbook's rate: {rate}, the tokenizers' median").format(
            rate=format_count(row["rate"])))
    return Report("", blocks=("\n".join(lines),))


def crawls(f: dict) -> Report:
    lines = []
    for row in f["crawls"]:
        share = format_percent(row["cleaning_yield"], 0)
        if row["tokens_per_gb"] is None:
            lines.append(_("yield {share}: {cleaned} cleaned, / {share} = {raw} of raw crawl").format(
                share=share, cleaned=format_bytes(row["cleaned_bytes"]), raw=format_bytes(row["raw_bytes"])))
        else:
            lines.append(_("yield {share}: {tokens} tokens / {rate} per GB = {cleaned} cleaned, / {share} = {raw} "
                           "of raw crawl").format(share=share, tokens=format_count(row["tokens"]),
                                                  rate=format_count(row["tokens_per_gb"]),
                                                  cleaned=format_bytes(row["cleaned_bytes"]),
                                                  raw=format_bytes(row["raw_bytes"])))
    return Report("", lines=tuple(lines))


def tokenizers_crawl(f: dict) -> Report:
    return Report("", blocks=("\n".join(_("with {tokenizer} {cleaned} cleaned, {low} to {high} raw").format(
        tokenizer=f"{row['tokenizer']:<13}", cleaned=format_bytes(row["cleaned_bytes"]),
        low=format_bytes(row["raw_low"]), high=format_bytes(row["raw_high"])) for row in f["tokenizers"]),))


def material_tokens(f: dict) -> Report:
    return Report("", lines=(_("the material's {tokens} tokens instead: {params} parameters, {per} tokens per "
                               "parameter").format(tokens=format_count(f["tokens"]), params=format_count(f["params"]),
                                                   per=f"{f['tokens_per_param']:.1f}"),))


def recap(f: dict) -> Report:
    rates = f["tokens_per_gb"]
    rows = [
        (_("tokens for a 7B / a 70B"), f"{format_count(f['tokens']['7B'])} / {format_count(f['tokens']['70B'])}"),
        (_("compute-optimal N for 10²⁴ FLOPs (20× rule)"), format_count(f["params_for_flops"])),
        (_("Llama 3 8B, tokens per parameter"), f"{f['llama_3_8b_tokens_per_param']:,.0f}"),
        (_("tokens per GB: English / Chinese / code"),
         " / ".join(format_count(rates[kind]) for kind in ("english", "chinese", "code"))),
    ]
    return _table((_("figure"), _("value")), rows)
