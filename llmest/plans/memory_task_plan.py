"""The memory plan: a task's memory per GPU (training, inference, LoRA, QLoRA or full fine-tuning, DPO, PPO,
GRPO), whether it fits a GPU, and the least GPUs that hold it (``plan_memory``), from the task functions of
``memory_plan`` and ``posttrain_memory``."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from ..catalog import hardware
from ..core import _validate as v
from ..core.i18n import _
from ..core.report import Report, Shows
from ..core.units import format_bytes
from ..display.memory import RECOMPUTATION, memory_report
from ..formulas.precision import recipe_state_bytes
from ..formulas.memory import MEMORY_MARGIN, lora_params, state_bytes_per_param
from ..formulas.model import ModelConfig, config_from, count_params
from .memory_plan import (GPU_SEARCH_LIMIT, MemoryBreakdown, inference_memory, lora_memory, min_gpus, qlora_memory,
                          state_gpus, training_memory, usable_bytes)
from .posttrain_memory import (MODELS_KEPT, POST_TRAINING, dpo_memory, full_memory, grpo_memory, models_kept,
                               ppo_memory)

TASKS = {"training": training_memory, "inference": inference_memory, "lora": lora_memory, "qlora": qlora_memory,
         "full": full_memory, "dpo": dpo_memory, "ppo": ppo_memory, "grpo": grpo_memory}
# The GPU count each task's least-GPU search varies: data-parallel replicas (ZeRO shards over them) or the
# tensor-parallel split; LoRA and QLoRA run on one GPU.
SEARCHED = {"training": "dp", "inference": "tp", "lora": None, "qlora": None, "full": "dp", "dpo": "dp", "ppo": "dp",
            "grpo": "dp"}
FINE_TUNING = ("lora", "qlora")  # adapters on a frozen base, on one GPU
TRAINING = ("training", "full")  # every parameter trained, one model, tp · pp · cp · dp GPUs


@dataclass(frozen=True)
class MemoryPlan(Shows):
    task: str
    model: ModelConfig
    settings: dict              # what the task's function was given, the GPU count included
    breakdown: MemoryBreakdown  # per GPU, at the settings' GPU count
    gpu: str
    margin: float
    least: int | None           # the least dp (training, at its ZeRO stage) or tp (inference); None: none fits
    state_gpus: int | None      # training: GPUs that hold the states alone, sharded evenly (ZeRO-3), same margin
    trainable_params: int       # training: every parameter; LoRA and QLoRA: the adapters; inference: none
    models: dict = field(default_factory=dict)  # DPO, PPO, GRPO: {name: (trained, MemoryBreakdown per GPU)}

    @property
    def post_training(self) -> bool:
        """DPO, PPO or GRPO: several models kept at once (``models``)."""
        return self.task in POST_TRAINING

    @property
    def fine_tuning(self) -> bool:
        """LoRA or QLoRA: adapters trained on a frozen base, on one GPU."""
        return self.task in FINE_TUNING

    @property
    def usable_bytes(self) -> float:
        return usable_bytes(self.gpu, self.margin)

    def report(self, gpus_per_node: int = 8) -> Report:
        """How the plan shows itself; ``gpus_per_node`` for the CPU memory a node holds."""
        return memory_report(self, gpus_per_node)

    @property
    def fits(self) -> bool:
        return self.breakdown.total <= self.usable_bytes

    @property
    def searched(self) -> str | None:
        """The parallel degree the least-GPU search varies: "dp", "tp", or None (LoRA, QLoRA)."""
        return SEARCHED[self.task]

    @property
    def other_gpus(self) -> int:
        """The GPUs per replica that the search does not vary (tp · pp · cp for training; for DPO, PPO and GRPO the
        models kept when each has its own GPUs)."""
        if self.post_training:
            return 1 if self.settings["colocate"] else len(self.models)
        if self.task not in TRAINING:
            return 1
        return self.settings["tp"] * self.settings["pp"] * self.settings.get("cp", 1)

    @property
    def least_gpus(self) -> int | None:
        """The least number of GPUs that hold the run; for LoRA and QLoRA 1 when it fits its GPU."""
        if self.fine_tuning:
            return 1 if self.fits else None
        return None if self.least is None else self.least * self.other_gpus

    @property
    def no_fit_reason(self) -> str:
        """Why no GPU count up to the search limit holds the run ("" when one does)."""
        if self.least_gpus is not None:
            return ""
        if (self.task in TRAINING or self.post_training) and not self.settings["zero"]:
            return _("without ZeRO every data-parallel GPU holds all the states, so more of them do not help")
        if self.fine_tuning:
            return _("it does not fit one {gpu}").format(gpu=self.gpu)
        return _("no {searched} up to {limit} fits with these settings").format(searched=self.searched,
                                                                                 limit=f"{GPU_SEARCH_LIMIT:,}")

    @property
    def activation_bytes(self) -> float:
        """The trained model's activations per GPU (the policy's, for DPO, PPO and GRPO); 0 for inference."""
        if self.post_training:
            return self.models["policy"][1]["activations"]
        return self.breakdown.parts.get("activations", 0)

    @property
    def activations_note(self) -> str:
        """What the activation memory assumes, which decides the GPU count of a training run."""
        if self.task == "inference":
            return ""
        s = self.settings
        attention = "FlashAttention" if s["flash"] else _("eager attention")
        note = _("activations: {bytes} per GPU, for one micro-batch of {micro_batch} × {seq_len} tokens "
                 "({recompute}, {attention})").format(
            bytes=format_bytes(self.activation_bytes), micro_batch=s["micro_batch"],
            seq_len=f"{s['seq_len']:,}", recompute=_(RECOMPUTATION[s["recompute"]]), attention=attention)
        if s.get("cp", 1) > 1:
            note += _(", each sequence split over cp = {cp} GPUs").format(cp=s["cp"])
        if self.task == "dpo":
            note += _(", each pair's chosen and rejected answers together")
        if self.task in TRAINING:
            note += _("; they do not shrink as GPUs are added, as a fixed batch shared out over the GPUs would")
        return note




@v.checked(**v.WHOLE)
def plan_memory(task, model, *, gpu="A100 80GB", margin=MEMORY_MARGIN, limit=GPU_SEARCH_LIMIT,
                **settings) -> MemoryPlan:
    """Memory per GPU for ``task`` ("training", "inference", "lora", "qlora", "full", "dpo", "ppo" or "grpo") with
    ``settings`` (the keywords of training_memory, inference_memory, lora_memory, qlora_memory, full_memory,
    dpo_memory, ppo_memory or grpo_memory), whether it fits ``gpu`` with ``margin`` kept free, and the least GPUs
    that hold it: the least dp at the chosen ZeRO stage (tp and pp as given) for training, full fine-tuning, DPO,
    PPO and GRPO, the least tp that divides the heads for inference, one GPU for LoRA and QLoRA. For DPO, PPO and
    GRPO the plan also keeps each model's memory per GPU on its own (``models``)."""
    v.check_choice("task", task, TASKS)
    cfg = config_from(model)
    usable_bytes(gpu, margin)  # checks the GPU and the margin before anything is computed
    planner, searched = TASKS[task], SEARCHED[task]
    bound = inspect.signature(planner).bind(cfg, **settings)
    bound.apply_defaults()  # the plan records every setting it assumed, defaults included
    settings = {name: value for name, value in bound.arguments.items() if name != "model"}
    breakdown = planner(cfg, **settings)
    least = None if searched is None else min_gpus(lambda n: planner(cfg, **{**settings, searched: n}), gpu,
                                                   margin, limit)
    states, trainable, kept = None, 0, {}
    if task in POST_TRAINING:
        kept = models_kept(task, cfg, **{k: value for k, value in settings.items()
                                         if k not in ("colocate", "overhead_bytes")},
                           **({"group": 1} if task == "ppo" else {}))
        trainable = count_params(cfg).total * sum(trained for _name, trained in MODELS_KEPT[task])
    if task in TRAINING:
        trainable = count_params(cfg).total
        per_param = state_bytes_per_param(settings["convention"], settings["optimizer"]) \
            if settings.get("precision") is None else recipe_state_bytes(settings["precision"], settings["optimizer"])
        states = state_gpus(trainable, per_param.total, gpu, margin)
    elif task in FINE_TUNING:
        trainable = lora_params(cfg, settings["rank"], settings["targets"])
    return MemoryPlan(task, cfg, settings, breakdown, hardware.gpu(gpu).name, margin, least, states, trainable,
                      kept)


