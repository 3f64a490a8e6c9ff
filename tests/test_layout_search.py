"""The layout search: every layout it lists is a real split of the GPUs, its memory is the memory plan's, its step
time is the sum written out by hand, and the ranking obeys the properties a reader relies on."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmest import InputError, comm, compute, hardware, model, plans

LLAMA7 = model.preset("llama-2-7b")


@pytest.fixture(scope="module")
def search():
    return plans.search_layouts(LLAMA7, 256, "H100 SXM", 4096, 4 * 2**20)


def test_every_layout_splits_the_gpus_the_model_and_the_batch(search):
    c = search.columns
    assert (c["tp"] * c["cp"] * c["pp"] * c["dp"] == 256).all()
    assert (LLAMA7.num_heads % c["tp"] == 0).all() and (c["pp"] <= LLAMA7.num_layers).all()
    sequences = 4 * 2**20 // 4096
    assert (c["micro_batches"] * c["micro_batch"] * c["dp"] == sequences).all()
    assert (c["tp_in_node"] | (c["tp"] > 1)).all()  # only a tensor-parallel ring can be put across nodes
    assert set(np.unique(c["zero"])) == {0, 1, 2, 3} and set(c["recompute"]) == {"none", "selective", "full"}


def test_layouts_that_fit_come_first_fastest_first(search):
    fits = search.columns["fits"][search.order]
    step = search.columns["step_time_s"][search.order]
    assert not (np.diff(fits.astype(int)) > 0).any()  # never a non-fitting layout before a fitting one
    k = search.fitting
    assert (np.diff(step[:k]) >= 0).all() and (np.diff(step[k:]) >= 0).all()
    assert search.best == search.rows(1, tuple(search.columns))[0] and search.best["fits"]


@pytest.mark.parametrize("zero, recompute, tp, pp, b", [(0, "none", 1, 1, 1), (1, "selective", 2, 2, 2),
                                                         (3, "full", 4, 8, 1), (2, "none", 8, 4, 4)])
def test_the_memory_of_a_layout_is_the_memory_plans(search, zero, recompute, tp, pp, b):
    # Without context parallelism, and with the 1F1B pipeline holding its p micro-batches of L/p layers, a layout's
    # memory per GPU is training_memory's for the same settings.
    c = search.columns
    row = np.flatnonzero((c["zero"] == zero) & (c["recompute"] == recompute) & (c["tp"] == tp) & (c["pp"] == pp)
                         & (c["cp"] == 1) & (c["micro_batch"] == b) & c["tp_in_node"])
    assert len(row) == 1
    dp = int(c["dp"][row[0]])
    plan = plans.training_memory(LLAMA7, zero=zero, dp=dp, tp=tp, pp=pp, micro_batch=b, seq_len=4096,
                                 recompute=recompute, sequence_parallel=True)
    assert c["memory_per_gpu_bytes"][row[0]] == pytest.approx(plan.total, rel=1e-12)


def test_a_step_by_hand_on_one_node():
    # Llama-2-7B on 8 H100s, plain data parallelism, micro-batches of 8 × 4,096 tokens (one a step): the step's FLOPs
    # over the GPUs at half the peak, and each of a layer's 12 matmuls' fixed 6 µs; one ring all-reduce of the bf16
    # gradients at NCCL's 370 GB/s over NVLink, a message per layer of NCCL's 8.4 µs and 2 × 7 steps of 3.4 µs,
    # half of it hidden behind the compute.
    found = plans.search_layouts(LLAMA7, 8, "H100 SXM", 4096, 64 * 4096, zero_stages=(0,), recomputations=("none",),
                                 micro_batch_sizes=(8,), overlap=0.5, compute_efficiency=0.5)
    c = found.columns
    row = np.flatnonzero((c["tp"] == 1) & (c["pp"] == 1) & (c["cp"] == 1))[0]
    tokens = 64 * 4096
    flops = (6 * compute.flops_params(LLAMA7) + compute.attention_flops_per_token_for(LLAMA7, 4096)) * tokens
    compute_s = flops / (8 * 989.4e12 * 0.5) + 32 * 12 * 6e-6
    comm_s = 2 * 7 / 8 * model.count_params(LLAMA7).total * 2 / 370e9 + 32 * 2 * (8.4e-6 + 2 * 7 * 3.4e-6)
    assert c["compute_s"][row] == pytest.approx(compute_s)
    assert c["comm_s"][row] == pytest.approx(comm_s) and c["dp_s"][row] == pytest.approx(comm_s)
    assert c["step_time_s"][row] == pytest.approx(compute_s + comm_s - min(0.5 * comm_s, compute_s))
    assert c["mfu"][row] == pytest.approx(flops / (8 * 989.4e12 * c["step_time_s"][row]))


def test_the_last_stage_carries_the_output_layer_and_the_layers_are_dealt_around_it():
    # Llama-3.1-405B's output layer is 6·h·V = 1.26e10 FLOPs a token, 0.61 of a layer's 2.07e10 (its 3.19e9 weights
    # and 8,192-token attention): over 16 stages the slowest does 8 layers' work (the last stage's k layers and the
    # output layer never exceed it for k ≤ 7); over 63 stages, 2 layers and the output layer (2.61) on the last beat
    # 1 layer (1.61) with 125 left for 62 stages (3 on some).
    cfg = model.preset("llama-3.1-405b")
    from llmest.plans.layout_time import _largest_stage
    head = 6 * cfg.hidden_size * cfg.vocab_size
    layer = (6 * compute.flops_params(cfg) - head) / 126 + compute.attention_flops_per_token_for(cfg, 8192) / 126
    work = _largest_stage({}, 126, np.array([1, 16, 63]), np.full(3, layer), head)
    assert head / layer == pytest.approx(0.608, abs=1e-3)
    assert work.tolist() == pytest.approx([126 * layer + head, 8 * layer, 2 * layer + head])


def test_zero_stages_never_raise_the_states_and_recomputation_never_raises_memory(search):
    # ZeRO's buffers are fixed sizes (DeepSpeed's 5e8-element reduce bucket): a small shard can take more memory at
    # ZeRO-1 than without, so the stages order the states, and the total is states + buffers + the rest.
    c = search.columns
    key = ["tp", "cp", "pp", "dp", "micro_batch", "tp_in_node"]
    for recompute in ("none", "selective", "full"):
        by_stage = [c["states_bytes"][(c["zero"] == z) & (c["recompute"] == recompute)] for z in range(4)]
        assert all((later <= earlier).all() for earlier, later in zip(by_stage, by_stage[1:]))
    overhead = search.settings["overhead_bytes"]
    assert np.allclose(c["memory_per_gpu_bytes"], c["states_bytes"] + c["buffer_bytes"] + c["activation_bytes"]
                       + overhead, rtol=1e-12)
    assert (c["buffer_bytes"][c["zero"] == 0] == 0).all() and (c["buffer_bytes"][c["zero"] == 1] == 1e9).all()
    for zero in range(4):
        picked = [(c["zero"] == zero) & (c["recompute"] == r) for r in ("none", "selective", "full")]
        assert all(np.array_equal(*(c[k][p] for p in picked[:2])) for k in key)
        mem = [c["memory_per_gpu_bytes"][p] for p in picked]
        assert (mem[1] <= mem[0]).all() and (mem[2] <= mem[1]).all()


def test_tensor_parallelism_in_a_node_beats_it_across_nodes(search):
    c = search.columns
    node = hardware.gpu("H100 SXM").network.gpus_per_node
    inside, across = c["tp_in_node"] & (c["tp"] > 1), ~c["tp_in_node"] & (c["tp"] <= node)
    assert across.sum() == inside.sum() > 0
    assert not (c["tp_in_node"] & (c["tp"] > node)).any()  # a ring wider than a node cannot lie in one
    assert (c["step_time_s"][inside] < c["step_time_s"][across]).all()  # the same layouts, in the same order


@settings(max_examples=25, deadline=None)
@given(low=st.floats(0, 1), high=st.floats(0, 1), gpus=st.sampled_from([8, 16, 64]),
       gpu=st.sampled_from(["A100 80GB", "H100 SXM", "RTX 4090"]))
def test_more_overlap_never_slows_a_step(low, high, gpus, gpu):
    low, high = sorted((low, high))
    a, b = (plans.search_layouts(LLAMA7, gpus, gpu, 2048, 2**20, overlap=x).columns["step_time_s"] for x in (low, high))
    assert (b <= a * (1 + 1e-12)).all()


def test_mfu_falls_as_gpus_grow_at_a_fixed_batch():
    # Chapter 5's lesson: with the global batch fixed, more GPUs mean fewer micro-batches per pipeline (a larger
    # bubble) or more data parallelism over the network.
    best = [plans.search_layouts("llama-2-70b", n, "H100 SXM", 4096, 4 * 2**20).best["mfu"] for n in (64, 256, 1024)]
    assert best[0] > best[1] > best[2]


def test_bad_input_is_refused_by_name():
    cases = [(dict(gpus=0), "gpus"), (dict(global_batch_tokens=4 * 10**6), "global_batch_tokens"),
             (dict(schedule="pipedream"), "schedule"), (dict(overlap=1.5), "overlap"),
             (dict(compute_efficiency=0), "compute_efficiency"), (dict(gpu="H1OO"), "gpu"),
             (dict(micro_batch_sizes=(3,)), "micro_batch_sizes"), (dict(gpus=37), "gpus")]
    for change, param in cases:
        kwargs = {**dict(model=LLAMA7, gpus=64, gpu="H100 SXM", seq_len=4096, global_batch_tokens=4 * 2**20), **change}
        with pytest.raises(InputError) as err:
            plans.search_layouts(**kwargs)
        assert err.value.param == param, (change, err.value)
    # 4,000,000 / 4,096 = 976.56 sequences: 976 and 977 are the nearest whole numbers; 4 × 2**20 is 1,024 of them.
    with pytest.raises(InputError, match=r"nearest are 976 × 4,096 = 3,997,696 and 977 × 4,096 = 4,001,792\); a "
                                         r"paper's '4M tokens' is usually 4 × 2\*\*20 = 1,024 × 4,096 = 4,194,304\."):
        plans.search_layouts(LLAMA7, 64, seq_len=4096, global_batch_tokens=4 * 10**6)


def _llmest(*args):
    return subprocess.run([sys.executable, "-m", "llmest", *args], capture_output=True, text=True, timeout=120)


def test_the_command_gives_the_library_answer_in_the_contracts_json():
    done = _llmest("layout", "llama-2-7b", "--gpus", "256", "--gpu", "H100 SXM", "--seq-len", "4096",
                   "--global-batch-tokens", "4194304", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    layouts = data["layouts"]
    assert len(layouts) == 10 and data["searched"] > 1000
    for key in ("tp", "cp", "pp", "dp", "zero", "micro_batch", "recompute", "memory_per_gpu_bytes", "step_time_s",
                "mfu", "fits"):
        assert key in layouts[0]
    best = plans.search_layouts(LLAMA7, 256, "H100 SXM", 4096, 4 * 2**20).best
    assert {k: layouts[0][k] for k in best if k in layouts[0]} == {k: best[k] for k in layouts[0] if k in best}


def test_the_command_refuses_bad_options_in_one_line():
    done = _llmest("layout", "llama-2-7b", "--gpus", "64", "--seq-len", "4096", "--global-batch-tokens", "4M")
    assert done.returncode == 2 and "--global-batch-tokens:" in done.stderr and "Traceback" not in done.stderr
    done = _llmest("layout", "llama-2-7b", "--gpus", "64", "--seq-len", "4096", "--global-batch-tokens", "4194304",
                   "--overlap", "2")
    assert done.returncode == 2 and "--overlap:" in done.stderr
    text = _llmest("layout", "llama-2-7b", "--gpus", "16", "--seq-len", "2048", "--global-batch-tokens",
                   "1048576", "--gpu", "a100-80gb", "--top", "3")
    # the title, the header and its rule, and the three layouts asked for
    assert text.returncode == 0 and len(text.stdout.splitlines()) == 6 and hardware.gpu("A100 80GB").name in text.stdout
    assert comm.SCHEDULES


def test_the_interleaved_schedule_searches_its_model_chunks_and_cuts_the_bubble_by_them():
    """Narayanan et al. 2021: v chunks per GPU make the bubble (p − 1)/(v·m), at v times the pipeline's sends; v
    divides the stage's layers and the step's micro-batches are a multiple of the stages. v = 1 is 1F1B."""
    args = ("llama-2-70b", 1024, "H100 SXM", 4096, 4 * 2**20)
    plain, interleaved = plans.search_layouts(*args), plans.search_layouts(*args, schedule="interleaved")
    layout = dict(tp=8, cp=1, pp=4, dp=32, zero=1, micro_batch=1, recompute="selective", tp_in_node=True)
    one = plain.find(**layout)
    assert one["vp"] == 1 and set(plain.columns["vp"].tolist()) == {1}
    assert interleaved.find(**layout, vp=1)["step_time_s"] == one["step_time_s"]
    for vp in (2, 4, 5, 10, 20):   # the divisors of 80 / 4 = 20 layers a stage
        row = interleaved.find(**layout, vp=vp)
        assert row["bubble_s"] == pytest.approx(one["bubble_s"] / vp)
        assert row["pp_s"] == pytest.approx(one["pp_s"] * vp)
    assert set(interleaved.columns["vp"][interleaved.columns["pp"] == 4].tolist()) == {1, 2, 4, 5, 10, 20}
    assert interleaved.best["step_time_s"] <= plain.best["step_time_s"]
    with pytest.raises(InputError, match="layouts match, not one"):
        interleaved.find(**layout)


def test_dualpipe_holds_two_stages_and_hides_the_all_to_all_as_moe_plan_does():
    """DeepSeek-V3 §3.2.1: DualPipe runs two pipelines in opposite directions over the same ranks, so it needs an even
    number of stages, "requires keeping two copies of the model parameters", and overlaps a forward and a backward
    chunk so the all-to-all hides; moe_plan.moe_step counts the same terms for the same layout."""
    from llmest.formulas.precision import recipe_state_bytes
    from llmest.plans import moe_plan
    from llmest.plans.memory_plan import training_states

    args = ("deepseek-v3", 2048, "H800", 4096, 15360 * 4096)
    kept = dict(micro_batch_sizes=(1,), zero_stages=(1,), recomputations=("none",), precision="fp8-deepseek",
                low_efficiency=moe_plan.DEEPSEEK_FP8_EFFICIENCY, nodes_per_token=4)
    dual, plain = (plans.search_layouts(*args, schedule=schedule, **kept) for schedule in ("dualpipe", "1f1b"))
    assert set(dual.columns["pp"].tolist()) == {2, 4, 8, 16, 32} and 1 in set(plain.columns["pp"].tolist())
    layout = dict(tp=1, cp=1, pp=16, dp=128, ep=64)
    row, one = dual.evaluate(**layout), plain.evaluate(**layout)
    cfg = model.preset("deepseek-v3")
    two_stages = training_states(cfg, recipe_state_bytes("fp8-deepseek", "adamw"), 1, 128, 1, 8, 1, 64)["gpu"]
    assert row["states_bytes"] == pytest.approx(sum(two_stages.values()))
    step = moe_plan.deepseek_v3()
    assert row["ep_s"] == pytest.approx(step["all_to_all_s"], rel=0.02)
    assert row["step_time_s"] == pytest.approx(step["step_s"], rel=0.02)
    # 1F1B leaves the all-to-all exposed and has the larger bubble: slower by about the all-to-all
    assert one["step_time_s"] - row["step_time_s"] > 0.8 * one["ep_s"]


def test_a_given_layout_is_evaluated_with_its_rank_on_every_surface():
    args = ("llama-2-70b", 1024, "H100 SXM", 4096, 4 * 2**20)
    found = plans.search_layouts(*args)
    mine = found.evaluate(tp=8, pp=4)
    # the fastest of the layouts with TP 8 and PP 4 (the settings left out chosen as the search would), and its place
    rows = found.rows(columns=("tp", "pp", "step_time_s"))
    place = next(i for i, r in enumerate(rows) if (r["tp"], r["pp"]) == (8, 4))
    assert mine["rank"] == place + 1 and mine["step_time_s"] == rows[place]["step_time_s"]
    assert found.evaluate(**{k: found.best[k] for k in ("tp", "cp", "pp", "dp")})["rank"] == 1
    done = _llmest("layout", "llama-2-70b", "--gpus", "1024", "--seq-len", "4096", "--global-batch-tokens", "4194304",
                   "--tp", "8", "--pp", "4", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["layout"]
    assert {k: shown[k] for k in ("tp", "cp", "pp", "dp", "rank", "step_time_s", "mfu")} == {
        k: mine[k] for k in ("tp", "cp", "pp", "dp", "rank", "step_time_s", "mfu")}
    text = _llmest("layout", "llama-2-70b", "--gpus", "1024", "--seq-len", "4096", "--global-batch-tokens",
                   "4194304", "--tp", "8", "--pp", "4", "--top", "1").stdout
    assert f"rank {mine['rank']:,} of {len(found):,}" in text and "longer than the best" in text


def test_a_layout_that_cannot_be_is_refused_by_name():
    found = plans.search_layouts("llama-2-70b", 64, "H100 SXM", 4096, 2**20)
    with pytest.raises(InputError, match="tp 3: not among the 7,728 layouts searched") as err:
        found.evaluate(tp=3)
    assert err.value.param == "layout"
    with pytest.raises(InputError) as err:
        found.evaluate(tensor=8)
    assert err.value.param == "tensor"
    done = _llmest("layout", "llama-2-70b", "--gpus", "64", "--seq-len", "4096", "--global-batch-tokens", "1048576",
                   "--vp", "2")
    assert done.returncode == 2 and "--vp == 2" in done.stderr and "interleaved" in done.stderr
    assert "Traceback" not in done.stderr
