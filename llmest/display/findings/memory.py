"""How chapter 2's findings read (``llmest.plans.findings.memory`` works them out): bytes per parameter, the training
states, activations, the least GPUs of a training run, ZeRO and pipelines, then weights, the KV cache, adapters,
serving and the GPUs' memory."""

from __future__ import annotations

from ...core.i18n import N_, _, display_width
from ...core.report import Report
from ...core.units import format_bytes, format_count, format_int, format_percent
from ...display.memory import RECOMPUTATION
from ...display.table import Table

# The settings of the activation factors and of the activations table, as the plans name them.
FACTOR_NAMES = {"tensor parallel": N_("tensor parallel"), "TP + sequence parallel": N_("TP + sequence parallel"),
                "FlashAttention or selective": N_("FlashAttention or selective"),
                "full recomputation": N_("full recomputation")}
ACTIVATION_NAMES = {"no recomputation": N_("no recomputation"), "FlashAttention": "FlashAttention",
                    "FlashAttention + full recomputation": N_("FlashAttention + full recomputation")}


def pad(text: str, width: int) -> str:
    """``text`` filled with spaces to ``width`` columns, a Chinese character taking two."""
    return text + " " * max(0, width - display_width(text))


def _lines(lines) -> Report:
    return Report("", lines=tuple(lines))


def _aligned(lines) -> Report:
    """Lines whose figures stand in columns: one block, which a page shows as preformatted text."""
    return Report("", blocks=("\n".join(lines),))


def _table(*args, **kwargs) -> Report:
    return Report("", blocks=(Table(*args, **kwargs),))


# ---- bytes per parameter -----------------------------------------------------------------------------------------

def conventions(f: dict) -> Report:
    rows = [(r["convention"], r["weights"], r["master"], r["grads"], r["optimizer"], r["total"], _(r["used_by"]))
            for r in f["rows"]]
    return _table((_("convention"), _("weights"), _("master"), _("gradients"), _("optimizer"), _("total"),
                   _("used by")), rows,
                  caption=_("bytes per parameter of each training state, {optimizer}").format(optimizer=f["optimizer"]))


def state_bytes_by_optimizer(f: dict) -> Report:
    return _table((_("convention"), *f["optimizers"]), [(r["convention"], *r["totals"]) for r in f["rows"]],
                  caption=_("bytes per parameter, all training states, by convention and optimizer"))


def weight_formats(f: dict) -> Report:
    rows = [(r["format"], f"{r['bytes_per_param']:.4f}", format_bytes(r["bytes"]), _(r["note"])) for r in f["rows"]]
    return _table((_("format"), _("bytes/param"), f["model"] or _("model"), _("note")), rows,
                  caption=_("weight formats; {model} in each (embeddings, head and norms in 16 bits)").format(
                      model=f["model"] or _("the model")))


# ---- the training states -----------------------------------------------------------------------------------------

def states(f: dict) -> Report:
    return _aligned(_("{params} parameters: states {states}, BF16 weights {weights}").format(
        params=f"{format_count(r['n_params']):>4}", states=f"{format_bytes(r['states']):>8}",
        weights=f"{format_bytes(r['weights']):>8}") for r in f["rows"])


def state_gpus(f: dict) -> Report:
    return Report("", lines=(_("the states alone, nothing kept free: {bare} GPUs; with {margin} free: {kept} GPUs")
                             .format(bare=f["bare"], margin=format_percent(f["margin"]), kept=f["kept"]),))


# ---- activations -------------------------------------------------------------------------------------------------

def activation_factors(f: dict) -> Report:
    return _aligned(f"{pad(_(FACTOR_NAMES[r['setting']]), 28)} {r['factor']}  × sbh" for r in f["rows"])


def activations(f: dict) -> Report:
    rows = [(_(ACTIVATION_NAMES[r["setting"]]), format_bytes(r["bytes"])) for r in f["rows"]]
    rows.append((_("of which the output layer (logits)"), format_bytes(f["logits"])))
    ratio = _("no recomputation / full recomputation: {ratio}×").format(ratio=f"{f['ratio']:.0f}")
    return Report("", blocks=(Table((_("setting"), _("activations per GPU")), rows, notes=(ratio,)),))


def selective_recompute(f: dict) -> Report:
    return _lines(_("{model}: {saved} of activation memory saved for {extra} more FLOPs").format(
        model=r["model"], saved=format_percent(r["saved"], 0), extra=format_percent(r["extra"], 1)) for r in f["rows"])


# ---- the least GPUs of a training run ----------------------------------------------------------------------------

