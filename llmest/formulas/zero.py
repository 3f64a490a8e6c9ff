"""ZeRO's buffers and CPU offload: formulas for the memory that DeepSpeed's ZeRO settings add to a GPU or move off it.

DeepSpeed's defaults are read from deepspeed/runtime/zero/config.py (DeepSpeedZeroConfig) of deepspeedai/DeepSpeed
at commit edaa722; what each buffer is, from where stage_1_and_2.py and stage3.py allocate it (same commit).
Formulas use only + - * /; ``training_memory`` in ``llmest.plans`` applies them to a model. Bytes are bytes.
"""

from __future__ import annotations

from ..core import _validate as v
from ..core._validate import InputError
from ..core.i18n import _
from .memory import StateBytes, sharded_state_bytes

# DeepSpeedZeroConfig's defaults, in elements (not bytes): reduce_bucket_size 5e8, stage3_prefetch_bucket_size 5e7,
# stage3_max_live_parameters 1e9, stage3_param_persistence_threshold 1e5.
ZERO_DEFAULTS = {"reduce_bucket_size": 500_000_000, "prefetch_bucket_size": 50_000_000,
                 "max_live_parameters": 1_000_000_000, "param_persistence_threshold": 100_000}
# What moves to the CPU: nothing; the optimizer step with its states and master copy (ZeRO-Offload,
# offload_optimizer); that and the 16-bit parameters too (ZeRO-Infinity's offload_param, ZeRO-3 only).
OFFLOAD = ("none", "optimizer", "optimizer+params")
STATE_PARTS = ("weights", "master", "gradients", "optimizer")


def _check_offload(offload, zero):
    """An offload setting DeepSpeed accepts at this ZeRO stage."""
    v.check_choice("offload", offload, OFFLOAD)
    if offload != "none" and zero == 0:
        raise InputError("offload", _("offload == {offload} needs ZeRO (zero >= 1): DeepSpeed offloads the "
                                      "partitioned optimizer states.").format(offload=v.quote(offload)))
    if offload == "optimizer+params" and zero != 3:
        raise InputError("offload", _("offload == {offload} needs zero == 3: only ZeRO-3 partitions the parameters "
                                      "it would offload (zero == {zero}).").format(offload=v.quote(offload),
                                                                                   zero=zero))
    return offload


@v.checked
def zero_buffer_bytes(zero, reduce_bucket_size=ZERO_DEFAULTS["reduce_bucket_size"], gathered_params=0,
                      persistent_params=0, bytes_per_value=2, overlap_comm=None):
    """GPU memory DeepSpeed's ZeRO keeps beside the sharded states, per GPU.

    Stages 1 and 2: the gradient reduce bucket, ``reduce_bucket_size`` 16-bit elements (contiguous_gradients, on by
    default, copies each gradient into it as backward produces it), two of them with overlap_comm (off by default
    below stage 3). The all-gather of updated weights after the step writes into the 16-bit weights themselves, so
    it needs no buffer (the EleutherAI cookbook's calc_transformer_mem.py counts allgather_bucket_size for it).
    Stage 3: one reduce bucket, the parameters gathered for the modules being computed and prefetched
    (``gathered_params``: the plan takes the largest module plus stage3_prefetch_bucket_size, at most
    stage3_max_live_parameters; the cookbook counts max_live_parameters in full, the most ZeRO-3 allows), and the
    parameters below stage3_param_persistence_threshold that every GPU keeps whole (``persistent_params``)."""
    v.check_int("zero", zero, minimum=0, maximum=3)
    if zero == 0:
        return 0
    if zero < 3:
        return reduce_bucket_size * bytes_per_value * (2 if overlap_comm else 1)
    return (reduce_bucket_size + gathered_params + persistent_params) * bytes_per_value


@v.checked
def offloaded_state_bytes(n_params, per_param: StateBytes, zero=1, dp=1, offload="optimizer") -> dict:
    """Training states per GPU with ZeRO-Offload, as {"gpu": parts, "cpu": parts}.

    ``offload="optimizer"`` (DeepSpeed's offload_optimizer): the master copy and optimizer states of each GPU's
    shard live in CPU memory and the CPU runs the step, reading a gradient shard kept there in the master copy's
    precision (fp32; DeepSpeed's CPU Adam updates the fp32 master from fp32 gradients). The 16-bit weights stay on
    the GPU (sharded at ZeRO-3); gradients stay whole on the GPU at ZeRO-1 and leave it bucket by bucket at ZeRO-2/3.
    ``offload="optimizer+params"`` (ZeRO-Infinity's offload_param, ZeRO-3): the 16-bit weight shard moves too.
    CPU bytes are per GPU: a node holds that times its GPUs. ``offload="none"``: sharded_state_bytes, no CPU."""
    if not isinstance(per_param, StateBytes):
        raise InputError("per_param", _("per_param == {value}, must be the StateBytes of state_bytes_per_param().")
                         .format(value=v.quote(per_param)))
    v.check_choice("offload", offload, OFFLOAD)
    v.check_int("zero", zero, minimum=0 if offload == "none" else 1, maximum=3)  # offload needs ZeRO
    _check_offload(offload, zero)
    if offload == "none":
        return {"gpu": sharded_state_bytes(n_params, per_param, zero, dp), "cpu": dict.fromkeys(STATE_PARTS, 0)}
    shard = n_params / dp
    weights_gpu = n_params * per_param.weights / (dp if zero >= 3 else 1)
    gpu = {"weights": weights_gpu, "master": 0, "gradients": n_params * per_param.grads if zero < 2 else 0,
           "optimizer": 0}
    cpu = {"weights": 0, "master": shard * per_param.master,
           "gradients": shard * (per_param.master or per_param.grads), "optimizer": shard * per_param.optimizer}
    if offload == "optimizer+params":
        gpu["weights"], cpu["weights"] = 0, shard * per_param.weights
    return {"gpu": gpu, "cpu": cpu}
