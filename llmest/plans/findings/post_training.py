"""Post-training's published figures beside the model (``llmest.display.findings.post_training`` writes them): the
memory of PPO on a 7B (Hydra-RLHF), the step time of GRPO (NeMo RL's performance summary: one run fits the
rollout's overhead, the others are held out), and the share of an RLHF step spent generating (OpenRLHF). Each row:
the source, the published figure, the model's, and the difference, with why they differ."""

from __future__ import annotations

from ...core.report import Finding
from ...display.findings import post_training as shown
from ..posttrain_memory import models_kept
from ..rl_step_plan import ROLLOUT_OVERHEAD, estimate_rl_step

# Santacroce et al. 2023, "Efficient RLHF: Reducing the Memory Usage of PPO" (arXiv 2309.00754), Table 1: full PPO
# of Llama 7b (actor, critic, reference and reward model, all 7b) needs 220 GB, their estimate (the run did not
# fit their GPUs). Read in a copy that quotes the table (V2); the unit (GB or GiB) is not said there.
HYDRA_PPO_7B_BYTES = 220e9
# NeMo RL v0.4 performance summary (NVIDIA-NeMo/RL docs/about/performance-summary.md), GRPO on OpenMathInstruct-2,
# DGX-H100, BF16 training and generation, on-policy: Llama 3.1 8B on 16 GPUs, 2,048 samples generated a step
# (G-GBS), sequences of 1,060 tokens on average (G-Average Seq len) and at most 4,096 (T-Max Sequence Length),
# generation TP 1, 1,562 tokens/s/GPU, a step of 97.7 s ("Step time: Time for each step, which includes training,
# generation, policy logprobs, and refit time"). The summary publishes no time for each stage.
NEMO_RL_GRPO = dict(model="llama-3-8b", gpus=16, samples=2048, mean_tokens=1060, max_tokens=4096, step_s=97.7,
                    tokens_per_s_per_gpu=1562, rollout_tp=1)
# Its recipe (examples/configs/recipes/llm/performance/grpo-llama3.1-8b-instruct-2n8g.yaml at r0.4.0): 64 prompts
# a step × 32 generations each, answers up to the 4,096-token total (max_new_tokens 4096, max_model_len 4096),
# activation checkpointing on; colocated vLLM at gpu_memory_utilization 0.6 (grpo_math_1B.yaml).
NEMO_RL_GROUP = 32
# The split of a NeMo RL sequence between prompt and answer is not published: the model's assumption, a short
# math problem's prompt (its prefill is under 1% of the rollout either way). Llama 3.1 8B has Llama 3 8B's shapes.
NEMO_RL_PROMPT_TOKENS = 60
# Qwen3-32B's shapes (Qwen/Qwen3-32B config.json, as several stored copies of it agree).
QWEN3_32B = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120,
             "intermediate_size": 25600, "num_hidden_layers": 64, "num_attention_heads": 64,
             "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936, "tie_word_embeddings": False,
             "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "hidden_act": "silu"}
# The runs the fit does not see, from the same summary's H100 BF16 on-policy rows (v0.4 as above; v0.5 from the
# page at r0.5.0): each with its GPUs, samples, mean and longest sequence, generation TP and step. The Qwen3-32B
# recipe (grpo-qwen3-32b-4n8g.yaml) also samples 64 prompts × 32.
NEMO_RL_HELD_OUT = {
    "nemo_rl_llama_v05_step": dict(model="llama-3-8b", gpus=16, samples=2048, mean_tokens=1019, max_tokens=4096,
                                   step_s=92.8, rollout_tp=1),
    "nemo_rl_qwen3_32b_step": dict(model=QWEN3_32B, gpus=32, samples=2048, mean_tokens=3206, max_tokens=4096,
                                   step_s=393, rollout_tp=4),
    "nemo_rl_qwen3_32b_v05_step": dict(model=QWEN3_32B, gpus=32, samples=2048, mean_tokens=3251, max_tokens=4096,
                                       step_s=376, rollout_tp=4),
}
# OpenRLHF README (OpenRLHF/OpenRLHF, "High performance"): "RLHF training spends 80% of the time on the sample
# generation stage"; its PPO example beside it: Llama-3-8B policy and 8B reward model on 8 GPUs, all colocated,
# vLLM engines of TP 2, 1,024 prompts a rollout, prompts and answers of up to 1,024 tokens each (no mean given).
OPENRLHF_GENERATION_SHARE = 0.80
OPENRLHF_PPO = dict(model="llama-3-8b", gpus=8, prompts=1024, prompt_tokens=1024, output_tokens=1024, rollout_tp=2)
# The same example with answers 8 times longer, as reasoning models write them: how the share grows with them.
OPENRLHF_LONGER_ANSWERS = 8192


