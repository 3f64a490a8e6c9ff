"""Post-training: full fine-tuning, DPO, PPO and GRPO as memory tasks (each model kept, colocated or apart, the
rollout engine's weights and KV cache), the step of an RL method (rollout from the serving plan, training passes at
an MFU), and the published figures beside the model."""

from __future__ import annotations

import json

import pytest

from llmest import plans
from llmest.core.i18n import speaking
from llmest.core._validate import InputError
from llmest.formulas.compute import flops_params
from llmest.formulas.model import count_params, preset
from llmest.plans.findings.post_training import published_post_training
from llmest.plans.posttrain_memory import FULL_DEFAULTS, models_kept
from llmest.surfaces.cli.main import main

LLAMA2_7B = 6_738_415_616           # Llama-2-7B's config.json, counted exactly
KIB = 2**10


def test_full_fine_tuning_is_training_with_a_fine_tuning_runs_settings():
    full = plans.plan_memory("full", "llama-2-7b")
    training = plans.plan_memory("training", "llama-2-7b", **FULL_DEFAULTS)
    assert full.breakdown.parts == training.breakdown.parts
    assert full.trainable_params == LLAMA2_7B
    assert full.settings["zero"] == 3 and full.settings["dp"] == 8 and full.settings["recompute"] == "full"


def test_ppo_keeps_two_trained_and_two_frozen_models_of_36_bytes_a_parameter():
    kept = models_kept("ppo", "llama-2-7b", zero=0, dp=1)
    assert [(name, trained) for name, (trained, _b) in kept.items()] == [
        ("policy", True), ("critic", True), ("reference", False), ("reward", False), ("rollout", False)]
    for name in ("policy", "critic"):
        b = kept[name][1]
        assert b["weights"] + b["master"] + b["gradients"] + b["optimizer"] == 16 * LLAMA2_7B
    for name in ("reference", "reward"):
        assert kept[name][1].total == 2 * LLAMA2_7B


def test_a_frozen_model_is_sharded_only_at_zero_3():
    assert models_kept("dpo", "llama-2-7b", zero=3, dp=8)["reference"][1].total == 2 * LLAMA2_7B / 8
    assert models_kept("dpo", "llama-2-7b", zero=2, dp=8)["reference"][1].total == 2 * LLAMA2_7B


def test_dpo_runs_the_chosen_and_rejected_answer_of_each_pair():
    dpo = models_kept("dpo", "llama-2-7b", micro_batch=2)["policy"][1]
    training = plans.training_memory("llama-2-7b", zero=3, dp=8, micro_batch=4, recompute="full")
    assert dpo["activations"] == training["activations"]


def test_the_rollout_engine_keeps_a_bf16_copy_and_the_kv_cache_of_its_sequences():
    # Llama-3-8B: 128 KiB of BF16 KV cache a token (GQA, 8 KV heads of 128, 32 layers)
    engine = models_kept("grpo", "llama-3-8b", seq_len=4096, prompts=4, group=8)["rollout"][1]
    assert engine["kv_cache"] == 128 * KIB * 4096 * 32
    assert engine["weights"] == 2 * count_params(preset("llama-3-8b")).total == 2 * 8_030_261_248


def test_colocated_models_add_up_on_each_gpu_and_apart_each_takes_its_own():
    together = plans.grpo_memory("llama-3-8b", dp=8)
    apart = plans.grpo_memory("llama-3-8b", dp=8, colocate=False)
    kept = models_kept("grpo", "llama-3-8b", dp=8, prompts=2, group=8)
    policy, reference, engine = (kept[name][1] for name in ("policy", "reference", "rollout"))
    assert together.total == pytest.approx(policy.total - policy["overhead"] + reference.total + engine.total + 5e8)
    assert together.gpus == 8 and apart.gpus == 24
    assert apart.total == pytest.approx(max(policy.total, engine.total) + 5e8)
    assert apart.total < together.total


def test_ppo_needs_more_than_grpo_which_needs_more_than_dpo():
    ppo, grpo, dpo = (plans.plan_memory(task, "llama-3-8b", gpu="H100 SXM").breakdown.total
                      for task in ("ppo", "grpo", "dpo"))
    assert ppo > grpo > dpo


def test_post_training_tasks_search_the_least_data_parallel_gpus():
    plan = plans.plan_memory("grpo", "llama-3-8b", gpu="H100 SXM")
    assert plan.least is not None
    smaller = plans.grpo_memory("llama-3-8b", dp=plan.least)
    assert smaller.total <= plan.usable_bytes
    if plan.least > 1:
        assert plans.grpo_memory("llama-3-8b", dp=plan.least - 1).total > plan.usable_bytes
    apart = plans.plan_memory("ppo", "llama-3-8b", gpu="H100 SXM", colocate=False)
    assert apart.least_gpus == apart.least * 5


