"""Plans: one function per question a user asks, composing the formulas of ``memory``, ``compute`` and ``data`` and
returning a result with every figure and the inputs it assumed. The command line, the calculators, the exercises,
the material's figures and the drills call these; none composes formulas itself. Every plan checks all it takes.

memory_plan   training_memory, inference_memory, lora_memory, qlora_memory, and the decisions: usable_bytes, fits,
              min_gpus, gpus_to_hold, state_gpus,
              zero_gpus (the least GPUs for a parameter count's states at a ZeRO stage, activations shared out)
memory_task_plan  plan_memory (a task's memory per GPU, whether it fits, and the least GPUs that hold it)
posttrain_memory  full_memory, dpo_memory, ppo_memory, grpo_memory, models_kept (post-training's models, each
                  trained or frozen, colocated or apart, and the rollout engine's weights and KV cache)
rl_step_plan  estimate_rl_step (a DPO, PPO or GRPO step: the rollout from the serving plan, each wave decoded until
              its longest answer ends at a serving engine's measured efficiency and a fitted rollout overhead, the
              weight refit, the training passes at an MFU, and the split of the step between them), answer_lengths
time_plan     estimate_time (FLOPs -> GPU-hours -> days -> margin -> cost), estimate_finetune_time (LoRA),
              estimate_mfu (the MFU a run implies), estimate_training
budget_plan   estimate_budget (a cluster's FLOPs for some days, and the model or tokens they buy)
serving_plan  decode_estimate, estimate_serving, estimate_request (TTFT, TPOT, the largest batch a paged KV
              cache holds, the price of input and output tokens)
capacity_plan  plan_capacity (the GPUs and layout for R requests/s under TTFT and TPOT targets: continuous batching
               with chunked prefill, or prefill and decode apart; prefix caching; TP's all-reduce), with its
               assumptions in capacity_assumptions
decode_step   decode_step (one decoding step with the FP8 peak, several tokens a sequence, the routed experts a batch
              reads and expert parallelism's all-to-all, at a share of the roofline)
serving_features  speculative_decode (a draft model or MTP), kv_cache_options (BF16 or FP8 KV), kv_offload (bring a
                  cache back or recompute it), moe_decode (the experts a MoE step reads at each batch)
layout_plan   search_layouts (every TP × CP × PP × DP layout of a run: memory, step time, MFU, ranked)
corpus_plan   estimate_corpus, chinchilla_for_budget
comparison_plan  compare_memory (one model's training memory under several settings, as one table),
                 memory_reductions (the sheet's memory reductions one after another)
layout_time, layout_assumptions   the layout search's step time and its named, sourced constants
precision_time  how fast a precision recipe's matmuls run (formulas.precision's recipes: BF16, FP8 as NVIDIA's H100
                recipes and DeepSeek-V3 run it, MXFP8, NVFP4): the fitted efficiency and the speedup over BF16 that
                search_layouts and estimate_time apply (their ``precision``; training_memory's gives the bytes)
precision_pairs, precision_blackwell  NVIDIA's published runs of one layout in two precisions (H100; B200, GB200,
                GB300) beside the model's speedups, and the fits of those efficiencies
published_layouts  published training runs with their layouts, and the search's prediction of each

Each result type shows itself (``str``, ``_repr_html_``, ``to_dict``) through its report in ``llmest.display``.
"""

from .budget_plan import BudgetEstimate, estimate_budget
from .capacity_plan import CapacityPlan, ReplicaFit, plan_capacity
from .comparison_plan import MemoryComparison, compare_memory, memory_reductions
from .corpus_plan import CorpusEstimate, chinchilla_for_budget, estimate_corpus
from .layout_plan import LayoutSearch, search_layouts
from .memory_plan import (GPU_SEARCH_LIMIT, PARTS, MemoryBreakdown, fits, gpus_to_hold, inference_memory,
                          largest_module_params, lora_memory, min_gpus, qlora_memory, state_gpus, training_memory,
                          usable_bytes, zero_gpus)
from .memory_task_plan import SEARCHED, TASKS, MemoryPlan, plan_memory
from .posttrain_memory import dpo_memory, full_memory, grpo_memory, models_kept, ppo_memory
from .rl_step_plan import RLStepEstimate, answer_lengths, estimate_rl_step
from .serving_plan import (PREFILL_EFFICIENCY, DecodeEstimate, RequestEstimate, ServingEstimate, decode_estimate,
                           estimate_request, estimate_serving)
from .decode_step import DecodeStep, decode_step
from .serving_features import (KvOffload, KvOptions, MoeDecode, SpeculativeEstimate, kv_cache_options, kv_offload,
                               moe_decode, speculative_decode)
from .time_plan import (TIME_MARGIN_TEXT, MfuEstimate, TimeEstimate, TrainingEstimate, estimate_finetune_time,
                        estimate_mfu, estimate_time, estimate_training)

__all__ = ["BudgetEstimate", "CapacityPlan", "ReplicaFit", "plan_capacity",
           "CorpusEstimate", "DecodeEstimate", "GPU_SEARCH_LIMIT", "LayoutSearch", "MemoryBreakdown",
           "MemoryComparison", "MemoryPlan", "MfuEstimate", "PARTS", "PREFILL_EFFICIENCY", "RLStepEstimate",
           "RequestEstimate", "dpo_memory", "estimate_rl_step", "full_memory", "grpo_memory", "models_kept",
           "ppo_memory",
           "SEARCHED", "ServingEstimate", "TASKS", "TIME_MARGIN_TEXT", "TimeEstimate", "TrainingEstimate",
           "chinchilla_for_budget", "compare_memory", "decode_estimate", "estimate_budget", "estimate_corpus",
           "estimate_finetune_time", "estimate_mfu", "estimate_request", "estimate_serving", "estimate_time",
           "estimate_training", "fits", "gpus_to_hold", "inference_memory", "largest_module_params",
           "lora_memory", "memory_reductions", "min_gpus", "plan_memory", "qlora_memory", "search_layouts",
           "state_gpus", "training_memory", "usable_bytes", "zero_gpus"]
__all__ += ["answer_lengths"]
__all__ += ["DecodeStep", "KvOffload", "KvOptions", "MoeDecode", "SpeculativeEstimate", "decode_step",
            "kv_cache_options", "kv_offload", "moe_decode", "speculative_decode"]
