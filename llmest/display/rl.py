"""How a post-training step shows itself (``plans.estimate_rl_step``): the rollout's sequences and time, each
training pass's FLOPs, the training time, the step, and its split between generation and training."""

from __future__ import annotations

from ..core.i18n import N_, _, display_width
from ..core.report import Block, Report
from ..core.units import UNITS, format_flops, format_percent
from .common import ms

# The passes of a step, as a reader names them.
PASS_NAMES = {"policy": N_("policy update"), "old_log_probs": N_("policy log-probabilities before the update"),
              "reference": N_("reference forward"), "reward": N_("reward model forward"),
              "critic_values": N_("critic forward (values)"), "critic": N_("critic update")}


def seconds(s: float) -> str:
    return UNITS["seconds"].show(s) if s >= 1 else ms(s)


def passes_block(est) -> Block:
    rows = [(_(PASS_NAMES[name]), format_flops(flops)) for name, flops in est.flops.items()]
    width = max(display_width(name) for name, _flops in rows)
    text = "\n".join(f"  {name}{' ' * (width - display_width(name))}  {flops:>12}" for name, flops in rows)
    return Block(text, (_("pass"), _("FLOPs")), tuple(rows))


def rl_step_report(est) -> Report:
    s = est.settings
    title = _("{model}, one {method} step on {gpus} × {gpu}").format(
        model=s["model"] or _("the model"), method=s["method"].upper(), gpus=s["gpus"], gpu=s["gpu"])
    fields = [(_("batch"), _("{prompts} prompts × {group} sequences of {prompt} + {output} tokens = {tokens} "
                             "tokens").format(prompts=f"{s['prompts']:,}", group=s["group"],
                                              prompt=f"{s['prompt_tokens']:,}", output=f"{s['output_tokens']:,}",
                                              tokens=f"{est.tokens:,.0f}"))]
    if est.rollout is not None:
        r = est.rollout
        fields.append((_("rollout"), _("{time}: {engines} engines of {tp} GPU(s), each {waves} wave(s) of {batch} "
                                       "sequences (TTFT {ttft}, TPOT {tpot}, decoding at the roofline)").format(
            time=seconds(est.rollout_s), engines=s["gpus"] // s["rollout_tp"], tp=s["rollout_tp"], waves=est.waves,
            batch=r.settings["batch"], ttft=seconds(r.ttft_s), tpot=ms(r.tpot_s))))
    else:
        fields.append((_("rollout"), _("none: DPO trains on preference pairs already written")))
    recompute = _("8N a trained token, with recomputation") if s["recompute"] else _("6N a trained token")
    fields += [(_("training"), _("{time}: {flops} at {mfu} MFU ({recompute}, 2N a forward)").format(
                   time=seconds(est.training_s), flops=format_flops(sum(est.flops.values())),
                   mfu=format_percent(s["mfu"]), recompute=recompute)),
               (_("step"), _("{time}: {generation} generation, {training} training").format(
                   time=seconds(est.step_s), generation=format_percent(est.generation_share),
                   training=format_percent(1 - est.generation_share))),
               (_("throughput"), _("{rate} tokens/s per GPU over the step").format(
                   rate=f"{est.tokens_per_s_per_gpu:,.0f}"))]
    data = {**s, "tokens": est.tokens, "flops": dict(est.flops), "rollout_s": est.rollout_s, "waves": est.waves,
            "rollout_batch": None if est.rollout is None else est.rollout.settings["batch"],
            "training_s": est.training_s, "step_s": est.step_s, "generation_share": est.generation_share,
            "tokens_per_s_per_gpu": est.tokens_per_s_per_gpu}
    notes = () if est.rollout is None else (
        _("the rollout decodes at the roofline (an ideal ceiling), every answer to its full length; the policy's "
          "update waits for it, as on colocated GPUs"),)
    return Report(title, tuple(fields), data, blocks=(passes_block(est),), notes=notes)
