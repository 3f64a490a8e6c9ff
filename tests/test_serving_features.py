"""Speculative decoding and MTP, the KV cache's precision and offload, and MoE decoding (formulas.speculative,
formulas.moe_serving, catalog.host_links, plans.decode_step, plans.serving_features): answers worked by hand, the
plain roofline of decode_estimate kept, and bad input refused by name."""

from __future__ import annotations

import math

import pytest
import sympy

from llmest import InputError
from llmest.book.edition import english_prose
from llmest.catalog.host_links import HOST_LINKS, host_link
from llmest.core.i18n import speaking
from llmest.formulas.kv_cache import kv_cache_bytes_for
from llmest.formulas.moe_serving import decode_all_to_all_bytes_per_token, distinct_experts, moe_bytes_read
from llmest.formulas.speculative import (MTP_ACCEPTANCE, MTP_SPEEDUP, speculative_speedup, speculative_step_seconds,
                                         step_cost_for_speedup, tokens_per_step)
from llmest.plans.decode_step import decode_step
from llmest.plans.serving_features import kv_cache_options, kv_offload, link_seconds, moe_decode, speculative_decode
from llmest.plans.serving_plan import decode_estimate, estimate_request

# DeepSeek-V3's routed experts, one each: gate, up and down projections of 7,168 × 2,048 (config.json:
# hidden_size 7168, moe_intermediate_size 2048), on 58 MoE layers of 256 experts.
DSV3_EXPERT = 3 * 7168 * 2048
DSV3_OUTSIDE_EXPERTS = 671_026_404_352 - 58 * 256 * DSV3_EXPERT


# ----------------------------------------------------------------------------------------------------------------
# Formulas
# ----------------------------------------------------------------------------------------------------------------

def test_tokens_per_step_is_leviathans_geometric_sum():
    assert tokens_per_step(0.8, 4) == pytest.approx(1 + 0.8 + 0.64 + 0.512 + 0.4096)   # 3.3616
    assert tokens_per_step(0.8, 4) == pytest.approx((1 - 0.8 ** 5) / 0.2)
    assert tokens_per_step(0, 5) == 1                      # nothing accepted: the target's own token
    assert tokens_per_step(1, 5) == 6                      # everything accepted: k + 1
    assert tokens_per_step(0.85, 1) == pytest.approx(1.85)  # MTP drafts one token: 1 + α
    a, k = sympy.symbols("alpha k", positive=True)
    assert sympy.simplify(tokens_per_step(a, 3) - (1 + a + a**2 + a**3)) == 0


def test_the_step_and_the_speedup():
    assert speculative_step_seconds(10e-3, 2e-3, 3) == pytest.approx(16e-3)
    # a target step of 10 ms, its verification no longer, a draft of 0.5 ms: 1.85 × 10 / 10.5
    assert speculative_speedup(0.85, 1, 10e-3, 10e-3, 0.5e-3) == pytest.approx(1.85 * 10 / 10.5)
    # DeepSeek-V3's 1.8× from 85-90%: a step costs 1.85/1.8 to 1.90/1.8 plain steps
    assert step_cost_for_speedup(MTP_ACCEPTANCE[0], 1, MTP_SPEEDUP) == pytest.approx(1.85 / 1.8)
    assert step_cost_for_speedup(MTP_ACCEPTANCE[1], 1, MTP_SPEEDUP) == pytest.approx(1.90 / 1.8)


@pytest.mark.parametrize("call, name", [
    (lambda: tokens_per_step(1.2, 2), "acceptance"), (lambda: tokens_per_step(0.5, 0), "draft_tokens"),
    (lambda: speculative_step_seconds(0, 1e-3, 1), "verify_s"), (lambda: distinct_experts(8, 9, 4), "top_k"),
    (lambda: distinct_experts(8, 2, 0), "tokens"), (lambda: host_link("PCIe 9"), "link")])
def test_bad_input_is_refused_by_name(call, name):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == name


def test_distinct_experts_worked_by_hand():
    assert distinct_experts(256, 8, 1) == pytest.approx(8)
    assert distinct_experts(256, 8, 2) == pytest.approx(256 * (1 - (31 / 32) ** 2))       # 15.75
    assert distinct_experts(8, 2, 1) == pytest.approx(2)
    assert distinct_experts(256, 8, 10_000) == pytest.approx(256)                          # every expert
    assert distinct_experts(256, 8, 64) < distinct_experts(256, 8, 128) < 256
    b = sympy.symbols("b", positive=True)
    assert sympy.simplify(distinct_experts(4, 2, b) - 4 * (1 - sympy.Rational(1, 2) ** b)) == 0


