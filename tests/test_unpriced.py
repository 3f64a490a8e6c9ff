"""A GPU with no listed price, or one known only by its peak: hours, days and latency need no price, only the cost
does. The estimate says so instead of refusing, on every surface, and never borrows another GPU's name or price."""

import json

import pytest

from llmest import InputError, hardware, plans
from llmest import compute as c
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.surfaces.cli.main import main as cli_main

UNPRICED = "RTX 4090"


def test_the_gpu_has_no_listed_price():
    assert UNPRICED not in hardware.PRICE_PER_GPU_HOUR
    assert hardware.gpu_price(UNPRICED) == (None, False)
    assert hardware.gpu_price(UNPRICED, 1.5) == (1.5, False)
    with pytest.raises(InputError) as err:
        hardware.price_per_gpu_hour(UNPRICED)
    assert err.value.param == "price_per_gpu_hour"


def test_training_time_without_a_price_has_days_and_no_cost():
    est = plans.estimate_time(1e12, n_params=7e9, gpus=256, gpu=UNPRICED)
    peak = hardware.gpu(UNPRICED).bf16_flops_per_s
    assert est.gpu_hours == pytest.approx(c.gpu_hours(6 * 7e9 * 1e12, peak, 0.4))
    assert est.days == pytest.approx(c.training_days(6 * 7e9 * 1e12, 256, peak, 0.4))
    assert est.cost_usd is None and est.to_dict()["cost_usd"] is None
    assert "none is listed for the RTX 4090" in str(est)
    priced = plans.estimate_time(1e12, n_params=7e9, gpus=256, gpu=UNPRICED, price_per_gpu_hour=0.5)
    assert priced.cost_usd == pytest.approx(priced.gpu_hours * 0.5) and priced.days == est.days


def test_a_peak_without_a_gpu_names_no_gpu_and_borrows_no_price():
    est = plans.estimate_time(1e12, n_params=7e9, gpus=256, peak_flops_per_s=125e12)
    assert est.gpu == "" and est.price_per_gpu_hour is None and est.cost_usd is None
    assert "256 × GPU, 125 TFLOPS" in str(est) and "A100" not in str(est)
    assert est.to_dict()["gpu"] is None
    given = plans.estimate_time(1e12, n_params=7e9, gpus=256, peak_flops_per_s=125e12, price_per_gpu_hour=2)
    assert given.cost_usd == pytest.approx(given.gpu_hours * 2) and "(given)" in str(given)
    # a GPU and a peak: the GPU's name and listed price, the peak given
    h100 = plans.estimate_time(1e12, n_params=7e9, gpus=256, gpu="H100 SXM", peak_flops_per_s=800e12)
    assert h100.gpu == "H100 SXM" and h100.price_per_gpu_hour == hardware.price_per_gpu_hour("H100 SXM")
    # neither: the A100 80GB, as before
    assert plans.estimate_time(1e12, n_params=7e9).gpu == "A100 80GB"


def test_serving_without_a_price_has_latency_and_no_cost():
    req = plans.estimate_request("llama-2-7b", UNPRICED, prompt_tokens=512, output_tokens=256)
    assert req.ttft_s > 0 and req.tpot_s > 0 and req.max_batch > 0
    assert req.usd_per_million_input_tokens is None and req.usd_per_million_output_tokens is None
    assert "none is listed for the RTX 4090" in str(req)
    est = plans.estimate_serving("llama-2-7b", UNPRICED, batch=4)
    assert est.usd_per_million_tokens is None and est.decode.tokens_per_s > 0
    with pytest.raises(InputError) as err:
        est.monthly_cost(8)
    assert err.value.param == "price_per_gpu_hour"


def test_the_chinese_says_it_without_english_prose():
    with speaking("zh"):
        for est in (plans.estimate_time(1e12, n_params=7e9, gpu=UNPRICED),
                    plans.estimate_time(1e12, n_params=7e9, peak_flops_per_s=125e12),
                    plans.estimate_request("llama-2-7b", UNPRICED, prompt_tokens=512, output_tokens=256)):
            price = [text for label, text in est.report().fields if label in ("费用", "价格")]
            assert price and english_prose(price[0]) == [], price


@pytest.mark.parametrize("argv", [
    ["time", "--params", "7B", "--tokens", "1T", "--gpus", "256", "--gpu", UNPRICED],
    ["time", "--params", "7B", "--tokens", "1T", "--gpus", "256", "--peak", "125"],
    ["serve", "llama-2-7b", "--gpu", UNPRICED, "--prompt-tokens", "512", "--output-tokens", "256"],
])
def test_the_command_line_answers_without_a_price(capsys, argv):
    assert cli_main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["price_per_gpu_hour"] is None
    assert data.get("days", data.get("ttft_s")) > 0
    assert cli_main(argv) == 0
    out = capsys.readouterr().out
    assert "A100" not in out and "give a price per GPU-hour for the cost" in out
