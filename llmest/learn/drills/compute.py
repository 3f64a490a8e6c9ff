"""Drill templates on compute and time (chapter 3)."""

from __future__ import annotations

from ...formulas import compute as c
from ...formulas import memory as mem
from ... import plans
from ...core.i18n import N_, _
from ...core.units import (SECONDS_PER_DAY, SECONDS_PER_HOUR, UNITS, format_bytes, format_count, format_flops,
                           format_int, format_number, format_percent, read_in_chinese)
from .problem import (CLUSTER, MFUS, PARAMS, TOKENS, TRAINING_GPUS, Part, _A, _Regenerate, _a, _chained, _n, _pick,
                      _problem, _size, gpu_peak, template, tflops_text)

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S31 = N_("chapter 3, §3.1 (03_flops_and_time.ipynb#cell-id=ac638093)")
S32 = N_("chapter 3, §3.2 (03_flops_and_time.ipynb#cell-id=ff6f76d0)")
S3_BUDGET = N_("chapter 3, The reverse budget (03_flops_and_time.ipynb#cell-id=303ea96b)")
S3_CHECKPOINTS = N_("chapter 3, Checkpoints and data loading (03_flops_and_time.ipynb#cell-id=414a8582)")
HOUR, DAY = f"{SECONDS_PER_HOUR:,}", f"{SECONDS_PER_DAY:,}"
# GPU-hours whole and dollars as the table of units writes them: in Chinese with their 万/亿 reading.
_hours, format_usd = read_in_chinese(format_int), UNITS["USD"].format


def _flops_part(n, tokens) -> Part:
    """Step (a) of a chained training problem: C = training_flops(N, D) = 6·N·D."""
    return Part(_("How many training FLOPs?"), c.training_flops(n, tokens), "FLOPs",
                (_("training_flops(N, D) = 6·N·D = 6 × {n} × {tokens} = {flops}; {cite}").format(
                    n=_size(n), tokens=_size(tokens), flops=format_flops(c.training_flops(n, tokens)), cite=_(S31)),))


def _hours_part(est, gpu, mfu) -> Part:
    return Part(_("How many GPU-hours?"), est.gpu_hours, "GPU-hours",
                (_("gpu_hours(C, peak, mfu) = C / (peak × MFU) / {hour} = {flops} / ({peak} × {mfu}) / {hour} = "
                   "{hours}; {cite}").format(hour=HOUR, flops=format_flops(est.flops), peak=tflops_text(gpu),
                                             mfu=format_percent(mfu, 0), hours=_hours(est.gpu_hours),
                                             cite=_(S32)),))


def _training_run(rng, level):
    n, tokens = _pick(rng, level, *PARAMS), _pick(rng, level, *TOKENS)
    gpu, mfu = _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    return n, tokens, gpu, mfu


def _flops_step(n, tokens):
    return _("FLOPs: 6·N·D = 6 × {n} × {tokens} = {flops}").format(
        n=_size(n), tokens=_size(tokens), flops=format_flops(c.training_flops(n, tokens)))


def _run(n, tokens, gpu, mfu) -> dict:
    """The placeholders of a training run's stem: the model, its tokens, the GPU, its peak and the MFU."""
    return dict(model=_a(_size(n)), Model=_A(_size(n)), tokens=_size(tokens), gpu=gpu, peak=tflops_text(gpu),
                mfu=format_percent(mfu, 0))


def _run_stem(n, tokens, gpu, mfu) -> str:
    return _("{Model} model trains on {tokens} tokens on {gpu} GPUs ({peak} BF16) at {mfu} MFU.").format(
        **_run(n, tokens, gpu, mfu))


