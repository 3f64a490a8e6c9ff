"""The plans: each refuses bad input naming the parameter; one lookup serves every catalogue; the command line and
the calculators call the same plan functions."""

import math

import pytest

import llmest as le
from llmest import cli, data, hardware, memory, model, plans
from llmest import compute as cp
from llmest import memory as mem
from llmest.core._validate import InputError

pytest.importorskip("ipywidgets")
from llmest.surfaces.widgets import compute as widget_compute  # noqa: E402
from llmest.surfaces.widgets import memory as widget_memory  # noqa: E402

# (plan, the arguments it needs, {numeric parameter: whether 0 is allowed})
PLANS = [
    (plans.training_memory, ("llama-2-7b",), {"zero": True, "dp": False, "tp": False, "pp": False,
                                              "micro_batch": False, "seq_len": False, "overhead_bytes": True}),
    (plans.inference_memory, ("llama-2-7b",), {"seq_len": False, "batch": False, "tp": False, "overhead_bytes": True}),
    (plans.qlora_memory, ("llama-2-7b",), {"rank": False, "micro_batch": False, "seq_len": False,
                                           "overhead_bytes": True}),
    (plans.estimate_time, (1e12,), {"n_params": False, "gpus": False, "mfu": False, "peak_flops_per_s": False,
                                    "price_per_gpu_hour": True}),
    (plans.estimate_corpus, (7e9,), {"tokens": False, "tokens_per_param": False, "cleaning_yield": False,
                                     "gpus": False, "days": False, "peak_flops_per_s": False, "mfu": False}),
    (plans.estimate_serving, ("llama-2-7b",), {"batch": False, "seq_len": False, "tp": False,
                                               "price_per_gpu_hour": True}),
    (plans.estimate_training, ("llama-2-7b", 1e12, 8), {"mfu": False, "micro_batch": False, "seq_len": False}),
]
CASES = [(plan, args, name, bad) for plan, args, params in PLANS for name, zero_ok in params.items()
         for bad in (-3, math.nan, True, "7", *(() if zero_ok else (0,)))]


@pytest.mark.parametrize("plan, args, name, bad", CASES,
                         ids=[f"{p.__name__}-{n}-{b!r}" for p, _, n, b in CASES])
def test_each_plan_refuses_bad_numbers_naming_the_parameter(plan, args, name, bad):
    kwargs = {"n_params": 7e9} if plan is plans.estimate_time and name != "n_params" else {}
    with pytest.raises(le.InputError) as err:
        plan(*args, **kwargs, **{name: bad})
    assert err.value.param == name and name in str(err.value)


def test_qlora_refuses_a_negative_sequence_length():
    with pytest.raises(le.InputError, match=r"seq_len == -2048, must be >= 1\."):
        plans.qlora_memory("llama-2-7b", seq_len=-2048)


@pytest.mark.parametrize("find, name, expected", [
    (hardware.gpu, "h100 sxm", "H100 SXM"), (hardware.gpu, "A100-80GB", "A100 80GB"),
    (model.preset, "Llama 2 7B", "llama-2-7b"), (memory.state_bytes_per_param, "Megatron BF16", None),
    (data.fit, "Besiroglu", "besiroglu"), (memory.model_weight_bytes, None, None),
])
def test_one_lookup_ignores_case_spaces_and_punctuation(find, name, expected):
    if find is hardware.gpu:
        assert find(name).name == expected
    elif find is model.preset:
        assert find(name).name == expected
    elif find is data.fit:
        assert find(name) is data.FITS[expected]
    elif find is memory.state_bytes_per_param:
        assert find(name) == memory.state_bytes_per_param("megatron-bf16")
    else:
        assert find("llama-2-7b", "NF4-DQ") == find("llama-2-7b", "nf4-dq")


