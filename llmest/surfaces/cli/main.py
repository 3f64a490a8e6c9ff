"""The llmest command: the chapters' estimates without a notebook.

    llmest params llama-2-7b                       parameters by part (a preset or a config.json)
    llmest memory llama-2-70b --task inference     memory per GPU, and whether it fits
    llmest time --params 7B --tokens 1T --gpus 256 FLOPs, GPU-hours, days and cost
    llmest data --params 7B --language chinese     Chinchilla tokens and the text they take
    llmest data --gpus 64 --days 30                the compute-optimal model of a cluster, and its data
    llmest serve llama-2-7b --prompt-tokens 512 --output-tokens 256 --batch 16   TTFT, TPOT and the largest batch
    llmest drill --seed 7 --topics memory          a worksheet and its answer key
    llmest drill --seed 7 --course build/course    ... and the same set as an nbgrader assignment
    llmest review --n 10                           the cards due (spaced repetition), answered in the terminal

Every subcommand prints its result as a table, or JSON with ``--json``, in English or Chinese: ``llmest --lang zh
COMMAND ...``, or without --lang the locale's language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, as gettext reads them).
A bad option, or an option the task does not use, gets one line naming it and what it allows, and exit status 2. The
subcommands live in ``commands`` (``serve``, ``review`` and ``layout`` for those), their option types in ``options``;
each returns its result's report.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ...formulas import data as dt
from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ...core._validate import InputError
from ...formulas.precision import RECIPES
from .commands import cmd_data, cmd_drill, cmd_memory, cmd_params, cmd_time
from .layout import add_layout_parser
from .options import _Parser, _count, _count_help, _gpu_option, _real, _span, _subparser, _targets, _text, _whole
from .review import add_review_parser
from .serve import serve_parser
from ...core.i18n import LANGUAGES, _, speaking
from ...core.limits import LIMITS, allowed, bound
from ...formulas.zero import OFFLOAD, ZERO_DEFAULTS
from ...plans.posttrain_memory import FULL_DEFAULTS

# ----------------------------------------------------------------------------------------------------------------
# Options a task does not use. They default to None, so that one given is seen even when it equals the default of
# another task; the task's default is filled in afterwards.
# ----------------------------------------------------------------------------------------------------------------

# memory: each option's tasks, and its default there (targets: from the model, in cmd_memory).
POST = ("dpo", "ppo", "grpo")   # several models kept at once (plans.posttrain_memory)
MEMORY_DEFAULTS = {
    "convention": {"training": "mixed", "full": "mixed", **dict.fromkeys(POST, "mixed")},
    "optimizer": {"training": "adamw", "full": "adamw", **dict.fromkeys(POST, "adamw")},
    "zero": {"training": 0, "full": FULL_DEFAULTS["zero"], **dict.fromkeys(POST, 3)},
    "dp": {"training": 1, "full": FULL_DEFAULTS["dp"], **dict.fromkeys(POST, 8)},
    "pp": {"training": 1, "full": 1},
    "tp": {"training": 1, "inference": 1, "full": 1},
    "micro_batch": {"training": 1, "lora": 1, "qlora": 1, "full": 1, **dict.fromkeys(POST, 1)},
    "seq_len": {"training": 2048, "inference": 2048, "lora": 2048, "qlora": 2048, "full": 2048,
                **dict.fromkeys(POST, 2048)},
    "recompute": {"training": "none", "lora": "full", "qlora": "full", "full": FULL_DEFAULTS["recompute"],
                  **dict.fromkeys(POST, "full")},
    "no_flash": {"training": False, "lora": False, "qlora": False, "full": False, **dict.fromkeys(POST, False)},
    "weights": {"inference": "bf16"},
    "batch": {"inference": 1},
    "rank": {"lora": 64, "qlora": 64},
    "targets": {"lora": None, "qlora": None},
    "prompts": {"ppo": 16, "grpo": 2},
    "group": {"grpo": 8},
    "separate": dict.fromkeys(POST, False),
    "gpus_per_node": {"training": 8, "full": 8},
    "precision": {"training": None},
    **{dest: {"training": default} for dest, default in
       {"cp": 1, "ep": 1, "offload": "none", **ZERO_DEFAULTS}.items()},
}
# data: the cluster options, which only --gpus uses, and their defaults.
DATA_CLUSTER = {"days": 30, "mfu": 0.4, "peak": None, "gpu": "A100 80GB"}


def settle_memory(args) -> None:
    for dest, defaults in MEMORY_DEFAULTS.items():
        if args.task in defaults:
            if getattr(args, dest) is None:
                setattr(args, dest, defaults[args.task])
        elif getattr(args, dest) is not None:
            tasks = _(" or ").join(f"--task {task}" for task in defaults)
            raise InputError(dest, _("--task {task} does not use it (only {tasks}): leave it out.").format(
                task=args.task, tasks=tasks))
    gpus = args.dp * (args.tp or 1) * (args.pp or 1) * (args.cp or 1) if args.dp else 1
    if gpus > LIMITS["gpus"].high:
        product = "dp × tp × pp × cp" if args.cp > 1 else "dp × tp × pp"
        raise InputError("dp", _("{product} == {gpus} GPUs, must be {allowed}{why}.").format(
            product=product, gpus=f"{gpus:,}", allowed=allowed("gpus"), why=_(LIMITS["gpus"].why)))


def settle_data(args) -> None:
    if args.gpus is None:
        for dest in DATA_CLUSTER:
            if getattr(args, dest) is not None:
                raise InputError(dest, "it sets the cluster that --gpus asks about, and --gpus was not given: give "
                                       "--gpus too, or leave it out.")
        if args.tokens is not None and args.tokens_per_param is not None:
            raise InputError("tokens_per_param", "nothing uses it when --tokens is given (and --gpus is not): "
                                                 "give one of them.")
    for dest, default in DATA_CLUSTER.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    if args.tokens_per_param is None:
        args.tokens_per_param = dt.TOKENS_PER_PARAM


# ----------------------------------------------------------------------------------------------------------------
# The parser
# ----------------------------------------------------------------------------------------------------------------

_PARAMS = _count("params", "parameters", ("B",), "n_params")
_TOKENS = _count("tokens", "tokens", ("B", "T"), "tokens")
_PEAK = _real("peak", "peak_tflops")
_SHARE = f"{bound(LIMITS['mfu'].low)}-1"  # the library refuses more than 1
_PEAK_HELP = f"peak TFLOPS, {_span('peak_tflops', '-')}, instead of the GPU's dense BF16 peak"


def _memory_parser(subparsers):
    p = _subparser(subparsers, "memory", cmd_memory, "memory per GPU for training, inference, LoRA, QLoRA, full "
                   "fine-tuning, DPO, PPO or GRPO",
                   "  llmest memory llama-2-7b --zero 3 --dp 8 --micro-batch 4 --seq-len 4096 --recompute full\n"
                   "  llmest memory llama-2-70b --task inference --weights int4 --seq-len 2048 --batch 32\n"
                   "  llmest memory llama-2-70b --task qlora --rank 64 --gpu \"H100 SXM\"\n"
                   "  llmest memory llama-3-8b --task lora --rank 16 --gpu \"RTX 4090\"   (a BF16 base)\n"
                   "  llmest memory llama-3-8b --task full --dp 8 --gpu \"H100 SXM\"   (ZeRO-3, checkpointing)\n"
                   "  llmest memory llama-3-8b --task grpo --dp 8 --prompts 4 --group 8 --gpu \"H100 SXM\"\n"
                   "An option the task does not use (--zero for inference, --batch for training) is refused.",
                   settle_memory)
    p.add_argument("model", type=_text, help="a preset or a config.json (or the folder that holds one)")
    p.add_argument("--task", default="training",
                   choices=["training", "inference", "lora", "qlora", "full", "dpo", "ppo", "grpo"])
    p.add_argument("--convention", choices=list(mem.CONVENTIONS), help="training: how states are stored (mixed)")
    p.add_argument("--optimizer", choices=list(mem.OPTIMIZERS), help="training (default adamw)")
    p.add_argument("--precision", choices=list(RECIPES),
                   help="training: a precision recipe, the format of each state and saved activation in place of "
                        "--convention's (fp8-te: NVIDIA's H100 recipes; fp8-deepseek: DeepSeek-V3's)")
    p.add_argument("--zero", type=_whole("zero"), help="training: ZeRO stage 0-3 (default 0)")
    p.add_argument("--dp", type=_whole("dp"), help=f"training: data-parallel GPUs, {_span('dp')} (default 1)")
    p.add_argument("--tp", type=_whole("tp"),
                   help="training, inference: tensor-parallel GPUs, dividing the heads (default 1)")
    p.add_argument("--pp", type=_whole("pp"), help="training: pipeline stages, up to the layers (default 1)")
    p.add_argument("--cp", type=_whole("cp"), help="training: context-parallel GPUs, each with 1/cp of every sequence, "
                                                   "ZeRO sharding over dp·cp (default 1)")
    p.add_argument("--ep", type=_whole("ep"), help="training: expert-parallel GPUs, each with 1/ep of the routed "
                                                   "experts; divides the experts and dp·cp (default 1)")
    p.add_argument("--offload", choices=OFFLOAD, help="training: to CPU memory, with --zero 1-3 the optimizer states, "
                                                      "with --zero 3 the parameters too (default none)")
    p.add_argument("--gpus-per-node", type=_whole("gpus_per_node"), help="training: for CPU memory per node (8)")
    for name, default in ZERO_DEFAULTS.items():  # DeepSpeed's settings of the same names, in elements
        p.add_argument(f"--{name.replace('_', '-')}", type=_real(name),
                       help=f"training, --zero >= 1: DeepSpeed's {name} in elements (default {default:.0e})")
    p.add_argument("--micro-batch", type=_whole("micro_batch"),
                   help=f"training, lora, qlora: sequences per micro-batch, {_span('micro_batch')} (default 1)")
    p.add_argument("--seq-len", type=_whole("seq_len"),
                   help=f"tokens per sequence or request, {_span('seq_len')} (default 2048)")
    p.add_argument("--batch", type=_whole("batch"),
                   help=f"inference: concurrent requests, {_span('batch')} (default 1)")
    p.add_argument("--recompute", choices=list(mem.RECOMPUTE),
                   help="training, lora, qlora: activation recomputation (default none for training, full for "
                        "lora and qlora)")
    p.add_argument("--no-flash", action="store_true", default=None,
                   help="training, lora, qlora: eager attention, keeping the s × s scores")
    p.add_argument("--weights", choices=list(mem.WEIGHT_FORMATS), help="inference: weight format (default bf16)")
    p.add_argument("--rank", type=_whole("rank"), help=f"lora, qlora: LoRA rank, {_span('rank')} (default 64)")
    p.add_argument("--targets", type=_targets,
                   help=f"lora, qlora: comma-separated, from {','.join(mem.LORA_TARGETS)} (default all seven; for a "
                        "mixture of experts q_proj,k_proj,v_proj,o_proj, as adapters on expert FFNs are not modelled)")
    p.add_argument("--prompts", type=_whole("prompts"),
                   help="ppo, grpo: prompts the rollout engine decodes together per GPU (default 16 for ppo, 2 "
                        "for grpo)")
    p.add_argument("--group", type=_whole("group"), help="grpo: answers sampled per prompt, G (default 8)")
    p.add_argument("--separate", action="store_true", default=None,
                   help="dpo, ppo, grpo: each model on its own --dp GPUs (default: all on the same GPUs)")
    p.add_argument("--margin", type=_real("margin"), default=mem.MEMORY_MARGIN,
                   help=f"share of the GPU kept free, 0 to under 1 ({mem.MEMORY_MARGIN:g})")
    _gpu_option(p)


def _time_parser(subparsers):
    p = _subparser(subparsers, "time", cmd_time, "training FLOPs, GPU-hours, days and cost",
                   "  llmest time --params 7B --tokens 1T --gpus 256 --mfu 0.4\n"
                   "  llmest time --model llama-2-70b --tokens 2T --gpus 2048 --gpu \"H100 SXM\" --price 4\n"
                   "  llmest time --model llama-2-7b --tokens 2T --gpus 256 --seq-len 4096   (attention FLOPs too)")
    p.add_argument("--params", type=_PARAMS, help="parameters N, e.g. 7B (or give --model), "
                                                  + _count_help(("B",), "n_params"))
    p.add_argument("--model", type=_text, help="a preset or config.json: N is its matmul parameters (active ones "
                                               "for MoE)")
    p.add_argument("--tokens", type=_TOKENS, required=True,
                   help="training tokens D, e.g. 1T, " + _count_help(("B", "T"), "tokens"))
    p.add_argument("--gpus", type=_whole("gpus"), default=1, help=f"number of GPUs, {_span('gpus')} (default 1)")
    p.add_argument("--mfu", type=_real("mfu"), default=0.4, help=f"model FLOPs utilisation, {_SHARE} (default 0.4)")
    p.add_argument("--seq-len", type=_whole("seq_len"),
                   help=f"with --model: add the attention FLOPs of sequences this long, {_span('seq_len')}; --mfu "
                        "then counts them too (default: 6·N·D only)")
    p.add_argument("--precision", choices=list(RECIPES),
                   help="a precision recipe (fp8-te, fp8-deepseek, mxfp8, nvfp4): --mfu is then the run's MFU with "
                        "BF16 matmuls, and the recipe's matmuls run faster on --gpu; the MFU shown is against the "
                        "BF16 peak and the recipe's")
    p.add_argument("--peak", type=_PEAK, help=_PEAK_HELP)
    p.add_argument("--price", type=_real("price", "price_per_gpu_hour"),
                   help=f"dollars per GPU-hour, {_span('price_per_gpu_hour')} (default: the GPU's listed price, "
                        f"${hardware.price_per_gpu_hour('A100 80GB'):g} for the A100 80GB)")
    _gpu_option(p)
    p.set_defaults(gpu=None)  # the plan's default GPU, unless --peak alone describes one


def _data_parser(subparsers):
    p = _subparser(subparsers, "data", cmd_data, "Chinchilla tokens and the text they take",
                   "  llmest data --params 7B\n  llmest data --params 70B --language chinese --cleaning-yield 0.2\n"
                   "  llmest data --gpus 64 --days 30 --mfu 0.5 --peak 200\n"
                   "--days, --mfu, --peak and --gpu describe the cluster of --gpus, and are refused without it.",
                   settle_data)
    p.add_argument("--params", type=_PARAMS, help="parameters N, e.g. 7B (default: the compute-optimal model of "
                                                  "--gpus for --days), " + _count_help(("B",), "n_params"))
    p.add_argument("--tokens", type=_TOKENS, help="training tokens (default: --tokens-per-param × N), "
                                                  + _count_help(("B", "T"), "tokens"))
    p.add_argument("--tokens-per-param", type=_real("tokens_per_param"),
                   help=f"{_span('tokens_per_param')} (default {dt.TOKENS_PER_PARAM:g}, "
                        "Chinchilla)")
    p.add_argument("--language", default="english", choices=list(dt.TOKENS_PER_GB))
    p.add_argument("--cleaning-yield", type=_real("cleaning_yield"), default=dt.WORKING_CLEANING_YIELD,
                   help=f"cleaned share of the raw crawl, {bound(LIMITS['cleaning_yield'].low)}-1 "
                        f"({dt.WORKING_CLEANING_YIELD:g})")
    p.add_argument("--gpus", type=_whole("gpus"),
                   help=f"also: the compute-optimal model for this many GPUs ({_span('gpus')}) ...")
    p.add_argument("--days", type=_real("days"), help=f"... for this many days, {_span('days')} (default 30)")
    p.add_argument("--mfu", type=_real("mfu"), help=f"... at this MFU, {_SHARE} (default 0.4)")
    p.add_argument("--peak", type=_PEAK, help="... and " + _PEAK_HELP)
    _gpu_option(p, when="... on this GPU: ")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="llmest", description=__doc__.split("\n\n")[0],
                     epilog="run 'llmest COMMAND --help' for a command's options and examples")
    from ... import __version__

    parser.add_argument("--version", action="version", version=f"llmest {__version__}")
    parser.add_argument("--lang", dest="ui_language", choices=list(LANGUAGES), default=None,
                        help="en (English) or zh (Chinese): the language every command answers in (default: the "
                             "locale's, from LANGUAGE, LC_ALL, LC_MESSAGES or LANG; else English)")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parser.commands = subparsers.choices

    p = _subparser(subparsers, "params", cmd_params, "count parameters, part by part",
                   "  llmest params llama-2-7b\n  llmest params path/to/config.json --json")
    p.add_argument("model", type=_text, help=f"a preset ({', '.join(m.PRESETS)}) or a config.json (or its folder)")
    _memory_parser(subparsers)
    _time_parser(subparsers)
    _data_parser(subparsers)
    add_layout_parser(subparsers)
    add_review_parser(subparsers)
    serve_parser(subparsers)

    from ...learn.drills import LEVELS, TOPICS

    p = _subparser(subparsers, "drill", cmd_drill, "write an estimation worksheet and its answer key",
                   "  llmest drill --seed 7 --n 12 --topics memory,compute --level hard --out worksheet\n"
                   "  llmest drill --seed 7 --lang zh --out worksheet-zh    the same set in Chinese")
    p.add_argument("--seed", type=_whole("seed"), default=0, help="the same seed gives the same problems (default 0)")
    p.add_argument("--n", type=_whole("n"), default=10, help="number of problems, 1-200 (default 10)")
    p.add_argument("--topics", type=_text, default=",".join(TOPICS),
                   help=f"comma-separated, from {', '.join(TOPICS)} (default all)")
    p.add_argument("--level", type=_text, default="mixed", help=f"{', '.join(LEVELS)} or mixed (default mixed)")
    p.add_argument("--out", type=_text, default="worksheet",
                   help="folder to write into, made if missing (default ./worksheet)")
    p.add_argument("--lang", choices=list(LANGUAGES), default=None,
                   help="the language of the worksheet, its key and the problems printed with --json: en (English) "
                        "or zh (Chinese) (default: llmest --lang, else the locale)")
    p.add_argument("--course", type=_text, default=None,
                   help="also write the set as an nbgrader assignment in this course folder (source/NAME/)")
    p.add_argument("--assignment", type=_text, default=None,
                   help="the assignment's name with --course: letters, digits, - and _ (default drills- and 8 hex "
                        "digits of the seed's SHA-256, which do not give the seed away)")
    return parser


# Library parameters that the command line spells differently.
PARAM_OPTIONS = {"preset": "model", "cfg": "model", "config": "model", "n_params": "params",
                 "tokens_per_gb": "language", "budget_flops": "gpus", "price_per_gpu_hour": "price",
                 "peak_flops_per_s": "peak", "flash": "no_flash"}


def _option_name(command: argparse.ArgumentParser, param: str) -> str:
    """The command-line spelling of a library parameter ("micro_batch" -> "--micro-batch"), when it is an option."""
    param = PARAM_OPTIONS.get(param, param)
    for action in command._actions:
        if action.dest == param:
            return action.option_strings[0] if action.option_strings else action.dest
    return param


LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")   # gettext's order


def locale_language(environ=None) -> str:
    """The workbook's language from the locale: the first of LOCALE_VARIABLES that is set decides (LANGUAGE may
    list several, "zh_CN:en"); a Chinese locale gives "zh", any other "en"."""
    environ = os.environ if environ is None else environ
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "")
        if value:
            for item in value.split(":"):
                code = item.split(".")[0].split("_")[0].split("-")[0].lower()
                if code in LANGUAGES:
                    return code
            return "en"
    return "en"


def _run(argv) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    command = parser.commands[args.command]
    if unknown:  # reported by the subcommand, not the top level
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    language = getattr(args, "lang", None) or args.ui_language or locale_language()
    with speaking(language):
        try:
            if args.settle:
                args.settle(args)
            report = args.func(args)
        except InputError as err:
            command.error(f"{_option_name(command, err.param)}: {err}")  # exit status 2, no traceback
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) if args.json else str(report))
    return 0


def main(argv=None) -> int:
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # here, so that a reader gone (| head) is caught below, not at exit
    except BrokenPipeError:
        try:  # the exit's own flush would fail again: send what is left nowhere
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # no file descriptor: a captured stream
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
