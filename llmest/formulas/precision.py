"""Training precision recipes: which tensors are kept and multiplied in which number format, the bytes each training
state and saved activation takes under a recipe, and the tensor-core peak its matmuls run at.

A recipe is data (``RECIPES``), one per convention people train with in 2024-2026: ``bf16`` (today's default),
``fp8-deepseek`` (DeepSeek-V3's fine-grained FP8), ``fp8-te`` (Transformer Engine's per-tensor FP8, as NVIDIA's
Megatron/NeMo recipes run it on Hopper), and Blackwell's block-scaled ``mxfp8`` and ``nvfp4``.

A *format* (``FORMATS``) is bytes per element including its scale factors: an FP8 tile of 1×128 with an FP32 scale
is 1 + 4/128 bytes an element; MXFP8 is 1 byte plus an 8-bit (E8M0) scale per 32; NVFP4 half a byte plus an FP8
(E4M3) scale per 16. The formulas use only + - * / and work on numbers, NumPy arrays and SymPy symbols. The catalog
is a later layer, so the peak is read from a GPU row passed in (any object with ``bf16_flops_per_s``,
``fp8_flops_per_s`` and ``fp4_flops_per_s``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import _validate as v
from ..core._validate import InputError
from ..core.i18n import N_, _
from .memory import BYTES_PER_VALUE, OPTIMIZERS, RECOMPUTE, StateBytes, activations_per_gpu


@dataclass(frozen=True)
class Format:
    """A number format as stored: element bits and the scale factors shared by a block of elements."""

    name: str
    element_bytes: float
    block: int = 1                 # elements sharing one scale (1: a scale per tensor, negligible)
    scale_bytes: float = 0.0       # bytes of one scale
    note: str = ""

    @property
    def bytes_per_value(self) -> float:
        return self.element_bytes + self.scale_bytes / self.block


FORMATS = {f.name: f for f in [
    Format("fp32", 4), Format("bf16", 2),
    Format("fp8-tensor", 1, note=N_("FP8 with one FP32 scale per tensor (Transformer Engine's delayed or current "
                                    "scaling)")),
    # DeepSeek-V3 §3.3.2: "we calculate the maximum absolute value online for each 1x128 activation tile or 128x128
    # weight block"; the scaling factors are FP32 (its released checkpoint stores weight_scale_inv in float32).
    Format("fp8-1x128", 1, block=128, scale_bytes=4, note=N_("FP8 E4M3, an FP32 scale per 1×128 tile")),
    Format("fp8-128x128", 1, block=128 * 128, scale_bytes=4, note=N_("FP8 E4M3, an FP32 scale per 128×128 block")),
    # DeepSeek-V3 §3.3.3: the inputs of the Linear after attention are cached in "a customized E5M6 data format".
    Format("e5m6", 1.5, note=N_("DeepSeek-V3's 12-bit format for the input of the projection after attention")),
    # OCP Microscaling Formats (MX) v1.0: a shared 8-bit E8M0 scale per block of 32 elements.
    Format("mxfp8", 1, block=32, scale_bytes=1, note=N_("MXFP8 (OCP MX v1.0): E4M3, an E8M0 scale per 32")),
    # NVIDIA, "Pretraining Large Language Models with NVFP4" (arXiv 2509.25149) §2: E2M1 elements, an E4M3 scale per
    # 16-element block and an FP32 scale per tensor.
    Format("nvfp4", 0.5, block=16, scale_bytes=1, note=N_("NVFP4: E2M1, an E4M3 scale per 16, an FP32 per tensor")),
]}


@dataclass(frozen=True)
class Recipe:
    """Which tensors a training recipe keeps and multiplies in which format (names from ``FORMATS``).

    weights: the working copy the forward reads; master: the optimizer's copy (None: no extra copy); grads: the
    accumulated weight gradients; moments: each of Adam's two moments; saved_inputs: the matmul inputs saved for the
    backward (the other saved activations stay in ``saved_other``); matmul: the tensor-core rate its GEMMs run at
    ("bf16", "fp8", "fp4"); high_precision: the matmuls kept at BF16 (their FLOPs run at the BF16 peak);
    block_scaled: needs hardware block scaling (Blackwell's tensor cores), not only an FP8 rate."""

    name: str
    weights: str
    master: str | None
    grads: str
    moments: str
    saved_inputs: str
    matmul: str
    matmul_inputs: str
    high_precision: tuple
    source: str
    saved_other: str = "bf16"
    saved_attention_output: str | None = None   # the attention output's format, where it differs from saved_inputs
    extra_weight_copies: tuple = ()     # formats of further weight copies kept between micro-batches
    block_scaled: bool = False
    note: str = ""


# Matmuls a recipe may keep at BF16 (their FLOPs count at the BF16 peak): the output projection (the LM head, part
# of 6N) and the attention scores and values (12·L·H·Q·T per token, not in 6N).
HIGH_PRECISION_PARTS = ("output", "attention", "embedding", "router")

RECIPES = {r.name: r for r in [
    Recipe("bf16", weights="bf16", master="fp32", grads="bf16", moments="fp32", saved_inputs="bf16",
           matmul="bf16", matmul_inputs="bf16", high_precision=(),
           source=N_("mixed precision as the ZeRO paper counts it (Rajbhandari et al. 2020, §3.1: 2Ψ + 2Ψ + 12Ψ "
                     "bytes); the workbook's default convention \"mixed\""),
           note=N_("BF16 matmuls with FP32 accumulation; FP32 master weights and Adam moments")),
    Recipe("fp8-deepseek", weights="bf16", master="fp32", grads="fp32", moments="bf16", saved_inputs="fp8-1x128",
           saved_attention_output="e5m6",
           matmul="fp8", matmul_inputs="fp8-1x128", high_precision=("output", "attention", "embedding", "router"),
           source=N_("DeepSeek-V3 technical report (arXiv 2412.19437) §3.3: Fprop, Dgrad and Wgrad GEMMs in FP8 E4M3 "
                     "with 1×128 activation tiles and 128×128 weight blocks, FP32 accumulation promoted every 128 "
                     "elements; the embedding, output head, MoE gating, norms and attention kept in BF16 or FP32; "
                     "AdamW moments in BF16; master weights and gradients in FP32; Linear inputs cached in FP8 "
                     "(the projection after attention in E5M6)"),
           note=N_("the report does not say which copy the forward reads: a BF16 working copy is assumed, its FP8 "
                   "128×128 blocks made at each GEMM; the activations dispatched to experts travel in FP8")),
    Recipe("fp8-te", weights="fp8-tensor", master="fp32", grads="bf16", moments="fp32", saved_inputs="fp8-tensor",
           matmul="fp8", matmul_inputs="fp8-tensor", high_precision=("output", "attention", "embedding", "router"),
           extra_weight_copies=("fp8-tensor",),
           source=N_("NVIDIA's H100 training recipes (NVIDIA/dgxc-benchmarking v25.02, NeMo 24.12: llama3.1/"
                     "configure.sh sets model.fp8, model.fp8_hybrid and model.fp8_params; its llama3.1_*.yaml: "
                     "distributed_fused_adam, grad_sync_dtype bf16): Transformer Engine's DelayedScaling (HYBRID: E4M3 "
                     "forward, E5M2 gradients, one scale per tensor from an amax history); the parameters kept in FP8 "
                     "with their FP8 transpose (Hopper's FP8 tensor cores take only the TN layout, so Transformer "
                     "Engine keeps row-wise and column-wise data), FP32 master weights and Adam moments sharded by "
                     "the optimizer, BF16 gradients; each Linear saves its FP8 input for the weight gradient; the "
                     "output layer and attention stay BF16"),
           note=N_("state memory as BF16's: FP8 saves activation memory and matmul time, not optimizer memory")),
    Recipe("mxfp8", weights="bf16", master="fp32", grads="fp32", moments="fp32", saved_inputs="mxfp8",
           matmul="fp8", matmul_inputs="mxfp8", high_precision=("output", "attention", "embedding", "router"),
           extra_weight_copies=("mxfp8", "mxfp8"), block_scaled=True,
           source=N_("Transformer Engine's MXFP8BlockScaling recipe (E4M3, an E8M0 scale per 32 elements) on "
                     "Blackwell; Mishra et al., \"Recipes for Pre-training LLMs with MXFP8\" (arXiv 2506.08027): "
                     "E4M3 for all tensors; a row-wise and a column-wise copy, since 1×32 blocks do not survive a "
                     "transpose; states as Megatron-Core keeps them: BF16 parameters, FP32 main gradients and "
                     "distributed-optimizer states, the quantised weights kept between micro-batches"),
           note=N_("runs at the FP8 peak on Blackwell, whose tensor cores apply the block scales")),
    Recipe("nvfp4", weights="bf16", master="fp32", grads="fp32", moments="fp32", saved_inputs="nvfp4",
           matmul="fp4", matmul_inputs="nvfp4", high_precision=("output", "attention", "embedding", "router"),
           extra_weight_copies=("nvfp4", "nvfp4"), block_scaled=True,
           source=N_("NVIDIA, \"Pretraining Large Language Models with NVFP4\" (arXiv 2509.25149): Fprop, Dgrad and "
                     "Wgrad GEMMs in NVFP4 (16×16 blocks for weights, 1×16 for activations and gradients, random "
                     "Hadamard transforms on Wgrad inputs, stochastic rounding of gradients), a few linear layers "
                     "(its 'selective high-precision layers') kept in BF16; master weights, gradients and optimizer "
                     "states unchanged (Megatron-Core's, as for MXFP8); Transformer Engine's NVFP4BlockScaling "
                     "recipe"),
           note=N_("the linear layers kept at BF16 are not modelled: every block's GEMMs are counted at the FP4 "
                   "peak")),
]}

MATMUL_RATES = {"bf16": "bf16_flops_per_s", "fp8": "fp8_flops_per_s", "fp4": "fp4_flops_per_s"}


def recipe(name) -> Recipe:
    """A recipe by name ("bf16", "fp8-deepseek", "fp8-te", "mxfp8", "nvfp4"); a Recipe passes through."""
    if isinstance(name, Recipe):
        return name
    return v.lookup("precision", name, RECIPES)


def format_bytes_per_value(name) -> float:
    """Bytes an element of a format takes with its share of the scales."""
    return v.lookup("format", name, FORMATS).bytes_per_value


def dispatch_bytes_per_value(precision) -> float:
    """Bytes a value takes in a MoE layer's dispatch to its experts: the recipe's matmul input format where its
    matmuls are low-precision (the experts' up projection reads it: DeepSeek-V3 §3.3.4 quantizes "the activation
    before MoE up-projections into FP8" before the dispatch), BF16's 2 bytes otherwise. The combine stays BF16."""
    r = recipe(precision)
    return format_bytes_per_value(r.matmul_inputs) if r.matmul != "bf16" else 2


@v.checked
def matmul_peak_flops_per_s(precision, gpu) -> float:
    """The dense tensor-core peak a recipe's low-precision GEMMs run at on ``gpu`` (a catalog row): the BF16, FP8 or
    FP4 peak. A GPU without that rate, or without hardware block scaling for MXFP8 and NVFP4 (taken as having an
    FP4 rate: Blackwell, MI355X), is refused."""
    r = recipe(precision)
    peak = getattr(_row(gpu), MATMUL_RATES[r.matmul])
    if not peak or (r.block_scaled and not gpu.fp4_flops_per_s):
        raise InputError("precision", _("precision == {value}: the {gpu} has no {rate} tensor cores; choose "
                                        "{allowed}.").format(value=v.quote(r.name), gpu=gpu.name,
                                                             rate=_block_rate(r),
                                                             allowed=", ".join(usable_recipes(gpu))))
    return peak


def _block_rate(r: Recipe) -> str:
    return _("block-scaled {rate}").format(rate=r.matmul.upper()) if r.block_scaled else r.matmul.upper()


def _row(gpu):
    if not all(hasattr(gpu, field) for field in MATMUL_RATES.values()):
        raise InputError("gpu", _("gpu == {value}, must be a GPU of the catalog (llmest.catalog.hardware.gpu).")
                         .format(value=v.quote(gpu)))
    return gpu


def usable_recipes(gpu) -> tuple:
    """The recipes whose matmuls a GPU row can run."""
    _row(gpu)
    return tuple(name for name, r in RECIPES.items() if getattr(gpu, MATMUL_RATES[r.matmul], None)
                 and (not r.block_scaled or getattr(gpu, "fp4_flops_per_s", None)))


# ----------------------------------------------------------------------------------------------------------------
# Memory: training states and saved activations under a recipe
# ----------------------------------------------------------------------------------------------------------------

@v.checked
def recipe_state_bytes(precision="bf16", optimizer="adamw") -> StateBytes:
    """Bytes per parameter of each training state under a recipe: the working weights with the low-precision copies
    kept between micro-batches, the master copy, the gradients and the optimizer's states (each in the recipe's
    moment format, unless the optimizer fixes its own, as 8-bit Adam does)."""
    r = recipe(precision)
    o = v.lookup("optimizer", optimizer, OPTIMIZERS)
    per_state = (format_bytes_per_value(r.moments) if o.state_dtype is None
                 else BYTES_PER_VALUE[o.state_dtype] + o.block_constant_bytes / o.block)
    return StateBytes(
        weights=format_bytes_per_value(r.weights) + sum(format_bytes_per_value(f) for f in r.extra_weight_copies),
        master=format_bytes_per_value(r.master) if r.master else 0,
        grads=format_bytes_per_value(r.grads),
        optimizer=o.states * per_state,
    )


@v.checked
def matmul_input_values(seq_len, batch, hidden, ffn_hidden, tp=1, sequence_parallel=False):
    """Values a layer saves as matmul inputs for the weight gradients, per GPU: the QKV projection's and the FFN's
    inputs (s·b·h each, the norms' outputs, which only sequence parallelism splits over the tp GPUs), and the
    attention output and the down projection's input (s·b·h and s·b·F, split by tensor parallelism), as
    ``memory.gated_layer_activation_bytes`` counts them."""
    s, b, h = seq_len, batch, hidden
    normed = 2 * s * b * h / tp if sequence_parallel else 2 * s * b * h
    return normed + (s * b * h + s * b * ffn_hidden) / tp


@v.checked(other_bytes=v.check_nonnegative, matmul_inputs=v.check_nonnegative,
           attention_outputs=v.check_nonnegative)
def recipe_activation_bytes(other_bytes, matmul_inputs, precision="bf16", attention_outputs=0):
    """A layer's saved activations under a recipe: its ``matmul_inputs`` values in the recipe's saved-input format
    (2 bytes in BF16, 1 + 4/128 for DeepSeek-V3's FP8 tiles, 1 + 1/32 for MXFP8, 0.5 + 1/16 for NVFP4), of which the
    ``attention_outputs`` in the recipe's own format for them where it has one (DeepSeek-V3's E5M6, 1.5 bytes), and
    the rest, ``other_bytes`` (norms, Q, K, V, the SwiGLU's gate and up), as BF16 and FP32 keep them."""
    r = recipe(precision)
    inputs = format_bytes_per_value(r.saved_inputs)
    attention = inputs if r.saved_attention_output is None else format_bytes_per_value(r.saved_attention_output)
    return other_bytes + matmul_inputs * inputs + attention_outputs * (attention - inputs)


# ----------------------------------------------------------------------------------------------------------------
# Time: the compute of a step whose block matmuls run at a low-precision rate
# ----------------------------------------------------------------------------------------------------------------

@v.checked(low_flops=v.check_nonnegative, bf16_flops=v.check_nonnegative, bf16_flops_per_s=v.check_positive,
           low_flops_per_s=v.check_positive, low_efficiency=v.check_fraction)
def recipe_compute_seconds(low_flops, bf16_flops, bf16_flops_per_s, efficiency, low_flops_per_s, low_efficiency):
    """Seconds of compute: the FLOPs the recipe runs in low precision (the blocks' matmuls) at its peak and
    efficiency, the rest (attention, the output layer) at the BF16 peak and efficiency."""
    return low_flops / (low_flops_per_s * low_efficiency) + bf16_flops / (bf16_flops_per_s * efficiency)


@v.checked(bf16_flops_per_s=v.check_positive, low_flops_per_s=v.check_positive, low_efficiency=v.check_fraction)
def gemm_speedup(bf16_flops_per_s, efficiency, low_flops_per_s, low_efficiency):
    """How many times faster the low-precision matmuls run than the BF16 ones: (P_low · e_low) / (P_bf16 · e)."""
    return low_flops_per_s * low_efficiency / (bf16_flops_per_s * efficiency)


@v.checked(recompute=lambda name, value: v.check_choice(name, value, RECOMPUTE))
def recipe_activations_per_gpu(cfg, micro_batch, seq_len, tp=1, sequence_parallel=False, recompute="none",
                               flash=True, fp32_norms=True, precision=None) -> float:
    """``memory.activations_per_gpu`` under a recipe: every layer's saved matmul inputs in the recipe's format; with
    full recomputation only the layer recomputed at a time saves them (the layers' inputs stay BF16)."""
    total = activations_per_gpu(cfg, micro_batch, seq_len, tp, sequence_parallel, recompute, flash, fp32_norms)
    if precision is None:
        return total
    layers = 1 if recompute == "full" else cfg.num_layers
    inputs = layers * matmul_input_values(seq_len, micro_batch, cfg.hidden_size, cfg.ffn_hidden_size, tp,
                                          sequence_parallel)
    return recipe_activation_bytes(total - 2 * inputs, inputs, precision,
                                   layers * seq_len * micro_batch * cfg.hidden_size / tp)
