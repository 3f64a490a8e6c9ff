"""Time plans: a training run's FLOPs -> GPU-hours -> days -> margin -> cost (``estimate_time``; for LoRA
fine-tuning ``estimate_finetune_time``), the MFU a published run implies (``estimate_mfu``), and the material's
``estimate_training`` (time and memory together). Each checks every input it takes."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..core import _validate as v
from ..catalog import hardware
from ..formulas.compute import (TIME_MARGIN, attention_flops_per_token_for, cost, flops_params, flops_params_note,
                                gpu_hours, gpu_seconds, gpus_for_deadline, implied_mfu, lora_training_flops_per_token,
                                training_days, training_flops, training_seconds)
from ..core.report import Report, Shows
from ..display.time import mfu_report, time_report, training_report
from ..formulas.memory import LORA_TARGETS, MEMORY_MARGIN, lora_params
from ..core.i18n import _
from ..core.units import SECONDS_PER_DAY, SECONDS_PER_HOUR, format_percent

# The material's time margin as every surface spells it: "15%-25%".
TIME_MARGIN_TEXT = "-".join(format_percent(margin, 0) for margin in TIME_MARGIN)
from ..formulas.model import config_from
from ..formulas.precision import matmul_peak_flops_per_s, recipe
from .memory_plan import MemoryBreakdown, training_memory, usable_bytes
from .precision_time import recipe_gemm_speedup


@dataclass(frozen=True)
class TimeEstimate(Shows):
    """A training run's FLOPs, GPU-hours, days and cost, with every input it assumed."""

    n_params: float             # the N of the FLOPs (for fine-tuning, of the frozen base)
    n_params_from: str          # "" when N was given; else what N counts for the model
    tokens: float
    gpus: int
    gpu: str                    # "" for a GPU known only by its peak
    peak_flops_per_s: float
    mfu: float
    price_per_gpu_hour: float | None  # None: no price listed for the GPU and none given
    flops: float
    gpu_hours: float
    days: float
    attention_flops: float = 0.0   # the attention scores and values, when a sequence length was given
    seq_len: int | None = None
    price_listed: bool = True      # the GPU's listed price (hardware.PRICE_PER_GPU_HOUR), not one given
    # Under a precision recipe (formulas.precision): ``mfu`` is then the run's MFU against the BF16 peak, and
    # ``bf16_mfu`` the MFU given, of the same run with BF16 matmuls; the low-precision FLOPs (the blocks' matmuls)
    # run ``gemm_speedup`` times faster, their peak ``low_peak_flops_per_s``.
    precision: str = ""
    bf16_mfu: float | None = None
    gemm_speedup: float = 1.0
    low_precision_flops: float = 0.0
    low_peak_flops_per_s: float | None = None

    def report(self) -> Report:
        return time_report(self)

    @property
    def matmul_flops(self) -> float:
        """6·N·D: the products with weights (all of ``flops`` unless the attention term was counted)."""
        return self.flops - self.attention_flops

    @property
    def mfu_without_attention(self) -> float:
        """The same run's MFU counted on 6·N·D alone, as most published MFUs are (PaLM reports both: 46.2% with the
        attention FLOPs, 45.7% without); equal to ``mfu`` when no sequence length was given."""
        return self.mfu * self.matmul_flops / self.flops

    @property
    def days_with_margin(self) -> tuple:
        """Days with the material's time margin (TIME_MARGIN) for checkpoints, evaluation and restarts."""
        return tuple(self.days * (1 + margin) for margin in TIME_MARGIN)

    @property
    def cost_usd(self) -> float | None:
        """None where the estimate has no price (a GPU with none listed, and none given)."""
        return None if self.price_per_gpu_hour is None else cost(self.gpu_hours, self.price_per_gpu_hour)

    def cost_at(self, price_per_gpu_hour) -> float:
        """The same GPU-hours at another price (a range of cloud prices)."""
        return cost(self.gpu_hours, price_per_gpu_hour)

    @property
    def gpu_seconds(self) -> float:
        return gpu_seconds(self.flops, self.peak_flops_per_s, self.mfu)

    @property
    def seconds(self) -> float:
        """Wall-clock seconds on the run's GPUs."""
        return training_seconds(self.flops, self.gpus, self.peak_flops_per_s, self.mfu)

    def days_on(self, gpus, mfu=None) -> float:
        """Days for the same run on another number of GPUs, and at another MFU if given (a calculator's curve)."""
        mfu = self.mfu if mfu is None else v.check_number("mfu", mfu, low=0, high=1, low_open=True)
        return training_days(self.flops, v.check_int("gpus", gpus), self.peak_flops_per_s, mfu)

    def gpus_for(self, days) -> int:
        """The fewest GPUs of the run's kind that finish it within ``days``."""
        return gpus_for_deadline(self.flops, v.check_positive("days", days), self.peak_flops_per_s, self.mfu)


