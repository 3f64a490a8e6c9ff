"""Parameter counts: published totals, presets, the formulas' properties, and bad input."""

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmest as le
from llmest import model as m
from llmest.formulas.readers.config_file import CONFIGS

FIXTURES = CONFIGS


def from_fixture(name):
    return le.ModelConfig.from_hf_config(FIXTURES / f"{name}.json")


# Totals stated by the model publishers (model cards and papers; GPT-2's 124,439,808 excludes its attention
# mask buffers, Llama 2's totals exclude the rotary inv_freq buffers that some checkpoints carry).
PUBLISHED = {
    "llama-2-7b": (6_738_415_616, None),
    "llama-2-13b": (13_015_864_320, None),
    "llama-2-70b": (68_976_648_192, None),
    "mistral-7b-v0.1": (7_241_732_096, None),
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248),
    "gpt2": (124_439_808, None),
}


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_totals(name):
    total, active = PUBLISHED[name]
    count = le.count_params(from_fixture(name))
    assert count.total == total
    assert count.active == (total if active is None else active)


# Rounded figures the publishers state, and which parts their "active" leaves out. Some cut rather than round
# ("3.3B" for 3.35B), as the Llama papers do below. Where each was read: DeepSeek-V3's weights note (README_WEIGHTS.md:
# "Activation parameters: 36.6B (including 0.9B for the output Head)"); the gpt-oss model card's table; GLM-4.5's
# announcement as quoted in transformers' glm4_moe docs; Qwen3's model cards; Llama 4's model card (17B active; its
# 109B total includes the vision encoder, which the text config leaves out).
STATED = [
    # fixture, total (billions), active (billions), parts the stated active leaves out
    ("deepseek-v3", 671, 36.6, ("embeddings",)),
    ("gpt-oss-20b", 21, 3.6, ("embeddings",)),
    ("gpt-oss-120b", 117, 5.1, ("embeddings",)),
    ("glm-4.5-air", 106, 12, ("embeddings", "output_head")),
    ("qwen3-30b-a3b", 30.5, 3.3, ()),
    ("qwen3-235b-a22b", 235, 22, ()),
    ("llama-4-scout", None, 17, ()),
]


def _agrees(n: float, stated: float) -> bool:
    """n reads as the stated figure (in billions), rounded or cut to its last digit: 3.35B is "3.3B" or "3.4B"."""
    unit = 10.0 ** -(len(str(stated).split(".")[1]) if "." in str(stated) else 0)
    return stated - unit / 2 <= n / 1e9 < stated + unit


@pytest.mark.parametrize("fixture, total, active, left_out", STATED, ids=[s[0] for s in STATED])
def test_stated_sizes_match_the_count_read_as_the_publisher_counts(fixture, total, active, left_out):
    count = le.count_params(from_fixture(fixture))
    if total is not None:
        assert _agrees(count.total, total)
    assert _agrees(count.active_without(*left_out), active)
    if left_out:  # and read as llmest counts it, the figure is another one
        assert not _agrees(count.active, active)


