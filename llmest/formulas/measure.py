"""Measure with PyTorch what the formulas estimate: parameters, FLOPs, optimizer state and saved activations.

The formulas live in ``llmest.model``, ``llmest.memory`` and ``llmest.compute``; this module only measures, on real
transformers models built from a ``config.json``, so that chapter 6 and the tests can set one beside the other.
Everything runs on the CPU (or on the meta device, which allocates nothing); ``cuda_peak_bytes`` reads the GPU's
peak where there is one. Needs the optional dependencies: ``pip install -e '.[measure]'``.
"""

from __future__ import annotations

import warnings

from dataclasses import dataclass

try:
    import torch
    import transformers
    from torch.autograd.graph import saved_tensors_hooks
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import FlopCounterMode
except ImportError as err:  # the core workbook runs without them
    raise ImportError(f"llmest.formulas.measure needs PyTorch and transformers ({err.name} is missing). From the "
                      "repository's root run: .venv/bin/python -m pip install -e '.[measure]' (see the README), "
                      "then restart the kernel.") from err

from ..core import _validate as v
from . import memory as mem
from . import model as m
from .readers.hf_build import _load as load_config
from ..core._validate import InputError
from ..core.i18n import _

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
DEVICES = ("cpu", "meta", "cuda")
# "sdpa": torch's scaled_dot_product_attention, a fused kernel that keeps no S×S scores (FlashAttention's idea);
# "eager": the scores computed, softmaxed and kept as ordinary tensors.
ATTENTION = ("sdpa", "eager")
# How each measured training setup is built: the dtype the model holds, whether AdamW updates fp32 master copies,
# and which gradients stay after the step ("model": the model's own, "master": fp32 ones on the masters). Written
# out here rather than read from llmest.formulas.memory.CONVENTIONS, so that a measurement can disagree with chapter 2.
# Plain torch.optim.AdamW keeps its states in the dtype of what it updates, so "bf16 weights with fp32 states and
# no master copy" cannot be built this way.
SETUPS = {
    "fp32": ("fp32", False, "model"),            # plain PyTorch, fp32 parameters (autocast computes in bf16)
    "bf16": ("bf16", False, "model"),            # a model cast to bf16, AdamW on it
    "mixed": ("bf16", True, "model"),            # ZeRO's count: bf16 weights and gradients, fp32 master copy
    "megatron-bf16": ("bf16", True, "master"),   # Megatron-LM: gradients accumulated and kept in fp32
}
MEASURED_CONVENTIONS = tuple(SETUPS)
# Above this, building on the CPU takes tens of GB: count such a model on the meta device instead.
MAX_CPU_PARAMS = 2e9


# ----------------------------------------------------------------------------------------------------------------
# Models and inputs
# ----------------------------------------------------------------------------------------------------------------

def build_model(config, *, device="cpu", dtype="fp32", attention="sdpa", seed=0):
    """A transformers causal language model built from a ``config.json`` (a dict, a path, or its JSON text) with
    random weights (seeded). On ``device="meta"`` the tensors have shapes but no memory: a 70B builds in a second.
    The config is read by ``llmest.ModelConfig.from_hf_config`` first, so a bad one gets llmest's message."""
    config = load_config(config)
    v.check_choice("device", device, DEVICES)
    v.check_choice("dtype", dtype, DTYPES)
    v.check_choice("attention", attention, ATTENTION)
    seed = v.check_int("seed", seed, minimum=0)
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("device", _("device == 'cuda', but PyTorch sees no GPU here; use 'cpu' or 'meta'."))
    n_params = m.count_params(m.ModelConfig.from_hf_config(config)).total  # a model_type llmest reads, consistent
    if device != "meta" and n_params > MAX_CPU_PARAMS:
        raise InputError("config", _("config builds {n} parameters, {gb} GB in fp32; on '{device}' at most {most}: "
                                     "use device='meta' to count it.").format(
            n=f"{n_params:,}", gb=f"{n_params * 4 / 1e9:,.0f}", device=device, most=f"{MAX_CPU_PARAMS:,.0f}"))
    transformers.logging.set_verbosity_error()  # quiet about configs written for older versions
    with warnings.catch_warnings():  # ... and about their deprecated keys (Kimi Linear's `rope_scaling`)
        warnings.simplefilter("ignore", FutureWarning)
        hf_config = transformers.AutoConfig.for_model(**config)
    torch.manual_seed(seed)
    with torch.device(device):
        try:
            model = transformers.AutoModelForCausalLM.from_config(hf_config, attn_implementation=attention)
        except ValueError as err:  # e.g. BLOOM and MPT have no SDPA path in transformers
            if "does not support an attention implementation" not in str(err):
                raise
            raise InputError("attention", _("attention == {attention}: transformers' {model_type} models have no "
                                            "such implementation; use attention='eager'.").format(
                attention=repr(attention), model_type=config["model_type"])) from None
    return model.to(DTYPES[dtype])


