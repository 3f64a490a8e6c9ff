"""Drill templates on serving: inference FLOPs, decode speed, GPUs and cost."""

from __future__ import annotations

from ...formulas import compute as c
from ...catalog import hardware
from ...formulas import memory as mem
from ... import plans
from ...core.i18n import N_, _
from ...core.units import SECONDS_PER_HOUR, format_bytes, format_flops, format_int, format_usd
from .problem import PARAMS, Part, _A, _Regenerate, _a, _chained, _n, _pick, _problem, _size, template, tflops_text

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S31 = N_("chapter 3, §3.1 (03_flops_and_time.ipynb#cell-id=ac638093)")
S3_SERVING = N_("chapter 3, Serving: decode speed and cost (03_flops_and_time.ipynb#cell-id=6aecd558)")
S2_SERVING = N_("chapter 2, Serving: weights and quantisation (02_memory.ipynb#cell-id=cc59844e)")


@template("inference-flops", "serving")
def _inference_flops(rng, level):
    n = _pick(rng, level, *PARAMS)
    tokens = _pick(rng, level, [1e6, 1e9], [1e9, 30e9], [2.5e9, 86e9])
    answer = c.forward_flops_per_token(n) * tokens
    per_token = c.forward_flops_per_token(n)
    shown = dict(model=_a(_size(n)), Model=_A(_size(n)), n=_size(n), tokens=_size(tokens),
                 per_token=format_flops(per_token), flops=format_flops(answer))
    hint = _("A forward pass costs about 2 FLOPs per parameter per token.")
    if level == "hard":
        parts = (Part(_("How many FLOPs per generated token?"), per_token, "FLOPs",
                      (_("forward_flops_per_token(N) = 2·N = 2 × {n} = {per_token}; {cite}").format(
                          **shown, cite=_(S31)),)),
                 Part(_("How many FLOPs for {tokens} tokens?").format(**shown), answer, "FLOPs",
                      (_("{per_token} × {tokens} = {flops}; {cite}").format(**shown, cite=_(S31)),)))
        return _chained("inference-flops", level,
                        _("{Model} dense model generates {tokens} tokens (ignore attention over the "
                          "context).").format(**shown), dict(n=n, tokens=tokens), parts, hint)
    return _problem(
        "inference-flops", level,
        _("How many FLOPs does {model} dense model spend generating {tokens} tokens (ignore attention over the "
          "context)?").format(**shown),
        dict(n=n, tokens=tokens), answer, "FLOPs",
        [_("2·N per token = {per_token}").format(**shown), _("× {tokens} = {flops}").format(**shown)], hint)


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
    shown = dict(gpu=gpu, bandwidth=format_bytes(g.bandwidth_bytes_per_s), peak=tflops_text(gpu),
                 sequences=_n(batch, "sequence"), model=_a(_size(n)), per_param=f"{per_param:g}",
                 cache=(_("ignore the KV cache") if not kv else _("each sequence's KV cache is {kv}").format(
                     kv=format_bytes(kv_per_sequence))),
                 n=_size(n), weights=format_bytes(weights), read=format_bytes(weights + kv),
                 flops=format_flops(2 * n * batch), step=f"{step * 1e3:.3g}", batch=batch, rate=f"{answer:,.0f}")
    setup = (_("One {gpu} ({bandwidth}/s memory bandwidth, {peak}) decodes {sequences} at once for {model} model "
               "stored at {per_param} byte a parameter; {cache}.") if per_param == 1 else
             _("One {gpu} ({bandwidth}/s memory bandwidth, {peak}) decodes {sequences} at once for {model} model "
               "stored at {per_param} bytes a parameter; {cache}.")).format(**shown)
    inputs = dict(n=n, bytes_per_param=per_param, batch=batch, kv=kv, bandwidth=g.bandwidth_bytes_per_s,
                  peak=g.bf16_flops_per_s)
    if level == "hard":  # the weights' bytes, the step's time, then the tokens a second
        parts = (Part(_("How many bytes do the weights take? (GB)"), weights, "bytes",
                      (_("weight_bytes(N, bytes_per_param) = {n} × {per_param} = {weights}; {cite}").format(
                          **shown, cite=_(S2_SERVING)),)),
                 Part(_("How many seconds does one decode step take, the longer of reading the weights and cache "
                        "and computing?"), step, "seconds",
                      (_("decode_step_seconds(weights, kv, N, batch, bandwidth, peak) = max({read} / {bandwidth}/s, "
                         "{flops} / {peak}) = {step} ms; {cite}").format(**shown, cite=_(S3_SERVING)),)),
                 Part(_("About how many tokens per second in all?"), answer, "tokens/s",
                      (_("batch / step = {batch} / {step} ms = {rate} tokens/s; {cite}").format(
                          **shown, cite=_(S3_SERVING)),)))
        return _chained("decode-speed", level, setup, inputs, parts,
                        _("Time per step ≈ the longer of bytes read / bandwidth and 2·N·batch / peak."))
    return _problem(
        "decode-speed", level, _("{setup} About how many tokens per second in all?").format(setup=setup),
        inputs, answer, "tokens/s",
        [_("Each step reads the weights and KV cache: {read} / {bandwidth}/s = {ms} ms").format(
            **shown, ms=f"{(weights + kv) / g.bandwidth_bytes_per_s * 1e3:.3g}"),
         _("and computes 2·N·batch = {flops}: {ms} ms").format(
             **shown, ms=f"{2 * n * batch / g.bf16_flops_per_s * 1e3:.3g}"),
         _("The longer bounds the step ({step} ms): {tokens} per step = {rate} tokens/s").format(
             **shown, tokens=_n(batch, "token"))],
        _("Decoding is usually memory-bound: time per step ≈ bytes read / bandwidth; each step yields one token per "
          "sequence."))


