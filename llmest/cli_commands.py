"""The subcommands of the llmest command (``llmest.cli`` parses and checks their options). Each takes the parsed
options, with every default filled in, and returns the human-readable text and the same as a JSON-able dict."""

from __future__ import annotations

import os
import re

from . import compute as c
from . import hardware
from . import memory as mem
from . import model as m
from . import plans
from ._validate import InputError
from .units import UNITS, show
from .zero import ZERO_DEFAULTS


def model_of(text: str) -> m.ModelConfig:
    """A preset name, or the path of a Hugging Face config.json (or of the folder that holds one)."""
    if text in m.PRESETS:
        return m.PRESETS[text]
    if text.endswith(".json") or os.sep in text or os.path.exists(text):
        return m.config_from_file(text, "model")
    return m.preset(text)


def _number(value, unit: str) -> str:
    """The number as the table of units writes it, without its label (the row names the unit)."""
    return UNITS[unit].format(value)


def _with_unit(value, unit: str) -> str:
    return UNITS[unit].show(value)


def _table(rows) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


def _peak_flops(args):
    """--peak is in TFLOPS."""
    return None if args.peak is None else args.peak * hardware.TERA


def cmd_params(args):
    cfg = model_of(args.model)
    count = m.count_params(cfg)
    data = {"model": cfg.name or args.model, "parts": count.parts, "total": count.total, "active": count.active}
    return f"{data['model']}\n{count.table()}", data


def _memory_settings(args) -> dict:
    """The command's options as the keywords of the task's memory function."""
    if args.task == "training":
        return dict(convention=args.convention, optimizer=args.optimizer, zero=args.zero, dp=args.dp, tp=args.tp,
                    pp=args.pp, cp=args.cp, ep=args.ep, micro_batch=args.micro_batch, seq_len=args.seq_len,
                    recompute=args.recompute, flash=not args.no_flash, offload=args.offload,
                    **{name: getattr(args, name) for name in ZERO_DEFAULTS})
    if args.task == "inference":
        return dict(weights=args.weights, seq_len=args.seq_len, batch=args.batch, tp=args.tp)
    return dict(rank=args.rank, targets=args.targets, micro_batch=args.micro_batch, seq_len=args.seq_len,
                recompute=args.recompute, flash=not args.no_flash)


def _least_gpus_text(plan: plans.MemoryPlan) -> str:
    if plan.least_gpus is None:
        hint = " (shard them with --zero, or split the model with --tp and --pp)" if plan.task == "training" \
            and not plan.settings["zero"] else ""
        return f"none: {plan.no_fit_reason}{hint}"
    if plan.task == "qlora":
        return "1: QLoRA here runs on a single GPU"
    if plan.task == "inference":
        return f"{plan.least} (tensor parallelism over {plan.least}, which divides the {plan.model.num_heads} heads)"
    zero = plan.settings["zero"]
    stage = f"ZeRO-{zero} sharding over dp" if zero else "plain data parallelism (ZeRO-0)"
    split = "tp·pp·cp" if plan.settings["cp"] > 1 else "tp·pp"
    return f"{plan.least_gpus} (dp {plan.least} × {split} {plan.other_gpus}, {stage})"


