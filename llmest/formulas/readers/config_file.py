"""Model configs as data: a Hugging Face ``config.json`` read from a file, its folder or pasted JSON text, into a
dict; the published ``config.json`` files that ship with the package; and the fields of the named presets.

Whatever is wrong with the input (no such file, a FIFO, a huge or binary file, invalid or too deeply nested JSON,
JSON that is not an object) is an InputError naming the parameter and the value; nothing blocks or recurses away.
"""

from __future__ import annotations

import json
import os
import stat
from importlib import resources
from pathlib import Path

from ...core import _validate as v
from ...core._validate import InputError, quote
from ...core.i18n import N_, _

MAX_BYTES = 10_000_000  # a real config.json is a few KB
# The largest size or count a model may have (hidden size, layers, experts, ...): far above any real model, and
# exact as a float (below 2**53), so that every count stays finite and exact.
MAX_SIZE = 10**15
# Published config.json files, one or more for every model type the library reads, shipped as package data so that a
# chapter finds them wherever llmest is installed; where each was copied from is in SOURCES.md beside them.
CONFIGS = Path(str(resources.files("llmest") / "catalog" / "configs"))
PASTED = N_("the pasted config.json")
_IRREGULAR = N_("{named} is not a regular file (a FIFO, a device or a socket?).")
_TOO_LARGE = N_("{name} == {value}, must be <= {maximum}.")


def read_json(text: str, param: str = "config", where: str = PASTED) -> dict:
    """The JSON object in ``text`` (a leading byte-order mark allowed)."""
    where = _(PASTED) if where == PASTED else where
    if not isinstance(text, str):
        raise InputError(param, _("{param} == {value}, must be the JSON text of a config.json.").format(
            param=param, value=quote(text)))
    if len(text) > MAX_BYTES:
        raise InputError(param, _("{where} holds {length} characters, more than a config.json (at most {most}).")
                         .format(where=where, length=f"{len(text):,}", most=f"{MAX_BYTES:,}"))
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InputError(param, _("{where} is empty; it must hold a JSON object such as {example}.").format(
            where=where, example='{"model_type": ...}'))
    try:
        loaded = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as err:
        raise InputError(param, _("{where} is not valid JSON: {reason} (line {line}, column {column}).").format(
            where=where, reason=err.msg, line=err.lineno, column=err.colno))
    except RecursionError:
        raise InputError(param, _("{where} is not a config.json: its JSON is nested too deeply to read.").format(
            where=where)) from None
    if not isinstance(loaded, dict):
        raise InputError(param, _("{where} must hold a JSON object, not {kind}.").format(
            where=where, kind=type(loaded).__name__))
    found = _too_long(loaded)
    if found is not None:
        raise InputError(param, _("{where}: {key} is an integer of {digits} digits, too long to read as a number.")
                         .format(where=where, key=found[0], digits=f"{len(found[1].lstrip('-')):,}"))
    return loaded


class _TooLong(str):
    """An integer of the JSON text that Python refuses to read (more digits than sys.get_int_max_str_digits)."""


def _integer(digits: str):
    try:
        return int(digits)
    except ValueError:
        return _TooLong(digits)


def _too_long(config: dict):
    """(key, digits) of the first integer too long to read (``text_config.num_hidden_layers``, ``layer_types[3]``),
    or None; walked without recursion, as deep as the JSON reader allowed."""
    stack = [("", config)]
    while stack:
        path, value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in reversed(list(items)):
            where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else str(key)
            if isinstance(item, _TooLong):
                return where, str(item)
            stack.append((where, item))
    return None


