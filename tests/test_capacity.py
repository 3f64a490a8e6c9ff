"""The capacity question (``plans.plan_capacity``, ``llmest serve --rate``): tensor parallelism's all-reduce in a
decode step, continuous batching with chunked prefill under TTFT and TPOT targets, Little's law, the M/D/1 wait,
prefix caching, and prefill/decode disaggregation.

Known answers are worked by hand from the datasheet figures (H100 SXM: 989.4 TFLOPS dense BF16, 3.35 TB/s, NVLink
450 GB/s a direction, of which NCCL reaches 370), NCCL's latency model (LL protocol: 6.6 µs a collective and
0.6 µs a ring step over NVLink) and Llama-2-70B's config.json, not read back from the code."""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest

from llmest import InputError, cli, plans
from llmest.formulas import capacity as cap

PEAK, BANDWIDTH, NVLINK = 989.4e12, 3.35e12, 370e9                 # H100 SXM; NCCL's bus bandwidth on NVLink 4
LLAMA2_70B = 68_976_648_192                                         # parameters, from its config.json
MATMUL_70B = LLAMA2_70B - 32_000 * 8192                             # less the input embedding
LAYERS, HIDDEN = 80, 8192
KV_TOKEN_PER_GPU = 2 * LAYERS * 8 * 128 * 2 / 4                     # K and V, 8 KV heads over 4 GPUs: 81,920 bytes
PER_KEY = 2 * 64 * (128 + 128) * LAYERS                             # decode attention FLOPs per cached key
LATENCY_TP4 = 6.6e-6 + 2 * 3 * 0.6e-6                               # 10.2 µs an all-reduce on 4 GPUs


def all_reduce_by_hand(tokens, tp=4, latency=LATENCY_TP4):
    """Two all-reduces a layer of tokens × hidden × 2 bytes, each sending 2(tp − 1)/tp of them over NVLink."""
    return 2 * LAYERS * (2 * (tp - 1) / tp * tokens * HIDDEN * 2 / NVLINK + latency)


# ----------------------------------------------------------------------------------------------------------------
# 1. Tensor parallelism's all-reduce in decode
# ----------------------------------------------------------------------------------------------------------------

def test_the_all_reduce_of_a_decode_step_by_hand():
    # Batch 1 on 4 H100s: 160 all-reduces of 16 KiB, each 10.2 µs plus 24,576 B / 370 GB/s = 66 ns: 1.643 ms.
    assert all_reduce_by_hand(1) == pytest.approx(1.6426e-3, rel=1e-4)
    assert cap.decode_all_reduce_seconds(1, HIDDEN, LAYERS, 4, NVLINK, LATENCY_TP4) == pytest.approx(
        all_reduce_by_hand(1), rel=1e-12)
    assert cap.all_reduce_latency_seconds(4, 6.6e-6, 0.6e-6) == pytest.approx(10.2e-6)
    # The roofline step at 2,048 tokens of context reads 34.49 GB of weights and 167.8 MB of cache per GPU: 10.35 ms;
    # the all-reduces add 1.64 ms, +15.9% (the issue quotes about +12%; a one-shot all-reduce kernel costs less).
    off = plans.decode_estimate("llama-2-70b", "H100 SXM", batch=1, seq_len=2048, tp=4, with_attention=True)
    on = plans.decode_estimate("llama-2-70b", "H100 SXM", batch=1, seq_len=2048, tp=4, with_attention=True,
                               all_reduce=True)
    assert off.step_seconds == pytest.approx((2 * LLAMA2_70B / 4 + 2048 * KV_TOKEN_PER_GPU) / BANDWIDTH, rel=1e-12)
    assert on.all_reduce_seconds == pytest.approx(all_reduce_by_hand(1), rel=1e-9)
    assert on.step_seconds == pytest.approx(off.step_seconds + all_reduce_by_hand(1), rel=1e-12)
    assert on.step_seconds / off.step_seconds - 1 == pytest.approx(0.1588, abs=5e-4)
    assert "all_reduce_s" in on.to_dict() and "all_reduce_s" not in off.to_dict()


