"""Interview drills: randomised Fermi problems with worked solutions, flashcards of the numbers to know, worksheets.

A problem set is fixed by its seed, so a class that uses the same seed gets the same questions. Every answer is
computed by the chapter functions (compute, memory, data, model); an estimate within 25% is correct, within 2×
close. ``python -m llmest.drills --seed 7 --topics memory,compute`` writes a worksheet and its answer key.
"""

from __future__ import annotations

import argparse
import html
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import compute as c
from . import data as dt
from . import hardware
from . import memory as mem
from . import material, runs
from . import model as m
from . import plans
from ._registry import Registry
from ._validate import InputError, check_choice, check_int
from .grading import Exercise, Verdict
from .units import format_bytes, format_count, format_flops, format_int, format_number, format_percent, format_usd, show

LEVELS = ("easy", "medium", "hard")
TOPICS = ("parameters", "memory", "compute", "data", "serving")
CORRECT_WITHIN = 0.25   # an estimate within 25% of the answer is correct; within 2× (grading.CLOSE_FACTOR) close


@dataclass(frozen=True)
class Problem:
    template: str
    topic: str
    level: str
    question: str
    inputs: dict
    answer: float
    unit: str                  # an exercises unit: "count", "bytes", "percent", "usd", "days", "hours", ...
    steps: tuple               # the worked solution, one line a step
    hint: str
    tolerance: float = CORRECT_WITHIN
    minimum: bool = False      # a least number (of GPUs): fewer is wrong however close

    @property
    def exercise(self) -> Exercise:
        return Exercise(self.template, self.question, lambda: self.answer, self.unit, self.tolerance,
                        minimum=self.minimum)

    def check(self, entry) -> Verdict:
        """Grade an entry ("7B", "1.2 T", "55 days", "$1.2M", 4.2e22): correct within 25%, close within 2×."""
        return self.exercise.check(entry)

    @property
    def answer_text(self) -> str:
        """The answer as an estimate is given: three significant figures, with its unit."""
        value = self.answer
        if self.unit == "count":
            return format_count(value) if value >= 1e4 else format_number(value)
        return show(value, self.unit)

    def solution(self) -> str:
        return "\n".join([*self.steps, f"Answer: {self.answer_text}"])


@dataclass(frozen=True)
class Template:
    key: str
    topic: str
    make: Callable      # (random.Random, level) -> Problem


TEMPLATES = Registry("template")


def template(key: str, topic: str):
    def register(make):
        TEMPLATES.register(Template(key, topic, make))
        return make
    return register


def _pick(rng: random.Random, level: str, easy, medium, hard):
    return rng.choice({"easy": easy, "medium": medium, "hard": hard}[level])


def _problem(key, level, question, inputs, answer, unit, steps, hint, **grading) -> Problem:
    return Problem(key, TEMPLATES[key].topic, level, question, inputs, answer, unit, tuple(steps), hint, **grading)


class _Regenerate(Exception):
    """A draw that makes no sense (a model larger than its GPUs, a run of ten years): draw again."""


def _a(phrase: str) -> str:
    """'a 7.00B model', 'an 8.00B model', 'an 80-layer model'."""
    return ("an " if phrase[:1] == "8" or phrase[:2] in ("11", "18") else "a ") + phrase


def _A(phrase: str) -> str:
    """_a at the start of a sentence: 'A 175B run', keeping the rest as it is."""
    text = _a(phrase)
    return text[0].upper() + text[1:]