def token_batch(model, batch, seq_len, seed=0):
    """``batch`` sequences of ``seq_len`` random token ids (seeded), on the model's device."""
    _check_model(model)
    batch = v.check_int("batch", batch)
    seq_len = v.check_int("seq_len", seq_len)
    seed = v.check_int("seed", seed, minimum=0)
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, model.config.vocab_size, (batch, seq_len), generator=generator)
    return ids.to(_device(model))


def count_model_params(model) -> int:
    """The parameters of a built model, tied weights once: what ``llmest.count_params(cfg).total`` predicts."""
    _check_model(model)
    return sum(p.numel() for p in model.parameters())


def _check_model(model):
    if not isinstance(model, transformers.PreTrainedModel):
        raise InputError("model", _("model == {model}, must be a transformers model (see build_model).").format(
            model=repr(model)))


def _device(model):
    return next(model.parameters()).device


def _check_input_ids(model, input_ids):
    _check_model(model)
    if not (isinstance(input_ids, torch.Tensor) and input_ids.dim() == 2 and not input_ids.is_floating_point()
            and input_ids.numel() > 0):
        raise InputError("input_ids", _("input_ids == {ids}, must be a non-empty 2-D tensor of token ids (batch × "
                                        "sequence; see token_batch).").format(ids=repr(input_ids)))
    if input_ids.device != _device(model):
        raise InputError("input_ids", _("input_ids are on {ids}, the model on {model}: make them with "
                                        "token_batch(model, ...).").format(ids=input_ids.device,
                                                                           model=_device(model)))
    vocab = model.config.vocab_size
    if input_ids.device.type != "meta" and not 0 <= int(input_ids.min()) <= int(input_ids.max()) < vocab:
        raise InputError("input_ids", _("input_ids range from {low} to {high}, must be in [0, {last}] (the "
                                        "vocabulary).").format(low=int(input_ids.min()), high=int(input_ids.max()),
                                                               last=vocab - 1))


def _loss(model, input_ids):
    """The language-modelling loss of a batch, predicting each token from the ones before it."""
    return model(input_ids, labels=input_ids).loss


def _nbytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


# ----------------------------------------------------------------------------------------------------------------
# FLOPs
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FlopCount:
    """FLOPs that ``torch.utils.flop_counter.FlopCounterMode`` counts for one training step, by pass and by op.
    The counter knows formulas for matrix products (mm, bmm, addmm, convolutions, some attention kernels) only;
    ``ops_without_formula`` lists the ops that ran and were counted as 0."""

    tokens: int
    forward: int
    backward: int
    forward_by_op: dict
    backward_by_op: dict
    ops_without_formula: tuple

    @property
    def total(self) -> int:
        return self.forward + self.backward


class _OpsSeen(TorchDispatchMode):
    """Records every op that runs, to find those the FLOP counter has no formula for."""

    def __init__(self):
        super().__init__()
        self.ops = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(func._overloadpacket)
        return func(*args, **(kwargs or {}))


