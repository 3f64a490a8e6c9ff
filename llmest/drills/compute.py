"""Drill templates on compute and time (chapter 3)."""

from __future__ import annotations

from .. import compute as c
from .. import memory as mem
from .. import plans
from ..units import (SECONDS_PER_DAY, SECONDS_PER_HOUR, format_bytes, format_count, format_flops, format_int,
                     format_number, format_percent, format_usd)
from .problem import (CLUSTER, MFUS, PARAMS, TOKENS, TRAINING_GPUS, Part, _A, _Regenerate, _a, _chained, _n, _pick,
                      _problem, _size, gpu_peak, template, tflops_text)

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S31 = "chapter 3, §3.1 (03_flops_and_time.ipynb#cell-id=ac638093)"
S32 = "chapter 3, §3.2 (03_flops_and_time.ipynb#cell-id=ff6f76d0)"
S3_BUDGET = "chapter 3, The reverse budget (03_flops_and_time.ipynb#cell-id=303ea96b)"
S3_CHECKPOINTS = "chapter 3, Checkpoints and data loading (03_flops_and_time.ipynb#cell-id=414a8582)"


def _flops_part(n, tokens) -> Part:
    """Step (a) of a chained training problem: C = training_flops(N, D) = 6·N·D."""
    return Part("How many training FLOPs?", c.training_flops(n, tokens), "FLOPs",
                (f"training_flops(N, D) = 6·N·D = 6 × {_size(n)} × {_size(tokens)} = "
                 f"{format_flops(c.training_flops(n, tokens))}; {S31}",))


def _hours_part(est, gpu, mfu) -> Part:
    return Part("How many GPU-hours?", est.gpu_hours, "GPU-hours",
                (f"gpu_hours(C, peak, mfu) = C / (peak × MFU) / {SECONDS_PER_HOUR:,} = {format_flops(est.flops)} / "
                 f"({tflops_text(gpu)} × {format_percent(mfu, 0)}) / {SECONDS_PER_HOUR:,} = "
                 f"{format_int(est.gpu_hours)}; {S32}",))


def _training_run(rng, level):
    n, tokens = _pick(rng, level, *PARAMS), _pick(rng, level, *TOKENS)
    gpu, mfu = _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    return n, tokens, gpu, mfu


def _flops_step(n, tokens):
    return f"FLOPs: 6·N·D = 6 × {_size(n)} × {_size(tokens)} = {format_flops(c.training_flops(n, tokens))}"


@template("training-flops", "compute")
def _training_flops(rng, level):
    n, tokens = _pick(rng, level, *PARAMS), _pick(rng, level, *TOKENS)
    answer = c.training_flops(n, tokens)
    if level == "hard":
        per_token = c.training_flops(n, 1)
        parts = (Part("How many training FLOPs per token?", per_token, "FLOPs",
                      (f"training_flops(N, 1) = 6·N = 6 × {_size(n)} = {format_flops(per_token)}; {S31}",)),
                 Part(f"How many for {_size(tokens)} tokens?", answer, "FLOPs",
                      (f"training_flops(N, D) = 6·N·D = {format_flops(per_token)} × {_size(tokens)} = "
                       f"{format_flops(answer)}; {S31}",)))
        return _chained("training-flops", level, f"{_A(_size(n))} dense model trains on {_size(tokens)} tokens.",
                        dict(n=n, tokens=tokens), parts, "2 FLOPs per parameter per token forward, 4 backward: 6·N·D.")
    return _problem(
        "training-flops", level,
        f"How many FLOPs does training {_a(_size(n))} dense model on {_size(tokens)} tokens take?",
        dict(n=n, tokens=tokens), answer, "FLOPs", [_flops_step(n, tokens)],
        "2 FLOPs per parameter per token forward, 4 backward: 6·N·D.")


@template("gpu-hours", "compute")
def _gpu_hours(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    est = plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=mfu)
    flops, answer = est.flops, est.gpu_hours
    if level == "hard":
        return _chained("gpu-hours", level, f"{_A(_size(n))} model trains on {_size(tokens)} tokens on {gpu} GPUs "
                                            f"({tflops_text(gpu)} BF16) at {format_percent(mfu, 0)} MFU.",
                        dict(n=n, tokens=tokens, peak=gpu_peak(gpu), mfu=mfu),
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu)),
                        f"C = 6ND; GPU-hours = C / (peak × MFU) / {SECONDS_PER_HOUR:,}.")
    return _problem(
        "gpu-hours", level,
        f"Training {_a(_size(n))} model on {_size(tokens)} tokens on {gpu} GPUs ({tflops_text(gpu)} BF16) "
        f"at {format_percent(mfu, 0)} MFU: how many GPU-hours?",
        dict(n=n, tokens=tokens, peak=gpu_peak(gpu), mfu=mfu), answer, "GPU-hours",
        [_flops_step(n, tokens),
         f"Effective FLOP/s per GPU: {tflops_text(gpu)} × {format_percent(mfu, 0)} = "
         f"{format_flops(gpu_peak(gpu) * mfu)}/s",
         f"GPU-seconds: {format_flops(flops)} / {format_flops(gpu_peak(gpu) * mfu)}/s = "
         f"{format_int(est.gpu_seconds)}",
         f"/ {SECONDS_PER_HOUR:,} = {format_int(answer)} GPU-hours"],
        f"GPU-hours = 6ND / (peak × MFU) / {SECONDS_PER_HOUR:,}. Don't forget the {SECONDS_PER_HOUR:,}.")


