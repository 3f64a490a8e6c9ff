"""Chapter 6's printed texts and labels (llmest.book.printed.measure_text): in English with the chapter's numbers, and under
speaking("zh") in Chinese with the same numbers and no English prose. The measurements are stand-ins with the
chapter's values, so these run without PyTorch."""

import re
from types import SimpleNamespace

import pytest

import llmest as le
from llmest import InputError
from llmest import measure_text as mt
from llmest import memory as mem
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking

CHINESE = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:[,.]\d+)*")
TENSORS = [SimpleNamespace(module="lm_head", dtype="bfloat16", shape=(512, 128), nbytes=131_072),
           SimpleNamespace(module="", dtype="float32", shape=(), nbytes=4)]
TINY = le.ModelConfig.from_hf_config({
    "model_type": "llama", "vocab_size": 512, "hidden_size": 128, "intermediate_size": 352, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 2048})


def _flops(forward, by_op, ops=()):
    return SimpleNamespace(tokens=512, forward=forward, backward=2 * forward, total=3 * forward,
                           forward_by_op=by_op, ops_without_formula=tuple(ops))


FLOPS = {"sdpa": _flops(444_596_224, {"aten.mm": 444_596_224}, ["aten._flash_attention", "aten.add", "aten.mul"]),
         "eager": _flops(578_813_952, {"aten.mm": 444_596_224, "aten.bmm": 134_217_728}, ["aten._softmax", "aten.add"])}


class _Held:
    """Stands in for measure.TrainingStateBytes: 16 bytes a parameter, mixed precision."""
    step_counters = 84

    def per_param(self):
        return mem.StateBytes(weights=2, master=4, grads=2, optimizer=8)


def _texts():
    saved = SimpleNamespace(module="model.layers.0.mlp", dtype="bfloat16", shape=(2, 256, 352), nbytes=360_448)
    loss = SimpleNamespace(module="", dtype="float32", shape=(), nbytes=4)
    return {
        "shape": mt.shape_text(TINY),
        "flops": mt.flops_table(FLOPS, 2, 256).text(),
        "forward": mt.forward_text(FLOPS, n=434_816, norms=640, plain=445_251_584, matmul=444_596_224,
                                   attention=402_653_184, step=1_736_441_856),
        "ops": mt.ops_without_formula_text(FLOPS),
        "step": mt.step_flops_text(SimpleNamespace(tokens=4096, total=4096 * 4.6e10), matmul=3.96e10,
                                   attention=6.4e9, norms_share=4e-5),
        "states": mt.states_table({"mixed": _Held()}, tensors=21).text(),
        "no gpu": mt.no_gpu_text(),
        "step peak": mt.step_peak_text(12e6, 8e6, 3e6),
        "forward peak": mt.forward_peak_text(2, 7.5e6, 7.35e6),
        "saved": mt.saved_table([saved, loss], tokens=512, strip="model.layers.0.").text(),
        "layer": mt.layer_formula_text(5640),
        "left out": mt.left_out_table("sdpa", [("ids", "16*b*s", 8192), ("rotary", "4*d*s", 32768)], True).text(),
        "sweep": mt.sweep_table({("sdpa", 2, 64): 1_851_904, ("eager", 2, 64): 2_306_560},
                                {("sdpa", 2, 64): True, ("eager", 2, 64): True}).text(),
        "s2": mt.s2_text(48, 16, per=8),
        "checkpoint": mt.checkpoint_text(1_845_252, without=7_407_620, layer_inputs=262_144,
                                         output_layer=1_574_912, equal=True),
        "ratio": mt.checkpoint_ratio_text(4.01, 3.99),
        "long": mt.long_checkpoint_text("Llama-2-7B", 4096, without=25.1e9, with_checkpointing=1.73e9, peak=2.5e9),
        "extras": mt.extras_text(25.12e9, 25.1e9),
        "bf16 norms": mt.bf16_norms_text(20.7e9, 25.1e9),
        "summary": mt.summary_table(backward_ratio=2, attention_share=0.14, states={"fp32": 16, "mixed": 16},
                                    short={"sdpa": 0.008, "eager": 0.323}, s2=(6, 2), checkpointed=0.25).text(),
    }


def _label_texts():
    """The labels: the parameter-count table, the formula's shortfall, the output layer and the dtypes saved."""
    return {
        "params": mt.params_table({"gpt2": (124_439_808, 124_439_808), "llama-2-7b": (6_738_415_616, 1)}).text(),
        "short": mt.formula_short_text({"sdpa": 7_407_620, "eager": 13_944_836},
                                       {"sdpa": 7_350_272.0, "eager": 9_447_424.0}),
        "output": mt.output_formula_text(1_574_912.0),
        "dtypes": mt.dtypes_text(TENSORS),
        "saved": mt.saved_table(TENSORS).text(),
    }


