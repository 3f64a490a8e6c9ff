"""Memory per GPU of each task (training, inference, LoRA and QLoRA), whether it fits a GPU, and the least GPUs
that hold it (``memory_task_plan`` puts them together as one plan). They apply the formulas of ``llmest.memory`` to
a ModelConfig and check every setting they take."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core import _validate as v
from ..catalog import hardware
from ..core._validate import InputError
from ..formulas.memory import (BYTES_PER_VALUE, CONVENTIONS, LORA_TARGETS, MEMORY_MARGIN, RECOMPUTE,
                               RUNTIME_OVERHEAD_BYTES, WEIGHT_FORMATS, activations_per_gpu,
                               lora_params, model_weight_bytes, sharded_state_bytes, state_bytes_per_param,
                               training_state_bytes)
from ..formulas.memory import StateBytes
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.precision import recipe, recipe_activations_per_gpu, recipe_state_bytes
from ..formulas.model import ModelConfig, config_from, count_params
from ..display.memory import breakdown_table
from ..core.i18n import _
from ..formulas.zero import OFFLOAD, ZERO_DEFAULTS, _check_offload, offloaded_state_bytes, zero_buffer_bytes

PARTS = ("weights", "master", "gradients", "optimizer", "adapters", "buffers", "activations", "kv_cache", "overhead",
         "critic", "reference", "reward", "rollout")   # the last four: the other models of DPO, PPO and GRPO
GPU_SEARCH_LIMIT = 1024   # the most GPUs a least-GPU search tries


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes per GPU, by part; ``cpu``: the CPU memory each GPU's process holds (offloaded states), by part."""

    parts: dict
    gpus: int = 1
    cpu: dict = field(default_factory=dict)
    precision: str = ""     # the precision recipe (formulas.precision) the states and activations are in, if one

    @property
    def total(self) -> float:
        """GPU bytes per GPU."""
        return sum(self.parts.values())

    @property
    def cpu_total(self) -> float:
        """CPU bytes per GPU; a node holds this times its GPUs."""
        return sum(self.cpu.values())

    def cpu_per_node(self, gpus_per_node=8) -> float:
        """CPU bytes a node holds: each of its GPUs' processes (at most ``gpus``) keeps cpu_total."""
        return self.cpu_total * min(self.gpus, v.check_whole("gpus_per_node", gpus_per_node))

    def __getitem__(self, part):
        return self.parts[part]

    def table(self) -> str:
        """One line a part with its bytes per GPU, then the total (and the CPU memory of offloaded states)."""
        return breakdown_table(self)

    def __str__(self):
        return self.table()


def check_config(cfg, name: str = "cfg") -> ModelConfig:
    """A ModelConfig, where a helper takes one already read (a plan takes a preset's name or a config.json too)."""
    if not isinstance(cfg, ModelConfig):
        raise InputError(name, _("{name} == {value}, must be a ModelConfig (model.preset or model.config_from).")
                         .format(name=name, value=v.quote(cfg)))
    return cfg


def check_parallel(cfg: ModelConfig, dp, tp, pp, zero):
    """The parallel degrees a model can be split by: tp must divide its heads, pp at most its layers."""
    check_config(cfg)
    v.check_int("dp", dp, maximum=int(v.HUGE))
    v.check_int("tp", tp, maximum=int(v.HUGE))
    v.check_int("pp", pp, maximum=cfg.num_layers)
    v.check_int("zero", zero, minimum=0, maximum=3)
    if cfg.num_heads % tp:
        raise InputError("tp", _("tp == {tp} must divide the attention heads ({heads} % {tp} != 0).").format(
            tp=tp, heads=cfg.num_heads))


def _check_activations(micro_batch, seq_len, recompute, flash, overhead_bytes):
    v.check_int("micro_batch", micro_batch)
    v.check_int("seq_len", seq_len)
    v.check_choice("recompute", recompute, RECOMPUTE)
    v.check_bool("flash", flash)
    v.check_number("overhead_bytes", overhead_bytes, low=0)


@v.checked
def largest_module_params(model) -> int:
    """The parameters of the largest module (one matrix, or the embedding), which ZeRO-3 gathers whole: what
    DeepSpeed's estimators call largest_layer_params (a module's own parameters, its children's apart)."""
    cfg = config_from(model)
    expert_ffn = cfg.expert_ffn_hidden_size if cfg.is_moe else 0
    return max(cfg.vocab_size * cfg.hidden_size, cfg.hidden_size * cfg.ffn_hidden_size,
               cfg.hidden_size * expert_ffn, cfg.hidden_size * cfg.num_heads * cfg.head_dim)


