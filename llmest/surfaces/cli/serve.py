"""``llmest serve``: a static batch of requests on a GPU, from prompt to last token (``plans.estimate_request``);
with ``--rate``, the capacity question: the GPUs and layout for a load under TTFT and TPOT targets
(``plans.plan_capacity``).

    llmest serve llama-2-7b --gpu "A100 80GB" --prompt-tokens 512 --output-tokens 256 --batch 16
    llmest serve llama-2-70b --gpu "H100 SXM" --tp 4 --prompt-tokens 2048 --output-tokens 512 --batch 32 --json
    llmest serve llama-2-70b --gpu "H100 SXM" --rate 1000 --prompt-tokens 1024 --output-tokens 256 --ttft 0.2 \
        --tpot 0.05
"""

from __future__ import annotations

from dataclasses import replace

from ...formulas import memory as mem
from ... import plans
from .commands import model_of
from .options import _gpu_option, _real, _span, _subparser, _text, _whole
from ...formulas.kv_cache import BLOCK_TOKENS, BYTES_PER_VALUE
from ...core._validate import InputError
from ...core.i18n import _
from ...plans.capacity_assumptions import CHUNK_TOKENS

CAPACITY_ONLY = {"ttft_s": "--ttft", "tpot_s": "--tpot", "prefix_hit_rate": "--prefix-hit-rate",
                 "disaggregated": "--disaggregated", "chunk_tokens": "--chunk-tokens"}


def cmd_serve(args):
    if args.rate is not None:
        return _capacity(args)
    for dest, option in CAPACITY_ONLY.items():
        if getattr(args, dest) not in (None, False):
            raise InputError(dest, _("{option} sets a target of the capacity question: give --rate with it (and "
                                     "--ttft and --tpot).").format(option=option))
    est = plans.estimate_request(model_of(args.model), args.gpu, prompt_tokens=args.prompt_tokens,
                                 output_tokens=args.output_tokens, batch=args.batch,
                                 tp=1 if args.tp is None else args.tp, weights=args.weights,
                                 prefill_efficiency=args.prefill_efficiency, kv_dtype=args.kv_dtype,
                                 block_tokens=args.block_tokens, price_per_gpu_hour=args.price, margin=args.margin)
    report = est.report(args.requests_per_s)
    return report if report.data["model"] else replace(report, data={**report.data, "model": args.model})


def _capacity(args):
    """The capacity question: ``--rate`` requests a second under ``--ttft`` and ``--tpot``."""
    for dest, option in (("ttft_s", "--ttft"), ("tpot_s", "--tpot")):
        if getattr(args, dest) is None:
            raise InputError(dest, _("{option} is needed with --rate: the capacity question asks for a target of each "
                                     "(in seconds, such as 0.2).").format(option=option))
    try:
        plan = plans.plan_capacity(model_of(args.model), args.gpu, requests_per_s=args.rate,
                                   prompt_tokens=args.prompt_tokens, output_tokens=args.output_tokens,
                                   ttft_s=args.ttft_s, tpot_s=args.tpot_s, tp=args.tp, weights=args.weights,
                                   kv_dtype=args.kv_dtype, disaggregated=args.disaggregated,
                                   prefix_hit_rate=0.0 if args.prefix_hit_rate is None else args.prefix_hit_rate,
                                   chunk_tokens=CHUNK_TOKENS if args.chunk_tokens is None else args.chunk_tokens,
                                   prefill_efficiency=args.prefill_efficiency, price_per_gpu_hour=args.price,
                                   margin=args.margin)
    except InputError as err:
        if err.param == "requests_per_s":
            raise InputError("rate", str(err)) from None
        raise
    report = plan.report()
    return report if report.data["model"] else replace(report, data={**report.data, "model": args.model})