def _nemo_rl_step(run: dict, **settings):
    """A NeMo RL run as ``estimate_rl_step`` takes it: answers of the mean sequence less the prompt on average and
    of the maximum less the prompt at most."""
    return estimate_rl_step(run["model"], "grpo", "H100 SXM", gpus=run["gpus"],
                            prompts=run["samples"] // NEMO_RL_GROUP, group=NEMO_RL_GROUP,
                            prompt_tokens=NEMO_RL_PROMPT_TOKENS,
                            output_tokens=run["max_tokens"] - NEMO_RL_PROMPT_TOKENS,
                            mean_output_tokens=run["mean_tokens"] - NEMO_RL_PROMPT_TOKENS,
                            rollout_tp=run["rollout_tp"], **settings)


def _fitted_rollout_overhead() -> float:
    """The rollout overhead that makes the model's step the published one: the step less training, refit and the
    prefills, over the waves' decoding at a serving engine's efficiency (``ROLLOUT_OVERHEAD`` rounds it)."""
    run = NEMO_RL_GRPO
    est = _nemo_rl_step(run, rollout_overhead=1.0)
    decoding = est.waves * est.wave.decode_s
    return (run["step_s"] - est.training_s - est.refit_s - est.waves * est.wave.prefill_s) / decoding


def _terms(est) -> dict:
    return dict(rollout_s=est.rollout_s, refit_s=est.refit_s, training_s=est.training_s,
                generation_share=est.generation_share, waves=est.waves,
                longest_tokens=est.wave.lengths["longest_tokens"],
                weights_share=est.wave.weights_s / est.wave.roofline_s)


def published_post_training() -> Finding:
    """Each published figure with the model's and the difference (model / published − 1)."""
    kept = models_kept("ppo", "llama-2-7b", zero=0, dp=1)
    ppo_states = sum(b.total - b.parts.get("activations", 0) - b.parts.get("buffers", 0)
                     for name, (_trained, b) in kept.items() if name != "rollout")
    n = NEMO_RL_GRPO
    grpo = _nemo_rl_step(n)
    ideal = _nemo_rl_step(dict(n, max_tokens=n["mean_tokens"]), decode_efficiency=1.0, rollout_overhead=1.0,
                         refit=False)   # every answer at the mean, on the roofline, no refit: the earlier model
    o = OPENRLHF_PPO
    ppo = estimate_rl_step(o["model"], "ppo", "H100 SXM", gpus=o["gpus"], prompts=o["prompts"],
                           prompt_tokens=o["prompt_tokens"], output_tokens=o["output_tokens"],
                           rollout_tp=o["rollout_tp"])
    rows = [
        dict(key="hydra_ppo_memory", unit="bytes", published=HYDRA_PPO_7B_BYTES, model=ppo_states,
             model_gib=ppo_states / 2**30),
        dict(key="nemo_rl_grpo_step", unit="seconds", published=n["step_s"], model=grpo.step_s,
             fitted_overhead=_fitted_rollout_overhead(), overhead=ROLLOUT_OVERHEAD, ideal_s=ideal.step_s,
             **_terms(grpo)),
        dict(key="nemo_rl_grpo_throughput", unit="tokens/s/GPU", published=n["tokens_per_s_per_gpu"],
             model=grpo.tokens_per_s_per_gpu),
    ]
    for key, run in NEMO_RL_HELD_OUT.items():
        est = _nemo_rl_step(run)
        rows.append(dict(key=key, unit="seconds", published=run["step_s"], model=est.step_s, **_terms(est)))
    longer = estimate_rl_step(o["model"], "ppo", "H100 SXM", gpus=o["gpus"], prompts=o["prompts"],
                              prompt_tokens=o["prompt_tokens"], output_tokens=OPENRLHF_LONGER_ANSWERS,
                              rollout_tp=o["rollout_tp"])
    rows.append(dict(key="openrlhf_generation_share", unit="fraction", published=OPENRLHF_GENERATION_SHARE,
                     model=ppo.generation_share, rollout_s=ppo.rollout_s, training_s=ppo.training_s,
                     longer_share=longer.generation_share, longer_tokens=OPENRLHF_LONGER_ANSWERS))
    for row in rows:
        row["difference"] = row["model"] / row["published"] - 1
    return Finding({"rows": rows}, shown.published_post_training)