def _check_layout(cfg: ModelConfig, dp, cp, ep, seq_len, flash):
    v.check_int("cp", cp)
    v.check_int("ep", ep)
    if seq_len % cp:
        raise InputError("cp", _("cp == {cp} must divide the sequence ({seq_len} % {cp} != 0).").format(
            cp=cp, seq_len=f"{seq_len:,}"))
    if cp > 1 and not flash:
        raise InputError("cp", _("cp == {cp} with flash=False: context parallelism runs on fused attention "
                                 "(Megatron-Core's uses Transformer Engine's), the only kind modelled with it.")
                         .format(cp=cp))
    if ep > 1 and not cfg.is_moe:
        raise InputError("ep", _("ep == {ep}, must be 1: {model} has no experts to split.").format(
            ep=ep, model=cfg.name or _("this model")))
    if cfg.is_moe and cfg.num_experts % ep:
        raise InputError("ep", _("ep == {ep} must divide the routed experts ({experts} % {ep} != 0).").format(
            ep=ep, experts=cfg.num_experts))
    if (dp * cp) % ep:
        raise InputError("ep", _("ep == {ep} must divide the data-parallel GPUs dp·cp ({gpus} % {ep} != 0): expert "
                                 "parallelism splits the experts over GPUs that hold the same dense layers.").format(
            ep=ep, gpus=dp * cp))


@v.checked(offload=v.one_of(OFFLOAD), **v.WHOLE)
def training_memory(model, *, convention="mixed", optimizer="adamw", zero=0, dp=1, tp=1, pp=1, cp=1, ep=1,
                    micro_batch=1, seq_len=2048, recompute="none", flash=True, sequence_parallel=False,
                    fp32_norms=True, offload="none", reduce_bucket_size=ZERO_DEFAULTS["reduce_bucket_size"],
                    prefetch_bucket_size=ZERO_DEFAULTS["prefetch_bucket_size"],
                    max_live_parameters=ZERO_DEFAULTS["max_live_parameters"],
                    param_persistence_threshold=ZERO_DEFAULTS["param_persistence_threshold"],
                    overhead_bytes=RUNTIME_OVERHEAD_BYTES[0], precision=None) -> MemoryBreakdown:
    """Memory per GPU for training, on dp·tp·pp·cp GPUs. Tensor and pipeline parallelism split the model over tp·pp
    GPUs; ZeRO then shards over the data-parallel replicas: stage 1 the optimizer states (and master copy), stage 2
    also the gradients, stage 3 (FSDP) also the weights. Each divides by its own degree, never by the world size.

    Context parallelism (cp) splits each sequence over cp GPUs: each keeps the activations of seq_len/cp tokens
    (Megatron-Core's context-parallel guide: "activation memory footprint per GPU is also CP times smaller"), and,
    as its distributed optimizer does (get_megatron_optimizer shards dense parameters over intra_dp_cp_group), ZeRO
    shards over dp·cp GPUs, which hold the same parameters. Expert parallelism (ep) splits the routed experts over
    ep of those GPUs: each holds 1/ep of them with their gradients and states, sharded over the dp·cp/ep GPUs that
    hold the same experts (Megatron-Core's expert data-parallel group); attention, shared experts and embeddings
    stay on every GPU. ``offload`` moves the optimizer states, and at ZeRO-3 the parameters, to CPU memory (the
    ``cpu`` of the result). ``buffers``: DeepSpeed's reduce bucket and, at ZeRO-3, the gathered and prefetched
    parameters, sized by DeepSpeed's settings of the same names (llmest.formulas.zero). ``fp32_norms``: RMSNorms keep an
    FP32 copy of their input, as transformers' do.
    Activations are for one micro-batch per layer; with 1F1B pipelining the first stage holds about as many
    micro-batches as there are stages, so a GPU holds about L layers' worth whatever pp is.

    ``precision``: a recipe of ``formulas.precision`` ("bf16", "fp8-te", "fp8-deepseek", "mxfp8", "nvfp4"): the
    format of each state (``recipe_state_bytes``, in place of the convention's) and of the matmul inputs saved for
    backward (``recipe_activations_per_gpu``)."""
    cfg = config_from(model)
    check_parallel(cfg, dp, tp, pp, zero)
    _check_activations(micro_batch, seq_len, recompute, flash, overhead_bytes)
    v.check_bool("sequence_parallel", sequence_parallel)
    _check_layout(cfg, dp, cp, ep, seq_len, flash)
    _check_offload(offload, zero)
    per_param = state_bytes_per_param(convention, optimizer)  # checked whether or not a recipe replaces it
    if precision is not None:
        per_param = recipe_state_bytes(precision, optimizer)
    states = training_states(cfg, per_param, zero, dp, tp, pp, cp, ep, offload)
    gpu_states, cpu = states["gpu"], states["cpu"]
    parts = {
        **gpu_states,
        "buffers": zero_buffers(cfg, per_param, zero, tp, pp, reduce_bucket_size, prefetch_bucket_size,
                                max_live_parameters, param_persistence_threshold),
        "activations": recipe_activations_per_gpu(cfg, micro_batch, seq_len // cp, tp, sequence_parallel, recompute,
                                                  flash, fp32_norms, precision),
        "overhead": overhead_bytes,
    }
    return MemoryBreakdown(parts, gpus=dp * tp * pp * cp, cpu={p: b for p, b in cpu.items() if b},
                           precision=recipe(precision).name if precision is not None else "")


