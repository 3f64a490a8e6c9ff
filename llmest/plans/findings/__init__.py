"""The small questions a chapter asks, each answered by a result that shows itself (a ``Finding``): the figures as
plain data, written out by the function of the same name in ``llmest.display.findings``. One module a chapter:

parameters  chapter 1, the parameter count
memory      chapter 2, memory in training and serving
compute     chapter 3, FLOPs, time and serving speed
data        chapter 4, data and tokens
drills      chapter 5, the interview drills' worked answers and the layout search
moe         chapter 5, training a mixture of experts: DeepSeek-V3's cost term by term
measure     chapter 6, the formulas against what PyTorch measures
post_training  post-training's published figures (DPO, PPO, GRPO memory and step times) beside the model
serving     serving's published figures (TensorRT-LLM and MLPerf on H100/H200, DeepSeek's inference system, SGLang's
            DeepSeek-V3 benchmark, MTP's speed-up) beside the serving model
precision   chapters 2 and 3, training precision: the recipes side by side, and NVIDIA's published FP8-over-BF16
            speedups on H100 beside the model's, and the Blackwell pairs (BF16, FP8, MXFP8, NVFP4; blackwell_speedups)

A chapter imports its module as ``findings`` and calls it: ``findings.state_gpus(70e9, 16, "A100 80GB")``.
"""

from ...catalog import hardware
from ...core import _validate as v
from ...core.i18n import N_
from ...formulas.model import config_from

# Rules for the lists a finding compares, each item checked and a bad one named as the caller wrote it ("gpus[1]").
configs = v.each(lambda name, model: config_from(model), N_("models (presets or configs)"))
gpu_names = v.each(lambda name, gpu: hardware.gpu(gpu) and gpu, N_("GPU names"))
