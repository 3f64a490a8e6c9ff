"""Bad model configs: config.json files and pasted JSON, config dicts, ModelConfig fields, replace() and the
formulas of llmest.formulas.model all answer bad input with an InputError naming the parameter, never a traceback."""

import dataclasses
import json
import math
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import llmest as le
from llmest import model as m
from llmest.core._validate import quote
from llmest.formulas.readers.config_file import CONFIGS

FIXTURES = CONFIGS
LLAMA = (FIXTURES / "llama-2-7b.json").read_text(encoding="utf-8")


def _refused(call, param, *words, limit=600):
    with pytest.raises(le.InputError) as err:
        call()
    assert err.value.param == param, str(err.value)
    for word in words:
        assert word in str(err.value), str(err.value)
    assert len(str(err.value)) < limit, str(err.value)  # values are shortened; a list of choices may be long
    return err.value


# ----------------------------------------------------------------------------------------------------------------
# config_from_file and config_from_json
# ----------------------------------------------------------------------------------------------------------------

def test_config_from_file_reads_a_file_a_folder_and_a_bom(tmp_path):
    expected = m.count_params(m.preset("llama-2-7b")).total
    (tmp_path / "config.json").write_text(LLAMA, encoding="utf-8")
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + LLAMA.encode())
    for source in (tmp_path, str(tmp_path), tmp_path / "config.json", str(bom)):
        assert m.count_params(m.config_from_file(source)).total == expected
    assert m.count_params(m.config_from_json("\ufeff" + LLAMA)).total == expected


def _fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "fifo.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("make, words", [
    (lambda d: d / "missing.json", ["missing.json", "no such file"]),
    (lambda d: "x" * 300, ["no such file", "..."]),
    (lambda d: d / "no-config", ["the folder has no config.json"]),
    (lambda d: _fifo(d), ["fifo.json", "not a regular file"]),
    (lambda d: _write(d, b" " * 10_000_001), ["10,000,001 bytes"]),
    (lambda d: _write(d, b"\x89PNG\r\n\x1a\n\x00\x00"), ["not UTF-8 text"]),
    (lambda d: _write(d, b"{not json"), ["is not valid JSON"]),
    (lambda d: _write(d, b""), ["is empty"]),
    (lambda d: _write(d, b"  \n"), ["is empty"]),
    (lambda d: _write(d, b"[1, 2]"), ["must hold a JSON object, not list"]),
    (lambda d: _write(d, b"42"), ["must hold a JSON object, not int"]),
    (lambda d: _write(d, b"[" * 200_000 + b"]" * 200_000), ["nested too deeply"]),
    (lambda d: "bad\0name", ["no such file"]),
    (lambda d: 42, ["42", "must be a path"]),
])
def test_config_from_file_refuses_what_is_not_a_config_file(tmp_path, make, words):
    (tmp_path / "no-config").mkdir()
    source = make(tmp_path)
    done = []
    call = lambda: m.config_from_file(source)  # noqa: E731
    thread = threading.Thread(target=lambda: done.append(_refused(call, "model", *words)), daemon=True)
    thread.start()
    thread.join(20)
    assert done, "config_from_file blocked or failed"
    if isinstance(source, (str, Path)) and len(str(source)) < 60:
        assert repr(str(source)) in str(done[0])


def _write(folder, data: bytes) -> Path:
    path = folder / "config.json"
    path.write_bytes(data)
    return path


def test_config_from_file_uses_the_callers_name():
    _refused(lambda: m.config_from_file("/no/such/config.json", param="--config"), "--config",
             "--config == '/no/such/config.json'")


@pytest.mark.parametrize("text, words", [
    ("", ["is empty"]),
    ("{not json", ["is not valid JSON", "line 1"]),
    ("[1, 2]", ["not list"]),
    ("3.5", ["not float"]),
    ("null", ["not NoneType"]),
    ("[" * 200_000 + "]" * 200_000, ["nested too deeply"]),
    (" " * 10_000_001, ["10,000,001 characters"]),
    (None, ["must be the JSON text"]),
    (b"{}", ["must be the JSON text"]),
])
def test_config_from_json_refuses_what_is_not_a_config(text, words):
    _refused(lambda: m.config_from_json(text), "config", *words)


def test_config_from_json_errors_inside_the_config_name_its_key():
    config = dict(json.loads(LLAMA), num_key_value_heads=7)
    _refused(lambda: m.config_from_json(json.dumps(config)), "num_key_value_heads", "'num_key_value_heads'")


# ----------------------------------------------------------------------------------------------------------------
# from_hf_config on a dict
# ----------------------------------------------------------------------------------------------------------------

