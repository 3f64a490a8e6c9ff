"""Flashcards: the numbers to know by heart, each computed by the library."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..formulas import compute as c
from ..formulas import data as dt
from ..catalog import hardware
from ..book import material
from ..formulas import memory as mem
from ..formulas import model as m
from .. import plans
from ..catalog import runs
from ..core._validate import InputError, quote
from ..core.i18n import N_, _, language, speaking
from ..core.report import Finding, Report
from .drills import TOPIC_NAMES
from .drills.problem import TOPICS, chosen_topics, tflops_text
from ..core.units import UNITS, format_bytes, format_count, format_flops, format_int, format_percent


@dataclass(frozen=True)
class Card:
    topic: str
    front: str
    back: str
    key: str = ""   # the English front, which names the card in a learner's progress whatever the language

    def __post_init__(self):
        if not self.key:
            object.__setattr__(self, "key", self.front)


# The tokens-per-GB cards' fronts, by kind of text.
TEXT_KINDS = {"english": N_("Tokens per GB of cleaned English (the material's range)"),
              "chinese": N_("Tokens per GB of cleaned Chinese (the material's range)"),
              "code": N_("Tokens per GB of cleaned code (the material's range)")}


def _kv_card(name) -> Card:
    cfg = m.preset(name)
    per_token = mem.kv_cache_bytes_for(cfg, 1)
    return Card("serving", _("KV cache per token of {name} in BF16 ({layers} layers, {kv_heads} KV heads × "
                             "{head_dim})").format(name=name, layers=cfg.num_layers, kv_heads=cfg.num_kv_heads,
                                                   head_dim=cfg.head_dim),
                _("{per_token} KiB ({total} for 4,096 tokens)").format(
                    per_token=format_int(per_token / 1024), total=format_bytes(mem.kv_cache_bytes_for(cfg, 4096))))


def cards(topics=None) -> list[Card]:
    """The cards, in a fixed order; ``topics`` (None, a topic, a comma-separated string or a list) filters them."""
    if topics is not None and not isinstance(topics, (str, list, tuple, set, frozenset)):
        raise InputError("topics", _("topics == {value}, must be a topic or a list of them, from {topics}.").format(
            value=quote(topics), topics=", ".join(TOPICS)))
    chosen = chosen_topics(topics)
    deck = _deck()
    if language() != "en":
        with speaking("en"):
            deck = [replace(card, key=english.front) for card, english in zip(deck, _deck())]
    return [card for card in deck if card.topic in chosen]


def deck_summary(example: str = "mixed-precision AdamW") -> Finding:
    """The deck, showing itself in two lines: its cards by topic, then the first card whose English front contains
    ``example``."""
    deck = cards()
    shown = [card for card in deck if example in card.key] if isinstance(example, str) else []
    if not shown:
        raise InputError("example", f"example == {quote(example)}, must be a part of a card's English front.")
    return Finding(dict(cards=len(deck), topics={topic: sum(card.topic == topic for card in deck) for topic in TOPICS},
                        example=dict(key=shown[0].key, front=shown[0].front, back=shown[0].back)), _deck_summary)


def _deck_summary(f: dict) -> Report:
    by_topic = _(", ").join(_("{n} {topic}").format(n=n, topic=_(TOPIC_NAMES[topic]))
                            for topic, n in f["topics"].items())
    return Report("", lines=(_("{n} cards: {topics}").format(n=f["cards"], topics=by_topic),
                             _("for example: {front} -> {back}").format(front=f["example"]["front"],
                                                                        back=f["example"]["back"])))


def _deck() -> list[Card]:
    mixed = mem.state_bytes_per_param("mixed", "adamw")
    typical_mfu = material.get("000-1.2-mfu").stated
    llama7 = m.preset("llama-2-7b")
    mixtral = m.count_params(m.preset("mixtral-8x7b"))
    every = [
        Card("parameters", _("Parameters of one Transformer layer of hidden size H (the rule)"),
             _("12·H²: 4H² attention + 8H² FFN ({count} at H = 4,096)").format(count=format_count(
                 m.rule_layer_params(4096)))),
        Card("parameters", _("The 7B shape: layers, hidden size, vocabulary, and the exact count of Llama-2-7B"),
             _("{layers} layers, {hidden} hidden, {vocab} tokens: {count}").format(
                 layers=llama7.num_layers, hidden=f"{llama7.hidden_size:,}", vocab=f"{llama7.vocab_size:,}",
                 count=format_int(m.count_params(llama7).total))),
        Card("parameters", _("Mixtral-8x7B: total and active parameters"),
             _("{total} total, {active} active (2 of 8 experts)").format(total=format_count(mixtral.total),
                                                                         active=format_count(mixtral.active))),
        Card("parameters", _("Extra parameters of rank-r LoRA on a d_in × d_out matrix"),
             _("r·(d_in + d_out): {count} for r = 16 on 4,096 × 4,096").format(
                 count=format_int(mem.lora_matrix_params(16, 4096, 4096)))),
    ] + [
        Card("memory", _("Bytes per parameter of {format} weights").format(format=fmt.upper()),
             f"{mem.WEIGHT_FORMATS[fmt].bytes_per_param:g}")
        for fmt in ("fp32", "bf16", "int8")
    ] + [
        Card("memory", _("Bytes per parameter of 4-bit weights, bare and with GPTQ's scales (groups of 128)"),
             _("0.5 bare; {bytes} with an fp16 scale and a 4-bit zero point per group").format(
                 bytes=f"{mem.WEIGHT_FORMATS['int4'].bytes_per_param:.3g}")),
        Card("memory", _("Training bytes per parameter, mixed-precision AdamW"),
             _("{total}: weights {weights} + master {master} + gradients {grads} + moments {moments}").format(
                 total=f"{mixed.total:g}", weights=f"{mixed.weights:g}", master=f"{mixed.master:g}",
                 grads=f"{mixed.grads:g}", moments=f"{mixed.optimizer:g}")),
        Card("memory", _("Training bytes per parameter, AdamW on a model cast to BF16 (no master copy)"),
             f"{mem.state_bytes_per_param('bf16', 'adamw').total:g}"),
        Card("memory", _("Optimizer state bytes per parameter (FP32 states): AdamW, 8-bit Adam, SGD with momentum, "
                         "Adafactor"),
             ", ".join(f"{name} {mem.state_bytes_per_param('fp32', name).optimizer:.3g}"
                       for name in ("adamw", "adam8bit", "sgd-momentum", "adafactor"))),
        Card("memory", _("Training states of a 7B with mixed-precision AdamW"),
             format_bytes(mem.training_state_bytes(7e9, mixed.total))),
        Card("memory", _("Weights of a 70B in BF16, and in 4 bits"),
             f"{format_bytes(mem.weight_bytes(70e9, 2))}, {format_bytes(mem.weight_bytes(70e9, 0.5))}"),
        Card("memory", _("Memory margin to keep free on a GPU"), f"{format_percent(mem.MEMORY_MARGIN, 0)}"),
        Card("compute", _("Forward FLOPs per token of an N-parameter dense model"),
             _("2N ({flops} for a 7B)").format(flops=format_flops(c.forward_flops_per_token(7e9)))),
        Card("compute", _("Training FLOPs per token (forward + backward)"),
             _("6N = 2N forward + 4N backward ({flops} for a 7B)").format(
                 flops=format_flops(c.training_flops_per_token(7e9)))),
        Card("compute", _("FLOPs to train a 7B on 1T tokens"), format_flops(c.training_flops(7e9, 1e12))),
        Card("compute", _("Typical MFU of large pre-training runs, and a well-measured one"),
             _("{low}-{high} (the material); PaLM 540B measured {palm} ({palm_bare} without the attention "
               "FLOPs)").format(low=format_percent(typical_mfu[0], 0), high=format_percent(typical_mfu[1], 0),
                                palm=format_percent(runs.palm_mfu(with_attention=True), 1),
                                palm_bare=format_percent(runs.palm_mfu(with_attention=False), 1))),
        Card("compute", _("Time margin on a training estimate"),
             plans.TIME_MARGIN_TEXT),
        Card("compute", _("A100 GPU-hours to train a 7B on 1T tokens at 40% MFU"),
             UNITS["GPU-hours"].format(plans.estimate_time(1e12, n_params=7e9, gpu="A100 80GB", mfu=0.4).gpu_hours)),
        Card("data", _("Compute-optimal tokens per parameter (Chinchilla's rule)"), f"{dt.TOKENS_PER_PARAM}"),
        Card("data", _("Chinchilla-optimal tokens for a 70B"), format_count(dt.chinchilla_tokens(70e9))),
    ] + [
        Card("data", _(TEXT_KINDS[language]), _("{low} to {high}").format(low=format_count(low),
                                                                           high=format_count(high)))
        for language, (low, high) in dt.TOKENS_PER_GB.items()
    ] + [
        Card("compute", _("{gpu}: dense BF16 peak, memory and its bandwidth").format(gpu=name),
             f"{tflops_text(name)}, {hardware.gpu(name).memory_text}, "
             f"{format_bytes(hardware.gpu(name).bandwidth_bytes_per_s)}/s")
        for name in ("A100 80GB", "H100 SXM", "H200", "B200")
    ] + [_kv_card(name) for name in ("llama-2-7b", "llama-2-70b", "llama-3-8b", "mistral-7b")]
    return every
