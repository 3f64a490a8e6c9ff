"""GPU memory formulas: training states, activations, sharding across GPUs, inference weights, the KV cache, LoRA.

Formulas (``*_bytes`` functions of plain sizes) use only + - * / and work on numbers, NumPy arrays and SymPy symbols.
The plans that apply them to a model (``training_memory``, ``inference_memory``, ``qlora_memory``, ``plan_memory``)
and the decisions (does it fit, how many GPUs) are in ``llmest.plans``.
Bytes are bytes; GB means 1e9 bytes and GiB 2**30.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import _validate as v
from ..core._validate import InputError
from ..core.i18n import N_, _
from .kv_cache import BYTES_PER_VALUE, kv_cache_bytes, kv_cache_bytes_for, mla_kv_cache_bytes  # noqa: F401
from .model import PRESETS, ModelConfig, config_from, count_params
from .deepseek_v4 import refuse_compressed_attention


# The material's margin: keep 20% of a GPU's memory free for temporaries, caches and fragmentation.
MEMORY_MARGIN = 0.2
# What the CUDA context, cuBLAS/cuDNN workspaces and NCCL buffers take before any tensor: a range, not a constant.
# Measure yours with torch.cuda.mem_get_info() right after initialising the process group.
RUNTIME_OVERHEAD_BYTES = (0.5e9, 2.0e9)


def _config(name: str, value) -> ModelConfig:
    """A model for a formula that reads its shape: a ModelConfig or a preset's name."""
    if isinstance(value, ModelConfig):
        return value
    if isinstance(value, str):
        return v.lookup(name, value, PRESETS)
    raise InputError(name, _("{name} == {value}, must be a ModelConfig or a preset's name.").format(
        name=name, value=v.quote(value)))


def _recompute(name: str, value) -> str:
    return v.check_choice(name, value, RECOMPUTE)


def _bytes(name: str, dtype) -> float:
    return v.lookup(name, dtype, BYTES_PER_VALUE)


# ----------------------------------------------------------------------------------------------------------------
# Training states: weights, master copy, gradients, optimizer states
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Convention:
    """How a training setup stores each copy of the parameters. ``master`` None: no extra copy; ``grads`` None:
    the optimizer step runs inside backward, so the full set of gradients is never held."""

    name: str
    weights: str
    master: str | None
    grads: str | None
    states: str
    used_by: str


CONVENTIONS = {c.name: c for c in [
    Convention("mixed", "bf16", "fp32", "bf16", "fp32",
               N_("mixed precision as the ZeRO paper counts it, with 16-bit gradients; the material's convention")),
    Convention("megatron-bf16", "bf16", "fp32", "fp32", "fp32",
               N_("Megatron-LM with bf16: gradients accumulated and all-reduced in fp32")),
    Convention("fp32", "fp32", None, "fp32", "fp32",
               N_("plain PyTorch with fp32 parameters; autocast (AMP) computes in bf16 but stores these")),
    Convention("bf16", "bf16", None, "bf16", "bf16",
               N_("a plain PyTorch optimizer on a model cast to bf16: no master copy, states in bf16")),
    Convention("bf16-fp32-states", "bf16", None, "bf16", "fp32",
               N_("a configuration: bf16 parameters and gradients, an optimizer told to keep fp32 states")),
    Convention("bf16-fp32-states-fused", "bf16", None, None, "fp32",
               N_("the same with the optimizer step fused into backward (as torchtune's optimizer_in_bwd does), so "
                  "each gradient is freed once applied")),
]}


@dataclass(frozen=True)
class Optimizer:
    name: str
    states: int                 # tensors of the parameter's size it keeps
    state_dtype: str | None     # fixed by the optimizer (8-bit Adam), or None: the convention's
    block_constant_bytes: float = 0.0   # quantisation constants per block of `block`, per state
    block: int = 1
    note: str = ""


