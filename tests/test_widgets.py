"""The parameter calculator, driven from Python: live totals, presets, errors beside their fields."""

from pathlib import Path

import pytest

import llmest as le
from llmest import plans
from llmest.formulas.readers.config_file import CONFIGS

pytest.importorskip("ipywidgets")
from llmest.surfaces.widgets import ParamCalculator  # noqa: E402


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
    ("vocab_size", 0, "vocabulary V = 0, must be &gt;= 1."),
    ("num_heads", 33, "must be divisible by"),
    ("num_kv_heads", 5, "&#x27;attention heads&#x27; must be divisible by &#x27;KV heads&#x27; (32 % 5 != 0)."),
    ("ffn_hidden_size", -1, "FFN width F = -1, must be &gt;= 1."),
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
    assert "experts per token = 9, must be &lt;= 8." in calc.errors["experts_per_token"].value


# ----------------------------------------------------------------------------------------------------------------
# The memory planner
# ----------------------------------------------------------------------------------------------------------------

from llmest import memory as mem  # noqa: E402
from llmest.formulas import precision  # noqa: E402
from llmest.surfaces.widgets import MemoryPlanner  # noqa: E402


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
    # micro-batch of 1 × 4,096 tokens on each GPU, DeepSpeed's 1 GB reduce bucket. Full recomputation keeps little,
    # and 2 A100s hold it (64.6 GB each, of the 68.7 GB usable: 80% of 80 GiB); without recomputation a sequence
    # keeps about 23 GB more on every GPU (25.1 GB, the RMSNorms' FP32 copies included), and it takes 4 (63.6 GB
    # each; 71.5 on 3).
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


def test_planner_fine_tunes_with_lora_and_qlora_as_the_command_line_does(planner):
    """The planner's LoRA and QLoRA tasks: the adapters' fields only, the same plan as ``llmest memory --task``."""
    planner.inputs["model"].value, planner.inputs["gpu"].value = "llama-3-8b", "RTX 4090"
    planner.inputs["seq_len"].value, planner.inputs["recompute"].value = 2048, "full"
    for task, base in (("lora", "bf16"), ("qlora", "nf4-dq")):
        planner.inputs["task"].value = task
        expected = plans.plan_memory(task, "llama-3-8b", gpu="RTX 4090", rank=16, seq_len=2048, recompute="full",
                                     targets=mem.LORA_TARGETS)
        assert planner.plan.breakdown == expected.breakdown and planner.plan.settings["base"] == base
        assert planner.breakdown["weights"] == mem.model_weight_bytes("llama-3-8b", base)
        assert planner.rows["rank"].layout.display == "" and planner.rows["zero"].layout.display == "none"
        assert planner.rows["tp"].layout.display == "none" and "Fits" in planner.verdict.value
        assert "runs on one GPU: 41.9M trainable adapter parameters, rank 16" in planner.verdict.value
    planner.inputs["task"].value = "training"
    assert planner.rows["rank"].layout.display == "none" and planner.rows["tp"].layout.display == ""


def test_planner_takes_a_precision_recipe_as_the_library_does(planner):
    """The training task's recipe (formulas.precision.RECIPES): none keeps the convention's states; a recipe's states
    and saved activations are the plan's, as ``plan_memory(..., precision=)`` and ``llmest memory --precision``."""
    assert [value for _label, value in planner.inputs["precision"].options] == ["", *precision.RECIPES]
    assert planner.plan.settings["precision"] is None and planner.rows["precision"].layout.display == ""
    for recipe in precision.RECIPES:
        planner.inputs["precision"].value = recipe
        expected = plans.plan_memory("training", "llama-2-7b", zero=3, dp=8, seq_len=4096, precision=recipe)
        assert planner.plan.breakdown == expected.breakdown and planner.plan.settings["precision"] == recipe
    # DeepSeek-V3's recipe keeps BF16 Adam moments and FP8 saved inputs: less than the mixed convention's 16 bytes a
    # parameter and BF16 activations, on every GPU.
    planner.inputs["precision"].value = "fp8-deepseek"
    recipe_total = planner.breakdown.total
    planner.inputs["precision"].value = ""
    assert recipe_total < planner.breakdown.total == plans.training_memory("llama-2-7b", zero=3, dp=8,
                                                                          seq_len=4096).total
    for task in ("inference", "lora", "full", "grpo"):   # only training's plan takes a recipe
        planner.inputs["task"].value = task
        assert planner.rows["precision"].layout.display == "none" and "precision" not in planner.plan.settings


