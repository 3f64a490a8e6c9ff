"""Drill templates on training as 2025 runs it: the all-to-all of expert parallelism (chapter 5), the training states
of an FP8 or FP4 recipe (chapters 2 and 3), the models post-training keeps in memory (chapter 2) and the time of a
GRPO step, generation against training (chapter 3)."""

from __future__ import annotations

from ...core.i18n import N_, _, tidy
from ...core.units import format_bytes, format_count, format_flops, format_percent, show
from ...formulas import memory as mem
from ...formulas import model as m
from ...formulas import moe_comm
from ...formulas import precision as prec
from ...formulas.compute import flops_params
from ...formulas.kv_cache import kv_cache_bytes_for
from ... import plans
from ...plans.moe_plan import NODES_PER_TOKEN
from ...plans.posttrain_memory import dpo_memory, grpo_memory
from ...plans.rl_step_plan import FORWARD, PASSES, TRAIN_RECOMPUTED, estimate_rl_step
from .problem import (PARAMS, Part, _A, _chained, _n, _pick, _problem, _Regenerate, _size, gpu_peak, template,
                      tflops_text)

# Where each formula is taught (the notebook and the cell of the section's heading), as a hard drill's steps cite it.
S2_POST = N_("chapter 2, Post-training and FP8 (02_memory.ipynb#cell-id=e98ca80b)")
S3_FP8 = N_("chapter 3, FP8 and FP4 training (03_flops_and_time.ipynb#cell-id=c8f8f930)")
S3_GRPO = N_("chapter 3, Reinforcement learning: a GRPO step (03_flops_and_time.ipynb#cell-id=31cc554f)")
S5_MOE = N_("chapter 5, Every layout, timed (05_interview_drills.ipynb#cell-id=afe5b338)")

# ---- the all-to-all --------------------------------------------------------------------------------------------

# GPUs a node shares NVLink among: DeepSeek-V3 §3.1, "each node containing 8 GPUs connected by NVLink and NVSwitch"
# (an HGX H800 or H100 node).
GPUS_PER_NODE = 8
# Bytes a dispatched value takes: BF16, or DeepSeek-V3's FP8 (the recipe's matmul-input format, 1 + 4/128: §3.3.4);
# the combine stays BF16 ("we retain them in BF16", the same section; moe_plan combines in 2 bytes too).
DISPATCH = {"bf16": 2, "fp8": prec.format_bytes_per_value(prec.RECIPES["fp8-deepseek"].matmul_inputs)}
COMBINE_BYTES = 2
DISPATCH_TEXT = {"bf16": N_("BF16 (2 bytes a value)"),
                 "fp8": N_("FP8 with an FP32 scale per 128 values (1 + 4/128 bytes a value)")}
MOE_MODELS = {"easy": ["deepseek-v3"], "medium": ["deepseek-v3", "qwen3-30b-a3b"], "hard": ["deepseek-v3"]}


