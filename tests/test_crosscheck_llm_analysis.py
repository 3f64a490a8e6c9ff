"""llm-analysis (github.com/cli99/llm-analysis, commit d841e40, run on its own Llama-2-7B config with all
efficiencies at 1) as a cross-check where it counts the same thing: its per-layer tensor-parallel all-reduces and
ZeRO-3 all-gathers over NVLink. Its figures are recorded here, as it needs packages the workbook does not install
(fire, termcolor). Where it counts differently, the tests say so rather than compare: it has no gradient
all-reduce or reduce-scatter and no pipeline bubble in its step time, and counts backward traffic as twice the
forward's."""

import pytest

from llmest import comm, hardware, model, params

LLAMA7 = model.preset("llama-2-7b")
NVLINK = hardware.gpu("A100 80GB").network.intra_node_bytes_per_s  # its a100-sxm-80gb intra_node: 300 GB/s
# llm-analysis, train(): Llama-2-7B, 8 × A100-SXM-80GB, sequence 4,096, micro-batch 1, flash attention
LLM_ANALYSIS_TP8_FWD_COMM_S = 12.527e-3          # "latency_fwd_tp_comm", TP 8, DP 1
LLM_ANALYSIS_ZERO3_FWD_ALLGATHER_S = 37.58e-3    # "latency_fwd_sharded_dp_comm", ZeRO-3 over DP 8


def test_the_forward_tensor_parallel_all_reduces_agree():
    # two all-reduces a layer forward (after attention, after the FFN), 32 layers
    ours = comm.tensor_parallel_bytes(1, 4096, 4096, 32, 8, all_reduces=2) / NVLINK
    assert ours == pytest.approx(LLM_ANALYSIS_TP8_FWD_COMM_S, rel=2e-3)


def test_the_zero3_forward_all_gathers_agree():
    # each layer's weights gathered once for the forward, in 16 bits, over 8 GPUs. llm-analysis's Llama config
    # has an ungated FFN of 16,384 (2 matrices) where Llama-2-7B has a gated one of 11,008 (3): 0.6% more weights.
    layer = params.layer_params(4096, 32, 32, 128, 11008, gated=True, norm="rmsnorm")
    ours = 32 * comm.all_gather_bytes(layer * 2, 8) / NVLINK
    assert ours == pytest.approx(LLM_ANALYSIS_ZERO3_FWD_ALLGATHER_S, rel=0.01)


def test_where_it_differs_a_step_has_backward_traffic_and_a_gradient_reduction():
    # the whole step's ZeRO-3 traffic: the gather for the forward and again for the backward, and a reduce-scatter
    # of the gradients, three times the forward's gather (ZeRO paper, §7.2.2), which llm-analysis does not add
    layer = params.layer_params(4096, 32, 32, 128, 11008, gated=True, norm="rmsnorm")
    step = comm.zero_traffic_bytes(32 * layer, 8, zero=3)
    assert step == pytest.approx(3 * 32 * comm.all_gather_bytes(layer * 2, 8))


# llm-analysis, inference(): Llama-2-7B on one A100-SXM-80GB, BF16, batch 1, a prompt of 512 and 128 new tokens,
# every efficiency at 1 (its defaults)
LLM_ANALYSIS_PREFILL_S = 22.407e-3
LLM_ANALYSIS_DECODE_PER_TOKEN_S = 6.779e-3


def test_serving_latency_agrees_with_its_roofline():
    from llmest import plans

    est = plans.estimate_request("llama-2-7b", "A100 80GB", prompt_tokens=512, output_tokens=128, batch=1,
                                 prefill_efficiency=1.0)
    # Prefill: both count 2·N·P at the peak; llm-analysis adds the whole S × S attention square (the causal half
    # here), the embedding table's read and the logits' compute: 2% more.
    assert est.ttft_s == pytest.approx(LLM_ANALYSIS_PREFILL_S, rel=0.03)
    assert est.ttft_s < LLM_ANALYSIS_PREFILL_S
    # Decode: both read the weights each step at the HBM bandwidth; llm-analysis reads the KV cache twice ("load and
    # store") at its final length where one read at the mean length is right, and skips the output head's read.
    assert est.tpot_s == pytest.approx(LLM_ANALYSIS_DECODE_PER_TOKEN_S, rel=0.01)
