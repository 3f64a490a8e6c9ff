"""``llmest serve``: a static batch of requests on a GPU, from prompt to last token (``plans.estimate_request``).

    llmest serve llama-2-7b --gpu "A100 80GB" --prompt-tokens 512 --output-tokens 256 --batch 16
    llmest serve llama-2-70b --gpu "H100 SXM" --tp 4 --prompt-tokens 2048 --output-tokens 512 --batch 32 --json
"""

from __future__ import annotations

from . import memory as mem
from . import plans
from .cli_commands import _table, _with_unit, model_of
from .cli_options import _gpu_option, _real, _span, _subparser, _text, _whole
from .kv_cache import BLOCK_TOKENS, BYTES_PER_VALUE
from .units import format_bytes, format_flops, format_usd


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f} ms"


def cmd_serve(args):
    cfg = model_of(args.model)
    est = plans.estimate_request(cfg, args.gpu, prompt_tokens=args.prompt_tokens, output_tokens=args.output_tokens,
                                 batch=args.batch, tp=args.tp, weights=args.weights,
                                 prefill_efficiency=args.prefill_efficiency, kv_dtype=args.kv_dtype,
                                 block_tokens=args.block_tokens, price_per_gpu_hour=args.price, margin=args.margin)
    s, decode = est.settings, est.decode
    data = {"model": cfg.name or args.model, "gpu": s["gpu"], "tp": s["tp"], "weights": s["weights"],
            "prompt_tokens": s["prompt_tokens"], "output_tokens": s["output_tokens"], "batch": s["batch"],
            "prefill_efficiency": s["prefill_efficiency"], "kv_dtype": s["kv_dtype"],
            "block_tokens": s["block_tokens"], "ttft_s": est.ttft_s, "tpot_s": est.tpot_s,
            "tokens_per_s": est.tokens_per_s, "request_s": est.request_s, "max_batch": est.max_batch,
            "memory_per_gpu_bytes": est.memory_per_gpu_bytes, "fits": est.fits, "usable_bytes": est.usable_bytes,
            "memory_parts": est.memory.parts, "prefill_flops": est.prefill_flops, "prefill_bound": est.prefill_bound,
            "decode_bound": est.bound, "decode_context_tokens": est.decode_context_tokens,
            "blocks_per_sequence": est.blocks_per_sequence,
            "waste_bytes_per_sequence": est.waste_bytes_per_sequence,
            "price_per_gpu_hour": s["price_per_gpu_hour"],
            "usd_per_million_input_tokens": est.usd_per_million_input_tokens,
            "usd_per_million_output_tokens": est.usd_per_million_output_tokens}
    if args.requests_per_s is not None:
        data["requests_per_s"] = args.requests_per_s
        data["gpus_needed"] = est.gpus_for(args.requests_per_s)
    on = f"{s['tp']} × {s['gpu']} (tensor parallel)" if s["tp"] > 1 else s["gpu"]
    verdict = "fits" if est.fits else "does not fit"
    rows = [("request", f"{s['batch']:,} × ({s['prompt_tokens']:,} prompt + {s['output_tokens']:,} output tokens) "
                        f"on {on}, {s['weights']} weights"),
            ("TTFT", f"{_ms(est.ttft_s)}: {format_flops(est.prefill_flops)} FLOPs of prefill at "
                     f"{_with_unit(s['prefill_efficiency'], 'fraction')} of the peak ({est.prefill_bound}-bound)"),
            ("TPOT", f"{_ms(est.tpot_s)} a step at {est.decode_context_tokens:,} tokens of context "
                     f"({est.bound}-bound: memory {_ms(decode.memory_seconds)}, "
                     f"compute {_ms(decode.compute_seconds)})"),
            ("throughput", f"{est.tokens_per_s:,.0f} output tokens/s while decoding; a request takes "
                           f"{est.request_s:,.2f} s"),
            ("memory per GPU", f"{format_bytes(est.memory_per_gpu_bytes)} ({verdict}: {format_bytes(est.usable_bytes)} "
                               f"usable, {_with_unit(s['margin'], 'fraction')} kept free)"),
            ("KV cache", f"{est.blocks_per_sequence:,} blocks of {s['block_tokens']} tokens a sequence, "
                         f"{format_bytes(est.waste_bytes_per_sequence)} of it in the last block's empty slots"),
            ("max batch", f"{est.max_batch:,} sequences"),
            ("price", f"{format_usd(est.usd_per_million_input_tokens)} per million input tokens, "
                      f"{format_usd(est.usd_per_million_output_tokens)} per million output tokens at "
                      f"{format_usd(s['price_per_gpu_hour'])} per GPU-hour")]
    if args.requests_per_s is not None:
        rows.append(("GPUs needed", f"{data['gpus_needed']:,} for {args.requests_per_s:g} requests/s"))
    return _table(rows), data


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
