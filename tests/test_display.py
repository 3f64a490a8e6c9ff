"""One display per result: each plan's result shows itself as text, HTML and JSON from one report, in the language
set, and every surface shows that display (the command line prints it, the calculators show its HTML)."""

from __future__ import annotations

import html
import json
import re

import pytest

from llmest import plans
from llmest.core.report import Report, Shows
from llmest.core.i18n import speaking
from llmest.surfaces.cli.main import main as cli_main

RESULTS = {
    "memory": lambda: plans.plan_memory("training", "llama-2-7b", zero=2, dp=8),
    "time": lambda: plans.estimate_time(1e12, n_params=7e9, gpus=256),
    "finetune time": lambda: plans.estimate_finetune_time("llama-2-7b", 1e8),
    "mfu": lambda: plans.estimate_mfu(7e9, 1e12, gpu_hours=93_483),
    "training": lambda: plans.estimate_training("llama-2-7b", 1e12, 256),
    "budget": lambda: plans.estimate_budget(64, 30, peak_flops_per_s=200e12, mfu=0.5),
    "corpus": lambda: plans.estimate_corpus(7e9, mix={"chinese": 1.0}),
    "decode": lambda: plans.decode_estimate("llama-2-7b", "H100 SXM", batch=8),
    "serving": lambda: plans.estimate_serving("llama-2-7b", "H100 SXM", batch=8),
    "request": lambda: plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512, output_tokens=256,
                                              batch=16),
    "comparison": lambda: plans.compare_memory("llama-2-7b", [dict(zero=zero) for zero in range(4)], dp=8,
                                               seq_len=4096, recompute="full"),
    "layout search": lambda: plans.search_layouts("llama-2-7b", 16, "H100 SXM", 4096, 2**20,
                                                  micro_batch_sizes=(1,)),
    "rl step": lambda: plans.estimate_rl_step("llama-3-8b", "grpo", "H100 SXM", prompts=16, group=8),
    "post-training memory": lambda: plans.plan_memory("ppo", "llama-3-8b", gpu="H100 SXM"),
    "capacity": lambda: plans.plan_capacity("llama-2-70b", "H100 SXM", requests_per_s=1000, prompt_tokens=1024,
                                            output_tokens=256, ttft_s=0.2, tpot_s=0.05, disaggregated=True),
    "speculative": lambda: plans.speculative_decode("llama-2-70b", "H100 SXM", draft="llama-2-7b", acceptance=0.7,
                                                    draft_tokens=4, batch=8, tp=4),
    "kv cache options": lambda: plans.kv_cache_options("llama-2-70b", "H100 SXM", prompt_tokens=2048,
                                                       output_tokens=512, tp=4),
    "kv offload": lambda: plans.kv_offload("llama-2-70b", "H100 SXM", context_tokens=32768, tp=4),
    "moe decode": lambda: plans.moe_decode("deepseek-v3", "H200", batches=(1, 64), tp=8, weights="fp8"),
}


def _figures(text: str) -> set:
    return set(re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?(?:e\d+)?", text))


def test_every_plan_result_type_shows_itself():
    kinds = {type(make()) for make in RESULTS.values()}
    result_types = {getattr(plans, name) for name in plans.__all__ if isinstance(getattr(plans, name), type)
                    and name.endswith(("Estimate", "Plan", "Search", "Comparison"))}
    assert result_types <= kinds, "a plan result type with no sample here"
    assert plans.MemoryComparison in result_types and plans.LayoutSearch in result_types
    assert all(issubclass(kind, Shows) for kind in kinds)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", RESULTS)
def test_text_html_and_json_come_from_one_report(name, lang):
    result = RESULTS[name]()
    with speaking(lang):
        report = result.report()
        text, page, data = str(result), result._repr_html_(), result.to_dict()
    assert isinstance(report, Report)
    assert text == str(report) and page == report._repr_html_() and data == report.to_dict()
    assert json.loads(json.dumps(data)) == json.loads(json.dumps(data, ensure_ascii=False))  # plain JSON
    # the HTML says every figure the text says
    assert _figures(text) <= _figures(html.unescape(re.sub(r"<[^>]+>", " ", page)))
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", text)


@pytest.mark.parametrize("name", RESULTS)
def test_the_json_does_not_depend_on_the_language(name):
    result = RESULTS[name]()
    with speaking("zh"):
        chinese = result.to_dict()
    assert json.dumps(chinese, sort_keys=True, default=str) == json.dumps(result.to_dict(), sort_keys=True,
                                                                          default=str)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_command_line_and_the_calculator_show_the_same_serving_estimate(capsys, lang):
    pytest.importorskip("ipywidgets")
    from llmest.surfaces.widgets import ServingPlanner

    with speaking(lang):
        planner = ServingPlanner(model="llama-2-70b", gpu="H100 SXM", tp=4, prompt_tokens=2048, output_tokens=512,
                                 batch=32)
        shown_html, shown_text = planner.estimate._repr_html_(), str(planner.estimate)
        assert planner.summary.value == shown_html
    assert cli_main(["--lang", lang, "serve", "llama-2-70b", "--gpu", "H100 SXM", "--tp", "4", "--prompt-tokens",
                     "2048", "--output-tokens", "512", "--batch", "32"]) == 0
    assert capsys.readouterr().out == shown_text + "\n"
