"""ZeRO's buffers, CPU offload, expert and context parallelism: DeepSpeed's own estimators as known answers, and
properties (offload, ep and cp never add GPU memory)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmest as le
from llmest import plans
from llmest import zero as z

LLAMA = le.preset("llama-2-7b")
N = le.count_params(LLAMA).total                       # 6,738,415,616
LARGEST = LLAMA.vocab_size * LLAMA.hidden_size         # the embedding (and the head): 131,072,000


# DeepSpeed's estimators, as written in deepspeed/runtime/zero/stage_1_and_2.py (estimate_zero2_model_states_mem_needs)
# and stage3.py (estimate_zero3_model_states_mem_needs) of deepspeedai/DeepSpeed at commit edaa722, with their
# defaults (additional_buffer_factor=1.5, zero_init=True). They return (CPU bytes per node, GPU bytes per GPU).
def deepspeed_zero2(total_params, gpus_per_node, nodes, cpu_offload, factor=1.5):
    total_gpus = nodes * gpus_per_node
    if cpu_offload:
        return total_params * max(4 * total_gpus, 16) * factor, 2 * total_params
    return total_params * 4 * gpus_per_node * factor, 2 * total_params + int(18 * total_params / total_gpus)


def deepspeed_zero3(total_params, largest, gpus_per_node, nodes, cpu_offload, cpu_offload_params, factor=1.5):
    total_gpus = nodes * gpus_per_node
    if cpu_offload:
        if cpu_offload_params:
            return total_params * 18 / nodes * factor, 4 * largest
        return total_params * 16 / nodes * factor, 4 * largest + int(2 * total_params / total_gpus)
    return largest * 4 * gpus_per_node * factor, 4 * largest + int(18 * total_params / total_gpus)


def states(memory):
    return sum(memory.parts[p] for p in ("weights", "master", "gradients", "optimizer"))


def test_largest_module_is_deepspeeds_largest_layer():
    assert plans.largest_module_params(LLAMA) == LARGEST == 131_072_000


@pytest.mark.parametrize("gpus", [4, 8])
def test_zero2_with_offload_matches_deepspeeds_estimate(gpus):
    cpu_node, gpu = deepspeed_zero2(N, gpus, 1, cpu_offload=True)
    ours = plans.training_memory(LLAMA, zero=2, dp=gpus, offload="optimizer")
    # GPU: the BF16 weights alone, 2 bytes a parameter; DeepSpeed's figure leaves the reduce bucket out.
    assert states(ours) == gpu
    assert ours["buffers"] == 5e8 * 2
    # CPU: fp32 master, gradients and Adam's two moments, 16 bytes a parameter over the node. DeepSpeed multiplies by
    # its margin of 1.5 and takes at least 4 bytes a parameter per GPU: each process loads the fp32 model before
    # ZeRO partitions it (a start-up peak; at 8 GPUs 32 > 16 bytes, so its figure is twice ours times 1.5).
    assert ours.cpu_per_node(gpus) == pytest.approx(16 * N)
    assert cpu_node == pytest.approx(ours.cpu_per_node(gpus) * 1.5 * max(4 * gpus, 16) / 16)


def test_zero2_without_offload_differs_from_deepspeed_by_its_fp32_gradients():
    _, gpu = deepspeed_zero2(N, 8, 1, cpu_offload=False)
    ours = plans.training_memory(LLAMA, zero=2, dp=8)
    # DeepSpeed counts 2 bytes a parameter whole and 18 sharded: the mixed convention's 14 (BF16 gradients, FP32
    # master, two moments) and 4 of FP32 gradients, the partition its step converts the BF16 gradients to (freed
    # after the step, when no activations are held, so the peak of backward does not include it).
    assert states(ours) + 4 * N / 8 == pytest.approx(gpu, abs=1)
    assert ours.cpu == {}


@pytest.mark.parametrize("offload, ds_args", [("optimizer", (True, False)), ("optimizer+params", (True, True)),
                                              ("none", (False, False))])
def test_zero3_matches_deepspeeds_estimate(offload, ds_args):
    cpu_node, gpu = deepspeed_zero3(N, LARGEST, 8, 1, *ds_args)
    ours = plans.training_memory(LLAMA, zero=3, dp=8, offload=offload)
    # Without offload DeepSpeed counts 18 bytes a parameter, all sharded: its ZeRO-2 estimate's sharded 18 (BF16 and
    # FP32 gradients, FP32 master, two moments) with no 2 for the BF16 weight shard, which its ZeRO-2 estimate
    # counts apart (2N + 18N/dp: 20 bytes a parameter at dp = 1, against 18 for ZeRO-3 holding the same tensors).
    # Ours is 16 (mixed); with the FP32 gradient copy of the step, 20; DeepSpeed's ZeRO-3 figure is 2 below that.
    fp32_grads = (4 - 2) * N / 8 if offload == "none" else 0
    # DeepSpeed's 4 × largest layer: the largest module gathered (2 bytes a parameter) and its gradient (2). Ours:
    # the largest module and the prefetch bucket (5e7), the reduce bucket (5e8), the norms kept whole, all BF16.
    assert ours["buffers"] == 2 * (LARGEST + 5e7 + 5e8 + le.count_params(LLAMA).parts["norms"])
    assert states(ours) + fp32_grads + 4 * LARGEST == pytest.approx(gpu, abs=1)
    if offload == "none":
        assert ours.cpu == {}  # DeepSpeed's CPU figure is then the model built on the CPU at start-up
    else:
        assert ours.cpu_per_node(8) * 1.5 == pytest.approx(cpu_node)


def test_offload_by_part():
    per_gpu = plans.training_memory(LLAMA, zero=3, dp=8, offload="optimizer+params")
    assert per_gpu.cpu == pytest.approx({"weights": 2 * N / 8, "master": 4 * N / 8, "gradients": 4 * N / 8,
                                         "optimizer": 8 * N / 8})
    assert states(per_gpu) == 0
    zero1 = plans.training_memory(LLAMA, zero=1, dp=8, offload="optimizer")
    assert zero1["weights"] == zero1["gradients"] == 2 * N  # gradients stay whole on the GPU below ZeRO-2


def test_buffers_follow_deepspeeds_settings():
    base = plans.training_memory(LLAMA, zero=3, dp=8)
    small = plans.training_memory(LLAMA, zero=3, dp=8, reduce_bucket_size=1e8, prefetch_bucket_size=0)
    assert base["buffers"] - small["buffers"] == 2 * (4e8 + 5e7)
    capped = plans.training_memory(LLAMA, zero=3, dp=8, max_live_parameters=1e8, param_persistence_threshold=0)
    assert capped["buffers"] == 2 * (5e8 + 1e8)
    assert plans.training_memory(LLAMA, zero=0)["buffers"] == 0
    assert z.zero_buffer_bytes(2, 5e8, overlap_comm=True) == 2 * z.zero_buffer_bytes(2, 5e8) == 2e9


def test_expert_parallelism_holds_a_share_of_the_routed_experts():
    mixtral = le.preset("mixtral-8x7b")
    parts = le.count_params(mixtral).parts
    experts, dense = parts["experts"], le.count_params(mixtral).total - parts["experts"]
    ep8 = plans.training_memory(mixtral, zero=0, dp=8, ep=8)
    assert ep8["weights"] == pytest.approx(2 * (dense + experts / 8))
    # Sharded states: the experts' shard is over dp/ep GPUs, so per GPU it is experts/dp whatever ep is.
    zero1 = [plans.training_memory(mixtral, zero=1, dp=8, ep=ep) for ep in (1, 8)]
    assert zero1[0]["optimizer"] == pytest.approx(zero1[1]["optimizer"])
    assert zero1[1]["weights"] == pytest.approx(2 * (dense + experts / 8))


def test_context_parallelism_splits_the_sequence_and_shards_over_dp_cp():
    cp2 = plans.training_memory(LLAMA, zero=1, dp=4, cp=2, seq_len=8192)
    assert cp2["activations"] == plans.training_memory(LLAMA, seq_len=4096)["activations"]
    assert cp2["optimizer"] == pytest.approx(8 * N / 8) and cp2.gpus == 8
    plan = plans.plan_memory("training", LLAMA, zero=3, cp=2, seq_len=32768, recompute="full")
    assert plan.least_gpus == plan.least * 2


@settings(max_examples=40)
@given(st.sampled_from(["llama-2-7b", "mixtral-8x7b", "qwen2-7b"]), st.integers(1, 3), st.sampled_from([1, 2, 8]),
       st.sampled_from(["optimizer", "optimizer+params"]))
def test_offload_never_adds_gpu_memory(model, zero, dp, offload):
    zero = 3 if offload == "optimizer+params" else zero
    on, off = (plans.training_memory(model, zero=zero, dp=dp, offload=o) for o in (offload, "none"))
    assert on.total <= off.total
    assert on.cpu_total > 0 and off.cpu_total == 0


@settings(max_examples=40)
@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.integers(0, 3), st.sampled_from([1, 8, 64]))
def test_ep_and_cp_never_add_gpu_memory(ep, cp, zero, dp):
    dp = max(dp, ep)
    mixtral = le.preset("mixtral-8x7b")
    base = plans.training_memory(mixtral, zero=zero, dp=dp, seq_len=8192).total
    assert plans.training_memory(mixtral, zero=zero, dp=dp, ep=ep, seq_len=8192).total <= base
    assert plans.training_memory(mixtral, zero=zero, dp=dp, cp=cp, seq_len=8192).total <= base


@pytest.mark.parametrize("kwargs, message", [
    ({"ep": 2}, "ep == 2, must be 1: llama-2-7b has no experts to split."),
    ({"cp": 3}, "cp == 3 must divide the sequence (2,048 % 3 != 0)."),
    ({"cp": 2, "flash": False}, "context parallelism runs on fused attention"),
    ({"offload": "optimizer"}, "needs ZeRO (zero >= 1)"),
    ({"offload": "optimizer+params", "zero": 2}, "needs zero == 3"),
    ({"offload": "nvme", "zero": 3}, "offload == 'nvme', must be one of"),
    ({"cp": 0}, "cp == 0, must be >= 1."),
    ({"reduce_bucket_size": -1, "zero": 1}, "reduce_bucket_size == -1"),
])
def test_bad_layouts_name_the_parameter(kwargs, message):
    with pytest.raises(le.InputError) as err:
        plans.training_memory("llama-2-7b", **kwargs)
    assert message in str(err.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"ep": 3, "dp": 6}, "ep == 3 must divide the routed experts (8 % 3 != 0)."),
    ({"ep": 4, "dp": 2}, "ep == 4 must divide the data-parallel GPUs dp·cp (2 % 4 != 0)"),
])
def test_bad_expert_parallelism(kwargs, message):
    with pytest.raises(le.InputError) as err:
        plans.training_memory("mixtral-8x7b", **kwargs)
    assert message in str(err.value)