def cmd_memory(args):
    cfg = model_of(args.model)
    if args.task == "qlora" and args.targets is None:
        args.targets = lora_targets(cfg)
    plan = plans.plan_memory(args.task, cfg, gpu=args.gpu, margin=args.margin, **_memory_settings(args))
    gpu, usable = plan.gpu, plan.usable_bytes
    which = "each" if plan.breakdown.gpus > 1 else "one"
    lines = [f"{'fits' if plan.fits else 'does not fit'} {which} {gpu} ({_with_unit(usable, 'bytes')} usable, "
             f"{_with_unit(args.margin, 'fraction')} kept free)",
             f"least GPUs that hold it: {_least_gpus_text(plan)}"]
    if plan.task == "training":
        lines.append(f"GPUs that hold the states alone, sharded evenly (ZeRO-3): {plan.state_gpus}")
        if args.zero and args.dp == 1:
            lines.append(f"note: ZeRO-{args.zero} shards over the --dp data-parallel GPUs; with --dp 1 nothing is "
                         "sharded")
    if plan.task == "qlora":
        lines.append(f"trainable (adapter) parameters: {show(plan.trainable_params, 'count')}, rank {args.rank} on "
                     f"{', '.join(plan.settings['targets'])}")
    if plan.activations_note:
        lines.append(plan.activations_note)
    data = {"model": cfg.name or args.model, "task": args.task, "parts": plan.breakdown.parts,
            "total": plan.breakdown.total, "gpus": plan.breakdown.gpus, "gpu": gpu, "usable_bytes": usable,
            "fits": plan.fits, "least_gpus": plan.least_gpus, "trainable_params": plan.trainable_params}
    if plan.searched:
        data[f"least_{plan.searched}"] = plan.least
    if plan.task == "training":
        data["state_gpus"] = plan.state_gpus
    if plan.task == "qlora":
        data["targets"] = list(plan.settings["targets"])
    if plan.task != "inference":
        data["activations_per_gpu"] = plan.breakdown["activations"]
    if plan.task == "training":
        cpu = plan.breakdown
        data.update(cpu_parts=cpu.cpu, cpu_bytes_per_gpu=cpu.cpu_total,
                    cpu_bytes_per_node=cpu.cpu_per_node(args.gpus_per_node), gpus_per_node=args.gpus_per_node)
        if cpu.cpu_total:
            lines.append(f"CPU memory: {_with_unit(cpu.cpu_total, 'bytes')} per GPU's process, "
                         f"{_with_unit(data['cpu_bytes_per_node'], 'bytes')} per node of {args.gpus_per_node} GPUs")
    return f"{data['model']}, {args.task}\n{plan.breakdown.table()}\n" + "\n".join(lines), data


# Adapters on expert FFNs are not modelled: a mixture of experts gets them on its attention projections only.
ATTENTION_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")


def lora_targets(cfg: m.ModelConfig) -> tuple:
    """--targets by default: all seven projections, or attention's four for a mixture of experts."""
    return ATTENTION_TARGETS if cfg.is_moe else mem.LORA_TARGETS


def cmd_time(args):
    if (args.model is None) == (args.params is None):
        given = "both were given" if args.model is not None else "neither was given"
        raise InputError("params", f"give --params (e.g. 7B) or --model (a preset or config.json): {given}.")
    model = None if args.model is None else model_of(args.model)
    est = plans.estimate_time(args.tokens, n_params=args.params, model=model,
                              gpus=args.gpus, gpu=args.gpu, mfu=args.mfu, peak_flops_per_s=_peak_flops(args),
                              price_per_gpu_hour=args.price, seq_len=args.seq_len)
    low, high = est.days_with_margin
    data = {"params": est.n_params, "tokens": est.tokens, "flops": est.flops, "gpu": est.gpu,
            "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu, "gpus": est.gpus, "gpu_hours": est.gpu_hours,
            "days": est.days, "days_with_margin": [low, high], "cost_usd": est.cost_usd, "seq_len": est.seq_len,
            "matmul_flops": est.matmul_flops, "attention_flops": est.attention_flops,
            "mfu_counts_attention": est.seq_len is not None, "mfu_without_attention": est.mfu_without_attention}
    margin = "-".join(_number(share, "fraction") for share in c.TIME_MARGIN)
    flops = [("FLOPs (6·N·D)", _number(est.flops, "FLOPs"))] if est.seq_len is None else [
        ("FLOPs", f"{_number(est.flops, 'FLOPs')}: 6·N·D {_number(est.matmul_flops, 'FLOPs')} + attention at "
                  f"{est.seq_len:,} tokens {_number(est.attention_flops, 'FLOPs')}")]
    mfu_note = "" if est.seq_len is None else (f" (attention counted; on 6·N·D alone that is "
                                               f"{_with_unit(est.mfu_without_attention, 'fraction')})")
    rows = [("parameters (N)", est.n_params_from or _number(est.n_params, "parameters")),
            ("tokens (D)", _number(est.tokens, "tokens")),
            *flops,
            ("GPU", f"{est.gpus} × {est.gpu}, {_with_unit(est.peak_flops_per_s / hardware.TERA, 'TFLOPS')} at "
                    f"{_with_unit(est.mfu, 'fraction')} MFU{mfu_note}"),
            ("GPU-hours", _number(est.gpu_hours, "GPU-hours")),
            ("days", f"{_number(est.days, 'days')} ({_number(low, 'days')}-{_number(high, 'days')} with a {margin} "
                     "margin for checkpoints, evaluation and restarts)"),
            ("cost", f"{_with_unit(est.cost_usd, 'USD')} at {_with_unit(est.price_per_gpu_hour, 'USD')} per GPU-hour")]
    return _table(rows), data


