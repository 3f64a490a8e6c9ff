"""Chapter 6's findings (llmest.plans.findings.measure): the English with the chapter's numbers, the Chinese with the
same numbers and no English prose, and bad input named by its parameter. The measurements are stand-ins with the
chapter's values, so these run without PyTorch; one test measures the tiny model where PyTorch is installed.
``SAMPLES`` feeds tests/test_findings.py."""

import re
from types import SimpleNamespace

import pytest
import sympy as sp

import llmest as le
from llmest import InputError
from llmest import memory as mem
from llmest.book.edition import english_prose
from llmest.core.i18n import speaking
from llmest.plans.findings import measure as findings

CHINESE = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:[,.]\d+)*")
TENSORS = [SimpleNamespace(module="lm_head", dtype="bfloat16", shape=(512, 128), nbytes=131_072),
           SimpleNamespace(module="", dtype="float32", shape=(), nbytes=4)]
TINY_CONFIG = {"model_type": "llama", "vocab_size": 512, "hidden_size": 128, "intermediate_size": 352,
               "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
               "max_position_embeddings": 2048}
TINY = le.ModelConfig.from_hf_config(TINY_CONFIG)


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


SAVED = SimpleNamespace(module="model.layers.0.mlp", dtype="bfloat16", shape=(2, 256, 352), nbytes=360_448)
LOSS = SimpleNamespace(module="", dtype="float32", shape=(), nbytes=4)

SAMPLES = {
    "params_match": lambda: findings.params_match({"gpt2": (124_439_808, 124_439_808),
                                                   "llama-2-7b": (6_738_415_616, 1)}),
    "shape": lambda: findings.shape(TINY),
    "flops_counted": lambda: findings.flops_counted(FLOPS, 2, 256),
    "forward_terms": lambda: findings.forward_terms(FLOPS, n=434_816, norms=640, plain=445_251_584,
                                                    matmul=444_596_224, attention=402_653_184, step=1_736_441_856),
    "ops_without_formula": lambda: findings.ops_without_formula(FLOPS),
    "step_flops": lambda: findings.step_flops(SimpleNamespace(tokens=4096, total=4096 * 4.6e10), matmul=3.96e10,
                                              attention=6.4e9, norms_share=4e-5),
    "states_held": lambda: findings.states_held({"mixed": _Held()}, tensors=21),
    "no_gpu": findings.no_gpu,
    "step_peak": lambda: findings.step_peak(12e6, 8e6, 3e6),
    "forward_peak": lambda: findings.forward_peak(2, 7.5e6, 7.35e6),
    "saved": [lambda: findings.saved([SAVED, LOSS], tokens=512, strip="model.layers.0."),
              lambda: findings.saved(TENSORS)],
    "layer_formula": lambda: findings.layer_formula(5640),
    "output_formula": lambda: findings.output_formula(1_574_912.0),
    "dtypes": lambda: findings.dtypes(TENSORS),
    "formula_short": lambda: findings.formula_short({"sdpa": 7_407_620, "eager": 13_944_836},
                                                    {"sdpa": 7_350_272.0, "eager": 9_447_424.0}),
    "left_out_terms": lambda: findings.left_out_terms("sdpa", [("ids", "16*b*s", 8192), ("rotary", "4*d*s", 32768)],
                                                      True),
    "per_token_sweep": lambda: findings.per_token_sweep({("sdpa", 2, 64): 1_851_904, ("eager", 2, 64): 2_306_560},
                                                        {("sdpa", 2, 64): True, ("eager", 2, 64): True}),
    "s2": lambda: findings.s2(48, 16, per=8),
    "checkpointed": lambda: findings.checkpointed(1_845_252, without=7_407_620, layer_inputs=262_144,
                                                  output_layer=1_574_912, equal=True),
    "checkpoint_ratio": lambda: findings.checkpoint_ratio(4.01, 3.99),
    "long_checkpoint": lambda: findings.long_checkpoint("Llama-2-7B", 4096, without=25.1e9, with_checkpointing=1.73e9,
                                                        peak=2.5e9),
    "extras": lambda: findings.extras(25.12e9, 25.1e9),
    "bf16_norms": lambda: findings.bf16_norms(20.7e9, 25.1e9),
    "summary": lambda: findings.summary(backward_ratio=2, attention_share=0.14, states={"fp32": 16, "mixed": 16},
                                        short={"sdpa": 0.008, "eager": 0.323}, s2=(6, 2), checkpointed=0.25),
}