def count_flops(model, input_ids) -> FlopCount:
    """Run one forward pass (with the loss) and its backward under FlopCounterMode; count each separately."""
    _check_input_ids(model, input_ids)
    model.train()
    passes = {}
    with _OpsSeen() as seen:
        with FlopCounterMode(display=False) as counter:
            loss = _loss(model, input_ids)
        passes["forward"] = counter.get_flop_counts()["Global"]
        with FlopCounterMode(display=False) as counter:
            loss.backward()
        passes["backward"] = counter.get_flop_counts()["Global"]
    model.zero_grad(set_to_none=True)
    by_op = {name: {str(op): n for op, n in counts.items()} for name, counts in passes.items()}
    return FlopCount(
        tokens=input_ids.numel(),
        forward=sum(by_op["forward"].values()),
        backward=sum(by_op["backward"].values()),
        forward_by_op=by_op["forward"],
        backward_by_op=by_op["backward"],
        ops_without_formula=tuple(sorted(str(op) for op in seen.ops if op not in counter.flop_registry)),
    )


# ----------------------------------------------------------------------------------------------------------------
# Training states after an AdamW step
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainingStateBytes:
    """Bytes held after one AdamW step, by role. ``step_counters`` are AdamW's step counts: one 4-byte scalar per
    parameter tensor, not per parameter, so they are left out of ``per_param``."""

    params: int
    weights: int
    master: int
    grads: int
    exp_avg: int
    exp_avg_sq: int
    step_counters: int

    def per_param(self) -> mem.StateBytes:
        """Bytes per parameter, in the fields of ``llmest.formulas.memory.state_bytes_per_param``."""
        n = self.params
        return mem.StateBytes(weights=self.weights / n, master=self.master / n, grads=self.grads / n,
                              optimizer=(self.exp_avg + self.exp_avg_sq) / n)


def adamw_state_bytes(model, input_ids, convention="mixed") -> TrainingStateBytes:
    """Train ``model`` one step with ``torch.optim.AdamW`` in one of the ``SETUPS``, then add up the bytes of every
    tensor that stays: weights, master copy, gradients, ``exp_avg`` and ``exp_avg_sq``. The setup decides the
    first three; AdamW decides its moments (two, in the dtype of what it updates). The model must already hold the
    setup's weight dtype; its weights change.

    - ``fp32``, ``bf16``: AdamW updates the model's own parameters.
    - ``mixed``: mixed precision as the ZeRO paper counts it. The bf16 model computes; AdamW updates fp32 master
      copies, which are copied back into the model. For the step every gradient also exists in fp32 (4 bytes a
      parameter more at that moment); those copies are freed after it, the bf16 gradients stay.
    - ``megatron-bf16``: the same, but the fp32 gradients stay (Megatron-LM accumulates them in an fp32 buffer)
      and the bf16 ones are dropped, each as soon as it is converted.
    """
    _check_input_ids(model, input_ids)
    v.check_choice("convention", convention, MEASURED_CONVENTIONS)
    weights_dtype, with_master, grads_kept = SETUPS[convention]
    params = list(model.parameters())
    held_dtypes = {p.dtype for p in params}
    if held_dtypes != {DTYPES[weights_dtype]}:
        held = ", ".join(sorted(str(dtype).removeprefix("torch.") for dtype in held_dtypes))
        raise InputError("model", _("model holds {held} parameters; the {convention} setup keeps its weights in "
                                    "{dtype}: build it with dtype={quoted}.").format(
            held=held, convention=repr(convention), dtype=weights_dtype, quoted=repr(weights_dtype)))
    masters = [p.detach().float().clone() for p in params] if with_master else []
    optimizer = torch.optim.AdamW(masters or params)
    model.train()
    model.zero_grad(set_to_none=True)
    _loss(model, input_ids).backward()
    for master, p in zip(masters, params):
        master.grad = p.grad.float()
        if grads_kept == "master":
            p.grad = None
    optimizer.step()
    with torch.no_grad():
        for master, p in zip(masters, params):
            p.copy_(master)
            if grads_kept == "model":
                master.grad = None
    states = list(optimizer.state.values())
    grads = [t.grad for t in params + masters if t.grad is not None]
    return TrainingStateBytes(
        params=sum(p.numel() for p in params),
        weights=_nbytes(params),
        master=_nbytes(masters),
        grads=_nbytes(grads),
        exp_avg=_nbytes(s["exp_avg"] for s in states),
        exp_avg_sq=_nbytes(s["exp_avg_sq"] for s in states),
        step_counters=_nbytes(s["step"] for s in states),
    )


