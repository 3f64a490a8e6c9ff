"""``llmest serve``: a static batch of requests on a GPU, from prompt to last token (``plans.estimate_request``).

    llmest serve llama-2-7b --gpu "A100 80GB" --prompt-tokens 512 --output-tokens 256 --batch 16
    llmest serve llama-2-70b --gpu "H100 SXM" --tp 4 --prompt-tokens 2048 --output-tokens 512 --batch 32 --json
"""

from __future__ import annotations

from dataclasses import replace

from ...formulas import memory as mem
from ... import plans
from .commands import model_of
from .options import _gpu_option, _real, _span, _subparser, _text, _whole
from ...formulas.kv_cache import BLOCK_TOKENS, BYTES_PER_VALUE


def cmd_serve(args):
    est = plans.estimate_request(model_of(args.model), args.gpu, prompt_tokens=args.prompt_tokens,
                                 output_tokens=args.output_tokens, batch=args.batch, tp=args.tp, weights=args.weights,
                                 prefill_efficiency=args.prefill_efficiency, kv_dtype=args.kv_dtype,
                                 block_tokens=args.block_tokens, price_per_gpu_hour=args.price, margin=args.margin)
    report = est.report(args.requests_per_s)
    return report if report.data["model"] else replace(report, data={**report.data, "model": args.model})


def serve_parser(subparsers):
    p = _subparser(subparsers, "serve", cmd_serve, "time to first token, time per output token, the largest batch "
                                                   "and the price of serving",
                   "  llmest serve llama-2-7b --gpu \"A100 80GB\" --prompt-tokens 512 --output-tokens 256 --batch 16\n"
                   "  llmest serve llama-2-70b --gpu \"H100 SXM\" --tp 4 --prompt-tokens 2048 --output-tokens 512 "
                   "--batch 32 --requests-per-s 5\n"
                   "A static batch: the prompts are prefilled together, then decoded together.")
    p.add_argument("model", type=_text, help="a preset or a config.json (or the folder that holds one)")
    _gpu_option(p)
    p.add_argument("--tp", type=_whole("tp"), default=1,
                   help="tensor-parallel GPUs, dividing the heads (default 1)")
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
