"""The shape of a decoder-only transformer, dense, mixture-of-experts or hybrid: ModelConfig and its checks.

llmest.formulas.model gathers it with its counting (llmest.formulas.counting), the presets and the readers.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass

from ..core import _validate as v
from .mixers import Mixer
from .readers.hf_build import build_from_hf_config
from .readers.config_file import count
from ..core._validate import InputError, quote
from ..core.i18n import _
from .params import ATTENTION_BIASES, NORM_PARAMS_PER_CHANNEL, POSITION_EMBEDDINGS


# The fields that None derives from others; replace() derives them again unless they were given.
DERIVED = ("num_kv_heads", "head_dim", "ffn_hidden_size", "embedding_dim", "norms_per_layer", "experts_per_token",
           "expert_ffn_hidden_size", "shared_expert_ffn_hidden_size", "moe_layers", "v_head_dim", "local_layers",
           "mixer_layers", "attention_layers", "ffn_layers")
FLAGS = ("gated_ffn", "ffn_bias", "tie_embeddings", "parallel_blocks", "final_norm", "qk_norm", "qk_norm_per_head",
         "shared_expert_gate", "attention_sinks", "router_bias", "output_bias", "embedding_norm", "ffn_beside_moe",
         "attention_gate", "shared_kv")


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
    qk_norm_per_head: bool = False            # ... over each head's channels instead, shared by the heads (Qwen3)
    # Multi-head latent attention (DeepSeek-V2, V3): keys and values come up from a latent of kv_lora_rank channels;
    # head_dim is then the query/key width per head (qk_nope_head_dim + qk_rope_head_dim).
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None            # queries through a latent too (V3); None: straight from H
    qk_rope_head_dim: int | None = None       # the rotary part of head_dim, one key shared by the heads
    v_head_dim: int | None = None             # value width per head, when it differs from head_dim (MLA)
    attention_sinks: bool = False             # a learned logit per query head (gpt-oss)
    local_window: int | None = None           # sliding-window or chunked attention: the tokens a local layer sees
    local_layers: int | None = None           # how many layers are local (all, when a window is given)
    embedding_norm: bool = False              # a norm right after the token embedding (BLOOM)
    output_bias: bool = False                 # a bias on the output head (Phi-2)
    router_bias: bool = False                 # a bias on the MoE router (gpt-oss)
    num_experts: int = 0                      # 0: dense
    experts_per_token: int | None = None
    expert_ffn_hidden_size: int | None = None
    num_shared_experts: int = 0
    shared_expert_ffn_hidden_size: int | None = None
    shared_expert_gate: bool = False          # a sigmoid gate H -> 1 on the shared expert (Qwen MoE)
    moe_layers: int | None = None
    # DeepSeek sparse attention (V3.2): a small indexer per layer picks the index_topk tokens each query attends to;
    # its heads read the query latent (q_lora_rank) and the hidden state.
    index_heads: int | None = None
    index_head_dim: int | None = None
    index_topk: int | None = None
    zero_experts: int = 0                     # experts that return their input, without weights (LongCat-Flash)
    ffn_beside_moe: bool = False              # a dense FFN on every layer, the MoE beside it (LongCat-Flash)
    mtp_layers: int = 0                       # multi-token-prediction modules, counted apart (DeepSeek-V3)
    # Hybrids: a token mixer other than attention on some layers (llmest.formulas.mixers), and layers without
    # attention or without an FFN (Nemotron-H's blocks hold one of Mamba, attention, an MLP or a MoE).
    mixer: Mixer | dict | None = None         # the other mixer's kind and shape
    mixer_layers: int | None = None           # layers with that mixer (all, when a mixer is given)
    attention_layers: int | None = None       # layers with attention (the others; Falcon-H1: all, beside the mixer)
    ffn_layers: int | None = None             # layers with an FFN or a MoE (all)
    attention_gate: bool = False              # queries twice as wide, half of them a gate on the output (Qwen3-Next)
    # DeepSeek-V4 (llmest.formulas.deepseek_v4): one key-value head whose keys are its values, a grouped low-rank
    # output map, layers whose attention also reads compressed entries (CSA with an indexer, HCA without), MoE
    # layers routed by a fixed token -> experts table, and several residual streams (hyper-connections).
    shared_kv: bool = False                   # one map H -> head_dim gives each token's key and value (with a norm)
    output_groups: int | None = None          # the heads' outputs in g groups, each mapped to output_lora_rank
    output_lora_rank: int | None = None
    csa_layers: int = 0                       # layers with compressed sparse attention (an indexer picks entries)
    csa_rate: int | None = None               # tokens per compressed entry on those layers (4)
    hca_layers: int = 0                       # layers with heavily compressed attention (no indexer)
    hca_rate: int | None = None               # tokens per compressed entry on those layers (128)
    hash_moe_layers: int = 0                  # MoE layers whose experts a token-id table picks (the router weighs)
    residual_streams: int = 0                 # hyper-connections' copies of the hidden state (0: a plain residual)
    name: str = ""

    def __post_init__(self):
        def fill(field, value):
            object.__setattr__(self, field, value)

        fill("_given", frozenset(f for f in DERIVED if getattr(self, f) is not None))  # for replace()
        for field in ("vocab_size", "hidden_size", "num_layers", "num_heads"):
            fill(field, count(field, getattr(self, field)))
        for field in FLAGS:
            fill(field, v.check_bool(field, getattr(self, field)))
        for field, choices in (("norm", NORM_PARAMS_PER_CHANNEL), ("attention_bias", ATTENTION_BIASES),
                               ("position_embedding", POSITION_EMBEDDINGS)):
            if not isinstance(getattr(self, field), str) or getattr(self, field) not in choices:
                v.check_choice(field, getattr(self, field), choices)

        kv = self.num_heads if self.num_kv_heads is None else count("num_kv_heads", self.num_kv_heads)
        if kv > self.num_heads:
            raise InputError("num_kv_heads", _("'num_kv_heads' == {kv}, must be <= 'num_heads' ({heads}).").format(
                kv=kv, heads=self.num_heads))
        if self.num_heads % kv:
            raise InputError("num_kv_heads", _("'num_heads' must be divisible by 'num_kv_heads' ({heads} % {kv} != 0).")
                             .format(heads=self.num_heads, kv=kv))
        fill("num_kv_heads", kv)
        if self.head_dim is None:
            if self.hidden_size % self.num_heads:
                raise InputError("num_heads", _("'hidden_size' must be divisible by 'num_heads' ({hidden} % {heads} "
                                                "!= 0), or give 'head_dim'.").format(hidden=self.hidden_size,
                                                                                      heads=self.num_heads))
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
        self._check_layers(fill)
        self._check_moe(fill)
        self._check_attention(fill)
        self._check_2025(fill)
        self._check_v4(fill)
        if not isinstance(self.name, str):
            raise InputError("name", _("name == {value}, must be text.").format(value=quote(self.name)))

    def _check_layers(self, fill):
        """A hybrid's layers: how many have the other mixer, attention, an FFN (all have attention and an FFN when
        no mixer is given)."""
        layers = self.num_layers
        if self.mixer is None:
            if self.mixer_layers is not None and count("mixer_layers", self.mixer_layers, minimum=0):
                raise InputError("mixer_layers", _("mixer_layers == {value} needs mixer (the kind of mixer those "
                                                   "layers have).").format(value=quote(self.mixer_layers)))
            fill("mixer_layers", 0)
        else:
            fill("mixer", Mixer.from_value(self.mixer))
            fill("mixer_layers", layers if self.mixer_layers is None
                 else count("mixer_layers", self.mixer_layers, minimum=0, maximum=layers))
        fill("attention_layers", layers - self.mixer_layers if self.attention_layers is None
             else count("attention_layers", self.attention_layers, minimum=0, maximum=layers))
        fill("ffn_layers", layers if self.ffn_layers is None
             else count("ffn_layers", self.ffn_layers, minimum=0, maximum=layers))

    def _check_moe(self, fill):
        experts = count("num_experts", self.num_experts, minimum=0)
        fill("num_experts", experts)
        if experts == 0:
            for field, empty in (("experts_per_token", None), ("expert_ffn_hidden_size", None),
                                 ("num_shared_experts", 0), ("shared_expert_ffn_hidden_size", None),
                                 ("shared_expert_gate", False), ("moe_layers", None)):
                given = getattr(self, field)  # a count (0 is none), but not False, an array or None for a count
                if given is not empty and (field == "shared_expert_gate" or count(field, given, minimum=0)):
                    raise InputError(field, _("{field} == {value} needs num_experts >= 1 (num_experts == 0 means a "
                                              "dense model).").format(field=field, value=quote(getattr(self, field))))
            for field in ("experts_per_token", "moe_layers", "expert_ffn_hidden_size", "num_shared_experts",
                          "shared_expert_ffn_hidden_size"):
                fill(field, 0)
            return
        if self.experts_per_token is None:
            raise InputError("experts_per_token", _("experts_per_token is missing: a MoE model (num_experts == "
                                                    "{experts}) needs it, in [1, {experts}].").format(experts=experts))
        fill("experts_per_token", count("experts_per_token", self.experts_per_token, maximum=experts))
        fill("expert_ffn_hidden_size", self.ffn_hidden_size if self.expert_ffn_hidden_size is None
             else count("expert_ffn_hidden_size", self.expert_ffn_hidden_size))
        shared = count("num_shared_experts", self.num_shared_experts, minimum=0)
        fill("num_shared_experts", shared)
        fill("shared_expert_ffn_hidden_size", 0 if shared == 0 else (
            self.expert_ffn_hidden_size if self.shared_expert_ffn_hidden_size is None
            else count("shared_expert_ffn_hidden_size", self.shared_expert_ffn_hidden_size)))
        fill("moe_layers", self.ffn_layers if self.moe_layers is None
             else count("moe_layers", self.moe_layers, minimum=0, maximum=self.ffn_layers))

    def _check_attention(self, fill):
        if self.qk_norm_per_head and not self.qk_norm:
            raise InputError("qk_norm_per_head", _("qk_norm_per_head == True needs qk_norm == True."))
        if self.kv_lora_rank is None:
            if self.shared_kv and self.q_lora_rank is not None:  # DeepSeek-V4's queries come through a latent too
                fill("q_lora_rank", count("q_lora_rank", self.q_lora_rank))
            for field in ("qk_rope_head_dim", "v_head_dim") + (() if self.shared_kv else ("q_lora_rank",)):
                if getattr(self, field) is not None:
                    raise InputError(field, _("{field} == {value} is a field of multi-head latent attention: give "
                                              "kv_lora_rank too.").format(field=field,
                                                                          value=quote(getattr(self, field))))
        else:
            fill("kv_lora_rank", count("kv_lora_rank", self.kv_lora_rank))
            if self.q_lora_rank is not None:
                fill("q_lora_rank", count("q_lora_rank", self.q_lora_rank))
            if self.qk_rope_head_dim is None:
                raise InputError("qk_rope_head_dim", _("qk_rope_head_dim is missing: multi-head latent attention "
                                                       "(kv_lora_rank given) needs it."))
            fill("qk_rope_head_dim", count("qk_rope_head_dim", self.qk_rope_head_dim, maximum=self.head_dim - 1))
            fill("v_head_dim", self.head_dim if self.v_head_dim is None else count("v_head_dim", self.v_head_dim))
        if self.local_window is None:
            if self.local_layers is not None and count("local_layers", self.local_layers, minimum=0):
                raise InputError("local_layers", _("local_layers == {value} needs local_window.").format(
                    value=quote(self.local_layers)))
            fill("local_layers", 0)
        else:
            fill("local_window", count("local_window", self.local_window, minimum=2))  # 1 would keep nothing
            fill("local_layers", self.attention_layers if self.local_layers is None
                 else count("local_layers", self.local_layers, minimum=0, maximum=self.attention_layers))
        if self.router_bias and not self.num_experts:
            raise InputError("router_bias", _("router_bias == True needs num_experts >= 1 (a router)."))

    def _check_2025(self, fill):
        """The indexer of sparse attention, zero-computation experts, a dense FFN beside the MoE, MTP modules."""
        index = ("index_heads", "index_head_dim", "index_topk")
        for field in index:
            if getattr(self, field) is not None:
                fill(field, count(field, getattr(self, field)))
        given = [field for field in index if getattr(self, field) is not None]
        if given and len(given) < len(index):
            missing = next(field for field in index if getattr(self, field) is None)
            raise InputError(missing, _("{missing} is missing: the indexer of sparse attention ({given} == {value}) "
                                        "needs all of {fields}.").format(missing=missing, given=given[0],
                                                                          value=getattr(self, given[0]),
                                                                          fields=", ".join(index)))
        if given and self.q_lora_rank is None:
            raise InputError("index_heads", _("index_heads == {value} needs q_lora_rank: the indexer's queries come "
                                              "from the query latent of multi-head latent attention.").format(
                value=self.index_heads))
        fill("zero_experts", count("zero_experts", self.zero_experts, minimum=0))
        fill("mtp_layers", count("mtp_layers", self.mtp_layers, minimum=0))
        for field, value in (("zero_experts", self.zero_experts), ("ffn_beside_moe", self.ffn_beside_moe)):
            if value and not self.num_experts:
                raise InputError(field, _("{field} == {value} needs num_experts >= 1 (a router).").format(
                    field=field, value=quote(value)))

    def _check_v4(self, fill):
        """DeepSeek-V4's parts: shared-KV attention, its grouped output, compressed layers, hash routing, streams."""
        fill("residual_streams", count("residual_streams", self.residual_streams, minimum=0))
        for field in ("output_groups", "output_lora_rank", "csa_rate", "hca_rate"):
            if getattr(self, field) is not None:
                fill(field, count(field, getattr(self, field)))
        for field in ("csa_layers", "hca_layers"):
            fill(field, count(field, getattr(self, field), minimum=0, maximum=self.attention_layers))
        fill("hash_moe_layers", count("hash_moe_layers", self.hash_moe_layers, minimum=0))
        if self.hash_moe_layers > self.moe_layers:
            raise InputError("hash_moe_layers", _("hash_moe_layers == {value}, must be <= the MoE layers ({moe}).")
                             .format(value=self.hash_moe_layers, moe=self.moe_layers))
        if self.csa_layers + self.hca_layers > self.attention_layers:
            raise InputError("hca_layers", _("csa_layers + hca_layers == {value}, must be <= the layers with attention "
                                             "({layers}).").format(value=self.csa_layers + self.hca_layers,
                                                                   layers=self.attention_layers))
        for first, second in (("output_groups", "output_lora_rank"), ("csa_layers", "csa_rate"),
                              ("hca_layers", "hca_rate")):
            if bool(getattr(self, first)) != (getattr(self, second) is not None):
                given, missing = (first, second) if getattr(self, first) else (second, first)
                raise InputError(missing, _("{given} == {value} needs {missing} (given together).").format(
                    given=given, value=getattr(self, given), missing=missing))
        if not self.shared_kv:
            for field in ("output_groups", "csa_layers", "hca_layers"):
                if getattr(self, field):
                    raise InputError(field, _("{field} == {value} needs shared_kv == True (DeepSeek-V4's attention)."
                                              ).format(field=field, value=getattr(self, field)))
        else:
            self._check_shared_kv()
        if self.mtp_layers and (self.shared_kv or self.residual_streams):
            raise InputError("mtp_layers", _("mtp_layers == {value}: the MTP modules of a model with shared-KV "
                                             "attention or hyper-connections (DeepSeek-V4) are not built by "
                                             "transformers, and llmest does not count them.").format(
                value=self.mtp_layers))

    def _check_shared_kv(self):
        if self.num_kv_heads != 1:
            raise InputError("num_kv_heads", _("shared_kv == True needs num_kv_heads == 1 (one head whose keys are "
                                               "its values), not {kv}.").format(kv=self.num_kv_heads))
        if self.is_mla:
            raise InputError("shared_kv", _("shared_kv == True with kv_lora_rank: an attention is either shared-KV "
                                            "(DeepSeek-V4) or latent (MLA), not both."))
        if self.output_groups and (self.num_heads * self.head_dim) % self.output_groups:
            raise InputError("output_groups", _("'num_heads' · 'head_dim' must be divisible by 'output_groups' "
                                                "({width} % {groups} != 0).").format(
                width=self.num_heads * self.head_dim, groups=self.output_groups))
        if (self.index_heads is None) != (self.csa_layers == 0):
            raise InputError("index_heads", _("with shared_kv == True the indexer sits on the compressed sparse "
                                              "attention layers: give index_heads with csa_layers >= 1 (index_heads "
                                              "== {heads}, csa_layers == {csa}).").format(heads=self.index_heads,
                                                                                         csa=self.csa_layers))

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def qk_nope_head_dim(self) -> int:
        """MLA: the part of each query/key head without rotary positions."""
        return self.head_dim - self.qk_rope_head_dim

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def is_hybrid(self) -> bool:
        """Some layers have a mixer other than attention, or lack attention or an FFN."""
        layers = self.num_layers
        return self.mixer is not None or self.attention_layers != layers or self.ffn_layers != layers

    @property
    def attention_kind(self) -> str:
        """'MLA', 'MHA', 'GQA' or 'MQA'."""
        if self.is_mla:
            return "MLA"
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
                hint = _(" Did you mean {choices}?").format(choices=_(" or ").join(repr(c) for c in close)) \
                    if close else ""
                raise InputError(key, _("{key} is not a field of ModelConfig.").format(key=quote(key)) + hint)
        kept = {f: getattr(self, f) for f in names if f not in DERIVED or f in self._given}
        return ModelConfig(**{**kept, **changes})

    @classmethod
    def from_hf_config(cls, config) -> ModelConfig:
        """From a Hugging Face ``config.json``: a dict, a path to the file (or to its folder), or its JSON text."""
        return build_from_hf_config(cls, config)
