"""Chapter 5's findings on training a mixture of experts: DeepSeek-V3's published cost per trillion tokens beside
the model's from its published layout, term by term, and what each of its choices is worth
(``llmest.display.findings.moe`` writes them)."""

from __future__ import annotations

from ...core import _validate as v
from ...core.report import Finding
from ...display.findings import moe as shown
from .. import moe_plan
from ..moe_plan import DEEPSEEK_V3, DEEPSEEK_V3_GPU_HOURS_PER_TRILLION, IMBALANCE

# What each of DeepSeek-V3's choices is worth: the step with that one choice undone.
UNDONE = (("bf16", dict(precision="bf16")), ("1f1b", dict(schedule="1f1b")),
          ("no node limit", dict(nodes_per_token=None)), ("per-tensor fp8", dict(low_efficiency=None)))


def deepseek_v3_cost(imbalance=IMBALANCE) -> Finding:
    """DeepSeek-V3's published 180K H800 GPU-hours per trillion tokens beside the model's for its published layout
    (``moe_plan.deepseek_v3``), with each term of the step, and the GPU-hours with FP8, DualPipe or node-limited
    routing undone one at a time; ``imbalance``: the busiest GPU's routed tokens over the mean."""
    v.check_number("imbalance", imbalance, low=1, high=256)
    step = moe_plan.deepseek_v3(imbalance=imbalance)
    published = DEEPSEEK_V3_GPU_HOURS_PER_TRILLION
    tokens = DEEPSEEK_V3["global_batch_tokens"]
    published_step_s = published * 3600 / DEEPSEEK_V3["gpus"] * tokens / 1e12
    undone = [dict(change=name, gpu_hours_per_trillion=moe_plan.deepseek_v3(imbalance=imbalance, **change)
                   ["gpu_hours_per_trillion"]) for name, change in UNDONE]
    return Finding(dict(figures=step.figures, inputs=step.inputs, published_gpu_hours_per_trillion=published,
                        published_step_s=published_step_s,
                        published_mfu=step["mfu"] * step["step_s"] / published_step_s,
                        difference=step["gpu_hours_per_trillion"] / published - 1, undone=undone),
                   shown.deepseek_v3_cost)