@template("training-days", "compute")
def _training_days(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    gpus = _pick(rng, level, *CLUSTER)
    est = plans.estimate_time(tokens, n_params=n, gpus=gpus, gpu=gpu, mfu=mfu)
    answer = est.days
    if not 1 <= answer <= 365 or not plans.fits(mem.training_state_bytes(n) / gpus, gpu):
        raise _Regenerate  # a run of less than a day or more than a year, or states that do not fit its GPUs
    if level == "hard":
        days_part = Part(f"How many days on {gpus:,} of them?", answer, "days",
                         (f"training_days(C, gpus, peak, mfu) = C / (GPUs × peak × MFU) / {SECONDS_PER_DAY:,} = "
                          f"{format_flops(est.flops)} / ({gpus:,} × {tflops_text(gpu)} × {format_percent(mfu, 0)}) / "
                          f"{SECONDS_PER_DAY:,} = {format_number(answer)} days; {S32}",))
        return _chained("training-days", level, f"{_A(_size(n))} model trains on {_size(tokens)} tokens on {gpu} GPUs "
                                                f"({tflops_text(gpu)} BF16) at {format_percent(mfu, 0)} MFU.",
                        dict(n=n, tokens=tokens, gpus=gpus, peak=gpu_peak(gpu), mfu=mfu),
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu), days_part),
                        f"C = 6ND; GPU-hours = C / (peak × MFU × {SECONDS_PER_HOUR:,}); days = GPU-hours / GPUs / 24.")
    return _problem(
        "training-days", level,
        f"{gpus:,} {gpu} GPUs ({tflops_text(gpu)} BF16) at {format_percent(mfu, 0)} MFU train {_a(_size(n))} model on "
        f"{_size(tokens)} tokens. How many days?",
        dict(n=n, tokens=tokens, gpus=gpus, peak=gpu_peak(gpu), mfu=mfu), answer, "days",
        [_flops_step(n, tokens),
         f"Cluster: {gpus:,} × {tflops_text(gpu)} × {format_percent(mfu, 0)} = "
         f"{format_flops(gpus * gpu_peak(gpu) * mfu)}/s",
         f"Seconds: {format_int(est.seconds)}; / {SECONDS_PER_DAY:,} = {format_number(answer)} days"],
        f"days = 6ND / (GPUs × peak × MFU) / {SECONDS_PER_DAY:,}.")


@template("training-cost", "compute")
def _training_cost(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    est = plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=mfu)   # at the GPU's listed price
    price, hours, answer = est.price_per_gpu_hour, est.gpu_hours, est.cost_usd
    if level == "hard":
        cost_part = Part(f"At ${price:g} per GPU-hour, what does it cost?", answer, "USD",
                         (f"cost(gpu_hours, price) = {format_int(hours)} × ${price:g} = {format_usd(answer)}; {S32}",))
        return _chained("training-cost", level, f"{_A(_size(n))} model trains on {_size(tokens)} tokens on {gpu} GPUs "
                                                f"({tflops_text(gpu)} BF16) at {format_percent(mfu, 0)} MFU.",
                        dict(n=n, tokens=tokens, peak=gpu_peak(gpu), mfu=mfu, price=price),
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu), cost_part),
                        "C = 6ND; GPU-hours = C / (peak × MFU × 3,600); cost = GPU-hours × price.")
    return _problem(
        "training-cost", level,
        f"At ${price:g} per {gpu}-hour ({tflops_text(gpu)} BF16, {format_percent(mfu, 0)} MFU), what does the GPU time "
        "to train "
        f"{_a(_size(n))} model on {_size(tokens)} tokens cost?",
        dict(n=n, tokens=tokens, peak=gpu_peak(gpu), mfu=mfu, price=price), answer, "USD",
        [_flops_step(n, tokens), f"GPU-hours: {format_int(hours)}",
         f"× ${price:g} = {format_usd(answer)}"],
        f"Cost = GPU-hours × price; GPU-hours = 6ND / (peak × MFU × {SECONDS_PER_HOUR:,}).")