BAD_SIZES = [True, False, 4096.0, 1.5, "7", "4096", -1, 0, 10**400, 7 * 10**4999, 10**15 + 1, [1], {},
             float("nan"), float("inf")]
LLAMA_SIZES = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
               "intermediate_size")


@pytest.mark.parametrize("key", LLAMA_SIZES + ("head_dim",))
@pytest.mark.parametrize("bad", BAD_SIZES, ids=lambda x: quote(x, 20))
def test_every_size_key_refuses_what_is_not_a_json_integer_in_range(key, bad):
    """Floats are refused even when whole (4096.0): transformers builds no layer 4096.0 wide. At most 10**15."""
    config = dict(json.loads(LLAMA), **{key: bad})
    err = _refused(lambda: m.ModelConfig.from_hf_config(config), key, f"config.json: '{key}' == ")
    if isinstance(bad, int) and bad > 10**15:
        assert "must be <= 1,000,000,000,000,000" in str(err)
    if isinstance(bad, int) and bad > 10**300:
        assert "an integer of about" in str(err)


@pytest.mark.parametrize("key, bad", [
    ("tie_word_embeddings", "no"), ("tie_word_embeddings", 1), ("tie_word_embeddings", 0),
    ("tie_word_embeddings", [True]), ("attention_bias", "false"), ("mlp_bias", float("nan")),
    ("model_type", ["llama"]), ("model_type", {"name": "llama"}), ("model_type", 3), ("model_type", "llama3"),
])
def test_flags_and_the_model_type_refuse_other_types(key, bad):
    config = dict(json.loads(LLAMA), **{key: bad})
    _refused(lambda: m.ModelConfig.from_hf_config(config), key, f"'{key}'")


@pytest.mark.parametrize("config", [[1], None, 3, 1.5, ("model_type", "llama")], ids=repr)
def test_a_config_that_is_not_a_dict_is_named(config):
    _refused(lambda: m.ModelConfig.from_hf_config(config), "config", "must be a dict")


# ----------------------------------------------------------------------------------------------------------------
# Layer counts are closed form
# ----------------------------------------------------------------------------------------------------------------

QWEN_MOE = json.loads((FIXTURES / "qwen1.5-moe-a2.7b.json").read_text(encoding="utf-8"))


def test_a_huge_value_never_reaches_a_message_whole():
    assert m.ModelConfig.from_hf_config(dict(QWEN_MOE, _name_or_path=10**5000)).name == "qwen2_moe"
    _refused(lambda: m.ModelConfig.from_hf_config(dict(QWEN_MOE, mlp_only_layers=[1.5] * 99)), "mlp_only_layers",
             "a list of 99 items")
    _refused(lambda: m.ModelConfig.from_hf_config(dict(QWEN_MOE, num_experts=-10**5000)), "num_experts",
             "a negative integer of about 5,001 digits")


@pytest.mark.parametrize("fixture", ["qwen1.5-moe-a2.7b", "mixtral-8x7b", "llama-2-7b"])
def test_a_trillion_layers_count_at_once_and_exactly(fixture):
    """Counts are linear in the layers: a + b·L, so 10**12 layers extrapolate exactly from 24 and 48."""
    config = json.loads((FIXTURES / f"{fixture}.json").read_text(encoding="utf-8"))
    total = [m.count_params(m.ModelConfig.from_hf_config(dict(config, num_hidden_layers=n))).total
             for n in (24, 48, 10**12)]
    per_layer = (total[1] - total[0]) // 24
    assert total[2] == total[0] + per_layer * (10**12 - 24)
    _refused(lambda: m.ModelConfig.from_hf_config(dict(config, num_hidden_layers=10**15 + 1)), "num_hidden_layers",
             "must be <= 1,000,000,000,000,000")


@pytest.mark.parametrize("step", [1, 2, 3, 7])
@pytest.mark.parametrize("dense_only", [[], [0], [1, 5, 23], [0, 1, 2, 3, 99, -1], list(range(24))])
def test_qwen2_moe_layers_match_the_per_layer_rule(step, dense_only):
    """transformers: layer i is sparse when it is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0."""
    config = dict(QWEN_MOE, decoder_sparse_step=step, mlp_only_layers=dense_only)
    expected = sum(1 for i in range(24) if i not in dense_only and (i + 1) % step == 0)
    cfg = m.ModelConfig.from_hf_config(config)
    assert cfg.moe_layers == expected


# ----------------------------------------------------------------------------------------------------------------
# replace() derives again what was derived
# ----------------------------------------------------------------------------------------------------------------

def test_replace_turns_llama_2_7b_into_13b():
    grown = m.preset("llama-2-7b").replace(hidden_size=5120, num_layers=40, num_heads=40, num_kv_heads=40,
                                           ffn_hidden_size=13824)
    assert grown.head_dim == 128 and grown.embedding_dim == 5120
    assert m.count_params(grown).total == m.count_params(m.preset("llama-2-13b")).total
    assert grown == m.preset("llama-2-13b").replace(name="llama-2-7b")


