"""Bad model configs: config.json files and pasted JSON, config dicts, ModelConfig fields, replace() and the
formulas of llmest.model all answer bad input with an InputError naming the parameter, never a traceback."""

import json
import os
import threading
from pathlib import Path

import pytest

import llmest as le
from llmest import model as m

FIXTURES = Path(__file__).parent / "fixtures"
LLAMA = (FIXTURES / "llama-2-7b.json").read_text()


def _refused(call, param, *words):
    with pytest.raises(le.InputError) as err:
        call()
    assert err.value.param == param, str(err.value)
    for word in words:
        assert word in str(err.value), str(err.value)
    assert len(str(err.value)) < 400, str(err.value)
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