@template("gpus-for-deadline", "compute")
def _gpus_for_deadline(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    days = _pick(rng, level, [30], [14, 30, 60], [21, 45, 90])
    est = plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=mfu)
    answer = est.gpus_for(days)
    if answer > 20_000:
        raise _Regenerate  # larger than any cluster of these GPUs
    if level == "hard":
        gpus_part = Part(f"How many GPUs at least to finish within {days} days?", answer, "GPUs",
                         (f"gpus_for_deadline(C, days, peak, mfu) = GPU-hours / ({days} × 24) = "
                          f"{format_int(est.gpu_hours)} / {days * 24:,} = "
                          f"{est.gpu_seconds / (days * SECONDS_PER_DAY):,.1f}, rounded up: {_n(answer, 'GPU')}; "
                          f"{S32}",), minimum=True)
        return _chained("gpus-for-deadline", level,
                        f"{_A(_size(n))} model must train on {_size(tokens)} tokens on {gpu} GPUs "
                        f"({tflops_text(gpu)} BF16) at {format_percent(mfu, 0)} MFU.",
                        dict(n=n, tokens=tokens, days=days, peak=gpu_peak(gpu), mfu=mfu),
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu), gpus_part),
                        "C = 6ND; GPU-hours = C / (peak × MFU × 3,600); GPUs = GPU-hours / (days × 24), rounded up.")
    return _problem(
        "gpus-for-deadline", level,
        f"You must train {_a(_size(n))} model on {_size(tokens)} tokens within {days} days on {gpu} GPUs "
        f"({tflops_text(gpu)} BF16) at {format_percent(mfu, 0)} MFU. How many GPUs at least?",
        dict(n=n, tokens=tokens, days=days, peak=gpu_peak(gpu), mfu=mfu), answer, "GPUs",
        [_flops_step(n, tokens),
         f"GPU-seconds: {format_int(est.gpu_seconds)}",
         f"/ ({days} × {SECONDS_PER_DAY:,} s) = {est.gpu_seconds / (days * SECONDS_PER_DAY):,.1f}, rounded up: "
         f"{_n(answer, 'GPU')}"],
        f"GPUs = GPU-seconds / (days × {SECONDS_PER_DAY:,}), rounded up.", minimum=True)


@template("reverse-budget", "compute")
def _reverse_budget(rng, level):
    gpus, gpu, mfu = _pick(rng, level, *CLUSTER), _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    days = _pick(rng, level, [30], [30, 60], [21, 45])
    tokens = _pick(rng, level, *TOKENS)
    cluster = plans.estimate_budget(gpus, days, gpu=gpu, mfu=mfu)
    budget, answer = cluster.flops, cluster.affordable_params(tokens)
    if level == "hard":
        parts = (Part("How many FLOPs can they spend?", budget, "FLOPs",
                      (f"compute_budget(gpus, days, peak, mfu) = {gpus:,} × {tflops_text(gpu)} × "
                       f"{format_percent(mfu, 0)} × {days} × {SECONDS_PER_DAY:,} s = {format_flops(budget)}; "
                       f"{S3_BUDGET}",)),
                 Part(f"What is the largest model they can train on {_size(tokens)} tokens?", answer, "count",
                      (f"affordable_params(C, D) = C / (6·D) = {format_flops(budget)} / (6 × {_size(tokens)}) = "
                       f"{format_count(answer)}; {S3_BUDGET}",)))
        return _chained("reverse-budget", level, f"You have {gpus:,} {gpu} GPUs ({tflops_text(gpu)} BF16) for {days} "
                                                 f"days at {format_percent(mfu, 0)} MFU.",
                        dict(gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu, tokens=tokens), parts,
                        "Budget C = GPUs × peak × MFU × seconds; then N = C / (6D).")
    return _problem(
        "reverse-budget", level,
        f"You have {gpus:,} {gpu} GPUs ({tflops_text(gpu)} BF16) for {days} days at {format_percent(mfu, 0)} MFU and "
        "want "
        f"{_size(tokens)} training tokens. What is the largest model you can train?",
        dict(gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu, tokens=tokens), answer, "count",
        [f"Budget: {gpus:,} × {tflops_text(gpu)} × {format_percent(mfu, 0)} × {days} × {SECONDS_PER_DAY:,} s = "
         f"{format_flops(budget)}",
         f"N = C / (6·D) = {format_flops(budget)} / (6 × {_size(tokens)}) = {format_count(answer)}"],
        "Budget C = GPUs × peak × MFU × seconds; then N = C / (6D).")


