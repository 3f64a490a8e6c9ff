"""The subcommands of the llmest command (``main`` parses and checks their options). Each takes the parsed
options, with every default filled in, and returns the result's ``Report`` (``llmest.display``): the command prints
it, or its ``to_dict()`` with --json, in the language of --lang."""

from __future__ import annotations

import os
import re
from dataclasses import replace

from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ... import plans
from ...core._validate import InputError
from ...core.report import Report
from ...core.i18n import _
from ...formulas.zero import ZERO_DEFAULTS


def model_of(text: str) -> m.ModelConfig:
    """A preset name, or the path of a Hugging Face config.json (or of the folder that holds one)."""
    if text in m.PRESETS:
        return m.PRESETS[text]
    if text.endswith(".json") or os.sep in text or os.path.exists(text):
        return m.config_from_file(text, "model")
    return m.preset(text)


def _peak_flops(args):
    """--peak is in TFLOPS."""
    return None if args.peak is None else args.peak * hardware.TERA


def _named(report, args):
    """A config.json without a name is named as the command line gave it."""
    if not report.data.get("model"):
        report = replace(report, data={**report.data, "model": args.model})
    return report


def cmd_params(args):
    count = m.count_params(model_of(args.model))
    return _named(count.report(), args)


def _memory_settings(args) -> dict:
    """The command's options as the keywords of the task's memory function."""
    if args.task == "training":
        return dict(convention=args.convention, optimizer=args.optimizer, zero=args.zero, dp=args.dp, tp=args.tp,
                    pp=args.pp, cp=args.cp, ep=args.ep, micro_batch=args.micro_batch, seq_len=args.seq_len,
                    recompute=args.recompute, flash=not args.no_flash, offload=args.offload,
                    precision=args.precision, **{name: getattr(args, name) for name in ZERO_DEFAULTS})
    if args.task == "inference":
        return dict(weights=args.weights, seq_len=args.seq_len, batch=args.batch, tp=args.tp)
    states = dict(convention=args.convention, optimizer=args.optimizer, zero=args.zero, dp=args.dp,
                  micro_batch=args.micro_batch, seq_len=args.seq_len, recompute=args.recompute,
                  flash=not args.no_flash)
    if args.task == "full":
        return dict(states, tp=args.tp, pp=args.pp)
    if args.task in ("dpo", "ppo", "grpo"):
        rollout = {} if args.task == "dpo" else {"prompts": args.prompts}
        return dict(states, colocate=not args.separate, **rollout,
                    **({"group": args.group} if args.task == "grpo" else {}))
    return dict(rank=args.rank, targets=args.targets, micro_batch=args.micro_batch, seq_len=args.seq_len,
                recompute=args.recompute, flash=not args.no_flash)


def cmd_memory(args):
    cfg = model_of(args.model)
    if args.task in ("lora", "qlora") and args.targets is None:
        args.targets = mem.default_lora_targets(cfg)
    plan = plans.plan_memory(args.task, cfg, gpu=args.gpu, margin=args.margin, **_memory_settings(args))
    report = _named(plan.report(gpus_per_node=args.gpus_per_node), args)
    hints = []  # what to type next, in the command line's own options
    if plan.least_gpus is None and plan.task == "training" and not plan.settings["zero"]:
        hints.append(_("hint: shard the states with --zero, or split the model with --tp and --pp"))
    if plan.task == "training" and args.zero and args.dp == 1:
        hints.append(_("note: ZeRO-{zero} shards over the --dp data-parallel GPUs; with --dp 1 nothing is "
                       "sharded").format(zero=args.zero))
    return replace(report, notes=report.notes + tuple(hints))


def cmd_time(args):
    if (args.model is None) == (args.params is None):
        given = _("both were given") if args.model is not None else _("neither was given")
        raise InputError("params", _("give --params (e.g. 7B) or --model (a preset or config.json): {given}.").format(
            given=given))
    model = None if args.model is None else model_of(args.model)
    return plans.estimate_time(args.tokens, n_params=args.params, model=model, gpus=args.gpus, gpu=args.gpu,
                               mfu=args.mfu, peak_flops_per_s=_peak_flops(args), price_per_gpu_hour=args.price,
                               seq_len=args.seq_len, precision=args.precision).report()


def cmd_data(args):
    if args.params is None and args.gpus is None:
        raise InputError("params", _("give --params (e.g. 7B), or --gpus and --days for the model a cluster "
                                     "affords: neither was given."))
    est = plans.estimate_corpus(args.params, tokens=args.tokens, tokens_per_param=args.tokens_per_param,
                                mix={args.language: 1.0}, cleaning_yield=args.cleaning_yield, gpus=args.gpus,
                                days=args.days, gpu=args.gpu, peak_flops_per_s=_peak_flops(args), mfu=args.mfu)
    return est.report()


ASSIGNMENT_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")


def _drill_assignment(args):
    from ...book.course import add_drill_assignment

    if args.course is None:
        raise InputError("assignment", "assignment names an assignment of a course; give --course too.")
    if args.assignment is not None and not ASSIGNMENT_NAME.fullmatch(args.assignment):
        raise InputError("assignment", f"assignment == {args.assignment!r}, must be 1-100 letters, digits, - "
                                       "and _ (it names nbgrader's folders).")
    try:
        return add_drill_assignment(args.course, args.seed, args.n, args.topics, args.level, args.assignment)
    except (OSError, ValueError) as err:  # ValueError: a NUL in the path
        raise InputError("course", f"course == {args.course!r}: cannot write the assignment there: "
                                   f"{getattr(err, 'strerror', None) or err}.") from None


def cmd_drill(args):
    from ...learn.drills import drill_set
    from ...core.i18n import speaking
    from ...learn.worksheets import write_worksheet

    # The worksheet, its key and the problems in the command's language; the assignment stays English.
    problems = drill_set(args.seed, args.n, args.topics, args.level)  # checks the options before --out is written
    paths = write_worksheet(args.out, args.seed, args.n, args.topics, args.level, param="out")
    if args.course is not None or args.assignment is not None:
        with speaking("en"):
            paths["assignment"] = _drill_assignment(args)
    problems = [{"topic": p.topic, "level": p.level, "question": p.question, "answer": p.answer, "unit": p.unit,
                 "answer_text": p.answer_text, "steps": list(p.steps)} for p in problems]
    return Report("\n".join(str(p) for p in paths.values()),
                  data={"files": {name: str(p) for name, p in paths.items()}, "problems": problems})