def test_the_all_reduce_is_off_by_default_and_none_on_one_gpu():
    one = plans.decode_estimate("llama-2-7b", "H100 SXM", batch=8, all_reduce=True)
    assert one.all_reduce_seconds == 0 and one == plans.decode_estimate("llama-2-7b", "H100 SXM", batch=8)
    req = plans.estimate_request("llama-2-70b", "H100 SXM", prompt_tokens=512, output_tokens=256, tp=4, batch=8)
    with_ar = plans.estimate_request("llama-2-70b", "H100 SXM", prompt_tokens=512, output_tokens=256, tp=4, batch=8,
                                     all_reduce=True)
    assert req.decode.all_reduce_seconds == 0
    assert with_ar.tpot_s == pytest.approx(req.tpot_s + all_reduce_by_hand(8), rel=1e-9)
    assert "all-reduce" in str(with_ar) and "all-reduce" not in str(req)


def test_a_tensor_parallel_group_past_the_nvlink_domain_is_refused_by_name():
    with pytest.raises(InputError, match=r"tp == 16, must be <= 8") as err:
        plans.decode_estimate("llama-2-70b", "H100 SXM", tp=16, all_reduce=True)
    assert err.value.param == "tp"


# ----------------------------------------------------------------------------------------------------------------
# 2. The formulas of capacity: the queue, Little's law, prefix caching, the KV transfer, the chunked step
# ----------------------------------------------------------------------------------------------------------------

def test_the_m_d_1_wait_and_its_reverse_by_hand():
    # A server busy half the time, jobs of 100 ms: W = 0.5 × 0.1 / (2 × 0.5) = 50 ms; at 90%, 450 ms.
    assert cap.queue_wait_seconds(0.1, 0.5) == pytest.approx(0.05)
    assert cap.queue_wait_seconds(0.1, 0.9) == pytest.approx(0.45)
    assert cap.utilisation_for_wait(0.05, 0.1) == pytest.approx(0.5)
    assert cap.queue_wait_seconds(0.1, 0.0) == 0


def test_littles_law_by_hand():
    # 64 sequences a replica, each held for 256 steps of 20 ms (5.12 s): 12.5 requests/s; 1,000 requests/s
    # then need 80 replicas, and at 5.12 s each 5,120 requests are in flight.
    assert cap.little_rate(64, 256 * 0.020) == pytest.approx(12.5)
    assert cap.little_concurrency(1000, 5.12) == pytest.approx(5120)


def test_prefix_caching_and_the_kv_transfer_by_hand():
    assert cap.uncached_prompt_tokens(1024, 0.75) == 256
    # 1,024 tokens of Llama-2-70B's cache (327,680 B a token) from 4 GPUs, each through a 47 GB/s port: 1.785 ms.
    assert cap.kv_transfer_seconds(1024 * 327_680, 4, 47e9) == pytest.approx(1.785e-3, rel=1e-3)


def test_a_step_with_no_chunk_is_the_decode_step():
    assert cap.chunked_step_seconds(14e9, 1e9, 1e12, 0, 2e12, 312e12, 0.4) == pytest.approx(15e9 / 2e12)
    # A chunk of 2e14 FLOPs at 40% of 312 TFLOPS: 1.603 s, compute-bound.
    assert cap.chunked_step_seconds(14e9, 1e9, 1e12, 2e14, 2e12, 312e12, 0.4, 0.001) == pytest.approx(
        1e12 / 312e12 + 2e14 / (0.4 * 312e12) + 0.001)


# ----------------------------------------------------------------------------------------------------------------
# 3. The plan: the decode pool's batch at a TPOT target, by hand
# ----------------------------------------------------------------------------------------------------------------

def plan(**settings):
    base = dict(requests_per_s=1000, prompt_tokens=1024, output_tokens=256, ttft_s=0.2, tpot_s=0.05)
    return plans.plan_capacity("llama-2-70b", "H100 SXM", **{**base, **settings})


