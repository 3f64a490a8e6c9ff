"""How chapter 6's findings read (``llmest.plans.findings.measure`` works them out): the counted FLOPs, the states
after an AdamW step, the saved activations and the GPU's peak, each beside the formula the chapter works out.
Numbers are written as the chapter wrote them (separators, ``:g``), percentages by ``units.format_percent``."""

from __future__ import annotations

from ...core.i18n import N_, _
from ...core.report import Report
from ...core.units import format_bytes, format_flops, format_percent
from ..common import TRUE_FALSE
from ..table import Table, _pad

# What transformers' Llama saves beyond chapter 2's formula, by the key the chapter gives each term.
LEFT_OUT = {
    "ids": N_("token ids and shifted labels, int64"),
    "loss weight": N_("the loss's total weight, FP32"),
    "rotary": N_("rotary cos and sin, BF16, shared"),
    "log-sum-exp": N_("SDPA's log-sum-exp per head and token, FP32"),
    "softmax": N_("the softmax kept in FP32 as well"),
    "repeated kv": N_("K and V repeated to the query heads"),
}


def _equal(flag: bool) -> str:
    """A comparison's result, as Python prints it."""
    return _(TRUE_FALSE[flag])


def _table(table: Table) -> Report:
    return Report("", blocks=(table,))


def _aligned(lines: list) -> Report:
    """Lines aligned in columns: one block, kept as it is on a page too."""
    return Report("", blocks=("\n".join(lines),))


def _sentences(*lines: str) -> Report:
    return Report("", lines=lines)


# ----------------------------------------------------------------------------------------------------------------
# Parameters and FLOPs
# ----------------------------------------------------------------------------------------------------------------

def params_match(f: dict) -> Report:
    rows = [(r["config"], f"{r['built']:,}", f"{r['counted']:,}", _equal(r["equal"])) for r in f["rows"]]
    return _table(Table(("config.json", "transformers", "count_params", _("equal")), rows))


def shape(f: dict) -> Report:
    return _sentences(_("{layers} layers of hidden size {hidden}, {heads} query and {kv_heads} KV heads of width "
                        "{head_dim}, {ffn} of width {ffn_hidden}, {vocab} tokens").format(
        layers=f["layers"], hidden=f["hidden"], heads=f["heads"], kv_heads=f["kv_heads"], head_dim=f["head_dim"],
        ffn="SwiGLU" if f["gated_ffn"] else "FFN", ffn_hidden=f["ffn_hidden"], vocab=f["vocab"]))


def flops_counted(f: dict) -> Report:
    rows = [(r["attention"], f"{r['forward']:,}", f"{r['backward']:,}", f"{r['ratio']:g}",
             ", ".join(f"{op}: {count}" for op, count in r["forward_by_op"].items())) for r in f["rows"]]
    return _table(Table((_("attention"), _("forward"), _("backward"), _("backward / forward"), _("forward by op")),
                        rows, caption=_("{batch} sequences × {seq} tokens = {tokens} tokens").format(
                            batch=f["batch"], seq=f["seq"], tokens=f["tokens"])))


def forward_terms(f: dict) -> Report:
    return _aligned([
        _("N of 6·N (flops_params) = {n}, of which norm scales: {norms}").format(n=f"{f['n']:,}",
                                                                                 norms=f"{f['norms']:,}"),
        f"{'2·N·tokens':<31}{f['plain']:>13,}",
        f"{'2·(N − norms)·tokens':<31}{f['matmul']:>13,}   "
        + _("= sdpa's forward: {equal}").format(equal=_equal(f["sdpa_equal"])),
        _pad("  + " + _("a third of 12·L·H·Q·T·tokens"), 32, False) + f" {f['eager']:>11,.0f}   "
        + _("= eager's forward: {equal}").format(equal=_equal(f["eager_equal"])),
        _("eager's whole step = 6·(N − norms)·tokens + 12·L·H·Q·T·tokens: {equal}").format(
            equal=_equal(f["step_equal"])),
    ])


