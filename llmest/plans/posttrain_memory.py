"""Memory per GPU of post-training: full fine-tuning (``full_memory``: training's accounting with a fine-tuning run's
settings), and the methods that keep several models at once: DPO (a trained policy and a frozen reference), PPO
(policy and critic trained, reference and reward model frozen) and GRPO (a trained policy, a frozen reference, G
answers sampled per prompt, no critic). ``models_kept`` gives each model's memory per GPU on its own; the task
functions put them on the same GPUs (``colocate``, as verl's hybrid engine and OpenRLHF's --colocate_all_models do)
or give each its own ``dp`` GPUs (OpenRLHF's default placement), and ``memory_task_plan`` makes them tasks of
``plan_memory``."""

from __future__ import annotations

from ..core import _validate as v
from ..core.i18n import _
from ..formulas.hybrid_cache import cache_bytes_per_gpu
from ..formulas.memory import RUNTIME_OVERHEAD_BYTES, model_weight_bytes
from ..formulas.model import config_from
from .memory_plan import MemoryBreakdown, training_memory

POST_TRAINING = ("dpo", "ppo", "grpo")
# The models each method keeps, and whether each is trained. PPO: Ouyang et al. 2022 (InstructGPT, arXiv
# 2203.02155) §3.5 and OpenRLHF's actor, critic, reward and reference; DPO: Rafailov et al. 2023 (arXiv 2305.18290)
# eq. 7, the policy against a frozen reference, no reward model; GRPO: Shao et al. 2024 (DeepSeekMath, arXiv
# 2402.03300) §4.1, "foregoes the value model", the baseline from G sampled outputs, KL to a reference model.
MODELS_KEPT = {"dpo": (("policy", True), ("reference", False)),
               "ppo": (("policy", True), ("critic", True), ("reference", False), ("reward", False)),
               "grpo": (("policy", True), ("reference", False))}
# The methods whose answers are generated during the step, by an inference engine with its own copy of the weights
# and a KV cache (vLLM in verl and OpenRLHF); DPO trains on preference pairs already written.
ROLLOUT = ("ppo", "grpo")
# DPO's forward runs the chosen and the rejected answer of each prompt together (TRL's DPOTrainer
# concatenated_forward): a micro-batch of m pairs is 2·m sequences.
DPO_SEQUENCES_PER_PAIR = 2
# A fine-tuning run's settings where the ``training`` task keeps pre-training's: the states sharded over one node of
# 8 GPUs (ZeRO-3 / FSDP, as the fine-tuning examples of TRL, OpenRLHF and verl run) and gradient checkpointing.
FULL_DEFAULTS = {"zero": 3, "dp": 8, "recompute": "full"}


def _trained(cfg, settings, micro_batch) -> MemoryBreakdown:
    """A trained model's memory per GPU: training_memory with its settings, no runtime overhead (counted once)."""
    return training_memory(cfg, **{**settings, "micro_batch": micro_batch, "overhead_bytes": 0})


def _frozen(cfg, zero, dp) -> MemoryBreakdown:
    """A frozen model kept for its forward only: its BF16 weights, sharded over dp like the policy's at ZeRO-3
    (OpenRLHF gives its reference and reward models the actor's ZeRO stage; verl shards its reference with FSDP).
    Its forward's activations live one layer at a time, under no gradient, and are left out."""
    return MemoryBreakdown({"weights": model_weight_bytes(cfg, "bf16") / (dp if zero >= 3 else 1)}, gpus=dp)


def _engine(cfg, seq_len, sequences) -> MemoryBreakdown:
    """The rollout engine on one GPU: its own BF16 copy of the policy's weights, and the KV cache of the
    ``sequences`` it decodes together, each up to ``seq_len`` tokens (prompt and answer)."""
    return MemoryBreakdown({"weights": model_weight_bytes(cfg, "bf16"),
                            "kv_cache": cache_bytes_per_gpu(cfg, seq_len, sequences)})


def _check_method(task, prompts, group):
    v.check_choice("task", task, MODELS_KEPT)
    v.check_int("prompts", prompts, maximum=int(v.HUGE))
    v.check_int("group", group, maximum=int(v.HUGE))
    if task == "ppo" and group != 1:
        raise v.InputError("group", _("group == {group}, must be 1 for PPO: it samples one answer per prompt and "
                                      "takes its baseline from the critic.").format(group=group))


@v.checked(**v.WHOLE)
def models_kept(task, model, *, zero=3, dp=8, micro_batch=1, seq_len=2048, prompts=16, group=1, convention="mixed",
                optimizer="adamw", recompute="full", flash=True) -> dict:
    """Each model a post-training method keeps, on its own dp GPUs: {name: (trained, MemoryBreakdown per GPU)}.
    A trained model (policy, critic: a value head on the same network) has training_memory's states and
    activations at ZeRO ``zero`` over ``dp``; a frozen one (reference, reward model) its BF16 weights
    (``_frozen``); with a rollout (PPO, GRPO) the "rollout" engine holds a BF16 copy of the weights and the KV cache
    of ``prompts`` × ``group`` sequences of ``seq_len`` tokens per GPU. The reward and critic models are taken to be
    the policy's size, as in OpenRLHF's Llama-3-8B examples."""
    cfg = config_from(model)
    _check_method(task, prompts, group)
    settings = dict(convention=convention, optimizer=optimizer, zero=zero, dp=dp, seq_len=seq_len,
                    recompute=recompute, flash=flash)
    sequences = micro_batch * (DPO_SEQUENCES_PER_PAIR if task == "dpo" else 1)
    kept = {}
    for name, trained in MODELS_KEPT[task]:
        kept[name] = (trained, _trained(cfg, settings, sequences) if trained else _frozen(cfg, zero, dp))
    if task in ROLLOUT:
        kept["rollout"] = (False, _engine(cfg, seq_len, prompts * group))
    return kept


