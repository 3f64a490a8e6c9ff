"""Serving a request: prefill FLOPs and the time to the first token, the decode step and the time per output token,
the paged KV cache and the largest batch that fits, tensor parallelism, mixtures of experts, prices, and
``llmest serve``.

Known answers are written out as arithmetic from the datasheet figures of ``llmest.catalog.hardware`` (A100 80GB: 312 TFLOPS
dense BF16, 2,039 GB/s, 81,920 MiB exposed) and the models' config.json, not read back from the code."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmest import InputError, cli, plans
from llmest import compute as c
from llmest import kv_cache as kv

PEAK, BANDWIDTH, MEMORY = 312e12, 2039e9, 81_920 * 2**20   # A100 80GB
LLAMA2_7B = 6_738_415_616                  # parameters, from its config.json
LLAMA2_7B_MATMUL = LLAMA2_7B - 32_000 * 4096   # less the input embedding, a lookup
LLAMA2_7B_WEIGHTS = 2 * LLAMA2_7B          # bytes in BF16
KV_PER_TOKEN = 2 * 32 * 32 * 128 * 2       # K and V · 32 layers · 32 KV heads · 128 wide · 2 bytes = 524,288
PER_KEY = 2 * 32 * (128 + 128) * 32        # forward FLOPs of one query on one key: 2 · heads · (q·k + v) · layers


def request(model="llama-2-7b", gpu="A100 80GB", **settings_):
    return plans.estimate_request(model, gpu, **{"prompt_tokens": 512, "output_tokens": 256, **settings_})


# ----------------------------------------------------------------------------------------------------------------
# The roofline by hand: Llama-2-7B on one A100 80GB
# ----------------------------------------------------------------------------------------------------------------

def test_the_batch_of_one_decode_step_reads_the_weights_and_the_cache():
    est = request(batch=1)
    # The step at the output's mean context, 512 + 256 / 2 = 640 tokens, reads the weights and 640 tokens of cache.
    assert est.decode_context_tokens == 640
    assert est.tpot_s == pytest.approx((LLAMA2_7B_WEIGHTS + 640 * KV_PER_TOKEN) / BANDWIDTH, rel=1e-12)
    assert est.bound == "memory" and est.tokens_per_s == pytest.approx(1 / est.tpot_s)
    # Without the cache it is the weights over the bandwidth: 13.48 GB / 2,039 GB/s = 6.61 ms.
    bare = plans.decode_estimate("llama-2-7b", "A100 80GB", batch=1, seq_len=1)
    assert bare.step_seconds == pytest.approx((LLAMA2_7B_WEIGHTS + KV_PER_TOKEN) / BANDWIDTH, rel=1e-12)
    assert LLAMA2_7B_WEIGHTS / BANDWIDTH == pytest.approx(6.61e-3, rel=1e-3)


def test_the_ridge_and_the_batch_where_decode_turns_compute_bound():
    # The ridge: 312e12 / 2.039e12 = 153 FLOPs per byte. Decoding B sequences does 2·N·B FLOPs on the weights'
    # 2·N_total bytes, so it crosses the ridge at B = 153 × 13.48e9 / (2 × 6.607e9) = 156 (the cache left out).
    ridge = PEAK / BANDWIDTH
    assert ridge == pytest.approx(153.02, rel=1e-4)
    crossing = ridge * LLAMA2_7B_WEIGHTS / (2 * LLAMA2_7B_MATMUL)
    assert crossing == pytest.approx(156.1, rel=1e-3)
    assert c.compute_bound_batch(LLAMA2_7B_WEIGHTS, LLAMA2_7B_MATMUL, BANDWIDTH, PEAK) == pytest.approx(crossing)
    # With its full-size (MHA) cache, past 2N · bandwidth / (peak · KV per token) = 165 tokens reading one
    # sequence's cache takes longer than its FLOPs: at 640 tokens no batch is compute-bound.
    limit = 2 * LLAMA2_7B_MATMUL * BANDWIDTH / (PEAK * KV_PER_TOKEN)
    assert c.kv_context_limit_for("llama-2-7b", BANDWIDTH, PEAK) == pytest.approx(limit) and 160 < limit < 170
    assert request(batch=128).bound == "memory"


def test_the_prefill_by_hand():
    # 16 prompts of 512 tokens: 2·N·P each, plus each token attending to itself and those before it,
    # P·(P + 1)/2 query-key pairs, at 40% of 312 TFLOPS.
    est = request(batch=16)
    flops = 16 * (2 * LLAMA2_7B_MATMUL * 512 + PER_KEY * 512 * 513 / 2)
    assert est.prefill_flops == pytest.approx(flops, rel=1e-12)
    assert est.ttft_s == pytest.approx(flops / (PEAK * 0.4), rel=1e-12) and est.prefill_bound == "compute"
    # The causal prefill has half the pairs, plus the diagonal, of the training convention's full square.
    assert c.prefill_attention_flops_for("llama-2-7b", 512) == pytest.approx(
        c.attention_flops_per_token_for("llama-2-7b", 512) / 3 * 512 * 513 / 2 / 512)


def test_a_short_prompt_is_bound_by_reading_the_weights():
    est = request(prompt_tokens=4, output_tokens=4)
    assert est.prefill_bound == "memory" and est.ttft_s == pytest.approx(LLAMA2_7B_WEIGHTS / BANDWIDTH)


def test_the_largest_batch_and_the_paged_waste_by_hand():
    # 600 + 400 = 1,000 tokens take 63 blocks of 16 (1,008 slots): 8 empty slots of 524,288 bytes each.
    est = request(prompt_tokens=600, output_tokens=400)
    assert est.blocks_per_sequence == 63 == -(-1000 // 16)
    assert est.waste_bytes_per_sequence == 8 * KV_PER_TOKEN
    # 80% of 81,920 MiB, less the weights and 0.5 GB of runtime, over 1,008 slots of cache: 103 sequences.
    free = MEMORY * 0.8 - LLAMA2_7B_WEIGHTS - 0.5e9
    assert est.max_batch == int(free // (1008 * KV_PER_TOKEN)) == 103
    assert est.fits and not request(prompt_tokens=600, output_tokens=400, batch=104).fits
    assert request(prompt_tokens=600, output_tokens=400, batch=103).memory_per_gpu_bytes <= MEMORY * 0.8


def test_paged_blocks():
    assert [kv.kv_blocks(t) for t in (1, 16, 17, 32, 33)] == [1, 1, 2, 2, 3]
    assert [kv.paged_waste_tokens(t) for t in (1, 16, 17)] == [15, 0, 15]
    assert kv.paged_tokens(1000, 32) == 1024
    assert kv.sequences_that_fit(100, 60, 10, 5) == 3 and kv.sequences_that_fit(65, 60, 10, 5) == 0
    with pytest.raises(InputError, match="weights alone do not fit") as err:  # not -1 sequences
        kv.sequences_that_fit(50, 60, 10)
    assert err.value.param == "weight_bytes"


def test_a_windowed_model_keeps_its_window():
    # Mistral-7B's layers keep at most 4,095 tokens: past the window the largest batch stops falling.
    at = [request("mistral-7b", prompt_tokens=p, output_tokens=1000).max_batch for p in (1000, 8000, 16000)]
    assert at[0] > at[1] == at[2]


# ----------------------------------------------------------------------------------------------------------------
# Mixtures of experts and tensor parallelism
# ----------------------------------------------------------------------------------------------------------------

def test_a_mixture_holds_every_expert_and_computes_with_the_active_ones():
    total, active = 46_702_792_704, 12_879_925_248     # Mixtral-8x7B (test_model.py), all and active parameters
    est = request("mixtral-8x7b", tp=2)
    assert est.memory["weights"] == pytest.approx(2 * total / 2)
    matmul = 2 * (active - 32_000 * 4096) * 512        # the active matmul weights, embedding lookup left out
    attention = 2 * 32 * (128 + 128) * 32 * 512 * 513 / 2
    assert est.prefill_flops == pytest.approx(matmul + attention, rel=1e-12)


def test_tensor_parallelism_divides_weights_cache_and_flops():
    one, four = request("llama-2-70b", tp=4, batch=8), request("llama-2-70b", tp=8, batch=8)
    assert four.memory["weights"] == pytest.approx(one.memory["weights"] / 2)
    assert four.memory["kv_cache"] == pytest.approx(one.memory["kv_cache"] / 2)
    assert four.decode.memory_seconds == pytest.approx(one.decode.memory_seconds / 2)
    assert four.ttft_s == pytest.approx(one.ttft_s / 2)
    assert four.max_batch > 2 * one.max_batch
    # Twice the GPUs at twice the speed: the same price per token.
    assert four.usd_per_million_output_tokens == pytest.approx(one.usd_per_million_output_tokens)


def test_past_its_kv_heads_tensor_parallelism_copies_the_cache():
    # Llama-2-70B has 8 KV heads: on 16 GPUs each pair holds the same head, so a GPU keeps 1/8 of the cache.
    eight, sixteen = request("llama-2-70b", tp=8), request("llama-2-70b", tp=16)
    assert sixteen.memory["weights"] == pytest.approx(eight.memory["weights"] / 2)
    assert sixteen.memory["kv_cache"] == pytest.approx(eight.memory["kv_cache"])
    assert kv.kv_cache_shards("llama-2-70b", 16) == 8 and kv.kv_cache_shards("llama-2-70b", 2) == 2
    # MLA's latent serves every head: each of DeepSeek-V3's 8 GPUs keeps all of it, 61 layers × (512 + 64) × 2 bytes.
    v3 = request("deepseek-v3", "H200", tp=8)
    assert kv.kv_cache_shards("deepseek-v3", 8) == 1
    assert v3.memory["kv_cache"] == 61 * (512 + 64) * 2 * 768


def test_prices_and_gpus_for_a_rate():
    est = request(batch=16, price_per_gpu_hour=2.0)
    # Output at the decode's rate, input at the prefill's, over one GPU at $2 an hour.
    assert est.usd_per_million_output_tokens == pytest.approx(2.0 / 3600 / est.tokens_per_s * 1e6)
    assert est.usd_per_million_input_tokens == pytest.approx(2.0 / 3600 / (16 * 512 / est.ttft_s) * 1e6)
    # A replica finishes 16 requests every TTFT + 255 · TPOT seconds.
    assert est.request_s == pytest.approx(est.ttft_s + 255 * est.tpot_s)
    assert est.gpus_for(100) == -(-100 * est.request_s // 16)


@pytest.mark.parametrize("call, param", [
    (lambda: request(tp=3), "tp"),
    (lambda: request(prompt_tokens=0), "prompt_tokens"),
    (lambda: request(output_tokens=1.5), "output_tokens"),
    (lambda: request(block_tokens=0), "block_tokens"),
    (lambda: request(prefill_efficiency=1.5), "prefill_efficiency"),
    (lambda: request(kv_dtype="fp4"), "kv_dtype"),
    (lambda: request(gpu="L4", price_per_gpu_hour=-1), "price_per_gpu_hour"),
    (lambda: request(margin=1), "margin"),
    (lambda: request().gpus_for(0), "requests_per_s"),
])
def test_bad_input_is_named(call, param):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == param


# ----------------------------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------------------------

MODELS = st.sampled_from(["llama-2-7b", "llama-3-8b", "mistral-7b", "mixtral-8x7b", "gemma-2-9b", "deepseek-v3"])
TOKENS = st.integers(1, 20_000)


@settings(max_examples=60, deadline=None)
@given(MODELS, TOKENS, TOKENS)
def test_the_matmul_part_of_prefill_is_linear_in_the_prompt(model, p, q):
    def matmul(n):
        return c.prefill_flops_for(model, n) - c.prefill_attention_flops_for(model, n)

    assert matmul(p + q) == pytest.approx(matmul(p) + matmul(q), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 50_000), st.integers(1, 64))
def test_each_prompt_token_attends_to_itself_and_those_before_it(p, batch):
    # The attention makes prefill superlinear: token P + 1 adds P + 1 query-key pairs, so the FLOPs' second
    # difference is one pair's cost, and compute-bound TTFT's is that over the peak at the efficiency.
    attention = [c.prefill_attention_flops_for("llama-2-7b", n) for n in (p, p + 1, p + 2)]
    assert attention[1] - attention[0] == pytest.approx(PER_KEY * (p + 1))
    ttft = [request(prompt_tokens=n, output_tokens=1, batch=batch).ttft_s for n in (p, p + 1, p + 2)]
    if p >= 100:   # past the few tokens whose prefill only reads the weights
        assert ttft[2] - 2 * ttft[1] + ttft[0] == pytest.approx(batch * PER_KEY / (PEAK * 0.4), rel=1e-4)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10_000))
def test_a_local_layer_attends_to_its_window_alone(p):
    window = 4096  # Mistral-7B's: past it each new token attends to 4,096 keys
    added = c.prefill_attention_flops_for("mistral-7b", p + 1) - c.prefill_attention_flops_for("mistral-7b", p)
    assert added == pytest.approx(PER_KEY * min(p + 1, window))


@settings(max_examples=40, deadline=None)
@given(MODELS, TOKENS, TOKENS, st.integers(1, 5000))
def test_the_largest_batch_falls_as_sequences_grow(model, p, o, more):
    gpu, tp = ("H200", 8) if model == "deepseek-v3" else ("A100 80GB", 1)
    weights = "int4" if model == "deepseek-v3" else "bf16"
    base = request(model, gpu, prompt_tokens=p, output_tokens=o, tp=tp, weights=weights).max_batch
    assert request(model, gpu, prompt_tokens=p + more, output_tokens=o, tp=tp, weights=weights).max_batch <= base
    assert request(model, gpu, prompt_tokens=p, output_tokens=o + more, tp=tp, weights=weights).max_batch <= base


@settings(max_examples=40, deadline=None)
@given(MODELS, st.integers(1, 4096), st.integers(1, 2048), st.integers(1, 512), st.integers(1, 512))
def test_more_batch_never_lowers_the_throughput(model, p, o, b, more):
    gpu, tp = ("H200", 8) if model == "deepseek-v3" else ("H100 SXM", 2 if model == "mixtral-8x7b" else 1)
    smaller = request(model, gpu, prompt_tokens=p, output_tokens=o, batch=b, tp=tp)
    larger = request(model, gpu, prompt_tokens=p, output_tokens=o, batch=b + more, tp=tp)
    assert larger.tokens_per_s >= smaller.tokens_per_s * (1 - 1e-12)
    assert larger.tpot_s >= smaller.tpot_s * (1 - 1e-12)   # but each sequence waits as long or longer


# ----------------------------------------------------------------------------------------------------------------
# llmest serve
# ----------------------------------------------------------------------------------------------------------------

def _serve(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(["serve", *argv])
        except SystemExit as exit_:
            status = exit_.code
    return status, out.getvalue(), err.getvalue()


def test_serve_gives_the_contract_keys_and_the_plan_figures():
    status, out, _ = _serve("llama-2-7b", "--gpu", "A100 80GB", "--prompt-tokens", "512", "--output-tokens", "256",
                            "--batch", "16", "--requests-per-s", "10", "--json")
    data = json.loads(out)
    assert status == 0
    assert {"ttft_s", "tpot_s", "tokens_per_s", "max_batch", "memory_per_gpu_bytes", "fits"} <= set(data)
    est = request(batch=16)
    assert (data["ttft_s"], data["tpot_s"], data["max_batch"], data["fits"]) == (est.ttft_s, est.tpot_s,
                                                                                 est.max_batch, est.fits)
    assert data["memory_per_gpu_bytes"] == est.memory_per_gpu_bytes and data["gpus_needed"] == est.gpus_for(10)


def test_serve_prints_a_table():
    status, out, _ = _serve("llama-2-7b", "--prompt-tokens", "512", "--output-tokens", "256", "--batch", "16")
    assert status == 0 and "TTFT" in out and "TPOT" in out and "max batch" in out and "per million input" in out


@pytest.mark.parametrize("argv, message", [
    (("--tp", "3"), "--tp: tp == 3 must divide the attention heads (32 % 3 != 0)."),
    (("--batch", "0"), "--batch: batch == 0, must be >= 1."),
    (("--prefill-efficiency", "1.5"), "--prefill-efficiency: prefill_efficiency == 1.5, must be in (0, 1]."),
    (("--gpu", "L4", "--price", "-1"), "--price: price_per_gpu_hour == -1, must be >= 0."),
    (("--block-tokens", "0"), "--block-tokens: block_tokens == 0, must be >= 1."),
])
def test_serve_names_a_bad_option(argv, message):
    status, _, err = _serve("llama-2-7b", "--prompt-tokens", "512", "--output-tokens", "256", *argv)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1