def ops_without_formula(f: dict) -> Report:
    lines = []
    for r in f["rows"]:
        lines.append(_("{attention}: ran, counted as 0 FLOPs: {kernels}").format(
            attention=r["attention"], kernels=r["kernels"] or _("no attention kernel")))
        what = (_("elementwise arithmetic (norms, SiLU, rotary), the S × S softmax and its causal mask, the embedding "
                  "lookup, the loss, views and copies") if r["softmax"] else
                _("elementwise arithmetic (norms, SiLU, rotary), the embedding lookup, the loss, views and copies"))
        lines.append(" " * (len(r["attention"]) + 2) + _("and {others} other ops: {what}").format(
            others=r["others"], what=what))
    return _aligned(lines)


def step_flops(f: dict) -> Report:
    return _sentences(
        _("{tokens} tokens; counted per token: {flops} FLOPs").format(tokens=f"{f['tokens']:,}",
                                                                      flops=format_flops(f["per_token"])),
        _("6·(N − norms) + 12·L·H·Q·T = {matmul} + {attention}: equal to the count: {equal}").format(
            matmul=format_flops(f["matmul"]), attention=format_flops(f["attention"]), equal=_equal(f["equal"])),
        _("attention's share of the step: {share}; the norm scales' share of N: {norms}").format(
            share=format_percent(f["share"], 1), norms=format_percent(f["norms_share"], 4)),
    )


# ----------------------------------------------------------------------------------------------------------------
# Training states and the GPU's peak
# ----------------------------------------------------------------------------------------------------------------

def states_held(f: dict) -> Report:
    rows = [(r["convention"], *(f"{r[k]:g}" for k in ("weights", "master", "grads", "optimizer", "total",
                                                        "chapter_2")),
             r["equal"], _("{bytes} bytes for {tensors} tensors").format(bytes=r["step_counters"],
                                                                         tensors=f["tensors"]))
            for r in f["rows"]]
    return _table(Table((_("convention"), _("weights"), _("master"), _("grads"), "m + v", _("total"), _("chapter 2"),
                         _("equal"), _("step counters")), rows))


def no_gpu(f: dict) -> Report:
    return _sentences(_("No GPU here: torch.cuda.max_memory_allocated has nothing to measure; skipped."))


def step_peak(f: dict) -> Report:
    return _sentences(_("peak during one mixed-precision step: {peak}; estimate: states {states} + activations "
                        "{activations} = {total} ({ratio}×)").format(
        peak=format_bytes(f["peak"]), states=format_bytes(f["states"]), activations=format_bytes(f["activations"]),
        total=format_bytes(f["estimate"]), ratio=f"{f['ratio']:.2f}"))


def forward_peak(f: dict) -> Report:
    return _sentences(_("batch {batch}: peak above the weights {above}, formula {estimate} ({ratio}×)").format(
        batch=f["batch"], above=format_bytes(f["above"]), estimate=format_bytes(f["estimate"]),
        ratio=f"{f['ratio']:.2f}"))


# ----------------------------------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------------------------------

def saved(f: dict) -> Report:
    rows = []
    for r in f["rows"]:
        row = [r["module"] or _("(the loss)"), r["dtype"], str(tuple(r["shape"])), f"{r['bytes']:,}"]
        rows.append(row if f["tokens"] is None else [*row, f"{r['per_token']:g}"])
    columns = [_("module"), _("dtype"), _("shape"), _("bytes")]
    return _table(Table(columns if f["tokens"] is None else [*columns, _("per token")], rows))


def layer_formula(f: dict) -> Report:
    return _sentences(_("chapter 2, one layer: 20·h + 8 + 4·k·d + 8·F = {bytes} bytes per token").format(
        bytes=f"{f['per_token']:g}"))


def output_formula(f: dict) -> Report:
    return _sentences(_("chapter 2, output layer: 8·s·b·h + 4·s·b + 4·s·b·V = {bytes} bytes").format(
        bytes=f"{f['nbytes']:,.0f}"))


def dtypes(f: dict) -> Report:
    return _sentences(_("dtypes saved: {dtypes}").format(dtypes=f["dtypes"]))


def formula_short(f: dict) -> Report:
    width = max(len(r["attention"]) for r in f["rows"]) + 1
    return _aligned([_pad(r["attention"], width, False) + " " + _(
        "measured {measured} bytes; chapter 2's formula {formula}: {short} short").format(
        measured=f"{r['measured']:>10,}", formula=f"{r['formula']:>10,.0f}", short=format_percent(r["short"], 1))
        for r in f["rows"]])