@template("moe-all-to-all", "compute")
def _moe_all_to_all(rng, level):
    name = rng.choice(MOE_MODELS[level])
    cfg = m.preset(name)
    ep = _pick(rng, level, [64], [16, 32, 64], [64, 128, 256])
    dispatch = _pick(rng, level, ["bf16"], ["bf16", "fp8"], ["fp8"])
    nodes = ep // GPUS_PER_NODE
    limited = level == "hard" or (level == "medium" and name == "deepseek-v3" and nodes > NODES_PER_TOKEN
                                  and rng.random() < 0.5)
    k, h = cfg.experts_per_token, cfg.hidden_size
    plain = moe_comm.network_sends_per_token(k, ep, GPUS_PER_NODE)
    sends = moe_comm.network_sends_per_token(k, ep, GPUS_PER_NODE, NODES_PER_TOKEN if limited else None)
    answer = moe_comm.all_to_all_bytes_per_token(h, sends, DISPATCH[dispatch], COMBINE_BYTES)
    shown = dict(name=name, k=k, experts=cfg.num_experts, hidden=f"{h:,}", ep=ep, g=GPUS_PER_NODE, nodes=nodes,
                 m=NODES_PER_TOKEN, plain=f"{plain:g}", sends=f"{sends:g}", dispatch=_(DISPATCH_TEXT[dispatch]),
                 dispatch_bytes=f"{DISPATCH[dispatch]:g}", bytes=format_bytes(answer), cite=_(S5_MOE))
    stem = _("{name} sends each token to {k} of its {experts} experts (hidden size {hidden}); training spreads them "
             "over {ep} GPUs of expert parallelism, {g} a node ({nodes} nodes), the experts' load even.").format(
        **shown)
    inputs = dict(hidden=h, top_k=k, ep=ep, gpus_per_node=GPUS_PER_NODE,
                  nodes_per_token=NODES_PER_TOKEN if limited else None, dispatch=dispatch)
    hint = _("A token's copy crosses the network when its expert is on another node; each copy is dispatched and "
             "combined, forward and backward.")
    if level == "hard":
        plain_bytes = moe_comm.all_to_all_bytes_per_token(h, plain, DISPATCH["bf16"], COMBINE_BYTES)
        parts = (Part(_("With each copy sent to its expert's GPU and BF16 both ways, how many bytes does one token "
                        "send over the network per MoE layer in a training step?"), plain_bytes, "count",
                      (_("all_to_all_bytes_per_token: k · (ep − g)/ep = {k} × ({ep} − {g})/{ep} = {plain} network "
                         "copies, × 2 × {hidden} × (2 + 2) bytes = {plain_bytes}; {cite}").format(
                          **shown, plain_bytes=format_bytes(plain_bytes)),)),
                 Part(_("DeepSeek-V3 routes each token to at most {m} nodes, once to each (NVLink forwards it there to "
                        "its experts' GPUs), and dispatches in {dispatch}. How many bytes now?").format(**shown),
                      answer, "count",
                      (_("M · (n − 1)/n = {m} × ({nodes} − 1)/{nodes} = {sends} network copies, × 2 × {hidden} × "
                         "({dispatch_bytes} + 2) bytes = {bytes}; {cite}").format(**shown),)))
        return _chained("moe-all-to-all", level, stem, inputs, parts, hint)
    routing = (_("Routing sends a token to at most {m} nodes, once to each, and NVLink forwards it there to its "
                 "experts' GPUs.") if limited else _("Each copy of a token goes to its expert's GPU.")).format(**shown)
    question = _("Dispatched values travel in {dispatch}, combined ones in BF16. How many bytes does one token send "
                 "over the network per MoE layer in a training step (dispatch and combine, forward and "
                 "backward)?").format(**shown)
    copies = (_("Network copies: M · (n − 1)/n = {m} × ({nodes} − 1)/{nodes} = {sends}: a token goes once to each "
                "of its nodes, its own being one of them {m} times in {nodes}") if limited else
              _("Network copies: k · (ep − g)/ep = {k} × ({ep} − {g})/{ep} = {sends}: the experts on the other "
                "nodes")).format(**shown)
    return _problem(
        "moe-all-to-all", level, tidy(" ".join([stem, routing, question])), inputs, answer, "count",
        [copies, _("2 × {sends} copies × {hidden} values × ({dispatch_bytes} + 2 bytes) = {bytes}: a dispatch and a "
                   "combine forward, the same backward").format(**shown)], hint)


# ---- the states of a precision recipe ----------------------------------------------------------------------------

RECIPES = (["bf16", "fp8-deepseek"], ["bf16", "fp8-deepseek", "fp8-te"], ["fp8-deepseek", "fp8-te", "mxfp8", "nvfp4"])
RECIPE_NAMES = {"bf16": N_("BF16 mixed precision"), "fp8-deepseek": N_("DeepSeek-V3's FP8 recipe"),
                "fp8-te": N_("Transformer Engine's FP8 recipe"), "mxfp8": N_("the MXFP8 recipe"),
                "nvfp4": N_("the NVFP4 recipe")}
FORMAT_NAMES = {"fp32": "FP32", "bf16": "BF16", "fp8-tensor": "FP8", "mxfp8": "MXFP8", "nvfp4": "NVFP4"}


def _format_text(name) -> str:
    """'FP32 (4 bytes)', 'MXFP8 (1 + 1/32 bytes)': a format with the bytes a value takes, its scale's share too."""
    f = prec.FORMATS[name]
    if f.block == 1:
        return (_("{format} (1 byte)") if f.element_bytes == 1 else _("{format} ({size} bytes)")).format(
            format=FORMAT_NAMES[name], size=f"{f.element_bytes:g}")
    return _("{format} ({size} bytes)").format(format=FORMAT_NAMES[name],
                                                size=f"{f.element_bytes:g} + {f.scale_bytes:g}/{f.block}")


