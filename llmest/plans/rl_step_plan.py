"""The time of one step of post-training (``estimate_rl_step``): for PPO and GRPO the rollout, the weight refit and
the training passes, one after the other, as on colocated GPUs (verl's hybrid engine, OpenRLHF's
--colocate_all_models, NeMo RL's colocated generation); for DPO the training alone, on preference pairs already
written. The rollout: each engine prefills its wave (the serving plan's ``estimate_request``) and decodes it until
its longest answer ends, the batch shrinking as answers finish (``formulas.rollout``), at the roofline's speed
scaled by a serving engine's measured efficiency and a rollout's own overhead. The training passes at an MFU
(``formulas.compute.training_seconds``, as the time plan times a run). The step's split between them is the lesson."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..catalog import hardware
from ..core import _validate as v
from ..core.i18n import _
from ..core.report import Report, Shows
from ..display.rl import rl_step_report
from ..formulas.compute import decode_attention_flops_for, flops_params, training_seconds
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.memory import model_weight_bytes
from ..formulas.model import config_from
from ..formulas.rollout import (clipped_exponential_mean, clipped_exponential_mean_square, refit_seconds,
                                wave_decode_bytes, wave_decode_flops, wave_decode_seconds)
from .posttrain_memory import DPO_SEQUENCES_PER_PAIR, MODELS_KEPT
from .serving_plan import RequestEstimate, estimate_request

METHODS = tuple(MODELS_KEPT)    # "dpo", "ppo", "grpo"
# FLOPs a token of each pass, in multiples of N (the matmul parameters, ``flops_params``): a forward is 2N, a
# training pass 6N (Kaplan et al. 2020, arXiv 2001.08361 §2.1), 8N with full recomputation (one more forward:
# Korthikanti et al. 2022, arXiv 2205.05198 §5).
FORWARD, TRAIN, TRAIN_RECOMPUTED = 2, 6, 8
# The passes of a step, each (name, trained, method): the policy's log-probabilities before its update ("policy
# logprobs", a stage of NeMo RL's step time; verl's compute_log_prob), the frozen reference's (DPO's reference
# log-ratio; PPO's and GRPO's KL penalty), the reward model's score (PPO; GRPO here on rule-based rewards, which
# cost no FLOPs, as DeepSeek-R1-Zero was trained: DeepSeek-R1, arXiv 2501.12948, §2.2.2 "Reward Modeling", "To train
# DeepSeek-R1-Zero, we adopt a rule-based reward system"; DeepSeekMath's own GRPO scored with a trained reward model,
# §4.2, one more forward), the critic's values and its update (PPO).
PASSES = {"dpo": (("policy", True), ("reference", False)),
          "ppo": (("policy", True), ("old_log_probs", False), ("reference", False), ("reward", False),
                  ("critic_values", False), ("critic", True)),
          "grpo": (("policy", True), ("old_log_probs", False), ("reference", False))}


# GRPO's answers per prompt: DeepSeekMath (Shao et al. 2024, arXiv 2402.03300) §4.2 "Training and Evaluating
# DeepSeekMath-RL": "For each question, we sample 64 outputs. The max length is set to 1024, and the training batch
# size is 1024." The paper does not say whether the batch counts questions or outputs; read here as outputs,
# 16 prompts × 64 (the defaults).
GRPO_GROUP = 64

# A serving engine's decode speed against the roofline: InferenceBench's concurrency sweep (yobitelcomm.github.io/bench,
# recipes/concurrency-sweep) measured Llama-3.1-8B-Instruct on one H100-80GB-HBM3 with vLLM 0.21.0 in FP16 at a
# time per output token of 6.48 ms (median) for one request at a time; the roofline reads its 16.1 GB of weights at
# 3.35 TB/s in 4.8 ms (``decode_estimate("llama-3-8b", "H100 SXM")``), so vLLM reaches 4.8 / 6.48 = 0.74 of it.
# Beside it, a sweep of the same model on one A100 40GB (vLLM 0.23.0, johnmusgrave.com "vLLM throughput-latency
# sweep on NVIDIA A100") reports 75 tokens/s at one request, "roughly 77% of the GPU's memory-bandwidth ceiling".
DECODE_TPOT_MEASURED_S = 6.48e-3
DECODE_EFFICIENCY = 0.74
# A rollout's decoding takes this many times a serving engine's time for the same wave: the one constant fitted,
# to NeMo RL v0.4's GRPO step of Llama 3.1 8B on 16 H100 (97.7 s; ``findings.post_training``, which refits it and
# holds it against the runs it was not fitted to). What it stands for is not published term by term: a rollout
# engine returns each token's log-probability, samples over the whole vocabulary at temperature 1, runs beside the
# trainer in part of the memory (vLLM's gpu_memory_utilization 0.6 in NeMo RL's recipe) and wakes and sleeps each
# step. The fitted step spends 68% of its time generating, inside the 65-72% that NeMo RL's authors measured for a
# Qwen3-8B GRPO step (arXiv 2604.26779, as summaries of the paper quote it).
ROLLOUT_OVERHEAD = 2.0
# The weight refit from trainer to engines: NeMo RL's NCCL reshard refit moves a dense Qwen3-4B in BF16 (4.0B
# parameters, 8.0 GB) from DP8 training to TP8 engines on H100 in 0.21-0.34 s (docs/design-docs/
# nccl-reshard-refit.md, "Expected Performance"); at the slower end, 23.5 GB/s, taken here as the rate for any model.
REFIT_BYTES_PER_S = 2 * 4.0e9 / 0.34


@dataclass(frozen=True)
class Rollout:
    """One engine's wave and its time, term by term: the answers' lengths, the decode at the roofline, the
    engine's efficiency and the rollout's overhead."""

    lengths: dict            # mean_tokens, mean_square_tokens, max_tokens, longest_tokens (the wave ends with it),
    #                          scale_tokens, clipped_share (``answer_lengths``)
    prefill_s: float         # the wave's prefill (TTFT)
    roofline_s: float        # its decode steps on the roofline: weights read until the longest answer ends, caches
    weights_s: float         # of which reading the weights once a step, (T − 1)·W / bandwidth
    decode_s: float          # roofline_s / decode_efficiency × rollout_overhead

    @property
    def wave_s(self) -> float:
        return self.prefill_s + self.decode_s


@dataclass(frozen=True)
class RLStepEstimate(Shows):
    """One step: the rollout (None for DPO) and its time, the refit, the training passes' FLOPs and time, with the
    settings."""

    settings: dict
    rollout: RequestEstimate | None   # one engine's wave of sequences, prefilled and decoded together
    waves: int                        # waves each engine runs, when its sequences do not fit its memory at once
    rollout_s: float
    tokens: float                     # tokens the training passes read: sequences × (prompt + mean answer)
    flops: dict                       # FLOPs of each pass, all GPUs together
    training_s: float
    wave: Rollout | None = None       # the terms of one wave (None for DPO)
    refit_s: float = 0.0              # the updated weights sent to the engines (none for DPO)

    @property
    def step_s(self) -> float:
        return self.rollout_s + self.refit_s + self.training_s

    @property
    def generation_share(self) -> float:
        """The share of the step spent generating the rollout."""
        return self.rollout_s / self.step_s

    @property
    def tokens_per_s_per_gpu(self) -> float:
        """The tokens trained on per second per GPU over the whole step (NeMo RL's Tokens / sec / GPU)."""
        return self.tokens / self.step_s / self.settings["gpus"]

    def report(self) -> Report:
        return rl_step_report(self)


def _at_least_one_token(name, value):
    """An answer's mean length in tokens: every answer has one at least (the prefill's)."""
    return v.check_number(name, v.check_positive(name, value), low=1)


@v.checked(mean_tokens=_at_least_one_token, max_tokens=v.check_whole, batch=v.check_whole)
def answer_lengths(mean_tokens, max_tokens, batch) -> dict:
    """Answers exponential in length, clipped at ``max_tokens``, with the mean given: the scale θ solved from
    E[L] = θ·(1 − exp(−M/θ)), and the longest of a wave of ``batch``, θ·H_B (the expected largest of B
    exponentials, H_B the B-th harmonic number), at most M. Every answer at M when the mean is M (no scale)."""
    if mean_tokens > max_tokens:
        raise v.InputError("mean_tokens", _("mean_tokens == {mean} must be at most max_tokens ({most}): the "
                                            "answers' mean cannot pass their maximum.").format(mean=mean_tokens,
                                                                                              most=max_tokens))
    if mean_tokens == max_tokens:   # every answer at the maximum: no scale to solve
        return dict(mean_tokens=float(max_tokens), mean_square_tokens=float(max_tokens) ** 2, max_tokens=max_tokens,
                    longest_tokens=float(max_tokens), scale_tokens=None, clipped_share=1.0)
    low, high = mean_tokens, mean_tokens * 1e12    # E[L] rises with θ from 0 towards M
    for _step in range(200):
        scale = math.sqrt(low * high)
        if clipped_exponential_mean(scale, max_tokens, math.exp(-max_tokens / scale)) < mean_tokens:
            low = scale
        else:
            high = scale
    share = math.exp(-max_tokens / scale)
    longest = min(float(max_tokens), scale * math.fsum(1 / k for k in range(1, batch + 1)))
    return dict(mean_tokens=clipped_exponential_mean(scale, max_tokens, share),
                mean_square_tokens=clipped_exponential_mean_square(scale, max_tokens, share), max_tokens=max_tokens,
                longest_tokens=longest, scale_tokens=scale, clipped_share=share)


def _wave(cfg, g, request, lengths, tp, weights, decode_efficiency, rollout_overhead) -> Rollout:
    """One engine's wave (``request``: its prefill and batch) decoded as its answers end (``formulas.rollout``),
    per GPU of the engine: weights split over tp, the cache as ``cache_bytes_per_gpu`` splits it."""
    batch, prompt = request.settings["batch"], request.settings["prompt_tokens"]
    context = max(1, prompt + int(lengths["mean_tokens"]) // 2)
    weight_bytes = model_weight_bytes(cfg, weights) / tp
    kv = cache_bytes_per_gpu(cfg, context, 1, "bf16", tp) / context
    per_token = (2 * flops_params(cfg) + decode_attention_flops_for(cfg, context)) / tp
    decode_bytes = wave_decode_bytes(weight_bytes, kv, batch, prompt, lengths["mean_tokens"],
                                     lengths["mean_square_tokens"], lengths["longest_tokens"])
    flops = wave_decode_flops(per_token, batch, lengths["mean_tokens"])
    roofline = wave_decode_seconds(decode_bytes, flops, g.bandwidth_bytes_per_s, g.bf16_flops_per_s, 1.0)
    weights_s = (lengths["longest_tokens"] - 1) * weight_bytes / g.bandwidth_bytes_per_s
    return Rollout(lengths, request.ttft_s, roofline, weights_s, roofline / decode_efficiency * rollout_overhead)


def _check(method, gpus, rollout_tp, group, prompts):
    v.check_choice("method", method, METHODS)
    v.check_int("prompts", prompts, maximum=int(v.HUGE))
    v.check_int("group", group, maximum=int(v.HUGE))
    if method != "grpo" and group != 1:
        raise v.InputError("group", _("group == {group}, must be 1 for {method}: only GRPO samples a group of "
                                      "answers per prompt.").format(group=group, method=method.upper()))
    if gpus % rollout_tp:
        raise v.InputError("rollout_tp", _("rollout_tp == {tp} must divide the GPUs ({gpus} % {tp} != 0): the "
                                           "engines share the step's GPUs.").format(tp=rollout_tp, gpus=gpus))


@v.checked(recompute=v.check_bool, rollout_tp=v.check_whole, mean_output_tokens=_at_least_one_token,
           decode_efficiency=v.check_fraction, rollout_overhead=v.check_positive, refit_bytes_per_s=v.check_positive,
           refit=v.check_bool, **v.WHOLE)
def estimate_rl_step(model, method="grpo", gpu="H100 SXM", *, gpus=8, prompts=16, group=None, prompt_tokens=512,
                     output_tokens=1024, mfu=0.4, recompute=True, rollout_tp=1, weights="bf16",
                     peak_flops_per_s=None, mean_output_tokens=None, decode_efficiency=DECODE_EFFICIENCY,
                     rollout_overhead=ROLLOUT_OVERHEAD, refit=True,
                     refit_bytes_per_s=REFIT_BYTES_PER_S) -> RLStepEstimate:
    """One step of ``method`` on ``gpus`` GPUs: ``prompts`` prompts (DPO: preference pairs), ``group`` answers each
    (GRPO's G, by default DeepSeekMath's 64; 1 for PPO and DPO), of ``prompt_tokens`` + at most ``output_tokens``
    tokens, ``mean_output_tokens`` on average (None: every answer runs to ``output_tokens``).

    Rollout (PPO, GRPO): gpus / rollout_tp engines share the prompts × group sequences; each prefills its share
    (``estimate_request``) and decodes it in as many waves as its paged KV cache needs at the mean length (vLLM
    allocates blocks as tokens come; the whole GPU's memory less the margin: a colocated engine has less). A wave
    decodes until its longest answer ends, the batch shrinking as answers finish (``answer_lengths``,
    ``formulas.rollout``), on the roofline, at ``decode_efficiency`` of it (a serving engine's, measured) and
    ``rollout_overhead`` times slower again (fitted to NeMo RL). Refit (``refit``): the policy's BF16 weights to the
    engines at ``refit_bytes_per_s``. Training: each pass of ``PASSES`` over the step's tokens, 6N or 8N
    (``recompute``) a token for a trained model, 2N for a forward, at ``mfu`` of the GPUs' dense BF16 peak
    (``peak_flops_per_s`` overrides it)."""
    cfg = config_from(model)
    v.check_choice("method", method, METHODS)
    group = (GRPO_GROUP if method == "grpo" else 1) if group is None else group
    _check(method, gpus, rollout_tp, group, prompts)
    if mean_output_tokens is not None and mean_output_tokens > output_tokens:
        raise v.InputError("mean_output_tokens", _("mean_output_tokens == {mean} must be at most output_tokens "
                                                   "({most}): the answers' mean cannot pass their maximum.").format(
            mean=mean_output_tokens, most=output_tokens))
    g = hardware.gpu(gpu)
    peak = g.bf16_flops_per_s if peak_flops_per_s is None else v.check_positive("peak_flops_per_s", peak_flops_per_s)
    mean = output_tokens if mean_output_tokens is None else mean_output_tokens
    per_prompt = DPO_SEQUENCES_PER_PAIR if method == "dpo" else group
    sequences = prompts * per_prompt
    tokens = sequences * (prompt_tokens + (output_tokens if method == "dpo" else mean))
    n = flops_params(cfg)
    train = TRAIN_RECOMPUTED if recompute else TRAIN
    flops = {name: (train if trained else FORWARD) * n * tokens for name, trained in PASSES[method]}
    training_s = training_seconds(sum(flops.values()), gpus, peak, mfu)
    rollout, wave, waves, rollout_s, refit_s = None, None, 0, 0.0, 0.0
    if method != "dpo":
        engines = gpus // rollout_tp
        each = math.ceil(sequences / engines)
        sized = max(1, math.ceil(mean))  # a sequence's cache at the mean length, as blocks are taken on demand
        probe = estimate_request(cfg, g.name, prompt_tokens=prompt_tokens, output_tokens=sized, tp=rollout_tp,
                                 weights=weights)
        if probe.max_batch == 0:
            raise v.InputError("rollout_tp", _("rollout_tp == {tp}: the {weights} weights of {model} leave no room "
                                               "for a sequence's cache on {tp} × {gpu}; give more.").format(
                tp=rollout_tp, weights=weights, model=cfg.name or _("the model"), gpu=g.name))
        waves = math.ceil(each / probe.max_batch)
        batch = math.ceil(each / waves)
        rollout = estimate_request(cfg, g.name, prompt_tokens=prompt_tokens, output_tokens=sized, batch=batch,
                                   tp=rollout_tp, weights=weights)
        wave = _wave(cfg, g, rollout, answer_lengths(mean, output_tokens, batch), rollout_tp, weights,
                     decode_efficiency, rollout_overhead)
        rollout_s = waves * wave.wave_s
        refit_s = refit_seconds(model_weight_bytes(cfg, "bf16"), refit_bytes_per_s) if refit else 0.0
    settings = dict(model=cfg.name, method=method, gpu=g.name, gpus=gpus, prompts=prompts, group=per_prompt,
                    sequences=sequences, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                    mean_output_tokens=mean, mfu=mfu, recompute=recompute, rollout_tp=rollout_tp, weights=weights,
                    peak_flops_per_s=peak, n_params=n, decode_efficiency=decode_efficiency,
                    rollout_overhead=rollout_overhead, refit=refit, refit_bytes_per_s=refit_bytes_per_s)
    return RLStepEstimate(settings, rollout, waves, rollout_s, tokens, flops, training_s, wave, refit_s)
