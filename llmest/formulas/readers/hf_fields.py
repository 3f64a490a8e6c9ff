"""Typed access to a Hugging Face ``config.json`` for the readers in ``hf_build`` and ``hf_recent``: each value
checked as the model type needs it, and each error naming the config's key."""

from __future__ import annotations

from ...core._validate import InputError, quote
from .config_file import MAX_SIZE
from ...core.i18n import _

_REQUIRED = object()


class _Fields:
    """Typed access to a config dict, with errors that name the field."""

    def __init__(self, config: dict, model_type: str):
        self.config, self.model_type = config, model_type

    def _raw(self, keys, default):
        keys = (keys,) if isinstance(keys, str) else keys
        for key in keys:
            if self.config.get(key) is not None:
                return key, self.config[key]
        if default is _REQUIRED:
            raise InputError(keys[0], _("config.json: '{key}' is missing; model_type '{model_type}' needs it.").format(
                key=keys[0], model_type=self.model_type))
        return keys[0], default

    def size(self, keys, default=_REQUIRED, minimum=1):
        key, value = self._raw(keys, default)
        if value is default:
            return value
        # JSON integers only: transformers builds no layer 4096.0 wide, so a float (even 4096.0) is refused.
        if type(value) is not int or value < minimum:
            raise InputError(key, _("config.json: '{key}' == {value}, must be an integer >= {minimum}.").format(
                key=key, value=quote(value), minimum=minimum))
        if value > MAX_SIZE:
            raise InputError(key, _("config.json: '{key}' == {value}, must be <= {maximum}.").format(
                key=key, value=quote(value), maximum=f"{MAX_SIZE:,}"))
        return value

    def flag(self, key, default: bool) -> bool:
        key, value = self._raw(key, default)
        if not isinstance(value, bool):
            raise InputError(key, _("config.json: '{key}' == {value}, must be true or false.").format(
                key=key, value=quote(value)))
        return value

    def str_list(self, key) -> list | None:
        key, value = self._raw(key, None)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(i, str) for i in value):
            raise InputError(key, _("config.json: '{key}' == {value}, must be a list of strings.").format(
                key=key, value=quote(value)))
        return value

    def int_list(self, key) -> list:
        key, value = self._raw(key, [])
        if not isinstance(value, list) or not all(type(i) is int for i in value):
            raise InputError(key, _("config.json: '{key}' == {value}, must be a list of layer indices.").format(
                key=key, value=quote(value)))
        return value

    def local_layers(self, layers: int, default_local) -> int:
        """How many layers attend locally: those ``layer_types`` names so, else the type's default pattern."""
        types = self.str_list("layer_types")
        if types is not None:
            if len(types) != layers:
                raise InputError("layer_types", _("config.json: 'layer_types' has {count} entries, must have one per "
                                                  "layer ({layers}).").format(count=len(types), layers=layers))
            return sum(t != "full_attention" for t in types)
        return sum(1 for i in range(layers) if default_local(i))

    def window(self, layers: int, default_local=lambda i: True) -> dict:
        """The sliding window and how many layers use it (all, unless the type alternates), if the config has one."""
        window = self.size("sliding_window", None)
        if window is None:
            return {}
        return dict(local_window=window, local_layers=self.local_layers(layers, default_local))

    def sparse_moe_layers(self, layers: int, experts: int) -> int:
        """Qwen's MoE layers: layer i is one when (i + 1) % decoder_sparse_step == 0 and mlp_only_layers does not list
        it, counted without a loop over the layers; none without experts."""
        step = self.size("decoder_sparse_step", 1)
        dense_only = {i for i in self.int_list("mlp_only_layers") if 0 <= i < layers and (i + 1) % step == 0}
        return layers // step - len(dense_only) if experts > 0 else 0

    def qwen_moe(self, fields: dict, experts: int) -> dict:
        """``fields`` with Qwen's MoE (Qwen1.5-MoE, Qwen2-MoE, Qwen3-Next): routed experts on the layers of
        ``sparse_moe_layers`` and one gated shared expert; unchanged where there are none."""
        moe_layers = self.sparse_moe_layers(fields["num_layers"], experts)
        if moe_layers == 0:
            return fields
        return dict(fields, num_experts=experts, experts_per_token=self.size("num_experts_per_tok"),
                    expert_ffn_hidden_size=self.size("moe_intermediate_size"), num_shared_experts=1,
                    shared_expert_ffn_hidden_size=self.size("shared_expert_intermediate_size"),
                    shared_expert_gate=True, moe_layers=moe_layers)

    def common(self, tie_default: bool, vocab_default=_REQUIRED) -> dict:
        """The fields every llama-style config spells the same way."""
        return dict(
            vocab_size=self.size("vocab_size", vocab_default),
            hidden_size=self.size("hidden_size"),
            num_layers=self.size("num_hidden_layers"),
            num_heads=self.size("num_attention_heads"),
            tie_embeddings=self.flag("tie_word_embeddings", tie_default),
        )

    def llama_style(self, tie_default=False, kv_required=False, vocab_default=_REQUIRED) -> dict:
        """RMSNorm, a gated (SwiGLU/GeGLU) FFN, rotary positions, optional GQA and head_dim."""
        return dict(
            self.common(tie_default, vocab_default),
            num_kv_heads=self.size("num_key_value_heads", _REQUIRED if kv_required else None),
            head_dim=self.size("head_dim", None),
            ffn_hidden_size=self.size("intermediate_size"),
            gated_ffn=True,
            norm="rmsnorm",
        )


def _bias(flag: bool) -> str:
    return "all" if flag else "none"