def test_english_with_the_chapters_numbers():
    texts = _texts()
    assert texts["shape"] == ("2 layers of hidden size 128, 4 query and 2 KV heads of width 32, SwiGLU of width 352, "
                              "512 tokens")
    assert "2 sequences × 256 tokens = 512 tokens" in texts["flops"]
    assert "aten.mm: 444596224, aten.bmm: 134217728" in texts["flops"]
    assert texts["forward"].splitlines()[2] == "2·(N − norms)·tokens             444,596,224   = sdpa's forward: True"
    assert texts["forward"].splitlines()[3].startswith("  + a third of 12·L·H·Q·T·tokens 578,813,952")
    assert "sdpa: ran, counted as 0 FLOPs: ['aten._flash_attention']" in texts["ops"]
    assert "and 2 other ops: elementwise" in texts["ops"] and "S × S softmax" in texts["ops"]
    assert "attention's share of the step: 13.9%; the norm scales' share of N: 0.004%" in texts["step"]
    assert "84 bytes for 21 tensors" in texts["states"]
    assert texts["step peak"].endswith("= 11.0 MB (1.09×)")
    assert texts["forward peak"] == "batch 2: peak above the weights 7.50 MB, formula 7.35 MB (1.02×)"
    assert "(the loss)" in texts["saved"] and "704" in texts["saved"]
    assert texts["layer"] == "chapter 2, one layer: 20·h + 8 + 4·k·d + 8·F = 5640 bytes per token"
    assert "token ids and shifted labels, int64" in texts["left out"]
    assert "14,468.0" in texts["sweep"]
    assert texts["s2"].endswith("per head and layer 6 and 2")
    assert "measured 1,845,252 bytes, 4.0× less than without" in texts["checkpoint"]
    assert "0.08% more than the formula" in texts["extras"]
    assert "20.7 GB, 18% short of it" in texts["bf16 norms"]
    assert "1% / 32%" in texts["summary"] and "25%" in texts["summary"]


def _both(texts):
    """``texts()`` in English and in Chinese."""
    english = texts()
    with speaking("zh"):
        return english, texts()


def test_chinese_with_the_same_numbers():
    english, chinese = _both(_texts)
    for name, text in chinese.items():
        assert CHINESE.search(text) and not english_prose(text), (name, text)
        assert set(NUMBER.findall(english[name])) <= set(NUMBER.findall(text)) | {"1"}, name
    assert "21 个张量共 84 字节" in chinese["states"]


def test_the_labels_in_english_with_the_chapters_numbers():
    texts = _label_texts()
    assert texts["params"].splitlines()[0].split() == ["config.json", "transformers", "count_params", "equal"]
    assert [line.split() for line in texts["params"].splitlines()[2:]] == [
        ["gpt2", "124,439,808", "124,439,808", "True"], ["llama-2-7b", "6,738,415,616", "1", "False"]]
    assert texts["short"].splitlines() == [
        "sdpa   measured  7,407,620 bytes; chapter 2's formula  7,350,272: 0.8% short",
        "eager  measured 13,944,836 bytes; chapter 2's formula  9,447,424: 32.3% short"]
    assert texts["output"] == "chapter 2, output layer: 8·s·b·h + 4·s·b + 4·s·b·V = 1,574,912 bytes"
    assert texts["dtypes"] == "dtypes saved: ['bfloat16', 'float32']"
    assert "dtype" in texts["saved"] and "(the loss)" in texts["saved"]


def test_the_labels_in_chinese_with_exactly_the_same_numbers():
    english, chinese = _both(_label_texts)
    for name, text in chinese.items():
        assert CHINESE.search(text) and not english_prose(text), (name, text)
        assert NUMBER.findall(english[name]) == NUMBER.findall(text), name
    assert "少 32.3%" in chinese["short"] and "数据类型" in chinese["saved"]


@pytest.mark.parametrize("call, parameter", [
    (lambda: mt.shape_text("llama"), "cfg"),
    (lambda: mt.flops_table({}, 2, 256), "flops"),
    (lambda: mt.flops_table(FLOPS, 0, 256), "batch"),
    (lambda: mt.forward_text({"sdpa": FLOPS["sdpa"]}, n=1, norms=0, plain=1, matmul=1, attention=1, step=1),
     "flops"),
    (lambda: mt.states_table({"mixed": _Held()}, tensors=0), "tensors"),
    (lambda: mt.saved_table([], strip=3), "strip"),
    (lambda: mt.left_out_table("sdpa", [("nothing", "4", 4)], True), "terms"),
    (lambda: mt.sweep_table({("sdpa", 2, 64): 1}, {}), "exact"),
    (lambda: mt.s2_text(48, 16, per=0), "per"),
    (lambda: mt.step_peak_text(-1, 1, 1), "peak"),
    (lambda: mt.params_table({}), "counts"),
    (lambda: mt.params_table({"gpt2": 124_439_808}), "counts"),
    (lambda: mt.params_table({"gpt2": (0, 1)}), "counts"),
    (lambda: mt.formula_short_text({"sdpa": 1}, {}), "formula"),
    (lambda: mt.formula_short_text({"sdpa": -1}, {"sdpa": 1}), "measured"),
    (lambda: mt.output_formula_text(-1), "nbytes"),
    (lambda: mt.dtypes_text([]), "tensors"),
])
def test_bad_input_names_the_parameter(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == parameter