@template("serving-gpus", "serving")
def _serving_gpus(rng, level):
    rps = _pick(rng, level, [10, 100], [50, 200, 1000], [75, 400, 2500])
    tokens = _pick(rng, level, [500], [250, 500, 1000], [300, 800, 2000])
    per_replica = _pick(rng, level, [2000], [1500, 3000], [900, 2400, 5200])
    per_replica_gpus = _pick(rng, level, [1], [1, 2], [2, 4, 8])
    answer = c.gpus_for_request_rate(rps, tokens, per_replica, per_replica_gpus)
    replicas = answer // per_replica_gpus
    shown = dict(rps=f"{rps:,}", tokens=f"{tokens:,}", needed=format_int(rps * tokens), per_replica=f"{per_replica:,}",
                 replicas=format_int(replicas), per_replica_gpus=per_replica_gpus, gpus=format_int(answer),
                 replica_gpus=_n(per_replica_gpus, "GPU"))
    service = _("A service gets {rps} requests per second, each generating {tokens} tokens. One replica "
                "({replica_gpus}) produces {per_replica} tokens per second.").format(**shown)
    inputs = dict(rps=rps, tokens=tokens, per_replica=per_replica, gpus_per_replica=per_replica_gpus)
    if level == "hard":
        parts = (Part(_("How many tokens per second must the service produce?"), rps * tokens, "tokens/s",
                      (_("requests_per_s × tokens_per_request = {rps} × {tokens} = {needed}; {cite}").format(
                          **shown, cite=_(S3_SERVING)),)),
                 Part(_("How many replicas at least?"), replicas, "count",
                      (_("{needed} / {per_replica}, rounded up = {replicas}; {cite}").format(
                          **shown, cite=_(S3_SERVING)),), minimum=True),
                 Part(_("How many GPUs at least?"), answer, "GPUs",
                      (_("gpus_for_request_rate(rps, tokens, per_replica, gpus_per_replica) = {replicas} × "
                         "{per_replica_gpus} = {gpus}; {cite}").format(**shown, cite=_(S3_SERVING)),), minimum=True))
        return _chained("serving-gpus", level, service, inputs, parts,
                        _("Tokens per second needed / per replica, rounded up, × GPUs per replica."))
    return _problem(
        "serving-gpus", level, _("{service} How many GPUs at least?").format(service=service), inputs, answer, "GPUs",
        [_("Tokens per second needed: {rps} × {tokens} = {needed}").format(**shown),
         _("Replicas: {needed} / {per_replica}, rounded up = {replicas}").format(**shown),
         _("GPUs: {replicas} × {per_replica_gpus} = {gpus}").format(**shown)],
        _("Tokens per second needed / tokens per second per replica, rounded up, × GPUs per replica."), minimum=True)


@template("serving-cost", "serving")
def _serving_cost(rng, level):
    gpu = _pick(rng, level, ["A100 80GB"], ["A100 80GB", "H100 SXM"], ["H100 SXM", "H200", "B200"])
    gpus = _pick(rng, level, [1, 2], [1, 2, 4], [2, 8])
    tokens_per_s = _pick(rng, level, [1000, 2000], [800, 2500], [1300, 6400])
    price = hardware.price_per_gpu_hour(gpu)
    answer = c.cost_per_million_tokens(price, gpus, tokens_per_s)
    per_hour = tokens_per_s * SECONDS_PER_HOUR
    shown = dict(fleet=_n(gpus, gpu + " GPU"), price=f"{price:g}", rate=f"{tokens_per_s:,}", gpus=gpus,
                 hour=f"{SECONDS_PER_HOUR:,}", per_hour=format_int(per_hour), cost=format_usd(answer),
                 fleet_price=f"{price * gpus:g}")
    serve = (_("{fleet} at ${price} an hour each, together serve {rate} tokens per second.") if gpus > 1 else
             _("{fleet} at ${price} an hour serves {rate} tokens per second.")).format(**shown)
    inputs = dict(price=price, gpus=gpus, tokens_per_s=tokens_per_s)
    hint = _("Hourly price / tokens per hour × 10⁶.")
    if level == "hard":
        parts = (Part(_("How many tokens do they generate in an hour?"), per_hour, "count",
                      (_("{rate} × {hour} s = {per_hour}; {cite}").format(**shown, cite=_(S3_SERVING)),)),
                 Part(_("What does a million generated tokens cost?"), answer, "USD",
                      (_("cost_per_million_tokens(price, gpus, tokens_per_s) = ${price} × {gpus} / {per_hour} × 10⁶ "
                         "= {cost}; {cite}").format(**shown, cite=_(S3_SERVING)),)))
        return _chained("serving-cost", level, serve, inputs, parts, hint)
    return _problem(
        "serving-cost", level, _("{serve} What does a million generated tokens cost?").format(serve=serve),
        inputs, answer, "USD",
        [_("Per hour: ${fleet_price} for {per_hour} tokens").format(**shown),
         _("Per million: {cost}").format(**shown)],
        hint)
