"""How post-training's published figures read beside the model (``llmest.plans.findings.post_training``)."""

from __future__ import annotations

from ...core.i18n import N_, _
from ...core.report import Report
from ...core.units import UNITS, format_bytes, format_percent
from ..table import Table

# Each row: what was published and where, and why the model differs.
ROWS = {
    "hydra_ppo_memory": (N_("PPO on a 7B: the four models' states (Hydra-RLHF, Table 1, their estimate)"),
                         N_("the model counts 16 bytes a trained parameter (policy, critic) and 2 a frozen one "
                            "(reference, reward) in decimal GB, {gib} GiB; the unit of the 220 is not given")),
    "nemo_rl_grpo_step": (N_("GRPO step, Llama 3.1 8B on 16 H100 (NeMo RL v0.4)"),
                          N_("the model with every answer at the mean length; with every answer at the 4,096-token "
                             "maximum it gives {longest}: a step waits for its longest answers, and the published "
                             "step lies between the two")),
    "nemo_rl_grpo_throughput": (N_("GRPO tokens/s per GPU, Llama 3.1 8B on 16 H100 (NeMo RL v0.4)"),
                                N_("the same step at the mean length: decoding at the roofline and no refit")),
    "openrlhf_generation_share": (N_("share of a PPO step spent generating (OpenRLHF README)"),
                                  N_("the model: {rollout} of rollout against {training} of training for OpenRLHF's "
                                     "Llama-3-8B example on 8 H100; it decodes at the roofline with every answer to "
                                     "the same length, while the published share is the project's own measure of "
                                     "its earlier engines")),
}


def _figure(value, unit: str) -> str:
    if unit == "bytes":
        return format_bytes(value)
    if unit == "fraction":
        return format_percent(value)
    if unit == "seconds":
        return UNITS["seconds"].show(value)
    return f"{value:,.0f}"


def published_post_training(f: dict) -> Report:
    rows, notes = [], []
    for row in f["rows"]:
        what, why = ROWS[row["key"]]
        rows.append((_(what), _figure(row["published"], row["unit"]), _figure(row["model"], row["unit"]),
                     format_percent(row["difference"], signed=True)))
        notes.append(_(why).format(gib=f"{row.get('model_gib', 0):,.1f}",
                                   longest=_figure(row.get("model_longest", 0), "seconds"),
                                   rollout=_figure(row.get("rollout_s", 0), "seconds"),
                                   training=_figure(row.get("training_s", 0), "seconds")))
    table = Table((_("figure"), _("published"), _("model"), _("difference")), tuple(rows),
                  notes=tuple(f"{i}. {note}" for i, note in enumerate(notes, 1)))
    return Report("", blocks=(table,))