def left_out_terms(f: dict) -> Report:
    rows = [(_(LEFT_OUT[r["key"]]), r["formula"], f"{r['bytes']:,}") for r in f["rows"]]
    return _table(Table((_("saved beyond the formula"), _("bytes, as a formula"), _("bytes")), rows,
                        caption=f"{f['attention']}:",
                        notes=[_("formula + these = measured: {equal}").format(equal=_equal(f["equal"]))]))


def per_token_sweep(f: dict) -> Report:
    rows = [(r["batch"], r["seq"], *(f"{r['per_token'][a]:,.1f}" for a in f["attentions"]), r["exact"])
            for r in f["rows"]]
    return _table(Table((_("batch"), _("seq"), *(_("{attention} per token").format(attention=a)
                                                 for a in f["attentions"]), _("exactly accounted for")), rows))


def s2(f: dict) -> Report:
    return _sentences(_("bytes per s² (one sequence, all layers): measured {measured}, formula {formula}; per head "
                        "and layer {measured_each} and {formula_each}").format(
        measured=f"{f['measured']:g}", formula=f"{f['formula']:g}", measured_each=f"{f['measured_each']:g}",
        formula_each=f"{f['formula_each']:g}"))


def checkpointed(f: dict) -> Report:
    return _sentences(
        _("measured {measured} bytes, {ratio}× less than without; formula: layer inputs {inputs} + output layer "
          "{output}").format(measured=f"{f['measured']:,}", ratio=f"{f['ratio']:.1f}",
                             inputs=f"{f['layer_inputs']:,.0f}", output=f"{f['output_layer']:,.0f}"),
        _("formula + ids, labels and total weight = measured: {equal}").format(equal=_equal(f["equal"])),
    )


def checkpoint_ratio(f: dict) -> Report:
    return _sentences(_("tiny model, end of the forward pass: measured {measured}× less, formula {formula}× less")
                      .format(measured=f"{f['measured']:.1f}", formula=f"{f['formula']:.1f}"))


def long_checkpoint(f: dict) -> Report:
    return _sentences(_("{name}, one sequence of {seq} tokens, by the formula: {without} without, "
                        "{with_checkpointing} with checkpointing ({ratio}× less); peak with one layer recomputed "
                        "{peak}").format(
        name=f["name"], seq=f"{f['seq']:,}", without=format_bytes(f["without"]),
        with_checkpointing=format_bytes(f["with_checkpointing"]), ratio=f"{f['ratio']:.1f}",
        peak=format_bytes(f["peak"])))


def extras(f: dict) -> Report:
    return _sentences(_("with the extras measured above, transformers' Llama would keep {kept} without "
                        "checkpointing, {more} more than the formula").format(
        kept=format_bytes(f["kept"]), more=format_percent(f["more"], 2)))


def bf16_norms(f: dict) -> Report:
    return _sentences(_("counting the norms' inputs in BF16 (fp32_norms=False) the formula gives {fused}, {short} "
                        "short of it").format(fused=format_bytes(f["fused"]), short=format_percent(f["short"], 0)))


# ----------------------------------------------------------------------------------------------------------------
# What to remember
# ----------------------------------------------------------------------------------------------------------------

def summary(f: dict) -> Report:
    states, short = f["states"], f["short"]
    rows = [
        (_("backward / forward FLOPs, on the CPU"), f"{f['backward_ratio']:g}"),
        (_("attention's share of Llama-2-7B's step at its context"), format_percent(f["attention_share"], 1)),
        (_("bytes per parameter after AdamW: {conventions}").format(conventions=", ".join(states)),
         ", ".join(f"{total:g}" for total in states.values())),
        (_("chapter 2's activations short of the measured, {attentions}").format(attentions=" / ".join(short)),
         " / ".join(format_percent(x, 0) for x in short.values())),
        (_("eager softmax bytes per s² per head and layer, measured / formula"),
         " / ".join(f"{x:g}" for x in f["s2"])),
        (_("activations kept with checkpointing, fraction of without"), format_percent(f["checkpointed"], 0)),
    ]
    return _table(Table((_("measured in this chapter"), _("value")), rows))