def test_bad_settings_are_refused_by_name():
    with pytest.raises(InputError) as err:
        plans.plan_memory("grpo", "llama-3-8b", group=0)
    assert err.value.param == "group"
    with pytest.raises(InputError) as err:
        models_kept("ppo", "llama-3-8b", group=4)
    assert err.value.param == "group"
    with pytest.raises(InputError) as err:
        plans.dpo_memory("llama-3-8b", colocate="yes")
    assert err.value.param == "colocate"
    with pytest.raises(InputError) as err:
        plans.estimate_rl_step("llama-3-8b", gpus=6, rollout_tp=4)
    assert err.value.param == "rollout_tp"
    with pytest.raises(InputError) as err:
        plans.estimate_rl_step("llama-3-8b", "sft")
    assert err.value.param == "method"


# ------------------------------------------------------------------------------------------------------------------
# A step
# ------------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method, per_token", [("grpo", 8 + 2 + 2), ("ppo", 8 + 2 + 2 + 2 + 2 + 8), ("dpo", 8 + 2)])
def test_the_training_passes_count_8n_a_trained_token_and_2n_a_forward(method, per_token):
    est = plans.estimate_rl_step("llama-3-8b", method, prompts=16, prompt_tokens=256, output_tokens=512)
    sequences = 16 * {"grpo": 64, "ppo": 1, "dpo": 2}[method]
    assert est.tokens == sequences * (256 + 512)
    n = flops_params("llama-3-8b")
    assert sum(est.flops.values()) == pytest.approx(per_token * n * est.tokens)
    assert est.training_s == pytest.approx(sum(est.flops.values()) / (8 * 989.4e12 * 0.4), rel=1e-3)


def test_the_rollout_is_the_serving_plans_request_on_each_engine():
    est = plans.estimate_rl_step("llama-3-8b", "grpo", gpus=8, prompts=16, group=8, prompt_tokens=256,
                                 output_tokens=512)
    request = plans.estimate_request("llama-3-8b", "H100 SXM", prompt_tokens=256, output_tokens=512, batch=16)
    assert est.waves == 1 and est.rollout_s == pytest.approx(request.request_s)
    assert est.step_s == pytest.approx(est.rollout_s + est.training_s)
    assert 0 < est.generation_share < 1
    assert plans.estimate_rl_step("llama-3-8b", "dpo").generation_share == 0


def test_longer_answers_shift_the_step_towards_generation():
    short, long = (plans.estimate_rl_step("llama-3-8b", output_tokens=n).generation_share for n in (256, 4096))
    assert long > short


# ------------------------------------------------------------------------------------------------------------------
# Published figures
# ------------------------------------------------------------------------------------------------------------------

def _rows():
    return {row["key"]: row for row in published_post_training()["rows"]}


def test_ppo_memory_of_a_7b_is_within_15_percent_of_hydra_rlhfs_estimate():
    row = _rows()["hydra_ppo_memory"]
    assert row["model"] == 36 * LLAMA2_7B
    assert row["published"] == 220e9
    assert abs(row["difference"]) < 0.15


def test_nemo_rls_grpo_step_lies_between_the_mean_and_the_longest_answers():
    row = _rows()["nemo_rl_grpo_step"]
    assert row["published"] == 97.7
    assert row["model"] < row["published"] < row["model_longest"]
    assert row["generation_share"] < row["generation_share_longest"]


def test_openrlhfs_generation_share_is_above_the_roofline_models():
    """The model's rollout decodes at the roofline, every answer the same length: its share is a lower bound."""
    row = _rows()["openrlhf_generation_share"]
    assert row["published"] == 0.8
    assert 0 < row["model"] < row["published"]


# ------------------------------------------------------------------------------------------------------------------
# The command line and the planner
# ------------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("task", ["lora", "full", "dpo", "ppo", "grpo"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_command_line_answers_each_task_in_both_languages(task, lang, capsys):
    assert main(["--lang", lang, "memory", "llama-3-8b", "--task", task, "--gpu", "H100 SXM"]) == 0
    out = capsys.readouterr().out
    assert ("llama-3-8b，" if lang == "zh" else "llama-3-8b, ") in out
    if lang == "zh" and task in ("dpo", "ppo", "grpo"):
        assert "策略模型" in out and "参考模型" in out and "trained" not in out and "keeps" not in out
    assert main(["--lang", lang, "memory", "llama-3-8b", "--task", task, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["task"] == task
    if task in ("dpo", "ppo", "grpo"):
        assert data["models"]["policy"]["trained"] is True


def test_the_command_line_refuses_an_option_a_task_does_not_use(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["memory", "llama-3-8b", "--task", "dpo", "--group", "4"])
    assert exit_.value.code == 2
    assert "--group" in capsys.readouterr().err


def test_the_memory_planner_offers_the_post_training_tasks():
    from llmest.surfaces.widgets.memory import MemoryPlanner

    planner = MemoryPlanner("llama-3-8b", "H100 SXM")
    offered = [value for _label, value in planner.inputs["task"].options]
    assert {"lora", "full", "dpo", "ppo", "grpo"} <= set(offered)
    for task in ("full", "dpo", "ppo", "grpo"):
        planner.inputs["task"].value = task
        assert planner.plan is not None and planner.plan.task == task
    planner.inputs["group"].value = 0
    assert planner.plan is None and planner.errors["group"].value  # the message beside the field
    with speaking("zh"):
        zh = MemoryPlanner("llama-3-8b", "H100 SXM")
        zh.inputs["task"].value = "grpo"
        assert "策略模型" in zh.verdict.value
