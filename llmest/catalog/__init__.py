"""Sourced data: GPUs, networks and prices (``hardware``), published training runs (``runs``), the
tokenizer corpora (``corpora``) and the presets' config.json files (``configs/``)."""
