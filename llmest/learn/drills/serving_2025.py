"""Drill templates on serving as engines run it (chapter 3): the replicas a load needs by Little's law, the largest
batch that keeps the time per output token (TPOT) within a target, speculative decoding's tokens a step and
speed-up, and the routed experts a MoE decoding step reads."""

from __future__ import annotations

import math

from ...catalog import hardware
from ...core.i18n import N_, _, tidy
from ...core.units import format_bytes, format_number
from ...formulas import capacity, speculative
from ...formulas import compute as c
from ...formulas import model as m
from ...formulas.counting import count_params
from ...formulas.kv_cache import kv_cache_bytes_for
from ...formulas.memory import WEIGHT_FORMATS, model_weight_bytes
from ...formulas.moe_serving import distinct_experts, moe_bytes_read
from ... import plans
from ...plans.memory_plan import usable_bytes
from .problem import Part, _Regenerate, _chained, _n, _pick, _problem, template

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S3_LATENCY = N_("chapter 3, Serving latency: prefill, decode and the largest batch "
                "(03_flops_and_time.ipynb#cell-id=serving-latency)")
S3_ENGINES = N_("chapter 3, Serving as engines run it (03_flops_and_time.ipynb#cell-id=serving-engines)")
# The section the steps cite: the engines' section, where continuous batching, Little's law, speculative decoding and
# MoE serving are taught (the roofline's a and c of TPOT, and the KV cache's room, in the latency section before it).
CITED = S3_ENGINES


def _ms(seconds) -> str:
    """A short time as the steps write it: '4.79 ms'."""
    return _("{ms} ms").format(ms=format_number(seconds * 1e3))


def _whole_below(x) -> int:
    """The largest whole number not above ``x``, read to six decimals (so 199.99999999999997 is 200)."""
    return math.floor(round(x, 6))


# ---- Little's law: replicas for a load ---------------------------------------------------------------------------

@template("replicas-for-load", "serving")
def _replicas_for_load(rng, level):
    rps = _pick(rng, level, [10, 50], [20, 50, 100, 200], [35, 150, 400, 1000])
    output = _pick(rng, level, [200], [200, 500], [150, 400, 1000])
    tpot = _pick(rng, level, [0.04, 0.05], [0.03, 0.05], [0.025, 0.04, 0.06])
    batch = _pick(rng, level, [32, 64], [32, 64, 128], [48, 96, 160])
    tp = _pick(rng, level, [1], [1, 2, 4], [2, 4, 8])
    in_system = output * tpot
    held = capacity.little_concurrency(rps, in_system)
    if abs(held / batch - round(held / batch)) < 1e-6:
        raise _Regenerate  # a load that fills its replicas exactly: a rounding away from one more
    rate = capacity.little_rate(batch, in_system)
    answer = c.gpus_for_request_rate(rps, 1, rate, tp)
    replicas = answer // tp
    shown = dict(rps=f"{rps:,}", output=f"{output:,}", tpot=_ms(tpot), tpot_s=f"{tpot:g}",
                 seconds=format_number(in_system),
                 held=format_number(held), batch=batch, rate=format_number(rate), replicas=f"{replicas:,}", tp=tp,
                 gpus=f"{answer:,}", replica=_n(tp, "GPU"), cite=_(CITED))
    stem = (_("A service gets {rps} requests a second. Each request stays in the server {seconds} s (it generates "
              "{output} tokens, one a step). A replica ({replica}) decodes a batch of {batch} requests at once.")
            if level == "easy" else
            _("A service gets {rps} requests a second, each generating {output} tokens at a TPOT of {tpot} (one "
              "token a step, the request holding its place in the batch until its last token). A replica "
              "({replica}) decodes a batch of {batch} requests at once.")).format(**shown)
    inputs = dict(rps=rps, output_tokens=output, tpot_s=tpot, batch=batch, tp=tp)
    hint = _("Little's law: the requests in the server at once = requests a second × the seconds each spends "
             "there; each replica holds its batch of them.")
    if level == "hard":
        parts = (Part(_("How many requests are in the servers at once?"), held, "count",
                      (_("little_concurrency(requests_per_s, time_in_system_s) = {rps} × {output} × {tpot_s} s = "
                         "{held}; {cite}").format(**shown),)),
                 Part(_("How many replicas at least?"), replicas, "count",
                      (_("replicas = {held} / {batch}, rounded up = {replicas}; {cite}").format(**shown),),
                      minimum=True),
                 Part(_("How many GPUs at least?"), answer, "GPUs",
                      (_("gpus_for_request_rate(rps, 1, little_rate(batch, time_in_system_s), tp) = {replicas} × "
                         "{tp} = {gpus}; {cite}").format(**shown),), minimum=True))
        return _chained("replicas-for-load", level, stem, inputs, parts, hint)
    steps = [] if level == "easy" else [
        _("Time in the server: {output} tokens × {tpot} = {seconds} s").format(**shown)]
    steps += [_("In the server at once (Little's law): {rps} × {seconds} s = {held} requests").format(**shown),
              _("Replicas: {held} / {batch}, rounded up = {replicas}").format(**shown),
              _("GPUs: {replicas} × {tp} = {gpus}").format(**shown)]
    return _problem("replicas-for-load", level, tidy(stem + " " + _("How many GPUs at least?")), inputs, answer,
                    "GPUs", steps, hint, minimum=True)


