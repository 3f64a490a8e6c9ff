"""The parameter calculator, driven from Python: live totals, presets, errors beside their fields."""

import pytest

import llmest as le

pytest.importorskip("ipywidgets")
from llmest.widgets import ParamCalculator  # noqa: E402


@pytest.fixture
def calc():
    return ParamCalculator("llama-2-7b")


def test_starts_with_the_preset_count(calc):
    assert calc.count.total == 6_738_415_616
    assert "6,738,415,616" in calc.summary.value and "embeddings" in calc.chart.value


def test_fields_change_the_count(calc):
    calc.inputs["num_layers"].value = 33
    per_layer = (6_738_415_616 - 2 * 32000 * 4096 - 4096) // 32
    assert calc.count.total == 6_738_415_616 + per_layer
    calc.inputs["num_kv_heads"].value = 8
    assert calc.count.total < 6_738_415_616 + per_layer
    calc.inputs["tie_embeddings"].value = True
    assert "output head" not in calc.chart.value


def test_head_dim_follows_the_hidden_size(calc):
    calc.inputs["hidden_size"].value = 5120
    calc.inputs["num_layers"].value = 40
    calc.inputs["num_heads"].value = 40
    calc.inputs["ffn_hidden_size"].value = 13824
    assert calc.count.total == le.count_params(le.preset("llama-2-13b")).total


def test_switching_presets(calc):
    calc.model.value = "mixtral-8x7b"
    assert calc.count.active == 12_879_925_248 and "active" in calc.summary.value
    calc.inputs["num_experts"].value = 0  # a dense model with Mixtral's shape
    assert calc.count.total == calc.count.active
    calc.model.value = "qwen1.5-moe-a2.7b"
    calc.inputs["num_experts"].value = 0
    assert calc.general_error.value == "" and calc.count.parts["shared_experts"] == 0


@pytest.mark.parametrize("field, value, message", [
    ("vocab_size", 0, "vocab_size == 0, must be &gt;= 1."),
    ("num_heads", 33, "must be divisible by"),
    ("num_kv_heads", 5, "&#x27;num_heads&#x27; must be divisible by &#x27;num_kv_heads&#x27; (32 % 5 != 0)."),
    ("ffn_hidden_size", -1, "ffn_hidden_size == -1, must be &gt;= 1."),
])
def test_bad_values_get_a_message_beside_their_field(calc, field, value, message):
    calc.inputs[field].value = value
    shown = [f for f, label in calc.errors.items() if label.value]
    assert len(shown) == 1 and message in calc.errors[shown[0]].value
    assert shown[0] in (field, "num_kv_heads")
    assert "Fix the highlighted field" in calc.summary.value


def test_moe_without_experts_per_token(calc):
    calc.model.value = "mixtral-8x7b"
    calc.inputs["experts_per_token"].value = 9
    assert "experts_per_token == 9, must be &lt;= 8." in calc.errors["experts_per_token"].value