def training_states(cfg: ModelConfig, per_param, zero, dp, tp, pp, cp=1, ep=1, offload="none") -> dict:
    """Training states per GPU, {"gpu": parts, "cpu": parts}: 1/(tp·pp) of the dense parameters, sharded by ZeRO
    over the dp·cp GPUs that hold them, and 1/ep of that of the routed experts, over dp·cp/ep (norms and embeddings
    are not split exactly so: a small error). The degrees may be NumPy arrays, one per layout (the layout search)."""
    check_config(cfg)
    dp, tp, pp, cp, ep = (v.check_whole(name, value) for name, value in
                          (("dp", dp), ("tp", tp), ("pp", pp), ("cp", cp), ("ep", ep)))
    counts = count_params(cfg)
    split, experts = tp * pp, counts.parts["experts"]
    shards = [((counts.total - experts) / split, dp * cp)] + ([(experts / split / ep, dp * cp / ep)] if experts else [])
    states = [offloaded_state_bytes(n, per_param, zero, gpus, offload) for n, gpus in shards]
    return {where: {part: sum(s[where][part] for s in states) for part in states[0][where]} for where in ("gpu", "cpu")}


def zero_buffers(cfg: ModelConfig, per_param, zero, tp, pp, reduce_bucket_size=ZERO_DEFAULTS["reduce_bucket_size"],
                 prefetch_bucket_size=ZERO_DEFAULTS["prefetch_bucket_size"],
                 max_live_parameters=ZERO_DEFAULTS["max_live_parameters"],
                 param_persistence_threshold=ZERO_DEFAULTS["param_persistence_threshold"]):
    """ZeRO's buffers per GPU (``zero.zero_buffer_bytes``): at ZeRO-3 the largest module's 1/tp plus the prefetch
    bucket, at most the live-parameter limit, and the norms every GPU keeps whole below the persistence threshold.
    tp and pp may be arrays."""
    check_config(cfg)
    if not isinstance(per_param, StateBytes):
        raise InputError("per_param", _("per_param == {value}, must be the StateBytes of state_bytes_per_param().")
                         .format(value=v.quote(per_param)))
    tp, pp = v.check_whole("tp", tp), v.check_whole("pp", pp)
    for name, value in (("reduce_bucket_size", reduce_bucket_size), ("prefetch_bucket_size", prefetch_bucket_size),
                        ("max_live_parameters", max_live_parameters),
                        ("param_persistence_threshold", param_persistence_threshold)):
        v.check_nonnegative(name, value)
    persistent = count_params(cfg).parts["norms"] / pp if cfg.hidden_size < param_persistence_threshold else 0
    wanted = largest_module_params(cfg) / tp + prefetch_bucket_size
    gathered = (max_live_parameters + wanted - abs(max_live_parameters - wanted)) / 2  # the lesser, arrays too
    return zero_buffer_bytes(zero, reduce_bucket_size, gathered, persistent, per_param.weights)