# ---- the largest batch at a TPOT target ----------------------------------------------------------------------------

TPOT_MODELS = ["llama-3-8b", "qwen3-8b", "mistral-7b"]


@template("batch-at-tpot", "serving")
def _batch_at_tpot(rng, level):
    if level == "hard":
        return _batch_at_tpot_roofline(rng, level)
    base = _pick(rng, level, [0.01, 0.02], [0.006, 0.012, 0.021], None)
    per_sequence = _pick(rng, level, [0.0001, 0.0002], [0.00005, 0.00015, 0.0003], None)
    target = _pick(rng, level, [0.03, 0.05], [0.025, 0.04, 0.06], None)
    room = _pick(rng, level, [40e9, 80e9], [20e9, 40e9, 60e9], None)
    kv = _pick(rng, level, [0.5e9], [0.25e9, 0.5e9, 1e9], None)
    by_time = _whole_below((target - base) / per_sequence)
    by_memory = _whole_below(room / kv)
    answer = min(by_time, by_memory)
    if answer < 2:
        raise _Regenerate
    shown = dict(base=_ms(base), per_sequence=_ms(per_sequence), target=_ms(target), room=format_bytes(room),
                 kv=format_bytes(kv), by_time=f"{by_time:,}", by_memory=f"{by_memory:,}", batch=f"{answer:,}")
    question = _("A replica's decoding step takes TPOT(b) = a + c·b at a batch of b: a = {base} to read the weights, "
                 "c = {per_sequence} more for each sequence's KV cache. Its memory has {room} free for the KV cache, "
                 "{kv} a sequence. What is the largest batch that keeps TPOT within {target}?").format(**shown)
    inputs = dict(base_s=base, per_sequence_s=per_sequence, tpot_s=target, room_bytes=room, kv_bytes=kv)
    steps = [_("Time: a + c·b ≤ {target} gives b ≤ ({target} − {base}) / {per_sequence} = {by_time}").format(
        **shown),
             _("Memory: {room} / {kv} = {by_memory} sequences").format(**shown),
             _("The smaller: {batch}").format(**shown)]
    hint = _("Solve a + c·b ≤ the target for b, then take the smaller of that and the sequences whose KV cache "
             "fits.")
    return _problem("batch-at-tpot", level, question, inputs, answer, "count", steps, hint)


