"""Decoder-only transformers: their shapes (ModelConfig) and their parameter counts.

The functions ending in ``_params`` are the formulas. They use only + - * / and so work the same on
plain numbers, NumPy arrays and SymPy symbols; chapter 1 derives each of them from matrix shapes.
``count_params`` applies them to a validated ModelConfig, part by part.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass

from . import _validate as v
from ._hf import build_from_hf_config
from .config_file import PRESET_FIELDS, count, load, read_file, read_json, sizes
from ._validate import InputError, quote
from .units import format_count, format_int, format_percent

# Parameters per channel of one normalisation layer: LayerNorm has a weight and a bias, RMSNorm a weight.
NORM_PARAMS_PER_CHANNEL = {"layernorm": 2, "rmsnorm": 1, "nonparametric": 0}
ATTENTION_BIASES = ("none", "qkv", "all")  # biases on nothing, on Q/K/V only, or on Q/K/V and the output
POSITION_EMBEDDINGS = ("rotary", "learned", "alibi", "none")  # only a learned table holds parameters


# ----------------------------------------------------------------------------------------------------------------
# Formulas
# ----------------------------------------------------------------------------------------------------------------

def _default_head_dim(hidden, n_heads):
    if isinstance(hidden, int) and isinstance(n_heads, int):
        return hidden // n_heads
    return hidden / n_heads


def embedding_params(vocab_size, dim):
    """A lookup table of ``vocab_size`` rows of ``dim`` numbers (also the size of an untied output head)."""
    vocab_size, dim = sizes(vocab_size=vocab_size, dim=dim)
    return vocab_size * dim


def attention_params(hidden, n_heads, n_kv_heads=None, head_dim=None, bias="none"):
    """Q, K, V and output projections. Q and the output have n_heads·head_dim columns, K and V n_kv_heads·head_dim
    each: multi-head (n_kv_heads = n_heads), grouped-query (fewer) or multi-query (one)."""
    hidden, n_heads = sizes(hidden=hidden, n_heads=n_heads)
    n_kv_heads, = sizes(n_kv_heads=n_heads if n_kv_heads is None else n_kv_heads)
    head_dim, = sizes(head_dim=_default_head_dim(hidden, n_heads) if head_dim is None else head_dim)
    v.check_choice("bias", bias, ATTENTION_BIASES)
    q_width, kv_width = n_heads * head_dim, n_kv_heads * head_dim
    weights = hidden * q_width + 2 * hidden * kv_width + q_width * hidden
    biases = 0
    if bias in ("qkv", "all"):
        biases = biases + q_width + 2 * kv_width
    if bias == "all":
        biases = biases + hidden
    return weights + biases


def ffn_params(hidden, ffn_hidden, gated=False, bias=False):
    """Up and down projections (two matrices), plus a gate matrix when gated (SwiGLU, GeGLU: three)."""
    hidden, ffn_hidden = sizes(hidden=hidden, ffn_hidden=ffn_hidden)
    n_in = 2 if v.check_bool("gated", gated) else 1
    weights = (n_in + 1) * hidden * ffn_hidden
    return weights + (n_in * ffn_hidden + hidden if v.check_bool("bias", bias) else 0)


def norm_params(dim, norm="layernorm"):
    """One normalisation layer over ``dim`` channels."""
    dim, = sizes(dim=dim)
    v.check_choice("norm", norm, NORM_PARAMS_PER_CHANNEL)
    return NORM_PARAMS_PER_CHANNEL[norm] * dim


def router_params(hidden, num_experts):
    """The MoE router: one linear map from the hidden state to a score per expert (no bias in these models)."""
    hidden, num_experts = sizes(hidden=hidden, num_experts=num_experts)
    return hidden * num_experts


def layer_params(hidden, n_heads, n_kv_heads=None, head_dim=None, ffn_hidden=None, gated=False,
                 norm="layernorm", norms_per_layer=2):
    """One dense decoder layer without biases: attention + FFN + its normalisation layers."""
    hidden, = sizes(hidden=hidden)
    ffn_hidden = 4 * hidden if ffn_hidden is None else ffn_hidden
    if not v.is_symbolic(norms_per_layer):
        norms_per_layer = v.check_int("norms_per_layer", norms_per_layer, minimum=0, maximum=4)
    return (attention_params(hidden, n_heads, n_kv_heads, head_dim)
            + ffn_params(hidden, ffn_hidden, gated)
            + norms_per_layer * norm_params(hidden, norm))


def rule_layer_params(hidden):
    """The material's rule for one layer: 4H² of attention + 8H² of FFN = 12H² (small terms dropped)."""
    hidden, = sizes(hidden=hidden)
    return 12 * hidden**2