# ----------------------------------------------------------------------------------------------------------------
# Activations saved for the backward pass
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SavedTensor:
    """One storage kept for the backward pass. ``module`` is the innermost module running when it was saved
    ("model.layers.0.mlp.act_fn"; "" for the model's own forward, where the loss is computed)."""

    module: str
    dtype: str
    shape: tuple
    nbytes: int


@dataclass(frozen=True)
class SavedActivations:
    tensors: tuple

    @property
    def total(self) -> int:
        return sum(t.nbytes for t in self.tensors)

    def in_module(self, prefix: str) -> tuple:
        """The tensors saved inside a module and its submodules, e.g. ``"model.layers.0."``."""
        return tuple(t for t in self.tensors if t.module.startswith(prefix))


def saved_for_backward(model, input_ids, checkpoint=False) -> SavedActivations:
    """Run one forward pass (with the loss) and record every tensor autograd keeps for the backward pass, through
    ``torch.autograd.graph.saved_tensors_hooks``. A storage saved several times (the input of Q, K and V, views of
    one tensor) is counted once, whole; the model's parameters and buffers are not activations and are left out.
    ``checkpoint=True`` turns on activation checkpointing of every layer (transformers'
    ``activation_checkpointing_enable``, which wraps ``torch.utils.checkpoint``) for this pass."""
    _check_input_ids(model, input_ids)
    v.check_bool("checkpoint", checkpoint)
    if _device(model).type == "meta":  # meta tensors have no addresses, so shared storages could not be told apart
        raise InputError("model", _("model is on the meta device, where tensors have no storage to count; build it "
                                    "on 'cpu' (or 'cuda')."))
    model_storages = {t.untyped_storage().data_ptr() for t in [*model.parameters(), *model.buffers()]}
    names = {module: name for name, module in model.named_modules()}
    running = []  # the modules whose forward is under way, innermost last
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if key not in model_storages and key not in saved:
            saved[key] = SavedTensor(running[-1] if running else "", str(tensor.dtype).removeprefix("torch."),
                                     tuple(tensor.shape), storage.nbytes())
        return tensor

    def enter(module, args):
        running.append(names[module])

    def leave(module, args, output):
        running.pop()  # returns None: a forward hook that returns something replaces the module's output

    hooks = [h for module in names for h in (module.register_forward_pre_hook(enter),
                                              module.register_forward_hook(leave, always_call=True))]
    # Enabling checkpointing may also hook the embeddings to require grads; disabling it removes that hook only
    # for PEFT models, so remove it here, unless it was there before.
    had_grad_hooks = bool(getattr(model, "_require_grads_hooks", None))
    if checkpoint:
        model.activation_checkpointing_enable()
    model.train()
    try:
        with saved_tensors_hooks(pack, lambda tensor: tensor):
            # The loss holds the graph, and the graph every saved tensor, until this returns: no saved storage is
            # freed and its address reused by another meanwhile.
            loss = _loss(model, input_ids)  # noqa: F841
        return SavedActivations(tuple(saved.values()))
    finally:
        for hook in hooks:
            hook.remove()
        if checkpoint:
            model.activation_checkpointing_disable()
            if not had_grad_hooks and getattr(model, "_require_grads_hooks", None):
                model.disable_input_require_grads()


# ----------------------------------------------------------------------------------------------------------------
# The GPU's peak
# ----------------------------------------------------------------------------------------------------------------

def cuda_peak_bytes(run):
    """``torch.cuda.max_memory_allocated()`` while ``run()`` executes: the peak of live tensors, which is what an
    estimate predicts (the process takes more: the CUDA context and the allocator's cache). None without a GPU."""
    if not callable(run):
        raise InputError("run", _("run == {run}, must be a function to call, e.g. lambda: ...").format(run=repr(run)))
    if not torch.cuda.is_available():
        return None
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    run()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated()
