"""The parameter calculator, driven from Python: live totals, presets, errors beside their fields."""

from pathlib import Path

import pytest

import llmest as le
from llmest import plans

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
    assert "Fix the highlighted field" in calc.summary.value and calc.chart.value == ""


def test_moe_without_experts_per_token(calc):
    calc.model.value = "mixtral-8x7b"
    calc.inputs["experts_per_token"].value = 9
    assert "experts_per_token == 9, must be &lt;= 8." in calc.errors["experts_per_token"].value


# ----------------------------------------------------------------------------------------------------------------
# The memory planner
# ----------------------------------------------------------------------------------------------------------------

from llmest import memory as mem  # noqa: E402
from llmest.widgets import MemoryPlanner  # noqa: E402


@pytest.fixture
def planner():
    return MemoryPlanner("llama-2-7b", gpu="A100 80GB")


def test_planner_matches_the_library(planner):
    expected = plans.training_memory("llama-2-7b", zero=3, dp=8, seq_len=4096)
    assert planner.breakdown.total == expected.total
    assert "Fits" in planner.verdict.value and "optimizer + master" in planner.bar.value
    assert planner.smallest == plans.min_gpus(lambda n: plans.training_memory("llama-2-7b", zero=3, dp=n, seq_len=4096),
                                            "A100 80GB")


def test_planner_says_what_its_gpu_count_assumes(planner):
    # Seed 000's exercise 1 with the planner's accounting: Llama-2-7B (6,738,415,616 parameters), ZeRO-2, one
    # micro-batch of 1 × 4,096 tokens on each GPU. Full recomputation keeps little, and 2 A100s hold it; without
    # recomputation a sequence keeps about 20 GB more on every GPU, and it takes 4.
    planner.inputs["zero"].value = 2
    planner.inputs["recompute"].value = "full"
    assert planner.smallest == 2 and planner.plan.least_gpus == 2
    assert "1 × 4,096 tokens (full recomputation, FlashAttention)" in planner.verdict.value
    assert "do not shrink as GPUs are added" in planner.verdict.value
    assert "6.74B parameters" in planner.verdict.value
    planner.inputs["recompute"].value = "none"
    assert planner.smallest == 4 and "no recomputation" in planner.verdict.value
    expected = plans.plan_memory("training", "llama-2-7b", zero=2, dp=8, seq_len=4096, recompute="none")
    assert planner.plan.breakdown == expected.breakdown and planner.plan.state_gpus == expected.state_gpus == 2


def test_planner_zero_stage_and_verdict(planner):
    planner.inputs["zero"].value = 0
    assert "Does not fit" in planner.verdict.value
    assert planner.smallest is None and "without ZeRO every data-parallel GPU holds all the states" in \
        planner.verdict.value
    planner.inputs["zero"].value = 3
    assert "Fits" in planner.verdict.value


def test_planner_serving_shows_the_kv_cache(planner):
    planner.inputs["task"].value = "inference"
    planner.inputs["model"].value = "llama-2-70b"
    planner.inputs["batch"].value = 32
    assert planner.breakdown["kv_cache"] == mem.kv_cache_bytes_for("llama-2-70b", 2048, 32)
    assert "KV cache" in planner.bar.value and planner.smallest == 4
    assert planner.rows["zero"].layout.display == "none" and planner.rows["tokens"].layout.display == ""


def test_planner_reads_a_pasted_config(planner):
    planner.inputs["config"].value = (Path(__file__).parent / "fixtures" / "mistral-7b-v0.1.json").read_text()
    assert planner.breakdown.total == plans.training_memory("mistral-7b", zero=3, dp=8, seq_len=4096).total


@pytest.mark.parametrize("field, value, message", [
    ("micro_batch", -1, "micro_batch == -1, must be &gt;= 1."),
    ("tp", 3, "tp == 3 must divide the attention heads (32 % 3 != 0)."),
    ("dp", 0, "dp == 0, must be &gt;= 1."),
    ("seq_len", 0, "seq_len == 0, must be &gt;= 1."),
    ("config", "{not json", "is not valid JSON"),
    ("config", '{"model_type": "llama"}', "&#x27;vocab_size&#x27; is missing"),
])
def test_planner_bad_values_beside_their_field(planner, field, value, message):
    planner.inputs[field].value = value
    assert message in planner.errors[field].value
    assert planner.verdict.value == "" and planner.breakdown is None


# ----------------------------------------------------------------------------------------------------------------
# Chapter 3: the training planner and the roofline explorer
# ----------------------------------------------------------------------------------------------------------------

