"""Chapter 2's recomputations and the causes that explain them, for the figures ch2_memory registers."""

from __future__ import annotations

from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ... import plans
from ...core.i18n import _
from ...core.units import format_bytes, format_count, format_percent

_GB = 1e9
_A100 = "A100 80GB"
_A100_BYTES = hardware.gpu(_A100).memory_bytes   # as the device exposes it: 80 GiB
# Seed 000's QLoRA exercise: rank 64 on a 70B. The QLoRA paper puts adapters on every linear layer of the blocks.
_QLORA_TARGETS = mem.LORA_TARGETS



def _margin() -> str:
    return _("seed 004's {margin} margin").format(margin=format_percent(mem.MEMORY_MARGIN, 0))


def _gpu_word(n: int) -> str:
    return (_("{n} GPU") if n == 1 else _("{n} GPUs")).format(n=n)


def _qlora_adapters() -> int:
    return mem.lora_params("llama-2-70b", 64, _QLORA_TARGETS)


def _zero2_gpus_ex1(activations_bytes: float) -> int:
    """Seed 000 exercise 1: A100s needed with ZeRO-2 for a 7B's states plus activations shared over the GPUs."""
    return plans.zero_gpus(7e9, _A100, zero=2, activations_shared_bytes=activations_bytes)


def _ex1_planner(recompute: str) -> plans.MemoryPlan:
    """Seed 000 exercise 1 as the memory planner and `llmest memory` count it: Llama-2-7B, ZeRO-2 on two GPUs,
    one micro-batch of 1 × 4,096 tokens on each GPU."""
    return plans.plan_memory("training", "llama-2-7b", gpu=_A100, zero=2, dp=2, seq_len=4096, recompute=recompute)


def _ex1_gpu_cause() -> str:
    states = mem.sharded_state_bytes(7e9, mem.state_bytes_per_param("mixed", "adamw"), zero=2, dp=2)
    full, none = _ex1_planner("full"), _ex1_planner("none")
    nominal = sum(states.values()) + full.breakdown["activations"] + full.breakdown["overhead"]
    return _("ZeRO-2 shards gradients and optimizer states but keeps a full copy of the weights on each GPU. On two "
             "GPUs that is {states} of states per GPU before any activations; with 50-100 GB of activations shared "
             "out and {margin}, {low}-{high} A100s are needed. The exercise's own states (14 + 14 + 28 GB) undercount "
             "the optimizer. Which assumption decides: this shares a fixed batch's activations out over the GPUs. The "
             "memory planner and `llmest memory` count what one micro-batch keeps on each GPU, which does not shrink "
             "with more GPUs: for Llama-2-7B ({params} parameters) and 1 × 4,096 tokens with full recomputation that "
             "is {activations}, and {gpus} hold it ({total} per GPU on two, of {usable} usable; with the exercise's "
             "7B parameters it would be {nominal}, {verdict}). Without recomputation one sequence keeps {plain} per "
             "GPU, and it takes {plain_gpus}.").format(
        states=format_bytes(sum(states.values())), margin=_margin(), low=_zero2_gpus_ex1(50 * _GB),
        high=_zero2_gpus_ex1(100 * _GB), params=format_count(full.trainable_params),
        activations=format_bytes(full.breakdown["activations"]), gpus=_gpu_word(full.least_gpus),
        total=format_bytes(full.breakdown.total), usable=format_bytes(full.usable_bytes), nominal=format_bytes(nominal),
        verdict=_("within it too") if nominal <= full.usable_bytes else _("too much"),
        plain=format_bytes(none.breakdown["activations"]), plain_gpus=_gpu_word(none.least_gpus))


def _ceil_gpus() -> int:
    """A100s for seed 000's BF16 serving case if the memory could be split in any number of parts."""
    return plans.gpus_to_hold(plans.inference_memory("llama-2-70b", seq_len=2048, batch=32).total, _A100)


def _serving_70b_gpus() -> int:
    """Seed 000 exercise 3: the least A100s (a tp that divides the heads) for Llama-2-70B, 32 × 2,048 tokens."""
    return plans.plan_memory("inference", "llama-2-70b", gpu=_A100, seq_len=2048, batch=32).least


def _kv_mha(batch: int) -> float:
    """Seed 004's KV formula: 2·L·S·H·2 bytes, i.e. full multi-head attention (kv_heads·head_dim = H)."""
    return mem.kv_cache_bytes(80, 64, 128, 2048, batch)


def _bf16_70b_cause() -> str:
    weights = mem.weight_bytes(70e9, 2)
    return _("{weights} of weights fill {h200} of an H200 and {a100} of two A100s, leaving nothing for the KV cache "
             "or {margin}: with nothing kept free two A100s hold them, as the material says. With the margin the "
             "weights alone need {alone} A100s; real Llama-2-70B with a 32 × 2,048-token KV cache needs {serving} "
             "(tensor parallelism must divide its 64 heads).").format(
        weights=format_bytes(weights), h200=format_percent(weights / 141e9, 0),
        a100=format_percent(weights / 160e9, 0), margin=_margin(), alone=plans.gpus_to_hold(weights, _A100),
        serving=_serving_70b_gpus())


def _full_ft_cause() -> str:
    return _("The states of mixed-precision AdamW are {states}: {gpus} A100s just to hold them, {kept} with {margin}, "
             "before activations. Read as a bound, 8+ holds, but it is too loose to plan with: eight A100s ({eight}) "
             "suffice only with CPU/NVMe offload (ZeRO-Infinity) or a lighter optimizer.").format(
        states=format_bytes(mem.training_state_bytes(70e9)), gpus=plans.state_gpus(70e9, 16, _A100),
        kept=plans.state_gpus(70e9, 16, _A100, mem.MEMORY_MARGIN), margin=_margin(),
        eight=format_bytes(8 * _A100_BYTES))