def _no_fit(f: dict, row: dict) -> str:
    """Why no GPU count holds a training run, as ``MemoryPlan.no_fit_reason`` says it."""
    if row["no_fit"] == "no_zero":
        return _("without ZeRO every data-parallel GPU holds all the states, so more of them do not help")
    return _("no {searched} up to {limit} fits with these settings").format(searched="dp",
                                                                             limit=f"{f['search_limit']:,}")


def least_gpus(f: dict) -> Report:
    lines = []
    for r in f["rows"]:
        shape = dict(micro_batch=r["micro_batch"], seq_len=f"{r['seq_len']:,}")
        if r["least_gpus"] is None:
            lines.append(_("with the activations of micro-batch {micro_batch} × {seq_len} tokens: {reason}").format(
                **shape, reason=_no_fit(f, r)))
        else:
            lines.append(_("with the activations of micro-batch {micro_batch} × {seq_len} tokens: {gpus} GPUs")
                         .format(**shape, gpus=r["least_gpus"]))
    return _lines(lines)


def planner(f: dict) -> Report:
    lines = []
    for r in f["rows"]:
        shape = dict(recompute=_(RECOMPUTATION[r["recompute"]]),
                     attention="FlashAttention" if r["flash"] else _("eager attention"), model=f["model"],
                     params=format_count(f["params"]), activations=format_bytes(r["activations"]),
                     micro_batch=r["micro_batch"], seq_len=f"{r['seq_len']:,}")
        if r["least_gpus"] is None:
            lines.append(_("the planner, {recompute}, {attention}: {model} ({params} parameters), {activations} of "
                           "activations per GPU for {micro_batch} × {seq_len} tokens: {reason}").format(
                **shape, reason=_no_fit(f, r)))
        else:
            lines.append(_("the planner, {recompute}, {attention}: {model} ({params} parameters), {activations} of "
                           "activations per GPU for {micro_batch} × {seq_len} tokens: {gpus} {gpu}s").format(
                **shape, gpus=r["least_gpus"], gpu=f["gpu_family"]))
    return _lines(lines)


def shared_activations(f: dict) -> Report:
    mantissa, exponent = f"{f['n_params']:.0e}".split("e")
    # 7e9 parameters and 50 GB of activations, written as the material writes them
    shape = dict(params=f"{mantissa}e{int(exponent)}", activations=f"{f['activations_shared_bytes'] / 1e9:g} GB")
    if f["gpus"] is None:
        return _lines([_("the correction: {params} parameters, {activations} of activations shared out over the GPUs: "
                         "no count up to {limit} holds them").format(**shape, limit=f"{f['search_limit']:,}")])
    return _lines([_("the correction: {params} parameters, {activations} of activations shared out over the GPUs: "
                     "{gpus} {gpu}s").format(**shape, gpus=f["gpus"], gpu=f["gpu_family"])])


# ---- ZeRO and pipelines ------------------------------------------------------------------------------------------

def data_parallel_traffic(f: dict) -> Report:
    lines = [_("ZeRO-{zero}: {bytes} per GPU per step").format(zero=zero, bytes=f"{format_bytes(b):>8}")
             for zero, b in enumerate(f["traffic"])]
    ratio = "-" if f["ratio"] is None else f"{f['ratio']:.2f}"
    return _aligned([*lines, _("ZeRO-3 / plain data parallel: {ratio}").format(ratio=ratio)])


def zero_defaults(f: dict) -> Report:
    return _lines([_("DeepSpeed's defaults, in elements: {defaults}").format(
        defaults={k: f"{x:.0e}" for k, x in f["defaults"].items()})])


def largest_module(f: dict) -> Report:
    return _lines([_("{model}'s largest module: {params} parameters; the cookbook's ZeRO-3 gathered parameters, "
                     "stage3_max_live_parameters in BF16: {bytes}").format(
        model=f["model"], params=format_count(f["params"]), bytes=format_bytes(f["cookbook_bytes"]))])


def zero1_bucket(f: dict) -> Report:
    return _lines([_("{model} on {dp} GPUs: ZeRO-1 saves {saved} of states and allocates a {bucket} bucket: {total} "
                     "per GPU against {plain} without ZeRO").format(
        model=f["model"], dp=f["dp"], saved=format_bytes(f["saved"]), bucket=format_bytes(f["bucket"]),
        total=format_bytes(f["total"]), plain=format_bytes(f["plain"]))])


def bubbles(f: dict) -> Report:
    return _aligned(_("p = {stages}, m = {micro_batches}: idle {idle}").format(
        stages=f["stages"], micro_batches=f"{r['micro_batches']:>2}", idle=format_percent(r["idle"], 0))
        for r in f["rows"])


# ---- the KV cache ------------------------------------------------------------------------------------------------