def serve_parser(subparsers):
    p = _subparser(subparsers, "serve", cmd_serve, "time to first token, time per output token, the largest batch "
                                                   "and the price of serving",
                   "  llmest serve llama-2-7b --gpu \"A100 80GB\" --prompt-tokens 512 --output-tokens 256 --batch 16\n"
                   "  llmest serve llama-2-70b --gpu \"H100 SXM\" --tp 4 --prompt-tokens 2048 --output-tokens 512 "
                   "--batch 32 --requests-per-s 5\n"
                   "  llmest serve llama-2-70b --gpu \"H100 SXM\" --rate 1000 --prompt-tokens 1024 "
                   "--output-tokens 256 --ttft 0.2 --tpot 0.05\n"
                   "Without --rate, a static batch: the prompts are prefilled together, then decoded together. With "
                   "--rate, the GPUs and layout that serve that many requests a second under the TTFT and TPOT "
                   "targets (continuous batching with chunked prefill).")
    p.add_argument("model", type=_text, help="a preset or a config.json (or the folder that holds one)")
    _gpu_option(p)
    p.add_argument("--tp", type=_whole("tp"), default=None,
                   help="tensor-parallel GPUs, dividing the heads (default 1; with --rate, searched within the GPU's "
                        "NVLink domain)")
    p.add_argument("--weights", choices=list(mem.WEIGHT_FORMATS), default="bf16", help="weight format (default bf16)")
    p.add_argument("--prompt-tokens", type=_whole("prompt_tokens"), required=True,
                   help=f"tokens in each prompt, {_span('prompt_tokens')}")
    p.add_argument("--output-tokens", type=_whole("output_tokens"), required=True,
                   help=f"tokens generated for each request, {_span('output_tokens')}")
    p.add_argument("--batch", type=_whole("batch"), default=1,
                   help=f"requests served together, {_span('batch')} (default 1)")
    p.add_argument("--prefill-efficiency", type=_real("prefill_efficiency", "mfu"),
                   default=plans.PREFILL_EFFICIENCY,
                   help=f"share of the peak that prompt processing reaches (default {plans.PREFILL_EFFICIENCY:g}, "
                        "chapter 3's MFU)")
    p.add_argument("--kv-dtype", choices=list(BYTES_PER_VALUE), default="bf16", help="KV cache format (default bf16)")
    p.add_argument("--block-tokens", type=_whole("block_tokens"), default=BLOCK_TOKENS,
                   help=f"tokens per KV cache block (default {BLOCK_TOKENS}, vLLM's)")
    p.add_argument("--price", type=_real("price", "price_per_gpu_hour"),
                   help=f"dollars per GPU-hour, {_span('price_per_gpu_hour')} (default: the GPU's listed price)")
    p.add_argument("--margin", type=_real("margin"), default=mem.MEMORY_MARGIN,
                   help=f"share of the GPU kept free, 0 to under 1 ({mem.MEMORY_MARGIN:g})")
    p.add_argument("--requests-per-s", type=_real("requests_per_s"),
                   help="also: the GPUs that sustain this many requests a second")
    p.add_argument("--rate", type=_real("rate", "requests_per_s"),
                   help="the capacity question: requests a second to serve under --ttft and --tpot")
    p.add_argument("--ttft", dest="ttft_s", type=_real("ttft"),
                   help="with --rate: the time-to-first-token target, in seconds (such as 0.2)")
    p.add_argument("--tpot", dest="tpot_s", type=_real("tpot"),
                   help="with --rate: the time-per-output-token target, in seconds (such as 0.05)")
    p.add_argument("--prefix-hit-rate", type=_real("prefix_hit_rate"),
                   help="with --rate: the share of each prompt a prefix cache holds, 0 to under 1 (default 0)")
    p.add_argument("--disaggregated", action="store_true",
                   help="with --rate: prefill and decode on separate pools of GPUs")
    p.add_argument("--chunk-tokens", type=_whole("chunk_tokens"),
                   help=f"with --rate: the tokens a step carries at most, decodes and prompt chunks (default "
                        f"{CHUNK_TOKENS}, vLLM's max_num_batched_tokens)")