@template("implied-mfu", "compute")
def _implied_mfu(rng, level):
    n, tokens, gpu, true_mfu = _training_run(rng, level)
    # as a paper rounds it
    hours = float(f"{plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=true_mfu).gpu_hours:.3g}")
    run = plans.estimate_mfu(n, tokens, gpu_hours=hours, gpu=gpu)
    answer = run.mfu
    if level == "hard":
        parts = (_flops_part(n, tokens),
                 Part("What MFU does that imply?", answer, "fraction",
                      (f"implied_mfu(N, D, gpu_hours, peak) = C / (GPU-hours × {SECONDS_PER_HOUR:,} × peak) = "
                       f"{format_flops(run.flops)} / {format_flops(run.peak_work_flops)} = "
                       f"{format_percent(answer, 1)}; {S32}",), tolerance=0.1))
        return _chained("implied-mfu", level,
                        f"A report says {_a(_size(n))} model was trained on {_size(tokens)} tokens in "
                        f"{format_int(hours)} {gpu}-hours ({tflops_text(gpu)} BF16).",
                        dict(n=n, tokens=tokens, hours=hours, peak=gpu_peak(gpu)), parts,
                        f"MFU = 6ND / (GPU-hours × {SECONDS_PER_HOUR:,} × peak).")
    return _problem(
        "implied-mfu", level,
        f"A report says {_a(_size(n))} model was trained on {_size(tokens)} tokens in "
        f"{format_int(hours)} {gpu}-hours ({tflops_text(gpu)} BF16). What MFU does that imply?",
        dict(n=n, tokens=tokens, hours=hours, peak=gpu_peak(gpu)), answer, "fraction",
        [_flops_step(n, tokens),
         f"Peak work in those hours: {format_int(hours)} × {SECONDS_PER_HOUR:,} × {tflops_text(gpu)} = "
         f"{format_flops(run.peak_work_flops)}",
         f"MFU = {format_percent(answer, 1)}"],
        f"MFU = 6ND / (GPU-hours × {SECONDS_PER_HOUR:,} × peak).",
        tolerance=0.1)  # 10% of ~40%: about 4 points either way


@template("checkpoint-storage", "compute")
def _checkpoint_storage(rng, level):
    n = _pick(rng, level, *PARAMS)
    run_hours = _pick(rng, level, [24], [24, 72], [100, 240])
    interval = _pick(rng, level, [1], [0.5, 2], [0.5, 3])
    keep = _pick(rng, level, [None], [None, 5], [3, 10])
    answer = c.checkpoint_storage_bytes(n, run_hours, interval, keep)
    saved = int(run_hours // interval) if keep is None else min(int(run_hours // interval), keep)
    kept = "all of them" if keep is None else f"only the latest {keep}"
    if level == "hard":
        one = c.checkpoint_bytes(n, c.RESUME_CHECKPOINT_BYTES_PER_PARAM)
        parts = (Part("How big is one checkpoint? (GB)", one, "bytes",
                      (f"checkpoint_bytes(N, {c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g}) = {_size(n)} × "
                       f"{c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g} bytes = {format_bytes(one)}; {S3_CHECKPOINTS}",)),
                 Part("How much disk do the kept checkpoints take? (GB)", answer, "bytes",
                      (f"checkpoint_storage_bytes(N, hours, interval, keep) = {saved} kept × {format_bytes(one)} = "
                       f"{format_bytes(answer)}; {S3_CHECKPOINTS}",)))
        return _chained("checkpoint-storage", level,
                        f"{_A(_size(n))} run of {run_hours} hours saves a resumable checkpoint (BF16 weights, fp32 "
                        f"master copy and AdamW moments: {c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g} bytes a parameter) "
                        f"every {interval:g} h and keeps {kept}.",
                        dict(n=n, run_hours=run_hours, interval=interval, keep=keep), parts,
                        "One checkpoint × the number kept; gradients are not saved.")
    return _problem(
        "checkpoint-storage", level,
        f"{_A(_size(n))} run of {run_hours} hours saves a resumable checkpoint (BF16 weights, fp32 master copy "
        f"and AdamW moments: {c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g} bytes a parameter) every {interval:g} h and keeps "
        f"{kept}. How much disk? (GB)",
        dict(n=n, run_hours=run_hours, interval=interval, keep=keep), answer, "bytes",
        [f"One checkpoint: {_size(n)} × {c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g} bytes = "
         f"{format_bytes(c.checkpoint_bytes(n, c.RESUME_CHECKPOINT_BYTES_PER_PARAM))}",
         f"Checkpoints kept: {saved}", f"Disk: {format_bytes(answer)}"],
        "One checkpoint × the number kept; gradients are not saved.")
