"""Decoder-only transformers: their shapes (ModelConfig) and their parameter counts.

The formulas, the functions ending in ``_params``, live in llmest.formulas.params; ``count_params`` applies them to a
validated ModelConfig, part by part.
"""

from __future__ import annotations

import difflib
import os

from ..core import _validate as v
from .readers.config_file import CONFIGS, PRESET_FIELDS, STORED_PRESETS, load, read_file, read_json
from ..core._validate import InputError, quote
from ..core.i18n import _
from .shape import DERIVED, FLAGS, ModelConfig  # noqa: F401 (the shape, here too)
from .counting import PARTS, ParamCount, count_params  # noqa: F401

# The formulas, here too: chapter 1 and the plans call them as llmest.formulas.model's.
from .params import (ATTENTION_BIASES, NORM_PARAMS_PER_CHANNEL, PART_NAMES, POSITION_EMBEDDINGS,  # noqa: F401
                     attention_params, embedding_params, ffn_params, layer_params, mla_attention_params, norm_params,
                     router_params, rule_hidden_size, rule_layer_params, rule_params)


# ----------------------------------------------------------------------------------------------------------------
# Presets
# ----------------------------------------------------------------------------------------------------------------

PRESETS = {name: ModelConfig(**fields, name=name) for name, fields in PRESET_FIELDS.items()}
PRESETS.update({name: ModelConfig.from_hf_config(CONFIGS / f"{name}.json").replace(name=name)
                for name in STORED_PRESETS})


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
        hint = _(" Did you mean {choices}?").format(choices=_(" or ").join(repr(c) for c in close)) if close else ""
        raise InputError("model", _("model == {model} is neither a preset nor a config.json path.").format(
            model=quote(model)) + hint)
    return ModelConfig.from_hf_config(load(model, "model"))


def config_from_file(path, param: str = "model") -> ModelConfig:
    """From a config.json file, or the folder that holds one; an unreadable file is an InputError for ``param``."""
    return ModelConfig.from_hf_config(read_file(path, param))


def config_from_json(text: str, param: str = "config") -> ModelConfig:
    """From the pasted JSON text of a config.json; bad text is an InputError for ``param``."""
    return ModelConfig.from_hf_config(read_json(text, param))