def test_moe_bytes_and_the_all_to_all_worked_by_hand():
    assert moe_bytes_read(1e9, 1e6, 4, 2, 1, 10) == pytest.approx(1e9 + 10 * 2 * 1e6)
    assert decode_all_to_all_bytes_per_token(7168, 1, 58, 1, 2) == 58 * 7168 * 3
    # DeepSeek-V3's dispatch in FP8 with a 4-byte scale per 128 values, combine in BF16
    assert decode_all_to_all_bytes_per_token(7168, 2, 58) == pytest.approx(58 * 2 * 7168 * (1 + 4 / 128 + 2))


def test_host_links_are_one_direction_of_the_datasheets():
    assert HOST_LINKS["PCIe 5.0 x16"].bytes_per_s == 64e9       # H100 datasheet: PCIe Gen5 128 GB/s both ways
    assert HOST_LINKS["NVLink-C2C"].bytes_per_s == 450e9        # Grace Hopper: 900 GB/s both ways
    assert link_seconds(64e9, "PCIe 5.0 x16") == pytest.approx(1.0)


# ----------------------------------------------------------------------------------------------------------------
# The decoding step
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, gpu, batch, seq_len, tp", [
    ("llama-2-70b", "H100 SXM", 8, 4096, 4), ("llama-3-8b", "A100 80GB", 64, 2048, 1),
    ("deepseek-v3", "H800", 32, 4096, 8), ("mixtral-8x7b", "H100 SXM", 1, 1024, 2)])
def test_with_its_defaults_the_step_is_decode_estimates(model, gpu, batch, seq_len, tp):
    ours = decode_step(model, gpu, batch=batch, seq_len=seq_len, tp=tp)
    theirs = decode_estimate(model, gpu, batch=batch, seq_len=seq_len, tp=tp, with_attention=True)
    assert ours.step_s == theirs.step_seconds
    assert ours.memory_s == pytest.approx(theirs.memory_seconds) and ours.compute_s == pytest.approx(
        theirs.compute_seconds)


def test_fp8_halves_the_compute_and_a_verification_reads_the_cache_once():
    bf16 = decode_step("llama-2-70b", "H100 SXM", batch=256, seq_len=1024, tp=4)
    fp8 = decode_step("llama-2-70b", "H100 SXM", batch=256, seq_len=1024, tp=4, matmul="fp8")
    assert fp8.compute_s == pytest.approx(bf16.compute_s * 989.4 / 1979)
    verify = decode_step("llama-2-70b", "H100 SXM", batch=256, seq_len=1024, tp=4, tokens_per_sequence=3)
    assert verify.kv_bytes == bf16.kv_bytes and verify.weight_bytes == bf16.weight_bytes
    assert verify.flops == pytest.approx(3 * bf16.flops)
    with pytest.raises(InputError) as err:
        decode_step("llama-2-70b", "A100 80GB", matmul="fp8")
    assert err.value.param == "matmul"
    with pytest.raises(InputError) as err:
        decode_step("llama-2-70b", "H100 SXM", ep=8)
    assert err.value.param == "ep"


def test_a_batch_of_one_reads_its_own_experts_only():
    one = decode_step("deepseek-v3", "H800", batch=1, routed="batch")
    assert one.experts_read == pytest.approx(8)
    assert one.weight_bytes == pytest.approx(2 * (DSV3_OUTSIDE_EXPERTS + 58 * 8 * DSV3_EXPERT))
    every = decode_step("deepseek-v3", "H800", batch=1)
    assert every.weight_bytes == pytest.approx(2 * 671_026_404_352)
    # expert parallelism: each GPU holds 256/144 of a layer's experts and brings its own batch
    ep = decode_step("deepseek-v3", "H800", batch=1, routed="batch", ep=144, weights="int8")
    assert ep.experts_read == pytest.approx(distinct_experts(256, 8, 144))
    assert ep.network_s > 0 and ep.nvlink_s > 0


def test_moe_decode_reads_more_experts_as_the_batch_grows():
    moe = moe_decode("deepseek-v3", "H800", batches=(1, 8, 64, 512), tp=8, weights="int8", matmul="fp8")
    read = [row["experts_read"] for row in moe.rows]
    assert read == sorted(read) and read[0] == pytest.approx(8) and read[-1] == pytest.approx(256, rel=1e-3)
    assert all(row["step_s"] <= row["all_step_s"] for row in moe.rows)
    with pytest.raises(InputError) as err:
        moe_decode("llama-2-70b", "H100 SXM")
    assert err.value.param == "model"


# ----------------------------------------------------------------------------------------------------------------
# Speculative decoding and MTP
# ----------------------------------------------------------------------------------------------------------------