def _recipe_states(r) -> str:
    formats = dict(weights=_format_text(r.weights), master=_format_text(r.master), grads=_format_text(r.grads),
                   moments=_format_text(r.moments))
    if not r.extra_weight_copies:
        return _("working weights in {weights}, a master copy in {master}, gradients in {grads} and Adam's two "
                 "moments in {moments}").format(**formats)
    return _("working weights in {weights} and {copies} × {extra} copies for the matmuls, a master copy in {master}, "
             "gradients in {grads} and Adam's two moments in {moments}").format(
        **formats, copies=len(r.extra_weight_copies), extra=_format_text(r.extra_weight_copies[0]))


@template("fp8-memory", "memory")
def _fp8_memory(rng, level):
    n = _pick(rng, level, *PARAMS)
    name = _pick(rng, level, *RECIPES)
    dp = _pick(rng, level, [None], [8, 16, 64], [16, 64, 128])
    per_param = prec.recipe_state_bytes(name)
    answer = sum(mem.sharded_state_bytes(n, per_param, 3, dp or 1).values())
    if dp and not plans.fits(answer, "B200"):
        raise _Regenerate  # states no GPU holds: shard them wider
    copies = dict(weights=f"{per_param.weights:g}", master=f"{per_param.master:g}", grads=f"{per_param.grads:g}",
                  moments=f"{per_param.optimizer:g}", total=f"{per_param.total:g}")
    shown = dict(Model=_A(_size(n)), recipe=_(RECIPE_NAMES[name]), states=_recipe_states(prec.recipe(name)), dp=dp,
                 n=_size(n), whole=format_bytes(n * per_param.total), per_gpu=format_bytes(answer), cite=_(S3_FP8))
    stem = _("{Model} model trains under {recipe}: {states}.").format(**shown)
    inputs = dict(n=n, precision=name, dp=dp)
    hint = _("Add the bytes a parameter of each state, a format's scales included, then multiply by the parameters.")
    sharded = _("How much does each GPU hold with every state sharded over {dp} GPUs (ZeRO-3)? (GB)")
    if level == "hard":
        parts = (Part(_("How many bytes a parameter do the weights, master copy, gradients and moments take?"),
                      per_param.total, "bytes/param",
                      (_("recipe_state_bytes(precision): weights {weights} + master copy {master} + gradients "
                         "{grads} + moments {moments} = {total}; {cite}").format(**copies, cite=_(S3_FP8)),)),
                 Part(sharded.format(dp=dp), answer, "bytes",
                      (_("sharded_state_bytes(N, per_param, 3, {dp}) = {n} × {total} bytes / {dp} = {per_gpu}; "
                         "{cite}").format(**shown, total=copies["total"]),)))
        return _chained("fp8-memory", level, stem, inputs, parts, hint)
    ask = sharded.format(dp=dp) if dp else _("How much memory do these training states take, unsharded? (GB)")
    steps = [_("Weights {weights} + master copy {master} + gradients {grads} + moments {moments} = {total} bytes per "
               "parameter").format(**copies),
             _("{n} × {total} bytes = {states}").format(n=_size(n), total=copies["total"], states=shown["whole"])]
    if dp:
        steps.append(_("/ {dp} GPUs = {per_gpu} a GPU").format(**shown))
    return _problem("fp8-memory", level, tidy(stem + " " + ask), inputs, answer, "bytes", steps, hint)


# ---- post-training's memory -------------------------------------------------------------------------------------

POST_MODELS = {"easy": ["llama-3-8b"], "medium": ["llama-3-8b", "qwen3-8b", "llama-2-7b"],
               "hard": ["llama-3-8b", "qwen3-8b", "llama-2-7b"]}
# The parts of plan_memory's DPO and GRPO breakdowns a learner adds by hand: the trained policy's states, the frozen
# reference's weights, the engine's weights and KV cache; left out: activations, ZeRO's buffers and the runtime.
KEPT_PARTS = ("weights", "master", "gradients", "optimizer", "reference", "rollout", "kv_cache")
TRAINED_BYTES = mem.state_bytes_per_param("mixed", "adamw").total   # 16: mixed-precision AdamW, every state
FROZEN_BYTES = mem.BYTES_PER_VALUE["bf16"]                          # a frozen model's BF16 weights


