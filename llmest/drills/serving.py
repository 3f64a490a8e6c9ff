"""Drill templates on serving: inference FLOPs, decode speed, GPUs and cost."""

from __future__ import annotations

from .. import compute as c
from .. import hardware
from .. import memory as mem
from .. import plans
from ..units import SECONDS_PER_HOUR, format_bytes, format_flops, format_int, format_usd
from .problem import PARAMS, Part, _A, _Regenerate, _a, _chained, _n, _pick, _problem, _size, template, tflops_text

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S31 = "chapter 3, §3.1 (03_flops_and_time.ipynb#cell-id=ac638093)"
S3_SERVING = "chapter 3, Serving: decode speed and cost (03_flops_and_time.ipynb#cell-id=6aecd558)"
S2_SERVING = "chapter 2, Serving: weights and quantisation (02_memory.ipynb#cell-id=cc59844e)"


@template("inference-flops", "serving")
def _inference_flops(rng, level):
    n = _pick(rng, level, *PARAMS)
    tokens = _pick(rng, level, [1e6, 1e9], [1e9, 30e9], [2.5e9, 86e9])
    answer = c.forward_flops_per_token(n) * tokens
    if level == "hard":
        per_token = c.forward_flops_per_token(n)
        parts = (Part("How many FLOPs per generated token?", per_token, "FLOPs",
                      (f"forward_flops_per_token(N) = 2·N = 2 × {_size(n)} = {format_flops(per_token)}; {S31}",)),
                 Part(f"How many FLOPs for {_size(tokens)} tokens?", answer, "FLOPs",
                      (f"{format_flops(per_token)} × {_size(tokens)} = {format_flops(answer)}; {S31}",)))
        return _chained("inference-flops", level, f"{_A(_size(n))} dense model generates {_size(tokens)} tokens "
                                                  "(ignore attention over the context).", dict(n=n, tokens=tokens),
                        parts, "A forward pass costs about 2 FLOPs per parameter per token.")
    return _problem(
        "inference-flops", level,
        f"How many FLOPs does {_a(_size(n))} dense model spend generating {_size(tokens)} tokens "
        "(ignore attention over the context)?",
        dict(n=n, tokens=tokens), answer, "FLOPs",
        [f"2·N per token = {format_flops(c.forward_flops_per_token(n))}",
         f"× {_size(tokens)} = {format_flops(answer)}"],
        "A forward pass costs about 2 FLOPs per parameter per token.")


@template("decode-speed", "serving")
def _decode_speed(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [7e9, 13e9, 70e9], [8e9, 34e9, 70e9])
    gpu = _pick(rng, level, ["A100 80GB", "H100 SXM"], ["A100 80GB", "H100 SXM", "H200"], ["H200", "B200", "MI300X"])
    per_param = _pick(rng, level, [2], [2, 1], [1, 0.5])
    batch = _pick(rng, level, [1], [1, 8], [16, 64])
    kv_per_sequence = _pick(rng, level, [0.0], [0.5e9, 1e9], [0.25e9, 1e9])  # easy: leave the cache out
    kv = kv_per_sequence * batch
    weights = mem.weight_bytes(n, per_param)
    g = hardware.gpu(gpu)
    step = c.decode_step_seconds(weights, kv, n, batch, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)
    answer = batch / step
    if not plans.fits(weights + kv, g):
        raise _Regenerate  # the model and its cache do not fit that GPU with 20% kept free
    cache = ("ignore the KV cache" if not kv else
             f"each sequence's KV cache is {format_bytes(kv_per_sequence)}")
    if level == "hard":  # the weights' bytes, the step's time, then the tokens a second
        parts = (Part("How many bytes do the weights take? (GB)", weights, "bytes",
                      (f"weight_bytes(N, bytes_per_param) = {_size(n)} × {per_param:g} = {format_bytes(weights)}; "
                       f"{S2_SERVING}",)),
                 Part("How many seconds does one decode step take, the longer of reading the weights and cache "
                      "and computing?",
                      step, "seconds",
                      (f"decode_step_seconds(weights, kv, N, batch, bandwidth, peak) = max("
                       f"{format_bytes(weights + kv)} / {format_bytes(g.bandwidth_bytes_per_s)}/s, "
                       f"{format_flops(2 * n * batch)} / {tflops_text(gpu)}) = {step * 1e3:.3g} ms; {S3_SERVING}",)),
                 Part("About how many tokens per second in all?", answer, "tokens/s",
                      (f"batch / step = {batch} / {step * 1e3:.3g} ms = {answer:,.0f} tokens/s; {S3_SERVING}",)))
        return _chained("decode-speed", level,
                        f"One {gpu} ({format_bytes(g.bandwidth_bytes_per_s)}/s memory bandwidth, {tflops_text(gpu)}) "
                        f"decodes {_n(batch, 'sequence')} at once for {_a(_size(n))} model stored at {per_param:g} "
                        f"byte{'' if per_param == 1 else 's'} a parameter; {cache}.",
                        dict(n=n, bytes_per_param=per_param, batch=batch, kv=kv, bandwidth=g.bandwidth_bytes_per_s,
                             peak=g.bf16_flops_per_s), parts,
                        "Time per step ≈ the longer of bytes read / bandwidth and 2·N·batch / peak.")
    return _problem(
        "decode-speed", level,
        f"One {gpu} ({format_bytes(g.bandwidth_bytes_per_s)}/s memory bandwidth, {tflops_text(gpu)}) decodes "
        f"{_n(batch, 'sequence')} at once for {_a(_size(n))} model stored at {per_param:g} "
        f"byte{'' if per_param == 1 else 's'} a parameter; "
        f"{cache}. About how many tokens per second in all?",
        dict(n=n, bytes_per_param=per_param, batch=batch, kv=kv, bandwidth=g.bandwidth_bytes_per_s,
             peak=g.bf16_flops_per_s), answer, "tokens/s",
        [f"Each step reads the weights and KV cache: {format_bytes(weights + kv)} / "
         f"{format_bytes(g.bandwidth_bytes_per_s)}/s = {(weights + kv) / g.bandwidth_bytes_per_s * 1e3:.3g} ms",
         f"and computes 2·N·batch = {format_flops(2 * n * batch)}: {2 * n * batch / g.bf16_flops_per_s * 1e3:.3g} ms",
         f"The longer bounds the step ({step * 1e3:.3g} ms): {_n(batch, 'token')} per step = {answer:,.0f} tokens/s"],
        "Decoding is usually memory-bound: time per step ≈ bytes read / bandwidth; each step yields one token per "
        "sequence.")


