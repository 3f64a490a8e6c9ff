"""Plans: one function per question a user asks, composing the formulas of ``memory``, ``compute`` and ``data`` and
returning a result with every figure and the inputs it assumed. The command line, the calculators, the exercises,
the material's figures and the drills call these; none composes formulas itself. Every plan checks all it takes.

memory_plan   training_memory, inference_memory, qlora_memory, plan_memory, and the decisions: usable_bytes, fits,
              min_gpus, gpus_to_hold, state_gpus
time_plan     estimate_time (FLOPs -> GPU-hours -> days -> margin -> cost), estimate_training
serving_plan  decode_estimate, estimate_serving
corpus_plan   estimate_corpus, chinchilla_for_budget
"""

from .corpus_plan import CorpusEstimate, chinchilla_for_budget, estimate_corpus
from .memory_plan import (GPU_SEARCH_LIMIT, PARTS, SEARCHED, TASKS, MemoryBreakdown, MemoryPlan, fits, gpus_to_hold,
                          inference_memory, min_gpus, plan_memory, qlora_memory, state_gpus, training_memory,
                          usable_bytes)
from .serving_plan import DecodeEstimate, ServingEstimate, decode_estimate, estimate_serving
from .time_plan import TimeEstimate, TrainingEstimate, estimate_time, estimate_training

__all__ = ["GPU_SEARCH_LIMIT", "PARTS", "SEARCHED", "TASKS", "CorpusEstimate", "DecodeEstimate", "MemoryBreakdown",
           "MemoryPlan", "ServingEstimate", "TimeEstimate", "TrainingEstimate", "chinchilla_for_budget",
           "decode_estimate", "estimate_corpus", "estimate_serving", "estimate_time", "estimate_training", "fits",
           "gpus_to_hold", "inference_memory", "min_gpus", "plan_memory", "qlora_memory", "state_gpus",
           "training_memory", "usable_bytes"]
