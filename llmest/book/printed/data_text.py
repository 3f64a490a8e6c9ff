"""Chapter 4's figures as a reader sees them: the loss fits and their optimum, what real models were trained on, the
material's and the measured tokens per GB, and the figures to remember. Every figure comes from llmest.data (and
compute's 6·N·D); the words are the library's, so they read in the language shown."""

from __future__ import annotations

from ...core import _validate as v
from ...formulas import data as dt
from ...formulas.compute import training_flops
from ...core.i18n import NC_, C_, _
from ...display.table import Table
from ...core.units import format_bytes, format_count, format_flops, format_percent

# The kinds of text as the chapter names them, lower-case in English ("english: Debian manpages ...").
KINDS = {"english": NC_("text kind", "english"), "chinese": NC_("text kind", "chinese"),
         "code": NC_("text kind", "code")}


def closed_form_checks(root, optimal, spends) -> str:
    """The three checks of the derivation of N_opt, each with its outcome (True when SymPy proved it)."""
    for name, ok in zip(("root", "optimal", "spends"), (root, optimal, spends)):
        v.check_bool(name, ok)
    checks = ((_("the root of dL/dN = 0 is the closed form"), root),
              (_("the library's optimal() is the closed form"), optimal),
              (_("6·N_opt·D_opt spends exactly C"), spends))
    return "\n".join(_("{check}: {outcome}").format(check=check, outcome=ok) for check, ok in checks)


def fits_table(flops=dt.CHINCHILLA_FLOPS) -> Table:
    """Each loss fit's constants and the compute-optimal N and D it gives for a budget of ``flops``."""
    v.check_positive("flops", flops)
    rows = []
    for name, law in dt.FITS.items():
        n, d = law.optimal(flops)
        rows.append((name, f"{law.E:.4g}", f"{law.A:.5g}", f"{law.B:.6g}", f"{law.alpha:.4g}", f"{law.beta:.4g}",
                     format_count(n), format_count(d), f"{d / n:.1f}"))
    return Table((_("fit"), "E", "A", "B", "α", "β", "N_opt", "D_opt", "D/N"), rows)


def _trained(model) -> dt.TrainedModel:
    if isinstance(model, dt.TrainedModel):
        return model
    return v.lookup("model", model, {m.name: m for m in dt.TRAINED})


def trained_text(model, name=None) -> str:
    """What a model of ``llmest.data.TRAINED`` (or its name there) was trained on; ``name``: how the sentence names
    it (its name in TRAINED by default)."""
    model = _trained(model)
    if name is not None and not isinstance(name, str):
        raise v.InputError("name", f"name == {v.quote(name)}, must be text or None.")
    return _("{model} was trained with {params} parameters on {tokens} tokens: {per} per parameter").format(
        model=name or model.name, params=format_count(model.params), tokens=format_count(model.tokens),
        per=f"{model.tokens_per_param:.0f}")


def rounding_text(flops=dt.CHINCHILLA_FLOPS) -> str:
    """Hoffmann et al.'s compute-optimal N for ``flops`` with the constants as printed and unrounded."""
    v.check_positive("flops", flops)
    rounded, unrounded = (dt.fit(name).optimal(flops)[0] for name in ("hoffmann", "hoffmann-unrounded"))
    return _("N_opt {rounded} with the rounded constants, {unrounded} unrounded").format(
        rounded=format_count(rounded), unrounded=format_count(unrounded))


def optimal_instead_text(model, fit="besiroglu") -> str:
    """The compute-optimal model (by ``fit``) for a trained model's own budget 6·N·D, and how many times its
    inference per token that one would cost."""
    model = _trained(model)
    budget = training_flops(model.params, model.tokens)
    n, d = dt.fit(fit).optimal(budget)
    return _("budget {flops}: compute-optimal {params} on {tokens} tokens; inference per token {ratio}× "
             "{model}'s").format(flops=format_flops(budget), params=format_count(n), tokens=format_count(d),
                                 ratio=f"{n / model.params:.1f}", model=model.name)


def rates_text() -> str:
    """The material's tokens per GB by language against the workbook's rates, and its cleaning yield."""
    lines = [_("{kind} {low} to {high} tokens per GB; the workbook uses {rate}").format(
        kind=f"{C_('text kind', KINDS[kind]):<8}", low=format_count(low), high=format_count(high),
        rate=format_count(dt.tokens_per_gb(kind))) for kind, (low, high) in dt.TOKENS_PER_GB.items()]
    low, high = dt.CLEANING_YIELD
    lines.append(_("cleaning yield {low} to {high}").format(low=format_percent(low, 0), high=format_percent(high, 0)))
    return "\n".join(lines)