def _activation_cause() -> str:
    cfg = m.preset("llama-2-7b")
    per_layer = mem.layer_activation_bytes(4096, 8, 4096, 32)
    flash = mem.layer_activation_bytes(4096, 8, 4096, 32, flash=True)
    sbh = 4096 * 8 * 4096
    llama = cfg.num_layers * mem.model_layer_activation_bytes(cfg, 8, 4096, flash=False)
    return _("32 × 8 × 4096 × 4096 × 2 × 40 = {rule}; {factor32} is what a factor of 32 gives. Counting the saved "
             "tensors instead: GPT-style layers of this shape (Korthikanti et al.) keep {gpt} (the attention scores "
             "alone are {scores} of each layer's {per_layer} bytes per sbh), Llama-2-7B's layers {llama}.").format(
        rule=format_bytes(mem.activation_bytes_rule(32, 8, 4096, 4096)),
        factor32=format_bytes(mem.activation_bytes_rule(32, 8, 4096, 4096, factor=32)),
        gpt=format_bytes(cfg.num_layers * per_layer), scores=f"{(per_layer - flash) / sbh:.0f}",
        per_layer=f"{per_layer / sbh:.0f}", llama=format_bytes(llama))


def _rule_factor(gated=True, flash=False) -> float:
    """Bytes a 7B layer saves per (token × hidden unit), halved: the factor of the material's rule."""
    cfg = m.preset("llama-2-7b")
    if not gated:
        cfg = cfg.replace(gated_ffn=False, ffn_hidden_size=4 * cfg.hidden_size)
    return mem.model_layer_activation_bytes(cfg, 1, 4096, flash=flash) / (4096 * cfg.hidden_size * 2)


def _zero_share(stage: int) -> float:
    mixed = mem.state_bytes_per_param("mixed", "adamw")
    return sum(mem.sharded_state_bytes(7e9, mixed, zero=stage, dp=8).values()) / mem.training_state_bytes(7e9)


def _recompute_ratio() -> float:
    cfg = m.preset("llama-2-7b")
    plain = mem.activations_per_gpu(cfg, 8, 4096, recompute="none", flash=False)
    return mem.activations_per_gpu(cfg, 8, 4096, recompute="full", flash=True) / plain


def _case1_activations() -> float:
    return mem.activations_per_gpu(m.preset("llama-2-7b"), 64, 4096, recompute="full", flash=True)


def _case1_cause() -> str:
    cfg = m.preset("llama-2-7b")
    per_mb = {b: mem.activations_per_gpu(cfg, b, 4096, recompute="full", flash=True) for b in range(1, 65)}
    low, high = _batches_within(per_mb.get, 10 * _GB, 20 * _GB, limit=65)  # the material's 10-20 GB
    return _("64 sequences of 4,096 tokens at once need {size} per GPU even with full recomputation and "
             "FlashAttention (every layer's input, one layer recomputed, fp32 logits). 10-20 GB holds only with "
             "micro-batches of {low}-{high} ({low_size}-{high_size}) and gradient accumulation up to the 64.").format(
        size=format_bytes(_case1_activations()), low=low, high=high, low_size=format_bytes(per_mb[low]),
        high_size=format_bytes(per_mb[high]))


def _batches_within(size_of, low: float, high: float, limit: int = 512) -> tuple:
    """The least and the largest micro-batch whose ``size_of(b)`` lies inside [low, high]: a size that grows with b."""
    inside = [b for b in range(1, limit) if low <= size_of(b) <= high]
    return inside[0], inside[-1]


def _qlora_70b_activations(b: int) -> float:
    return plans.qlora_memory("llama-2-70b", micro_batch=b)["activations"]


def _ex2_total_cause() -> str:
    qlora = plans.plan_memory("qlora", "llama-2-70b", gpu=_A100)
    plan = qlora.breakdown
    totals = {b: plans.qlora_memory("llama-2-70b", micro_batch=b).total for b in range(1, 17)}
    inside = _batches_within(totals.get, 56 * _GB, 76 * _GB, limit=17)
    adapters = sum(plan[p] for p in ("adapters", "gradients", "optimizer"))
    return _("FP32 adapters (PEFT's default) with AdamW, gradient checkpointing and a micro-batch of 1: it {fits} one "
             "A100 within {margin} ({usable} usable). The total lands near the material's, but the parts differ: "
             "activations {activations} at this micro-batch, and the adapters with their gradients and states "
             "{adapters}, not {stated}. The total carries the activations' batch: micro-batches of {low}-{high} give "
             "{low_total} to {high_total}, inside the material's 56-76 GB.").format(
        fits=_("fits") if qlora.fits else _("does not fit"), margin=_margin(), usable=format_bytes(qlora.usable_bytes),
        activations=format_bytes(plan["activations"]), adapters=format_bytes(adapters),
        stated=format_bytes(160e6 + 320e6 + 640e6), low=min(inside), high=max(inside),
        low_total=format_bytes(totals[min(inside)]), high_total=format_bytes(totals[max(inside)]))


def _qlora_7b_total(b: int) -> float:
    return plans.qlora_memory("llama-2-7b", micro_batch=b).total


def _qlora_7b() -> float:
    return plans.qlora_memory("llama-2-7b", rank=64, micro_batch=1, seq_len=2048).total
