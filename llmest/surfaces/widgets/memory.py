"""Chapter 2's memory planner: a thin form over ``plans.plan_memory``."""

from __future__ import annotations

import html

import ipywidgets as w

from ...catalog import hardware
from ...formulas import memory as mem
from ...formulas import model as m
from ...formulas import precision as prec
from ... import plans
from ...core._validate import InputError
from ...core.i18n import _
from ...core.units import format_bytes, format_count
from ...formulas.zero import OFFLOAD
from ...display.memory import MODEL_NAMES, model_role
from .form import FIT, changed_field, check_limits, error_field, field_labels, labelled, option, row
from .render import error_html, memory_bar_html


class MemoryPlanner:
    """Will it fit? Memory per GPU for training, serving or fine-tuning a model (LoRA, QLoRA), and the smallest GPU
    count that fits."""

    def __init__(self, model: str = "llama-2-7b", gpu: str = "A100 80GB"):
        style = {"description_width": "9em"}
        # Wide enough for "llama-3.1-70b" and "A100 80GB" beside their labels, and no wider than a phone.
        small = w.Layout(width="20em", max_width=FIT)

        def dropdown(label, options, value):
            return w.Dropdown(options=options, value=value, description=label, style=style, layout=small)

        def number(label, value):
            return w.IntText(value=value, description=label, style=style, layout=small)

        self.inputs = {
            "model": dropdown(_("model"), list(m.PRESETS), option("model", model, m.PRESETS)),
            "config": w.Textarea(placeholder=_("…or paste a config.json here"),
                                 layout=w.Layout(width="32em", max_width=FIT, height="4em")),
            "task": w.ToggleButtons(options=[(_("training"), "training"), (_("inference"), "inference"),
                                             ("LoRA", "lora"), ("QLoRA", "qlora"), (_("full fine-tuning"), "full"),
                                             ("DPO", "dpo"), ("PPO", "ppo"), ("GRPO", "grpo")], value="training"),
            "gpu": dropdown("GPU", list(hardware.CATALOG), option("gpu", gpu, hardware.CATALOG)),
            "convention": dropdown(_("precision"), list(mem.CONVENTIONS), "mixed"),
            # A recipe of formulas.precision replaces the convention's states and saved activations (training).
            "precision": dropdown(_("precision recipe"), [(_("none: the precision above"), ""),
                                                          *((name, name) for name in prec.RECIPES)], ""),
            "optimizer": dropdown(_("optimizer"), list(mem.OPTIMIZERS), "adamw"),
            "micro_batch": number(_("micro-batch"), 1),
            "seq_len": number(_("sequence"), 4096),
            "recompute": dropdown(_("recomputation"), list(mem.RECOMPUTE), "none"),
            "flash": w.Checkbox(value=True, description="FlashAttention", indent=False),
            "zero": dropdown(_("ZeRO stage"), [0, 1, 2, 3], 3),
            "dp": number(_("data parallel"), 8),
            "tp": number(_("tensor parallel"), 1),
            "pp": number(_("pipeline parallel"), 1),
            "cp": number(_("context parallel"), 1),
            "ep": number(_("expert parallel"), 1),
            "offload": dropdown(_("CPU offload"), list(OFFLOAD), "none"),
            "weights": dropdown(_("weights"), list(mem.WEIGHT_FORMATS), "bf16"),
            "tokens": number(_("tokens / request"), 2048),
            "batch": number(_("requests"), 1),
            "rank": number(_("LoRA rank"), 16),
            "prompts": number(_("prompts / GPU"), 2),
            "group": number(_("answers / prompt"), 8),
            "colocate": w.Checkbox(value=True, description=_("all models on the same GPUs"), indent=False),
        }
        self.errors = {name: w.HTML() for name in self.inputs}
        self.general_error, self.bar, self.verdict = w.HTML(), w.HTML(), w.HTML()
        self.plan = self.breakdown = self.smallest = None
        adapters = ("micro_batch", "seq_len", "recompute", "flash", "rank")
        states = ("convention", "optimizer", "micro_batch", "seq_len", "recompute", "flash", "zero", "dp")
        self._fields = {"training": ("convention", "precision", "optimizer", "micro_batch", "seq_len", "recompute",
                                     "flash", "zero", "dp", "tp", "pp", "cp", "ep", "offload"),
                        "inference": ("weights", "tokens", "batch", "tp"), "lora": adapters, "qlora": adapters,
                        "full": (*states, "tp", "pp"), "dpo": (*states, "colocate"),
                        "ppo": (*states, "prompts", "colocate"), "grpo": (*states, "prompts", "group", "colocate")}
        self._every_task = ("model", "config", "task", "gpu")
        self.rows = {name: row(box, self.errors[name]) for name, box in self.inputs.items()}
        for box in self.inputs.values():
            box.observe(self._recompute, names="value")
        self.widget = w.VBox([*self.rows.values(), self.general_error, self.bar, self.verdict])
        # Stable handles for the browser test.
        self.widget.add_class("llmest-memory-planner")
        self.verdict.add_class("llmest-verdict")
        for name, box in self.inputs.items():
            box.add_class(f"llmest-{name}")
        self._recompute()

    def _config(self):
        text = self.inputs["config"].value
        if text.strip():
            try:
                return m.config_from_json(text, "config")
            except InputError as err:  # a config.json key named, shown beside the text it is in
                raise InputError("config", str(err)) from None
        return m.preset(self.inputs["model"].value)

    def _settings(self, cfg) -> dict:
        """The fields as the keywords of the task's memory function."""
        value = {name: box.value for name, box in self.inputs.items()}
        if value["task"] == "inference":
            return dict(weights=value["weights"], seq_len=value["tokens"], batch=value["batch"], tp=value["tp"])
        settings = {name: value[name] for name in self._fields[value["task"]]}
        if "precision" in settings:   # "": no recipe, the convention's states
            settings["precision"] = settings["precision"] or None
        if value["task"] in ("lora", "qlora"):  # the adapters go where the command line puts them by default
            settings["targets"] = mem.default_lora_targets(cfg)
        return settings

    def _recompute(self, change=None):
        task = self.inputs["task"].value
        training = task in ("training", "full")
        for name, box_row in self.rows.items():
            box_row.layout.display = "" if name in self._every_task or name in self._fields[task] else "none"
        for label in (*self.errors.values(), self.general_error):
            label.value = ""
        gpu = self.inputs["gpu"].value
        aliases = {"seq_len": "tokens"} if task == "inference" else {}
        try:
            shown = {name: box.value for name, box in self.inputs.items() if self.rows[name].layout.display != "none"}
            check_limits(shown, aliases)
            cfg = self._config()
            plan = plans.plan_memory(task, cfg, gpu=gpu, **self._settings(cfg))
        except InputError as err:
            self.plan = self.breakdown = self.smallest = None
            self.bar.value, self.verdict.value = "", ""
            field = error_field(err, self.errors, changed_field(self.inputs, change), aliases)
            message = labelled(str(err), field_labels(self.inputs, aliases))
            self.errors.get(field, self.general_error).value = error_html(message)
            return
        self.plan, self.breakdown, self.smallest = plan, plan.breakdown, plan.least
        self.bar.value = memory_bar_html(self.breakdown, gpu, plan.margin)
        usable = format_bytes(plan.usable_bytes)
        per_gpu = _("{total} per GPU on {gpus} GPU(s)").format(total=format_bytes(self.breakdown.total),
                                                               gpus=self.breakdown.gpus)
        word, color = (_("Fits"), "#1b7f3b") if plan.fits else (_("Does not fit"), "#b00020")
        detail = (_("{per_gpu}, within the {usable} usable.") if plan.fits else
                  _("{per_gpu}, over the {usable} usable.")).format(per_gpu=per_gpu, usable=usable)
        verdict = _("{verdict}: {detail}").format(verdict=f'<b style="color:{color}">{word}</b>', detail=detail)
        if plan.least_gpus is None:
            smallest = _("No count fits: {reason}.").format(reason=plan.no_fit_reason)
        elif plan.fine_tuning:
            smallest = _("{task} here runs on one GPU: {params} trainable adapter parameters, rank {rank}.").format(
                task=dict(lora="LoRA", qlora="QLoRA")[task], params=format_count(plan.trainable_params),
                rank=plan.settings["rank"])
        elif plan.post_training:
            smallest = _("Smallest that fits: data parallel {dp}, {gpus} GPUs in all (ZeRO stage {zero}).").format(
                dp=plan.least, gpus=plan.least_gpus, zero=plan.settings["zero"])
        elif training:
            split = "TP·PP·CP" if plan.settings.get("cp", 1) > 1 else "TP·PP"
            smallest = _("Smallest that fits: data parallel {dp} × {split} {other} = {gpus} GPUs (ZeRO stage "
                         "{zero}).").format(dp=plan.least, split=split, other=plan.other_gpus, gpus=plan.least_gpus,
                                            zero=plan.settings["zero"])
        else:
            smallest = _("Smallest that fits: tensor parallel over {tp} GPUs.").format(tp=plan.least)
        lines = [verdict, smallest]
        if plan.post_training:
            lines += [html.escape(_("{model} ({kept}): {bytes} per GPU on its own.").format(
                model=_(MODEL_NAMES[name]), kept=model_role(name, trained),
                bytes=format_bytes(b.total))) for name, (trained, b) in plan.models.items()]
        if training:
            lines.append(_("{model} has {params} parameters; their states alone, sharded evenly (ZeRO-3), need {gpus} "
                           "GPU(s).").format(model=html.escape(plan.model.name or _("The model")),
                                             params=format_count(plan.trainable_params), gpus=plan.state_gpus))
            lines.append(html.escape(plan.activations_note[0].upper() + plan.activations_note[1:]) + ".")
            if self.breakdown.cpu_total:
                lines.append(_("In CPU memory: {per_process} per GPU's process, {per_node} per node of 8 GPUs "
                               "(offloaded states).").format(per_process=format_bytes(self.breakdown.cpu_total),
                                                             per_node=format_bytes(self.breakdown.cpu_per_node(8))))
        self.verdict.value = "<br>".join(lines)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def memory_planner(model: str = "llama-2-7b", gpu: str = "A100 80GB") -> MemoryPlanner:
    return MemoryPlanner(model, gpu)