def read_file(path, param: str = "config") -> dict:
    """The JSON object in the file ``path``, or in the ``config.json`` of the folder ``path``."""
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(param, _("{param} == {value}, must be a path to a config.json.").format(
            param=param, value=quote(path)))
    named = f"{param} == {quote(path)}"
    info = _stat(path, named, param)
    if stat.S_ISDIR(info.st_mode):
        path = Path(path) / "config.json"
        named = f"{param} == {quote(path)}"
        info = _stat(path, f"{named} (the folder has no config.json)", param)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(param, _(_IRREGULAR).format(named=named))
    if info.st_size > MAX_BYTES:
        raise InputError(param, _("{named} holds {size} bytes; a config.json holds a few thousand (at most {most} "
                                  "read).").format(named=named, size=f"{info.st_size:,}", most=f"{MAX_BYTES:,}"))
    try:
        # Non-blocking, in case the file was swapped for a FIFO since the check above.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise InputError(param, _(_IRREGULAR).format(named=named))
            data = file.read(MAX_BYTES + 1)
    except OSError as err:
        raise InputError(param, _("{named} cannot be read: {reason}.").format(named=named,
                                                                               reason=err.strerror or err)) from None
    if len(data) > MAX_BYTES:
        raise InputError(param, _("{named} holds more than {most} bytes; a config.json holds a few thousand.").format(
            named=named, most=f"{MAX_BYTES:,}"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(param, _("{named} is not UTF-8 text (byte {index} is {byte}): a binary file, not a "
                                  "config.json?").format(named=named, index=f"{err.start:,}",
                                                         byte=f"{data[err.start]:#04x}")) from None
    return read_json(text, param, where=named)


def _stat(path, named: str, param: str) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise InputError(param, _("{named}: no such file.").format(named=named)) from None
    except (OSError, ValueError) as err:  # a name too long, a NUL byte in it, a file where a folder should be
        reason = getattr(err, "strerror", None) or str(err)
        raise InputError(param, _("{named}: no such file ({reason}).").format(named=named, reason=reason)) from None


def load(config, param: str = "config") -> dict:
    """A config.json as a dict: given as a dict, a path to the file (or to its folder), or its JSON text."""
    if isinstance(config, dict):
        return config
    if isinstance(config, str) and config.removeprefix("\ufeff").lstrip()[:1] in ("{", "["):
        return read_json(config, param)
    if isinstance(config, (str, os.PathLike)):
        return read_file(config, param)
    raise InputError(param, _("{param} == {value}, must be a dict, a path to config.json, or its JSON text.").format(
        param=param, value=quote(config)))


# ----------------------------------------------------------------------------------------------------------------
# The sizes a model holds: formulas' arguments and ModelConfig's integer fields
# ----------------------------------------------------------------------------------------------------------------

def count(field, value, minimum=1, maximum=MAX_SIZE) -> int:
    """An integer field in [minimum, maximum] (an integral float such as 4096.0 is taken as 4096)."""
    if type(value) is int and minimum <= value <= maximum:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not -MAX_SIZE <= value <= maximum:
        message = _(_TOO_LARGE) if value > maximum else _("{name} == {value}, must be an integer >= {minimum}.")
        raise InputError(field, message.format(name=field, value=quote(value), maximum=f"{maximum:,}",
                                               minimum=minimum))  # no 5,000-digit message
    return v.check_int(field, value, minimum=minimum, maximum=maximum)


def sizes(**values) -> list:
    """The sizes, checked: > 0 and at most MAX_SIZE; NumPy scalars become Python numbers, so that they count alike
    (no int64 wrap-around); NumPy arrays and SymPy expressions pass."""
    checked = []
    for name, value in values.items():
        if type(value) is int and 0 < value <= MAX_SIZE:  # the common case, fast
            checked.append(value)
            continue
        value = v.plain(value)
        if isinstance(value, (list, tuple, str, bytes)):  # NumPy would read [1] as an array, and [1] * 4 repeats
            raise InputError(name, _("{name} == {value}, must be a number (or a NumPy array of them).").format(
                name=name, value=quote(value)))
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 < value <= MAX_SIZE:
                message = _("{name} == {value}, must be > 0.") if value <= 0 else _(_TOO_LARGE)
                raise InputError(name, message.format(name=name, value=quote(value), maximum=f"{MAX_SIZE:,}"))
        else:
            value = _bounded(name, v.check_positive(name, value))
        checked.append(value)
    return checked


def _bounded(name, value):
    if v.is_symbolic(value):
        return value
    if isinstance(value, float):
        if value > MAX_SIZE:
            raise InputError(name, _(_TOO_LARGE).format(name=name, value=quote(value), maximum=f"{MAX_SIZE:,}"))
        return value
    import numpy as np  # an array: NumPy is loaded already

    value = np.asarray(value)
    if value.max() > MAX_SIZE:
        raise InputError(name, _(_TOO_LARGE).format(name=name, value=quote(value.max().item()),
                                                    maximum=f"{MAX_SIZE:,}"))
    # Large integers multiply past int64 (products of three sizes); floats stay exact below 2**53.
    return value.astype(float) if value.dtype.kind in "iu" and value.max() > 2**20 else value


# ----------------------------------------------------------------------------------------------------------------
# The models of 2025-26, read from their config.json in llmest/catalog/configs (SOURCES.md there says where each
# came from) and named by its file: hybrids of attention with linear attention, Mamba or convolutions, sparse
# attention, MoE with zero-computation experts, and the dense newcomers.
STORED_PRESETS = (
    "deepseek-v3.2-exp", "qwen3-next-80b-a3b", "kimi-linear-48b-a3b", "nemotron-nano-12b-v2-base", "jamba-1.5-mini",
    "falcon-h1-7b", "granite-4.0-h-tiny", "granite-4.0-h-1b", "bamba-9b", "lfm2-1.2b", "glm-4.7-flash", "minimax-m2",
    "longcat-flash-chat", "ernie-4.5-21b-a3b", "seed-oss-36b", "olmo-3-7b", "exaone-4.0-32b", "smollm3-3b",
)


# The presets: ModelConfig's fields for each named model (model.PRESETS builds them)
# ----------------------------------------------------------------------------------------------------------------

def _llama_like(vocab, hidden, layers, heads, kv, ffn, tie=False, **extra):
    return dict(vocab_size=vocab, hidden_size=hidden, num_layers=layers, num_heads=heads, num_kv_heads=kv,
                ffn_hidden_size=ffn, gated_ffn=True, norm="rmsnorm", tie_embeddings=tie, **extra)


PRESET_FIELDS = {
    # The material's teaching model (seed 004 §1.1): H=4096, L=32, V=32000, a 4H FFN, one tied embedding table.
    "material-7b": dict(vocab_size=32000, hidden_size=4096, num_layers=32, num_heads=32, tie_embeddings=True),
    "gpt2": dict(vocab_size=50257, hidden_size=768, num_layers=12, num_heads=12, attention_bias="all",
                 ffn_bias=True, tie_embeddings=True, position_embedding="learned", max_positions=1024),
    "gpt2-xl": dict(vocab_size=50257, hidden_size=1600, num_layers=48, num_heads=25, attention_bias="all",
                    ffn_bias=True, tie_embeddings=True, position_embedding="learned", max_positions=1024),
    "llama-2-7b": _llama_like(32000, 4096, 32, 32, 32, 11008),
    "llama-2-13b": _llama_like(32000, 5120, 40, 40, 40, 13824),
    "llama-2-70b": _llama_like(32000, 8192, 80, 64, 8, 28672),
    "llama-33b": _llama_like(32000, 6656, 60, 52, 52, 17920),  # LLaMA-1 "33B" (sometimes "30B")
    "llama-65b": _llama_like(32000, 8192, 80, 64, 64, 22016),  # LLaMA-1 65B
    # Llama 2 34B was not released; this is the shape of Code Llama 34B, which was trained from it.
    "llama-2-34b": _llama_like(32000, 8192, 48, 64, 8, 22016),
    "llama-3-8b": _llama_like(128256, 4096, 32, 32, 8, 14336),
    "llama-3.1-70b": _llama_like(128256, 8192, 80, 64, 8, 28672),
    "llama-3.1-405b": _llama_like(128256, 16384, 126, 128, 8, 53248),
    "mistral-7b": _llama_like(32000, 4096, 32, 32, 8, 14336, local_window=4096),  # a 4,096-token window
    "mixtral-8x7b": _llama_like(32000, 4096, 32, 32, 8, 14336, num_experts=8, experts_per_token=2),
    "mixtral-8x22b": _llama_like(32000, 6144, 56, 48, 8, 16384, num_experts=8, experts_per_token=2),
    "qwen2-0.5b": _llama_like(151936, 896, 24, 14, 2, 4864, tie=True, attention_bias="qkv"),
    "qwen2-7b": _llama_like(152064, 3584, 28, 28, 4, 18944, attention_bias="qkv"),
    "qwen1.5-moe-a2.7b": _llama_like(151936, 2048, 24, 16, 16, 5632, attention_bias="qkv", num_experts=60,
                                     experts_per_token=4, expert_ffn_hidden_size=1408, num_shared_experts=1,
                                     shared_expert_ffn_hidden_size=5632, shared_expert_gate=True),
    "gemma-7b": _llama_like(256000, 3072, 28, 16, 16, 24576, tie=True, head_dim=256),
    "phi-3-mini": _llama_like(32064, 3072, 32, 32, 32, 8192, local_window=2047),
    "olmo-2-7b": _llama_like(100352, 4096, 32, 32, 32, 11008, qk_norm=True),
    "falcon-7b": dict(vocab_size=65024, hidden_size=4544, num_layers=32, num_heads=71, num_kv_heads=1,
                      tie_embeddings=True, parallel_blocks=True),
    "pythia-1.4b": dict(vocab_size=50304, hidden_size=2048, num_layers=24, num_heads=16, attention_bias="all",
                        ffn_bias=True, parallel_blocks=True, norms_per_layer=2),
    "opt-1.3b": dict(vocab_size=50272, hidden_size=2048, num_layers=24, num_heads=32, attention_bias="all",
                     ffn_bias=True, tie_embeddings=True, position_embedding="learned", max_positions=2050),
    # Multi-head latent attention: head_dim is the query/key width, 128 without positions + 64 rotary.
    "deepseek-v3": _llama_like(129280, 7168, 61, 128, None, 18432, head_dim=192, kv_lora_rank=512,
                               q_lora_rank=1536, qk_rope_head_dim=64, v_head_dim=128, num_experts=256,
                               experts_per_token=8, expert_ffn_hidden_size=2048, num_shared_experts=1,
                               moe_layers=58,  # the first 3 of 61 layers are dense
                               mtp_layers=1),  # one multi-token-prediction module, counted apart
    "qwen3-8b": _llama_like(151936, 4096, 36, 32, 8, 12288, head_dim=128, qk_norm=True, qk_norm_per_head=True),
    "qwen3-30b-a3b": _llama_like(151936, 2048, 48, 32, 4, 6144, head_dim=128, qk_norm=True, qk_norm_per_head=True,
                                 num_experts=128, experts_per_token=8, expert_ffn_hidden_size=768),
    "gpt-oss-120b": _llama_like(201088, 2880, 36, 64, 8, 2880, head_dim=64, attention_bias="all",
                                attention_sinks=True, num_experts=128, experts_per_token=4, ffn_bias=True,
                                router_bias=True, local_window=128, local_layers=18),  # every other layer local
    "gemma-2-9b": _llama_like(256000, 3584, 42, 16, 8, 14336, tie=True, head_dim=256, norms_per_layer=4,
                              local_window=4096, local_layers=21),
}
