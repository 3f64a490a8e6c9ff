"""Chapter 3, FLOPs and time: the figures of seed 004 §3, §4.3 (compute side) and §5.3-5.4, and of seed 000 §1.1-1.2,
§2, the compute side of exercises 1-2, §4 and the GPT-3 question of §5."""

from __future__ import annotations

from ...formulas import compute as c
from ...formulas import data as dt
from ...catalog import hardware
from ...formulas import memory as mem
from ... import plans
from ...catalog import runs
from ...formulas.model import preset
from ...core.units import HOURS_PER_MONTH, format_bytes, format_count, format_flops, format_percent, format_usd
from ...core.i18n import N_, _
from .figure import SIX_ND, Figure, code_count, register
from .render import Text

_S11, _S12, _S2 = "§1.1 FLOPs 估算", "§1.2 GPU 时间估算", "§2 GPU 算力参考"
_EX1, _EX2 = "§3 练习 1：训练 7B 模型需要多少资源？", "§3 练习 2：QLoRA 微调 70B 模型需要什么？"
_S41, _S43, _S5 = "§4.1 记住关键数字", "§4.3 成本估算", "§5 常见面试问题（GPT-3）"
_S31 = "§3.1 为什么每个参数每token大约要6次浮点运算"
_S32 = "§3.2 训练时间公式怎么用：7B模型的一笔细账"
_S33 = "§3.3 一张表快速看不同规模的算力预算"
_S43B = "§4.3 反向预算：手里的算力到底能喂饱多大的模型"
_S53, _S54 = "§5.3 一个顺手的小脚本：把估算变成函数", "§5.4 关于MFU和余量的几点避坑心得"

GENERIC = 200e12          # seed 004's "mainstream training card" of 200 TFLOPS BF16
_EX1_FLOPS = c.training_flops(7e9, 1e12)
_A100_PRICES = (2, 3)     # seed 000's "A100 云服务：~$2-3/小时", dollars per GPU-hour


def _ex1(gpus=1) -> plans.TimeEstimate:
    """Seed 000 exercise 1: a 7B on 1T tokens on A100s at 40% MFU."""
    return plans.estimate_time(1e12, n_params=7e9, gpus=gpus, gpu="A100 80GB", mfu=0.4)


def _ex1_gpu_hours() -> float:
    return _ex1().gpu_hours


def _runs_cited() -> str:
    years = [r.year for r in runs.RUNS]
    return _("the {count} published runs of llmest.runs ({first}-{last}: {names}), 6·N FLOPs per token, each with "
             "its source in runs.RUNS: e.g. Touvron et al. 2023, arXiv 2302.13971; Dubey et al. 2024, arXiv "
             "2407.21783; DeepSeek-AI et al. 2024, arXiv 2412.19437").format(
        count=len(runs.RUNS), first=min(years), last=max(years), names=_(", ").join(r.name for r in runs.RUNS))


def _mfu_literature() -> str:
    span = runs.mfu_range()
    return _("model FLOPs utilisation from {low} ({low_run}) to {high} ({high_run}), median {median}").format(
        low=format_percent(span.low.mfu, 0), low_run=span.low.name, high=format_percent(span.high.mfu, 0),
        high_run=span.high.name, median=format_percent(span.median, 0))


def _mfu_cause(low, high) -> str:
    span = runs.mfu_range()
    below = sum(r.mfu < low for r in span.runs)
    above = sum(r.mfu > high for r in span.runs)
    where = _("inside") if low <= span.median <= high else (_("below") if span.median < low else _("above"))
    return _("The median run, {median}, is {where} the range; the runs span {span}. Of the {count}, {below} lie below "
             "{low} and {above} above {high}.").format(median=format_percent(span.median, 0), where=where, span=span,
                                                      count=len(span.runs), below=below, low=format_percent(low, 0),
                                                      above=above, high=format_percent(high, 0))


