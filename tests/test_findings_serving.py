"""The serving model's reality checks (llmest.plans.findings.serving): the published figures as their sources print
them, the model within 25% where the finding says so and the gap shown where it does not, one constant fitted and
the rest held out. ``SAMPLES`` feeds tests/test_findings.py."""

from __future__ import annotations

import pytest

from llmest import InputError
from llmest.catalog.serving_runs import (DEEPSEEK_INFERENCE, DEEPSEEK_PREFILL_PROFILE, FITTED_ROW, MLPERF_LLAMA2_70B,
                                         MLPERF_PROMPT_TOKENS, SGLANG_DEEPSEEK, TRTLLM_H200_LLAMA_70B,
                                         TRTLLM_XQA_H200)
from llmest.core.i18n import speaking
from llmest.formulas.speculative import MTP_ACCEPTANCE, MTP_SPEEDUP
from llmest.plans.findings import serving as findings

SAMPLES = {
    "trtllm_h200": lambda: findings.trtllm_h200(),
    "mlperf_llama2": [lambda: findings.mlperf_llama2(), lambda: findings.mlperf_llama2(337)],
    "deepseek_serving": [lambda: findings.deepseek_serving(), lambda: findings.deepseek_serving(8192, 0.9, 2048)],
    "sglang_deepseek": lambda: findings.sglang_deepseek(),
    "mtp_speedup": lambda: findings.mtp_speedup(),
}


def test_the_published_figures_are_the_sources():
    assert DEEPSEEK_INFERENCE["prefill_input_tokens_per_s_per_node"] == 73.7e3
    assert DEEPSEEK_INFERENCE["decode_output_tokens_per_s_per_node"] == 14.8e3
    assert DEEPSEEK_INFERENCE["cache_hit_share"] == 0.563
    assert DEEPSEEK_INFERENCE["kv_tokens_per_output_token"] == 4989
    assert 342e9 / DEEPSEEK_INFERENCE["input_tokens_per_day"] == pytest.approx(0.563, abs=5e-4)  # "342B (56.3%)"
    assert (DEEPSEEK_INFERENCE["prefill_ep"], DEEPSEEK_INFERENCE["decode_ep"]) == (32, 144)
    assert DEEPSEEK_PREFILL_PROFILE["tokens_per_s_per_node"] == 62713
    # MLPerf v4.0 closed, NVIDIA, llama2-70b-99.9 Offline: one node of 8 GPUs each, NVIDIA's TP and batch
    assert MLPERF_LLAMA2_70B == (("H100 SXM", 8, 2, 896, 74.699, 21805.8), ("H200", 8, 1, 806, 94.6223, 27738.3))
    for *_, samples, tokens in MLPERF_LLAMA2_70B:
        assert tokens / samples == pytest.approx(292.5, abs=0.7)    # 291.9 and 293.1 tokens a sample
    # TensorRT-LLM's H200 launch table, "Throughput (out tok/s/GPU)", as stored
    assert TRTLLM_H200_LLAMA_70B == ((512, 1, 128, 128, 3014), (512, 2, 128, 2048, 1654), (64, 1, 2048, 128, 341),
                                     (32, 1, 2048, 128, 303))
    assert TRTLLM_H200_LLAMA_70B[FITTED_ROW] == (512, 1, 128, 128, 3014)
    assert TRTLLM_XQA_H200["with_xqa"] / TRTLLM_XQA_H200["without_xqa"] == pytest.approx(2.4, abs=0.01)   # "2.4x"
    assert SGLANG_DEEPSEEK["prefill"] == ((1024, 57674), (2048, 54543), (4096, 50302))
    assert (SGLANG_DEEPSEEK["decode_batch"], SGLANG_DEEPSEEK["decode_kv_tokens"], SGLANG_DEEPSEEK["decode_ep"],
            SGLANG_DEEPSEEK["decode_output_tokens_per_s_per_node"]) == (256, 2000, 72, 22282)
    assert (MTP_ACCEPTANCE, MTP_SPEEDUP) == ((0.85, 0.90), 1.8)


def test_deepseek_per_node_figures_are_averages_over_the_nodes_in_use():
    """The day's tokens over the per-node rates give the published average node count: the 73.7k counts cache hits."""
    run = DEEPSEEK_INFERENCE
    nodes = run["input_tokens_per_day"] / 86400 / run["prefill_input_tokens_per_s_per_node"] + \
        run["output_tokens_per_day"] / 86400 / run["decode_output_tokens_per_s_per_node"]
    assert nodes == pytest.approx(run["average_nodes"], rel=0.005)
    f = findings.deepseek_serving()
    assert f["prefill_nodes"] + f["decode_nodes"] == pytest.approx(nodes)


