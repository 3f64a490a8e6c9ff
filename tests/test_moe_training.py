"""A mixture of experts' training step (llmest.plans.moe_plan) held to DeepSeek-V3's published cost, its all-to-all
bytes and DualPipe's bubble to their published formulas, and expert parallelism in the memory plan and the search."""

import pytest

from llmest import InputError, plans
from llmest.formulas import moe_comm
from llmest.formulas.model import count_params, preset
from llmest.plans import layout_assumptions, moe_plan
from llmest.plans.findings import moe as findings
from llmest.plans.precision_time import low_precision_efficiency

# DeepSeek-V3 report (arXiv 2412.19437) §1: "each trillion tokens requires only 180K H800 GPU hours".
PUBLISHED_GPU_HOURS_PER_TRILLION = 180_000


def test_deepseek_v3_cost_within_15_percent_of_the_published_figure():
    step = moe_plan.deepseek_v3()
    assert step["gpu_hours_per_trillion"] == pytest.approx(PUBLISHED_GPU_HOURS_PER_TRILLION, rel=0.15)
    # The published step: 15,360 × 4,096 tokens at 1e12 / (180K × 3,600) tokens a GPU-second over 2,048 GPUs.
    assert step["step_s"] == pytest.approx(15360 * 4096 / (1e12 / (180e3 * 3600) * 2048), rel=0.15)


def test_the_terms_add_up_to_the_step():
    f = moe_plan.deepseek_v3().figures
    compute = f["low_precision_s"] + f["bf16_s"] + f["communication_sms_s"]
    assert compute == pytest.approx(f["balanced_compute_s"])
    assert compute + f["stage_imbalance_s"] + f["imbalance_s"] == pytest.approx(f["compute_s"])
    assert f["compute_s"] + f["bubble_s"] + f["exposed_all_to_all_s"] + f["exposed_dp_s"] == \
        pytest.approx(f["step_s"])
    assert 0 < f["exposed_all_to_all_s"] < f["all_to_all_s"]


def test_deepseek_kernels_fp8_rate_from_deepgemm():
    # DeepGEMM's V3 shapes on H800, each over its speedup against the kernels before it, weighted by a MoE layer's
    # FLOPs: about 1,020 TFLOPS for the GEMMs alone (51.5% of the 1,979 FP8 peak).
    assert layout_assumptions._GEMM_FLOPS_PER_S == pytest.approx(1.020e15, rel=0.005)
    # With the other kernels a layer runs, DeepSeek's fine-grained FP8 reaches less of its peak than Transformer
    # Engine's per-tensor FP8 that precision_time fits, but its work still runs faster than BF16's.
    fitted = low_precision_efficiency("fp8-te", "H800")
    assert 0.5825 * 989.4 / 1979 < moe_plan.DEEPSEEK_FP8_EFFICIENCY < fitted
    generic = moe_plan.deepseek_v3(low_efficiency=None)
    assert generic["low_precision_flops_per_s"] == pytest.approx(fitted * 1979e12)
    assert generic["step_s"] < moe_plan.deepseek_v3()["step_s"]


def test_the_finding_shows_the_published_figure_beside_the_model():
    found = findings.deepseek_v3_cost()
    assert found["published_gpu_hours_per_trillion"] == PUBLISHED_GPU_HOURS_PER_TRILLION
    assert abs(found["difference"]) < 0.15
    assert found["published_mfu"] == pytest.approx(0.439, abs=0.001)   # the comparison table's published MFU
    assert "180,000" in str(found) and "DeepSeek-V3" in str(found)
    worse = {row["change"]: row["gpu_hours_per_trillion"] for row in found["undone"]}
    generic = worse.pop("per-tensor fp8")       # the recipe's generic FP8 rate: faster, and still within 15%
    assert min(worse.values()) > found["figures"]["gpu_hours_per_trillion"] > generic
    assert generic == pytest.approx(PUBLISHED_GPU_HOURS_PER_TRILLION, rel=0.15)