DEFAULT_GPU = "A100 80GB"  # the material's GPU, where a plan is given neither a GPU nor a peak


def _peak(gpu, peak_flops_per_s) -> float:
    g = hardware.gpu(gpu)
    if peak_flops_per_s is None:
        return g.bf16_flops_per_s
    return v.check_positive("peak_flops_per_s", peak_flops_per_s)


@v.checked(**v.WHOLE)
def estimate_time(tokens, *, n_params=None, model=None, gpus=1, gpu=None, mfu=0.4, peak_flops_per_s=None,
                  price_per_gpu_hour=None, seq_len=None, precision=None) -> TimeEstimate:
    """Training FLOPs (6·N·D), GPU-hours, days on ``gpus`` GPUs and the cost. N is ``n_params`` as given, or a
    model's matmul weights (``flops_params``: a little less than its parameter count). With ``seq_len`` (and a
    model) the attention FLOPs of that sequence length are added (``compute.attention_flops_per_token_for``), and
    ``mfu`` is then read as counting them too. ``gpu`` (default the A100 80GB) gives the dense BF16 peak and the
    listed price (``hardware.PRICE_PER_GPU_HOUR``); ``peak_flops_per_s`` overrides the peak, and without ``gpu`` it
    stands for a GPU of that peak with no name and no listed price; ``price_per_gpu_hour`` overrides the price.
    Without a price (none given, none listed) the estimate has hours and days but no cost.

    ``precision``: a recipe of ``formulas.precision`` ("fp8-te", "fp8-deepseek", "mxfp8", "nvfp4"). ``mfu`` is then
    the same run's MFU with BF16 matmuls, and the matmuls the recipe runs in low precision (6·N·D less the output
    layer, which every recipe keeps in BF16; with ``n_params`` alone, all of 6·N·D) run
    ``precision_time.recipe_gemm_speedup`` times faster on the GPU: the estimate's ``mfu`` is the MFU that follows,
    against the BF16 peak, and its report gives it against the recipe's peak too."""
    if (n_params is None) == (model is None):
        given = _("both were given") if model is not None else _("neither was given")
        raise v.InputError("n_params", _("give n_params (e.g. 7e9) or model (a preset or config), not both: "
                                         "{given}.").format(given=given))
    if seq_len is not None and model is None:
        raise v.InputError("seq_len", _("seq_len == {seq_len} needs model: the attention FLOPs depend on its layers, "
                                        "heads and head widths, which a parameter count does not give.").format(
            seq_len=f"{seq_len:,}"))
    n, note = (n_params, "") if model is None else (flops_params(model), flops_params_note(model))
    attention = 0.0 if seq_len is None else attention_flops_per_token_for(model, seq_len) * tokens
    est = _time(training_flops(n, tokens) + attention, n, note, tokens, gpus, gpu, mfu, peak_flops_per_s,
                price_per_gpu_hour)
    est = dataclasses.replace(est, attention_flops=attention, seq_len=seq_len)
    return est if precision is None else _under(est, precision, model, gpu)