def test_one_share_is_fitted_and_the_other_rows_are_held_out():
    f = findings.trtllm_h200()
    assert 0.3 < f["share"] < 0.6     # 43.8%: the roofline's share reached at batch 512, TP 1
    fitted = [row for row in f["rows"] if row["fitted"]]
    assert len(fitted) == 1 and fitted[0]["difference"] == pytest.approx(0, abs=1e-9)
    held = [row for row in f["rows"] if not row["fitted"]]
    # the two long-prompt rows within 25%; the long-output row only with v0.5's cache read once per query head
    assert [abs(row["difference"]) < 0.25 for row in held] == [False, True, True]
    assert abs(held[0]["no_xqa_difference"]) < 0.25 and held[0]["difference"] > 1
    assert held[0]["implied_step_s"] > 3 * held[0]["step_s"]


def test_mlperf_depends_on_the_prompts_length_and_says_where_it_matches():
    f = findings.mlperf_llama2()
    assert f["prompt_tokens"] == MLPERF_PROMPT_TOKENS
    assert [row["published"] for row in f["rows"]] == [21805.8, 27738.3]
    assert [row["gpus"] for row in f["rows"]] == [8, 8]
    for row in f["rows"]:
        assert row["batch"] <= row["configured_batch"]
        matching = findings.mlperf_llama2(row["matching_prompt_tokens"])
        same = [r for r in matching["rows"] if r["gpu"] == row["gpu"]][0]
        assert abs(same["difference"]) < 0.03
        assert 0 < row["implied_prefill_efficiency"] < 1      # a possible prefill, not a missing term
    assert findings.mlperf_llama2(256)["rows"][0]["model"] > f["rows"][0]["model"]     # shorter prompts, faster
    with pytest.raises(InputError) as err:
        findings.mlperf_llama2(0)
    assert err.value.param == "prompt_tokens"


def test_deepseek_decode_and_profiled_prefill_within_25_percent_and_the_production_gap_explained():
    f = findings.deepseek_serving()
    assert f["batch"] == round(14.8e3 / 8 / 21)        # 88 sequences a GPU
    assert f["context_tokens"] == 4989
    assert abs(f["decode_difference"]) < 0.25
    assert 20 * 0.75 < f["users_model"] < 22 * 1.25
    assert abs(f["profile_difference"]) < 0.25           # DeepSeek's own profiled prefill, 62,713 a node
    assert f["prefill_computed_published"] == pytest.approx(73.7e3 * (1 - 0.563))
    assert f["prefill_difference"] > 0.25                 # the 24-hour production average: explained below
    assert f["load_share"] == pytest.approx(1 / (1 + f["prefill_difference"]))
    assert 0.3 < f["production_over_profile"] < 0.6       # "roughly twice" (LMSYS)
    longer = findings.deepseek_serving(prompt_tokens=f["matching_prompt_tokens"])
    assert abs(longer["prefill_difference"]) < 0.01      # the mean prompt that reproduces it at full load


def test_sglang_decode_within_25_percent_and_prefill_gap_is_the_experts_imbalance():
    f = findings.sglang_deepseek()
    assert abs(f["decode_difference"]) < 0.25
    assert abs(f["balanced_difference"]) < 0.25           # the balanced-experts run
    assert all(row["difference"] > 0.25 for row in f["prefill"])   # default placement: the imbalance, shown
    assert [row["model"] for row in f["prefill"]] == sorted((row["model"] for row in f["prefill"]), reverse=True)


def test_the_mtp_speedup_is_reproduced_from_the_acceptance():
    f = findings.mtp_speedup()
    assert [row["tokens_per_step"] for row in f["rows"]] == pytest.approx([1.85, 1.90])
    assert all(abs(row["difference"]) < 0.1 for row in f["rows"])
    with pytest.raises(InputError) as err:
        findings.mtp_speedup([0.85, 1.5])
    assert err.value.param == "acceptances[1]"


def test_chinese_reports_name_the_sources():
    with speaking("zh"):
        text = str(findings.deepseek_serving()) + str(findings.sglang_deepseek())
    assert "DeepSeek" in text and "14,800" in text and "22,282" in text