def _seed004(n, d, gpus) -> plans.TimeEstimate:
    """Seed 004's runs: N parameters on D tokens on its generic 200 TFLOPS cards at 50% MFU."""
    return plans.estimate_time(d, n_params=n, gpus=gpus, peak_flops_per_s=GENERIC, mfu=0.5)


def _seed004_days(n, d, gpus) -> float:
    return _seed004(n, d, gpus).days


def _attention_share(seq_len) -> float:
    cfg = preset("llama-2-7b")
    attention = c.attention_flops_per_token(cfg.num_layers, cfg.num_heads, cfg.head_dim, seq_len)
    return attention / (c.training_flops_per_token(c.flops_params(cfg)) + attention)


# A100s for the full fine-tuning of a 70B: the least that hold its 16 bytes a parameter of states with 20% free.
_FT_GPUS = plans.state_gpus(70e9, 16, "A100 80GB", mem.MEMORY_MARGIN)


def _ft_tokens(days) -> float:
    """Billions of tokens a 70B fine-tunes on in ``days`` on _FT_GPUS A100s at 40% MFU."""
    return plans.estimate_budget(_FT_GPUS, days, gpu="A100 80GB", mfu=0.4).affordable_tokens(70e9) / 1e9


def _seed004_budget() -> plans.BudgetEstimate:
    """Seed 004 §4.3: 64 of its 200 TFLOPS cards at 50% MFU for 30 days."""
    return plans.estimate_budget(64, 30, peak_flops_per_s=GENERIC, mfu=0.5)


def _moe_cause() -> str:
    month = c.DAYS_PER_YEAR / 12
    largest = {g: plans.estimate_budget(g, month, peak_flops_per_s=GENERIC, mfu=0.5).chinchilla()[0]
               for g in (256, 512, 1024)}
    sizes = ", ".join(_("{size} on {gpus}").format(size=format_count(n), gpus=f"{g:,}") for g, n in largest.items())
    return _("At {ratio} tokens per parameter a dense model finishes within a month on §3.3's cards up to about "
             "{sizes}: tens of B on hundreds of cards in a month does not by itself point to a mixture of experts. "
             "It does for a dense model trained on many more tokens per parameter, or on fewer cards.").format(
        ratio=dt.TOKENS_PER_PARAM, sizes=sizes)


def _lora(model, recompute=False) -> plans.TimeEstimate:
    """LoRA fine-tuning on exercise 2's 10K examples of 2,048 tokens (rank 64 on every projection), one A100 at
    40% MFU."""
    return plans.estimate_finetune_time(model, 10_000 * 2048, rank=64, targets=mem.LORA_TARGETS, recompute=recompute,
                                        gpu="A100 80GB", mfu=0.4)


# How exercise 2's fine-tuning time is recomputed.
_FINETUNE_HOW = N_("estimate_finetune_time((4·N + 6·adapters) × 20.48M tokens, 1 A100, 40% MFU).days")


def _qlora_hours(recompute=False) -> float:
    return _lora("llama-2-70b", recompute).gpu_hours


def _gpt3() -> plans.TimeEstimate:
    """Seed 000 §5: GPT-3's 175B on 300B tokens on V100s at 40% MFU, at the V100's listed $3 an hour."""
    return plans.estimate_time(300e9, n_params=175e9, gpu="V100", mfu=0.4)


def _gpt3_hours() -> float:
    return _gpt3().gpu_hours


def _serving() -> plans.ServingEstimate:
    """Seed 000 §4.3's 7B at 1,000 requests/s: Llama-2-7B decoding batches of 64 on A100s at the material's $2."""
    return plans.estimate_serving("llama-2-7b", "A100 80GB", batch=64, seq_len=1024, price_per_gpu_hour=_A100_PRICES[0])


def _serving_gpus() -> int:
    return _serving().gpus_for(1000, 100)


