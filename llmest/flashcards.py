"""Flashcards: the numbers to know by heart, each computed by the library."""

from __future__ import annotations

from dataclasses import dataclass

from . import compute as c
from . import data as dt
from . import hardware
from . import material
from . import memory as mem
from . import model as m
from . import plans
from . import runs
from ._validate import InputError, quote
from .drills.problem import TOPICS, chosen_topics, tflops_text
from .units import format_bytes, format_count, format_flops, format_int, format_percent


@dataclass(frozen=True)
class Card:
    topic: str
    front: str
    back: str


def _kv_card(name) -> Card:
    cfg = m.preset(name)
    per_token = mem.kv_cache_bytes_for(cfg, 1)
    return Card("serving", f"KV cache per token of {name} in BF16 ({cfg.num_layers} layers, {cfg.num_kv_heads} KV "
                           f"heads × {cfg.head_dim})",
                f"{format_int(per_token / 1024)} KiB ({format_bytes(mem.kv_cache_bytes_for(cfg, 4096))} for 4,096 "
                "tokens)")


def cards(topics=None) -> list[Card]:
    """The cards, in a fixed order; ``topics`` (None, a topic, a comma-separated string or a list) filters them."""
    if topics is not None and not isinstance(topics, (str, list, tuple, set, frozenset)):
        raise InputError("topics", f"topics == {quote(topics)}, must be a topic or a list of them, from "
                                   f"{', '.join(TOPICS)}.")
    chosen = chosen_topics(topics)
    mixed = mem.state_bytes_per_param("mixed", "adamw")
    typical_mfu = material.get("000-1.2-mfu").stated
    llama7 = m.preset("llama-2-7b")
    mixtral = m.count_params(m.preset("mixtral-8x7b"))
    every = [
        Card("parameters", "Parameters of one Transformer layer of hidden size H (the rule)",
             f"12·H²: 4H² attention + 8H² FFN ({format_count(m.rule_layer_params(4096))} at H = 4,096)"),
        Card("parameters", "The 7B shape: layers, hidden size, vocabulary, and the exact count of Llama-2-7B",
             f"{llama7.num_layers} layers, {llama7.hidden_size:,} hidden, {llama7.vocab_size:,} tokens: "
             f"{format_int(m.count_params(llama7).total)}"),
        Card("parameters", "Mixtral-8x7B: total and active parameters",
             f"{format_count(mixtral.total)} total, {format_count(mixtral.active)} active (2 of 8 experts)"),
        Card("parameters", "Extra parameters of rank-r LoRA on a d_in × d_out matrix",
             f"r·(d_in + d_out): {format_int(mem.lora_matrix_params(16, 4096, 4096))} for r = 16 on 4,096 × 4,096"),
    ] + [
        Card("memory", f"Bytes per parameter of {fmt.upper()} weights", f"{mem.WEIGHT_FORMATS[fmt].bytes_per_param:g}")
        for fmt in ("fp32", "bf16", "int8")
    ] + [
        Card("memory", "Bytes per parameter of 4-bit weights, bare and with GPTQ's scales (groups of 128)",
             f"0.5 bare; {mem.WEIGHT_FORMATS['int4'].bytes_per_param:.3g} with an fp16 scale and a 4-bit zero point "
             "per group"),
        Card("memory", "Training bytes per parameter, mixed-precision AdamW",
             f"{mixed.total:g}: weights {mixed.weights:g} + master {mixed.master:g} + gradients {mixed.grads:g} + "
             f"moments {mixed.optimizer:g}"),
        Card("memory", "Training bytes per parameter, AdamW on a model cast to BF16 (no master copy)",
             f"{mem.state_bytes_per_param('bf16', 'adamw').total:g}"),
        Card("memory", "Optimizer state bytes per parameter (FP32 states): AdamW, 8-bit Adam, SGD with momentum, "
                       "Adafactor",
             ", ".join(f"{name} {mem.state_bytes_per_param('fp32', name).optimizer:.3g}"
                       for name in ("adamw", "adam8bit", "sgd-momentum", "adafactor"))),
        Card("memory", "Training states of a 7B with mixed-precision AdamW",
             format_bytes(mem.training_state_bytes(7e9, mixed.total))),
        Card("memory", "Weights of a 70B in BF16, and in 4 bits",
             f"{format_bytes(mem.weight_bytes(70e9, 2))}, {format_bytes(mem.weight_bytes(70e9, 0.5))}"),
        Card("memory", "Memory margin to keep free on a GPU", f"{format_percent(mem.MEMORY_MARGIN, 0)}"),
        Card("compute", "Forward FLOPs per token of an N-parameter dense model",
             f"2N ({format_flops(c.forward_flops_per_token(7e9))} for a 7B)"),
        Card("compute", "Training FLOPs per token (forward + backward)",
             f"6N = 2N forward + 4N backward ({format_flops(c.training_flops_per_token(7e9))} for a 7B)"),
        Card("compute", "FLOPs to train a 7B on 1T tokens", format_flops(c.training_flops(7e9, 1e12))),
        Card("compute", "Typical MFU of large pre-training runs, and a well-measured one",
             f"{format_percent(typical_mfu[0], 0)}-{format_percent(typical_mfu[1], 0)} (the material); PaLM 540B "
             "measured "
             f"{format_percent(runs.palm_mfu(with_attention=True), 1)} "
             f"({format_percent(runs.palm_mfu(with_attention=False), 1)} without the "
             "attention FLOPs)"),
        Card("compute", "Time margin on a training estimate",
             plans.TIME_MARGIN_TEXT),
        Card("compute", "A100 GPU-hours to train a 7B on 1T tokens at 40% MFU",
             format_int(plans.estimate_time(1e12, n_params=7e9, gpu="A100 80GB", mfu=0.4).gpu_hours)),
        Card("data", "Compute-optimal tokens per parameter (Chinchilla's rule)", f"{dt.TOKENS_PER_PARAM}"),
        Card("data", "Chinchilla-optimal tokens for a 70B", format_count(dt.chinchilla_tokens(70e9))),
    ] + [
        Card("data", f"Tokens per GB of cleaned {'code' if language == 'code' else language.capitalize()} (the "
                     "material's range)",
             f"{format_count(low)} to {format_count(high)}") for language, (low, high) in dt.TOKENS_PER_GB.items()
    ] + [
        Card("compute", f"{name}: dense BF16 peak, memory and its bandwidth",
             f"{tflops_text(name)}, {hardware.gpu(name).memory_text}, "
             f"{format_bytes(hardware.gpu(name).bandwidth_bytes_per_s)}/s")
        for name in ("A100 80GB", "H100 SXM", "H200", "B200")
    ] + [_kv_card(name) for name in ("llama-2-7b", "llama-2-70b", "llama-3-8b", "mistral-7b")]
    return [card for card in every if card.topic in chosen]