from llmest import compute as cp  # noqa: E402
from llmest import hardware  # noqa: E402
from llmest.widgets import RooflineExplorer, TrainingPlanner  # noqa: E402


def test_training_planner_matches_the_library():
    planner = TrainingPlanner(model="llama-2-7b", tokens="1T", gpu="A100 80GB", gpus=256, mfu=0.4, price=2.0)
    flops = cp.training_flops(cp.flops_params("llama-2-7b"), 1e12)
    days = cp.training_days(flops, 256, hardware.gpu("A100 80GB").bf16_flops_per_s, 0.4)
    assert planner.result["days"] == pytest.approx(days)
    assert "<svg" in planner.chart.value and f"{days:,.1f} days" in planner.summary.value
    planner.inputs["gpus"].value = 512
    assert planner.result["days"] == pytest.approx(days / 2)
    assert planner.result["cost"] == pytest.approx(cp.cost(planner.result["gpu_hours"], 2.0))


def test_training_planner_takes_a_parameter_count():
    # Seed 000's exercise 1: 6 × 7e9 × 1e12 = 4.2e22 FLOPs at 312 TFLOPS × 40% is 4.2e22 / 1.248e14 / 3,600
    # = 93,483 GPU-hours; Llama-2-7B's matmul weights (6.61B) give 88,239, and the planner says why.
    planner = TrainingPlanner(model="llama-2-7b", tokens="1T", gpu="A100 80GB", gpus=256, mfu=0.4, price=2.5)
    assert round(planner.result["gpu_hours"]) == 88_239
    assert "weights that multiply activations" in planner.summary.value
    assert "the input embedding is a lookup" in planner.summary.value
    planner.inputs["params"].value = "7B"
    assert round(planner.result["gpu_hours"]) == 93_483 and "93,483 GPU-hours" in planner.summary.value
    assert planner.result["flops"] == 4.2e22 and "lookup" not in planner.summary.value
    assert planner.result["days"] == pytest.approx(4.2e22 / (256 * 312e12 * 0.4) / 86_400)
    assert "15%-25% margin" in planner.summary.value
    planner.inputs["params"].value = "seven"
    assert "params == &#x27;seven&#x27; is not a number" in planner.errors["params"].value


@pytest.mark.parametrize("field, value, message", [
    ("tokens", "lots", "tokens == &#x27;lots&#x27; is not a number"),
    ("gpus", 0, "gpus == 0, must be &gt;= 1."),
    ("price", -1.0, "price_per_gpu_hour == -1, must be &gt;= 0."),
])
def test_training_planner_errors_beside_their_field(field, value, message):
    planner = TrainingPlanner()
    planner.inputs[field].value = value
    assert message in planner.errors[field].value and planner.summary.value == ""


def test_roofline_explorer_follows_the_batch():
    explorer = RooflineExplorer(model="llama-3-8b", gpu="H100 SXM", batch=1)
    assert explorer.estimate.bound == "memory"
    explorer.inputs["batch"].value = 1024
    explorer.inputs["context"].value = 64
    assert explorer.estimate.bound == "compute" and "compute-bound" in explorer.summary.value
    explorer.inputs["tp"].value = 3
    assert "tp == 3 must divide" in explorer.errors["tp"].value


# ----------------------------------------------------------------------------------------------------------------
# Chapter 4: the data planner and the scaling-law explorer
# ----------------------------------------------------------------------------------------------------------------

from llmest import data as dt  # noqa: E402
from llmest.widgets import DataPlanner, ScalingExplorer  # noqa: E402


def test_data_planner_matches_the_library():
    planner = DataPlanner(params="7B", tokens_per_param=20, english=0.7, chinese=0.2, code=0.1, cleaning_yield=0.25)
    cleaned = sum(dt.mixture_bytes(140e9, {"english": 0.7, "chinese": 0.2, "code": 0.1}).values())
    assert planner.result == pytest.approx({"tokens": 140e9, "cleaned": cleaned, "raw": cleaned / 0.25})
    assert "at 280M tokens per GB" in planner.summary.value  # the figure the chapter and the command use
    planner.inputs["english"].value = 0.9
    assert "mix shares sum to 1.2, must sum to 1." in planner.errors["english"].value
    planner.inputs["english"].value = 0.7
    planner.inputs["params"].value = "seven"
    assert "params == &#x27;seven&#x27; is not a number" in planner.errors["params"].value