def test_replace_follows_the_layers_in_a_moe_model():
    half = m.preset("mixtral-8x7b").replace(num_layers=16)
    assert half.moe_layers == 16
    full = m.count_params(m.preset("mixtral-8x7b"))
    assert m.count_params(half)["experts"] * 2 == full["experts"]
    fixed = m.ModelConfig(vocab_size=1000, hidden_size=64, num_layers=8, num_heads=4, num_experts=4,
                          experts_per_token=1, moe_layers=4)
    assert fixed.replace(num_layers=6).moe_layers == 4  # given, so kept


def test_replace_derives_widths_that_were_derived_and_keeps_those_given():
    material = m.preset("material-7b").replace(hidden_size=2048)
    assert (material.ffn_hidden_size, material.head_dim, material.embedding_dim) == (8192, 64, 2048)
    gemma = m.preset("gemma-7b").replace(hidden_size=4096)
    assert gemma.head_dim == 256  # Gemma sets its own
    qwen = m.preset("qwen1.5-moe-a2.7b").replace(ffn_hidden_size=4096)
    assert (qwen.expert_ffn_hidden_size, qwen.shared_expert_ffn_hidden_size) == (1408, 5632)
    moe = m.ModelConfig(vocab_size=1000, hidden_size=64, num_layers=2, num_heads=4, num_experts=4,
                        experts_per_token=1, num_shared_experts=1).replace(ffn_hidden_size=100)
    assert (moe.expert_ffn_hidden_size, moe.shared_expert_ffn_hidden_size) == (100, 100)
    assert m.preset("llama-2-7b").replace(head_dim=None, num_heads=16, num_kv_heads=16).head_dim == 256
    assert m.preset("gemma-7b").replace(head_dim=None).head_dim == 3072 // 16


@pytest.mark.parametrize("changes, param, words", [
    ({"ffn_hidden": 13824}, "ffn_hidden", ["not a field of ModelConfig", "Did you mean 'ffn_hidden_size'"]),
    ({"hidden": 1}, "hidden", ["not a field"]),
    ({"hidden_size": True}, "hidden_size", ["hidden_size == True"]),
    ({"hidden_size": 10**400}, "hidden_size", ["an integer of about 401 digits"]),
    ({"num_layers": 0}, "num_layers", ["num_layers == 0"]),
    ({"norm": ["rmsnorm"]}, "norm", ["must be one of"]),
    ({"tie_embeddings": "no"}, "tie_embeddings", ["must be True or False"]),
    ({"num_experts": 0}, "experts_per_token", ["needs num_experts >= 1"]),
])
def test_replace_refuses_unknown_fields_and_bad_values_by_name(changes, param, words):
    source = m.preset("mixtral-8x7b") if "num_experts" in changes else m.preset("llama-2-7b")
    _refused(lambda: source.replace(**changes), param, *words)


# ----------------------------------------------------------------------------------------------------------------
# The formulas, ModelConfig's fields, preset and config_from
# ----------------------------------------------------------------------------------------------------------------

FORMULAS = {
    m.embedding_params: dict(vocab_size=32000, dim=4096),
    m.attention_params: dict(hidden=4096, n_heads=32, n_kv_heads=8, head_dim=128),
    m.ffn_params: dict(hidden=4096, ffn_hidden=11008),
    m.norm_params: dict(dim=4096),
    m.router_params: dict(hidden=4096, num_experts=8),
    m.layer_params: dict(hidden=4096, n_heads=32, n_kv_heads=8, head_dim=128, ffn_hidden=11008),
    m.rule_layer_params: dict(hidden=4096),
    m.rule_params: dict(hidden=4096, layers=32, vocab_size=32000),
    m.rule_hidden_size: dict(total_params=7_000_000_000, layers=32, vocab_size=32000),
}
CASES = [(fn, param) for fn, base in FORMULAS.items() for param in base]
BAD_NUMBERS = st.one_of(
    st.booleans(), st.text(max_size=3), st.lists(st.integers(1, 9), max_size=2), st.none(), st.complex_numbers(),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 10**400, -10**400, 10**15 + 1, 1e300]),
    st.integers(max_value=0), st.floats(max_value=0, allow_nan=False), st.tuples(st.integers(1, 9)),
)


@pytest.mark.parametrize("fn, param", CASES, ids=lambda c: getattr(c, "__name__", c))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=BAD_NUMBERS)
def test_formulas_refuse_bad_sizes_by_name(fn, param, bad):
    if bad is None and param in ("n_kv_heads", "head_dim", "ffn_hidden"):
        return  # None means the default there
    _refused(lambda: fn(**dict(FORMULAS[fn], **{param: bad})), param)


