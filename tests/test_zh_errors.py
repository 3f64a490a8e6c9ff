"""The Chinese edition of the library's input errors: under ``speaking("zh")`` a bad argument to a plan, a bad GPU
name, a bad config.json, a bad table or a bad value typed into a calculator raises an InputError whose message reads
in Chinese and still names the parameter as the caller spelled it; outside the block the English is as it was."""

import re

import pytest

from llmest import hardware, plans
from llmest.display import table as tables
from llmest.core._validate import InputError
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.formulas.model import ModelConfig, config_from_json, preset

CJK = re.compile(r"[\u4e00-\u9fff]")

BAD = {
    "zero stage": (lambda: plans.training_memory("llama-2-7b", zero=4), "zero"),
    "zero offload": (lambda: plans.training_memory("llama-2-7b", zero=0, offload="optimizer"), "offload"),
    "tensor parallel": (lambda: plans.training_memory("llama-2-7b", tp=3), "tp"),
    "experts": (lambda: plans.training_memory("llama-2-7b", ep=2), "ep"),
    "gpu name": (lambda: hardware.gpu("A100 81GB"), "gpu"),
    "gpu price": (lambda: hardware.price_per_gpu_hour("RTX 4090"), "price_per_gpu_hour"),
    "model name": (lambda: plans.training_memory("llama-2-8b"), "model"),
    "config key": (lambda: ModelConfig.from_hf_config({"model_type": "llama", "hidden_size": 4096}), "vocab_size"),
    "config value": (lambda: ModelConfig.from_hf_config({**_llama(), "num_hidden_layers": 0}), "num_hidden_layers"),
    "config type": (lambda: ModelConfig.from_hf_config({**_llama(), "model_type": 7}), "model_type"),
    "config text": (lambda: config_from_json("  "), "config"),
    "model field": (lambda: preset("llama-2-7b").replace(hiden_size=1), "hiden_size"),
    "heads": (lambda: preset("llama-2-7b").replace(num_kv_heads=3), "num_kv_heads"),
    "estimate": (lambda: plans.estimate_time(1e12), "n_params"),
    "batch": (lambda: plans.search_layouts("llama-2-7b", 64, "A100 80GB", 4096, 4096 * 100 + 1), "global_batch_tokens"),
    "table rows": (lambda: tables.Table(["a", "b"], [[1, 2], [3]]), "rows"),
    "table cell": (lambda: tables.Table(["a"], [[[1, 2]]]), "rows"),
    "table units": (lambda: tables.Table(["a"], [[1]], units={"b": "GB"}), "units"),
}


def _llama() -> dict:
    return {"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
            "num_hidden_layers": 32, "num_attention_heads": 32}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_input_in_chinese_reads_in_chinese_and_names_the_parameter(case):
    call, param = BAD[case]
    with speaking("zh"), pytest.raises(InputError) as caught:
        call()
    message = str(caught.value)
    with pytest.raises(InputError) as english:
        call()
    assert english.value.param == caught.value.param == param and not CJK.search(str(english.value))
    assert CJK.search(message) and english_prose(message) == [], message
    assert param in message or param not in str(english.value), message  # as spelled, where the English names it


def test_a_bad_value_typed_into_a_calculator_reads_in_chinese():
    pytest.importorskip("ipywidgets")
    from llmest import widgets as W

    with speaking("zh"):
        planner = W.TrainingPlanner()
        planner.inputs["gpus"].value = 20_000_000
        message = re.sub(r"<[^>]*>", " ", planner.errors["gpus"].value).strip()
    assert "20,000,000" in message and "集群" in message and english_prose(message) == [], message


def test_the_english_messages_are_as_they_were():
    with pytest.raises(InputError, match=r"tp == 3 must divide the attention heads \(32 % 3 != 0\)\."):
        plans.training_memory("llama-2-7b", tp=3)
    with pytest.raises(InputError, match=r"^rows\[1\] has 1 cells, must have one per column \(2\)\.$"):
        tables.Table(["a", "b"], [[1, 2], [3]])
    with pytest.raises(InputError, match=r"^the pasted config\.json is empty; it must hold a JSON object such as "
                                         r"\{\"model_type\": \.\.\.\}\.$"):
        config_from_json("  ")