OPTIMIZERS = {o.name: o for o in [
    Optimizer("adamw", 2, None, note="first and second moments (m, v)"),
    Optimizer("adam8bit", 2, "int8", block_constant_bytes=4, block=2048,
              note="m and v in 8 bits with an fp32 scale per block of 2048 (Dettmers et al. 2022)"),
    Optimizer("sgd-momentum", 1, None, note="one momentum buffer"),
    Optimizer("adafactor", 0, None,
              note="no first moment by default; the second moment factored into a row and a column vector per "
                   "matrix, so about 0 bytes per parameter (Shazeer and Stern 2018)"),
]}


def _convention(name) -> Convention:
    if isinstance(name, Convention):
        return name
    return v.lookup("convention", name, CONVENTIONS)


def _optimizer(name) -> Optimizer:
    return v.lookup("optimizer", name, OPTIMIZERS)


@dataclass(frozen=True)
class StateBytes:
    """Bytes per parameter of each training state."""

    weights: float
    master: float
    grads: float
    optimizer: float

    @property
    def total(self) -> float:
        return self.weights + self.master + self.grads + self.optimizer


@v.checked
def state_bytes_per_param(convention="mixed", optimizer="adamw") -> StateBytes:
    """Bytes per parameter for weights, master copy, gradients and optimizer states."""
    c, o = _convention(convention), _optimizer(optimizer)
    state_dtype = o.state_dtype or c.states
    per_state = _bytes("state dtype", state_dtype)
    if o.block_constant_bytes:
        per_state += o.block_constant_bytes / o.block
    return StateBytes(
        weights=_bytes("weights", c.weights),
        master=_bytes("master", c.master) if c.master else 0,
        grads=_bytes("grads", c.grads) if c.grads else 0,
        optimizer=o.states * per_state,
    )


@v.checked
def training_state_bytes(n_params, bytes_per_param=16):
    """All training states of a model, unsharded: N × bytes per parameter (16 for mixed-precision AdamW)."""
    return n_params * bytes_per_param


# ----------------------------------------------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------------------------------------------

RECOMPUTE = ("none", "selective", "full")
# What selective recomputation saved and cost in Korthikanti et al. 2022 (activation memory saved, extra FLOPs).
SELECTIVE_RECOMPUTE_PUBLISHED = {"GPT-3 175B": (0.70, 0.027), "MT-NLG 530B": (0.65, 0.016)}


@v.checked
def activation_bytes_rule(layers, batch, seq_len, hidden, bytes_per_value=2, factor=40):
    """The material's rule: L × B × S × H × bytes × a factor of 30-60 (it uses 40)."""
    return layers * batch * seq_len * hidden * bytes_per_value * factor


@v.checked(recompute=_recompute)
def layer_activation_bytes(seq_len, batch, hidden, heads, tp=1, sequence_parallel=False, recompute="none",
                           flash=False):
    """Activations one layer keeps for backward (Korthikanti et al. 2022, 16-bit values, 1-byte dropout masks):
    sbh(34 + 5as/h) unsharded. Tensor parallelism divides 24 of the 34 (the 10 for norms, dropout and inputs stay
    replicated unless sequence parallelism splits them too). Selective recomputation and FlashAttention both drop
    the 5as/h term, the attention scores; full recomputation keeps only the layer's input, 2sbh."""
    s, b, h, a, t = seq_len, batch, hidden, heads, tp
    unsplit = isinstance(t, int) and t == 1  # then keep the 34 an integer (SymPy shows 34, not 34.0)
    if recompute == "full":
        return 2 * s * b * h / t if sequence_parallel and not unsplit else 2 * s * b * h
    if unsplit:
        replicated = 34
    else:
        replicated = 34 / t if sequence_parallel else 10 + 24 / t
    scores = 0 if (recompute == "selective" or flash) else 5 * a * s / (h * t)
    return s * b * h * (replicated + scores)