def kv_per_token(f: dict) -> Report:
    return _aligned(_("{model} {attention} {kv_heads} KV heads × {head_dim}: {per_token} per token, {total} for "
                      "{batch} × {seq_len} tokens").format(
        model=f"{r['model']:<12}", attention=r["attention"], kv_heads=f"{r['kv_heads']:>3}",
        head_dim=f"{r['head_dim']:>3}", per_token=f"{format_bytes(r['per_token'], binary=True):>10}",
        total=f"{format_bytes(r['total']):>8}", batch=f["batch"], seq_len=f"{f['seq_len']:,}") for r in f["rows"])


def kv_cache(f: dict) -> Report:
    rows = [(r["model"], r["attention"],
             _("{local} of {layers}").format(local=r["local_layers"], layers=r["layers"]) if r["local_layers"]
             else _("none"), format_bytes(r["first_token"]), format_bytes(r["tokens"])) for r in f["rows"]]
    return _table((_("model"), _("attention"), _("windowed layers"), _("first token"),
                   _("{tokens} tokens").format(tokens=f"{f['seq_len']:,}")), rows)


def hybrid_cache(f: dict) -> Report:
    rows = [(r["model"], _("{attention} of {layers}").format(attention=r["attention_layers"], layers=r["layers"]),
             format_bytes(r["per_token"]), format_bytes(r["state"]) if r["state"] else "0",
             *(format_bytes(cache) for cache in r["caches"])) for r in f["rows"]]
    return _table((_("model"), _("layers with attention"), _("each token"), _("constant state"),
                   *(_("{tokens} tokens").format(tokens=f"{n:,}") for n in f["seq_lens"])), rows)


def mla_cache(f: dict) -> Report:
    return _lines([_("{per_head} bytes a token against {latent}: {ratio}x").format(
        per_head=f"{f['per_head']:,}", latent=f"{f['latent']:,}", ratio=f"{f['ratio']:.0f}")])


# ---- adapters, serving and the GPUs' memory ----------------------------------------------------------------------

def lora_shapes(f: dict) -> Report:
    lines = [_("{target} {fan_in} → {fan_out} rank {rank}: {params}").format(
        target=f"{r['target']:<10}", fan_in=f"{r['fan_in']:>6}", fan_out=f"{r['fan_out']:<6}", rank=f["rank"],
        params=f"{format_int(r['params']):>9}") for r in f["shapes"]]
    for s in f["sets"]:
        names = "+".join(target.split("_")[0] for target in s["targets"])
        lines.append(_("{targets} {params} adapter parameters").format(targets=f"{names:<10}",
                                                                       params=f"{format_count(s['params']):>6}"))
    return _aligned(lines)


def serving_gpus(f: dict) -> Report:
    return _aligned((_("{weights} on {gpu}: {n} GPU(s)") if r["gpus"] is not None else
                     _("{weights} on {gpu}: no tensor-parallel split holds it")).format(
        weights=pad(r["weights"], 5), gpu=pad(r["gpu"], 10), n=r["gpus"]) for r in f["rows"])


def runtime_overhead(f: dict) -> Report:
    return _lines([_("runtime overhead per GPU: {low} to {high}; then keep {margin} free for temporaries and "
                     "fragmentation").format(low=format_bytes(f["low"]), high=format_bytes(f["high"]),
                                             margin=format_percent(f["margin"]))])


def gpu_memory(f: dict) -> Report:
    return _aligned(_("{gpu} label {label}   exposes {exposes} usable with {margin} free: {usable}").format(
        gpu=f"{r['gpu']:<10}", label=f"{format_bytes(r['label_bytes']):>7}",
        exposes=pad(f"{format_bytes(r['memory_bytes'], binary=True)} = {format_bytes(r['memory_bytes'])}", 22),
        margin=format_percent(f["margin"]), usable=format_bytes(r["usable"])) for r in f["rows"])


def key_numbers(f: dict) -> Report:
    numbers = [
        (_("7B training states"), format_bytes(f["states_7b"])),
        (_("70B training states"), format_bytes(f["states_70b"])),
        (_("70B weights in BF16 / INT4"), f"{format_bytes(f['weights_70b_bf16'])} / "
                                          f"{format_bytes(f['weights_70b_int4'])}"),
        (_("KV per token: Llama-2-7B, Llama-2-70B"), _("{first}, {second}").format(
            first=format_bytes(f["kv_7b"], binary=True), second=format_bytes(f["kv_70b"], binary=True))),
        (_("QLoRA of Llama-2-70B, rank 64, all projections"), format_bytes(f["qlora_70b"])),
    ]
    return _aligned(f"{pad(label, 40)} {value}" for label, value in numbers)
