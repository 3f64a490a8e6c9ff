"""The scale-up domain of a row: a GB200 NVL72 rack is one NVLink domain of 72 GPUs, so the layout search keeps a
tensor-parallel group of 16 or an expert-parallel group of 64 on NVLink there, where on H100 SXM (8 GPUs a node)
the same group crosses nodes."""

from dataclasses import replace

import pytest

from llmest import hardware, plans
from llmest.plans import layout_time
from llmest.plans.layout_assumptions import NETWORK_EFFICIENCY, NVLINK_EFFICIENCY


def _domain(name, gpus_per_node):
    """The row with its scale-up domain set to ``gpus_per_node`` GPUs, everything else as it is."""
    g = hardware.gpu(name)
    return replace(g, network=replace(g.network, gpus_per_node=gpus_per_node))


def test_an_nvl72_rack_is_one_nvlink_domain_of_72():
    for name in ("GB200 NVL72", "GB300 NVL72"):
        net = hardware.gpu(name).network
        assert net.gpus_per_node == 72 and net.intra_node_bytes_per_s == 900e9   # 1.8 TB/s both ways
    assert hardware.gpu("H100 SXM").network.gpus_per_node == hardware.gpu("B300").network.gpus_per_node == 8


def test_an_ep64_all_to_all_runs_over_nvlink_on_gb200_and_mostly_over_the_network_on_h100():
    gb200, h100 = hardware.gpu("GB200 NVL72").network, hardware.gpu("H100 SXM").network
    # seconds per byte: all 63 peers over NVLink on the rack ...
    assert layout_time._all_to_all(gb200, 1, 64) == pytest.approx(1 / (NVLINK_EFFICIENCY * 900e9))
    # ... and 56 of 63 through the GPU's own 400 Gb/s port on H100 SXM (7 in its node)
    assert layout_time._all_to_all(h100, 1, 64) == pytest.approx(56 / 63 / (NETWORK_EFFICIENCY * 50e9))
    assert layout_time._in_node(1, 16, gb200.gpus_per_node) and not layout_time._in_node(1, 16, h100.gpus_per_node)


def test_a_group_larger_than_a_rack_is_split_in_equal_shares():
    gb200 = hardware.gpu("GB200 NVL72").network
    members, nodes = layout_time._members(gb200, 1, 128)
    assert (members, nodes) == (64, 2)                  # 64 + 64, not 72 + 56 counted as one rack
    assert layout_time._members(hardware.gpu("H100 SXM").network, 1, 64) == (8, 8)


def test_ep64_stays_on_nvlink_on_gb200_nvl72_and_crosses_nodes_on_h100_sxm():
    layout = dict(tp=1, cp=1, pp=1, dp=64, ep=64, zero=1, micro_batch=1, recompute="full", tp_in_node=True, vp=1)

    def ep_s(gpu):
        return plans.search_layouts("qwen3-30b-a3b", 64, gpu=gpu, seq_len=4096).find(**layout)["ep_s"]

    rack = ep_s("GB200 NVL72")
    assert rack == pytest.approx(ep_s(_domain("GB200 NVL72", 64)))       # a domain of 64 or 72: the same, NVLink
    assert ep_s(_domain("GB200 NVL72", 8)) > 5 * rack                  # eight to a node: through the network
    h100 = ep_s("H100 SXM")
    assert h100 > 5 * ep_s(_domain("H100 SXM", 64))


def test_tp16_stays_on_nvlink_on_gb200_nvl72_and_crosses_nodes_on_h100_sxm():
    layout = dict(tp=16, cp=1, pp=1, dp=4, zero=3, micro_batch=1, recompute="full", ep=1, vp=1)
    rack = plans.search_layouts("llama-3.1-70b", 64, gpu="GB200 NVL72", seq_len=4096)
    found = rack.find(tp_in_node=True, **layout)
    assert found["tp_s"] == pytest.approx(plans.search_layouts(
        "llama-3.1-70b", 64, gpu=_domain("GB200 NVL72", 16), seq_len=4096).find(tp_in_node=True, **layout)["tp_s"])
    assert found["tp_s"] < plans.search_layouts("llama-3.1-70b", 64, gpu=_domain("GB200 NVL72", 8),
                                                seq_len=4096).find(**layout)["tp_s"]
    # H100 SXM: 16 > 8 GPUs a node, so the only placement of a TP=16 ring is across nodes
    h100 = plans.search_layouts("llama-3.1-70b", 64, gpu="H100 SXM", seq_len=4096)
    assert h100.find(**layout)["tp_in_node"] is False