def test_a_memory_bound_verification_costs_about_a_plain_step():
    spec = speculative_decode("llama-2-70b", "H100 SXM", acceptance=0.8, draft="llama-2-7b", draft_tokens=4,
                              batch=1, seq_len=1024, tp=4)
    assert spec.verify.step_s == pytest.approx(spec.plain.step_s)      # 5 tokens of 1: still the weights' read
    draft = decode_step("llama-2-7b", "H100 SXM", batch=1, seq_len=1024, tp=4)
    assert spec.draft_step_s == pytest.approx(draft.step_s)
    assert spec.step_s == pytest.approx(spec.verify.step_s + 4 * draft.step_s)
    assert spec.speedup == pytest.approx(tokens_per_step(0.8, 4) * spec.plain.step_s / spec.step_s)


def test_mtp_gives_less_than_its_tokens_a_step_and_a_model_without_it_is_refused():
    spec = speculative_decode("deepseek-v3", "H800", acceptance=0.85, batch=16, seq_len=4096, weights="int8",
                              matmul="fp8", routed="batch", ep=144)
    assert 1 < spec.speedup < 1.85
    with pytest.raises(InputError) as err:
        speculative_decode("llama-2-70b", "H100 SXM", acceptance=0.8, tp=4)
    assert err.value.param == "draft"


# ----------------------------------------------------------------------------------------------------------------
# The KV cache's precision and offload
# ----------------------------------------------------------------------------------------------------------------

def test_fp8_kv_holds_twice_the_batch_at_the_same_step():
    opts = kv_cache_options("llama-2-70b", "H100 SXM", prompt_tokens=2048, output_tokens=512, tp=4)
    bf16, fp8 = opts.rows
    assert fp8["bytes_per_token"] == bf16["bytes_per_token"] / 2 == 320 * 1024 / 4 / 2
    assert fp8["max_batch"] in (2 * bf16["max_batch"], 2 * bf16["max_batch"] + 1)
    assert fp8["tpot_at_first_batch_s"] < bf16["tpot_at_first_batch_s"]
    # Twice the batch reads the same cache bytes: the steps differ by tensor parallelism's all-reduces alone, whose
    # bytes grow with the batch; on one GPU there are none, and twice the batch is twice the tokens.
    def all_reduce(batch):
        return estimate_request("llama-2-70b", "H100 SXM", prompt_tokens=2048, output_tokens=512, tp=4, batch=batch,
                                all_reduce=True).decode.all_reduce_seconds
    assert fp8["tpot_s"] - bf16["tpot_s"] == pytest.approx(all_reduce(fp8["max_batch"]) - all_reduce(bf16["max_batch"]),
                                                           rel=1e-6)
    one_bf16, one_fp8 = kv_cache_options("llama-2-7b", "H100 SXM", prompt_tokens=2048, output_tokens=512).rows
    assert one_fp8["tokens_per_s"] == pytest.approx(2 * one_bf16["tokens_per_s"], rel=0.01)
    with pytest.raises(InputError) as err:
        kv_cache_options("llama-2-70b", "H100 SXM", prompt_tokens=2048, output_tokens=512, kv_dtypes=["fp4"])
    assert err.value.param == "kv_dtypes" and "kv_dtypes[0]" in str(err.value)


def test_bringing_a_cache_back_worked_by_hand():
    off = kv_offload("llama-2-70b", "H100 SXM", context_tokens=32768, tp=4, bandwidth_bytes_per_s=7e9)
    cache = kv_cache_bytes_for("llama-2-70b", 32768) / 4       # 320 KiB a token, its 8 KV heads over 4 GPUs
    assert off.cache_bytes == cache == 32768 * 320 * 1024 / 4
    links = {name: seconds for name, _, seconds in off.links}
    assert links["PCIe 5.0 x16"] == pytest.approx(cache / 64e9) and links["given"] == pytest.approx(cache / 7e9)
    assert all(seconds < off.recompute_s for seconds in links.values())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_result_shows_itself(lang):
    results = [decode_step("deepseek-v3", "H800", batch=16, routed="batch", ep=144, weights="int8"),
               speculative_decode("deepseek-v3", "H800", acceptance=0.9, batch=8, weights="int8", ep=144),
               kv_cache_options("llama-3-8b", "H100 SXM", prompt_tokens=1024, output_tokens=256),
               kv_offload("deepseek-v3", "H800", context_tokens=8192, tp=8, weights="int8"),
               moe_decode("deepseek-v3", "H800", batches=(1, 64), tp=8, weights="int8")]
    with speaking(lang):
        for result in results:
            text, page, data = str(result), result._repr_html_(), result.to_dict()
            assert text and page.startswith("<div") and data
            assert all(not (isinstance(x, float) and math.isnan(x)) for x in data.values())
            if lang == "zh":
                assert english_prose(text) == [], text
