"""Post-training's published figures beside the model (``llmest.display.findings.post_training`` writes them): the
memory of PPO on a 7B (Hydra-RLHF), the step time of GRPO on Llama 3.1 8B (NeMo RL's performance summary), and the
share of an RLHF step spent generating (OpenRLHF). Each row: the source, the published figure, the model's, and the
difference, with why they differ."""

from __future__ import annotations

from ...core.report import Finding
from ...display.findings import post_training as shown
from ..posttrain_memory import models_kept
from ..rl_step_plan import estimate_rl_step

# Santacroce et al. 2023, "Efficient RLHF: Reducing the Memory Usage of PPO" (arXiv 2309.00754), Table 1: full PPO
# of Llama 7b (actor, critic, reference and reward model, all 7b) needs 220 GB, their estimate (the run did not
# fit their GPUs). Read in a copy that quotes the table (V2); the unit (GB or GiB) is not said there.
HYDRA_PPO_7B_BYTES = 220e9
# NeMo RL v0.4 performance summary (NVIDIA-NeMo/RL docs/about/performance-summary.md), GRPO on OpenMathInstruct-2,
# DGX-H100, BF16 training and generation, on-policy: Llama 3.1 8B on 16 GPUs, 2,048 samples generated a step
# (G-GBS), sequences of 1,060 tokens on average (G-Average Seq len) and at most 4,096 (T-Max Sequence Length),
# generation TP 1, 1,562 tokens/s/GPU, a step of 97.7 s (training, generation, policy log-probs and refit).
NEMO_RL_GRPO = dict(model="llama-3-8b", gpus=16, samples=2048, mean_tokens=1060, max_tokens=4096, step_s=97.7,
                    tokens_per_s_per_gpu=1562)
# The split of a NeMo RL sequence between prompt and answer is not published: the model's assumption, a short
# math problem's prompt (its prefill is under 1% of the rollout either way). Llama 3.1 8B has Llama 3 8B's shapes.
NEMO_RL_PROMPT_TOKENS = 60
NEMO_RL_GROUP = 32   # the 2,048 samples as prompts × G; only their number enters the model
# OpenRLHF README (OpenRLHF/OpenRLHF, "High performance"): "RLHF training spends 80% of the time on the sample
# generation stage"; its PPO example beside it: Llama-3-8B policy and 8B reward model on 8 GPUs, all colocated,
# vLLM engines of TP 2, 1,024 prompts a rollout, prompts and answers of up to 1,024 tokens each.
OPENRLHF_GENERATION_SHARE = 0.80
OPENRLHF_PPO = dict(model="llama-3-8b", gpus=8, prompts=1024, prompt_tokens=1024, output_tokens=1024, rollout_tp=2)


def published_post_training() -> Finding:
    """Each published figure with the model's and the difference (model / published − 1)."""
    kept = models_kept("ppo", "llama-2-7b", zero=0, dp=1)
    ppo_states = sum(b.total - b.parts.get("activations", 0) - b.parts.get("buffers", 0)
                     for name, (_trained, b) in kept.items() if name != "rollout")
    n = NEMO_RL_GRPO
    answer = n["mean_tokens"] - NEMO_RL_PROMPT_TOKENS
    longest = n["max_tokens"] - NEMO_RL_PROMPT_TOKENS
    grpo = [estimate_rl_step(n["model"], "grpo", "H100 SXM", gpus=n["gpus"], prompts=n["samples"] // NEMO_RL_GROUP,
                             group=NEMO_RL_GROUP, prompt_tokens=NEMO_RL_PROMPT_TOKENS, output_tokens=tokens)
            for tokens in (answer, longest)]
    o = OPENRLHF_PPO
    ppo = estimate_rl_step(o["model"], "ppo", "H100 SXM", gpus=o["gpus"], prompts=o["prompts"],
                           prompt_tokens=o["prompt_tokens"], output_tokens=o["output_tokens"],
                           rollout_tp=o["rollout_tp"])
    rows = [
        dict(key="hydra_ppo_memory", unit="bytes", published=HYDRA_PPO_7B_BYTES, model=ppo_states,
             model_gib=ppo_states / 2**30),
        dict(key="nemo_rl_grpo_step", unit="seconds", published=n["step_s"], model=grpo[0].step_s,
             model_longest=grpo[1].step_s, generation_share=grpo[0].generation_share,
             generation_share_longest=grpo[1].generation_share),
        dict(key="nemo_rl_grpo_throughput", unit="tokens/s/GPU", published=n["tokens_per_s_per_gpu"],
             model=grpo[0].tokens_per_s_per_gpu),
        dict(key="openrlhf_generation_share", unit="fraction", published=OPENRLHF_GENERATION_SHARE,
             model=ppo.generation_share, rollout_s=ppo.rollout_s, training_s=ppo.training_s),
    ]
    for row in rows:
        row["difference"] = row["model"] / row["published"] - 1
    return Finding({"rows": rows}, shown.published_post_training)