def rule_params(hidden, layers, vocab_size):
    """The material's rule for a whole dense model: L·12H² + V·H (one embedding table, tied head)."""
    hidden, layers, vocab_size = sizes(hidden=hidden, layers=layers, vocab_size=vocab_size)
    return layers * rule_layer_params(hidden) + embedding_params(vocab_size, hidden)


def rule_hidden_size(total_params, layers, vocab_size):
    """Reverse the rule: the positive root H of 12·L·H² + V·H − N = 0."""
    total_params, layers, vocab_size = sizes(total_params=total_params, layers=layers, vocab_size=vocab_size)
    discriminant = vocab_size**2 + 48 * layers * total_params
    # (√D − V) / 24L, written as 2N / (√D + V): the same root, without cancelling when V² dwarfs 48·L·N.
    return 2 * total_params / (_sqrt(discriminant) + vocab_size)


def _sqrt(x):
    if v.is_symbolic(x):
        import sympy  # only when the caller is already working in SymPy

        return sympy.sqrt(x)
    return x**0.5


# ----------------------------------------------------------------------------------------------------------------
# ModelConfig
# ----------------------------------------------------------------------------------------------------------------

# The fields that None derives from others; replace() derives them again unless they were given.
DERIVED = ("num_kv_heads", "head_dim", "ffn_hidden_size", "embedding_dim", "norms_per_layer", "experts_per_token",
           "expert_ffn_hidden_size", "shared_expert_ffn_hidden_size", "moe_layers")


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a decoder-only transformer, dense or mixture-of-experts.

    Optional fields left as None take the usual default: ``num_kv_heads`` = ``num_heads`` (multi-head attention),
    ``head_dim`` = hidden / heads, ``ffn_hidden_size`` = 4·hidden, ``norms_per_layer`` = 1 with parallel blocks
    else 2, ``embedding_dim`` = hidden, ``expert_ffn_hidden_size`` = ``ffn_hidden_size``, ``moe_layers`` = all.
    """

    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int | None = None
    head_dim: int | None = None
    ffn_hidden_size: int | None = None
    gated_ffn: bool = False
    norm: str = "layernorm"
    attention_bias: str = "none"
    ffn_bias: bool = False
    tie_embeddings: bool = False
    position_embedding: str = "rotary"
    max_positions: int | None = None          # rows of a learned position table
    embedding_dim: int | None = None          # token embedding width when it differs from hidden (OPT-350m)
    parallel_blocks: bool = False             # attention and FFN read the same input (GPT-J, GPT-NeoX, Falcon)
    norms_per_layer: int | None = None
    final_norm: bool = True
    qk_norm: bool = False                     # a norm over all query and all key channels (OLMo 2)
    num_experts: int = 0                      # 0: dense
    experts_per_token: int | None = None
    expert_ffn_hidden_size: int | None = None
    num_shared_experts: int = 0
    shared_expert_ffn_hidden_size: int | None = None
    shared_expert_gate: bool = False          # a sigmoid gate H -> 1 on the shared expert (Qwen MoE)
    moe_layers: int | None = None
    name: str = ""

    def __post_init__(self):
        def fill(field, value):
            object.__setattr__(self, field, value)

        fill("_given", frozenset(f for f in DERIVED if getattr(self, f) is not None))  # for replace()
        for field in ("vocab_size", "hidden_size", "num_layers", "num_heads"):
            fill(field, count(field, getattr(self, field)))
        for field in ("gated_ffn", "ffn_bias", "tie_embeddings", "parallel_blocks", "final_norm", "qk_norm",
                      "shared_expert_gate"):
            fill(field, v.check_bool(field, getattr(self, field)))
        for field, choices in (("norm", NORM_PARAMS_PER_CHANNEL), ("attention_bias", ATTENTION_BIASES),
                               ("position_embedding", POSITION_EMBEDDINGS)):
            if not isinstance(getattr(self, field), str) or getattr(self, field) not in choices:
                v.check_choice(field, getattr(self, field), choices)

        kv = self.num_heads if self.num_kv_heads is None else count("num_kv_heads", self.num_kv_heads)
        if kv > self.num_heads:
            raise InputError("num_kv_heads", f"'num_kv_heads' == {kv}, must be <= 'num_heads' ({self.num_heads}).")
        if self.num_heads % kv:
            raise InputError("num_kv_heads", f"'num_heads' must be divisible by 'num_kv_heads' "
                                             f"({self.num_heads} % {kv} != 0).")
        fill("num_kv_heads", kv)
        if self.head_dim is None:
            if self.hidden_size % self.num_heads:
                raise InputError("num_heads", f"'hidden_size' must be divisible by 'num_heads' "
                                              f"({self.hidden_size} % {self.num_heads} != 0), or give 'head_dim'.")
            fill("head_dim", self.hidden_size // self.num_heads)
        else:
            fill("head_dim", count("head_dim", self.head_dim))
        fill("ffn_hidden_size", 4 * self.hidden_size if self.ffn_hidden_size is None
             else count("ffn_hidden_size", self.ffn_hidden_size))
        fill("embedding_dim", self.hidden_size if self.embedding_dim is None
             else count("embedding_dim", self.embedding_dim))
        fill("norms_per_layer", (1 if self.parallel_blocks else 2) if self.norms_per_layer is None
             else count("norms_per_layer", self.norms_per_layer, minimum=0, maximum=4))
        if self.position_embedding == "learned" or self.max_positions is not None:
            fill("max_positions", count("max_positions", self.max_positions))
        self._check_moe(fill)
        if not isinstance(self.name, str):
            raise InputError("name", f"name == {quote(self.name)}, must be text.")

    def _check_moe(self, fill):
        experts = count("num_experts", self.num_experts, minimum=0)
        fill("num_experts", experts)
        if experts == 0:
            for field, empty in (("experts_per_token", None), ("expert_ffn_hidden_size", None),
                                 ("num_shared_experts", 0), ("shared_expert_ffn_hidden_size", None),
                                 ("shared_expert_gate", False), ("moe_layers", None)):
                if getattr(self, field) is not empty and getattr(self, field) != 0:
                    raise InputError(field, f"{field} == {quote(getattr(self, field))} needs num_experts >= 1 "
                                            "(num_experts == 0 means a dense model).")
            for field in ("experts_per_token", "moe_layers", "expert_ffn_hidden_size", "num_shared_experts",
                          "shared_expert_ffn_hidden_size"):
                fill(field, 0)
            return
        if self.experts_per_token is None:
            raise InputError("experts_per_token", "experts_per_token is missing: a MoE model (num_experts == "
                                                  f"{experts}) needs it, in [1, {experts}].")
        fill("experts_per_token", count("experts_per_token", self.experts_per_token, maximum=experts))
        fill("expert_ffn_hidden_size", self.ffn_hidden_size if self.expert_ffn_hidden_size is None
             else count("expert_ffn_hidden_size", self.expert_ffn_hidden_size))
        shared = count("num_shared_experts", self.num_shared_experts, minimum=0)
        fill("num_shared_experts", shared)
        fill("shared_expert_ffn_hidden_size", 0 if shared == 0 else (
            self.expert_ffn_hidden_size if self.shared_expert_ffn_hidden_size is None
            else count("shared_expert_ffn_hidden_size", self.shared_expert_ffn_hidden_size)))
        fill("moe_layers", self.num_layers if self.moe_layers is None
             else count("moe_layers", self.moe_layers, minimum=0, maximum=self.num_layers))

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def attention_kind(self) -> str:
        """'MHA', 'GQA' or 'MQA'."""
        if self.num_kv_heads == self.num_heads:
            return "MHA"
        return "MQA" if self.num_kv_heads == 1 else "GQA"

    def replace(self, **changes) -> ModelConfig:
        """A copy with some fields changed, validated again. Fields that were derived from others (left as None:
        head_dim, the FFN widths, embedding_dim, moe_layers, ...) are derived again from the new values; fields
        given explicitly stay as given unless changed. None for a field means "derive it"."""
        names = [f.name for f in dataclasses.fields(self)]
        for key in changes:
            if key not in names:
                close = difflib.get_close_matches(str(key), names, n=2, cutoff=0.6)
                hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
                raise InputError(key, f"{quote(key)} is not a field of ModelConfig.{hint}")
        kept = {f: getattr(self, f) for f in names if f not in DERIVED or f in self._given}
        return ModelConfig(**{**kept, **changes})

    @classmethod
    def from_hf_config(cls, config) -> ModelConfig:
        """From a Hugging Face ``config.json``: a dict, a path to the file (or to its folder), or its JSON text."""
        return build_from_hf_config(cls, config)


# ----------------------------------------------------------------------------------------------------------------
# Counting
# ----------------------------------------------------------------------------------------------------------------

PARTS = ("embeddings", "positions", "embedding_projections", "attention", "ffn", "experts", "shared_experts",
         "router", "norms", "output_head")


@dataclass(frozen=True)
class ParamCount:
    """Parameters by part. ``total`` counts tied weights once, as ``sum(p.numel() for p in model.parameters())``
    does; ``active`` is what one token uses (the experts it is not routed to left out)."""

    parts: dict
    active: int
    config_name: str = ""

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    def __getitem__(self, part: str) -> int:
        return self.parts[part]

    def table(self) -> str:
        rows = [(part, n) for part, n in self.parts.items() if n]
        width = max(len(part) for part, _ in rows + [("active (per token)", 0)])
        lines = [f"{part:<{width}}  {format_int(n):>17}  {format_percent(n / self.total, 1):>6}" for part, n in rows]
        lines.append(f"{'total':<{width}}  {format_int(self.total):>17}  {format_count(self.total):>6}")
        if self.active != self.total:
            lines.append(f"{'active (per token)':<{width}}  {format_int(self.active):>17}  "
                         f"{format_count(self.active):>6}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        name = f"{self.config_name}: " if self.config_name else ""
        active = f", active={format_int(self.active)}" if self.active != self.total else ""
        return f"ParamCount({name}total={format_int(self.total)}{active})"


def count_params(cfg: ModelConfig) -> ParamCount:
    """Exact parameter count of a ModelConfig, part by part."""
    if not isinstance(cfg, ModelConfig):
        raise InputError("cfg", f"cfg == {quote(cfg)}, must be a ModelConfig (see ModelConfig.from_hf_config).")
    H, L = cfg.hidden_size, cfg.num_layers
    dense_layers = L - cfg.moe_layers
    per_layer_norms = cfg.norms_per_layer * norm_params(H, cfg.norm)
    if cfg.qk_norm:
        per_layer_norms += norm_params(cfg.num_heads * cfg.head_dim, cfg.norm)
        per_layer_norms += norm_params(cfg.num_kv_heads * cfg.head_dim, cfg.norm)
    expert = shared = router = 0
    if cfg.is_moe:
        expert = ffn_params(H, cfg.expert_ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias)
        router = router_params(H, cfg.num_experts)
    if cfg.num_shared_experts:
        shared = (cfg.num_shared_experts * ffn_params(H, cfg.shared_expert_ffn_hidden_size, cfg.gated_ffn,
                                                       cfg.ffn_bias) + (H if cfg.shared_expert_gate else 0))
    parts = {
        "embeddings": embedding_params(cfg.vocab_size, cfg.embedding_dim),
        "positions": cfg.max_positions * H if cfg.position_embedding == "learned" else 0,
        "embedding_projections": 2 * cfg.embedding_dim * H if cfg.embedding_dim != H else 0,
        "attention": L * attention_params(H, cfg.num_heads, cfg.num_kv_heads, cfg.head_dim, cfg.attention_bias),
        "ffn": dense_layers * ffn_params(H, cfg.ffn_hidden_size, cfg.gated_ffn, cfg.ffn_bias) if dense_layers else 0,
        "experts": cfg.moe_layers * cfg.num_experts * expert,
        "shared_experts": cfg.moe_layers * shared,
        "router": cfg.moe_layers * router,
        "norms": L * per_layer_norms + (norm_params(H, cfg.norm) if cfg.final_norm else 0),
        "output_head": 0 if cfg.tie_embeddings else embedding_params(cfg.vocab_size, cfg.embedding_dim),
    }
    unused_experts = cfg.moe_layers * (cfg.num_experts - cfg.experts_per_token) * expert
    return ParamCount(parts=parts, active=sum(parts.values()) - unused_experts, config_name=cfg.name)


# ----------------------------------------------------------------------------------------------------------------
# Presets
# ----------------------------------------------------------------------------------------------------------------

PRESETS = {name: ModelConfig(**fields, name=name) for name, fields in PRESET_FIELDS.items()}


def preset(name: str) -> ModelConfig:
    """A named model; an unknown name gets the close names suggested."""
    return v.lookup("preset", name, PRESETS)


def config_from(model) -> ModelConfig:
    """Accept a ModelConfig, a preset name, or anything ModelConfig.from_hf_config reads."""
    if isinstance(model, ModelConfig):
        return model
    if isinstance(model, str) and model in PRESETS:
        return PRESETS[model]
    if isinstance(model, str) and model.lstrip()[:1] not in ("{", "[") and not os.path.exists(model):
        try:
            return v.lookup("model", model, PRESETS)  # "Llama-2-7B", "llama 2 7b"
        except InputError:
            pass
        close = difflib.get_close_matches(model, PRESETS, n=3, cutoff=0.5)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise InputError("model", f"model == {quote(model)} is neither a preset nor a config.json path.{hint}")
    return ModelConfig.from_hf_config(load(model, "model"))


def config_from_file(path, param: str = "model") -> ModelConfig:
    """From a config.json file, or the folder that holds one; an unreadable file is an InputError for ``param``."""
    return ModelConfig.from_hf_config(read_file(path, param))


def config_from_json(text: str, param: str = "config") -> ModelConfig:
    """From the pasted JSON text of a config.json; bad text is an InputError for ``param``."""
    return ModelConfig.from_hf_config(read_json(text, param))
