"""How post-training's published figures read beside the model (``llmest.plans.findings.post_training``)."""

from __future__ import annotations

from ...core.i18n import N_, _
from ...core.report import Report
from ...core.units import UNITS, format_bytes, format_percent
from ..table import Table

_HELD_OUT = N_("held out: {rollout} generating ({share} of the step; {waves} wave(s) an engine, each until its "
               "longest answer, {longest} tokens, ends), {refit} of refit, {training} of training")
# Each row: what was published and where, and why the model differs.
ROWS = {
    "hydra_ppo_memory": (N_("PPO on a 7B: the four models' states (Hydra-RLHF, Table 1, their estimate)"),
                         N_("the model counts 16 bytes a trained parameter (policy, critic) and 2 a frozen one "
                            "(reference, reward) in decimal GB, {gib} GiB; the unit of the 220 is not given")),
    "nemo_rl_grpo_step": (N_("GRPO step, Llama 3.1 8B on 16 H100 (NeMo RL v0.4), the fit"),
                          N_("the rollout's overhead is fitted here: {fitted}× a serving engine's decode time "
                             "(rounded to {overhead}×); the step is then {rollout} generating ({share}), {refit} of "
                             "refit and {training} of training. The answers average 1,000 tokens, but each engine's "
                             "wave runs until its longest answer ends, {longest} tokens, reading every weight at each "
                             "step: {weights} of the wave's reads. With every answer at the mean, on the roofline, "
                             "and no refit the model gave {ideal}")),
    "nemo_rl_grpo_throughput": (N_("GRPO tokens/s per GPU, Llama 3.1 8B on 16 H100 (NeMo RL v0.4)"),
                                N_("the model divides the step's tokens, 2,048 × 1,060, by its step and 16 GPUs, "
                                   "the summary's definition; its later editions note that their figures, averages "
                                   "over 5 steps, do not completely match that equation")),
    "nemo_rl_llama_v05_step": (N_("GRPO step, Llama 3.1 8B on 16 H100 (NeMo RL v0.5)"), _HELD_OUT),
    "nemo_rl_qwen3_32b_step": (N_("GRPO step, Qwen3-32B on 32 H100, engines of TP 4 (NeMo RL v0.4)"), _HELD_OUT),
    "nemo_rl_qwen3_32b_v05_step": (N_("GRPO step, Qwen3-32B on 32 H100, engines of TP 4 (NeMo RL v0.5)"),
                                   _HELD_OUT),
    "openrlhf_generation_share": (N_("share of a PPO step spent generating (OpenRLHF README)"),
                                  N_("the model: {rollout} of rollout against {training} of training for OpenRLHF's "
                                     "Llama-3-8B example on 8 H100, every answer at its 1,024-token maximum (no mean "
                                     "is published). The published share is the project's general statement, not a "
                                     "measure of this example: the model's share grows with the answers, {longer} "
                                     "with answers of {longer_tokens} tokens")),
}


def _figure(value, unit: str) -> str:
    if unit == "bytes":
        return format_bytes(value)
    if unit == "fraction":
        return format_percent(value)
    if unit == "seconds":
        return UNITS["seconds"].show(value)
    return f"{value:,.0f}"


def _values(row: dict) -> dict:
    """Each figure a note may name, formatted (absent ones as zero: a note names only its row's)."""
    seconds = {key: _figure(row.get(key, 0), "seconds") for key in ("rollout_s", "refit_s", "training_s", "ideal_s")}
    return dict(gib=f"{row.get('model_gib', 0):,.1f}", rollout=seconds["rollout_s"], refit=seconds["refit_s"],
                training=seconds["training_s"], ideal=seconds["ideal_s"],
                share=format_percent(row.get("generation_share", 0)), waves=row.get("waves", 0),
                longest=f"{row.get('longest_tokens', 0):,.0f}", weights=format_percent(row.get("weights_share", 0)),
                fitted=f"{row.get('fitted_overhead', 0):.3f}", overhead=f"{row.get('overhead', 0):g}",
                longer=format_percent(row.get("longer_share", 0)), longer_tokens=f"{row.get('longer_tokens', 0):,}")


def published_post_training(f: dict) -> Report:
    rows, notes = [], []
    for row in f["rows"]:
        what, why = ROWS[row["key"]]
        rows.append((_(what), _figure(row["published"], row["unit"]), _figure(row["model"], row["unit"]),
                     format_percent(row["difference"], signed=True)))
        notes.append(_(why).format(**_values(row)))
    table = Table((_("figure"), _("published"), _("model"), _("difference")), tuple(rows),
                  notes=tuple(f"{i}. {note}" for i, note in enumerate(notes, 1)))
    return Report("", blocks=(table,))