@template("training-flops", "compute")
def _training_flops(rng, level):
    n, tokens = _pick(rng, level, *PARAMS), _pick(rng, level, *TOKENS)
    answer = c.training_flops(n, tokens)
    hint = _("2 FLOPs per parameter per token forward, 4 backward: 6·N·D.")
    if level == "hard":
        per_token = c.training_flops(n, 1)
        parts = (Part(_("How many training FLOPs per token?"), per_token, "FLOPs",
                      (_("training_flops(N, 1) = 6·N = 6 × {n} = {flops}; {cite}").format(
                          n=_size(n), flops=format_flops(per_token), cite=_(S31)),)),
                 Part(_("How many for {tokens} tokens?").format(tokens=_size(tokens)), answer, "FLOPs",
                      (_("training_flops(N, D) = 6·N·D = {per_token} × {tokens} = {flops}; {cite}").format(
                          per_token=format_flops(per_token), tokens=_size(tokens), flops=format_flops(answer),
                          cite=_(S31)),)))
        return _chained("training-flops", level,
                        _("{Model} dense model trains on {tokens} tokens.").format(Model=_A(_size(n)),
                                                                                   tokens=_size(tokens)),
                        dict(n=n, tokens=tokens), parts, hint)
    return _problem(
        "training-flops", level,
        _("How many FLOPs does training {model} dense model on {tokens} tokens take?").format(
            model=_a(_size(n)), tokens=_size(tokens)),
        dict(n=n, tokens=tokens), answer, "FLOPs", [_flops_step(n, tokens)], hint)


@template("gpu-hours", "compute")
def _gpu_hours(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    est = plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=mfu)
    flops, answer = est.flops, est.gpu_hours
    inputs = dict(n=n, tokens=tokens, peak=gpu_peak(gpu), mfu=mfu)
    if level == "hard":
        return _chained("gpu-hours", level, _run_stem(n, tokens, gpu, mfu), inputs,
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu)),
                        _("C = 6ND; GPU-hours = C / (peak × MFU) / {hour}.").format(hour=HOUR))
    effective = format_flops(gpu_peak(gpu) * mfu)
    return _problem(
        "gpu-hours", level,
        _("Training {model} model on {tokens} tokens on {gpu} GPUs ({peak} BF16) at {mfu} MFU: how many "
          "GPU-hours?").format(**_run(n, tokens, gpu, mfu)),
        inputs, answer, "GPU-hours",
        [_flops_step(n, tokens),
         _("Effective FLOP/s per GPU: {peak} × {mfu} = {effective}/s").format(
             peak=tflops_text(gpu), mfu=format_percent(mfu, 0), effective=effective),
         _("GPU-seconds: {flops} / {effective}/s = {seconds}").format(
             flops=format_flops(flops), effective=effective, seconds=format_int(est.gpu_seconds)),
         _("/ {hour} = {hours} GPU-hours").format(hour=HOUR, hours=_hours(answer))],
        _("GPU-hours = 6ND / (peak × MFU) / {hour}. Don't forget the {hour}.").format(hour=HOUR))


@template("training-days", "compute")
def _training_days(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    gpus = _pick(rng, level, *CLUSTER)
    est = plans.estimate_time(tokens, n_params=n, gpus=gpus, gpu=gpu, mfu=mfu)
    answer = est.days
    if not 1 <= answer <= 365 or not plans.fits(mem.training_state_bytes(n) / gpus, gpu):
        raise _Regenerate  # a run of less than a day or more than a year, or states that do not fit its GPUs
    inputs = dict(n=n, tokens=tokens, gpus=gpus, peak=gpu_peak(gpu), mfu=mfu)
    if level == "hard":
        days_part = Part(_("How many days on {gpus} of them?").format(gpus=f"{gpus:,}"), answer, "days",
                         (_("training_days(C, gpus, peak, mfu) = C / (GPUs × peak × MFU) / {day} = {flops} / "
                            "({gpus} × {peak} × {mfu}) / {day} = {days} days; {cite}").format(
                             day=DAY, flops=format_flops(est.flops), gpus=f"{gpus:,}", peak=tflops_text(gpu),
                             mfu=format_percent(mfu, 0), days=format_number(answer), cite=_(S32)),))
        return _chained("training-days", level, _run_stem(n, tokens, gpu, mfu), inputs,
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu), days_part),
                        _("C = 6ND; GPU-hours = C / (peak × MFU × {hour}); days = GPU-hours / GPUs / 24.").format(
                            hour=HOUR))
    return _problem(
        "training-days", level,
        _("{gpus} {gpu} GPUs ({peak} BF16) at {mfu} MFU train {model} model on {tokens} tokens. How many "
          "days?").format(**_run(n, tokens, gpu, mfu), gpus=f"{gpus:,}"),
        inputs, answer, "days",
        [_flops_step(n, tokens),
         _("Cluster: {gpus} × {peak} × {mfu} = {flops}/s").format(
             gpus=f"{gpus:,}", peak=tflops_text(gpu), mfu=format_percent(mfu, 0),
             flops=format_flops(gpus * gpu_peak(gpu) * mfu)),
         _("Seconds: {seconds}; / {day} = {days} days").format(seconds=format_int(est.seconds), day=DAY,
                                                               days=format_number(answer))],
        _("days = 6ND / (GPUs × peak × MFU) / {day}.").format(day=DAY))