def test_scaling_explorer_follows_the_fit_and_budget():
    explorer = ScalingExplorer(flops=5.76e23, fit="besiroglu")
    assert explorer.optimum == pytest.approx(dt.fit("besiroglu").optimal(5.76e23))
    explorer.inputs["fit"].value = "hoffmann"
    assert explorer.optimum == pytest.approx(dt.fit("hoffmann").optimal(5.76e23))
    explorer.inputs["flops"].value = 1e20
    assert explorer.optimum[0] < 1e10 and "<svg" in explorer.chart.value


# ----------------------------------------------------------------------------------------------------------------
# Bad input: a named InputError from a constructor, a message beside its field and no stale result from a field
# ----------------------------------------------------------------------------------------------------------------

import math  # noqa: E402

from llmest._validate import InputError  # noqa: E402


@pytest.mark.parametrize("make, param, message", [
    (lambda: MemoryPlanner(model="llama-9"), "model", "model == 'llama-9', must be one of"),
    (lambda: MemoryPlanner(gpu="H1OO"), "gpu", "gpu == 'H1OO', must be one of"),
    (lambda: TrainingPlanner(gpu="H1OO"), "gpu", "gpu == 'H1OO', must be one of"),
    (lambda: TrainingPlanner(model="llama-2-7"), "model", "Did you mean 'llama-2-7b'"),
    (lambda: ParamCalculator("mixtral"), "model", "Did you mean 'mixtral-8x7b' or 'mixtral-8x22b'"),
    (lambda: RooflineExplorer(weights="fp3"), "weights", "Did you mean 'fp32' or 'fp16'?"),
    (lambda: ScalingExplorer(fit="chinchilla"), "fit", "fit == 'chinchilla', must be one of 'hoffmann'"),
    (lambda: TrainingPlanner(mfu=5), "mfu", "mfu == 5, must be in [0.05, 0.7]."),
    (lambda: TrainingPlanner(mfu=math.nan), "mfu", "mfu == nan, must be a finite number."),
    (lambda: TrainingPlanner(gpus=1.5), "gpus", "gpus == 1.5, must be an integer."),
    (lambda: TrainingPlanner(price="2"), "price", "price == '2', must be a number."),
    (lambda: TrainingPlanner(params=None), "params", "params == None, must be text"),
    (lambda: RooflineExplorer(batch=5000), "batch", "batch == 5000, must be <= 1024."),
    (lambda: RooflineExplorer(context=1.5), "context", "context == 1.5, must be an integer."),
    (lambda: DataPlanner(english=2), "english", "english == 2, must be in [0, 1]."),
    (lambda: DataPlanner(cleaning_yield=0), "cleaning_yield", "cleaning_yield == 0, must be in [0.05, 1]."),
    (lambda: ScalingExplorer(flops=1e30), "flops", "flops == 1e+30, must be in [1e+18, 1e+27]."),
])
def test_a_bad_constructor_argument_is_a_named_input_error(make, param, message):
    with pytest.raises(InputError) as caught:
        make()
    assert caught.value.param == param and message in str(caught.value)


def test_names_in_another_case_are_taken():
    assert MemoryPlanner(model="LLAMA-2-7B", gpu="h100 sxm").inputs["gpu"].value == "H100 SXM"
    assert TrainingPlanner(gpu="a100-80gb", tokens=1e12).result["days"] == pytest.approx(TrainingPlanner().result["days"])


def _only_error(calc):
    shown = {field: label.value for field, label in calc.errors.items() if label.value}
    assert calc.general_error.value == "" and len(shown) == 1, shown
    return shown.popitem()