def _texts():
    """Each sample's text (the first call where a finding has several)."""
    return {name: str((calls[0] if isinstance(calls, list) else calls)()) for name, calls in SAMPLES.items()}


def _both(texts):
    """``texts()`` in English and in Chinese."""
    english = texts()
    with speaking("zh"):
        return english, texts()


def test_english_with_the_chapters_numbers():
    texts = _texts()
    assert texts["shape"] == ("2 layers of hidden size 128, 4 query and 2 KV heads of width 32, SwiGLU of width 352, "
                              "512 tokens")
    assert "2 sequences × 256 tokens = 512 tokens" in texts["flops_counted"]
    assert "aten.mm: 444596224, aten.bmm: 134217728" in texts["flops_counted"]
    assert (texts["forward_terms"].splitlines()[2]
            == "2·(N − norms)·tokens             444,596,224   = sdpa's forward: True")
    assert texts["forward_terms"].splitlines()[3].startswith("  + a third of 12·L·H·Q·T·tokens 578,813,952")
    assert "sdpa: ran, counted as 0 FLOPs: ['aten._flash_attention']" in texts["ops_without_formula"]
    assert "and 2 other ops: elementwise" in texts["ops_without_formula"]
    assert "S × S softmax" in texts["ops_without_formula"]
    assert "attention's share of the step: 13.9%; the norm scales' share of N: 0.004%" in texts["step_flops"]
    assert "84 bytes for 21 tensors" in texts["states_held"]
    assert texts["no_gpu"] == "No GPU here: torch.cuda.max_memory_allocated has nothing to measure; skipped."
    assert texts["step_peak"].endswith("= 11.0 MB (1.09×)")
    assert texts["forward_peak"] == "batch 2: peak above the weights 7.50 MB, formula 7.35 MB (1.02×)"
    assert "(the loss)" in texts["saved"] and "704" in texts["saved"]
    assert texts["layer_formula"] == "chapter 2, one layer: 20·h + 8 + 4·k·d + 8·F = 5640 bytes per token"
    assert "token ids and shifted labels, int64" in texts["left_out_terms"]
    assert texts["left_out_terms"].startswith("sdpa:\n")
    assert texts["left_out_terms"].endswith("formula + these = measured: True")
    assert "14,468.0" in texts["per_token_sweep"]
    assert texts["s2"].endswith("per head and layer 6 and 2")
    assert "measured 1,845,252 bytes, 4.0× less than without" in texts["checkpointed"]
    assert texts["checkpointed"].endswith("formula + ids, labels and total weight = measured: True")
    assert texts["checkpoint_ratio"] == "tiny model, end of the forward pass: measured 4.0× less, formula 4.0× less"
    assert texts["long_checkpoint"] == ("Llama-2-7B, one sequence of 4,096 tokens, by the formula: 25.1 GB without, "
                                        "1.73 GB with checkpointing (14.5× less); peak with one layer recomputed "
                                        "2.50 GB")
    assert "0.08% more than the formula" in texts["extras"]
    assert "20.7 GB, 18% short of it" in texts["bf16_norms"]
    assert "1% / 32%" in texts["summary"] and "25%" in texts["summary"]


def test_chinese_with_the_same_numbers():
    english, chinese = _both(_texts)
    for name, text in chinese.items():
        assert CHINESE.search(text) and not english_prose(text), (name, text)
        assert set(NUMBER.findall(english[name])) <= set(NUMBER.findall(text)) | {"1"}, name
    assert "21 个张量共 84 字节" in chinese["states_held"]
    assert "少 32.3%" in chinese["formula_short"] and "数据类型" in chinese["saved"]


