"""FLOPs and time: published runs, the PaLM MFU, properties, and bad input."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import llmest as le
from llmest import compute as c
from llmest import hardware, runs
from llmest import plans

A100 = hardware.gpu("A100 80GB").bf16_flops_per_s


def test_gpt3_flops_match_the_paper():
    # Brown et al. 2020, Table D.1: 3.14e23 FLOPs for 174.6B parameters on 300B tokens
    assert c.training_flops(174.6e9, 300e9) == pytest.approx(runs.GPT3_PUBLISHED_FLOPS, rel=0.005)


def test_palm_mfu_reproduces_the_paper():
    # PaLM Appendix B: 45.7% without the attention term, 46.2% with it
    without, with_attention = runs.PALM["published_mfu"]
    assert runs.palm_mfu(False) == pytest.approx(without, abs=0.0005)
    assert runs.palm_mfu(True) == pytest.approx(with_attention, abs=0.0005)


@pytest.mark.parametrize("name, mfu", [
    # implied MFU = 6·N·D / (GPU-hours × 3600 × 312e12), with the published N (LLaMA) or exact counts (Llama 2)
    ("LLaMA-7B", 0.43), ("LLaMA-13B", 0.51), ("LLaMA-33B", 0.46), ("LLaMA-65B", 0.48),
    ("Llama 2 7B", 0.39), ("Llama 2 13B", 0.38), ("Llama 2 34B", 0.35), ("Llama 2 70B", 0.43),
])
def test_published_runs_imply_a_plausible_mfu(name, mfu):
    run = next(r for r in runs.RUNS if r.name == name)
    by_published_size = c.implied_mfu(run.params, run.tokens, run.gpu_hours, run.peak_flops_per_s)
    exact = c.implied_mfu(le.count_params(le.preset(run.model)).total, run.tokens, run.gpu_hours, A100)
    assert min(by_published_size, exact) - 0.01 <= mfu <= max(by_published_size, exact) + 0.01
    assert 0.3 < run.mfu < 0.55


def test_the_estimator_against_published_runs():
    # Days on the published GPU-hours at the implied MFU come back exactly; at a flat 40% within 30%.
    # The flat 40% holds for the A100 runs of LLaMA and Llama 2, not for every run (OPT's implies 12%).
    for run in runs.RUNS:
        if run.pretraining_gpu_hours:
            assert c.gpu_hours(run.flops, run.peak_flops_per_s, run.mfu) == pytest.approx(run.pretraining_gpu_hours)
        if run.name.startswith(("LLaMA", "Llama 2")):
            hours = c.gpu_hours(run.flops, A100, 0.4)
            assert hours == pytest.approx(run.gpu_hours, rel=0.3)


def test_flops_params_leave_out_the_input_embedding_only():
    cfg = le.preset("llama-2-7b")
    count = le.count_params(cfg)
    assert c.flops_params(cfg) == count.total - count["embeddings"]
    gpt2 = le.count_params(le.preset("gpt2"))  # tied head: the matrix is used as the output projection
    assert c.flops_params("gpt2") == gpt2.total - gpt2["positions"]
    assert c.flops_params("mixtral-8x7b") == le.count_params(le.preset("mixtral-8x7b")).active - 32000 * 4096


def test_the_seed_004_numbers():
    assert c.training_days(c.training_flops(7e9, 1e11), 64, 200e12, 0.5) == pytest.approx(7.595, abs=0.001)
    budget = c.compute_budget(64, 30, 200e12, 0.5)
    assert budget == pytest.approx(1.6589e22, rel=1e-4)
    assert c.affordable_params(budget, 140e9) == pytest.approx(19.75e9, rel=1e-3)


def test_the_seconds_for_hours_slip():
    assert c.gpu_seconds(4.2e22, 312e12, 0.4) == pytest.approx(336_538_462, abs=1)
    assert c.gpu_hours(4.2e22, 312e12, 0.4) == pytest.approx(93_483, abs=1)


def test_attention_term_and_crossover():
    cfg = le.preset("llama-2-7b")
    n = c.flops_params(cfg)
    t = c.seq_len_for_attention_share(n, cfg.num_layers, cfg.num_heads, cfg.head_dim, 0.5)
    assert c.attention_flops_per_token(cfg.num_layers, cfg.num_heads, cfg.head_dim, t) == pytest.approx(6 * n)


def test_no_batch_is_compute_bound_past_the_kv_limit():
    cfg = le.preset("llama-3-8b")
    kv = le.memory.kv_cache_bytes_for(cfg, 1)
    g = hardware.gpu("A100 80GB")
    limit = c.kv_context_limit(c.flops_params(cfg), kv, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)
    assert plans.decode_estimate(cfg, g, batch=100_000, seq_len=int(limit * 1.1)).bound == "memory"
    assert plans.decode_estimate(cfg, g, batch=100_000, seq_len=int(limit * 0.5)).bound == "compute"


def test_decode_roofline():
    d1 = plans.decode_estimate("llama-2-7b", "A100 80GB", batch=1)
    assert d1.bound == "memory" and d1.step_seconds == d1.memory_seconds
    big = plans.decode_estimate("llama-3-8b", "A100 80GB", batch=512, seq_len=128)
    assert big.bound == "compute"
    assert c.compute_bound_batch(14e9, 7e9, 2.039e12, 312e12) == pytest.approx(312 / 2.039)
    assert c.cost_per_million_tokens(2, 1, 1000) == pytest.approx(2 / 3.6)


def test_checkpoints_and_data_rate():
    assert c.checkpoint_bytes(70e9) == 140e9
    assert c.RESUME_CHECKPOINT_BYTES_PER_PARAM == 2 + 4 + 8  # weights, master copy, moments; no gradients
    assert c.checkpoint_storage_bytes(7e9, run_hours=24, interval_hours=0.5, keep=3) == 3 * 98e9
    assert c.tokens_per_second_per_gpu(1e12, 10, 100) == pytest.approx(1e12 / (10 * 86400 * 100))


def test_estimate_training_rebuilds_the_material_function():
    est = plans.estimate_training("llama-2-7b", 1e11, 64, gpu="A100 80GB", mfu=0.5, peak_flops_per_s=200e12)
    assert est.days == pytest.approx(c.training_days(c.training_flops(c.flops_params("llama-2-7b"), 1e11), 64,
                                                     200e12, 0.5))
    assert est.days_with_margin == pytest.approx((est.days * 1.15, est.days * 1.25))
    assert est.fits and est.memory["activations"] > 0


# ----------------------------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------------------------

flops = st.floats(1e18, 1e26)
mfus = st.floats(0.05, 1.0)
gpus = st.integers(1, 100_000)
peaks = st.sampled_from([g.bf16_flops_per_s for g in hardware.CATALOG.values()])


@given(flops, gpus, st.integers(1, 1000), peaks, mfus)
def test_more_gpus_never_means_more_days(f, n, extra, peak, mfu):
    assert c.training_days(f, n + extra, peak, mfu) <= c.training_days(f, n, peak, mfu)


@given(st.floats(1e8, 1e12), st.floats(1e9, 1e13), st.floats(1.01, 100), gpus, peaks, mfus)
def test_time_is_linear_in_tokens(n, d, k, g, peak, mfu):
    one = c.training_days(c.training_flops(n, d), g, peak, mfu)
    assert c.training_days(c.training_flops(n, d * k), g, peak, mfu) == pytest.approx(k * one, rel=1e-9)


@given(flops, gpus, gpus, peaks, mfus, st.floats(0.1, 20))
def test_cost_does_not_depend_on_the_gpu_count(f, g1, g2, peak, mfu, price):
    hours = [c.training_seconds(f, g, peak, mfu) * g / 3600 for g in (g1, g2)]
    assert c.cost(hours[0], price) == pytest.approx(c.cost(hours[1], price), rel=1e-9)


@given(st.floats(1e18, 1e26), st.floats(1e9, 1e13))
def test_reverse_budget_round_trips(budget, tokens):
    n = c.affordable_params(budget, tokens)
    assert c.training_flops(n, tokens) == pytest.approx(budget)
    assert c.affordable_tokens(budget, n) == pytest.approx(tokens)


# ----------------------------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: c.training_days(1e22, 8, 312e12, 0), "mfu == 0, must be in (0, 1]."),
    (lambda: c.training_days(1e22, 8, 312e12, 1.3), "mfu == 1.3, must be in (0, 1]."),
    (lambda: c.training_days(1e22, 0, 312e12, 0.4), "gpus == 0, must be >= 1."),
    (lambda: c.training_flops(-7e9, 1e12), "n_params == -7e+09, must be > 0."),
    (lambda: c.compute_budget(64, -1, 200e12, 0.5), "days == -1, must be > 0."),
    (lambda: c.cost(100, -2), "price_per_gpu_hour == -2, must be >= 0."),
    (lambda: plans.estimate_training("llama-2-7b", 1e11, 64, gpu="A100"), "Did you mean"),
    (lambda: plans.estimate_training("llama-2-7b", 1e11, 64, gpu="H100"), "'H100 SXM' or 'H100 PCIe'"),
    (lambda: plans.decode_estimate("llama-2-7b", "A100 80GB", batch=0), "batch == 0, must be >= 1."),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(le.InputError) as err:
        call()
    assert message in str(err.value)


@given(st.sampled_from(["llama-2-7b", "llama-3-8b", "qwen2-7b", "gpt2"]), st.integers(1, 10**6))
def test_the_attention_term_of_a_model_is_palms_12_lhqt(name, seq_len):
    cfg = le.preset(name)
    assert c.attention_flops_per_token_for(cfg, seq_len) == c.attention_flops_per_token(
        cfg.num_layers, cfg.num_heads, cfg.head_dim, seq_len)


@given(st.integers(1, 10**6), st.integers(2, 10**5), st.integers(0, 8))
def test_a_local_layer_attends_to_at_most_its_window(seq_len, window, local):
    cfg = le.ModelConfig(vocab_size=1000, hidden_size=256, num_layers=8, num_heads=4, local_window=window,
                         local_layers=local)
    per_layer = c.attention_flops_per_token(1, 4, 64, 1)
    assert c.attention_flops_per_token_for(cfg, seq_len) == per_layer * ((8 - local) * seq_len
                                                                          + local * min(seq_len, window))


def test_the_context_limit_of_a_model_follows_its_windows():
    gpu = hardware.gpu("H100 SXM")
    bandwidth, peak = gpu.bandwidth_bytes_per_s, gpu.bf16_flops_per_s
    llama = le.preset("llama-2-7b")
    per_token = le.memory.kv_cache_bytes_for(llama, 1)
    assert c.kv_context_limit_for(llama, bandwidth, peak) == c.kv_context_limit(c.flops_params(llama), per_token,
                                                                                bandwidth, peak)
    windowed = llama.replace(local_window=16)
    assert c.kv_context_limit_for(windowed, bandwidth, peak) == float("inf")  # every layer's cache stops at 15
    half = llama.replace(local_window=16, local_layers=16)
    limit = c.kv_context_limit_for(half, bandwidth, peak)
    # at the limit, one sequence's cache takes as long to read as its 2N FLOPs take to compute
    assert le.memory.kv_cache_bytes_for(half, limit) / bandwidth == pytest.approx(2 * c.flops_params(half) / peak)


def _dsa_decode_step(layers, heads, qk_width, v_width, seq_len, top_k, index_heads, index_head_dim):
    """One new token through DeepSeek sparse attention, written out in torch as DeepSeek-V3.2 describes it (the
    indexer's scores I_s = Σ_j w_j · ReLU(q_j · k_s), the top-k keys, attention over them in MLA's MQA mode), for
    FlopCounterMode to count."""
    import torch
    for _ in range(layers):
        q_index, w_index = torch.randn(index_heads, index_head_dim), torch.randn(index_heads)
        k_index = torch.randn(seq_len, index_head_dim)
        scores = torch.relu(torch.einsum("hd,sd->hs", q_index, k_index))
        picked = torch.einsum("h,hs->s", w_index, scores).topk(min(top_k, seq_len)).indices
        q, keys, values = torch.randn(heads, qk_width), torch.randn(seq_len, qk_width), torch.randn(seq_len, v_width)
        weights = torch.softmax(torch.einsum("hd,sd->hs", q, keys[picked]), dim=-1)
        torch.einsum("hs,sd->hd", weights, values[picked])


@pytest.mark.parametrize("seq_len, top_k", [(300, 64), (50, 64), (64, 64)])
def test_sparse_attention_flops_are_what_torch_counts(seq_len, top_k):
    """DeepSeek-V3.2's shape in small (qk 576 = latent + rotary, v 512; the indexer's heads 64 wide): the formula
    equals the FLOPs torch counts, both when the context is longer than top_k and when it is shorter."""
    from torch.utils.flop_counter import FlopCounterMode
    shape = dict(layers=2, heads=4, qk_width=576, v_width=512, seq_len=seq_len, top_k=top_k, index_heads=8,
                 index_head_dim=64)
    with FlopCounterMode(display=False) as counter:
        _dsa_decode_step(**shape)
    assert c.sparse_decode_attention_flops(**shape) == counter.get_total_flops()


def test_sparse_attention_reads_top_k_keys_and_the_indexer_all():
    """At 128K tokens DeepSeek-V3.2's attention proper reads 2,048 keys, 64 times fewer, while its indexer, at
    2·64·129 FLOPs a key against the attention's 2·128·1,088, stays linear in the context."""
    v32 = dict(layers=61, heads=128, qk_width=576, v_width=512, index_heads=64, index_head_dim=128)
    dense = c.sparse_decode_attention_flops(**v32, seq_len=131072, top_k=131072) - \
        61 * 2 * 64 * 129 * 131072
    sparse = c.sparse_decode_attention_flops(**v32, seq_len=131072, top_k=2048)
    assert dense == 61 * 2 * 128 * 1088 * 131072
    assert sparse == 61 * (2 * 128 * 1088 * 2048 + 2 * 64 * 129 * 131072)
    assert 13 < dense / sparse < 14
    with pytest.raises(le.InputError, match="top_k"):
        c.sparse_decode_attention_flops(**v32, seq_len=4096, top_k=0)