def _n(count, noun: str) -> str:
    """'1 GPU', '8 GPUs', '1 sequence'."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _size(value) -> str:
    """An input size as an interview says it: 7B, 1.4T, 175B (no trailing zeros)."""
    number, suffix = re.fullmatch(r"([\d.,]+)(\D*)", format_count(value)).groups()
    return f"{float(number.replace(',', '')):g}{suffix}"


# Pools of round inputs by difficulty: easy ones are the numbers interviews use, hard ones are not round.
PARAMS = ([7e9, 70e9], [1e9, 7e9, 13e9, 34e9, 70e9], [3e9, 8e9, 13e9, 34e9, 175e9, 405e9])
TOKENS = ([1e12], [100e9, 300e9, 1e12, 2e12], [140e9, 1.4e12, 3.5e12, 15e12])
TRAINING_GPUS = (["A100 80GB"], ["A100 80GB", "H100 SXM"], ["A100 80GB", "H100 SXM", "H200", "B200"])
MFUS = ([0.4, 0.5], [0.35, 0.4, 0.45, 0.5], [0.3, 0.38, 0.42, 0.48])   # at most 50% until measured (chapter 5)
CLUSTER = ([64, 256], [64, 128, 256, 512], [48, 96, 384, 1024, 2048])
PRICES = {"A100 80GB": 2.5, "H100 SXM": 4.0, "H200": 4.5, "B200": 6.0}   # the material's cloud prices per GPU-hour
SHAPES = {  # (layers, hidden, vocab) of real dense models
    "easy": [(32, 4096, 32000), (40, 5120, 32000), (80, 8192, 32000)],
    "medium": [(32, 4096, 32000), (40, 5120, 32000), (48, 6144, 32000), (80, 8192, 32000)],
    "hard": [(24, 2048, 50257), (60, 6656, 32000), (96, 12288, 50257), (126, 16384, 128256)],
}
# KV-cache models: (preset, layers, KV heads, head width)
KV_MODELS = {"easy": ["llama-2-7b"], "medium": ["llama-2-7b", "llama-2-13b", "mistral-7b"],
             "hard": ["llama-2-70b", "llama-3-8b", "mixtral-8x7b", "qwen2-7b"]}


def _peak(name):
    return hardware.gpu(name).bf16_flops_per_s


def _tflops(name) -> str:
    return f"{_peak(name) / 1e12:,.4g} TFLOPS"


# ----------------------------------------------------------------------------------------------------------------
# Parameters (chapter 1)
# ----------------------------------------------------------------------------------------------------------------

@template("params-from-shape", "parameters")
def _params_from_shape(rng, level):
    layers, hidden, vocab = rng.choice(SHAPES[level])
    answer = m.rule_params(hidden, layers, vocab)
    layer = m.rule_layer_params(hidden)
    return _problem(
        "params-from-shape", level,
        f"A dense Transformer has {layers} layers of hidden size {hidden:,} and a {vocab:,}-token vocabulary "
        "(tied embedding). About how many parameters does it have?",
        dict(layers=layers, hidden=hidden, vocab=vocab), answer, "count",
        [f"One layer: 12·H² = 12 × {hidden:,}² = {format_count(layer)}",
         f"{layers} layers: {format_count(layers * layer)}",
         f"Embedding V·H = {vocab:,} × {hidden:,} = {format_count(m.embedding_params(vocab, hidden))}",
         f"Total: {format_count(answer)}"],
        "A layer holds about 12·H² (4H² attention + 8H² FFN); add V·H once.")


@template("hidden-from-params", "parameters")
def _hidden_from_params(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [13e9, 30e9, 70e9], [20e9, 34e9, 120e9])
    layers = _pick(rng, level, [32, 80], [40, 48, 80], [52, 60, 96])
    vocab = _pick(rng, level, [32000], [32000, 64000], [100000, 152064])
    answer = m.rule_hidden_size(n, layers, vocab)
    return _problem(
        "hidden-from-params", level,
        f"Someone plans a {_size(n)}-parameter dense model with {layers} layers and a {vocab:,}-token "
        "vocabulary. Which hidden size does the 12·H² rule give?",
        dict(n=n, layers=layers, vocab=vocab), answer, "count",
        [f"Without the embedding: H ≈ √(N / 12L) = √({_size(n)} / {12 * layers}) = "
         f"{(n / (12 * layers)) ** 0.5:,.0f}",
         f"With it, solve 12·L·H² + V·H = N for the positive root: H = {answer:,.0f}"],
        "Divide N by 12·L and take the square root; the embedding V·H lowers it a little.")


@template("moe-active", "parameters")
def _moe_active(rng, level):
    layers, hidden = _pick(rng, level, [(32, 4096)], [(32, 4096), (56, 6144)], [(24, 2048), (48, 5120)])
    ffn = _pick(rng, level, [14336, 16384], [14336, 16384], [1408, 8192])
    experts, top_k = _pick(rng, level, [(8, 2)], [(8, 2), (16, 2)], [(64, 4), (60, 6), (128, 8)])
    shared = _pick(rng, level, [1.6e9, 2e9], [1.6e9, 5e9], [0.9e9, 3.2e9])
    expert = m.ffn_params(hidden, ffn, gated=True)
    answer = shared + layers * top_k * expert
    return _problem(
        "moe-active", level,
        f"A mixture-of-experts model has {layers} layers, each with {experts} SwiGLU experts of width {ffn:,} on "
        f"hidden size {hidden:,}; each token is routed to {top_k}. Everything else (attention, embeddings, norms, "
        f"routers) holds {_size(shared)} parameters. How many parameters does one token use?",
        dict(layers=layers, hidden=hidden, ffn=ffn, experts=experts, top_k=top_k, shared=shared), answer, "count",
        [f"One expert: 3·H·F = 3 × {hidden:,} × {ffn:,} = {format_count(expert)}",
         f"A token uses {top_k} per layer: {layers} × {top_k} × {format_count(expert)} = "
         f"{format_count(layers * top_k * expert)}",
         f"Plus the shared {_size(shared)}: {format_count(answer)} active "
         f"(of {format_count(shared + layers * experts * expert)} in all)"],
        "Active = shared + layers × top-k × one expert's 3·H·F.")


@template("lora-params", "parameters")
def _lora_params(rng, level):
    layers, hidden, _ = rng.choice(SHAPES[level])
    rank = _pick(rng, level, [8, 16], [8, 16, 64], [32, 64, 128])
    matrices = _pick(rng, level, [2], [2, 4], [4])
    per_matrix = mem.lora_matrix_params(rank, hidden, hidden)
    answer = layers * matrices * per_matrix
    names = {2: "Q and V", 4: "Q, K, V and O"}[matrices]
    return _problem(
        "lora-params", level,
        f"LoRA of rank {rank} on the {names} projections of {_a(f'{layers}-layer')} model with full multi-head "
        f"attention (so each projection is {hidden:,} × {hidden:,}): how many trainable parameters?",
        dict(layers=layers, hidden=hidden, rank=rank, matrices=matrices), answer, "count",
        [f"One adapted matrix: r·(d_in + d_out) = {rank} × {2 * hidden:,} = {format_int(per_matrix)}",
         f"{matrices} matrices × {layers} layers: {format_count(answer)}"],
        "A rank-r adapter on a d_in × d_out matrix adds r·(d_in + d_out).")


# ----------------------------------------------------------------------------------------------------------------
# Memory (chapter 2)
# ----------------------------------------------------------------------------------------------------------------

@template("weight-memory", "memory")
def _weight_memory(rng, level):
    n = _pick(rng, level, *PARAMS)
    fmt = _pick(rng, level, ["bf16", "int4-plain"], ["bf16", "int8", "int4-plain"], ["int4", "nf4-dq", "fp32"])
    per_param = 0.5 if fmt == "int4-plain" else mem.WEIGHT_FORMATS[fmt].bytes_per_param
    described = {"int4-plain": "4 bits per parameter (ignore the scales)",
                 "int4": "4 bits with an fp16 scale and a 4-bit zero point per group of 128",
                 "nf4-dq": "NF4 with double quantisation (an 8-bit constant per block of 64, an fp32 one per 256 "
                           "blocks)"}.get(fmt, fmt.upper())
    answer = mem.weight_bytes(n, per_param)
    return _problem(
        "weight-memory", level,
        f"How much memory do the weights of {_a(_size(n))}-parameter model take in {described}? (GB)",
        dict(n=n, bytes_per_param=per_param), answer, "bytes",
        [f"Bytes per parameter: {per_param:.4g}",
         f"{_size(n)} × {per_param:.4g} bytes = {format_bytes(answer)}"],
        "Bytes = parameters × bytes per parameter (BF16 2, INT8 1, 4-bit 0.5, plus any scales).")


@template("training-states", "memory")
def _training_states(rng, level):
    n = _pick(rng, level, *PARAMS)
    convention = _pick(rng, level, ["mixed"], ["mixed", "fp32", "bf16"], ["megatron-bf16", "bf16-fp32-states"])
    per_param = mem.state_bytes_per_param(convention, "adamw")
    answer = mem.training_state_bytes(n, per_param.total)
    return _problem(
        "training-states", level,
        f"Training {_a(_size(n))} model with AdamW in the '{convention}' setup "
        f"({mem.CONVENTIONS[convention].used_by}). How much memory do the weights, gradients and optimizer states "
        "take before activations, unsharded? (GB)",
        dict(n=n, convention=convention), answer, "bytes",
        [f"Weights {per_param.weights:g} + master copy {per_param.master:g} + gradients {per_param.grads:g} + "
         f"moments {per_param.optimizer:g} = {per_param.total:g} bytes per parameter",
         f"{_size(n)} × {per_param.total:g} bytes = {format_bytes(answer)}"],
        "Add the bytes of each copy: weights, master copy (if any), gradients, and AdamW's two moments.")


@template("zero-per-gpu", "memory")
def _zero_per_gpu(rng, level):
    n = _pick(rng, level, *PARAMS)
    stage = _pick(rng, level, [3], [1, 2, 3], [1, 2, 3])
    dp = _pick(rng, level, [8], [8, 16, 64], [24, 48, 96])
    per_param = mem.state_bytes_per_param("mixed", "adamw")
    parts = mem.sharded_state_bytes(n, per_param, stage, dp)
    answer = sum(parts.values())
    if answer > plans.usable_bytes("A100 80GB"):
        raise _Regenerate  # a layout nobody would choose: more than an 80 GB GPU holds with 20% free
    return _problem(
        "zero-per-gpu", level,
        f"{_A(_size(n))} model trains with mixed-precision AdamW (16 bytes a parameter) and ZeRO stage {stage} "
        f"over {dp} data-parallel GPUs. How much state does each GPU hold, before activations? (GB)",
        dict(n=n, zero=stage, dp=dp), answer, "bytes",
        [f"ZeRO-{stage} shards " + {1: "the optimizer states and the master copy (12 bytes)",
                                    2: "the optimizer states, the master copy and the gradients (14 bytes)",
                                    3: "all 16 bytes, the weights too,"}[stage] + f" over {dp} GPUs",
         *(f"{part}: {format_bytes(value)}" for part, value in parts.items()),
         f"Per GPU: {format_bytes(answer)}"],
        "Stage 1 shards optimizer states + master copy, stage 2 also gradients, stage 3 also weights.")


@template("gpus-for-states", "memory")
def _gpus_for_states(rng, level):
    n = _pick(rng, level, *PARAMS)
    gpu = _pick(rng, level, ["A100 80GB"], ["A100 80GB", "H200"], ["H100 SXM", "H200", "B200"])
    margin = _pick(rng, level, [0.0], [0.0, 0.2], [0.2])
    answer = plans.state_gpus(n, 16, gpu, margin)
    usable = plans.usable_bytes(gpu, margin)
    kept = f", keeping {format_percent(margin, 0)} of each free" if margin else ""
    return _problem(
        "gpus-for-states", level,
        f"How many {gpu} GPUs ({format_bytes(hardware.gpu(gpu).memory_bytes)}) just hold the 16-bytes-a-parameter "
        f"training states of {_a(_size(n))} model, sharded evenly{kept}?",
        dict(n=n, gpu=gpu, margin=margin), answer, "gpus",
        [f"States: {_size(n)} × 16 bytes = {format_bytes(16 * n)}",
         f"Usable per GPU: {format_bytes(usable)}",
         f"{format_bytes(16 * n)} / {format_bytes(usable)} = {16 * n / usable:.2f}, rounded up: {_n(answer, 'GPU')}"],
        "Divide 16·N bytes by the usable memory of one GPU and round up.", minimum=True)


@template("kv-cache", "memory")
def _kv_cache(rng, level):
    name = rng.choice(KV_MODELS[level])
    cfg = m.preset(name)
    tokens = _pick(rng, level, [2048, 4096], [2048, 4096, 8192], [8192, 32768])
    batch = _pick(rng, level, [1, 32], [8, 16, 32], [16, 64])
    answer = mem.kv_cache_bytes(cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, tokens, batch)
    per_token = mem.kv_cache_bytes(cfg.num_layers, cfg.num_kv_heads, cfg.head_dim, 1)
    return _problem(
        "kv-cache", level,
        f"The model {name} has {cfg.num_layers} layers and {cfg.num_kv_heads} key/value heads of width "
        f"{cfg.head_dim}. How much "
        f"BF16 KV cache do {_n(batch, 'request')} of {tokens:,} tokens each need? (GB)",
        dict(layers=cfg.num_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim, tokens=tokens, batch=batch),
        answer, "bytes",
        [f"Per token: 2 (K and V) × {cfg.num_layers} layers × {cfg.num_kv_heads} × {cfg.head_dim} × 2 bytes = "
         f"{format_int(per_token)} bytes",
         f"× {tokens:,} tokens × {_n(batch, 'request')} = {format_bytes(answer)}"],
        "2 · layers · KV heads · head width · 2 bytes, per token of every request.")


@template("qlora-memory", "memory")
def _qlora_memory(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [7e9, 13e9, 70e9], [8e9, 34e9, 70e9])
    # LoRA adds 0.1% (rank 16 on Q and V) to 1.2% (rank 64 on all seven projections) of the base
    adapters = float(f"{n * _pick(rng, level, [0.006], [0.003, 0.006], [0.0012, 0.012]):.2g}")
    activations = _pick(rng, level, [4e9], [4e9, 10e9], [6e9, 18e9])
    adapter_bytes = mem.state_bytes_per_param("fp32", "adamw").total
    base = mem.weight_bytes(n, 0.5)
    answer = base + adapters * adapter_bytes + activations
    return _problem(
        "qlora-memory", level,
        f"QLoRA of {_a(_size(n))} model: a 4-bit base (0.5 bytes a parameter), {_size(adapters)} adapter "
        f"parameters trained in fp32 with AdamW, and {format_bytes(activations)} of activations. Total memory? (GB)",
        dict(n=n, adapters=adapters, activations=activations), answer, "bytes",
        [f"Base: {_size(n)} × 0.5 bytes = {format_bytes(base)}",
         f"Adapters: weights 4 + gradients 4 + moments 8 = {adapter_bytes:g} bytes each → "
         f"{format_bytes(adapters * adapter_bytes)}",
         f"Activations: {format_bytes(activations)}",
         f"Total: {format_bytes(answer)}"],
        "Base at 0.5 bytes a parameter; adapters carry weights, gradients and AdamW moments; add the activations.")


@template("activations-rule", "memory")
def _activations_rule(rng, level):
    layers, hidden, _ = rng.choice(SHAPES[level])
    batch = _pick(rng, level, [1, 8], [1, 4, 8], [2, 6, 16])
    seq = _pick(rng, level, [2048, 4096], [2048, 4096, 8192], [4096, 16384])
    factor = _pick(rng, level, [40], [30, 40, 60], [34, 50])
    answer = mem.activation_bytes_rule(layers, batch, seq, hidden, 2, factor)
    return _problem(
        "activations-rule", level,
        f"By the rule L·B·S·H·2 bytes·factor with factor {factor}: activations of {_a(f'{layers}-layer')}, "
        f"hidden-{hidden:,} model for a batch of {_n(batch, 'sequence')} of {seq:,} tokens, no recomputation? (GB)",
        dict(layers=layers, batch=batch, seq=seq, hidden=hidden, factor=factor), answer, "bytes",
        [f"{layers} × {batch} × {seq:,} × {hidden:,} × 2 × {factor} = {format_bytes(answer)}"],
        "Multiply all six numbers.")


# ----------------------------------------------------------------------------------------------------------------
# Compute and time (chapter 3)
# ----------------------------------------------------------------------------------------------------------------

def _training_run(rng, level):
    n, tokens = _pick(rng, level, *PARAMS), _pick(rng, level, *TOKENS)
    gpu, mfu = _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    return n, tokens, gpu, mfu


def _flops_step(n, tokens):
    return f"FLOPs: 6·N·D = 6 × {_size(n)} × {_size(tokens)} = {format_flops(c.training_flops(n, tokens))}"


@template("training-flops", "compute")
def _training_flops(rng, level):
    n, tokens = _pick(rng, level, *PARAMS), _pick(rng, level, *TOKENS)
    answer = c.training_flops(n, tokens)
    return _problem(
        "training-flops", level,
        f"How many FLOPs does training {_a(_size(n))} dense model on {_size(tokens)} tokens take?",
        dict(n=n, tokens=tokens), answer, "flops", [_flops_step(n, tokens)],
        "2 FLOPs per parameter per token forward, 4 backward: 6·N·D.")


@template("gpu-hours", "compute")
def _gpu_hours(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    flops = c.training_flops(n, tokens)
    answer = c.gpu_hours(flops, _peak(gpu), mfu)
    return _problem(
        "gpu-hours", level,
        f"Training {_a(_size(n))} model on {_size(tokens)} tokens on {gpu} GPUs ({_tflops(gpu)} BF16) "
        f"at {format_percent(mfu, 0)} MFU: how many GPU-hours?",
        dict(n=n, tokens=tokens, peak=_peak(gpu), mfu=mfu), answer, "hours",
        [_flops_step(n, tokens),
         f"Effective FLOP/s per GPU: {_tflops(gpu)} × {format_percent(mfu, 0)} = {format_flops(_peak(gpu) * mfu)}/s",
         f"GPU-seconds: {format_flops(flops)} / {format_flops(_peak(gpu) * mfu)}/s = "
         f"{format_int(c.gpu_seconds(flops, _peak(gpu), mfu))}",
         f"/ 3,600 = {format_int(answer)} GPU-hours"],
        "GPU-hours = 6ND / (peak × MFU) / 3,600. Don't forget the 3,600.")


@template("training-days", "compute")
def _training_days(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    gpus = _pick(rng, level, *CLUSTER)
    flops = c.training_flops(n, tokens)
    answer = c.training_days(flops, gpus, _peak(gpu), mfu)
    if not 1 <= answer <= 365 or mem.training_state_bytes(n) / gpus > plans.usable_bytes(gpu):
        raise _Regenerate  # a run of less than a day or more than a year, or states that do not fit its GPUs
    return _problem(
        "training-days", level,
        f"{gpus:,} {gpu} GPUs ({_tflops(gpu)} BF16) at {format_percent(mfu, 0)} MFU train {_a(_size(n))} model on "
        f"{_size(tokens)} tokens. How many days?",
        dict(n=n, tokens=tokens, gpus=gpus, peak=_peak(gpu), mfu=mfu), answer, "days",
        [_flops_step(n, tokens),
         f"Cluster: {gpus:,} × {_tflops(gpu)} × {format_percent(mfu, 0)} = {format_flops(gpus * _peak(gpu) * mfu)}/s",
         f"Seconds: {format_int(c.training_seconds(flops, gpus, _peak(gpu), mfu))}; / 86,400 = {format_number(answer)} days"],
        "days = 6ND / (GPUs × peak × MFU) / 86,400.")


@template("training-cost", "compute")
def _training_cost(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    price = PRICES[gpu]
    flops = c.training_flops(n, tokens)
    hours = c.gpu_hours(flops, _peak(gpu), mfu)
    answer = c.cost(hours, price)
    return _problem(
        "training-cost", level,
        f"At ${price:g} per {gpu}-hour ({_tflops(gpu)} BF16, {format_percent(mfu, 0)} MFU), what does the GPU time to train "
        f"{_a(_size(n))} model on {_size(tokens)} tokens cost?",
        dict(n=n, tokens=tokens, peak=_peak(gpu), mfu=mfu, price=price), answer, "usd",
        [_flops_step(n, tokens), f"GPU-hours: {format_int(hours)}",
         f"× ${price:g} = {format_usd(answer)}"],
        "Cost = GPU-hours × price; GPU-hours = 6ND / (peak × MFU × 3,600).")


@template("gpus-for-deadline", "compute")
def _gpus_for_deadline(rng, level):
    n, tokens, gpu, mfu = _training_run(rng, level)
    days = _pick(rng, level, [30], [14, 30, 60], [21, 45, 90])
    flops = c.training_flops(n, tokens)
    answer = c.gpus_for_deadline(flops, days, _peak(gpu), mfu)
    if answer > 20_000:
        raise _Regenerate  # larger than any cluster of these GPUs
    return _problem(
        "gpus-for-deadline", level,
        f"You must train {_a(_size(n))} model on {_size(tokens)} tokens within {days} days on {gpu} GPUs "
        f"({_tflops(gpu)} BF16) at {format_percent(mfu, 0)} MFU. How many GPUs at least?",
        dict(n=n, tokens=tokens, days=days, peak=_peak(gpu), mfu=mfu), answer, "gpus",
        [_flops_step(n, tokens),
         f"GPU-seconds: {format_int(c.gpu_seconds(flops, _peak(gpu), mfu))}",
         f"/ ({days} × 86,400 s) = {c.gpu_seconds(flops, _peak(gpu), mfu) / (days * 86400):,.1f}, rounded up: "
         f"{_n(answer, 'GPU')}"],
        "GPUs = GPU-seconds / (days × 86,400), rounded up.", minimum=True)


@template("reverse-budget", "compute")
def _reverse_budget(rng, level):
    gpus, gpu, mfu = _pick(rng, level, *CLUSTER), _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    days = _pick(rng, level, [30], [30, 60], [21, 45])
    tokens = _pick(rng, level, *TOKENS)
    budget = c.compute_budget(gpus, days, _peak(gpu), mfu)
    answer = c.affordable_params(budget, tokens)
    return _problem(
        "reverse-budget", level,
        f"You have {gpus:,} {gpu} GPUs ({_tflops(gpu)} BF16) for {days} days at {format_percent(mfu, 0)} MFU and want "
        f"{_size(tokens)} training tokens. What is the largest model you can train?",
        dict(gpus=gpus, days=days, peak=_peak(gpu), mfu=mfu, tokens=tokens), answer, "count",
        [f"Budget: {gpus:,} × {_tflops(gpu)} × {format_percent(mfu, 0)} × {days} × 86,400 s = {format_flops(budget)}",
         f"N = C / (6·D) = {format_flops(budget)} / (6 × {_size(tokens)}) = {format_count(answer)}"],
        "Budget C = GPUs × peak × MFU × seconds; then N = C / (6D).")


@template("implied-mfu", "compute")
def _implied_mfu(rng, level):
    n, tokens, gpu, true_mfu = _training_run(rng, level)
    hours = float(f"{c.gpu_hours(c.training_flops(n, tokens), _peak(gpu), true_mfu):.3g}")  # as a paper rounds it
    answer = c.implied_mfu(n, tokens, hours, _peak(gpu))
    return _problem(
        "implied-mfu", level,
        f"A report says {_a(_size(n))} model was trained on {_size(tokens)} tokens in "
        f"{format_int(hours)} {gpu}-hours ({_tflops(gpu)} BF16). What MFU does that imply?",
        dict(n=n, tokens=tokens, hours=hours, peak=_peak(gpu)), answer, "percent",
        [_flops_step(n, tokens),
         f"Peak work in those hours: {format_int(hours)} × 3,600 × {_tflops(gpu)} = "
         f"{format_flops(hours * 3600 * _peak(gpu))}",
         f"MFU = {format_percent(answer, 1)}"],
        "MFU = 6ND / (GPU-hours × 3,600 × peak).", tolerance=0.1)  # 10% of ~40%: about 4 points either way


@template("checkpoint-storage", "compute")
def _checkpoint_storage(rng, level):
    n = _pick(rng, level, *PARAMS)
    run_hours = _pick(rng, level, [24], [24, 72], [100, 240])
    interval = _pick(rng, level, [1], [0.5, 2], [0.5, 3])
    keep = _pick(rng, level, [None], [None, 5], [3, 10])
    answer = c.checkpoint_storage_bytes(n, run_hours, interval, keep)
    saved = int(run_hours // interval) if keep is None else min(int(run_hours // interval), keep)
    kept = "all of them" if keep is None else f"only the latest {keep}"
    return _problem(
        "checkpoint-storage", level,
        f"{_A(_size(n))} run of {run_hours} hours saves a resumable checkpoint (BF16 weights, fp32 master copy "
        f"and AdamW moments: {c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g} bytes a parameter) every {interval:g} h and keeps "
        f"{kept}. How much disk? (GB)",
        dict(n=n, run_hours=run_hours, interval=interval, keep=keep), answer, "bytes",
        [f"One checkpoint: {_size(n)} × {c.RESUME_CHECKPOINT_BYTES_PER_PARAM:g} bytes = "
         f"{format_bytes(c.checkpoint_bytes(n, c.RESUME_CHECKPOINT_BYTES_PER_PARAM))}",
         f"Checkpoints kept: {saved}", f"Disk: {format_bytes(answer)}"],
        "One checkpoint × the number kept; gradients are not saved.")


# ----------------------------------------------------------------------------------------------------------------
# Data (chapter 4)
# ----------------------------------------------------------------------------------------------------------------

@template("chinchilla-tokens", "data")
def _chinchilla_tokens(rng, level):
    past = _pick(rng, level, [1], [1], [5, 10, 20])  # hard: trained past the optimum, to serve a smaller model
    n = _pick(rng, level, *PARAMS) if past == 1 else rng.choice([1e9, 3e9, 8e9])
    tokens_per_param = dt.TOKENS_PER_PARAM * past
    answer = dt.chinchilla_tokens(n, tokens_per_param)
    question = (f"By the 20-tokens-per-parameter rule, how many tokens should {_a(_size(n))} model train on?"
                if past == 1 else
                f"To serve it cheaply, a team trains {_a(_size(n))} model on {past} times the tokens of "
                "Chinchilla's 20-per-parameter rule. How many tokens?")
    steps = [f"{tokens_per_param} × {_size(n)} = {format_count(answer)}"]
    if past > 1:
        steps.insert(0, f"Tokens per parameter: {past} × 20 = {tokens_per_param}")
    return _problem("chinchilla-tokens", level, question, dict(n=n, tokens_per_param=tokens_per_param), answer,
                    "count", steps, "Chinchilla's rule of thumb: D ≈ 20·N.")


@template("chinchilla-for-budget", "data")
def _chinchilla_for_budget(rng, level):
    gpus, gpu, mfu = _pick(rng, level, *CLUSTER), _pick(rng, level, *TRAINING_GPUS), _pick(rng, level, *MFUS)
    days = _pick(rng, level, [30], [30, 90], [45, 120])
    budget = c.compute_budget(gpus, days, _peak(gpu), mfu)
    answer, tokens = plans.chinchilla_for_budget(gpus, days, _peak(gpu), mfu)
    return _problem(
        "chinchilla-for-budget", level,
        f"{gpus:,} {gpu} GPUs ({_tflops(gpu)} BF16), {days} days, {format_percent(mfu, 0)} MFU: which model size is compute-optimal "
        "by the 20-tokens-per-parameter rule?",
        dict(gpus=gpus, days=days, peak=_peak(gpu), mfu=mfu), answer, "count",
        [f"Budget: {format_flops(budget)}",
         f"C = 6·N·(20·N) = 120·N², so N = √(C / 120) = {format_count(answer)} (on {_size(tokens)} tokens)"],
        "Put D = 20N into C = 6ND and solve for N.")


@template("corpus-size", "data")
def _corpus_size(rng, level):
    tokens = _pick(rng, level, [140e9, 1e12], [140e9, 300e9, 1.4e12], [250e9, 2e12, 15e12])
    language = _pick(rng, level, ["english"], ["english", "chinese", "code"], ["english", "chinese", "code"])
    rate = dt.tokens_per_gb(language)
    cleaned = dt.cleaned_bytes(tokens, rate)
    cleaning_yield = _pick(rng, level, [None], [None, 0.25], [0.2, 0.3])
    answer = cleaned if cleaning_yield is None else dt.raw_bytes(cleaned, cleaning_yield)
    raw = "" if cleaning_yield is None else f", and how much raw crawl at a {format_percent(cleaning_yield, 0)} cleaning yield"
    steps = [f"Cleaned: {_size(tokens)} / {format_count(rate)} tokens per GB = {format_bytes(cleaned)}"]
    if cleaning_yield is not None:
        steps.append(f"Raw: {format_bytes(cleaned)} / {format_percent(cleaning_yield, 0)} = {format_bytes(answer)}")
    return _problem(
        "corpus-size", level,
        f"{_size(tokens)} tokens of {'code' if language == 'code' else language.capitalize()} at {format_count(rate)} tokens per GB of cleaned "
        f"text: how many GB"
        f"{raw}? (give the {'raw' if cleaning_yield else 'cleaned'} size)",
        dict(tokens=tokens, rate=rate, cleaning_yield=cleaning_yield), answer, "bytes", steps,
        "GB = tokens / (tokens per GB); raw = cleaned / yield.")


@template("epochs", "data")
def _epochs(rng, level):
    n = _pick(rng, level, *PARAMS)
    tokens = dt.chinchilla_tokens(n)
    unique = float(f"{tokens / _pick(rng, level, [2, 4], [1.5, 3, 6], [2.7, 7, 12]):.2g}")  # a round stock
    answer = dt.epochs(tokens, unique)
    return _problem(
        "epochs", level,
        f"You train {_a(_size(n))} model Chinchilla-optimally (20 tokens per parameter) but have only "
        f"{_size(unique)} unique tokens. How many epochs is that?",
        dict(n=n, unique=unique), answer, "epochs",
        [f"Tokens: 20 × {_size(n)} = {_size(tokens)}",
         f"Epochs: {_size(tokens)} / {_size(unique)} = {answer:.3g} (Muennighoff et al. 2023 found up "
         "to about 4 nearly as good as fresh data; the material says at most 2)"],
        "Training tokens / unique tokens.")


# ----------------------------------------------------------------------------------------------------------------
# Serving
# ----------------------------------------------------------------------------------------------------------------

@template("inference-flops", "serving")
def _inference_flops(rng, level):
    n = _pick(rng, level, *PARAMS)
    tokens = _pick(rng, level, [1e6, 1e9], [1e9, 30e9], [2.5e9, 86e9])
    answer = c.forward_flops_per_token(n) * tokens
    return _problem(
        "inference-flops", level,
        f"How many FLOPs does {_a(_size(n))} dense model spend generating {_size(tokens)} tokens "
        "(ignore attention over the context)?",
        dict(n=n, tokens=tokens), answer, "flops",
        [f"2·N per token = {format_flops(c.forward_flops_per_token(n))}",
         f"× {_size(tokens)} = {format_flops(answer)}"],
        "A forward pass costs about 2 FLOPs per parameter per token.")


@template("decode-speed", "serving")
def _decode_speed(rng, level):
    n = _pick(rng, level, [7e9, 70e9], [7e9, 13e9, 70e9], [8e9, 34e9, 70e9])
    gpu = _pick(rng, level, ["A100 80GB", "H100 SXM"], ["A100 80GB", "H100 SXM", "H200"], ["H200", "B200", "MI300X"])
    per_param = _pick(rng, level, [2], [2, 1], [1, 0.5])
    batch = _pick(rng, level, [1], [1, 8], [16, 64])
    kv_per_sequence = _pick(rng, level, [0.0], [0.5e9, 1e9], [0.25e9, 1e9])  # easy: leave the cache out
    kv = kv_per_sequence * batch
    weights = mem.weight_bytes(n, per_param)
    g = hardware.gpu(gpu)
    step = c.decode_step_seconds(weights, kv, n, batch, g.bandwidth_bytes_per_s, g.bf16_flops_per_s)
    answer = batch / step
    if weights + kv > plans.usable_bytes(g):
        raise _Regenerate  # the model and its cache do not fit that GPU with 20% kept free
    cache = ("ignore the KV cache" if not kv else
             f"each sequence's KV cache is {format_bytes(kv_per_sequence)}")
    return _problem(
        "decode-speed", level,
        f"One {gpu} ({format_bytes(g.bandwidth_bytes_per_s)}/s memory bandwidth, {_tflops(gpu)}) decodes "
        f"{_n(batch, 'sequence')} at once for {_a(_size(n))} model stored at {per_param:g} byte{'' if per_param == 1 else 's'} a parameter; "
        f"{cache}. About how many tokens per second in all?",
        dict(n=n, bytes_per_param=per_param, batch=batch, kv=kv, bandwidth=g.bandwidth_bytes_per_s,
             peak=g.bf16_flops_per_s), answer, "tokens/s",
        [f"Each step reads the weights and KV cache: {format_bytes(weights + kv)} / "
         f"{format_bytes(g.bandwidth_bytes_per_s)}/s = {(weights + kv) / g.bandwidth_bytes_per_s * 1e3:.3g} ms",
         f"and computes 2·N·batch = {format_flops(2 * n * batch)}: {2 * n * batch / g.bf16_flops_per_s * 1e3:.3g} ms",
         f"The longer bounds the step ({step * 1e3:.3g} ms): {_n(batch, 'token')} per step = {answer:,.0f} tokens/s"],
        "Decoding is usually memory-bound: time per step ≈ bytes read / bandwidth; each step yields one token per "
        "sequence.")


@template("serving-gpus", "serving")
def _serving_gpus(rng, level):
    rps = _pick(rng, level, [10, 100], [50, 200, 1000], [75, 400, 2500])
    tokens = _pick(rng, level, [500], [250, 500, 1000], [300, 800, 2000])
    per_replica = _pick(rng, level, [2000], [1500, 3000], [900, 2400, 5200])
    per_replica_gpus = _pick(rng, level, [1], [1, 2], [2, 4, 8])
    answer = c.gpus_for_request_rate(rps, tokens, per_replica, per_replica_gpus)
    replicas = answer // per_replica_gpus
    return _problem(
        "serving-gpus", level,
        f"A service gets {rps:,} requests per second, each generating {tokens:,} tokens. One replica "
        f"({_n(per_replica_gpus, 'GPU')}) produces {per_replica:,} tokens per second. How many GPUs at least?",
        dict(rps=rps, tokens=tokens, per_replica=per_replica, gpus_per_replica=per_replica_gpus), answer, "gpus",
        [f"Tokens per second needed: {rps:,} × {tokens:,} = {format_int(rps * tokens)}",
         f"Replicas: {format_int(rps * tokens)} / {per_replica:,}, rounded up = {format_int(replicas)}",
         f"GPUs: {format_int(replicas)} × {per_replica_gpus} = {format_int(answer)}"],
        "Tokens per second needed / tokens per second per replica, rounded up, × GPUs per replica.", minimum=True)


@template("serving-cost", "serving")
def _serving_cost(rng, level):
    gpu = _pick(rng, level, ["A100 80GB"], ["A100 80GB", "H100 SXM"], ["H100 SXM", "H200", "B200"])
    gpus = _pick(rng, level, [1, 2], [1, 2, 4], [2, 8])
    tokens_per_s = _pick(rng, level, [1000, 2000], [800, 2500], [1300, 6400])
    price = PRICES[gpu]
    answer = c.cost_per_million_tokens(price, gpus, tokens_per_s)
    return _problem(
        "serving-cost", level,
        f"{_n(gpus, gpu + ' GPU')} at ${price:g} an hour {'each, together serve' if gpus > 1 else 'serves'} "
        f"{tokens_per_s:,} tokens per second. What does a million generated tokens cost?",
        dict(price=price, gpus=gpus, tokens_per_s=tokens_per_s), answer, "usd",
        [f"Per hour: ${price * gpus:g} for {format_int(tokens_per_s * 3600)} tokens",
         f"Per million: {format_usd(answer)}"],
        "Hourly price / tokens per hour × 10⁶.")


# ----------------------------------------------------------------------------------------------------------------
# Problem sets
# ----------------------------------------------------------------------------------------------------------------

def _topics(topics) -> tuple:
    if topics is None:
        return TOPICS
    if isinstance(topics, str):
        topics = [t.strip() for t in topics.split(",") if t.strip()]
    for topic in topics:
        check_choice("topics", topic, TOPICS)
    if not topics:
        raise InputError("topics", f"topics == {topics!r} is empty; choose from {', '.join(TOPICS)}.")
    return tuple(topics)


def generate(key: str, seed: int, level: str = "medium") -> Problem:
    """One problem from template ``key``, fixed by ``seed``."""
    TEMPLATES.lookup(key)
    check_choice("level", level, LEVELS)
    rng = random.Random(f"{key}/{level}/{seed}")
    while True:
        try:
            return TEMPLATES[key].make(rng, level)
        except _Regenerate:
            continue


def drill_set(seed: int, n: int = 10, topics=None, level: str = "medium") -> list[Problem]:
    """``n`` problems fixed by ``seed``: templates drawn in turn from the chosen topics, no template twice until
    all have come up. ``level`` is "easy", "medium", "hard" or "mixed" (the three in turn)."""
    check_int("seed", seed, minimum=0)
    check_int("n", n, maximum=200)
    check_choice("level", level, (*LEVELS, "mixed"))
    chosen = _topics(topics)
    keys = [t.key for t in TEMPLATES.values() if t.topic in chosen]
    rng = random.Random(seed)
    order: list[str] = []
    while len(order) < n:
        batch = keys[:]
        rng.shuffle(batch)
        order += batch
    levels = [LEVELS[i % 3] if level == "mixed" else level for i in range(n)]
    return [generate(key, seed * 1000 + i, lvl) for i, (key, lvl) in enumerate(zip(order[:n], levels))]


# ----------------------------------------------------------------------------------------------------------------
# Flashcards: the numbers to know by heart, each computed by the library
# ----------------------------------------------------------------------------------------------------------------

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
                f"{format_int(per_token / 1024)} KiB ({format_bytes(per_token * 4096)} for 4,096 tokens)")


def flashcards(topics=None) -> list[Card]:
    """The cards, in a fixed order; ``topics`` filters them."""
    chosen = _topics(topics)
    mixed = mem.state_bytes_per_param("mixed", "adamw")
    typical_mfu = material.get("000-1.2-mfu").stated
    llama7 = m.preset("llama-2-7b")
    mixtral = m.count_params(m.preset("mixtral-8x7b"))
    cards = [
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
             f"{format_percent(typical_mfu[0], 0)}-{format_percent(typical_mfu[1], 0)} (the material); PaLM 540B measured "
             f"{format_percent(runs.palm_mfu(with_attention=True), 1)} ({format_percent(runs.palm_mfu(with_attention=False), 1)} without the "
             "attention FLOPs)"),
        Card("compute", "Time margin on a training estimate",
             f"{format_percent(c.TIME_MARGIN[0], 0)}-{format_percent(c.TIME_MARGIN[1], 0)}"),
        Card("compute", "A100 GPU-hours to train a 7B on 1T tokens at 40% MFU",
             format_int(c.gpu_hours(c.training_flops(7e9, 1e12), _peak("A100 80GB"), 0.4))),
        Card("data", "Compute-optimal tokens per parameter (Chinchilla's rule)", f"{dt.TOKENS_PER_PARAM}"),
        Card("data", "Chinchilla-optimal tokens for a 70B", format_count(dt.chinchilla_tokens(70e9))),
    ] + [
        Card("data", f"Tokens per GB of cleaned {'code' if language == 'code' else language.capitalize()} (the "
                     "material's range)",
             f"{format_count(low)} to {format_count(high)}") for language, (low, high) in dt.TOKENS_PER_GB.items()
    ] + [
        Card("compute", f"{name}: dense BF16 peak, memory and its bandwidth",
             f"{_tflops(name)}, {format_bytes(hardware.gpu(name).memory_bytes)}, "
             f"{format_bytes(hardware.gpu(name).bandwidth_bytes_per_s)}/s")
        for name in ("A100 80GB", "H100 SXM", "H200", "B200")
    ] + [_kv_card(name) for name in ("llama-2-7b", "llama-2-70b", "llama-3-8b", "mistral-7b")]
    return [card for card in cards if card.topic in chosen]


# ----------------------------------------------------------------------------------------------------------------
# Worksheets for a class: the questions, and a key with worked solutions
# ----------------------------------------------------------------------------------------------------------------

def _title(seed, problems, key) -> str:
    topics = sorted({p.topic for p in problems})
    kind = "Answer key" if key else "Worksheet"
    return f"{kind}: {len(problems)} estimation problems (seed {seed}; {', '.join(topics)})"


def worksheet_markdown(problems: list[Problem], seed: int, key: bool = False) -> str:
    lines = [f"# {_title(seed, problems, key)}", ""]
    if not key:
        lines += ["Give each answer to within 25% (within 2× counts as close). Show your working.", ""]
    for i, p in enumerate(problems, 1):
        lines += [f"## {i}. {p.topic} · {p.level}", "", p.question, ""]
        if key:
            lines += [f"- {step}" for step in p.steps] + ["", f"**Answer: {p.answer_text}**", ""]
        else:
            lines += ["Answer: ______________________", ""]
    return "\n".join(lines)


def worksheet_html(problems: list[Problem], seed: int, key: bool = False) -> str:
    e = html.escape
    title = e(_title(seed, problems, key))
    body = [f"<h1>{title}</h1>"]
    if not key:
        body.append("<p>Give each answer to within 25% (within 2× counts as close). Show your working.</p>")
    for i, p in enumerate(problems, 1):
        body.append(f"<section><h2>{i}. {e(p.topic)} · {e(p.level)}</h2><p>{e(p.question)}</p>")
        if key:
            body.append("<ul>" + "".join(f"<li>{e(step)}</li>" for step in p.steps) + "</ul>")
            body.append(f"<p><strong>Answer: {e(p.answer_text)}</strong></p>")
        else:
            body.append('<p class="blank">Answer: ______________________</p>')
        body.append("</section>")
    style = ("body{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.45}"
             "section{break-inside:avoid;margin-bottom:1.5em}.blank{margin-top:2.5em}")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def write_worksheet(directory, seed: int, n: int = 10, topics=None, level: str = "mixed") -> dict:
    """Write worksheet.md, worksheet.html, key.md and key.html for a seed and a topic mix; return their paths."""
    problems = drill_set(seed, n, topics, level)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, key in (("worksheet", False), ("key", True)):
        for suffix, render in (("md", worksheet_markdown), ("html", worksheet_html)):
            path = out / f"{name}.{suffix}"
            path.write_text(render(problems, seed, key), encoding="utf-8")
            paths[f"{name}.{suffix}"] = path
    return paths


def worksheet_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The worksheet options, shared with the ``llmest drill`` command."""
    parser.add_argument("--seed", type=int, default=0, help="the same seed gives the same problems (default 0)")
    parser.add_argument("--n", type=int, default=10, help="number of problems (default 10)")
    parser.add_argument("--topics", default=",".join(TOPICS),
                        help=f"comma-separated, from {', '.join(TOPICS)} (default all)")
    parser.add_argument("--level", default="mixed", help=f"{', '.join(LEVELS)} or mixed (default mixed)")
    parser.add_argument("--out", default="worksheet", help="folder to write into (default ./worksheet)")
    return parser


def main(argv=None) -> int:
    parser = worksheet_parser(argparse.ArgumentParser(
        prog="python -m llmest.drills",
        description="Write an estimation worksheet and its answer key (Markdown and HTML).",
        epilog="example: python -m llmest.drills --seed 7 --n 12 --topics memory,compute --level hard --out ws"))
    args = parser.parse_args(argv)
    try:
        paths = write_worksheet(args.out, args.seed, args.n, args.topics, args.level)
    except InputError as err:
        parser.error(f"--{err.param}: {err}")  # exits with status 2 and the message, no traceback
    for path in paths.values():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