def test_the_decode_batch_at_a_tpot_target_by_hand():
    # Decoding at the mean context 1,024 + 256 / 2 = 1,152 tokens on 4 H100s, memory-bound (its compute per
    # sequence, 35.5 µs, never catches up within the memory): a step reads 34.49 GB of weights and 94.4 MB of cache
    # per sequence, and all-reduces b × 8,192 × 2 bytes twice a layer:
    #   TPOT(b) = (34.49e9 + b × 94.37e6) / 3.35e12 + 160 × (10.2 µs + 1.5 × b × 16,384 / 370e9)
    #           = 11.927 ms + 0.038797 ms × b  <=  15 ms  ->  b <= 79.2: a batch of 79.
    def tpot(b):
        return (2 * LLAMA2_70B / 4 + b * 1152 * KV_TOKEN_PER_GPU) / BANDWIDTH + all_reduce_by_hand(b)

    compute = (2 * MATMUL_70B + PER_KEY * 1152) / 4 / PEAK
    assert compute == pytest.approx(35.49e-6, rel=1e-3) and compute * 300 < tpot(300)   # memory-bound
    assert tpot(79) <= 0.015 < tpot(80)
    p = plan(tp=4, tpot_s=0.015, disaggregated=True)
    decode = p.decode
    assert decode.batch == 79 and decode.tpot_s == pytest.approx(tpot(79), rel=1e-9)
    # Little's law: 79 sequences, each 256 steps of TPOT: 79 / (256 × 14.99 ms) = 20.6 requests/s a replica,
    # so 1,000 requests/s need ⌈1000 / 20.6⌉ = 49 replicas of 4 GPUs.
    rate = 79 / (256 * tpot(79))
    assert decode.requests_per_s == pytest.approx(rate, rel=1e-9)
    assert decode.replicas == math.ceil(1000 / rate) == 49 and decode.gpus == 196
    # The same step as the serving plan's decode with its all-reduces.
    step = plans.decode_estimate("llama-2-70b", "H100 SXM", batch=79, seq_len=1152, tp=4, with_attention=True,
                                 all_reduce=True)
    assert decode.tpot_s == pytest.approx(step.step_seconds, rel=1e-12)


def test_at_a_loose_tpot_target_the_kv_memory_sets_the_batch():
    p = plan(tp=4, disaggregated=True)
    assert p.decode.batch == p.decode.max_batch == plans.estimate_request(
        "llama-2-70b", "H100 SXM", prompt_tokens=1024, output_tokens=256, tp=4).max_batch
    assert p.decode.tpot_s < 0.05


def test_the_colocated_answer_meets_both_targets_and_counts_replicas():
    p = plan()
    c = p.colocated
    assert p.met and c.ttft_s <= 0.2 and c.tpot_s <= 0.05
    assert c.requests_per_s == pytest.approx(c.batch / (256 * c.tpot_s))
    assert p.gpus == c.gpus == c.replicas * c.tp == math.ceil(1000 / c.requests_per_s) * c.tp
    assert p.requests_per_s_per_gpu == pytest.approx(1000 / p.gpus)
    # The next batch would break a target: the batch is the largest that meets them.
    assert 0 < c.prefill_share < 1 and c.batch < c.max_batch
    # Prices: the fleet's dollars a second over the tokens, split by the share of each step the chunks take.
    per_s = p.gpus * 4.0 / 3600
    assert p.usd_per_million_input_tokens == pytest.approx(per_s * c.prefill_share / (1000 * 1024) * 1e6)
    assert p.usd_per_million_output_tokens == pytest.approx(per_s * (1 - c.prefill_share) / (1000 * 256) * 1e6)


def test_a_prefix_cache_cuts_the_prefill_and_the_gpus():
    cold, warm = plan(tp=4), plan(tp=4, prefix_hit_rate=0.5)
    assert warm.settings["cached_tokens"] == 512 and warm.settings["uncached_tokens"] == 512
    assert warm.gpus < cold.gpus
    # Shorter prompts to prefill leave the TTFT target room for a larger batch.
    assert warm.colocated.batch > cold.colocated.batch
    # In a prefill pool the prompt's time falls by the spared FLOPs: 2·N per cached token, and its attention.
    a, b = plan(tp=8, disaggregated=True), plan(tp=8, disaggregated=True, prefix_hit_rate=0.5)
    assert b.prefill.requests_per_s > 1.5 * a.prefill.requests_per_s


def test_disaggregation_sizes_two_pools_and_compares_them_with_colocation():
    p = plan(disaggregated=True)
    assert p.met and p.gpus == p.prefill.gpus + p.decode.gpus
    assert p.prefill.ttft_s <= 0.2 and p.decode.tpot_s <= 0.05 and p.prefill.kv_transfer_s > 0
    assert p.colocated is not None   # the colocated answer, to compare
    text = str(p)
    assert "prefill pool" in text and "Colocated instead" in text