def test_deepseek_v32_reads_its_indexer_from_its_config():
    """DeepSeek-V3.2-Exp's config.json: 61 layers, 128 heads, a 512-wide latent and 64-wide rotary key, an indexer of
    64 heads 128 wide keeping the top 2,048 tokens. At 128K tokens its decode attention is about 13 times cheaper than
    the same attention reading every key (DeepSeek-V3's, in MLA's MQA mode); below 2,048 tokens the indexer only
    adds."""
    from llmest.formulas.readers.config_file import CONFIGS
    v32 = le.model.config_from_file(CONFIGS / "deepseek-v3.2-exp.json")
    assert (v32.index_heads, v32.index_head_dim, v32.index_topk) == (64, 128, 2048)
    without_indexer = v32.replace(index_heads=None, index_head_dim=None, index_topk=None)
    sparse = c.decode_attention_flops_for(v32, 131072)
    dense = c.decode_attention_flops_for(without_indexer, 131072)
    assert dense == 61 * 2 * 128 * 1088 * 131072
    assert sparse == c.sparse_decode_attention_flops(61, 128, 576, 512, 131072, 2048, 64, 128)
    assert 13 < dense / sparse < 14
    assert c.decode_attention_flops_for(v32, 1024) > c.decode_attention_flops_for(without_indexer, 1024)
    assert c.decode_attention_flops_for("deepseek-v3", 4096) == c.decode_attention_flops_for(without_indexer, 4096) \
        == 61 * 2 * 128 * (576 + 512) * 4096


def test_the_mtp_module_adds_its_active_layer_and_the_shared_head_to_6n():
    """DeepSeek-V3's one MTP module, by hand from its shape (arXiv 2412.19437 §2.2; H 7,168, 128 heads of 192/128,
    q latent 1,536, KV latent 512 + 64 rotary; 8 of 256 routed experts and 1 shared, each 3·7,168·2,048; vocabulary
    129,280): the projection 2H·H and three norms, one MoE layer as a token uses it, and the head again."""
    H = 7168
    attention = (H * 1536 + 1536 * 128 * 192 + H * (512 + 64) + 512 * 128 * (128 + 128) + 128 * 128 * H)
    norms = 2 * H + 1536 + 512                      # the layer's two norms and its two latents'
    layer = attention + norms + 9 * 3 * H * 2048 + 256 * H
    module = 2 * H * H + 3 * H + layer
    assert c.mtp_flops_params("deepseek-v3") == module + 129280 * H
    assert 0.04 < c.mtp_flops_params("deepseek-v3") / c.flops_params("deepseek-v3") < 0.05  # about 4% more FLOPs
    assert c.mtp_flops_params("llama-2-7b") == 0