@pytest.mark.parametrize("call, suggestion", [
    (lambda: hardware.gpu("H100"), "Did you mean 'H100 SXM' or 'H100 PCIe'"),
    (lambda: memory.state_bytes_per_param("mixed", "adam"), "Did you mean 'adamw'"),
    (lambda: data.fit("hofman"), "Did you mean 'hoffmann'"),
    (lambda: data.tokens_per_gb("englsh"), "Did you mean 'english'"),
])
def test_an_unknown_name_gets_close_names(call, suggestion):
    with pytest.raises(le.InputError, match=suggestion):
        call()


def test_prices_live_with_the_hardware():
    assert hardware.price_per_gpu_hour("a100 80gb") == 2.5  # the middle of the material's ~$2-3
    assert plans.estimate_time(1e12, n_params=7e9).price_per_gpu_hour == 2.5
    assert plans.estimate_time(1e12, n_params=7e9, gpu="H100 SXM").price_per_gpu_hour == 4.0
    with pytest.raises(le.InputError, match="no price per GPU-hour is listed for 'RTX 4090'"):
        hardware.price_per_gpu_hour("RTX 4090")
    # a GPU with no listed price still has hours and days, and no cost (tests/test_unpriced.py)
    assert plans.estimate_time(1e12, n_params=7e9, gpu="RTX 4090").cost_usd is None


def test_command_line_and_calculators_call_the_same_plans(monkeypatch, capsys):
    calls = []
    for name in ("plan_memory", "estimate_time"):
        real = getattr(plans, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)
        monkeypatch.setattr(plans, name, spy)
    cli.main(["memory", "llama-2-7b", "--json"])
    cli.main(["time", "--params", "7B", "--tokens", "1T", "--json"])
    capsys.readouterr()
    assert calls == ["plan_memory", "estimate_time"]
    widget_memory.MemoryPlanner()
    widget_compute.TrainingPlanner()
    assert calls[2:] == ["plan_memory", "estimate_time"]


# ----------------------------------------------------------------------------------------------------------------
# The plans that replaced compositions in the exercises, the material and the drills
# ----------------------------------------------------------------------------------------------------------------

def test_zero_gpus_shares_the_activations_out():
    # Seed 000 exercise 1: 2 bytes of weights stay whole, 14·7e9 = 98 GB and 50 GB of activations are shared:
    # 14 GB + 148 GB / n ≤ 64 GB needs n ≥ 2.96, so 3; with 100 GB, 198 / 50 = 3.96, so 4.
    assert plans.zero_gpus(7e9, "A100 80GB", zero=2, activations_shared_bytes=50e9) == 3
    assert plans.zero_gpus(7e9, "A100 80GB", zero=2, activations_shared_bytes=100e9) == 4
    assert plans.zero_gpus(7e9, "A100 80GB", zero=0) is None          # unsharded 112 GB never fits
    with pytest.raises(InputError, match="activations_shared_bytes"):
        plans.zero_gpus(7e9, activations_shared_bytes=-1)


def test_estimate_mfu_from_hours_or_from_gpus_and_days():
    # 30B on 600B tokens in 21 days on 1,024 A100s: 1.08e23 / (1,024 × 21 × 86,400 s × 312e12) = 18.6%
    run = plans.estimate_mfu(30e9, 600e9, gpus=1024, days=21, gpu="A100 80GB")
    assert run.mfu == pytest.approx(1.08e23 / (1024 * 21 * 86_400 * 312e12)) and run.mfu == pytest.approx(0.186, abs=5e-4)
    assert plans.estimate_mfu(30e9, 600e9, gpu_hours=1024 * 21 * 24).mfu == pytest.approx(run.mfu)
    with pytest.raises(InputError, match="gpu_hours"):
        plans.estimate_mfu(30e9, 600e9)