def test_node_limited_routing_bytes_as_deepseek_sends_them():
    # EP 64 over 8 nodes of 8: a token goes to at most 4 nodes, its own 1/2 of the time: 3.5 network sends, against
    # 8 · 56/64 = 7 copies sent apart.
    assert moe_comm.network_sends_per_token(8, 64, 8, 4) == pytest.approx(3.5)
    assert moe_comm.network_sends_per_token(8, 64, 8) == pytest.approx(7)
    assert moe_comm.nvlink_sends_per_token(8, 64, 8, 4) == pytest.approx(7)
    assert moe_comm.network_sends_per_token(8, 8, 8, 4) == 0
    # DeepEP's FP8 dispatch of a 7,168-wide token: 7,168 bytes and a 4-byte scale per 128 = 7,392 bytes; combine in
    # BF16, 14,336; dispatch and combine twice (forward, backward) for each of the 3.5 nodes.
    assert moe_comm.all_to_all_bytes_per_token(7168, 3.5, 1 + 4 / 128, 2) == pytest.approx(2 * 3.5 * (7392 + 14336))


def test_dualpipe_bubble_as_its_readme_tabulates_it():
    # (PP/2 − 1)(F&B + B − 3W) with F&B = F + B: PP 8, F 1, B 2, W 1 gives 3 · (3 + 2 − 3) = 6; 1F1B's
    # (PP − 1)(F + B) would be 21.
    assert moe_comm.dualpipe_bubble_seconds(8, 1.0, 2.0, 1.0) == pytest.approx(6)
    assert moe_comm.dualpipe_bubble_seconds(8, 1.0, 2.0, 1.0, overlapped_s=2.5) == pytest.approx(4.5)
    assert moe_comm.dualpipe_bubble_seconds(2, 1.0, 2.0, 1.0) == 0
    with pytest.raises(InputError, match="stages"):
        moe_comm.dualpipe_bubble_seconds(7, 1.0, 2.0, 1.0)
    assert moe_comm.dualpipe_bubble_seconds(8, 1.0, 2.0, 2.0) == 0        # never below none


def test_what_each_choice_is_worth():
    base = moe_plan.deepseek_v3()["step_s"]
    assert moe_plan.deepseek_v3(schedule="1f1b")["step_s"] > base          # the all-to-all on the critical path
    assert moe_plan.deepseek_v3(precision="bf16")["step_s"] > base
    assert moe_plan.deepseek_v3(nodes_per_token=None)["all_to_all_s"] == pytest.approx(
        2 * moe_plan.deepseek_v3()["all_to_all_s"])                           # 7 network copies against 3.5
    assert moe_plan.deepseek_v3(imbalance=1.0)["step_s"] < base < moe_plan.deepseek_v3(imbalance=1.25)["step_s"]
    assert moe_comm.imbalanced_seconds(10.0, 1.2, 0.5) == pytest.approx(11.0)


@pytest.mark.parametrize("kwargs, param", [
    (dict(model="llama-2-7b"), "model"), (dict(ep=48), "ep"), (dict(pp=15, gpus=2040), "pp"),
    (dict(ep=256), "ep"), (dict(imbalance=0.9), "imbalance"), (dict(nodes_per_token=9), "nodes_per_token"),
    (dict(precision="nvfp4"), "precision"), (dict(schedule="gpipe"), "schedule"),
    (dict(global_batch_tokens=4096 * 100), "global_batch_tokens"),
])
def test_bad_layouts_are_refused_by_name(kwargs, param):
    with pytest.raises(InputError) as err:
        moe_plan.moe_step(**{**moe_plan.DEEPSEEK_V3, **kwargs})
    assert err.value.param == param


def test_memory_per_gpu_divides_the_experts_by_ep():
    cfg = preset("mixtral-8x7b")
    counts = count_params(cfg)
    one, eight = (plans.training_memory(cfg, zero=0, dp=8, ep=ep) for ep in (1, 8))
    states = ("weights", "master", "gradients", "optimizer")
    saved = sum(one[p] for p in states) - sum(eight[p] for p in states)
    per_param = sum(one[p] for p in states) / counts.total
    assert saved == pytest.approx(counts.parts["experts"] * (1 - 1 / 8) * per_param)


def test_the_search_varies_ep_for_a_mixture_of_experts():
    found = plans.search_layouts("mixtral-8x7b", 32, "H100 SXM", 4096, 256 * 4096, micro_batch_sizes=(1,),
                                 zero_stages=(1,), recomputations=("full",))
    assert set(found.columns["ep"].tolist()) == {1, 2, 4, 8}
    assert found.best["ep"] > 1
    assert set(plans.search_layouts("llama-2-7b", 8, "H100 SXM", 4096, 64 * 4096).columns["ep"].tolist()) == {1}