def test_planner_reads_a_pasted_config(planner):
    planner.inputs["config"].value = (CONFIGS / "mistral-7b-v0.1.json").read_text(encoding="utf-8")
    assert planner.breakdown.total == plans.training_memory("mistral-7b", zero=3, dp=8, seq_len=4096).total


@pytest.mark.parametrize("field, value, message", [
    ("micro_batch", -1, "micro-batch = -1, must be &gt;= 1."),
    ("tp", 3, "tensor parallel = 3 must divide the attention heads (32 % 3 != 0)."),
    ("dp", 0, "data parallel = 0, must be &gt;= 1."),
    ("seq_len", 0, "sequence = 0, must be &gt;= 1."),
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
from llmest.surfaces.widgets import RooflineExplorer, TrainingPlanner  # noqa: E402


def test_training_planner_matches_the_library():
    planner = TrainingPlanner(model="llama-2-7b", tokens="1T", gpu="A100 80GB", gpus=256, mfu=0.4, price=2.0)
    flops = cp.training_flops(cp.flops_params("llama-2-7b"), 1e12)
    days = cp.training_days(flops, 256, hardware.gpu("A100 80GB").bf16_flops_per_s, 0.4)
    assert planner.result["days"] == pytest.approx(days)
    assert "<svg" in planner.chart.value and f"{days:,.1f} (" in planner.summary.value
    assert planner.summary.value.startswith(planner.estimate._repr_html_())   # the result's own display
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
    assert round(planner.result["gpu_hours"]) == 93_483 and "= 93,483 GPU-hours" in planner.summary.value
    assert planner.result["flops"] == 4.2e22 and "lookup" not in planner.summary.value
    assert planner.result["days"] == pytest.approx(4.2e22 / (256 * 312e12 * 0.4) / 86_400)
    assert "15%-25% margin" in planner.summary.value
    planner.inputs["params"].value = "seven"
    assert "parameters N = &#x27;seven&#x27; is not a number" in planner.errors["params"].value


@pytest.mark.parametrize("field, value, message", [
    ("tokens", "lots", "training tokens = &#x27;lots&#x27; is not a number"),
    ("gpus", 0, "GPUs = 0, must be &gt;= 1."),
    ("price", -1.0, "$ per GPU-hour = -1, must be &gt;= 0."),
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
    assert "tensor parallel = 3 must divide" in explorer.errors["tp"].value


from llmest.surfaces.widgets import ServingPlanner  # noqa: E402


def test_serving_planner_matches_the_plan():
    planner = ServingPlanner(model="llama-2-7b", gpu="A100 80GB", prompt_tokens=512, output_tokens=256, batch=16)
    est = plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512, output_tokens=256, batch=16)
    assert planner.estimate == est
    assert planner.summary.value == est._repr_html_()   # the result's own display, as the command prints it
    assert f"{est.ttft_s * 1e3:,.2f} ms" in planner.summary.value
    assert f"{est.max_batch:,} sequences" in planner.summary.value and "<svg" in planner.chart.value
    assert f"largest batch {est.max_batch:,}</text>" in planner.chart.value   # the dashed line's label
    planner.inputs["batch"].value = est.max_batch + 1
    assert "does not fit" in planner.summary.value
    planner.inputs["tp"].value = 2
    assert planner.estimate.max_batch > 2 * est.max_batch and "fits" in planner.summary.value


def test_a_gpu_chosen_brings_its_listed_price_as_the_command_line_uses():
    planner = ServingPlanner(model="llama-2-7b", gpu="A100 80GB", prompt_tokens=512, output_tokens=256, batch=16)
    planner.inputs["gpu"].value = "H100 SXM"
    est = plans.estimate_request("llama-2-7b", "H100 SXM", prompt_tokens=512, output_tokens=256, batch=16)
    assert planner.inputs["price"].value == 4.0 and planner.estimate == est
    assert "$4.00 per GPU-hour, the listed price of the H100 SXM" in planner.summary.value
    planner.inputs["price"].value = 3.0
    assert "$3.00 per GPU-hour (given)" in planner.summary.value
    training = TrainingPlanner(gpu="A100 80GB")
    training.inputs["gpu"].value = "H100 SXM"
    assert training.estimate.price_per_gpu_hour == 4.0 and training.estimate.price_listed


@pytest.mark.parametrize("field, value, message", [
    ("tp", 3, "tensor parallel = 3 must divide the attention heads (32 % 3 != 0)."),
    ("prompt_tokens", 0, "prompt tokens = 0, must be &gt;= 1."),
    ("output_tokens", 10**9, "output tokens = 1,000,000,000, must be &lt;= 100,000,000"),
    ("batch", -1, "batch = -1, must be &gt;= 1."),
    ("price", -1.0, "$ per GPU-hour = -1, must be &gt;= 0."),
])
def test_serving_planner_errors_beside_their_field(field, value, message):
    planner = ServingPlanner()
    planner.inputs[field].value = value
    assert message in planner.errors[field].value
    assert planner.estimate is None and planner.summary.value == "" and planner.chart.value == ""


# ----------------------------------------------------------------------------------------------------------------
# Chapter 4: the data planner and the scaling-law explorer
# ----------------------------------------------------------------------------------------------------------------

from llmest import data as dt  # noqa: E402
from llmest.surfaces.widgets import DataPlanner, ScalingExplorer  # noqa: E402


def test_data_planner_matches_the_library():
    planner = DataPlanner(params="7B", tokens_per_param=20, english=0.7, chinese=0.2, code=0.1, cleaning_yield=0.25)
    cleaned = sum(dt.mixture_bytes(140e9, {"english": 0.7, "chinese": 0.2, "code": 0.1}).values())
    assert planner.result == pytest.approx({"tokens": 140e9, "cleaned": cleaned, "raw": cleaned / 0.25})
    assert "at 240M tokens per GB" in planner.summary.value  # the figure the chapter and the command use
    planner.inputs["english"].value = 0.9
    assert "shares add up to 120%; set them to add up to 100%." in planner.errors["english"].value
    planner.inputs["english"].value = 0.7
    planner.inputs["params"].value = "seven"
    assert "parameters = &#x27;seven&#x27; is not a number" in planner.errors["params"].value


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

from llmest.core._validate import InputError  # noqa: E402


@pytest.mark.parametrize("make, param, message", [
    (lambda: MemoryPlanner(model="llama-9"), "model", "model == 'llama-9', must be one of"),
    (lambda: MemoryPlanner(gpu="H1OO"), "gpu", "gpu == 'H1OO', must be one of"),
    (lambda: TrainingPlanner(gpu="H1OO"), "gpu", "gpu == 'H1OO', must be one of"),
    (lambda: TrainingPlanner(model="llama-2-7"), "model", "Did you mean 'llama-2-7b'"),
    (lambda: ParamCalculator("mixtral"), "model", "Did you mean 'mixtral-8x7b' or 'mixtral-8x22b'"),
    (lambda: RooflineExplorer(weights="fp3"), "weights", "Did you mean 'fp32' or 'fp8' or 'fp16'?"),
    (lambda: ScalingExplorer(fit="chinchilla"), "fit", "fit == 'chinchilla', must be one of 'hoffmann'"),
    (lambda: TrainingPlanner(mfu=5), "mfu", "mfu == 5, must be in [0.05, 0.7]."),
    (lambda: TrainingPlanner(mfu=math.nan), "mfu", "mfu == nan, must be a finite number."),
    (lambda: TrainingPlanner(gpus=1.5), "gpus", "gpus == 1.5, must be an integer."),
    (lambda: TrainingPlanner(price="2"), "price", "price == '2', must be a number."),
    (lambda: TrainingPlanner(params=None), "params", "params == None, must be text"),
    (lambda: RooflineExplorer(batch=5000), "batch", "batch == 5000, must be <= 1024."),
    (lambda: RooflineExplorer(context=1.5), "context", "context == 1.5, must be an integer."),
    (lambda: ServingPlanner(prefill_efficiency=0.95), "prefill_efficiency", "must be in [0.05, 0.9]."),
    (lambda: ServingPlanner(batch=2.5), "batch", "batch == 2.5, must be an integer."),
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
    (ParamCalculator, "vocab_size", 10**30, "vocabulary V = 1000000000000000000000000000000, must be &lt;= 2000000.",
     ("chart",)),
    (ParamCalculator, "num_experts", 10**9, "experts (0 = dense) = 1000000000, must be &lt;= 4096.", ("chart",)),
    (ParamCalculator, "experts_per_token", -1, "experts per token = -1, must be &gt;= 0.", ("chart",)),
    (MemoryPlanner, "seq_len", 10**9, "sequence = 1,000,000,000, must be &lt;= 100,000,000", ("bar", "verdict")),
    (MemoryPlanner, "dp", 10**30, "must be &lt;= 10,000,000 (no cluster is near ten million GPUs).",
     ("bar", "verdict")),
    (MemoryPlanner, "config", "null", "must hold a JSON object, not NoneType.", ("bar", "verdict")),
    (MemoryPlanner, "config", "[" * 100_000, "nested too deeply", ("bar", "verdict")),
    (TrainingPlanner, "gpus", 10**30, "GPUs = 1.00e+30, must be &lt;= 10,000,000",
     ("summary", "chart")),
    (TrainingPlanner, "price", 1e308, "$ per GPU-hour = 1e+308, must be &lt;= 10,000 dollars per GPU-hour.",
     ("summary", "chart")),
    (TrainingPlanner, "price", math.inf, "$ per GPU-hour = inf, must be a finite number.", ("summary", "chart")),
    (TrainingPlanner, "mfu", math.nan, "MFU = nan, must be a finite number.", ("summary", "chart")),
    (TrainingPlanner, "tokens", "1e300", "training tokens = 1e+300, must be in [100,000, 10,000T]", ("summary", "chart")),
    (TrainingPlanner, "params", "1e300", "parameters N = 1e+300, must be in [100,000, 1,000T]", ("summary", "chart")),
    (RooflineExplorer, "context", 10**9, "context tokens = 1,000,000,000, must be &lt;= 100,000,000", ("summary", "chart")),
    (RooflineExplorer, "price", math.nan, "$ per GPU-hour = nan, must be a finite number.", ("summary", "chart")),
    (DataPlanner, "chinese", 0.9, "shares add up to 170%; set them to add up to 100%.", ("summary",)),
    (DataPlanner, "code", math.nan, "mix[&#x27;code&#x27;] == nan, must be a finite number.", ("summary",)),
    (DataPlanner, "tokens_per_param", 1e-320, "tokens per parameter = 9.99989e-321, must be in [0.01, 100,000].",
     ("summary",)),
    (DataPlanner, "tokens_per_param", 1e308, "tokens per parameter = 1e+308, must be in [0.01, 100,000].", ("summary",)),
    (ScalingExplorer, "flops", math.nan, "FLOP budget = nan, must be a finite number.", ("summary", "chart")),
])
def test_a_bad_field_gets_its_message_beside_it_and_clears_the_result(make, field, value, message, outputs):
    calc = make()
    assert all(getattr(calc, name).value for name in outputs)  # a result to clear
    calc.inputs[field].value = value
    shown, text = _only_error(calc)
    assert shown == field and message in text
    assert all(getattr(calc, name).value == "" for name in outputs)


def test_a_hidden_size_the_heads_do_not_divide_is_shown_beside_the_hidden_size():
    calc = ParamCalculator("gpt2")  # 12 heads; 800 is no stop of the slider, but a value set from code
    calc.inputs["hidden_size"].value = 800
    assert _only_error(calc)[0] == "hidden_size" and calc.count is None and calc.chart.value == ""


def test_serving_fields_get_their_own_messages():
    planner = MemoryPlanner()
    planner.inputs["task"].value = "inference"
    planner.inputs["tokens"].value = 10**9
    assert _only_error(planner) == ("tokens", planner.errors["tokens"].value)
    assert "tokens / request = 1,000,000,000, must be &lt;= 100,000,000" in planner.errors["tokens"].value
    planner.inputs["tokens"].value = 2048
    planner.inputs["batch"].value = 0
    assert _only_error(planner)[0] == "batch" and planner.plan is None and planner.bar.value == ""
    planner.inputs["batch"].value = 1
    planner.inputs["seq_len"].value = 0  # a training field, hidden while serving: not used, no message
    assert planner.plan is not None and planner.errors["seq_len"].value == ""


def test_a_pasted_config_with_a_byte_order_mark_is_read(planner):
    text = (CONFIGS / "mistral-7b-v0.1.json").read_text(encoding="utf-8")
    planner.inputs["config"].value = "\ufeff" + text
    assert planner.breakdown.total == plans.training_memory("mistral-7b", zero=3, dp=8, seq_len=4096).total


@pytest.mark.parametrize("text", ["", "x" * 32_000, "nan", "1e400", "1,2,3", "🙂", "--", "None", "-7B"])
def test_the_exercise_box_answers_any_entry_in_its_verdict(text):
    from llmest.learn.exercises import EXERCISES

    box = EXERCISES["1.1"].widget()
    box.entry.value = text
    box.check_button.click()
    assert box.verdict.value and ("No answer yet" in box.verdict.value or "Could not read that" in box.verdict.value)


@pytest.mark.parametrize("text", ["", "x" * 32_000, "nan", "1e400", "🙂"])
def test_the_timed_session_answers_any_entry_in_its_verdict(text):
    from llmest.surfaces.widgets import TimedSession

    session = TimedSession(n=1)
    session.start_button.click()
    session.entry.value = text
    session.submit.click()
    assert session.verdict.value and not session.submit.disabled  # a message, and the entry may be retyped
    session.answer(text, timed_out=True)
    assert "Time is up" in session.verdict.value and session.submit.disabled


# ----------------------------------------------------------------------------------------------------------------
# The reader's view: Enter checks, a verdict goes as the entry changes, the placeholder is an example in the unit,
# messages name the fields as the reader sees them, the timed session waits for Start
# ----------------------------------------------------------------------------------------------------------------

import html as html_  # noqa: E402
import re  # noqa: E402

from llmest.learn.exercises import EXERCISES  # noqa: E402
from llmest.learn.grading import entry_placeholder, read_entry  # noqa: E402
from llmest.core.units import UNITS  # noqa: E402
from llmest.surfaces.widgets import TimedSession  # noqa: E402
from llmest.surfaces.widgets.form import FIT  # noqa: E402


def _from_the_page(widget, **data):
    """A message as the front end sends it over the widget's comm."""
    widget._handle_msg({"content": {"data": data}, "buffers": []})


def _type(entry, text):
    """Typing, as the page reports it (the entry's value follows each keystroke)."""
    _from_the_page(entry, method="update", state={"value": text}, buffer_paths=[])


def _press_enter(entry):
    _from_the_page(entry, method="custom", content={"event": "submit"})


def _shown(markup: str) -> str:
    return html_.unescape(re.sub(r"<[^>]*>", "", markup))


def test_enter_checks_the_exercise_and_a_verdict_goes_when_the_entry_changes():
    box = EXERCISES["1.1"].widget()
    assert box.entry.continuous_update
    _type(box.entry, "1.31 billion")
    assert box.verdict.value == ""
    _press_enter(box.entry)
    assert "Correct" in box.verdict.value
    _type(box.entry, "1.31 billio")
    assert box.verdict.value == "", "the verdict was about what was typed before"
    _type(box.entry, "abc")
    _press_enter(box.entry)
    assert "Could not read that" in box.verdict.value
    _from_the_page(box.entry, method="custom", content={"event": "focus"})  # another message: no verdict from it
    _type(box.entry, "")
    assert box.verdict.value == ""


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_the_placeholder_is_an_example_in_the_exercise_unit_and_fits_the_box(key):
    ex = EXERCISES[key]
    entry = ex.widget().entry
    assert entry.placeholder == entry_placeholder(ex.unit) and entry.placeholder.startswith("e.g. ")
    for example in re.split(r", | or ", entry.placeholder[len("e.g. "):]):
        assert read_entry(example, ex.unit) > 0, example  # each example reads in the exercise's unit
    assert re.fullmatch(r"\d+ch", entry.layout.width) and int(entry.layout.width[:-2]) > len(entry.placeholder)
    assert entry.layout.max_width == FIT


def _answers():
    """Every answer an exercise or a drill expects, as the library writes it with its unit, by unit and language."""
    from llmest.core.i18n import speaking
    from llmest.core.units import show
    from llmest.learn.drills import drill_set

    answers = {}
    for language in ("en", "zh"):
        with speaking(language):
            for ex in EXERCISES.values():
                answers.setdefault((ex.unit, language), set()).add(show(ex.expected(), ex.unit))
            for seed, level in ((seed, level) for seed in range(10) for level in ("easy", "medium", "hard")):
                for problem in drill_set(seed, 10, level=level):
                    for part in problem.graded:
                        answers.setdefault((part.unit, language), set()).add(part.answer_text)
    return answers


def test_an_answer_box_holds_its_placeholder_and_the_longest_answer_with_its_unit():
    """"4.6 days", "about 93,483 GPU-hours", "260,000,000,000（2600亿）" and a Chinese placeholder, whose characters
    are two digits wide, all fit: the box is as wide as the widest, less only on a phone (FIT)."""
    from llmest.core.i18n import speaking
    from llmest.surfaces.widgets.form import ANSWER_COLUMNS, columns
    from llmest.surfaces.widgets.practice import entry_box

    answers = _answers()
    for (unit, language), shown in sorted(answers.items()):
        with speaking(language):
            entry = entry_box(unit)
        width = int(entry.layout.width.removesuffix("ch"))
        longest = max(shown, key=columns)
        assert columns(longest) <= ANSWER_COLUMNS and ANSWER_COLUMNS + 3 <= width, (unit, language, longest)
        assert columns(entry.placeholder) + 2 <= width, (unit, language, entry.placeholder)
        assert entry.layout.max_width == FIT
    for example in ("4.6 days", "93,483 GPU-hours", "about 93,483 GPU-hours", "6,738,415,616 (6.74B)"):
        assert columns(example) + 2 <= int(entry_box("GPU-hours").layout.width.removesuffix("ch"))
    with speaking("zh"):
        entry = entry_box("days")
    assert columns(entry.placeholder) > len(entry.placeholder) + 2  # "例如 41.5 天、6 周 或 41.5"
    assert int(entry.layout.width.removesuffix("ch")) >= columns(entry.placeholder) + 3


def test_the_timed_sessions_box_fits_each_questions_unit():
    from llmest.surfaces.widgets.form import columns

    session = TimedSession(n=5, seed=3, level="hard")  # chained problems: a unit for each step
    session.start()
    while not session.done:
        assert int(session.entry.layout.width.removesuffix("ch")) >= columns(session.entry.placeholder) + 3
        assert int(session.entry.layout.width.removesuffix("ch")) >= columns(session.current_part.answer_text) + 3
        session.answer("1")
        session._advance()


def test_placeholders_differ_by_unit():
    assert len({entry_placeholder(unit) for unit in UNITS}) == len(UNITS)


@pytest.mark.parametrize("entry", ["lots", "0", "-5", "1,2,3", "1.5", "7B" * 3, "x" * 300])
def test_a_bad_answer_names_the_entry_as_the_reader_sees_it(entry):
    box = EXERCISES["2.1"].widget()  # a number of GPUs
    _type(box.entry, entry)
    _press_enter(box.entry)
    shown = _shown(box.verdict.value)
    assert shown.startswith("Could not read that: your answer ") and "answer ==" not in shown, shown
    assert "answer ==" in EXERCISES["2.1"].check(entry).message  # the library's own message names its parameter


def test_the_timed_session_waits_for_start():
    session = TimedSession(n=3, seed=4, level="easy", seconds_per_question=60)
    now = [100.0]
    session._clock = lambda: now[0]
    assert session.start_button.description == "Start" and "llmest-start" in session.start_button._dom_classes
    assert "Timed practice: 3 questions, 1:00 each" in session.header.value and "Press Start" in session.question.value
    assert all(p.question not in session.question.value for p in session.problems)
    assert session.entry.layout.display == session.submit.layout.display == session.timer.layout.display == "none"
    assert not session.ticker.playing and session.timer.value == ""
    now[0] += 1000
    session.ticker.value += 1  # a tick before Start: nothing is timed
    assert session.timer.value == "" and not session.results and session.elapsed() == 0
    session.start_button.click()
    assert session.start_button.layout.display == "none" and session.entry.layout.display is None
    assert session.current.question in session.question.value and "Question 1 of 3" in session.header.value
    assert session.ticker.playing and session.ticker.interval == 1000
    assert _shown(session.timer.value) == "1:00 left"
    now[0] += 5
    session.ticker.value += 1  # the page steps the clock
    assert _shown(session.timer.value) == "0:55 left"
    now[0] += 56
    session.ticker.value += 1
    assert session.results[-1][3] is True and "Time is up" in session.verdict.value and not session.ticker.playing
    session.start_button.click()  # once started, Start does nothing
    assert session.index == 0 and len(session.results) == 1


def test_the_timed_session_takes_enter_clears_its_message_and_fits_each_unit():
    session = TimedSession(n=5, seed=2026)
    session.start_button.click()
    _type(session.entry, "abc")
    _press_enter(session.entry)
    assert _shown(session.verdict.value).startswith("Could not read that: your answer 'abc'")
    _type(session.entry, "ab")
    assert session.verdict.value == ""
    for problem in session.problems:
        assert session.entry.placeholder == entry_placeholder(problem.unit)
        _type(session.entry, f"{problem.answer:g}")
        _press_enter(session.entry)
        assert session.submit.disabled and "Correct" in session.verdict.value
        session.next.click()
    assert "Score: 5 correct" in session.header.value


def test_every_stop_of_the_hidden_size_slider_is_a_valid_shape():
    calc = ParamCalculator("gpt2")
    slider = calc.inputs["hidden_size"]
    assert slider.step == slider.min == 768 and "steps of 768 (12 heads × 64)" in calc.hidden_step_note.value
    for preset in ("gpt2", "llama-2-7b", "phi-3-mini", "falcon-7b", "qwen2-0.5b", "gemma-7b"):
        calc.model.value = preset
        assert slider.value == le.preset(preset).hidden_size, "the model's own size is kept (and is a stop)"
        assert (slider.value - slider.min) % slider.step == 0
        for stop in range(slider.min, slider.max + 1, slider.step):
            slider.value = stop
            assert calc.count is not None and not any(label.value for label in calc.errors.values()), (preset, stop)
    calc.model.value = "gpt2"
    calc.inputs["num_heads"].value = 16  # the step follows the heads
    assert slider.step == 256 and "16 heads × 16" in calc.hidden_step_note.value
    calc.inputs["num_heads"].value = 7
    assert calc.hidden_step_note.value == ""
    shown = _shown(calc.errors["num_heads"].value)
    assert "'hidden size H' must be divisible by 'attention heads' (768 % 7 != 0)" in shown
    assert "hidden_size" not in shown and "num_heads" not in shown


def test_the_data_planner_says_the_shares_total_in_percent():
    planner = DataPlanner(english=0.7, chinese=0.2, code=0.1)
    planner.inputs["code"].value = 0.35
    assert _shown(planner.errors["code"].value) == "shares add up to 125%; set them to add up to 100%."
    assert planner.result is None and planner.summary.value == ""
    planner.inputs["english"].value = 0.45
    assert planner.result is not None and not planner.errors["code"].value


# ----------------------------------------------------------------------------------------------------------------
# The app: widths that fit a phone and a projector, idle kernels culled
# ----------------------------------------------------------------------------------------------------------------

import ipywidgets as ipw  # noqa: E402

from llmest.surfaces.widgets import svg_chart  # noqa: E402


def _all_widgets(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_widgets(child)


def _wide(width: str) -> bool:
    """A fixed width over 10em (a phone's 390 px hold about 24em): a button's 6em is no matter."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(em|px|ch)", width.strip())
    return bool(match) and float(match[1]) * {"em": 1, "px": 1 / 16, "ch": 0.5}[match[2]] > 10


@pytest.mark.parametrize("make", [ParamCalculator, MemoryPlanner, TrainingPlanner, RooflineExplorer, ServingPlanner,
                                  DataPlanner, ScalingExplorer, lambda: EXERCISES["1.1"].widget(), lambda: TimedSession(n=1)])
def test_no_part_is_wider_than_a_phone_allows(make):
    made = make()
    root = getattr(made, "widget", made)
    for part in _all_widgets(root):
        width = part.layout.width
        if width and _wide(width):
            assert part.layout.max_width == FIT, (type(part).__name__, getattr(part, "description", ""), width)
        if isinstance(part, ipw.HTML):
            for style in re.findall(r'style="([^"]*)"', part.value):
                widths = re.findall(r"(?<![-\w])width:\s*([^;]+)", style)
                assert not any(_wide(w) for w in widths) or "max-width" in style, style
        if isinstance(part, ipw.HBox):
            assert part.layout.flex_flow == "row wrap"
        if isinstance(part, ipw.Text) and part.placeholder and width.endswith("em"):
            # What is left of the field beside its label holds the placeholder (a character is about 0.55em).
            label = float(part.style.description_width.removesuffix("em") or 0) if part.description else 0
            assert len(part.placeholder) * 0.55 <= float(width[:-2]) - label - 1, part.placeholder


def test_charts_scale_with_the_page():
    """Down to a phone, never past their own size (tests/test_charts.py checks the rest)."""
    svg = svg_chart([([1, 10, 100], [3, 2, 1], "#000", "line")], "x", "y")
    assert re.match(r'<svg viewBox="0 0 340 \d+" width="100%"', svg) and ' height="' not in svg.split(">")[0]
    assert "max-width:340px" in svg.split(">")[0]


APP = Path(__file__).resolve().parent.parent / "llmest" / "surfaces" / "app"


def _app_argv() -> list:
    """The arguments `make app` gives voila."""
    recipe = (APP.parents[2] / "Makefile").read_text(encoding="utf-8").split("\napp:", 1)[1].split("\n\n", 1)[0]
    command = next(line.strip() for line in recipe.splitlines()[1:] if "voila" in line)
    return command.split()[1:]


def test_the_app_culls_idle_kernels(tmp_path, monkeypatch):
    voila = pytest.importorskip("voila.app")
    monkeypatch.chdir(APP.parents[2])  # where make runs
    argv = _app_argv()
    assert "llmest/surfaces/app/llmest-calculators.ipynb" in argv
    app = voila.Voila()
    app.initialize(argv)
    app.connection_dir = str(tmp_path)
    app.init_settings()  # makes the kernel manager, configured as the server will run it
    manager = app.kernel_manager
    assert 0 < manager.cull_interval <= 300 and 0 < manager.cull_idle_timeout <= 3600
    assert manager.cull_connected, "a phone that sleeps keeps its socket: idle means idle"


def test_the_training_planner_adds_the_attention_of_a_sequence_length():
    planner = TrainingPlanner(model="llama-2-7b", tokens="1T", gpus=64, seq_len="4096")
    expected = plans.estimate_time(1e12, model="llama-2-7b", gpus=64, seq_len=4096)
    assert planner.result["flops"] == expected.flops > expected.matmul_flops
    assert "attention at 4,096 tokens" in planner.summary.value
    planner.inputs["params"].value = "7B"  # a bare count has no layers to count attention on
    assert "needs model" in planner.errors["params"].value



@pytest.mark.parametrize("tokens", [256 * 4096, 2**20 + 0.0, 4 * 2**20])
def test_the_layout_explorer_opens_on_a_number_of_tokens_given_as_a_number(tokens):
    """Chapter 5 passes 256 × 4096: the field must read back every digit (it showed 1.04858e+06 and refused it)."""
    from llmest.surfaces.widgets import LayoutExplorer

    explorer = LayoutExplorer(model="llama-2-7b", gpu="H100 SXM", gpus=64, seq_len=4096, batch_tokens=tokens)
    assert explorer.inputs["batch_tokens"].value == str(int(tokens))
    assert not any(error.value for error in explorer.errors.values())
    assert explorer.search is not None and explorer.search.global_batch_tokens == tokens


def test_layout_explorer_shows_the_librarys_best_layout_and_follows_the_gpus():
    from llmest import plans
    from llmest.surfaces.widgets import LayoutExplorer

    explorer = LayoutExplorer(model="llama-2-7b", gpu="H100 SXM", gpus=64, seq_len=4096, batch_tokens="1048576")
    best = plans.search_layouts("llama-2-7b", 64, "H100 SXM", 4096, 2**20).best
    assert explorer.search.best == best
    assert f"TP {best['tp']} × CP {best['cp']} × PP {best['pp']} × DP {best['dp']}" in explorer.summary.value
    assert "<svg" in explorer.chart.value and "usable" in explorer.chart.value
    explorer.inputs["gpus"].value = 256
    assert explorer.search.gpus == 256 and explorer.search.best == plans.search_layouts(
        "llama-2-7b", 256, "H100 SXM", 4096, 2**20).best
    explorer.inputs["batch_tokens"].value = "1M"  # decimal: not a whole number of 4,096-token sequences
    assert explorer.search is None and "1,048,576" in explorer.errors["batch_tokens"].value


@pytest.mark.parametrize("name", ["llmest-calculators.ipynb", "llmest-calculators-zh.ipynb"])
def test_the_calculators_page_lets_a_reader_jump_to_each_calculator(name):
    """The app is one long column of eight calculators: its opening links to each, and each heading links back."""
    import nbformat

    cells = nbformat.read(Path(__file__).resolve().parent.parent / "llmest/surfaces/app" / name, as_version=4).cells
    links = re.findall(r"\]\(#([\w-]+)\)", cells[0].source)
    calculators = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and "le.widgets." in cell.source]
    anchors = [re.search(r'^## <a id="([\w-]+)"></a>', cells[i - 1].source, re.MULTILINE) for i in calculators]
    assert len(calculators) == 8 and all(anchors)
    assert links == [anchor.group(1) for anchor in anchors] and 'id="contents"' in cells[0].source
    assert all('href="#contents"' in cells[i - 1].source for i in calculators)