def cmd_data(args):
    if args.params is None and args.gpus is None:
        raise InputError("params", "give --params (e.g. 7B), or --gpus and --days for the model a cluster "
                                   "affords: neither was given.")
    est = plans.estimate_corpus(args.params, tokens=args.tokens, tokens_per_param=args.tokens_per_param,
                                mix={args.language: 1.0}, cleaning_yield=args.cleaning_yield, gpus=args.gpus,
                                days=args.days, gpu=args.gpu, peak_flops_per_s=_peak_flops(args), mfu=args.mfu)
    rate = est.rates[args.language]
    data = {"params": est.n_params, "tokens": est.tokens, "language": args.language, "tokens_per_gb": rate,
            "cleaned_bytes": est.cleaned_bytes, "cleaning_yield": est.cleaning_yield, "raw_bytes": est.raw_bytes,
            "tokens_per_param": est.tokens_per_param}
    rows = []
    if est.budget_flops is not None:
        n_opt, d_opt = est.budget_optimal
        peak = est.peak_flops_per_s
        data.update(budget_flops=est.budget_flops, peak_flops_per_s=peak,
                    budget_optimal={"params": n_opt, "tokens": d_opt})
        cluster = f"{args.gpus} × {hardware.gpu(args.gpu).name}" if args.peak is None else f"{args.gpus} GPUs"
        rows.append((f"{cluster}, {_with_unit(args.days, 'days')}",
                     f"{_with_unit(est.budget_flops, 'FLOPs')} at {_with_unit(peak / hardware.TERA, 'TFLOPS')} and "
                     f"{_with_unit(args.mfu, 'fraction')} MFU; compute-optimal: {_number(n_opt, 'parameters')} "
                     f"parameters on {_with_unit(d_opt, 'tokens')}"))
    optimal = "" if args.params else " (the compute-optimal model)"
    rows += [("parameters", _number(est.n_params, "parameters") + optimal),
             ("tokens", f"{_number(est.tokens, 'tokens')} ({_number(est.tokens_per_param, 'tokens/param')} per "
                        "parameter)"),
             (f"cleaned {args.language}",
              f"{_with_unit(est.cleaned_bytes, 'bytes')} at {_number(rate, 'tokens/GB')} tokens per GB"),
             ("raw crawl", f"{_with_unit(est.raw_bytes, 'bytes')} at a {_with_unit(est.cleaning_yield, 'fraction')} "
                           "cleaning yield")]
    return _table(rows), data


ASSIGNMENT_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")


def _drill_assignment(args):
    from .course import add_drill_assignment

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
    from .drills import drill_set
    from .i18n import speaking
    from .worksheets import write_worksheet

    with speaking(args.lang):  # the worksheet, its key and the problems in --lang; the assignment stays English
        problems = drill_set(args.seed, args.n, args.topics, args.level)  # checks the options before --out is written
        paths = write_worksheet(args.out, args.seed, args.n, args.topics, args.level, param="out")
    if args.course is not None or args.assignment is not None:
        paths["assignment"] = _drill_assignment(args)
    problems = [{"topic": p.topic, "level": p.level, "question": p.question, "answer": p.answer, "unit": p.unit,
                 "answer_text": p.answer_text, "steps": list(p.steps)} for p in problems]
    return ("\n".join(str(p) for p in paths.values()),
            {"files": {name: str(p) for name, p in paths.items()}, "problems": problems})