@template("serving-gpus", "serving")
def _serving_gpus(rng, level):
    rps = _pick(rng, level, [10, 100], [50, 200, 1000], [75, 400, 2500])
    tokens = _pick(rng, level, [500], [250, 500, 1000], [300, 800, 2000])
    per_replica = _pick(rng, level, [2000], [1500, 3000], [900, 2400, 5200])
    per_replica_gpus = _pick(rng, level, [1], [1, 2], [2, 4, 8])
    answer = c.gpus_for_request_rate(rps, tokens, per_replica, per_replica_gpus)
    replicas = answer // per_replica_gpus
    if level == "hard":
        parts = (Part("How many tokens per second must the service produce?", rps * tokens, "tokens/s",
                      (f"requests_per_s × tokens_per_request = {rps:,} × {tokens:,} = {format_int(rps * tokens)}; "
                       f"{S3_SERVING}",)),
                 Part("How many replicas at least?", replicas, "count",
                      (f"{format_int(rps * tokens)} / {per_replica:,}, rounded up = {format_int(replicas)}; "
                       f"{S3_SERVING}",), minimum=True),
                 Part("How many GPUs at least?", answer, "GPUs",
                      (f"gpus_for_request_rate(rps, tokens, per_replica, gpus_per_replica) = {format_int(replicas)} "
                       f"× {per_replica_gpus} = {format_int(answer)}; {S3_SERVING}",), minimum=True))
        return _chained("serving-gpus", level,
                        f"A service gets {rps:,} requests per second, each generating {tokens:,} tokens. One replica "
                        f"({_n(per_replica_gpus, 'GPU')}) produces {per_replica:,} tokens per second.",
                        dict(rps=rps, tokens=tokens, per_replica=per_replica, gpus_per_replica=per_replica_gpus),
                        parts, "Tokens per second needed / per replica, rounded up, × GPUs per replica.")
    return _problem(
        "serving-gpus", level,
        f"A service gets {rps:,} requests per second, each generating {tokens:,} tokens. One replica "
        f"({_n(per_replica_gpus, 'GPU')}) produces {per_replica:,} tokens per second. How many GPUs at least?",
        dict(rps=rps, tokens=tokens, per_replica=per_replica, gpus_per_replica=per_replica_gpus), answer, "GPUs",
        [f"Tokens per second needed: {rps:,} × {tokens:,} = {format_int(rps * tokens)}",
         f"Replicas: {format_int(rps * tokens)} / {per_replica:,}, rounded up = {format_int(replicas)}",
         f"GPUs: {format_int(replicas)} × {per_replica_gpus} = {format_int(answer)}"],
        "Tokens per second needed / tokens per second per replica, rounded up, × GPUs per replica.", minimum=True)


@template("serving-cost", "serving")
def _serving_cost(rng, level):
    gpu = _pick(rng, level, ["A100 80GB"], ["A100 80GB", "H100 SXM"], ["H100 SXM", "H200", "B200"])
    gpus = _pick(rng, level, [1, 2], [1, 2, 4], [2, 8])
    tokens_per_s = _pick(rng, level, [1000, 2000], [800, 2500], [1300, 6400])
    price = hardware.price_per_gpu_hour(gpu)
    answer = c.cost_per_million_tokens(price, gpus, tokens_per_s)
    if level == "hard":
        per_hour = tokens_per_s * SECONDS_PER_HOUR
        parts = (Part("How many tokens do they generate in an hour?", per_hour, "count",
                      (f"{tokens_per_s:,} × {SECONDS_PER_HOUR:,} s = {format_int(per_hour)}; {S3_SERVING}",)),
                 Part("What does a million generated tokens cost?", answer, "USD",
                      (f"cost_per_million_tokens(price, gpus, tokens_per_s) = ${price:g} × {gpus} / "
                       f"{format_int(per_hour)} × 10⁶ = {format_usd(answer)}; {S3_SERVING}",)))
        return _chained("serving-cost", level,
                        f"{_n(gpus, gpu + ' GPU')} at ${price:g} an hour "
                        f"{'each, together serve' if gpus > 1 else 'serves'} {tokens_per_s:,} tokens per second.",
                        dict(price=price, gpus=gpus, tokens_per_s=tokens_per_s), parts,
                        "Hourly price / tokens per hour × 10⁶.")
    return _problem(
        "serving-cost", level,
        f"{_n(gpus, gpu + ' GPU')} at ${price:g} an hour {'each, together serve' if gpus > 1 else 'serves'} "
        f"{tokens_per_s:,} tokens per second. What does a million generated tokens cost?",
        dict(price=price, gpus=gpus, tokens_per_s=tokens_per_s), answer, "USD",
        [f"Per hour: ${price * gpus:g} for {format_int(tokens_per_s * SECONDS_PER_HOUR)} tokens",
         f"Per million: {format_usd(answer)}"],
        "Hourly price / tokens per hour × 10⁶.")