def test_estimate_budget_is_seed_004s_reverse_budget():
    # Seed 004 §4.3: 64 × 200 TFLOPS × 50% × 30 days ≈ 1.66e22 FLOPs; 19.7B for 140B tokens; 39.4B tokens for a 70B
    budget = plans.estimate_budget(64, 30, peak_flops_per_s=200e12, mfu=0.5)
    assert budget.flops == pytest.approx(1.66e22, rel=0.005)
    assert budget.affordable_params(140e9) == pytest.approx(19.7e9, rel=0.005)
    assert budget.affordable_tokens(70e9) == pytest.approx(39.4e9, rel=0.005)
    n, d = budget.chinchilla()
    assert d == 20 * n and 6 * n * d == pytest.approx(budget.flops)
    assert (n, d) == plans.chinchilla_for_budget(64, 30, 200e12, 0.5)


def test_time_estimate_curve_deadline_and_finetune():
    est = plans.estimate_time(1e12, n_params=7e9, gpus=256, gpu="A100 80GB", mfu=0.4)
    assert est.days_on(512) == pytest.approx(est.days / 2) and est.days_on(256, 0.2) == pytest.approx(est.days * 2)
    assert est.seconds == pytest.approx(4.2e22 / (256 * 312e12 * 0.4))
    assert est.gpus_for(est.days) == 256 and est.cost_at(2) == pytest.approx(est.gpu_hours * 2)
    lora = plans.estimate_finetune_time("llama-2-7b", 1e6)
    n = cp.flops_params("llama-2-7b")
    adapters = mem.lora_params("llama-2-7b", 64, mem.LORA_TARGETS)
    assert lora.flops == pytest.approx((4 * n + 6 * adapters) * 1e6)
    assert plans.TIME_MARGIN_TEXT == "15%-25%"


def test_fits_takes_bytes_or_a_breakdown():
    usable = 0.8 * 80 * 2**30   # 80% of the 80 GiB an A100 80GB exposes (nvidia-smi: 81,920 MiB)
    assert plans.fits(usable, "A100 80GB") and not plans.fits(usable + 0.1e9, "A100 80GB")
    assert plans.fits(plans.MemoryBreakdown({"weights": usable}), "A100 80GB")


def test_the_serving_plan_sizes_a_request_rate_and_its_monthly_bill():
    """Seed 000 §4.3: 1,000 requests/s of 100 new tokens, on A100s at $2 an hour, 730 hours a month."""
    est = plans.estimate_serving("llama-2-7b", "A100 80GB", batch=64, seq_len=1024, price_per_gpu_hour=2)
    rate = est.decode.tokens_per_s
    assert est.gpus_for(1000, 100) == math.ceil(1000 * 100 / rate)
    assert est.monthly_cost(37) == 37 * 2 * 730 == 54_020
    assert est.new_tokens_per_request(1000, 5e3) == pytest.approx(5e3 / 2 / 730 * rate / 1000)
    with pytest.raises(le.InputError, match="usd_per_month"):
        est.new_tokens_per_request(1000, -1)


def test_a_sequence_length_adds_the_attention_flops_and_the_mfu_counts_them():
    plain = plans.estimate_time(1e12, model="llama-2-7b", gpus=64)
    with_attention = plans.estimate_time(1e12, model="llama-2-7b", gpus=64, seq_len=4096)
    attention = le.compute.attention_flops_per_token(32, 32, 128, 4096) * 1e12  # PaLM's 12·L·H·Q·T a token
    assert with_attention.matmul_flops == plain.flops and with_attention.attention_flops == attention
    assert with_attention.days == pytest.approx(plain.days * with_attention.flops / plain.flops)
    # the same run, its MFU counted on 6·N·D alone
    assert with_attention.mfu_without_attention == pytest.approx(0.4 * plain.flops / with_attention.flops)
    assert plain.mfu_without_attention == plain.mfu and plain.seq_len is None


def test_a_sequence_length_without_a_model_is_refused():
    with pytest.raises(le.InputError, match="seq_len == 4,096 needs model") as err:
        plans.estimate_time(1e12, n_params=7e9, seq_len=4096)
    assert err.value.param == "seq_len"

