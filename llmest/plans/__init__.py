"""Plans: one function per question a user asks, composing the formulas of ``memory``, ``compute`` and ``data`` and
returning a result with every figure and the inputs it assumed. The command line, the calculators, the exercises,
the material's figures and the drills call these; none composes formulas itself. Every plan checks all it takes.

memory_plan   training_memory, inference_memory, lora_memory, qlora_memory, and the decisions: usable_bytes, fits,
              min_gpus, gpus_to_hold, state_gpus,
              zero_gpus (the least GPUs for a parameter count's states at a ZeRO stage, activations shared out)
memory_task_plan  plan_memory (a task's memory per GPU, whether it fits, and the least GPUs that hold it)
posttrain_memory  full_memory, dpo_memory, ppo_memory, grpo_memory, models_kept (post-training's models, each
                  trained or frozen, colocated or apart, and the rollout engine's weights and KV cache)
rl_step_plan  estimate_rl_step (a DPO, PPO or GRPO step: the rollout from the serving plan, the training passes at
              an MFU, and the split of the step between them)
time_plan     estimate_time (FLOPs -> GPU-hours -> days -> margin -> cost), estimate_finetune_time (LoRA),
              estimate_mfu (the MFU a run implies), estimate_training
budget_plan   estimate_budget (a cluster's FLOPs for some days, and the model or tokens they buy)
serving_plan  decode_estimate, estimate_serving, estimate_request (TTFT, TPOT, the largest batch a paged KV
              cache holds, the price of input and output tokens)
layout_plan   search_layouts (every TP × CP × PP × DP layout of a run: memory, step time, MFU, ranked)
corpus_plan   estimate_corpus, chinchilla_for_budget
comparison_plan  compare_memory (one model's training memory under several settings, as one table),
                 memory_reductions (the sheet's memory reductions one after another)
layout_time, layout_assumptions   the layout search's step time and its named, sourced constants
precision_time  how fast a precision recipe's matmuls run (formulas.precision's recipes: BF16, FP8 as NVIDIA's H100
                recipes and DeepSeek-V3 run it, MXFP8, NVFP4): the fitted efficiency and the speedup over BF16 that
                search_layouts and estimate_time apply (their ``precision``; training_memory's gives the bytes)
published_layouts  published training runs with their layouts, and the search's prediction of each

Each result type shows itself (``str``, ``_repr_html_``, ``to_dict``) through its report in ``llmest.display``.
"""

from .budget_plan import BudgetEstimate, estimate_budget
from .comparison_plan import MemoryComparison, compare_memory, memory_reductions
from .corpus_plan import CorpusEstimate, chinchilla_for_budget, estimate_corpus
from .layout_plan import LayoutSearch, search_layouts
from .memory_plan import (GPU_SEARCH_LIMIT, PARTS, MemoryBreakdown, fits, gpus_to_hold, inference_memory,
                          largest_module_params, lora_memory, min_gpus, qlora_memory, state_gpus, training_memory,
                          usable_bytes, zero_gpus)
from .memory_task_plan import SEARCHED, TASKS, MemoryPlan, plan_memory
from .posttrain_memory import dpo_memory, full_memory, grpo_memory, models_kept, ppo_memory
from .rl_step_plan import RLStepEstimate, estimate_rl_step
from .serving_plan import (PREFILL_EFFICIENCY, DecodeEstimate, RequestEstimate, ServingEstimate, decode_estimate,
                           estimate_request, estimate_serving)
from .time_plan import (TIME_MARGIN_TEXT, MfuEstimate, TimeEstimate, TrainingEstimate, estimate_finetune_time,
                        estimate_mfu, estimate_time, estimate_training)

__all__ = ["BudgetEstimate", "CorpusEstimate", "DecodeEstimate", "GPU_SEARCH_LIMIT", "LayoutSearch", "MemoryBreakdown",
           "MemoryComparison", "MemoryPlan", "MfuEstimate", "PARTS", "PREFILL_EFFICIENCY", "RLStepEstimate",
           "RequestEstimate", "dpo_memory", "estimate_rl_step", "full_memory", "grpo_memory", "models_kept",
           "ppo_memory",
           "SEARCHED", "ServingEstimate", "TASKS", "TIME_MARGIN_TEXT", "TimeEstimate", "TrainingEstimate",
           "chinchilla_for_budget", "compare_memory", "decode_estimate", "estimate_budget", "estimate_corpus",
           "estimate_finetune_time", "estimate_mfu", "estimate_request", "estimate_serving", "estimate_time",
           "estimate_training", "fits", "gpus_to_hold", "inference_memory", "largest_module_params",
           "lora_memory", "memory_reductions", "min_gpus", "plan_memory", "qlora_memory", "search_layouts",
           "state_gpus", "training_memory", "usable_bytes", "zero_gpus"]