def measured_text() -> str:
    """Each measured text (its source, size and licence) and its tokens per GB under each tokenizer, with the
    spread of its sub-samples and the workbook's rate."""
    lines = []
    for kind, row in dt.MEASURED.items():
        lines.append(_("{kind}: {name} {version}, {size} in {files} files, {licence}; {share} of its characters "
                       "Chinese").format(kind=C_("text kind", KINDS.get(kind, kind)), name=row["name"],
                                         version=row["version"], size=format_bytes(row["bytes"]), files=row["files"],
                                         licence=row["licence"], share=format_percent(row["cjk_share"], 0)))
        for t in dt.TOKENIZERS:
            low, high = dt.measured_spread(kind, t)
            lines.append("    " + _("{tokenizer} {rate} tokens per GB (sub-samples {low} to {high})").format(
                tokenizer=f"{t:<13}", rate=f"{format_count(dt.measured_tokens_per_gb(kind, t)):>5}",
                low=format_count(low), high=format_count(high)))
        lines.append("    " + _("the workbook's rate: {rate}, the tokenizers' median").format(
            rate=format_count(dt.tokens_per_gb(kind))))
    return "\n".join(lines)


def recap() -> Table:
    """The chapter's figures to remember: Chinchilla's tokens, the compute-optimal N for 10²⁴ FLOPs, Llama 3 8B's
    tokens per parameter and the workbook's tokens per GB."""
    llama3 = _trained("Llama 3 8B")
    rows = [
        (_("tokens for a 7B / a 70B"), f"{format_count(dt.chinchilla_tokens(7e9))} / "
                                       f"{format_count(dt.chinchilla_tokens(70e9))}"),
        (_("compute-optimal N for 10²⁴ FLOPs (20× rule)"), format_count(dt.chinchilla_params_for_flops(1e24))),
        (_("Llama 3 8B, tokens per parameter"), f"{llama3.tokens_per_param:,.0f}"),
        (_("tokens per GB: English / Chinese / code"),
         " / ".join(format_count(dt.tokens_per_gb(kind)) for kind in ("english", "chinese", "code"))),
    ]
    return Table((_("figure"), _("value")), rows)


def against_rule_text(rows, section="§3.3") -> str:
    """Rows of (parameters, tokens) from the material against the 20-tokens-per-parameter rule: each row's tokens
    as a share of the rule's."""
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, (list, tuple)) and len(r) == 2
                                                                  for r in rows):
        raise v.InputError("rows", f"rows == {v.quote(rows)}, must be a list of (parameters, tokens).")
    if not isinstance(section, str):
        raise v.InputError("section", f"section == {v.quote(section)}, must be text.")
    lines = []
    for params, tokens in rows:
        v.check_positive("rows", tokens)
        rule = dt.chinchilla_tokens(params)
        lines.append(_("{params}: {tokens} tokens in {section}, {share} of the rule's {rule}").format(
            params=format_count(params), tokens=format_count(tokens), section=section,
            share=format_percent(tokens / rule, 0), rule=format_count(rule)))
    return "\n".join(lines)


def trained_table() -> Table:
    """What the models of ``llmest.data.TRAINED`` were trained on: parameters, tokens and tokens per parameter."""
    rows = [(m.name, format_count(m.params), format_count(m.tokens),
             f"{m.tokens_per_param:,.1f}" if m.tokens_per_param < 10 else f"{m.tokens_per_param:,.0f}")
            for m in dt.TRAINED]
    return Table((_("model"), _("parameters"), _("tokens"), _("tokens per parameter")), rows)


def tokenizers_crawl_text(tokens, kind="chinese", cleaning_yield=dt.CLEANING_YIELD) -> str:
    """The cleaned text and the raw crawl for ``tokens`` tokens of one kind of text at each tokenizer's measured
    rate, the crawl over the range ``cleaning_yield`` (low, high)."""
    v.check_positive("tokens", tokens)
    if not isinstance(cleaning_yield, (list, tuple)) or len(cleaning_yield) != 2:
        raise v.InputError("cleaning_yield", f"cleaning_yield == {v.quote(cleaning_yield)}, must be (low, high).")
    low, high = cleaning_yield
    lines = []
    for t in dt.TOKENIZERS:
        cleaned = dt.cleaned_bytes(tokens, dt.measured_tokens_per_gb(kind, t))
        lines.append(_("with {tokenizer} {cleaned} cleaned, {low} to {high} raw").format(
            tokenizer=f"{t:<13}", cleaned=format_bytes(cleaned), low=format_bytes(dt.raw_bytes(cleaned, high)),
            high=format_bytes(dt.raw_bytes(cleaned, low))))
    return "\n".join(lines)