def test_no_layout_meets_impossible_targets_and_says_why_by_name():
    p = plan(ttft_s=0.01, tpot_s=0.005)
    assert not p.met and p.gpus == 0 and p.usd_per_million_output_tokens is None
    reasons = {f.tp: f.reason for f in p.tried}
    assert reasons == {1: "weights", 2: "weights", 4: "tpot", 8: "tpot"}
    text = " ".join(str(p).split())   # the table wraps its verdicts
    assert "no layout meets the targets" in text and "TPOT at a batch of one is 12.01 ms, over the 5.00 ms" in text
    q = plans.plan_capacity("qwen2-7b", "H100 SXM", requests_per_s=10, prompt_tokens=512, output_tokens=128,
                            ttft_s=0.5, tpot_s=0.05)
    assert {f.tp: f.reason for f in q.tried}[8] == "heads" and q.met


@pytest.mark.parametrize("settings, param", [
    (dict(tp=3), "tp"), (dict(tp=16), "tp"), (dict(prefix_hit_rate=1.0), "prefix_hit_rate"),
    (dict(ttft_s=0), "ttft_s"), (dict(tpot_s=-1), "tpot_s"), (dict(requests_per_s=0), "requests_per_s"),
    (dict(chunk_tokens=0), "chunk_tokens"), (dict(disaggregated="yes"), "disaggregated")])
def test_bad_input_is_named(settings, param):
    with pytest.raises(InputError) as err:
        plan(**settings)
    assert err.value.param == param


# ----------------------------------------------------------------------------------------------------------------
# 4. llmest serve --rate, in both languages
# ----------------------------------------------------------------------------------------------------------------

CAPACITY = ["serve", "llama-2-70b", "--gpu", "H100 SXM", "--rate", "1000", "--prompt-tokens", "1024",
            "--output-tokens", "256", "--ttft", "0.2", "--tpot", "0.05"]


def run(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(list(argv)) == 0
    return out.getvalue()


def test_serve_rate_gives_the_plan_in_json_and_text():
    data = json.loads(run(*CAPACITY, "--json"))
    assert data == json.loads(json.dumps(plan().to_dict()))
    assert data["met"] and data["gpus"] == plan().gpus
    text = run(*CAPACITY)
    assert f"{plan().gpus:,} GPUs" in text and "Little's law" in text
    chinese = run("--lang", "zh", *CAPACITY)
    assert f"{plan().gpus:,}" in chinese and "张卡" in chinese and "Little's law" not in chinese


def test_serve_rate_with_disaggregation_and_a_prefix_cache():
    data = json.loads(run(*CAPACITY, "--disaggregated", "--prefix-hit-rate", "0.5", "--json"))
    p = plan(disaggregated=True, prefix_hit_rate=0.5)
    assert data["gpus"] == p.gpus and data["prefill"]["gpus"] == p.prefill.gpus


@pytest.mark.parametrize("argv, message", [
    (CAPACITY[:-2], "--tpot: --tpot is needed with --rate"),
    (["serve", "llama-2-7b", "--prompt-tokens", "512", "--output-tokens", "128", "--ttft", "0.2"],
     "--ttft: --ttft sets a target"),
    ([*CAPACITY[:5], "0", *CAPACITY[6:]], "--rate: requests_per_s == 0"),
    ([*CAPACITY, "--tp", "16"], "--tp: tp == 16, must be <= 8"),
    ([*CAPACITY, "--prefix-hit-rate", "1"], "--prefix-hit-rate: prefix_hit_rate == 1, must be in [0, 1)")])
def test_serve_rate_names_a_bad_option(argv, message):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2 and message in err.getvalue()


# ----------------------------------------------------------------------------------------------------------------
# 5. The capacity planner (a widget over the same plan)
# ----------------------------------------------------------------------------------------------------------------

def test_the_capacity_planner_shows_the_plan_and_names_a_bad_field():
    pytest.importorskip("ipywidgets")
    from llmest.surfaces.widgets import CapacityPlanner

    planner = CapacityPlanner(requests_per_s=1000.0)
    assert planner.plan.to_dict() == plan().to_dict() and planner.summary.value == plan()._repr_html_()
    planner.inputs["disaggregated"].value = True
    assert planner.plan.gpus == plan(disaggregated=True).gpus
    planner.inputs["tpot_s"].value = -1.0
    assert planner.plan is None and planner.summary.value == ""
    assert "TPOT target (s) = -1" in planner.errors["tpot_s"].value
