"""Communication formulas against their definitions written out by hand: a ring collective's bytes as NCCL's tests
count them, Megatron-LM's all-reduces per layer, ring attention's K/V hops, and the pipeline schedules' bubbles."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from llmest import InputError, comm, hardware, memory


def test_a_ring_all_reduce_sends_twice_what_an_all_gather_does():
    # nccl-tests' doc/PERFORMANCE.md: busbw = algbw · 2(n − 1)/n for all-reduce, (n − 1)/n for all-gather,
    # reduce-scatter and all-to-all: the bytes each rank puts on its link.
    assert comm.all_reduce_bytes(8e9, 8) == 2 * 7 / 8 * 8e9 == 14e9
    assert comm.all_gather_bytes(8e9, 8) == 7e9
    assert comm.all_to_all_bytes(8e9, 4) == 6e9
    assert comm.all_reduce_bytes(1e9, 1) == comm.all_gather_bytes(1e9, 1) == 0


def test_the_formulas_are_symbolic():
    s, n = sp.symbols("S n", positive=True)
    assert sp.simplify(comm.all_reduce_bytes(s, n) - 2 * (n - 1) / n * s) == 0
    p, m, v = sp.symbols("p m v", positive=True)
    assert sp.simplify(comm.bubble_ratio(p, m, "interleaved", v) - (p - 1) / (v * m)) == 0


def test_data_parallel_traffic_agrees_with_chapter_2s_formula():
    # memory.data_parallel_traffic_bytes (chapter 2: 2Ψ, or 3Ψ for ZeRO-3) is the one-micro-batch case
    for zero in (0, 1, 3):
        assert comm.zero_traffic_bytes(7e9, 64, zero) == pytest.approx(
            memory.data_parallel_traffic_bytes(7e9, 2, zero, dp=64))


def test_zero_traffic_grows_with_the_micro_batches_only_where_it_repeats():
    one, eight = (comm.zero_traffic_bytes(1e9, 8, z, micro_batches=m) for z, m in ((1, 1), (1, 8)))
    assert one == eight  # one gradient all-reduce per step
    assert comm.zero_traffic_bytes(1e9, 8, 2, micro_batches=8) == 9 * 7 / 8 * 2e9
    assert comm.zero_traffic_bytes(1e9, 8, 3, micro_batches=8) == 3 * 8 * 7 / 8 * 2e9


def test_tensor_parallel_traffic_is_four_all_reduces_a_layer():
    # Megatron-LM (Shoeybi et al. 2019, §3): two all-reduces forward and two backward per transformer layer,
    # each of the layer's b × s × h output in 16 bits. Llama-2-7B, one sequence of 4,096 tokens, TP 8:
    per_all_reduce = 2 * 7 / 8 * (1 * 4096 * 4096 * 2)
    assert comm.tensor_parallel_bytes(1, 4096, 4096, 32, 8) == 32 * 4 * per_all_reduce
    assert comm.tensor_parallel_bytes(1, 4096, 4096, 32, 8, all_reduces=6) == 32 * 6 * per_all_reduce


def test_ring_attention_passes_each_kv_chunk_cp_minus_one_times_forward_and_twice_that_backward():
    # Llama-2-70B's 8 KV heads of 128, a sequence of 32,768 tokens over CP 4: each chunk holds 8,192 tokens
    chunk = 2 * 8192 * 8 * 128 * 2
    assert comm.context_parallel_bytes(1, 32768, 8, 128, 80, 4) == 80 * (3 + 6) * chunk
    assert comm.context_parallel_bytes(1, 32768, 8, 128, 80, 1) == 0


def test_pipeline_and_expert_traffic():
    assert comm.pipeline_parallel_bytes(1, 4096, 8192, tp=8) == 2 * 4096 * 8192 * 2 / 8
    # Mixtral-like: 32 MoE layers, top-2, EP 8: 4 all-to-alls a layer, 7/8 of the tokens leave the GPU
    assert comm.expert_parallel_bytes(1, 4096, 4096, 32, 8, 2) == 32 * 4 * 7 / 8 * 4096 * 2 * 4096 * 2


@pytest.mark.parametrize("p, m", [(4, 12), (8, 8), (8, 64), (2, 1)])
def test_the_1f1b_bubble_is_chapter_2s_idle_share(p, m):
    ratio = comm.bubble_ratio(p, m, "1f1b")
    assert ratio == (p - 1) / m == comm.bubble_ratio(p, m, "gpipe")
    assert ratio / (1 + ratio) == pytest.approx(memory.pipeline_bubble(p, m))


def test_the_schedules_order_their_bubbles():
    # Narayanan et al. 2021 §2.2.2: interleaving with v chunks divides the bubble by v; Qi et al. 2024: ZB-H1 has a
    # third of 1F1B's bubble when forward, input-gradient and weight-gradient passes take equal time; ZB-H2 none.
    one = comm.bubble_ratio(8, 16, "1f1b")
    assert comm.bubble_ratio(8, 16, "interleaved", virtual_stages=4) == one / 4
    assert comm.bubble_ratio(8, 16, "zb-h1") == pytest.approx(one / 3)
    assert comm.bubble_ratio(8, 16, "zb-h2") == 0
    # DualPipe's README table: (PP/2 − 1)(F&B + B − 3W); at F, B, W = 1, 2, 1 and F&B = F + B, 3 × 2 = 6 chunk-units
    # idle against 1F1B's (PP − 1)(F + B) = 21: less than a third of 1F1B's, on an even number of stages only.
    assert comm.bubble_ratio(8, 16, "dualpipe") == pytest.approx(6 / (3 * 16)) == pytest.approx(one * 6 / 21)
    with pytest.raises(InputError, match="stages == 7, must be even"):
        comm.bubble_ratio(7, 16, "dualpipe")


def test_held_micro_batches_by_schedule():
    assert comm.micro_batches_held(8, 32, "gpipe") == 32
    assert comm.micro_batches_held(8, 32, "1f1b") == 8
    assert comm.micro_batches_held(8, 4, "1f1b") == 4
    assert comm.micro_batches_held(8, 32, "zb-h2") == 16
    # DualPipe's README table: activations of PP + 1 micro-batches, never more than there are
    assert comm.micro_batches_held(8, 32, "dualpipe") == 9 and comm.micro_batches_held(8, 4, "dualpipe") == 4
    held = comm.micro_batches_held(np.array([4, 8, 16]), np.array([8, 8, 8]))
    assert held.tolist() == [4, 8, 8]


def test_bad_schedules_and_degrees_are_refused_by_name():
    with pytest.raises(InputError) as err:
        comm.bubble_ratio(4, 8, "pipedream")
    assert err.value.param == "schedule" and "'1f1b'" in str(err.value)
    with pytest.raises(InputError) as err:
        comm.all_reduce_bytes(1e9, 0)
    assert err.value.param == "gpus"


@settings(max_examples=200, deadline=None)
@given(size=st.floats(1, 1e12), n=st.integers(1, 4096))
def test_a_collective_never_sends_more_than_its_bound(size, n):
    assert 0 <= comm.all_gather_bytes(size, n) < size
    assert comm.all_reduce_bytes(size, n) == pytest.approx(2 * comm.all_gather_bytes(size, n))


def test_every_gpu_has_its_links_and_nvlink_beats_the_network():
    for g in hardware.CATALOG.values():
        net = g.network
        assert net.gpus_per_node >= 1 and net.source
        assert net.intra_node_bytes_per_s > net.inter_node_bytes_per_s > 0, g.name
    # per direction: half of the datasheet's bidirectional NVLink figure
    for name in ("A100 80GB", "H100 SXM", "B200"):
        g = hardware.gpu(name)
        assert g.network.intra_node_bytes_per_s == g.interconnect_bytes_per_s / 2
