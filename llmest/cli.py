"""The llmest command: the chapters' estimates without a notebook.

    llmest params llama-2-7b                       parameters by part (a preset or a config.json)
    llmest memory llama-2-70b --task inference     memory per GPU, and whether it fits
    llmest time --params 7B --tokens 1T --gpus 256 FLOPs, GPU-hours, days and cost
    llmest data --params 7B --language chinese     Chinchilla tokens and the text they take
    llmest data --gpus 64 --days 30                the compute-optimal model of a cluster, and its data
    llmest drill --seed 7 --topics memory          a worksheet and its answer key

Every subcommand prints a table, or JSON with ``--json``. A bad option gets a message naming it and what it
allows, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import compute as c
from . import data as dt
from . import hardware
from . import memory as mem
from . import model as m
from . import plans
from ._validate import InputError
from .units import UNITS, parse_count, show


def _count(text: str) -> float:
    """An argparse type: "7B", "1.4T", "7e9", "70亿"."""
    try:
        return parse_count(text, "value")
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err).replace("value == ", "")) from None


def _model(text: str) -> m.ModelConfig:
    """A preset name, or the path of a Hugging Face config.json."""
    path = Path(text)
    if path.suffix == ".json" or path.is_file():
        if not path.is_file():
            raise InputError("model", f"model == {text!r}: no such file.")
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise InputError("model", f"model == {text!r} is not a readable JSON file: {err}") from None
        return m.ModelConfig.from_hf_config(config)
    return m.preset(text)


def _number(value, unit: str) -> str:
    """The number as the table of units writes it, without its label (the row names the unit)."""
    return UNITS[unit].format(value)


def _with_unit(value, unit: str) -> str:
    return UNITS[unit].show(value)


def _table(rows) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


# ----------------------------------------------------------------------------------------------------------------
# Subcommands: each returns (the human-readable text, the same as a JSON-able dict)
# ----------------------------------------------------------------------------------------------------------------

def cmd_params(args):
    cfg = _model(args.model)
    count = m.count_params(cfg)
    data = {"model": cfg.name or args.model, "parts": count.parts, "total": count.total, "active": count.active}
    return f"{data['model']}\n{count.table()}", data


def _memory_settings(args) -> dict:
    """The command's options as the keywords of the task's memory function."""
    if args.task == "training":
        return dict(convention=args.convention, optimizer=args.optimizer, zero=args.zero, dp=args.dp, tp=args.tp,
                    pp=args.pp, micro_batch=args.micro_batch, seq_len=args.seq_len,
                    recompute=args.recompute or "none", flash=not args.no_flash)
    if args.task == "inference":
        return dict(weights=args.weights, seq_len=args.seq_len, batch=args.batch, tp=args.tp)
    return dict(rank=args.rank, micro_batch=args.micro_batch, seq_len=args.seq_len,
                recompute=args.recompute or "full", flash=not args.no_flash)


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
    return f"{plan.least_gpus} (dp {plan.least} × tp·pp {plan.other_gpus}, {stage})"


def cmd_memory(args):
    cfg = _model(args.model)
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
    if plan.task != "inference":
        data["activations_per_gpu"] = plan.breakdown["activations"]
    return f"{data['model']}, {args.task}\n{plan.breakdown.table()}\n" + "\n".join(lines), data


# --peak is in TFLOPS; no accelerator is near 100,000 (100 PFLOPS), so a larger value is FLOP/s typed as TFLOPS.
MAX_PEAK_TFLOPS = 100_000


def _peak(args):
    if args.peak is None:
        return None
    if args.peak > MAX_PEAK_TFLOPS:
        raise InputError("peak", f"peak == {args.peak:g}, in TFLOPS (e.g. 200 for 200e12 FLOP/s), must be in "
                                 f"(0, {MAX_PEAK_TFLOPS}].")
    return args.peak * hardware.TERA


def cmd_time(args):
    if (args.model is None) == (args.params is None):
        given = "both were given" if args.model else "neither was given"
        raise InputError("params", f"give --params (e.g. 7B) or --model (a preset or config.json): {given}.")
    est = plans.estimate_time(args.tokens, n_params=args.params, model=_model(args.model) if args.model else None,
                          gpus=args.gpus, gpu=args.gpu, mfu=args.mfu, peak_flops_per_s=_peak(args),
                          price_per_gpu_hour=args.price)
    low, high = est.days_with_margin
    data = {"params": est.n_params, "tokens": est.tokens, "flops": est.flops, "gpu": est.gpu,
            "peak_flops_per_s": est.peak_flops_per_s, "mfu": est.mfu, "gpus": est.gpus, "gpu_hours": est.gpu_hours,
            "days": est.days, "days_with_margin": [low, high], "cost_usd": est.cost_usd}
    margin = "-".join(_number(share, "fraction") for share in c.TIME_MARGIN)
    rows = [("parameters (N)", est.n_params_from or _number(est.n_params, "parameters")),
            ("tokens (D)", _number(est.tokens, "tokens")),
            ("FLOPs (6·N·D)", _number(est.flops, "FLOPs")),
            ("GPU", f"{est.gpus} × {est.gpu}, {_with_unit(est.peak_flops_per_s / hardware.TERA, 'TFLOPS')} at "
                    f"{_with_unit(est.mfu, 'fraction')} MFU"),
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
                             days=args.days, gpu=args.gpu, peak_flops_per_s=_peak(args), mfu=args.mfu)
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


def cmd_drill(args):
    from .drills import drill_set
    from .worksheets import write_worksheet

    paths = write_worksheet(args.out, args.seed, args.n, args.topics, args.level)
    problems = [{"topic": p.topic, "level": p.level, "question": p.question, "answer": p.answer, "unit": p.unit,
                 "answer_text": p.answer_text, "steps": list(p.steps)}
                for p in drill_set(args.seed, args.n, args.topics, args.level)]
    return ("\n".join(str(p) for p in paths.values()),
            {"files": {name: str(p) for name, p in paths.items()}, "problems": problems})


# ----------------------------------------------------------------------------------------------------------------
# The parser
# ----------------------------------------------------------------------------------------------------------------

def _subparser(subparsers, name, func, help_, examples):
    p = subparsers.add_parser(name, help=help_, description=help_, epilog="examples:\n" + examples,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=func)
    return p


def _gpu_option(p, default="A100 80GB"):
    p.add_argument("--gpu", default=default, metavar="GPU",
                   help=f"one of: {', '.join(hardware.CATALOG)}; case and spaces do not matter (default {default})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llmest", description=__doc__.split("\n\n")[0],
                                     epilog="run 'llmest COMMAND --help' for a command's options and examples")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"llmest {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parser.commands = subparsers.choices
    presets = ", ".join(m.PRESETS)

    p = _subparser(subparsers, "params", cmd_params, "count parameters, part by part",
                   "  llmest params llama-2-7b\n  llmest params path/to/config.json --json")
    p.add_argument("model", help=f"a preset ({presets}) or a config.json")

    p = _subparser(subparsers, "memory", cmd_memory, "memory per GPU for training, inference or QLoRA",
                   "  llmest memory llama-2-7b --zero 3 --dp 8 --micro-batch 4 --seq-len 4096 --recompute full\n"
                   "  llmest memory llama-2-70b --task inference --weights int4 --seq-len 2048 --batch 32\n"
                   "  llmest memory llama-2-70b --task qlora --rank 64 --gpu \"H100 SXM\"")
    p.add_argument("model", help="a preset or a config.json")
    p.add_argument("--task", default="training", choices=["training", "inference", "qlora"])
    p.add_argument("--convention", default="mixed", choices=list(mem.CONVENTIONS), help="how states are stored")
    p.add_argument("--optimizer", default="adamw", choices=list(mem.OPTIMIZERS))
    p.add_argument("--zero", type=int, default=0, help="ZeRO stage 0-3 (default 0)")
    p.add_argument("--dp", type=int, default=1, help="data-parallel GPUs (default 1)")
    p.add_argument("--tp", type=int, default=1, help="tensor-parallel GPUs (default 1)")
    p.add_argument("--pp", type=int, default=1, help="pipeline stages (default 1)")
    p.add_argument("--micro-batch", type=int, default=1, help="sequences per micro-batch (default 1)")
    p.add_argument("--seq-len", type=int, default=2048, help="tokens per sequence or request (default 2048)")
    p.add_argument("--batch", type=int, default=1, help="concurrent requests, for inference (default 1)")
    p.add_argument("--recompute", choices=list(mem.RECOMPUTE),
                   help="activation recomputation (default: none for training, full for qlora)")
    p.add_argument("--no-flash", action="store_true", help="eager attention: keep the s × s scores")
    p.add_argument("--weights", default="bf16", choices=list(mem.WEIGHT_FORMATS), help="inference weight format")
    p.add_argument("--rank", type=int, default=64, help="LoRA rank, for qlora (default 64)")
    p.add_argument("--margin", type=float, default=mem.MEMORY_MARGIN,
                   help=f"share of the GPU kept free ({mem.MEMORY_MARGIN:g})")
    _gpu_option(p)

    p = _subparser(subparsers, "time", cmd_time, "training FLOPs, GPU-hours, days and cost",
                   "  llmest time --params 7B --tokens 1T --gpus 256 --mfu 0.4\n"
                   "  llmest time --model llama-2-70b --tokens 2T --gpus 2048 --gpu \"H100 SXM\" --price 4")
    p.add_argument("--params", type=_count, help="parameters N, e.g. 7B (or give --model)")
    p.add_argument("--model", help="a preset or config.json: N is its matmul parameters (active ones for MoE)")
    p.add_argument("--tokens", type=_count, required=True, help="training tokens D, e.g. 1T")
    p.add_argument("--gpus", type=int, default=1, help="number of GPUs (default 1)")
    p.add_argument("--mfu", type=float, default=0.4, help="model FLOPs utilisation, 0-1 (default 0.4)")
    p.add_argument("--peak", type=float, help="peak TFLOPS to use instead of the GPU's dense BF16 peak")
    p.add_argument("--price", type=float, help="dollars per GPU-hour (default: the GPU's listed price, "
                                                "$%g for the A100 80GB)" % hardware.price_per_gpu_hour("A100 80GB"))
    _gpu_option(p)

    p = _subparser(subparsers, "data", cmd_data, "Chinchilla tokens and the text they take",
                   "  llmest data --params 7B\n  llmest data --params 70B --language chinese --cleaning-yield 0.2\n"
                   "  llmest data --gpus 64 --days 30 --mfu 0.5 --peak 200")
    p.add_argument("--params", type=_count, help="parameters N, e.g. 7B (default: the compute-optimal model of "
                                                  "--gpus for --days)")
    p.add_argument("--tokens", type=_count, help="training tokens (default: --tokens-per-param × N)")
    p.add_argument("--tokens-per-param", type=float, default=dt.TOKENS_PER_PARAM,
                   help=f"default {dt.TOKENS_PER_PARAM:g} (Chinchilla)")
    p.add_argument("--language", default="english", choices=list(dt.TOKENS_PER_GB))
    p.add_argument("--cleaning-yield", type=float, default=dt.WORKING_CLEANING_YIELD,
                   help=f"cleaned share of the raw crawl ({dt.WORKING_CLEANING_YIELD:g})")
    p.add_argument("--gpus", type=int, help="also: the compute-optimal model for this many GPUs ...")
    p.add_argument("--days", type=float, default=30, help="... for this many days (default 30)")
    p.add_argument("--mfu", type=float, default=0.4, help="... at this MFU (default 0.4)")
    p.add_argument("--peak", type=float, help="... and this peak TFLOPS instead of the GPU's dense BF16 peak")
    _gpu_option(p)

    from .drills import LEVELS, TOPICS

    p = _subparser(subparsers, "drill", cmd_drill, "write an estimation worksheet and its answer key",
                   "  llmest drill --seed 7 --n 12 --topics memory,compute --level hard --out worksheet")
    p.add_argument("--seed", type=int, default=0, help="the same seed gives the same problems (default 0)")
    p.add_argument("--n", type=int, default=10, help="number of problems (default 10)")
    p.add_argument("--topics", default=",".join(TOPICS),
                   help=f"comma-separated, from {', '.join(TOPICS)} (default all)")
    p.add_argument("--level", default="mixed", help=f"{', '.join(LEVELS)} or mixed (default mixed)")
    p.add_argument("--out", default="worksheet", help="folder to write into (default ./worksheet)")
    return parser


# Library parameters that the command line spells differently.
PARAM_OPTIONS = {"preset": "model", "cfg": "model", "config": "model", "n_params": "params",
                 "tokens_per_gb": "language", "budget_flops": "gpus", "price_per_gpu_hour": "price",
                 "peak_flops_per_s": "peak"}


def _option_name(command: argparse.ArgumentParser, param: str) -> str:
    """The command-line spelling of a library parameter ("micro_batch" -> "--micro-batch"), when it is an option."""
    param = PARAM_OPTIONS.get(param, param)
    for action in command._actions:
        if action.dest == param:
            return action.option_strings[0] if action.option_strings else action.dest
    return param


def main(argv=None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reported by the subcommand, with its own usage, not the top level's
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        text, data = args.func(args)
    except InputError as err:
        command = parser.commands[args.command]
        command.error(f"{_option_name(command, err.param)}: {err}")  # exit status 2, no traceback
    print(json.dumps(data, indent=2, ensure_ascii=False) if args.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