@template("post-training-memory", "memory")
def _post_training_memory(rng, level):
    name = rng.choice(POST_MODELS[level])
    cfg = m.preset(name)
    task = _pick(rng, level, ["dpo"], ["dpo", "grpo"], ["grpo"])
    dp = _pick(rng, level, [8], [8, 16], [8, 16, 32])
    seq_len = _pick(rng, level, [2048], [2048, 4096], [2048, 4096, 8192])
    prompts, group = _pick(rng, level, [1], [1, 2], [1, 2, 4]), _pick(rng, level, [8], [8, 16], [8, 16])
    if task == "dpo":
        b = dpo_memory(name, dp=dp, seq_len=seq_len)
    else:
        b = grpo_memory(name, dp=dp, seq_len=seq_len, prompts=prompts, group=group)
    answer = sum(b.parts.get(part, 0) for part in KEPT_PARTS)
    if not plans.fits(answer, "H100 SXM"):
        raise _Regenerate  # a setup no one runs on 80 GB GPUs
    n = m.count_params(cfg).total
    policy = sum(b.parts[part] for part in ("weights", "master", "gradients", "optimizer"))
    engine, cache = b.parts.get("rollout", 0), b.parts.get("kv_cache", 0)
    kv = kv_cache_bytes_for(cfg, 1)
    shown = dict(task=task.upper(), name=name, n=format_count(n), dp=dp, trained=f"{TRAINED_BYTES:g}",
                 frozen=f"{FROZEN_BYTES:g}", sequences=prompts * group, prompts=prompts, group=group,
                 seq_len=f"{seq_len:,}", kv=format_bytes(kv), policy=format_bytes(policy),
                 reference=format_bytes(b.parts["reference"]), both=format_bytes(policy + b.parts["reference"]),
                 engine=format_bytes(engine), cache=format_bytes(cache), total=format_bytes(answer), cite=_(S2_POST))
    stem = _("{task} of {name} ({n} parameters) on {dp} GPUs at ZeRO-3 with mixed-precision AdamW ({trained} bytes "
             "a trained parameter, every state sharded over the {dp}).").format(**shown)
    kept = (_("DPO keeps the policy, trained, and a frozen reference, its BF16 weights sharded the same way.")
            if task == "dpo" else
            _("GRPO keeps the policy, trained, a frozen reference, its BF16 weights sharded the same way, and on each "
              "GPU an inference engine with a whole BF16 copy of the weights and the KV cache of the {sequences} "
              "answers it generates there (prompts × G = {prompts} × {group}), {seq_len} tokens each at {kv} a token."))
    stem = tidy(stem + " " + kept.format(**shown))
    inputs = dict(task=task, n=n, dp=dp, layers=cfg.num_layers, kv_heads=cfg.num_kv_heads, head_dim=cfg.head_dim,
                  sequences=prompts * group if task == "grpo" else 0, seq_len=seq_len)
    hint = _("A trained model keeps {trained} bytes a parameter and a frozen one its {frozen}-byte weights, both "
             "divided by the GPUs at ZeRO-3; the engine's copy is whole on every GPU.").format(**shown)
    if level == "hard":
        parts = (Part(_("How much do the policy's states and the reference take per GPU? (GB)"),
                      policy + b.parts["reference"], "bytes",
                      (_("models_kept: policy {n} × {trained} / {dp} = {policy}, reference {n} × {frozen} / {dp} = "
                         "{reference}, {both} in all; {cite}").format(**shown),)),
                 Part(_("And with the engine's weights and KV cache? (GB)"), answer, "bytes",
                      (_("engine {n} × {frozen} = {engine}, cache {sequences} × {seq_len} × {kv} = {cache}: {total} "
                         "in all; {cite}").format(**shown),)))
        return _chained("post-training-memory", level, stem, inputs, parts, hint)
    steps = [_("Policy: {n} × {trained} bytes / {dp} = {policy}").format(**shown),
             _("Reference: {n} × {frozen} bytes / {dp} = {reference}").format(**shown)]
    if task == "grpo":
        steps.append(_("Engine: {n} × {frozen} bytes = {engine}, KV cache {sequences} × {seq_len} × {kv} = "
                       "{cache}").format(**shown))
    steps.append(_("In all: {total} a GPU").format(**shown))
    question = _("How much memory does each GPU hold for these models, leaving out activations, ZeRO's buffers and "
                 "the runtime? (GB)")
    return _problem("post-training-memory", level, tidy(stem + " " + question), inputs, answer, "bytes", steps, hint)


# ---- a GRPO step's time -----------------------------------------------------------------------------------------

RL_MODELS = {"easy": ["llama-3-8b"], "medium": ["llama-3-8b", "qwen3-8b"], "hard": ["llama-3-8b", "qwen3-8b"]}
# FLOPs a token of GRPO's training passes, in multiples of N: the policy's update with recomputation, and the
# forwards of the old policy and the reference (rl_step_plan.PASSES): 8 + 2 + 2.
GRPO_MULTIPLE = sum(TRAIN_RECOMPUTED if trained else FORWARD for _name, trained in PASSES["grpo"])