def _under(est: TimeEstimate, precision, model, gpu) -> TimeEstimate:
    """The estimate with the recipe's low-precision matmuls sped up (``estimate_time``'s ``precision``)."""
    if gpu is None and not est.gpu:
        raise v.InputError("precision", _("precision == {value} needs gpu: the speedup of its matmuls depends on the "
                                          "GPU's tensor cores, which a peak alone does not give.").format(
            value=v.quote(precision)))
    r, g = recipe(precision), hardware.gpu(gpu or est.gpu)
    speedup = recipe_gemm_speedup(r, g)
    cfg = None if model is None else config_from(model)
    head = 0.0 if cfg is None else 6 * cfg.hidden_size * cfg.vocab_size * est.tokens  # the output layer stays BF16
    low = max(est.matmul_flops - head, 0.0)
    mfu = est.mfu * est.flops / (low / speedup + est.flops - low)
    return dataclasses.replace(est, mfu=mfu, gpu_hours=gpu_hours(est.flops, est.peak_flops_per_s, mfu),
                               days=training_days(est.flops, est.gpus, est.peak_flops_per_s, mfu), precision=r.name,
                               bf16_mfu=est.mfu, gemm_speedup=speedup, low_precision_flops=low,
                               low_peak_flops_per_s=matmul_peak_flops_per_s(r, g))


def _time(flops, n, note, tokens, gpus, gpu, mfu, peak_flops_per_s, price_per_gpu_hour) -> TimeEstimate:
    if gpu is None and peak_flops_per_s is None:
        gpu = DEFAULT_GPU
    if gpu is None:  # a GPU known only by its peak: no name, and no price but one given
        peak = v.check_positive("peak_flops_per_s", peak_flops_per_s)
        price = None if price_per_gpu_hour is None else v.check_number("price_per_gpu_hour", price_per_gpu_hour, low=0)
        listed, name = False, ""
    else:
        peak = _peak(gpu, peak_flops_per_s)
        price, listed = hardware.gpu_price(gpu, price_per_gpu_hour)
        name = hardware.gpu(gpu).name
    return TimeEstimate(n, note, tokens, gpus, name, peak, mfu, price, flops,
                        gpu_hours(flops, peak, mfu), training_days(flops, gpus, peak, mfu), price_listed=listed)


@v.checked(recompute=v.check_bool, **v.WHOLE)
def estimate_finetune_time(model, tokens, *, rank=64, targets=LORA_TARGETS, recompute=False, gpus=1,
                           gpu=None, mfu=0.4, peak_flops_per_s=None, price_per_gpu_hour=None) -> TimeEstimate:
    """LoRA (or QLoRA) fine-tuning of a model on ``tokens``: the forward and the activation gradients still run
    through every frozen weight (4·N a token, 6·N with ``recompute``), plus 6 a token per adapter parameter
    (``compute.lora_training_flops_per_token``); then GPU-hours, days and cost as ``estimate_time``."""
    cfg = config_from(model)
    n = flops_params(cfg)
    per_token = lora_training_flops_per_token(n, lora_params(cfg, rank, targets), recompute)
    note = f"LoRA rank {rank} on {', '.join(targets)}: {(6 if recompute else 4)}·N + 6·adapters FLOPs a token"
    return _time(per_token * tokens, n, note, tokens, gpus, gpu, mfu, peak_flops_per_s, price_per_gpu_hour)