@template("training-cost", "compute")
def _training_cost(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    est = plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=mfu)   # at the GPU's listed price
    price, hours, answer = est.price_per_gpu_hour, est.gpu_hours, est.cost_usd
    inputs = dict(n=n, tokens=tokens, peak=gpu_peak(gpu), mfu=mfu, price=price)
    if level == "hard":
        cost_part = Part(_("At ${price} per GPU-hour, what does it cost?").format(price=f"{price:g}"), answer, "USD",
                         (_("cost(gpu_hours, price) = {hours} × ${price} = {cost}; {cite}").format(
                             hours=_hours(hours), price=f"{price:g}", cost=format_usd(answer), cite=_(S32)),))
        return _chained("training-cost", level, _run_stem(n, tokens, gpu, mfu), inputs,
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu), cost_part),
                        _("C = 6ND; GPU-hours = C / (peak × MFU × 3,600); cost = GPU-hours × price."))
    return _problem(
        "training-cost", level,
        _("At ${price} per {gpu}-hour ({peak} BF16, {mfu} MFU), what does the GPU time to train {model} model on "
          "{tokens} tokens cost?").format(**_run(n, tokens, gpu, mfu), price=f"{price:g}"),
        inputs, answer, "USD",
        [_flops_step(n, tokens), _("GPU-hours: {hours}").format(hours=_hours(hours)),
         _("× ${price} = {cost}").format(price=f"{price:g}", cost=format_usd(answer))],
        _("Cost = GPU-hours × price; GPU-hours = 6ND / (peak × MFU × {hour}).").format(hour=HOUR))


@template("gpus-for-deadline", "compute")
def _gpus_for_deadline(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    days = _pick(rng, level, [30], [14, 30, 60], [21, 45, 90])
    est = plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=mfu)
    answer = est.gpus_for(days)
    if answer > 20_000 or answer < 2:
        raise _Regenerate  # larger than any cluster of these GPUs, or one GPU (no question)
    inputs = dict(n=n, tokens=tokens, days=days, peak=gpu_peak(gpu), mfu=mfu)
    exact = f"{est.gpu_seconds / (days * SECONDS_PER_DAY):,.1f}"
    if level == "hard":
        gpus_part = Part(_("How many GPUs at least to finish within {days} days?").format(days=days), answer, "GPUs",
                         (_("gpus_for_deadline(C, days, peak, mfu) = GPU-hours / ({days} × 24) = {hours} / "
                            "{day_hours} = {exact}, rounded up: {gpus}; {cite}").format(
                             days=days, hours=_hours(est.gpu_hours), day_hours=f"{days * 24:,}", exact=exact,
                             gpus=_n(answer, "GPU"), cite=_(S32)),), minimum=True)
        return _chained("gpus-for-deadline", level,
                        _("{Model} model must train on {tokens} tokens on {gpu} GPUs ({peak} BF16) at {mfu} "
                          "MFU.").format(**_run(n, tokens, gpu, mfu)), inputs,
                        (_flops_part(n, tokens), _hours_part(est, gpu, mfu), gpus_part),
                        _("C = 6ND; GPU-hours = C / (peak × MFU × 3,600); GPUs = GPU-hours / (days × 24), rounded "
                          "up."))
    return _problem(
        "gpus-for-deadline", level,
        _("You must train {model} model on {tokens} tokens within {days} days on {gpu} GPUs ({peak} BF16) at {mfu} "
          "MFU. How many GPUs at least?").format(**_run(n, tokens, gpu, mfu), days=days),
        inputs, answer, "GPUs",
        [_flops_step(n, tokens),
         _("GPU-seconds: {seconds}").format(seconds=format_int(est.gpu_seconds)),
         _("/ ({days} × {day} s) = {exact}, rounded up: {gpus}").format(days=days, day=DAY, exact=exact,
                                                                        gpus=_n(answer, "GPU"))],
        _("GPUs = GPU-seconds / (days × {day}), rounded up.").format(day=DAY), minimum=True)