def _post_training_memory(task, model, *, colocate=True, overhead_bytes=RUNTIME_OVERHEAD_BYTES[0],
                         **settings) -> MemoryBreakdown:
    """The models of ``models_kept`` on the GPUs of one rank. ``colocate``: every model on the same dp GPUs, as
    verl's hybrid engine and OpenRLHF's --colocate_all_models run them: the policy's parts, then each other model
    as one part ("critic", "reference", "reward", "rollout" for the engine's weights, "kv_cache" for its cache). The
    trained models' activations are counted once: the critic trains after the policy, and a backward frees its
    activations before the next begins. The engine is counted whole beside training (a bound: verl and OpenRLHF
    can free its cache, or its weights too, while the policy trains). Not colocated: each model on its own dp
    GPUs (the engine on as many), the breakdown that of the busiest; ``gpus`` counts them all."""
    v.check_bool("colocate", colocate)
    v.check_number("overhead_bytes", overhead_bytes, low=0)
    kept = models_kept(task, model, **settings)
    policy = kept["policy"][1]
    dp = policy.gpus
    if not colocate:  # the busiest GPU: of the model that needs the most
        busiest = max((b for _trained, b in kept.values()), key=lambda b: b.total)
        parts = {part: b for part, b in busiest.parts.items() if part != "overhead"}
        return MemoryBreakdown({**parts, "overhead": overhead_bytes}, gpus=dp * len(kept))
    parts = {part: b for part, b in policy.parts.items() if part != "overhead"}
    for name, (trained, b) in kept.items():
        if name == "policy":
            continue
        if name == "rollout":
            parts.update(rollout=b["weights"], kv_cache=b["kv_cache"])
        else:
            parts[name] = b.total - (b.parts.get("activations", 0) if trained else 0)
    parts["overhead"] = overhead_bytes
    return MemoryBreakdown(parts, gpus=dp)


@v.checked(**v.WHOLE)
def full_memory(model, *, convention="mixed", optimizer="adamw", zero=FULL_DEFAULTS["zero"], dp=FULL_DEFAULTS["dp"],
                tp=1, pp=1, micro_batch=1, seq_len=2048, recompute=FULL_DEFAULTS["recompute"], flash=True,
                overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """Full fine-tuning: every parameter trained, as ``training_memory`` counts it, with a fine-tuning run's
    settings by default (``FULL_DEFAULTS``: ZeRO-3 over the 8 GPUs of a node, gradient checkpointing). It differs
    from the ``training`` task only in those defaults; the fewer tokens of a fine-tuning set change its time, not
    its memory per GPU."""
    return training_memory(model, convention=convention, optimizer=optimizer, zero=zero, dp=dp, tp=tp, pp=pp,
                           micro_batch=micro_batch, seq_len=seq_len, recompute=recompute, flash=flash,
                           overhead_bytes=overhead_bytes)


@v.checked(**v.WHOLE)
def dpo_memory(model, *, zero=3, dp=8, micro_batch=1, seq_len=2048, colocate=True, convention="mixed",
               optimizer="adamw", recompute="full", flash=True,
               overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """DPO: the trained policy, whose micro-batch of ``micro_batch`` pairs runs 2 sequences a pair (chosen and
    rejected), beside a frozen reference (``_post_training_memory``)."""
    return _post_training_memory("dpo", model, colocate=colocate, overhead_bytes=overhead_bytes, zero=zero, dp=dp,
                                micro_batch=micro_batch, seq_len=seq_len, convention=convention, optimizer=optimizer,
                                recompute=recompute, flash=flash)


@v.checked(**v.WHOLE)
def ppo_memory(model, *, zero=3, dp=8, micro_batch=1, seq_len=2048, prompts=16, colocate=True, convention="mixed",
               optimizer="adamw", recompute="full", flash=True,
               overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """PPO: policy and critic trained, reference and reward model frozen, and the rollout engine decoding
    ``prompts`` answers per GPU (``_post_training_memory``)."""
    return _post_training_memory("ppo", model, colocate=colocate, overhead_bytes=overhead_bytes, zero=zero, dp=dp,
                                micro_batch=micro_batch, seq_len=seq_len, prompts=prompts, group=1,
                                convention=convention, optimizer=optimizer, recompute=recompute, flash=flash)


@v.checked(**v.WHOLE)
def grpo_memory(model, *, zero=3, dp=8, micro_batch=1, seq_len=2048, prompts=2, group=8, colocate=True,
                convention="mixed", optimizer="adamw", recompute="full", flash=True,
                overhead_bytes=RUNTIME_OVERHEAD_BYTES[0]) -> MemoryBreakdown:
    """GRPO: the trained policy, a frozen reference, no critic, and the rollout engine decoding ``group`` answers
    to each of ``prompts`` prompts per GPU together (``_post_training_memory``)."""
    return _post_training_memory("grpo", model, colocate=colocate, overhead_bytes=overhead_bytes, zero=zero, dp=dp,
                                micro_batch=micro_batch, seq_len=seq_len, prompts=prompts, group=group,
                                convention=convention, optimizer=optimizer, recompute=recompute, flash=flash)
