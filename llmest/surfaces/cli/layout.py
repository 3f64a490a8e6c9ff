"""``llmest layout``: every parallel layout of a training run, ranked by step time (``plans.search_layouts``)."""

from __future__ import annotations

import argparse

from ...formulas import comm
from ...formulas import memory as mem
from ...formulas.precision import RECIPES
from ... import plans
from ...core._validate import InputError
from .commands import model_of
from .options import _gpu_option, _plausible, _real, _span, _subparser, _text, _whole
from ...plans.layout_plan import COMPUTE_EFFICIENCY, MICRO_BATCHES, OVERLAP
from ...core.units import parse_count

DEFAULT_GPU = "H100 SXM"
TOP = 10


def _batch_tokens(text: str) -> int:
    """A whole number of tokens, such as 4194304, 4M or 4e6."""
    try:
        value = parse_count(_text(text), "global_batch_tokens")
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"global_batch_tokens == {value:g}, must be a whole number of tokens.")
    return _plausible("global_batch_tokens", int(value), "global_batch_tokens")


def add_layout_parser(subparsers):
    p = _subparser(subparsers, "layout", cmd_layout, "every parallel layout of a training run, fastest first",
                   "  llmest layout llama-2-7b --gpus 64 --gpu \"H100 SXM\" --seq-len 4096 "
                   "--global-batch-tokens 1048576\n"
                   "  llmest layout llama-2-70b --gpus 1024 --seq-len 4096 --global-batch-tokens 4194304 --json\n"
                   "  llmest layout llama-3.1-405b --gpus 16384 --seq-len 8192 --global-batch-tokens 16777216 "
                   "--schedule interleaved --tp 8 --cp 1 --pp 16 --dp 128\n"
                   "Layouts that fit come first; --overlap and --efficiency are assumptions to vary. Given a layout "
                   "(any of --tp --cp --pp --dp --ep --vp --zero --micro-batch --recompute), it is shown with its "
                   "rank among all, the settings left out chosen as the search would.")
    p.add_argument("model", type=_text, help="a preset or a config.json (or the folder that holds one)")
    p.add_argument("--gpus", type=_whole("gpus"), required=True, help="GPUs in the run, 1 to 65,536")
    p.add_argument("--seq-len", type=_whole("seq_len"), required=True,
                   help=f"tokens per sequence, {_span('seq_len')}")
    p.add_argument("--global-batch-tokens", type=_batch_tokens, required=True,
                   help="tokens per optimizer step (sequences × sequence length), e.g. 4194304 or 4M; a whole "
                        "number of sequences")
    p.add_argument("--schedule", choices=list(comm.SCHEDULES), default="1f1b", help="pipeline schedule (1f1b)")
    p.add_argument("--overlap", type=_real("overlap"), default=OVERLAP,
                   help=f"share of communication hidden behind compute, 0-1 (default {OVERLAP:g})")
    p.add_argument("--efficiency", type=_real("compute_efficiency"), default=COMPUTE_EFFICIENCY,
                   help="share of the dense peak a layer's work reaches, over 0 to 1 (default: the figure fitted "
                        "to published runs on the GPU's generation)")
    p.add_argument("--tp-comm-overlap", action="store_true",
                   help="tensor-parallel collectives overlapped with the matmuls (Transformer Engine)")
    p.add_argument("--convention", choices=list(mem.CONVENTIONS), default="mixed",
                   help="how training states are stored (mixed)")
    p.add_argument("--precision", choices=list(RECIPES),
                   help="a precision recipe (fp8-te, fp8-deepseek, mxfp8, nvfp4): its states and saved activations "
                        "in place of --convention's, and its matmul speed on --gpu (default: BF16)")
    p.add_argument("--margin", type=_real("margin"), default=mem.MEMORY_MARGIN,
                   help=f"share of the GPU kept free, 0 to under 1 ({mem.MEMORY_MARGIN:g})")
    p.add_argument("--top", type=_whole("top"), default=TOP, help=f"layouts to list (default {TOP})")
    p.add_argument("--all", action="store_true", help="list every layout searched")
    for name, what in (("tp", "tensor"), ("cp", "context"), ("pp", "pipeline"), ("dp", "data"), ("ep", "expert")):
        p.add_argument(f"--{name}", type=_whole(name, "gpus"), help=f"a layout to evaluate: its {what}-parallel degree")
    p.add_argument("--vp", type=_whole("vp", "gpus"), help="a layout to evaluate: model chunks per GPU (with "
                                                          "--schedule interleaved)")
    p.add_argument("--zero", type=_whole("zero"), choices=range(4), help="a layout to evaluate: its ZeRO stage")
    p.add_argument("--micro-batch", type=_whole("micro_batch"), help="a layout to evaluate: sequences per "
                                                                     "micro-batch")
    p.add_argument("--recompute", choices=mem.RECOMPUTE, help="a layout to evaluate: its recomputation")
    _gpu_option(p, default=DEFAULT_GPU)


GIVEN = ("tp", "cp", "pp", "dp", "ep", "vp", "zero", "micro_batch", "recompute")


def cmd_layout(args):
    if args.vp is not None and args.schedule != "interleaved":
        raise InputError("--vp", f"--vp == {args.vp}: model chunks per GPU belong to --schedule interleaved, not "
                                 f"{args.schedule}.")
    given = {name: getattr(args, name) for name in GIVEN if getattr(args, name) is not None}
    micro_batches = (args.micro_batch,) if args.micro_batch is not None else MICRO_BATCHES
    found = plans.search_layouts(model_of(args.model), args.gpus, args.gpu, args.seq_len, args.global_batch_tokens,
                                 convention=args.convention, schedule=args.schedule, overlap=args.overlap,
                                 compute_efficiency=args.efficiency, tp_comm_overlap=args.tp_comm_overlap,
                                 margin=args.margin, precision=args.precision,
                                 micro_batch_sizes=micro_batches)
    return found.report(None if args.all else args.top, **given)