def test_the_labels_in_english_with_the_chapters_numbers():
    texts = _texts()
    assert texts["params_match"].splitlines()[0].split() == ["config.json", "transformers", "count_params", "equal"]
    assert [line.split() for line in texts["params_match"].splitlines()[2:]] == [
        ["gpt2", "124,439,808", "124,439,808", "True"], ["llama-2-7b", "6,738,415,616", "1", "False"]]
    assert texts["formula_short"].splitlines() == [
        "sdpa   measured  7,407,620 bytes; chapter 2's formula  7,350,272: 0.8% short",
        "eager  measured 13,944,836 bytes; chapter 2's formula  9,447,424: 32.3% short"]
    assert texts["output_formula"] == "chapter 2, output layer: 8·s·b·h + 4·s·b + 4·s·b·V = 1,574,912 bytes"
    assert texts["dtypes"] == "dtypes saved: ['bfloat16', 'float32']"
    table = str(findings.saved(TENSORS))
    assert "dtype" in table and "(the loss)" in table


def test_the_labels_in_chinese_with_exactly_the_same_numbers():
    def labels():
        return {"params": str(SAMPLES["params_match"]()), "short": str(SAMPLES["formula_short"]()),
                "output": str(SAMPLES["output_formula"]()), "dtypes": str(SAMPLES["dtypes"]()),
                "saved": str(findings.saved(TENSORS))}

    english, chinese = _both(labels)
    for name, text in chinese.items():
        assert CHINESE.search(text) and not english_prose(text), (name, text)
        assert NUMBER.findall(english[name]) == NUMBER.findall(text), name
    assert "少 32.3%" in chinese["short"] and "数据类型" in chinese["saved"]


def test_the_figures_are_the_measurements_as_plain_data():
    found = SAMPLES["flops_counted"]()
    assert found["tokens"] == 512 and [r["ratio"] for r in found["rows"]] == [2, 2]
    assert SAMPLES["forward_terms"]()["sdpa_equal"] is True
    assert SAMPLES["states_held"]()["rows"][0]["total"] == 16
    assert findings.saved([SAVED], tokens=512, strip="model.layers.0.")["rows"] == [
        {"module": "mlp", "dtype": "bfloat16", "shape": [2, 256, 352], "bytes": 360_448, "per_token": 704}]
    assert SAMPLES["per_token_sweep"]()["rows"] == [
        {"batch": 2, "seq": 64, "per_token": {"sdpa": 14_468.0, "eager": 18_020.0}, "exact": True}]
    extras = findings.extras(sp.Integer(25_100_000_000) + sp.Integer(20_000_000), 25.1e9)  # SymPy, as the chapter's
    assert extras["kept"] == 25_120_000_000 and type(extras["kept"]) is int


def test_the_gpu_cells_inputs():
    """Chapter 6's GPU cells, with a peak as torch.cuda would give it (an int of bytes) and the estimates the cells
    work out from the formulas (they run only on a GPU; without one they show no_gpu)."""
    states = le.count_params(TINY).total * mem.state_bytes_per_param("mixed").total
    activations = mem.activations_per_gpu(TINY, 2, 256, flash=True)
    assert str(findings.step_peak(12_345_678, states, activations)) == (
        "peak during one mixed-precision step: 12.3 MB; estimate: states 8.01 MB + activations 7.35 MB = 15.4 MB "
        "(0.80×)")
    found = findings.forward_peak(4, 18_000_000, mem.activations_per_gpu(TINY, 4, 256, flash=True))
    assert str(found) == "batch 4: peak above the weights 18.0 MB, formula 14.7 MB (1.22×)"
    assert found["above"] == 18_000_000 and found["batch"] == 4
    with speaking("zh"):
        assert str(findings.no_gpu()) == "这里没有 GPU：torch.cuda.max_memory_allocated 无从测量，已跳过。"