@v.checked(recompute=_recompute)
def gated_layer_activation_bytes(seq_len, batch, hidden, heads, kv_heads, head_dim, ffn_hidden, tp=1,
                                 sequence_parallel=False, recompute="none", flash=False, fp32_norms=True):
    """The same count for a Llama-style layer: RMSNorm, a gated FFN (SwiGLU) of width F, grouped-query attention,
    no dropout. Saved in 16 bits: the QKV input (2sbh), Q (2sbh), K and V (2·2sb·kv·d), the attention output
    (2sbh), the FFN input (2sbh), the gate, up, activation and product (4·2sbF), and the softmax output (2as²b)
    unless FlashAttention or selective recomputation drops it. Each of the 2 RMSNorms keeps, with ``fp32_norms``
    (transformers' LlamaRMSNorm upcasts: ``hidden_states.to(torch.float32)``), its input in FP32 (4sbh), the
    normalised input in 16 bits before the scale multiplies it (2sbh) and 1/rms per token in FP32 (4sb): 6sbh + 4sb.
    Without (a norm that keeps its 16-bit input, as Megatron's and Apex's fused kernels do), 2sbh, as Korthikanti
    et al. count; their FP32 1/rms per token (4sb, 2/h of that) is left out, as Korthikanti et al. leave it.
    Tensor parallelism splits all but the norms' tensors and the block inputs; sequence parallelism splits those."""
    s, b, h, a, t = seq_len, batch, hidden, heads, tp
    if recompute == "full":
        return 2 * s * b * h / t if sequence_parallel and not (isinstance(t, int) and t == 1) else 2 * s * b * h
    norm = 6 * s * b * h + 4 * s * b if fp32_norms else 2 * s * b * h
    replicated = 2 * norm + 4 * s * b * h
    split = 4 * s * b * h + 4 * s * b * kv_heads * head_dim + 8 * s * b * ffn_hidden
    scores = 0 if (recompute == "selective" or flash) else 2 * a * s * s * b
    if isinstance(t, int) and t == 1:
        return replicated + split + scores
    return (replicated / t if sequence_parallel else replicated) + (split + scores) / t


@v.checked
def output_activation_bytes(seq_len, batch, hidden, vocab_size, tp=1, fp32_norms=True):
    """The final norm, output projection and loss: Korthikanti et al.'s 4sbh/t · (1 + V/h) (the norm's and the
    head's 16-bit inputs, the FP32 logits), plus, with ``fp32_norms`` (transformers' RMSNorm), the final norm's
    FP32 input instead of a 16-bit one, its normalised 16-bit input and 1/rms per token: 4sbh + 4sb more."""
    s, b, h = seq_len, batch, hidden
    norm = 4 * s * b * h + 4 * s * b if fp32_norms else 0
    return (4 * s * b * h * (1 + vocab_size / h) + norm) / tp


# ----------------------------------------------------------------------------------------------------------------
# Inference weights and quantisation
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class WeightFormat:
    name: str
    bits: float
    block: int = 1                     # parameters sharing one set of constants
    constant_bytes: float = 0.0        # bytes of constants per block
    note: str = ""

    @property
    def bytes_per_param(self) -> float:
        return self.bits / 8 + self.constant_bytes / self.block


WEIGHT_FORMATS = {f.name: f for f in [
    WeightFormat("fp32", 32), WeightFormat("bf16", 16), WeightFormat("fp16", 16),
    WeightFormat("int8", 8, note=N_("per-channel scales are negligible")),
    # DeepSeek-V3's checkpoint: E4M3 weights with an FP32 scale per 128 × 128 block (its config.json,
    # quantization_config weight_block_size [128, 128]; report arXiv 2412.19437 §3.3.1).
    WeightFormat("fp8", 8, block=128 * 128, constant_bytes=4,
                 note=N_("E4M3 with an FP32 scale per 128 × 128 block, as DeepSeek-V3's checkpoint")),
    WeightFormat("int4", 4, block=128, constant_bytes=2.5,
                 note=N_("GPTQ/AWQ style: an fp16 scale and a 4-bit zero point per group of 128")),
    WeightFormat("nf4", 4, block=64, constant_bytes=4,
                 note=N_("bitsandbytes NF4: an fp32 absmax per block of 64")),
    WeightFormat("nf4-dq", 4, block=64, constant_bytes=1 + 4 / 256,
                 note=N_("NF4 with double quantisation (QLoRA): an 8-bit absmax per block, an fp32 constant per "
                         "256 blocks")),
]}