def _batch_at_tpot_roofline(rng, level):
    name = rng.choice(TPOT_MODELS)
    cfg = m.preset(name)
    gpu = rng.choice(["H100 SXM", "H200", "B200"])
    context = rng.choice([2048, 4096, 8192])
    target = rng.choice([0.02, 0.03, 0.05])
    g = hardware.gpu(gpu)
    weights = model_weight_bytes(cfg, "bf16")
    kv = kv_cache_bytes_for(cfg, context)
    base = weights / g.bandwidth_bytes_per_s
    per_sequence = kv / g.bandwidth_bytes_per_s
    room = usable_bytes(gpu) - weights
    by_time = _whole_below((target - base) / per_sequence)
    by_memory = _whole_below(room / kv)
    answer = min(by_time, by_memory)
    if plans.decode_estimate(cfg, gpu, batch=answer, seq_len=context).bound != "memory":
        raise _Regenerate  # compute-bound at that batch: TPOT is no longer a + c·b
    shown = dict(name=name, gpu=gpu, bandwidth=format_bytes(g.bandwidth_bytes_per_s), weights=format_bytes(weights),
                 kv=format_bytes(kv), context=f"{context:,}", target=_ms(target), base=_ms(base),
                 per_sequence=_ms(per_sequence), usable=format_bytes(usable_bytes(gpu)), room=format_bytes(room),
                 by_time=f"{by_time:,}", by_memory=f"{by_memory:,}", batch=f"{answer:,}", cite=_(CITED),
                 roofline=_(S3_LATENCY))
    stem = _("{name} in BF16 ({weights} of weights) decodes on one {gpu} ({bandwidth}/s); each sequence holds "
             "{context} tokens of KV cache on average ({kv}), and the GPU may use {usable}. Decoding is "
             "memory-bound: a step reads the weights and every sequence's cache, so TPOT(b) = a + c·b.").format(
        **shown)
    inputs = dict(weight_bytes=weights, kv_bytes=kv, bandwidth=g.bandwidth_bytes_per_s, usable=usable_bytes(gpu),
                  tpot_s=target)
    parts = (Part(_("How many seconds does a step take to read the weights (a)?"), base, "seconds",
                  (_("a = weights / bandwidth = {weights} / {bandwidth}/s = {base}; {roofline}").format(**shown),)),
             Part(_("How many sequences does the free memory hold?"), by_memory, "count",
                  (_("room = {usable} − {weights} = {room}, / {kv} a sequence = {by_memory}; {roofline}").format(
                      **shown),)),
             Part(_("What is the largest batch that keeps TPOT within {target}?").format(**shown), answer, "count",
                  (_("c = {kv} / {bandwidth}/s = {per_sequence}; b = ({target} − {base}) / {per_sequence} = "
                     "{by_time}, the smaller of it and {by_memory} = {batch}; {cite}").format(**shown),)))
    hint = _("a is the weights' bytes over the bandwidth, c one sequence's cache over it; the batch is also capped by "
             "the sequences whose cache fits.")
    return _chained("batch-at-tpot", level, stem, inputs, parts, hint)


# ---- speculative decoding --------------------------------------------------------------------------------------

@template("speculative-speedup", "serving")
def _speculative_speedup(rng, level):
    acceptance = _pick(rng, level, [0.6, 0.8], [0.5, 0.7, 0.8, 0.9], [0.55, 0.75, speculative.MTP_ACCEPTANCE[0]])
    k = _pick(rng, level, [2, 4], [1, 3, 4, 5], [2, 3, 5, 7])
    draft = _pick(rng, level, [0.05], [0.05, 0.1, 0.2], [0.04, 0.08, 0.15])
    verify = _pick(rng, level, [1.0], [1.0, 1.1], [1.05, 1.2])
    tokens = speculative.tokens_per_step(acceptance, k)
    speedup = speculative.speculative_speedup(acceptance, k, 1.0, verify, draft)
    shown = dict(alpha=f"{acceptance:g}", k=k, k1=k + 1, tokens=format_number(tokens), draft=f"{draft:g}",
                 verify=f"{verify:g}", step=format_number(verify + k * draft), speedup=format_number(speedup),
                 cite=_(CITED))
    stem = _("A draft model proposes {k} tokens; the target model checks them in one step and keeps the longest "
             "prefix it agrees with, plus one token of its own. Each draft token is accepted with probability "
             "{alpha}, independently.").format(**shown)
    cost = _("A draft step costs {draft} of a plain decoding step of the target; the target's step over {k1} "
             "positions costs {verify} of one (decoding reads the weights once, however many positions).").format(
        **shown)
    inputs = dict(acceptance=acceptance, draft_tokens=k, draft_cost=draft, verify_cost=verify,
                  asked="tokens" if level == "easy" else "speedup")
    hint = _("Tokens a step: 1 + α + α² + … + α^k; the speed-up is that over the step's cost in plain steps.")
    per_step = _("(1 − α^(k+1)) / (1 − α) = (1 − {alpha}^{k1}) / (1 − {alpha}) = {tokens} tokens a "
                 "step").format(**shown)
    if level == "hard":
        parts = (Part(_("How many tokens does a step yield on average?"), tokens, "count",
                      (_("tokens_per_step(α, k) = {per_step}; {cite}").format(
                          per_step=per_step, **shown),)),
                 Part(_("How many times as many tokens a second as plain decoding?"), speedup, "count",
                      (_("speculative_speedup = {tokens} / ({verify} + {k} × {draft}) = {speedup}; {cite}").format(
                          **shown),)))
        return _chained("speculative-speedup", level, tidy(stem + " " + cost), inputs, parts, hint)
    if level == "easy":
        return _problem("speculative-speedup", level,
                        tidy(stem + " " + _("How many tokens does a step yield on average?")), inputs, tokens,
                        "count", [per_step], hint)
    return _problem("speculative-speedup", level,
                    tidy(" ".join([stem, cost, _("How many times as many tokens a second as plain decoding?")])),
                    inputs, speedup, "count",
                    [per_step, _("A step costs {verify} + {k} × {draft} = {step} plain steps").format(**shown),
                     _("Speed-up: {tokens} / {step} = {speedup}").format(**shown)], hint)


