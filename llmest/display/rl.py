"""How a post-training step shows itself (``plans.estimate_rl_step``): the rollout's sequences and time, each
training pass's FLOPs, the training time, the step, and its split between generation and training."""

from __future__ import annotations

from ..core.i18n import N_, _, display_width
from ..core.report import Block, Report
from ..core.units import UNITS, format_bytes, format_flops, format_percent
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
                                              prompt=f"{s['prompt_tokens']:,}",
                                              output=f"{s['mean_output_tokens']:,.0f}",
                                              tokens=f"{est.tokens:,.0f}"))]
    if est.rollout is not None:
        r, w = est.rollout, est.wave
        lengths = w.lengths
        fields.append((_("rollout"), _("{time}: {engines} engines of {tp} GPU(s), each {waves} wave(s) of {batch} "
                                       "sequences, each wave {prefill} of prefill (TTFT) and {decode} of decoding"
                                       ).format(
            time=seconds(est.rollout_s), engines=s["gpus"] // s["rollout_tp"], tp=s["rollout_tp"], waves=est.waves,
            batch=r.settings["batch"], prefill=seconds(w.prefill_s), decode=seconds(w.decode_s))))
        fields.append((_("answers"), _("{mean} tokens on average, at most {most}; a wave decodes until its longest "
                                       "ends, about {longest} tokens").format(
            mean=f"{lengths['mean_tokens']:,.0f}", most=f"{lengths['max_tokens']:,}",
            longest=f"{lengths['longest_tokens']:,.0f}")))
        fields.append((_("decoding"), _("{roofline} on the roofline ({weights} of it reading the weights once a step), "
                                        "÷ {efficiency} a serving engine's efficiency × {overhead} a rollout's "
                                        "overhead = {decode}").format(
            roofline=seconds(w.roofline_s), weights=format_percent(w.weights_s / w.roofline_s),
            efficiency=format_percent(s["decode_efficiency"]), overhead=f"{s['rollout_overhead']:g}",
            decode=seconds(w.decode_s))))
        fields.append((_("refit"), _("{time}: the policy's BF16 weights to the engines at {rate}/s").format(
            time=seconds(est.refit_s), rate=format_bytes(s["refit_bytes_per_s"])) if s["refit"] else
                       _("none: left out of this step")))
    else:
        fields.append((_("rollout"), _("none: DPO trains on preference pairs already written")))
    recompute = _("8N a trained token, with recomputation") if s["recompute"] else _("6N a trained token")
    fields += [(_("training"), _("{time}: {flops} at {mfu} of the peak ({recompute}, 2N a forward; every FLOP done "
                                 "counted)").format(
                   time=seconds(est.training_s), flops=format_flops(sum(est.flops.values())),
                   mfu=format_percent(s["mfu"]), recompute=recompute)),
               (_("step"), _("{time}: {generation} generation, {refit} refit, {training} training").format(
                   time=seconds(est.step_s), generation=format_percent(est.generation_share),
                   refit=format_percent(est.refit_s / est.step_s),
                   training=format_percent(est.training_s / est.step_s))),
               (_("throughput"), _("{rate} tokens/s per GPU over the step").format(
                   rate=f"{est.tokens_per_s_per_gpu:,.0f}"))]
    data = {**s, "tokens": est.tokens, "flops": dict(est.flops), "rollout_s": est.rollout_s, "waves": est.waves,
            "rollout_batch": None if est.rollout is None else est.rollout.settings["batch"],
            "training_s": est.training_s, "step_s": est.step_s, "generation_share": est.generation_share,
            "tokens_per_s_per_gpu": est.tokens_per_s_per_gpu, "refit_s": est.refit_s,
            "wave": None if est.wave is None else dict(est.wave.lengths, prefill_s=est.wave.prefill_s,
                                                         roofline_s=est.wave.roofline_s, weights_s=est.wave.weights_s,
                                                         decode_s=est.wave.decode_s)}
    notes = () if est.rollout is None else (
        _("the rollout, the refit and the training run one after the other, as on colocated GPUs; the decoding's "
          "efficiency is a serving engine's, measured, and its overhead fitted to a published GRPO step (NeMo RL)"),)
    return Report(title, tuple(fields), data, blocks=(passes_block(est),), notes=notes)