@pytest.mark.parametrize("fn, param", CASES, ids=lambda c: getattr(c, "__name__", c))
@settings(max_examples=15, deadline=None)
@given(value=st.one_of(st.integers(1, 10**15), st.floats(1e-3, 1e15)),
       kind=st.sampled_from([np.int64, np.float64, np.int32, np.float32]))
def test_formulas_count_numpy_scalars_like_python_numbers_and_stay_finite(fn, param, value, kind):
    if kind in (np.int64, np.int32):
        value = int(min(value, np.iinfo(kind).max))
    scalar = kind(value)
    if param == "head_dim" or scalar.item() <= 0:
        return
    python = fn(**dict(FORMULAS[fn], **{param: scalar.item()}))
    assert fn(**dict(FORMULAS[fn], **{param: scalar})) == python
    assert type(fn(**dict(FORMULAS[fn], **{param: scalar}))) is type(python)
    assert math.isfinite(python) and python > 0


def test_formulas_on_large_integer_arrays_do_not_wrap():
    h = np.array([10**9, 10**12], dtype=np.int64)
    assert (m.attention_params(h, 1, head_dim=h) > 0).all()
    assert m.rule_params(h, 32, 32000).tolist() == [float(m.rule_params(int(x), 32, 32000)) for x in h]


@pytest.mark.parametrize("call, param", [
    (lambda: m.ffn_params(4096, 11008, gated="no"), "gated"),
    (lambda: m.ffn_params(4096, 11008, bias=1), "bias"),
    (lambda: m.attention_params(4096, 32, bias=["all"]), "bias"),
    (lambda: m.norm_params(4096, None), "norm"),
    (lambda: m.layer_params(4096, 32, norms_per_layer=1.5), "norms_per_layer"),
    (lambda: m.layer_params(4096, 32, norms_per_layer=-1), "norms_per_layer"),
    (lambda: m.count_params(None), "cfg"),
    (lambda: m.count_params("llama-2-7b"), "cfg"),
])
def test_flags_choices_and_configs_of_the_formulas_are_checked(call, param):
    _refused(call, param)


LLAMA_FIELDS = dict(vocab_size=32000, hidden_size=4096, num_layers=32, num_heads=32, num_kv_heads=8, head_dim=128,
                    ffn_hidden_size=11008, gated_ffn=True, norm="rmsnorm")
MOE = dict(num_experts=8, experts_per_token=2, num_shared_experts=1)
BAD_FIELD_VALUES = [True, "7", [1], 1j, float("nan"), float("inf"), -1, 1.5, 10**400, 10**15 + 1]


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(m.ModelConfig)
                                   if f.type in ("int", "int | None")])
@pytest.mark.parametrize("bad", BAD_FIELD_VALUES, ids=lambda x: quote(x, 20))
def test_modelconfig_integer_fields_refuse_bad_values_by_name(field, bad):
    fields = {**LLAMA_FIELDS, **MOE, field: bad}
    if field == "max_positions":
        fields["position_embedding"] = "learned"
    _refused(lambda: m.ModelConfig(**fields), field, f"{field} ==")


def test_modelconfig_takes_numpy_and_whole_float_sizes_as_integers():
    cfg = m.ModelConfig(**dict(LLAMA_FIELDS, hidden_size=np.int64(4096), num_layers=32.0, vocab_size=np.float64(32000)))
    assert cfg == m.ModelConfig(**LLAMA_FIELDS) and type(cfg.hidden_size) is int and type(cfg.num_layers) is int


@pytest.mark.parametrize("field, bad", [
    ("gated_ffn", "no"), ("gated_ffn", 1), ("tie_embeddings", None), ("norm", ["rmsnorm"]), ("norm", None),
    ("attention_bias", {"all": 1}), ("position_embedding", 3), ("name", 10**5000), ("name", None),
], ids=lambda x: quote(x, 20))
def test_modelconfig_other_fields_refuse_bad_values_by_name(field, bad):
    _refused(lambda: m.ModelConfig(**dict(LLAMA_FIELDS, **{field: bad})), field)


@pytest.mark.parametrize("bad", [None, 3, ["llama-2-7b"], {"llama-2-7b": 1}, 1.5, True, "x" * 300, "llama-9"],
                         ids=lambda x: quote(x, 20))
def test_preset_and_config_from_name_a_bad_model(bad):
    _refused(lambda: m.preset(bad), "preset", limit=1000)  # check_choice repeats a long name whole
    if not isinstance(bad, dict):  # a dict is read as a config.json
        _refused(lambda: m.config_from(bad), "model")