@template("reverse-budget", "compute")
def _reverse_budget(rng, level):
    gpus, gpu, mfu = _pick(rng, level, *CLUSTER), _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    days = _pick(rng, level, [30], [30, 60], [21, 45])
    tokens = _pick(rng, level, *TOKENS)
    cluster = plans.estimate_budget(gpus, days, gpu=gpu, mfu=mfu)
    budget, answer = cluster.flops, cluster.affordable_params(tokens)
    have = dict(gpus=f"{gpus:,}", gpu=gpu, peak=tflops_text(gpu), days=days, mfu=format_percent(mfu, 0),
                tokens=_size(tokens), day=DAY, budget=format_flops(budget), n=format_count(answer))
    inputs = dict(gpus=gpus, days=days, peak=gpu_peak(gpu), mfu=mfu, tokens=tokens)
    hint = _("Budget C = GPUs × peak × MFU × seconds; then N = C / (6D).")
    if level == "hard":
        parts = (Part(_("How many FLOPs can they spend?"), budget, "FLOPs",
                      (_("compute_budget(gpus, days, peak, mfu) = {gpus} × {peak} × {mfu} × {days} × {day} s = "
                         "{budget}; {cite}").format(**have, cite=_(S3_BUDGET)),)),
                 Part(_("What is the largest model they can train on {tokens} tokens?").format(**have), answer,
                      "count", (_("affordable_params(C, D) = C / (6·D) = {budget} / (6 × {tokens}) = {n}; "
                                  "{cite}").format(**have, cite=_(S3_BUDGET)),)))
        return _chained("reverse-budget", level,
                        _("You have {gpus} {gpu} GPUs ({peak} BF16) for {days} days at {mfu} MFU.").format(**have),
                        inputs, parts, hint)
    return _problem(
        "reverse-budget", level,
        _("You have {gpus} {gpu} GPUs ({peak} BF16) for {days} days at {mfu} MFU and want {tokens} training "
          "tokens. What is the largest model you can train?").format(**have),
        inputs, answer, "count",
        [_("Budget: {gpus} × {peak} × {mfu} × {days} × {day} s = {budget}").format(**have),
         _("N = C / (6·D) = {budget} / (6 × {tokens}) = {n}").format(**have)],
        hint)