def test_deepseek_v3_counts_its_mtp_module_apart_as_the_report_and_the_weights_note_do():
    # DeepSeek-V3 (arXiv 2412.19437, section 2.2; the model card: "685B, which includes 671B of the Main Model weights
    # and 14B of the Multi-Token Prediction (MTP) Module weights"). The module shares the embedding and the output
    # head; its own weights are two norms (enorm, hnorm), the 2H -> H projection eh_proj, one full MoE layer and the
    # norm before the shared head (shared_head.norm; vLLM's deepseek_mtp.py). transformers does not build it.
    cfg = from_fixture("deepseek-v3")
    count = le.count_params(cfg)
    H, V = cfg.hidden_size, cfg.vocab_size
    assert cfg.mtp_layers == 1 and _agrees(count.total, 671)  # the main model, as transformers builds it
    layer = ((count["attention"] + count["norms"] - H) // cfg.num_layers
             + (count["experts"] + count["shared_experts"] + count["router"]) // cfg.moe_layers)
    assert count.mtp == 2 * H * H + 3 * H + layer == 11_610_067_968
    # README_WEIGHTS.md: "11.5B unique parameters (excluding the shared 0.9B Embedding and 0.9B output Head)": the
    # module's layer is 11.507B; with the projection (0.103B) the module is 11.61B.
    assert _agrees(layer, 11.5) and not _agrees(count.mtp, 11.5)
    # The checkpoint holds a copy of the embedding and the head in layer 61: main + MTP + copies = 684.49B, the
    # model card's 685B once the FP8 block scales stored beside the weights (about 0.04B) are added; and
    # 685 - 671 is its "14B" (13.46B here, the module with its copies).
    assert count.total_with_mtp + 2 * V * H == 684_489_830_400
    assert round((count.mtp + 2 * V * H) / 1e9, 2) == 13.46
    assert count.active == count.total - 58 * (256 - 8) * 3 * H * 2048  # active leaves the MTP module out
    lines = str(count).splitlines()  # after the total and active, as the English names parts by their keys
    assert lines[-2].startswith("mtp ") and lines[-1].startswith("total with MTP")
    assert count.to_dict()["mtp"] == count.mtp


def test_deepseek_v32_indexer_is_its_four_maps_on_every_layer():
    # The indexer of DeepSeek sparse attention (DeepSeek-V3.2-Exp): wq_b (q_lora_rank -> 64 heads x 128), wk (H -> 128)
    # with a LayerNorm (weight and bias), weights_proj (H -> 64 heads), on each of the 61 layers.
    count = le.count_params(from_fixture("deepseek-v3.2-exp"))
    per_layer = 1536 * 64 * 128 + 7168 * 128 + 2 * 128 + 7168 * 64
    assert per_layer == 13_959_424 and count["indexer"] == 61 * per_layer == 851_524_864
    assert count.total - count["indexer"] == le.count_params(from_fixture("deepseek-v3")).total


def test_longcat_flash_counts_as_its_report_says():
    # LongCat-Flash technical report (arXiv 2509.01322): 560B in all, 18.6B to 31.3B activated per token as the
    # router sends it to real or zero-computation experts. Read as the report counts it (without the input
    # embedding), llmest's active, every routed expert a real one, is the most: 31.38B, cut to "31.3B".
    count = le.count_params(from_fixture("longcat-flash-chat"))
    assert _agrees(count.total, 560) and _agrees(count.active_without("embeddings"), 31.3)
    cfg = from_fixture("longcat-flash-chat")
    assert (cfg.num_layers, cfg.moe_layers, cfg.zero_experts) == (56, 28, 256)
    assert count["router"] == 28 * 6144 * (512 + 256)  # the router scores the zero experts too
    assert count["ffn"] == 56 * 3 * 6144 * 12288  # a dense FFN on every layer, beside the MoE


@pytest.mark.parametrize("fields, param", [
    (dict(index_heads=64, index_head_dim=128), "index_topk"),
    (dict(index_heads=64, index_head_dim=128, index_topk=2048, q_lora_rank=None), "index_heads"),
    (dict(num_experts=0, experts_per_token=None, zero_experts=4), "zero_experts"),
    (dict(num_experts=0, experts_per_token=None, ffn_beside_moe=True), "ffn_beside_moe"),
    (dict(mtp_layers=-1), "mtp_layers"),
])
def test_the_2025_fields_are_checked_by_name(fields, param):
    base = dict(m.PRESETS["deepseek-v3"].__dict__)
    base = {k: v for k, v in base.items() if not k.startswith("_")}
    if fields.get("num_experts") == 0:
        base.update(num_shared_experts=0, moe_layers=None, expert_ffn_hidden_size=None,
                    shared_expert_ffn_hidden_size=None)
    with pytest.raises(le.InputError) as err:
        le.ModelConfig(**dict(base, **fields))
    assert err.value.param == param and param in str(err.value)


def test_bloom_states_its_count_to_the_parameter():
    assert le.count_params(from_fixture("bloom-176b")).total == 176_247_271_424  # the BLOOM model card


PRESET_FIXTURES = {
    "gpt2": "gpt2", "gpt2-xl": "gpt2-xl", "llama-2-7b": "llama-2-7b", "llama-2-13b": "llama-2-13b",
    "llama-2-70b": "llama-2-70b", "llama-3-8b": "llama-3-8b", "llama-3.1-70b": "llama-3.1-70b",
    "llama-3.1-405b": "llama-3.1-405b",
    "mistral-7b": "mistral-7b-v0.1", "mixtral-8x7b": "mixtral-8x7b", "mixtral-8x22b": "mixtral-8x22b",
    "qwen2-0.5b": "qwen2-0.5b", "qwen2-7b": "qwen2-7b",
    "qwen1.5-moe-a2.7b": "qwen1.5-moe-a2.7b", "gemma-7b": "gemma-7b", "phi-3-mini": "phi-3-mini-4k",
    "olmo-2-7b": "olmo-2-7b", "falcon-7b": "falcon-7b", "pythia-1.4b": "pythia-1.4b", "opt-1.3b": "opt-1.3b",
    "deepseek-v3": "deepseek-v3", "qwen3-8b": "qwen3-8b", "qwen3-30b-a3b": "qwen3-30b-a3b",
    "gpt-oss-120b": "gpt-oss-120b", "gemma-2-9b": "gemma-2-9b",
}


@pytest.mark.parametrize("preset", PRESET_FIXTURES)
def test_presets_equal_their_real_configs(preset):
    assert le.preset(preset) == from_fixture(PRESET_FIXTURES[preset]).replace(name=preset)


def test_every_real_preset_is_checked_against_a_config():
    untested = set(le.PRESETS) - set(PRESET_FIXTURES) - set(m.STORED_PRESETS)  # read from the configs themselves
    # material-7b is the material's idealised model; the others have no Hugging Face config of their own.
    assert untested == {"material-7b", "llama-33b", "llama-65b", "llama-2-34b"}


@pytest.mark.parametrize("name, published", [("llama-33b", 32.5), ("llama-65b", 65.2)])
def test_llama_1_sizes_match_the_llama_paper(name, published):
    # LLaMA (arXiv 2302.13971) Table 2: 32.5B for 60 layers of 6656, 65.2B for 80 layers of 8192 (the paper
    # truncates: its 7B and 13B are 6.74B and 13.02B, listed as 6.7B and 13.0B).
    assert int(le.count_params(le.preset(name)).total / 1e8) == round(published * 10)


def test_llama_2_34b_is_34b():
    assert round(le.count_params(le.preset("llama-2-34b")).total / 1e9) == 34


def test_material_teaching_model():
    cfg = le.preset("material-7b")
    assert m.rule_params(4096, 32, 32000) == 6_573_522_944
    count = le.count_params(cfg)
    assert count.total - m.rule_params(4096, 32, 32000) == count["norms"] == (2 * 32 + 1) * 2 * 4096


def test_gqa_and_head_dim():
    llama70 = le.preset("llama-2-70b")
    assert llama70.attention_kind == "GQA" and from_fixture("gemma-2b").attention_kind == "MQA"
    assert m.attention_params(8192, 64, 8, 128) == 8192 * 8192 * 2 + 2 * 8192 * 1024
    nemo = from_fixture("mistral-nemo-12b")
    assert nemo.head_dim == 128 != nemo.hidden_size // nemo.num_heads


def test_breakdown_table_mentions_every_part_and_active():
    text = str(le.count_params(le.preset("mixtral-8x7b")))
    for word in ("embeddings", "attention", "experts", "router", "norms", "output_head", "46,702,792,704",
                 "active (per token)", "12,879,925,248"):
        assert word in text


# ----------------------------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------------------------

sizes = st.integers(1, 64).map(lambda k: 64 * k)


@st.composite
def configs(draw):
    heads = draw(st.sampled_from([1, 2, 4, 8, 16]))
    head_dim = draw(st.sampled_from([16, 32, 64, 128]))
    kv = draw(st.sampled_from([h for h in (1, 2, 4, 8, 16) if heads % h == 0]))
    experts = draw(st.sampled_from([0, 0, 4, 8]))
    moe = dict(num_experts=experts, experts_per_token=draw(st.integers(1, experts))) if experts else {}
    return le.ModelConfig(
        vocab_size=draw(st.integers(1, 200_000)), hidden_size=heads * head_dim, num_layers=draw(st.integers(1, 96)),
        num_heads=heads, num_kv_heads=kv, ffn_hidden_size=draw(sizes), gated_ffn=draw(st.booleans()),
        norm=draw(st.sampled_from(list(m.NORM_PARAMS_PER_CHANNEL))),
        attention_bias=draw(st.sampled_from(m.ATTENTION_BIASES)), ffn_bias=draw(st.booleans()),
        tie_embeddings=draw(st.booleans()), **moe)


@given(configs())
def test_active_never_exceeds_total_and_parts_sum_to_total(cfg):
    count = le.count_params(cfg)
    assert 0 < count.active <= count.total == sum(count.parts.values())
    assert (count.active == count.total) == (cfg.num_experts == cfg.experts_per_token)


@given(configs())
def test_untying_adds_exactly_one_table(cfg):
    tied, untied = (le.count_params(cfg.replace(tie_embeddings=t)).total for t in (True, False))
    assert untied - tied == cfg.vocab_size * cfg.hidden_size


@given(configs(), st.integers(1, 8))
def test_more_layers_more_parameters(cfg, extra):
    assert le.count_params(cfg.replace(num_layers=cfg.num_layers + extra)).total > le.count_params(cfg).total


@given(configs())
def test_fewer_kv_heads_fewer_parameters(cfg):
    mha = le.count_params(cfg.replace(num_kv_heads=cfg.num_heads)).total
    assert le.count_params(cfg).total <= mha
    assert (le.count_params(cfg).total < mha) == (cfg.num_kv_heads < cfg.num_heads)


@given(st.integers(64, 20_000), st.integers(1, 128), st.integers(1000, 300_000))
def test_rule_hidden_size_inverts_the_rule(hidden, layers, vocab):
    n = m.rule_params(hidden, layers, vocab)
    assert m.rule_hidden_size(n, layers, vocab) == pytest.approx(hidden, rel=1e-9)


@settings(max_examples=25)
@given(st.lists(st.integers(1, 5000), min_size=1, max_size=20))
def test_formulas_work_on_numpy_arrays(hiddens):
    h = np.array(hiddens, dtype=np.int64)
    np.testing.assert_array_equal(m.rule_params(h, 32, 32000), [m.rule_params(x, 32, 32000) for x in hiddens])
    np.testing.assert_array_equal(m.ffn_params(h, 4 * h, True, True),
                                  [m.ffn_params(x, 4 * x, True, True) for x in hiddens])


def test_formulas_work_on_sympy_symbols():
    sympy = pytest.importorskip("sympy")
    H, a = sympy.symbols("H a", positive=True)
    assert sympy.simplify(m.layer_params(H, a, norms_per_layer=0) - 12 * H**2) == 0
    N, L, V = sympy.symbols("N L V", positive=True)
    root = m.rule_hidden_size(N, L, V)
    assert sympy.simplify(m.rule_params(root, L, V) - N) == 0


# ----------------------------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------------------------

BASE = dict(vocab_size=32000, hidden_size=4096, num_layers=32, num_heads=32)


@pytest.mark.parametrize("field, value, message", [
    ("hidden_size", 0, "hidden_size == 0, must be >= 1."),
    ("num_layers", -3, "num_layers == -3, must be >= 1."),
    ("vocab_size", 3.5, "vocab_size == 3.5, must be an integer >= 1."),
    ("num_heads", 30, "'hidden_size' must be divisible by 'num_heads' (4096 % 30 != 0)"),
    ("num_kv_heads", 5, "'num_heads' must be divisible by 'num_kv_heads' (32 % 5 != 0)."),
    ("num_kv_heads", 64, "'num_kv_heads' == 64, must be <= 'num_heads' (32)."),
    ("norm", "batchnorm", "norm == 'batchnorm', must be one of 'layernorm', 'layernorm_no_bias', 'rmsnorm', "
                          "'nonparametric'."),
    ("attention_bias", "qvk", "Did you mean 'qkv'?"),
    ("gated_ffn", "yes", "gated_ffn == 'yes', must be True or False."),
    ("experts_per_token", 2, "experts_per_token == 2 needs num_experts >= 1"),
    ("position_embedding", "learned", "max_positions == None, must be an integer >= 1."),
])
def test_bad_config_names_the_field(field, value, message):
    with pytest.raises(le.InputError, match=None) as err:
        le.ModelConfig(**{**BASE, field: value})
    assert message in str(err.value)
    assert err.value.param in (field, "num_heads", "max_positions")


def test_moe_needs_experts_per_token():
    with pytest.raises(le.InputError, match=r"experts_per_token is missing.*in \[1, 8\]"):
        le.ModelConfig(**BASE, num_experts=8)
    with pytest.raises(le.InputError, match="experts_per_token == 9, must be <= 8."):
        le.ModelConfig(**BASE, num_experts=8, experts_per_token=9)


def test_unknown_preset_suggests_close_names():
    with pytest.raises(le.InputError, match="Did you mean 'llama-2-7b'"):
        le.preset("llama-2-7")


@pytest.mark.parametrize("name", ["llama2-7b", "Llama-2-7B", "LLAMA 2 7B"])
def test_preset_names_ignore_case_spaces_and_dashes(name):
    assert le.preset(name) is le.preset("llama-2-7b")
    assert m.config_from(name) is le.preset("llama-2-7b")


@pytest.mark.parametrize("call, message", [
    (lambda: m.rule_hidden_size(-5, 48, 32000), "total_params == -5, must be > 0."),
    (lambda: m.rule_params(4096, 0, 32000), "layers == 0, must be > 0."),
    (lambda: m.attention_params(4096, 32, bias="both"), "bias == 'both', must be one of 'none', 'qkv', 'all'."),
    (lambda: m.ffn_params(4096, float("nan")), "ffn_hidden == nan, must be a finite number."),
    (lambda: m.embedding_params(np.array([32000, -1]), 4096), "vocab_size == -1, must be > 0."),
    (lambda: m.norm_params(4096, "batchnorm"), "norm == 'batchnorm', must be one of"),
])
def test_formulas_reject_bad_numbers(call, message):
    with pytest.raises(le.InputError) as err:
        call()
    assert message in str(err.value)


def test_count_params_rejects_non_configs():
    with pytest.raises(le.InputError, match="must be a ModelConfig"):
        le.count_params({"hidden_size": 4096})


@pytest.mark.parametrize("change, message", [
    ({"model_type": "llama3"}, "'model_type' == 'llama3' is not supported; supported: llama,"),
    ({"model_type": ["llama"]}, "'model_type' == ['llama'], must be a string"),
    ({"model_type": None}, "'model_type' is missing"),
    ({"hidden_size": None}, "config.json: 'hidden_size' is missing; model_type 'llama' needs it."),
    ({"hidden_size": "4096"}, "config.json: 'hidden_size' == '4096', must be an integer >= 1."),
    ({"num_hidden_layers": 0}, "'num_hidden_layers' == 0, must be an integer >= 1."),
    ({"tie_word_embeddings": "no"}, "'tie_word_embeddings' == 'no', must be true or false."),
    ({"num_key_value_heads": 7},
     "config.json: 'num_attention_heads' must be divisible by 'num_key_value_heads' (32 % 7 != 0)."),
])
def test_bad_hf_config_names_the_field(change, message):
    config = json.loads((FIXTURES / "llama-2-7b.json").read_text(encoding="utf-8"))
    config.update(change)
    config = {k: v for k, v in config.items() if v is not None}
    with pytest.raises(ValueError) as err:
        le.ModelConfig.from_hf_config(config)
    assert message in str(err.value)


@pytest.mark.parametrize("fixture, change, key", [
    ("llama-2-7b", {"num_key_value_heads": 7}, "num_key_value_heads"),
    ("llama-2-7b", {"num_attention_heads": 30, "num_key_value_heads": 30}, "num_attention_heads"),
    ("llama-2-7b", {"num_attention_heads": 30}, "num_key_value_heads"),  # 32 KV heads, more than 30
    ("gpt2", {"n_head": 5}, "n_head"),
    ("falcon-7b", {"hidden_size": 4545}, "num_attention_heads"),
])
def test_a_config_error_found_while_building_names_the_config_key(fixture, change, key):
    """ModelConfig checks shapes under its own field names; read from config.json, the error speaks its keys."""
    config = dict(json.loads((FIXTURES / f"{fixture}.json").read_text(encoding="utf-8")), **change)
    with pytest.raises(le.InputError) as err:
        le.ModelConfig.from_hf_config(config)
    assert err.value.param == key and f"'{key}'" in str(err.value)
    assert not re.search(r"'(num_heads|num_kv_heads|num_layers|ffn_hidden_size)'", str(err.value))


def test_hf_config_from_path_text_and_folder(tmp_path):
    text = (FIXTURES / "gpt2.json").read_text(encoding="utf-8")
    (tmp_path / "config.json").write_text(text)
    expected = le.count_params(le.preset("gpt2")).total
    for source in (text, tmp_path, tmp_path / "config.json", str(tmp_path / "config.json")):
        assert le.count_params(le.ModelConfig.from_hf_config(source)).total == expected


@pytest.mark.parametrize("source, message", [
    ("{not json", "the pasted config.json is not valid JSON"),
    ("[1, 2]", "must hold a JSON object, not list"),
    ("/no/such/config.json", "no such file"),
    (42, "must be a dict, a path to config.json, or its JSON text"),
])
def test_unreadable_hf_config(source, message):
    with pytest.raises(ValueError, match=message):
        le.ModelConfig.from_hf_config(source)