def _format(name) -> WeightFormat:
    return v.lookup("weights", name, WEIGHT_FORMATS)


@v.checked
def weight_bytes(n_params, bytes_per_param=2):
    """N × bytes per parameter: 2 in BF16, 0.5 for the material's INT4 rule."""
    return n_params * bytes_per_param


@v.checked(cfg=_config)
def quantizable_params(cfg: ModelConfig) -> int:
    """Parameters in the linear layers of the blocks (attention, FFN, experts), which 4- and 8-bit formats quantise.
    Embeddings, the output head, norms and biases stay in 16 bits, as bitsandbytes and GPTQ leave them."""
    parts = count_params(cfg.replace(attention_bias="none", ffn_bias=False)).parts
    return parts["attention"] + parts["ffn"] + parts["experts"] + parts["shared_experts"]


@v.checked
def model_weight_bytes(model, weights="bf16") -> float:
    """A real model's weights in a format: quantised linear layers, the rest in bf16."""
    cfg = config_from(model)
    fmt = _format(weights)
    total = count_params(cfg).total
    if fmt.bits >= 16:
        return total * fmt.bytes_per_param
    quantized = quantizable_params(cfg)
    return quantized * fmt.bytes_per_param + (total - quantized) * BYTES_PER_VALUE["bf16"]


# ----------------------------------------------------------------------------------------------------------------
# LoRA
# ----------------------------------------------------------------------------------------------------------------

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
# Adapters on expert FFNs are not modelled: a mixture of experts gets them on its attention projections only.
ATTENTION_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")


def default_lora_targets(model) -> tuple:
    """The matrices a LoRA adapter goes on when none are named: all seven projections, or attention's four for a
    mixture of experts."""
    return ATTENTION_TARGETS if config_from(model).is_moe else LORA_TARGETS


@v.checked
def lora_matrix_params(rank, rows, cols):
    """A LoRA adapter on a rows × cols matrix: B (rows × r) and A (r × cols), r·(rows + cols) parameters."""
    return rank * (rows + cols)


@v.checked(cfg=_config)
def target_shapes(cfg: ModelConfig) -> dict:
    """The (input, output) shape of each Llama-style target matrix of one layer."""
    q, kv, H, F = cfg.num_heads * cfg.head_dim, cfg.num_kv_heads * cfg.head_dim, cfg.hidden_size, cfg.ffn_hidden_size
    return {"q_proj": (H, q), "k_proj": (H, kv), "v_proj": (H, kv), "o_proj": (q, H),
            "gate_proj": (H, F), "up_proj": (H, F), "down_proj": (F, H)}


@v.checked
def lora_params(model, rank, targets=("q_proj", "v_proj")) -> int:
    """Adapter parameters for a rank and a set of target matrices, from the model's real shapes."""
    cfg = config_from(model)
    if isinstance(targets, str) or not isinstance(targets, (list, tuple, set, frozenset)):
        raise InputError("targets", _("targets == {value}, must be a list of matrix names from {names}.").format(
            value=v.quote(targets), names=", ".join(LORA_TARGETS)))
    targets = tuple(targets)
    if not targets:
        raise InputError("targets", _("targets == (), must name at least one of {names}.").format(
            names=", ".join(LORA_TARGETS)))
    for t in targets:
        v.check_choice("targets", t, LORA_TARGETS)
    if cfg.is_moe and set(targets) & {"gate_proj", "up_proj", "down_proj"}:
        raise InputError("targets", _("targets == {targets}: {model} is a mixture of experts; adapters on expert "
                                      "FFNs are not modelled, target attention only.").format(
            targets=targets, model=cfg.name or _("this model")))
    shapes = target_shapes(cfg)
    return cfg.num_layers * sum(lora_matrix_params(rank, *shapes[t]) for t in targets)


