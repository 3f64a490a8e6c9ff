"""Token mixers other than attention, for hybrid models: their kinds, shapes and parameter counts.

A hybrid model (Qwen3-Next, Kimi Linear, LFM2, the Mamba hybrids) replaces attention on some of its layers with a
mixer that keeps a constant state per sequence instead of a cache growing with every token: a linear attention (gated
DeltaNet, Kimi Delta Attention), a Mamba-2 or Mamba-1 state-space layer, or a short convolution. ModelConfig holds
one such Mixer and the number of layers that have it; each kind's parameters are a formula of llmest.formulas.params,
its shape named as the config.json of its models names it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import _validate as v
from ..core._validate import InputError, quote
from ..core.i18n import _
from .params import (gated_deltanet_params, kimi_delta_params, mamba1_params, mamba2_params, short_conv_params)
from .readers.config_file import count

# kind -> (the ParamCount part it belongs to, its sizes, its flags with their defaults, its formula)
MIXER_KINDS = {
    "gated_deltanet": ("linear_attention", ("linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads",
                                            "linear_value_head_dim", "linear_conv_kernel_dim"), {},
                       gated_deltanet_params),
    "kimi_delta": ("linear_attention", ("linear_num_heads", "linear_head_dim", "linear_conv_kernel_dim"), {},
                   kimi_delta_params),
    "mamba2": ("mamba", ("mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_d_state", "mamba_d_conv"),
               {"conv_bias": True, "in_bias": False, "out_bias": False, "gated_norm": True}, mamba2_params),
    "mamba1": ("mamba", ("mamba_d_inner", "mamba_d_state", "mamba_dt_rank", "mamba_d_conv"),
               {"conv_bias": True, "proj_bias": False, "inner_norms": False}, mamba1_params),
    "short_conv": ("short_conv", ("conv_L_cache",), {"conv_bias": False}, short_conv_params),
}
MIXER_PARTS = ("linear_attention", "mamba", "short_conv")


@dataclass(frozen=True)
class Mixer:
    """A token mixer that is not attention: its ``kind`` (one of MIXER_KINDS) and its shape, ``shape`` as
    ((name, value), ...) pairs. Build one with ``Mixer.of("mamba2", mamba_n_heads=128, ...)`` or from a dict with
    a "kind" key (``Mixer.from_value``); read a size as ``mixer["mamba_n_heads"]``."""

    kind: str
    shape: tuple

    def __post_init__(self):
        if not isinstance(self.kind, str) or self.kind not in MIXER_KINDS:
            v.check_choice("kind", self.kind, tuple(MIXER_KINDS))
        if not isinstance(self.shape, tuple) or not all(
                isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str) for pair in self.shape):
            raise InputError("shape", _("shape == {value}, must be (name, value) pairs; build a Mixer with "
                                        "Mixer.of(kind, **sizes).").format(value=quote(self.shape)))

    @classmethod
    def of(cls, kind, **shape) -> Mixer:
        if not isinstance(kind, str) or kind not in MIXER_KINDS:
            v.check_choice("mixer", kind, tuple(MIXER_KINDS))
        needed, flags = MIXER_KINDS[kind][1:3]
        for name in shape:
            if name not in needed and name not in flags:
                raise InputError(name, _("{name} is not a size of a {kind} mixer; its sizes: {sizes}.").format(
                    name=quote(name), kind=kind, sizes=", ".join(needed + tuple(flags))))
        values = []
        for name in needed:
            if shape.get(name) is None:
                raise InputError(name, _("{name} is missing: a {kind} mixer needs {sizes}.").format(
                    name=name, kind=kind, sizes=", ".join(needed)))
            values.append((name, count(name, shape[name])))
        values += [(name, v.check_bool(name, shape.get(name, default))) for name, default in flags.items()]
        return cls(kind, tuple(values))

    @classmethod
    def from_value(cls, value) -> Mixer:
        """A Mixer as given, or built from a dict such as {"kind": "short_conv", "conv_L_cache": 3}."""
        if isinstance(value, Mixer):
            return cls.of(value.kind, **dict(value.shape))
        if isinstance(value, dict) and "kind" in value:
            return cls.of(**value)
        raise InputError("mixer", _("mixer == {value}, must be a Mixer or a dict with a 'kind' ({kinds}).").format(
            value=quote(value), kinds=", ".join(MIXER_KINDS)))

    def __getitem__(self, name):
        return dict(self.shape)[name]

    @property
    def part(self) -> str:
        """The ParamCount part this mixer's parameters go to: 'linear_attention', 'mamba' or 'short_conv'."""
        return MIXER_KINDS[self.kind][0]

    def params(self, hidden):
        """One layer's mixer parameters, by its kind's formula."""
        return MIXER_KINDS[self.kind][3](hidden, **dict(self.shape))