@pytest.mark.parametrize("call, parameter", [
    (lambda: findings.shape("llama"), "cfg"),
    (lambda: findings.flops_counted({}, 2, 256), "flops"),
    (lambda: findings.flops_counted(FLOPS, 0, 256), "batch"),
    (lambda: findings.flops_counted({"sdpa": 3}, 2, 256), "flops"),
    (lambda: findings.forward_terms({"sdpa": FLOPS["sdpa"]}, n=1, norms=0, plain=1, matmul=1, attention=1, step=1),
     "flops"),
    (lambda: findings.forward_terms(FLOPS, n=1, norms=-1, plain=1, matmul=1, attention=1, step=1), "norms"),
    (lambda: findings.step_flops(3, matmul=1, attention=0, norms_share=0), "counted"),
    (lambda: findings.states_held({"mixed": _Held()}, tensors=0), "tensors"),
    (lambda: findings.saved([], strip=3), "strip"),
    (lambda: findings.saved([1, 2]), "tensors"),
    (lambda: findings.left_out_terms("sdpa", [("nothing", "4", 4)], True), "terms"),
    (lambda: findings.left_out_terms("sdpa", [("ids", "4", 4)], "yes"), "equal"),
    (lambda: findings.per_token_sweep({("sdpa", 2, 64): 1}, {}), "exact"),
    (lambda: findings.s2(48, 16, per=0), "per"),
    (lambda: findings.step_peak(-1, 1, 1), "peak"),
    (lambda: findings.forward_peak(2, 1, 0), "estimate"),
    (lambda: findings.params_match({}), "counts"),
    (lambda: findings.params_match({"gpt2": 124_439_808}), "counts"),
    (lambda: findings.params_match({"gpt2": (0, 1)}), "counts"),
    (lambda: findings.formula_short({"sdpa": 1}, {}), "formula"),
    (lambda: findings.formula_short({"sdpa": -1}, {"sdpa": 1}), "measured"),
    (lambda: findings.output_formula(-1), "nbytes"),
    (lambda: findings.dtypes([]), "tensors"),
    (lambda: findings.long_checkpoint("Llama-2-7B", 0, without=1, with_checkpointing=1, peak=1), "seq"),
    (lambda: findings.extras(sp.Symbol("x"), 1), "kept"),
    (lambda: findings.summary(backward_ratio=2, attention_share=0.1, states={"fp32": 16}, short={"sdpa": 0.1},
                              s2=(6,), checkpointed=0.25), "s2"),
])
def test_bad_input_names_the_parameter(call, parameter):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.param == parameter


def test_the_chapters_measurements_of_the_tiny_model():
    """The tiny model measured as chapter 6 measures it: the counted FLOPs and the saved activations, beside chapter 2
    and 3's formulas, read exactly as the chapter shows them."""
    pytest.importorskip("transformers")
    measure = pytest.importorskip("llmest.formulas.measure")
    from llmest import compute as c

    batch, seq = 2, 256
    tokens = batch * seq
    flops = {}
    for attention in measure.ATTENTION:
        model = measure.build_model(TINY_CONFIG, attention=attention)
        flops[attention] = measure.count_flops(model, measure.token_batch(model, batch, seq))
    n, norms = c.flops_params(TINY), le.count_params(TINY)["norms"]
    attention_step = c.attention_flops_per_token(TINY.num_layers, TINY.num_heads, TINY.head_dim, seq) * tokens
    found = findings.forward_terms(flops, n=n, norms=norms, plain=c.forward_flops_per_token(n) * tokens,
                                   matmul=c.forward_flops_per_token(n - norms) * tokens, attention=attention_step,
                                   step=c.training_flops_per_token(n - norms) * tokens + attention_step)
    assert str(found).splitlines() == [
        "N of 6·N (flops_params) = 434,816, of which norm scales: 640",
        "2·N·tokens                       445,251,584",
        "2·(N − norms)·tokens             444,596,224   = sdpa's forward: True",
        "  + a third of 12·L·H·Q·T·tokens 578,813,952   = eager's forward: True",
        "eager's whole step = 6·(N − norms)·tokens + 12·L·H·Q·T·tokens: True"]
    assert str(findings.flops_counted(flops, batch, seq)).splitlines()[3:] == [
        "sdpa       444,596,224    889,192,448                   2  aten.mm: 444596224",
        "eager      578,813,952  1,157,627,904                   2  aten.mm: 444596224, aten.bmm: 134217728"]
    model = measure.build_model(TINY_CONFIG, dtype="bf16", attention="sdpa")
    saved = measure.saved_for_backward(model, measure.token_batch(model, batch, seq))
    formula = mem.activations_per_gpu(TINY, batch, seq, flash=True)
    assert str(findings.formula_short({"sdpa": saved.total}, {"sdpa": formula})) == (
        "sdpa  measured  7,407,620 bytes; chapter 2's formula  7,350,272: 0.8% short")
    outside = str(findings.saved([t for t in saved.tensors if not t.module.startswith("model.layers.")]))
    assert outside.splitlines()[-1].split() == ["(the", "loss)", "float32", "()", "4"]
    assert str(findings.dtypes(saved.tensors)) == "dtypes saved: ['bfloat16', 'float32', 'int64']"