@dataclass(frozen=True)
class MfuEstimate(Shows):
    """The MFU a published run implies: its model FLOPs (6·N·D) over what its GPU-hours could do at peak."""

    n_params: float
    tokens: float
    gpu_hours: float
    peak_flops_per_s: float
    mfu: float

    @property
    def flops(self) -> float:
        return training_flops(self.n_params, self.tokens)

    @property
    def peak_work_flops(self) -> float:
        """What the GPU-hours would do at the peak: GPU-hours × 3,600 × peak."""
        return self.gpu_hours * SECONDS_PER_HOUR * self.peak_flops_per_s

    def report(self) -> Report:
        return mfu_report(self)


@v.checked(**v.WHOLE)
def estimate_mfu(n_params, tokens, *, gpu_hours=None, gpus=None, days=None, gpu="A100 80GB",
                 peak_flops_per_s=None) -> MfuEstimate:
    """The MFU of a run of N parameters on D tokens from its reported GPU-hours, or from ``gpus`` × ``days``.
    ``peak_flops_per_s`` overrides the GPU's dense BF16 peak."""
    if gpu_hours is None:
        if gpus is None or days is None:
            raise v.InputError("gpu_hours", _("give gpu_hours, or gpus and days: neither was given."))
        gpu_hours, given = gpus * days * SECONDS_PER_DAY / SECONDS_PER_HOUR, "days"
    else:
        given = "gpu_hours"
        if gpus is not None and days is not None and not math.isclose(
                gpu_hours, gpus * days * SECONDS_PER_DAY / SECONDS_PER_HOUR, rel_tol=0.01):
            raise v.InputError("gpu_hours", _(
                "gpu_hours == {hours:g} disagrees with gpus == {gpus} × days == {days:g} ({product:g} GPU-hours): "
                "give gpu_hours, or gpus and days.").format(hours=gpu_hours, gpus=gpus, days=days,
                                                          product=gpus * days * SECONDS_PER_DAY / SECONDS_PER_HOUR))
    peak = _peak(gpu, peak_flops_per_s)
    mfu = implied_mfu(n_params, tokens, gpu_hours, peak)
    if mfu > 1:
        raise v.InputError(given, _(
            "6·N·D == {flops:g} FLOPs in {hours:g} GPU-hours would be an MFU of {mfu:g}, over 1: more than the GPUs "
            "can do at their peak; the run could not have happened.").format(
            flops=6 * n_params * tokens, hours=gpu_hours, mfu=mfu))
    return MfuEstimate(n_params, tokens, gpu_hours, peak, mfu)


@dataclass(frozen=True)
class TrainingEstimate(Shows):
    total_flops: float
    days: float
    days_with_margin: tuple
    gpu_hours: float
    memory: MemoryBreakdown
    usable_bytes: float

    @property
    def fits(self) -> bool:
        return self.memory.total <= self.usable_bytes

    def report(self) -> Report:
        return training_report(self)


@v.checked(**v.WHOLE)
def estimate_training(model, tokens, gpus, gpu="A100 80GB", mfu=0.5, zero=3, micro_batch=1, seq_len=4096,
                      recompute="full", peak_flops_per_s=None, margin=MEMORY_MARGIN) -> TrainingEstimate:
    """Seed 004's ``estimate_training`` with what it left out: the real model's FLOP-carrying parameters (active ones
    for a mixture of experts), activations and runtime in the memory check, and the time margin. Time counts model
    FLOPs (6·N·D) at the given MFU; recomputation's extra forward shows up as a lower MFU, not as more FLOPs.
    ``peak_flops_per_s`` overrides the GPU's BF16 peak (the material assumes a generic 200 TFLOPS card)."""
    cfg = config_from(model)
    time = estimate_time(tokens, model=cfg, gpus=gpus, gpu=gpu, mfu=mfu, peak_flops_per_s=peak_flops_per_s,
                         price_per_gpu_hour=0)
    memory = training_memory(cfg, zero=zero, dp=gpus, micro_batch=micro_batch, seq_len=seq_len, recompute=recompute)
    return TrainingEstimate(time.flops, time.days, time.days_with_margin, time.gpu_hours, memory,
                            usable_bytes(gpu, margin))

