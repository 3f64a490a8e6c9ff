"""The plans: each refuses bad input naming the parameter; one lookup serves every catalogue; the command line and
the calculators call the same plan functions."""

import math

import pytest

import llmest as le
from llmest import cli, data, hardware, memory, model, plans

pytest.importorskip("ipywidgets")
from llmest.widgets import compute as widget_compute  # noqa: E402
from llmest.widgets import memory as widget_memory  # noqa: E402

# (plan, the arguments it needs, {numeric parameter: whether 0 is allowed})
PLANS = [
    (plans.training_memory, ("llama-2-7b",), {"zero": True, "dp": False, "tp": False, "pp": False,
                                              "micro_batch": False, "seq_len": False, "overhead_bytes": True}),
    (plans.inference_memory, ("llama-2-7b",), {"tokens": False, "batch": False, "tp": False, "overhead_bytes": True}),
    (plans.qlora_memory, ("llama-2-7b",), {"rank": False, "micro_batch": False, "seq_len": False,
                                           "overhead_bytes": True}),
    (plans.estimate_time, (1e12,), {"n_params": False, "gpus": False, "mfu": False, "peak_flops_per_s": False,
                                    "price_per_gpu_hour": True}),
    (plans.estimate_corpus, (7e9,), {"tokens": False, "tokens_per_param": False, "cleaning_yield": False,
                                     "gpus": False, "days": False, "peak_flops_per_s": False, "mfu": False}),
    (plans.estimate_serving, ("llama-2-7b",), {"batch": False, "context_tokens": False, "tp": False,
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
        plans.estimate_time(1e12, n_params=7e9, gpu="RTX 4090")


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