# ---- the experts a MoE decoding step reads ---------------------------------------------------------------------

# (model, weight format, GPUs of tensor parallelism a replica): DeepSeek-V3 in FP8 on a node of 8 (its published
# weights are FP8, §3.3), the others in BF16 on the fewest H100s that hold them.
MOE_SERVED = {"easy": [("mixtral-8x7b", "bf16", 2), ("deepseek-v3", "fp8", 8)],
              "medium": [("mixtral-8x7b", "bf16", 2), ("qwen3-30b-a3b", "bf16", 1), ("deepseek-v3", "fp8", 8)],
              "hard": [("qwen3-30b-a3b", "bf16", 1), ("deepseek-v3", "fp8", 8)]}


@template("moe-experts-read", "serving")
def _moe_experts_read(rng, level):
    name, weights, tp = rng.choice(MOE_SERVED[level])
    cfg = m.preset(name)
    tokens = _pick(rng, level, [4, 16], [4, 16, 64, 256], [16, 32, 64])
    experts, k, layers = cfg.num_experts, cfg.experts_per_token, cfg.moe_layers
    picked = distinct_experts(experts, k, tokens)
    routed = count_params(cfg)["experts"] * WEIGHT_FORMATS[weights].bytes_per_param
    other = (model_weight_bytes(cfg, weights) - routed) / tp
    each = routed / (layers * experts) / tp
    read = moe_bytes_read(other, each, experts, k, tokens, layers)
    shown = dict(name=name, experts=experts, k=k, layers=layers, tokens=tokens, picked=format_number(picked),
                 tp=tp, on=_n(tp, "GPU"), format=weights.upper(), other=format_bytes(other), each=format_bytes(each),
                 read=format_bytes(read), all=format_bytes(other + layers * experts * each),
                 miss=f"{1 - k / experts:g}", cite=_(CITED))
    stem = _("{name} sends each token to {k} of the {experts} routed experts of each of its {layers} MoE layers, "
             "routing spread evenly. A decoding step carries {tokens} tokens.").format(**shown)
    inputs = dict(experts=experts, top_k=k, tokens=tokens, moe_layers=layers, other_bytes=other, expert_bytes=each,
                  asked={"easy": "experts", "hard": "bytes"}.get(level) or rng.choice(["experts", "bytes"]))
    hint = _("An expert is left out by one token with probability 1 − k/E, by all b tokens with (1 − k/E)^b.")
    experts_step = _("E · (1 − (1 − k/E)^b) = {experts} × (1 − {miss}^{tokens}) = {picked} experts a "
                     "layer").format(**shown)
    spread = _("It runs in {format} on {on} of tensor parallelism: each GPU reads {other} of weights outside the "
               "routed experts and {each} of each routed expert a layer.").format(**shown)
    bytes_step = _("{other} + {layers} × {picked} × {each} = {read} a GPU (all experts: {all})").format(**shown)
    if level == "hard":
        parts = (Part(_("How many distinct routed experts a layer do the step's tokens pick, on average?"), picked,
                      "count", (_("distinct_experts(experts, top_k, tokens) = {step}; {cite}").format(
                          step=experts_step, **shown),)),
                 Part(_("How many GB of weights does each GPU read in the step?"), read, "bytes",
                      (_("moe_bytes_read(other_bytes, expert_bytes, experts, top_k, tokens, moe_layers) = {step}; "
                         "{cite}").format(step=bytes_step, **shown),)))
        return _chained("moe-experts-read", level, tidy(stem + " " + spread), inputs, parts, hint)
    if inputs["asked"] == "experts":
        return _problem("moe-experts-read", level, tidy(stem + " " + _(
            "How many distinct routed experts a layer do the step's tokens pick, on average?")), inputs, picked,
            "count", [experts_step], hint)
    return _problem("moe-experts-read", level, tidy(" ".join([stem, spread, _(
        "How many GB of weights does each GPU read in the step?")])), inputs, read, "bytes",
        [experts_step, bytes_step], hint)
