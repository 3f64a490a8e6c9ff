"""Chapter 6's labels that were left in English (llmest.measure_text): the parameter-count table, the formula's
shortfall, the output layer's formula and the dtypes saved, in English with the chapter's numbers and under
speaking("zh") in Chinese with no English prose. The measurements are stand-ins, so these run without PyTorch."""

import re
from types import SimpleNamespace

import pytest

from llmest import InputError
from llmest import measure_text as mt
from llmest.edition import english_prose
from llmest.i18n import speaking

CHINESE = re.compile(r"[\u4e00-\u9fff]")
TENSORS = [SimpleNamespace(module="lm_head", dtype="bfloat16", shape=(512, 128), nbytes=131_072),
           SimpleNamespace(module="", dtype="float32", shape=(), nbytes=4)]


def _texts():
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
    assert texts["params"].splitlines()[0].split() == ["config.json", "transformers", "count_params", "equal"]
    assert [line.split() for line in texts["params"].splitlines()[2:]] == [
        ["gpt2", "124,439,808", "124,439,808", "True"], ["llama-2-7b", "6,738,415,616", "1", "False"]]
    assert texts["short"].splitlines() == [
        "sdpa   measured  7,407,620 bytes; chapter 2's formula  7,350,272: 0.8% short",
        "eager  measured 13,944,836 bytes; chapter 2's formula  9,447,424: 32.3% short"]
    assert texts["output"] == "chapter 2, output layer: 8·s·b·h + 4·s·b + 4·s·b·V = 1,574,912 bytes"
    assert texts["dtypes"] == "dtypes saved: ['bfloat16', 'float32']"
    assert "dtype" in texts["saved"] and "(the loss)" in texts["saved"]


def test_chinese_with_the_same_numbers():
    english = _texts()
    with speaking("zh"):
        chinese = _texts()
    number = re.compile(r"\d+(?:[,.]\d+)*")
    for name, text in chinese.items():
        assert CHINESE.search(text) and not english_prose(text), (name, text)
        assert number.findall(english[name]) == number.findall(text), name
    assert "少 32.3%" in chinese["short"] and "数据类型" in chinese["saved"]


@pytest.mark.parametrize("call, parameter", [
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