@pytest.mark.parametrize("make, field, value, message, outputs", [
    (ParamCalculator, "vocab_size", 10**30, "vocab_size == 1000000000000000000000000000000, must be &lt;= 2000000.",
     ("chart",)),
    (ParamCalculator, "num_experts", 10**9, "num_experts == 1000000000, must be &lt;= 4096.", ("chart",)),
    (ParamCalculator, "experts_per_token", -1, "experts_per_token == -1, must be &gt;= 0.", ("chart",)),
    (MemoryPlanner, "seq_len", 10**9, "seq_len == 1,000,000,000, must be &lt;= 100,000,000", ("bar", "verdict")),
    (MemoryPlanner, "dp", 10**30, "must be &lt;= 10,000,000 (no cluster is near ten million GPUs).",
     ("bar", "verdict")),
    (MemoryPlanner, "config", "null", "must hold a JSON object, not NoneType.", ("bar", "verdict")),
    (MemoryPlanner, "config", "[" * 100_000, "nested too deeply", ("bar", "verdict")),
    (TrainingPlanner, "gpus", 10**30, "gpus == 1.00e+30, must be &lt;= 10,000,000",
     ("summary", "chart")),
    (TrainingPlanner, "price", 1e308, "price == 1e+308, must be &lt;= 10,000 dollars per GPU-hour.",
     ("summary", "chart")),
    (TrainingPlanner, "price", math.inf, "price_per_gpu_hour == inf, must be a finite number.", ("summary", "chart")),
    (TrainingPlanner, "mfu", math.nan, "mfu == nan, must be a finite number.", ("summary", "chart")),
    (TrainingPlanner, "tokens", "1e300", "tokens == 1e+300, must be in [100,000, 10,000T]", ("summary", "chart")),
    (TrainingPlanner, "params", "1e300", "params == 1e+300, must be in [100,000, 1,000T]", ("summary", "chart")),
    (RooflineExplorer, "context", 10**9, "context == 1,000,000,000, must be &lt;= 100,000,000", ("summary", "chart")),
    (RooflineExplorer, "price", math.nan, "price_per_gpu_hour == nan, must be a finite number.", ("summary", "chart")),
    (DataPlanner, "chinese", 0.9, "mix shares sum to 1.7, must sum to 1.", ("summary",)),
    (DataPlanner, "code", math.nan, "mix[&#x27;code&#x27;] == nan, must be a finite number.", ("summary",)),
    (DataPlanner, "tokens_per_param", 1e-320, "tokens_per_param == 9.99989e-321, must be in [0.01, 100,000].",
     ("summary",)),
    (DataPlanner, "tokens_per_param", 1e308, "tokens_per_param == 1e+308, must be in [0.01, 100,000].", ("summary",)),
    (ScalingExplorer, "flops", math.nan, "flops == nan, must be a finite number.", ("summary", "chart")),
])
def test_a_bad_field_gets_its_message_beside_it_and_clears_the_result(make, field, value, message, outputs):
    calc = make()
    assert all(getattr(calc, name).value for name in outputs)  # a result to clear
    calc.inputs[field].value = value
    shown, text = _only_error(calc)
    assert shown == field and message in text
    assert all(getattr(calc, name).value == "" for name in outputs)


def test_a_hidden_size_the_heads_do_not_divide_is_shown_beside_the_hidden_size():
    calc = ParamCalculator("gpt2")  # 12 heads
    calc.inputs["hidden_size"].value = 64
    assert _only_error(calc)[0] == "hidden_size" and calc.count is None and calc.chart.value == ""


def test_serving_fields_get_their_own_messages():
    planner = MemoryPlanner()
    planner.inputs["task"].value = "inference"
    planner.inputs["tokens"].value = 10**9
    assert _only_error(planner) == ("tokens", planner.errors["tokens"].value)
    assert "tokens == 1,000,000,000, must be &lt;= 100,000,000" in planner.errors["tokens"].value
    planner.inputs["tokens"].value = 2048
    planner.inputs["batch"].value = 0
    assert _only_error(planner)[0] == "batch" and planner.plan is None and planner.bar.value == ""
    planner.inputs["batch"].value = 1
    planner.inputs["seq_len"].value = 0  # a training field, hidden while serving: not used, no message
    assert planner.plan is not None and planner.errors["seq_len"].value == ""


def test_a_pasted_config_with_a_byte_order_mark_is_read(planner):
    text = (Path(__file__).parent / "fixtures" / "mistral-7b-v0.1.json").read_text()
    planner.inputs["config"].value = "\ufeff" + text
    assert planner.breakdown.total == plans.training_memory("mistral-7b", zero=3, dp=8, seq_len=4096).total


@pytest.mark.parametrize("text", ["", "x" * 32_000, "nan", "1e400", "1,2,3", "🙂", "--", "None", "-7B"])
def test_the_exercise_box_answers_any_entry_in_its_verdict(text):
    from llmest.exercises import EXERCISES

    box = EXERCISES["1.1"].widget()
    box.entry.value = text
    box.check_button.click()
    assert box.verdict.value and ("No answer yet" in box.verdict.value or "Could not read that" in box.verdict.value)


@pytest.mark.parametrize("text", ["", "x" * 32_000, "nan", "1e400", "🙂"])
def test_the_timed_session_answers_any_entry_in_its_verdict(text):
    from llmest.widgets import TimedSession

    session = TimedSession(n=1)
    session.entry.value = text
    session.submit.click()
    assert session.verdict.value and not session.submit.disabled  # a message, and the entry may be retyped
    session.answer(text, timed_out=True)
    assert "Time is up" in session.verdict.value and session.submit.disabled