@v.checked(kv_dtype=v.one_of(BYTES_PER_VALUE), **v.WHOLE)
def inference_memory(model, *, weights="bf16", seq_len=2048, batch=1, kv_dtype="bf16", tp=1,
                     overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """Memory per GPU for serving: weights split over tp GPUs, the KV cache over as many as hold different KV heads
    (``kv_cache_shards``: no more than the KV heads; MLA's latent is kept whole on each) with a hybrid's constant
    state (``cache_bytes_per_gpu``), plus the runtime overhead."""
    cfg = config_from(model)
    check_parallel(cfg, 1, tp, 1, 0)
    parts = {
        "weights": model_weight_bytes(cfg, weights) / tp,
        "kv_cache": cache_bytes_per_gpu(cfg, seq_len, batch, kv_dtype, tp),
        "overhead": overhead_bytes,
    }
    return MemoryBreakdown(parts, gpus=tp)


@v.checked(base=v.one_of(WEIGHT_FORMATS), adapters=v.one_of(CONVENTIONS), **v.WHOLE)
def qlora_memory(model, *, rank=64, targets=LORA_TARGETS, micro_batch=1, seq_len=2048, base="nf4-dq",
                 adapters="fp32", recompute="full", flash=True,
                 overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """QLoRA on one GPU: a frozen 4-bit base, trainable adapters with their gradients and AdamW states (in the
    ``adapters`` convention: PEFT keeps them in fp32 by default), activations with gradient checkpointing."""
    cfg = config_from(model)
    _check_activations(micro_batch, seq_len, recompute, flash, overhead_bytes)
    n_adapter = lora_params(cfg, rank, targets)
    per_param = state_bytes_per_param(adapters, "adamw")
    parts = {
        "weights": model_weight_bytes(cfg, base),
        "adapters": n_adapter * per_param.weights,
        "gradients": n_adapter * per_param.grads,
        "optimizer": n_adapter * (per_param.optimizer + per_param.master),
        "activations": activations_per_gpu(cfg, micro_batch, seq_len, recompute=recompute, flash=flash),
        "overhead": overhead_bytes,
    }
    return MemoryBreakdown(parts)


@v.checked(base=v.one_of(WEIGHT_FORMATS), adapters=v.one_of(CONVENTIONS), **v.WHOLE)
def lora_memory(model, *, rank=64, targets=LORA_TARGETS, micro_batch=1, seq_len=2048, base="bf16",
                adapters="fp32", recompute="full", flash=True,
                overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """LoRA on one GPU: QLoRA's accounting with the frozen base kept in ``base`` (BF16, not quantised)."""
    return qlora_memory(model, rank=rank, targets=targets, micro_batch=micro_batch, seq_len=seq_len, base=base,
                        adapters=adapters, recompute=recompute, flash=flash, overhead_bytes=overhead_bytes)


@v.checked(**v.WHOLE)
def usable_bytes(gpu, margin=MEMORY_MARGIN) -> float:
    """A GPU's memory less the safety margin (20% in the material)."""
    return hardware.gpu(gpu).memory_bytes * (1 - margin)


@v.checked(**v.WHOLE)
def fits(memory, gpu, margin=MEMORY_MARGIN) -> bool:
    """Whether ``memory`` (a MemoryBreakdown per GPU, or bytes) stays within a GPU's usable memory."""
    total = memory.total if isinstance(memory, MemoryBreakdown) else v.check_number("memory", memory, low=0)
    return total <= usable_bytes(gpu, margin)


@v.checked(**v.WHOLE)
def min_gpus(plan, gpu, margin=MEMORY_MARGIN, limit=4096):
    """The smallest n for which ``plan(n)`` (a MemoryBreakdown per GPU) fits, or None below ``limit``.
    Example: ``min_gpus(lambda n: training_memory(cfg, zero=3, dp=n), "A100 80GB")``."""
    if not callable(plan):
        raise InputError("plan", _("plan == {plan}, must be a function of the GPU count that returns a "
                                   "MemoryBreakdown (e.g. lambda n: training_memory(cfg, zero=3, dp=n)).").format(
            plan=v.quote(plan)))
    usable = usable_bytes(gpu, margin)
    n = 1
    while n <= limit:
        try:
            if plan(n).total <= usable:
                return n
        except InputError as err:
            if err.param not in ("tp", "dp", "pp", "ep"):  # a count the layout cannot use: try the next
                raise
        n += 1
    return None


@v.checked(**v.WHOLE)
def gpus_to_hold(total_bytes, gpu, margin=MEMORY_MARGIN):
    """GPUs of a kind whose usable memory holds ``total_bytes`` split evenly: ⌈bytes / usable memory⌉."""
    return int(-(-total_bytes // usable_bytes(gpu, margin)))


@v.checked(**v.WHOLE)
def state_gpus(n_params, bytes_per_param, gpu, margin=0.0):
    """GPUs needed just to hold the training states, sharded evenly (ZeRO-3): ⌈N·bytes / usable memory⌉."""
    return gpus_to_hold(training_state_bytes(n_params, bytes_per_param), gpu, margin)


@v.checked(**v.WHOLE)
def zero_gpus(n_params, gpu="A100 80GB", *, zero=2, convention="mixed", optimizer="adamw",
              activations_shared_bytes=0.0, margin=MEMORY_MARGIN, limit=GPU_SEARCH_LIMIT):
    """The least data-parallel GPUs that hold the training states of ``n_params`` parameters at a ZeRO stage,
    with ``activations_shared_bytes`` (a fixed batch's activations) shared out evenly over them; None when no
    count up to ``limit`` does. A count of parameters, not a model: the material's exercises work so."""
    v.check_int("zero", zero, minimum=0, maximum=3)
    per_param = state_bytes_per_param(convention, optimizer)
    return min_gpus(lambda n: MemoryBreakdown({**sharded_state_bytes(n_params, per_param, zero, n),
                                               "activations": activations_shared_bytes / n}, gpus=n),
                    gpu, margin, limit)