def _catalog_figure(key, name, quote, stated, aside=""):
    gpu = hardware.gpu(name)
    return Figure(key, 3, "000", _S2, N_("{name}: dense BF16 tensor peak"), quote, stated,
                  lambda: gpu.bf16_flops_per_s,
                  Text(lambda: _("{peak} (dense)").format(peak=f"hardware.gpu({name!r}).bf16_flops_per_s")),
                  unit="FLOP/s", stated_in="TFLOPS", rel_tol=0.01, cause=lambda: _(aside) + _(gpu.note),
                  values=(("name", name),))


register(
    # seed 000 §1-§2
    Figure("000-1.2-mfu", 3, "000", _S12, N_("typical MFU"), "MFU（Model FLOPs Utilization）：通常 30-50%",
           (0.30, 0.50), lambda: runs.mfu_range().median, N_("the median MFU of the published runs (runs.mfu_range)"),
           unit="fraction", rel_tol=0.0, cause=lambda: _mfu_cause(0.30, 0.50)),
    _catalog_figure("000-2-a100", "A100 80GB", "A100 80GB 312 TFLOPS", 312),
    _catalog_figure("000-2-h100", "H100 SXM", "H100 80GB 990 TFLOPS", 990,
                    N_("The material's H100 80GB is the SXM card; H100 PCIe is 756. ")),
    _catalog_figure("000-2-h200", "H200", "H200 141GB 990 TFLOPS", 990),
    _catalog_figure("000-2-b200", "B200", "B200 192GB 2250 TFLOPS", 2250),
    _catalog_figure("000-2-a6000", "RTX A6000", "GPU BF16 算力 显存 适用场景 … A6000 38 TFLOPS", 38,
                    N_("The material's table lists it in its BF16 column. ")),
    _catalog_figure("000-2-4090", "RTX 4090", "GPU BF16 算力 显存 适用场景 … RTX 4090 82 TFLOPS", 82,
                    N_("The material's table lists it in its BF16 column. ")),
    Figure("000-2-b200-memory", 3, "000", _S2, N_("B200 memory"), "B200 192GB", 192e9,
           lambda: hardware.gpu("B200").memory_bytes, N_("hardware.gpu('B200').memory_bytes, as the device exposes it"),
           unit="bytes",
           cause=lambda: _("The device exposes {memory}: the material's 192 GB is that in decimal GB; the HGX B200 "
                           "datasheet's {label} is about the same memory in GiB.").format(
               memory=hardware.gpu("B200").memory_text, label=format_bytes(hardware.gpu("B200").label_bytes))),
    # seed 000 exercise 1: time
    Figure("000-ex1-flops", 3, "000", _EX1, N_("FLOPs to train a 7B on 1T tokens"), "FLOPs = 6 x 7e9 x 1e12 = 4.2e22",
           4.2e22, lambda: _EX1_FLOPS, "training_flops(7e9, 1e12)", unit="FLOPs", rel_tol=0.001),
    Figure("000-ex1-gpu-hours", 3, "000", _EX1, N_("A100 GPU-hours at 40% MFU"),
           "GPU Hours = 4.2e22 / (3.12e14 x 0.4) = 336,538 小时", 336_538, _ex1_gpu_hours,
           "gpu_hours(4.2e22, 312e12, 0.4)", unit="GPU-hours",
           cause=lambda: _("4.2e22 / (3.12e14 × 0.4) = {seconds}: FLOPs over FLOP/s are GPU-seconds. The material's "
                           "336,538 is that over 1,000; hours need ÷3,600, which gives {hours}. §1.2's formula, GPU "
                           "Hours = FLOPs / (GPU_FLOPS × MFU), also gives seconds.").format(
               seconds=f"{_ex1().gpu_seconds:,.0f}", hours=f"{_ex1_gpu_hours():,.0f}")),
    Figure("000-ex1-single-gpu", 3, "000", _EX1, N_("days and years on one A100"), "约 14,022 天 / 38.4 年（单卡）",
           14_022, lambda: _ex1().days, "estimate_time(4.2e22, 1, 312e12, 0.4).days",
           unit="days",
           cause=lambda: _("{days} days, {years} years: the material carries its hours error on.").format(
               days=f"{_ex1_gpu_hours() / 24:,.0f}", years=f"{_ex1_gpu_hours() / 24 / c.DAYS_PER_YEAR:.1f}")),
    Figure("000-ex1-256", 3, "000", _EX1, N_("days on 256 A100s"), "256 卡集群约 55 天", 55,
           lambda: _ex1(256).days, "estimate_time(4.2e22, 256, 312e12, 0.4).days",
           unit="days", cause=lambda: _("The same factor of {factor} from the hours error.").format(
               factor=f"{336_538 / _ex1_gpu_hours():.1f}")),
    # seed 000 exercise 2: QLoRA time
    Figure("000-ex2-hours", 3, "000", _EX2, N_("QLoRA of a 70B on 20M tokens, one A100"),
           "FLOPs 很小（只算 LoRA 参数部分）… 预计 1-4 小时", (1, 4),
           lambda: _lora("llama-2-70b").days,
           _FINETUNE_HOW, unit="days",
           stated_in="hours",
           cause=lambda: _("The FLOPs are not small: the forward pass and the gradients for the activations still go "
                           "through every frozen weight, 4·N per token; only the weight gradients are skipped. That is "
                           "{hours} hours at 40% MFU, {checkpointed} with the gradient checkpointing QLoRA uses, and "
                           "more in practice, as 4-bit weights are dequantised on the fly.").format(
               hours=f"{_qlora_hours():.0f}", checkpointed=f"{_qlora_hours(True):.0f}")),
    # seed 000 §4
    Figure("000-4.1-7b-hours", 3, "000", _S41, N_("A100-hours to train a 7B on 1T tokens"),
           "训练 7B 模型（1T token）：336K A100 小时", 336e3, _ex1_gpu_hours, "gpu_hours(4.2e22, 312e12, 0.4)",
           unit="GPU-hours", cause=N_("Exercise 1's seconds-for-hours slip again.")),
    Figure("000-4.1-7b-cost", 3, "000", _S41, N_("its cloud cost at the material's $2-3 per A100-hour"), "（$1M 云计算成本）",
           1e6, lambda: _ex1().cost_at(_A100_PRICES[1]), "gpu_hours × $3", unit="USD",
           cause=lambda: _("{low} to {high} at {prices} an hour; {million} follows from the wrong hours.").format(
               low=f"${_ex1().cost_at(_A100_PRICES[0]):,.0f}", high=f"${_ex1().cost_at(_A100_PRICES[1]):,.0f}",
               prices="$2-3", million="$1M")),
    Figure("000-4.1-lora-7b", 3, "000", _S41, N_("LoRA fine-tuning of a 7B on one A100 (20M tokens, as exercise 2)"),
           "LoRA 微调 7B：1-4 小时，单卡 A100", (1, 4), lambda: _lora("llama-2-7b").days,
           _FINETUNE_HOW, unit="days",
           stated_in="hours",
           rel_tol=0.0, cause=N_("For exercise 2's 10K examples of 2,048 tokens; the time scales with the data.")),
    Figure("000-4.3-7b-cost", 3, "000", _S43, N_("training a 7B on 1T tokens with 256 A100s"),
           "训练 7B 模型（1T token，256 A100）：~$160K-240K", (160e3, 240e3),
           lambda: _ex1().cost_usd, N_("GPU-hours at 40% MFU × $2.5, the middle of $2-3"), unit="USD",
           depends_on=N_("MFU"),
           cause=lambda: _("{stated} is {hours} GPU-hours at {prices}, an MFU of {mfu}; at exercise 1's 40% it is "
                           "{low}-{high}. Either is far below §4.1's {million} for the same run.").format(
               stated="$160-240K", prices="$2-3", million="$1M", hours=f"{160e3 / _A100_PRICES[0]:,.0f}",
               mfu=format_percent(plans.estimate_mfu(7e9, 1e12, gpu_hours=160e3 / _A100_PRICES[0],
                                                     gpu="A100 80GB").mfu, 0),
               low=format_usd(_ex1().cost_at(_A100_PRICES[0])), high=format_usd(_ex1().cost_at(_A100_PRICES[1])))),
    Figure("000-4.3-serving", 3, "000", _S43, N_("serving a 7B at 1,000 requests/s, per month"),
           "推理 7B（1000 RPS）：~$5K-10K/月", (5e3, 10e3),
           lambda: _serving().monthly_cost(_serving_gpus()),
           N_("estimate_serving(llama-2-7b, A100, batch 64): GPUs for 1,000 × 100 new tokens/s, a month at $2"),
           unit="USD/month",
           depends_on=N_("tokens per request"),
           cause=lambda: _("With 100 new tokens per request, batches of 64 and a 1,024-token context, an A100 makes "
                           "{speed} tokens/s: {gpus} A100s. {spend} a month pays for {low}-{high} A100s at {price} "
                           "an hour, enough for about {fewest}-{most} new tokens per request, before any prompt "
                           "processing.").format(spend="$5-10K",
               speed=f"{_serving().decode.tokens_per_s:,.0f}", gpus=_serving_gpus(),
               low=f"{5e3 / _A100_PRICES[0] / HOURS_PER_MONTH:.1f}",
               high=f"{10e3 / _A100_PRICES[0] / HOURS_PER_MONTH:.1f}",
               price=f"${_A100_PRICES[0]}", fewest=f"{_serving().new_tokens_per_request(1000, 5e3):.0f}",
               most=f"{_serving().new_tokens_per_request(1000, 10e3):.0f}")),
    # seed 000 §5: GPT-3
    Figure("000-5-gpt3-flops", 3, "000", _S5, N_("GPT-3's training FLOPs"), "175B 模型训练 300B token 的 FLOPs 约 3.15e23",
           3.15e23, lambda: c.training_flops(175e9, 300e9), "training_flops(175e9, 300e9)", unit="FLOPs",
           rel_tol=0.005,
           cause=lambda: _("Right; the paper reports {flops} for 174.6B parameters. {six_nd}; the answer's slip is "
                           "calling it the Chinchilla formula (按 Chinchilla 公式).").format(
               flops=format_flops(runs.GPT3_PUBLISHED_FLOPS), six_nd=_(SIX_ND))),
    Figure("000-5-gpt3-hours", 3, "000", _S5, N_("V100 GPU-hours for GPT-3 at 40% MFU"),
           "在 V100 (125 TFLOPS) 上以 40% MFU 需约 630 万 GPU 小时", 6.3e6,
           _gpt3_hours, "gpu_hours(3.15e23, 125e12, 0.4)",
           unit="GPU-hours",
           cause=lambda: _("3.15e23 / (125e12 × 0.4) = {seconds} GPU-seconds; 6.3M is that over 1,000, as in exercise "
                           "1. Over 3,600 it is {hours} GPU-hours.").format(
               seconds=format_flops(_gpt3().gpu_seconds), hours=format_count(_gpt3_hours()))),
    Figure("000-5-gpt3-cost", 3, "000", _S5, N_("GPT-3's GPU cost at $3 per V100-hour"), "纯 GPU 成本约 1900 万",
           19e6, lambda: _gpt3().cost_usd, "GPU-hours × $3",
           unit="USD",
           cause=lambda: _("Follows from the hours above: {hours} V100-hours at $3 are {cost}.").format(
               hours=format_count(_gpt3_hours()), cost=format_usd(_gpt3().cost_usd))),
    Figure("000-5-gpt3-total", 3, "000", _S5, N_("GPT-3's whole cost"), "实际总成本可能 $10M-50M", (10e6, 50e6),
           lambda: c.cost(runs.GPT3.gpu_hours, 3), N_("Patterson et al.'s V100-hours × $3"), unit="USD", rel_tol=0.0,
           cause=lambda: _("Patterson et al. estimate {hours} V100-hours (10,000 GPUs for 14.8 days), an MFU of {mfu}: "
                           "the GPUs alone reach the low end at $3 an hour.").format(
               hours=f"{runs.GPT3.gpu_hours:,.0f}", mfu=format_percent(runs.GPT3.mfu, 0))),
    Figure("000-4.1-ft-70b-time", 3, "000", _S41, N_("full fine-tuning of a 70B on {gpus} A100s, 1B tokens"),
           "全参数微调 70B：需要 8+ A100，数天到数周", None,
           lambda: plans.estimate_time(1e9, n_params=70e9, gpus=_FT_GPUS, gpu="A100 80GB", mfu=0.4).days,
           f"estimate_time(6 × 70B × 1B tokens, {_FT_GPUS} A100s, 40% MFU).days", unit="days", depends_on=N_("tokens"),
           values=(("gpus", _FT_GPUS),),
           cause=lambda: _("Read as 2 to 28 days, days to weeks is {low}B-{high}B tokens on {gpus} A100s at 40% MFU. "
                           "{gpus} is the least that hold the states (16 bytes a parameter) with 20% of each GPU free, "
                           "before activations; with nothing free {paper} hold them on paper, and seed 004's 16 is two "
                           "8-GPU nodes (chapter 2).").format(low=f"{_ft_tokens(2):.1f}", high=f"{_ft_tokens(28):.1f}",
                                                              gpus=_FT_GPUS,
                                                              paper=plans.state_gpus(70e9, 16, "A100 80GB"))),
    # seed 004 §3
    Figure("004-3.1-7b-flops", 3, "004", _S31, N_("7B on 1 trillion tokens"), "6×7×10⁹×10¹² 4.2×10²²", 4.2e22,
           lambda: c.training_flops(7e9, 1e12), "training_flops(7e9, 1e12)", unit="FLOPs", rel_tol=0.001),
    Figure("004-3.1-petaflop", 3, "004", _S31, N_("hours at a sustained 10¹⁵ FLOP/s"),
           "每秒10¹⁵次浮点运算也需要约1.16万小时", 1.16e4,
           lambda: plans.estimate_time(1e12, n_params=7e9, peak_flops_per_s=1e15, mfu=1.0).seconds,
           N_("estimate_time(4.2e22, 1 machine, 1e15 FLOP/s, MFU 1).seconds"), unit="seconds", stated_in="hours"),
    Figure("004-3.1-attention", 3, "004", _S31, N_("attention FLOPs that 6N leaves out, a 7B at 4,096 tokens"),
           "这个公式已经把所有线性层、注意力、FFN、反向计算全部折进去了", None, lambda: _attention_share(4096),
           N_("12·L·H·Q·T / (6N + 12·L·H·Q·T) for Llama-2-7B"), unit="fraction", verdict="erratum",
           cause=lambda: _("The material says 6N folds in attention. It folds in attention's weights (the Q, K, V and "
                           "output projections) but not the attention scores (Q·Kᵀ and scores·V), which multiply "
                           "activations by activations and grow with the sequence: {short} of a training token's FLOPs "
                           "at 2,048 tokens, {long} at 4,096 (Kaplan et al. 2020 count them apart from 6N).").format(
               short=format_percent(_attention_share(2048), 0), long=format_percent(_attention_share(4096), 0))),
    Figure("004-3.2-flops", 3, "004", _S32, N_("7B on 100B tokens"), "总FLOPs等于6×7×10⁹×10¹¹ 4.2×10²¹", 4.2e21,
           lambda: c.training_flops(7e9, 1e11), "training_flops(7e9, 1e11)", unit="FLOPs", rel_tol=0.001),
    Figure("004-3.2-per-gpu", 3, "004", _S32, N_("effective FLOP/s of one 200 TFLOPS card at 50%"),
           "单卡每秒有效浮点运算等于200×10¹²×0.5 10¹⁴", 1e14, lambda: GENERIC * 0.5, "200e12 × 0.5",
           unit="FLOP/s", rel_tol=0.001),
    Figure("004-3.2-cluster", 3, "004", _S32, N_("of 64 such cards"), "总有效算力是6.4×10¹⁵", 6.4e15,
           lambda: 64 * GENERIC * 0.5, "64 × 200e12 × 0.5", unit="FLOP/s", rel_tol=0.001),
    Figure("004-3.2-weeks", 3, "004", _S32, N_("the same run, in weeks"), "一到两周内完成", (1, 2),
           lambda: _seed004_days(7e9, 1e11, 64), "estimate_time(6 × 7e9 × 1e11, 64, 200e12, 0.5).days", unit="days",
           stated_in="weeks", rel_tol=0.0),
    # Contested: the median published run lies below 40-60% and none above it; 57.8% is PaLM's hardware FLOPs
    # utilisation, which counts the recomputed forward pass too.
    Figure("004-3.2-mfu", 3, "004", _S32, N_("MFU of real pre-training"), "MFU通常在40%到60%之间", (0.40, 0.60),
           lambda: runs.mfu_range().median, N_("the median MFU of the published runs (runs.mfu_range)"),
           unit="fraction", rel_tol=0.0, cause=lambda: _mfu_cause(0.40, 0.60),
           literature=((Text(_mfu_literature), Text(_runs_cited)),
                       (N_("46.2% MFU for PaLM 540B, and 57.8% hardware FLOPs utilisation (which counts rematerialised "
                        "FLOPs too)"), "Chowdhery et al. 2022, PaLM: Scaling Language Modeling with Pathways, "
                        "arXiv 2204.02311, §4"))),
    Figure("004-3.2-days", 3, "004", _S32, N_("7B, 100B tokens, 64 × 200 TFLOPS at 50% MFU"), "约7.6天", 7.6,
           lambda: _seed004_days(7e9, 1e11, 64), "estimate_time(6 × 7e9 × 1e11, 64, 200e12, 0.5).days", unit="days"),
    Figure("004-3.2-seconds", 3, "004", _S32, N_("the same in seconds"), "≈65.6万秒", 6.56e5,
           lambda: _seed004(7e9, 1e11, 64).seconds,
           "estimate_time(6 × 7e9 × 1e11, 64, 200e12, 0.5).seconds", unit="seconds", rel_tol=0.001),
    *[Figure(f"004-3.3-{label}", 3, "004", _S33, N_("size table: {size} on {gpus} GPUs"), quote, days,
             (lambda n=n, d=d, g=g: _seed004_days(n, d, g)),
             f"estimate_time(6 × {code_count(n)} × {code_count(d)}, {g} GPUs, 200 TFLOPS, 50%).days", unit="days",
             values=tuple(zip(("size", "gpus"), label.split("-"))))
      for label, n, d, g, days, quote in [   # the table's cells: size, tokens, cards, days
          ("7B-32", 7e9, 1e11, 32, 15.2, "7B 1000亿 32 15.2天"),
          ("7B-64", 7e9, 1e11, 64, 7.6, "7B 1000亿 64 7.6天"),
          ("13B-128", 13e9, 2e11, 128, 14.1, "13B 2000亿 128 14.1天"),
          ("70B-512", 70e9, 1.4e12, 512, 133, "70B 1.4万亿 512 133天"),
          ("70B-1024", 70e9, 1.4e12, 1024, 66.5, "70B 1.4万亿 1024 66.5天")]],
    Figure("004-3.3-months", 3, "004", _S33, N_("70B on 1.4T tokens with 512 cards, in months"),
           "70B模型1.4万亿token、512卡的训练时间超过4个月", (4, None), lambda: _seed004_days(70e9, 1.4e12, 512),
           "estimate_time(6 × 70B × 1.4T, 512, 200 TFLOPS, 50%).days", unit="days", stated_in="months", rel_tol=0.0),
    Figure("004-3.3-moe", 3, "004", _S33, N_("a month of pre-training for tens of B on hundreds of cards, dense"),
           "听到“几十B模型几百卡一个月完成预训练”大概率是激活参数小于总参数的MoE", (None, 1),
           lambda: _seed004_days(30e9, 600e9, 512), "estimate_time(6 × 30B × 600B, 512, 200 TFLOPS, 50%).days",
           unit="days", stated_in="months", rel_tol=0.0,
           depends_on=N_("the model size, tokens per parameter and GPU count (assumed: a dense 30B, 20 tokens per "
                      "parameter, 512 of §3.3's cards)"), cause=_moe_cause),
    # seed 004 §4.3: the reverse budget
    Figure("004-4.3-budget", 3, "004", _S43B, N_("FLOPs of 64 × 200 TFLOPS at 50% for 30 days"), "约1.66×10²²", 1.66e22,
           lambda: _seed004_budget().flops, "compute_budget(64, 30, 200e12, 0.5)", unit="FLOPs", rel_tol=0.005),
    Figure("004-4.3-nd", 3, "004", _S43B, N_("N·D that budget buys"), "参数量×token数≈2.76×10²¹", 2.76e21,
           lambda: _seed004_budget().flops / 6, "compute_budget / 6", unit="parameter-tokens", rel_tol=0.005),
    Figure("004-4.3-params", 3, "004", _S43B, N_("the largest model for 140B tokens"), "模型参数量可以做到约19.7B",
           19.7e9, lambda: _seed004_budget().affordable_params(140e9), N_("affordable_params(budget, 140e9)"),
           unit="parameters", rel_tol=0.005),
    Figure("004-4.3-tokens", 3, "004", _S43B, N_("the tokens a 70B gets"), "只能喂约394亿token", 39.4e9,
           lambda: _seed004_budget().affordable_tokens(70e9), N_("affordable_tokens(budget, 70e9)"), unit="tokens",
           rel_tol=0.005),
    # seed 004 §5.3-5.4
    Figure("004-5.3-state", 3, "004", _S53, N_("estimate_training(7e9, 1e11, 64): states per GPU"),
           "per_gpu_state full_state_bytes / gpu_count", 16 * 7e9 / 64,
           lambda: sum(mem.sharded_state_bytes(7e9, mem.state_bytes_per_param(), zero=3, dp=64).values()),
           "sharded_state_bytes(7e9, zero=3, dp=64)", unit="bytes", rel_tol=0.001,
           stated_note=N_("what that line returns for estimate_training(7e9, 1e11, 64): 16 bytes × 7e9 / 64"),
           cause=N_("Right for the states; the function leaves out activations, which its own text says come on top.")),
    Figure("004-5.4-checkpoint-7b", 3, "004", _S54, N_("a 7B checkpoint in BF16"), "7B模型BF16权重是14GB一份", 14e9,
           lambda: c.checkpoint_bytes(7e9), "checkpoint_bytes(7e9, 2)", unit="bytes",
           cause=lambda: _("Weights only. A checkpoint to resume training from also holds the FP32 master copy and "
                           "moments ({bytes} bytes a parameter): {size}.").format(
               bytes=c.RESUME_CHECKPOINT_BYTES_PER_PARAM,
               size=format_bytes(c.checkpoint_bytes(7e9, c.RESUME_CHECKPOINT_BYTES_PER_PARAM)))),
    Figure("004-5.4-checkpoint-70b", 3, "004", _S54, N_("a 70B checkpoint in BF16"), "70B模型是140GB一份", 140e9,
           lambda: c.checkpoint_bytes(70e9), "checkpoint_bytes(70e9, 2)", unit="bytes",
           cause=lambda: _("Weights only; {size} to resume training from.").format(
               size=format_bytes(c.checkpoint_bytes(70e9, c.RESUME_CHECKPOINT_BYTES_PER_PARAM)))),
)