@template("rl-rollout", "compute")
def _rl_rollout(rng, level):
    name = rng.choice(RL_MODELS[level])
    gpu = _pick(rng, level, ["H100 SXM"], ["H100 SXM"], ["H100 SXM", "H200", "B200"])
    gpus = _pick(rng, level, [8], [8, 16], [8, 16, 32])
    prompts, group = _pick(rng, level, [16], [16, 32], [16, 32, 64]), _pick(rng, level, [64], [8, 16, 64], [16, 64])
    prompt, output = _pick(rng, level, [256], [256, 512], [512, 1024]), _pick(rng, level, [1024], [1024, 2048],
                                                                                [2048, 4096, 8192])
    mfu = _pick(rng, level, [0.4], [0.3, 0.4], [0.3, 0.35, 0.45])
    step = estimate_rl_step(name, "grpo", gpu, gpus=gpus, prompts=prompts, group=group, prompt_tokens=prompt,
                            output_tokens=output, mfu=mfu, refit=False)  # the drill's step: rollout + training
    n, peak = flops_params(m.preset(name)), gpu_peak(gpu)
    sequences = prompts * group
    rate = sequences * output / step.rollout_s
    flops = GRPO_MULTIPLE * n * step.tokens
    both = step.rollout_s + step.training_s     # the step's two long phases (a refit between them left out)
    shown = dict(name=name, n=format_count(n), gpus=gpus, on=_n(gpus, f"{gpu} GPU"), prompts=prompts, group=group,
                 prompt=f"{prompt:,}", output=f"{output:,}", rate=show(rate, "tokens/s"), mfu=format_percent(mfu, 0),
                 peak=tflops_text(gpu), multiple=GRPO_MULTIPLE, train=TRAIN_RECOMPUTED, forward=FORWARD,
                 flops=format_flops(flops), rollout=show(step.rollout_s, "seconds"),
                 training=show(step.training_s, "seconds"), step=show(both, "seconds"),
                 share=format_percent(step.rollout_s / both, 0), cite=_(S3_GRPO))
    stem = _("A GRPO step of {name} (N = {n} matmul weights) on {on}: {prompts} prompts of {prompt} "
             "tokens, {group} answers of {output} tokens to each. The inference engines generate {rate} together; "
             "training then runs over every prompt and answer token the policy's update with recomputation "
             "({train}·N a token) and two forwards ({forward}·N each: the old policy's and the reference's "
             "log-probabilities) at {mfu} of the {peak} BF16 peak, every FLOP done counted (recomputation's too)."
             ).format(**shown)
    inputs = dict(n=n, prompts=prompts, group=group, prompt_tokens=prompt, output_tokens=output,
                  tokens_per_s=rate, gpus=gpus, peak=peak, mfu=mfu, asked="rollout" if level == "easy" else "both")
    hint = _("Generation is answers × tokens / the engines' rate; training is FLOPs / (GPUs × peak × MFU).")
    rollout = _("Rollout: {prompts} × {group} × {output} tokens / {rate} = {rollout}").format(**shown)
    training = _("Training: {multiple}·N × {prompts} × {group} × ({prompt} + {output}) tokens = {flops} FLOPs, / "
                 "({gpus} × {peak} × {mfu}) = {training}").format(**shown)
    total = _("Together: {rollout} + {training} = {step}, {share} of it generating").format(**shown)
    if level == "hard":
        def cited(text):
            return _("{step}; {cite}").format(step=text, cite=shown["cite"])
        parts = (Part(_("How many seconds does the rollout take?"), step.rollout_s, "seconds", (cited(rollout),)),
                 Part(_("How many seconds do the training passes take?"), step.training_s, "seconds",
                      (cited(training),)),
                 Part(_("How many seconds do the two take together?"), both, "seconds", (cited(total),)))
        return _chained("rl-rollout", level, stem, inputs, parts, hint)
    if level == "easy":
        return _problem("rl-rollout", level, tidy(stem + " " + _("How many seconds does the rollout take?")), inputs,
                        step.rollout_s, "seconds", [rollout], hint)
    return _problem("rl-rollout", level, tidy(stem + " " + _("How many seconds do the rollout and the training "
                                                             "passes take together?")), inputs,
                    both, "seconds", [rollout, training, total], hint)