# ----------------------------------------------------------------------------------------------------------------
# Sharding, and the activations of a real model
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def sharded_state_bytes(n_params, per_param: StateBytes, zero=0, dp=1) -> dict:
    """Training states per GPU when ZeRO shards them over dp data-parallel GPUs: stage 1 the optimizer states and
    master copy, stage 2 also the gradients, stage 3 (FSDP) also the weights."""
    if not isinstance(per_param, StateBytes):
        raise InputError("per_param", _("per_param == {value}, must be the StateBytes of state_bytes_per_param().")
                         .format(value=v.quote(per_param)))
    v.check_int("zero", zero, minimum=0, maximum=3)
    return {
        "weights": n_params * per_param.weights / (dp if zero >= 3 else 1),
        "master": n_params * per_param.master / (dp if zero >= 1 else 1),
        "gradients": n_params * per_param.grads / (dp if zero >= 2 else 1),
        "optimizer": n_params * per_param.optimizer / (dp if zero >= 1 else 1),
    }


@v.checked(cfg=_config, recompute=_recompute)
def model_layer_activation_bytes(cfg: ModelConfig, micro_batch, seq_len, tp=1, sequence_parallel=False,
                                 recompute="none", flash=True, fp32_norms=True) -> float:
    """One layer of a real model: the gated (Llama-style) count for gated FFNs, Korthikanti et al.'s otherwise.
    ``fp32_norms``: RMSNorms that keep an FP32 copy of their input, as transformers' do (False: a fused norm)."""
    refuse_compressed_attention(cfg, _("its activations (several residual streams, the compressors)"))
    if cfg.gated_ffn:
        return gated_layer_activation_bytes(seq_len, micro_batch, cfg.hidden_size, cfg.num_heads, cfg.num_kv_heads,
                                            cfg.head_dim, cfg.ffn_hidden_size, tp, sequence_parallel, recompute,
                                            flash, fp32_norms and cfg.norm == "rmsnorm")
    return layer_activation_bytes(seq_len, micro_batch, cfg.hidden_size, cfg.num_heads, tp, sequence_parallel,
                                  recompute, flash)


@v.checked(cfg=_config, recompute=_recompute)
def activations_per_gpu(cfg: ModelConfig, micro_batch, seq_len, tp=1, sequence_parallel=False, recompute="none",
                        flash=True, fp32_norms=True) -> float:
    """Layers' activations for one micro-batch, plus the output layer; with full recomputation, every layer's input
    plus one layer recomputed at a time during backward. ``fp32_norms`` applies to models with RMSNorm."""
    args = (cfg, micro_batch, seq_len, tp, sequence_parallel)
    layer = {"flash": flash, "fp32_norms": fp32_norms}
    total = cfg.num_layers * model_layer_activation_bytes(*args, recompute=recompute, **layer)
    if recompute == "full":
        total += model_layer_activation_bytes(*args, recompute="none", **layer)
    fp32_output_norm = fp32_norms and cfg.norm == "rmsnorm"
    return total + output_activation_bytes(seq_len, micro_batch, cfg.hidden_size, cfg.vocab_size, tp, fp32_output_norm)


# ----------------------------------------------------------------------------------------------------------------
# Communication and the pipeline bubble (seed 004 §5.2)
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def data_parallel_traffic_bytes(n_params, bytes_per_value=2, zero=0, dp=None):
    """Bytes each GPU sends per step for data parallelism: a ring all-reduce of the gradients moves about 2Ψ
    (reduce-scatter + all-gather); ZeRO-1/2 the same 2Ψ; ZeRO-3 about 3Ψ (weights gathered for the forward and
    again for the backward, gradients reduce-scattered). Exactly, each ring collective over dp GPUs sends
    (dp − 1)/dp of the data: give ``dp`` for that factor, leave it out for the large-dp limit."""
    v.check_int("zero", zero, minimum=0, maximum=3)
    share = 1 if dp is None else (dp - 1) / dp
    return (3 if zero == 3 else 2) * n_params * bytes_per_value * share


@v.checked
def pipeline_bubble(stages, micro_batches):
    """The idle fraction of a GPipe or 1F1B pipeline: (p − 1) / (m + p − 1)."""
    return (stages - 1) / (micro_batches + stages - 1)