@template("implied-mfu", "compute")
def _implied_mfu(rng, level):
    n, tokens, gpu, true_mfu = _training_run(rng, level)
    # as a paper rounds it
    hours = float(f"{plans.estimate_time(tokens, n_params=n, gpu=gpu, mfu=true_mfu).gpu_hours:.3g}")
    run = plans.estimate_mfu(n, tokens, gpu_hours=hours, gpu=gpu)
    answer = run.mfu
    report = dict(model=_a(_size(n)), tokens=_size(tokens), hours=_hours(hours), gpu=gpu, peak=tflops_text(gpu))
    inputs = dict(n=n, tokens=tokens, hours=hours, peak=gpu_peak(gpu))
    hint = _("MFU = 6ND / (GPU-hours × {hour} × peak).").format(hour=HOUR)
    if level == "hard":
        parts = (_flops_part(n, tokens),
                 Part(_("What MFU does that imply?"), answer, "fraction",
                      (_("implied_mfu(N, D, gpu_hours, peak) = C / (GPU-hours × {hour} × peak) = {flops} / {work} = "
                         "{mfu}; {cite}").format(hour=HOUR, flops=format_flops(run.flops),
                                                 work=format_flops(run.peak_work_flops),
                                                 mfu=format_percent(answer, 1), cite=_(S32)),), tolerance=0.1))
        return _chained("implied-mfu", level,
                        _("A report says {model} model was trained on {tokens} tokens in {hours} {gpu}-hours "
                          "({peak} BF16).").format(**report), inputs, parts, hint)
    return _problem(
        "implied-mfu", level,
        _("A report says {model} model was trained on {tokens} tokens in {hours} {gpu}-hours ({peak} BF16). What "
          "MFU does that imply?").format(**report),
        inputs, answer, "fraction",
        [_flops_step(n, tokens),
         _("Peak work in those hours: {hours} × {hour} × {peak} = {work}").format(
             hours=_hours(hours), hour=HOUR, peak=tflops_text(gpu), work=format_flops(run.peak_work_flops)),
         _("MFU = {mfu}").format(mfu=format_percent(answer, 1))],
        hint, tolerance=0.1)  # 10% of ~40%: about 4 points either way


@template("checkpoint-storage", "compute")
def _checkpoint_storage(rng, level):
    n = _pick(rng, level, *PARAMS)
    run_hours = _pick(rng, level, [24], [24, 72], [100, 240])
    interval = _pick(rng, level, [1], [0.5, 2], [0.5, 3])
    keep = _pick(rng, level, [None], [None, 5], [3, 10])
    answer = c.checkpoint_storage_bytes(n, run_hours, interval, keep)
    saved = int(run_hours // interval) if keep is None else min(int(run_hours // interval), keep)
    per_param = f"{c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g}"
    one = c.checkpoint_bytes(n, c.RESUME_CHECKPOINT_BYTES_PER_PARAM)
    run = dict(Model=_A(_size(n)), hours=run_hours, per_param=per_param, interval=f"{interval:g}",
               kept=_("all of them") if keep is None else _("only the latest {keep}").format(keep=keep))
    inputs = dict(n=n, run_hours=run_hours, interval=interval, keep=keep)
    hint = _("One checkpoint × the number kept; gradients are not saved.")
    if level == "hard":
        parts = (Part(_("How big is one checkpoint? (GB)"), one, "bytes",
                      (_("checkpoint_bytes(N, {per_param}) = {n} × {per_param} bytes = {one}; {cite}").format(
                          per_param=per_param, n=_size(n), one=format_bytes(one), cite=_(S3_CHECKPOINTS)),)),
                 Part(_("How much disk do the kept checkpoints take? (GB)"), answer, "bytes",
                      (_("checkpoint_storage_bytes(N, hours, interval, keep) = {saved} kept × {one} = {disk}; "
                         "{cite}").format(saved=saved, one=format_bytes(one), disk=format_bytes(answer),
                                          cite=_(S3_CHECKPOINTS)),)))
        return _chained("checkpoint-storage", level,
                        _("{Model} run of {hours} hours saves a resumable checkpoint (BF16 weights, fp32 master copy "
                          "and AdamW moments: {per_param} bytes a parameter) every {interval} h and keeps "
                          "{kept}.").format(**run), inputs, parts, hint)
    return _problem(
        "checkpoint-storage", level,
        _("{Model} run of {hours} hours saves a resumable checkpoint (BF16 weights, fp32 master copy and AdamW "
          "moments: {per_param} bytes a parameter) every {interval} h and keeps {kept}. How much disk? "
          "(GB)").format(**run),
        inputs, answer, "bytes",
        [_("One checkpoint: {n} × {per_param} bytes = {one}").format(n=_size(n), per_param=per_param,
                                                                     one=format_bytes(one)),
         _("Checkpoints kept: {saved}").format(saved=saved), _("Disk: {disk}").format(disk=format_bytes(answer))],
        hint)
