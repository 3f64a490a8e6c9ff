"""The formulas, one small function each: a model's configuration and parameter count, memory, the KV cache,
FLOPs and time, communication, ZeRO, data, and what torch measures; ``readers`` reads config.json files."""
