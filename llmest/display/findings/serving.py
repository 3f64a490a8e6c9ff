"""How the serving model's reality checks read (``llmest.plans.findings.serving`` works them out): each published
figure with its source and setup, the model's figure from that setup, and the difference, term by term."""

from __future__ import annotations

from ...catalog.serving_runs import DEEPSEEK_INFERENCE, MLPERF_SOURCE, SGLANG_DEEPSEEK, TRTLLM_H200_SOURCE
from ...core.i18n import N_, _
from ...core.report import Report
from ...core.units import format_int, format_percent
from ..common import ms
from ..table import Table

BOUNDS = {"memory": N_("memory-bound"), "compute": N_("compute-bound"), "network": N_("network-bound"),
          "nvlink": N_("NVLink-bound")}


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def _diff(value: float) -> str:
    return format_percent(value, 0, signed=True)


def trtllm_h200(f: dict) -> Report:
    title = _("Llama-2-70B on H200 in FP8, TensorRT-LLM's published output tokens/s a GPU beside the model's; the "
              "roofline's share {share} fitted to the marked row, the others held out ({source})").format(
        share=format_percent(f["share"], 1), source=_(TRTLLM_H200_SOURCE))
    table = Table((_("batch"), "TP", _("input"), _("output"), _("published"), _("roofline"), _("model"),
                   _("difference"), _("without XQA"), _("step: roofline, model, without XQA, published"),
                   _("bound")),
                  [(format_int(r["batch"]) + (" *" if r["fitted"] else ""), str(r["tp"]),
                    format_int(r["prompt_tokens"]), format_int(r["output_tokens"]), _rate(r["published"]),
                    _rate(r["roofline"]), _rate(r["model"]), _diff(r["difference"]),
                    f"{_rate(r['no_xqa'])} ({_diff(r['no_xqa_difference'])})",
                    " / ".join(ms(r[k]) for k in ("roofline_step_s", "step_s", "no_xqa_step_s", "implied_step_s")),
                    _(BOUNDS[r["bound"]])) for r in f["rows"]])
    long_output = max(f["rows"], key=lambda r: r["output_tokens"])
    lines = (
        _("* fitted. Throughput a GPU is the copy's output tokens/s over its TP GPUs, as the source counts it. "
          "Prefill at {efficiency} of the FP8 peak; tensor parallelism's all-reduces and the scheduler's gaps are "
          "left out, so the share stands for them too. The published step is what the published throughput leaves "
          "after the model's prefill.").format(efficiency=format_percent(f["prefill_efficiency"], 0)),
        _("The long-output row ({batch} sequences, {output} tokens out, TP {tp}) is off by {difference}: its "
          "published step, {published}, is {times:.1f} times the model's. The model reads the cache once per "
          "key-value head, as TensorRT-LLM's XQA kernel does since v0.8; v0.5 predates it and reads it once per "
          "query head, 8 times the bytes for Llama-2-70B. With that term the step is {no_xqa} and the model "
          "{no_xqa_difference}; NVIDIA published XQA's gain on this model and GPU at 128 tokens in and 2,048 out: "
          "{without} tokens/s a GPU without it, {with_} with ({ratio:.1f}×). On the long-prompt rows the term "
          "would cost more than their published time leaves at the fitted share (the column): the share, "
          "fitted to a compute-bound step, is taken for their memory-bound steps too, and one constant cannot "
          "carry both.").format(
            batch=format_int(long_output["batch"]), output=format_int(long_output["output_tokens"]),
            tp=long_output["tp"], difference=_diff(long_output["difference"]),
            published=ms(long_output["implied_step_s"]), times=long_output["implied_step_s"] / long_output["step_s"],
            no_xqa=ms(long_output["no_xqa_step_s"]), no_xqa_difference=_diff(long_output["no_xqa_difference"]),
            without=_rate(f["xqa"]["without_xqa"]), with_=_rate(f["xqa"]["with_xqa"]),
            ratio=f["xqa"]["with_xqa"] / f["xqa"]["without_xqa"]))
    return Report(title, blocks=(table,), lines=lines, data=f)


def mlperf_llama2(f: dict) -> Report:
    title = _("MLPerf Inference v4.0, Llama-2-70B offline output tokens/s on one node of 8 GPUs (FP8) beside the "
              "model's, at the fitted share {share} ({source})").format(share=format_percent(f["share"], 1),
                                                                       source=_(MLPERF_SOURCE))
    table = Table((_("GPUs"), "TP", _("sequences a copy"), _("published"), _("roofline"), _("model"),
                   _("difference"), _("prefill's share of the time"), _("prefill efficiency implied"),
                   _("prompt that matches")),
                  [(f"{r['gpus']} × {r['gpu']}", str(r["tp"]),
                    _("{batch} (configured {configured})").format(batch=format_int(r["batch"]),
                                                                  configured=format_int(r["configured_batch"])),
                    _rate(r["published"]), _rate(r["roofline"]), _rate(r["model"]), _diff(r["difference"]),
                    format_percent(r["prefill_share"], 0),
                    format_percent(r["implied_prefill_efficiency"], 0) if r["implied_prefill_efficiency"] else "-",
                    format_int(r["matching_prompt_tokens"]))
                   for r in f["rows"]])
    lines = (
        _("Each copy runs as many sequences as NVIDIA configured or as its FP8 paged cache holds at full length, "
          "whichever is fewer; each prompt of {prompt} tokens (assumed: the mean is in no stored copy; the "
          "benchmark caps prompts at 1,024) and {output} output tokens (published: 291.9 and 293.1 a sample).").format(
            prompt=format_int(f["prompt_tokens"]), output=format_int(f["output_tokens"])),
        _("Term by term: prefill takes the share of the time shown, at {efficiency} of the FP8 peak (assumed); "
          "the decoding step the rest, at the share fitted to TensorRT-LLM v0.5 (2023), while these runs used the "
          "TensorRT-LLM of 2024. Two terms the sources leave open decide the gap: the prompts' mean length (the "
          "model gives the published throughput at the length in the last column) and prefill's efficiency (with "
          "decoding at the roofline, the published time leaves prefill the share of the FP8 peak shown, at "
          "{prompt}-token prompts). Neither is a missing term of the model; neither is published.").format(
            efficiency=format_percent(f["prefill_efficiency"], 0), prompt=format_int(f["prompt_tokens"])),)
    return Report(title, blocks=(table,), lines=lines, data=f)


def deepseek_serving(f: dict) -> Report:
    low, high = f["users_published"]
    title = _("DeepSeek's inference system on H800 nodes, published beside the model from its layouts "
              "({source})").format(source=_(DEEPSEEK_INFERENCE["source"]))
    table = Table((_("figure"), _("published"), _("model"), _("difference")), [
        (_("decode, output tokens/s a node (EP144, MTP)"), _rate(f["decode_published"]), _rate(f["decode_model"]),
         _diff(f["decode_difference"])),
        (_("a user's output tokens/s"), f"{low}-{high}", f"{f['users_model']:.1f}",
         _diff(f["users_model"] / ((low + high) / 2) - 1)),
        (_("prefill profiled, tokens/s a node ({prompt}-token prompts, EP32)").format(
            prompt=format_int(f["profile_prompt_tokens"])), _rate(f["profile_published"]),
         _rate(f["profile_model"]), _diff(f["profile_difference"])),
        (_("prefill in production, input tokens/s a node computed (24-hour average)"),
         _rate(f["prefill_computed_published"]), _rate(f["prefill_model"]), _diff(f["prefill_difference"]))])
    matching = f["matching_prompt_tokens"]
    lines = (
        _("Decode: {batch} sequences a GPU (the published node throughput over 8 GPUs and the users' speed), "
          "{context} tokens of context each (published: the cache length per output token), MTP accepting "
          "{alpha}: {tokens:.2f} tokens a step. A plain step at the roofline: memory {memory}, compute {compute}; "
          "verifying two tokens a sequence sends {network} of all-to-all over InfiniBand, the longest term; with "
          "the MTP step ({draft}) and the fitted share {share}, a step of {step}.").format(
            batch=f["batch"], context=format_int(f["context_tokens"]), alpha=format_percent(f["acceptance"], 0),
            tokens=f["tokens_per_step"], memory=ms(f["memory_s"]), compute=ms(f["compute_s"]),
            network=ms(f["network_s"]), draft=ms(f["draft_step_s"]), share=format_percent(f["share"], 1),
            step=ms(f["step_s"])),
        _("Prefill, as published: \"~73.7k tokens/s input (including cache hits)\" a node; {hit} hit the on-disk "
          "cache, so {computed} were computed. The reading is checked by the day's totals: 608B input tokens at "
          "73.7k a node are {prefill_nodes:.1f} prefill nodes and 168B output tokens at 14.8k are {decode_nodes:.1f} "
          "decode nodes, {nodes:.1f} together, the published average of {average} nodes; cache hits are counted "
          "in the 73.7k, not left out.").format(
            hit=format_percent(f["cache_hit_share"], 1), computed=_rate(f["prefill_computed_published"]),
            prefill_nodes=f["prefill_nodes"], decode_nodes=f["decode_nodes"],
            nodes=f["prefill_nodes"] + f["decode_nodes"], average=f"{f['average_nodes']:g}"),
        _("Term by term: the matmuls at {efficiency} of the FP8 peak and MLA's attention at {efficiency} of the "
          "BF16 peak (published: its core runs in BF16) give {model} tokens/s a node at the profile's "
          "{profile_prompt}-token prompts, within {profile} of DeepSeek's own profile at the same layout: the "
          "layout and kernels are reproduced. Attention is {attention} of the FLOPs at {prompt}-token prompts. The "
          "production figure is {ratio} of that profile. It depends on what is not "
          "published: the prompts' mean length, the attention of tokens computed after a cached prefix, and how "
          "busy the prefill nodes were over the 24 hours (their count follows the load). The model reproduces it "
          "if the nodes computed {load} of the time at {prompt}-token prompts, or at full load with prompts of "
          "{matching} tokens on average.").format(
            efficiency=format_percent(f["prefill_efficiency"], 0), attention=format_percent(f["attention_share"], 0),
            prompt=format_int(f["prompt_tokens"]), model=_rate(f["profile_model"]),
            profile_prompt=format_int(f["profile_prompt_tokens"]),
            profile=format_percent(abs(f["profile_difference"]), 0),
            ratio=format_percent(f["production_over_profile"], 0), load=format_percent(f["load_share"], 0),
            matching=format_int(matching) if matching else _("more than 128K")))
    return Report(title, blocks=(table,), lines=lines, data=f)


def sglang_deepseek(f: dict) -> Report:
    title = _("SGLang serving DeepSeek-V3 on H100 nodes, published beside the model from its setup "
              "({source})").format(source=_(SGLANG_DEEPSEEK["source"]))
    rows = [(_("prefill, {prompt}-token prompts, tokens/s a node (EP{ep})").format(
        prompt=format_int(r["prompt_tokens"]), ep=f["prefill_ep"]), _rate(r["published"]), _rate(r["model"]),
        _diff(r["difference"])) for r in f["prefill"]]
    rows.append((_("prefill, 4,096-token prompts, balanced experts (simulated)"), _rate(f["balanced_published"]),
                 _rate(f["prefill"][-1]["model"]), _diff(f["balanced_difference"])))
    rows.append((_("decode, output tokens/s a node (EP{ep}, {batch} sequences a GPU, {kv} cached tokens)").format(
        ep=f["decode_ep"], batch=f["decode_batch"], kv=format_int(f["decode_kv_tokens"])),
        _rate(f["decode_published"]), _rate(f["decode_model"]), _diff(f["decode_difference"])))
    table = Table((_("figure"), _("published"), _("model"), _("difference")), rows)
    lines = (
        _("Decode: a step at the roofline reads {memory} of memory, computes for {compute} and sends {network} of "
          "all-to-all over InfiniBand ({bound}); at the fitted share {share}, {step} against the {implied} the "
          "published throughput implies.").format(
            memory=ms(f["memory_s"]), compute=ms(f["compute_s"]), network=ms(f["network_s"]),
            bound=_(BOUNDS[f["bound"]]), share=format_percent(f["share"], 1), step=ms(f["step_s"]),
            implied=ms(f["implied_step_s"])),
        _("Prefill, term by term: the model (matmuls at {efficiency} of the FP8 peak, attention at that share of "
          "the BF16 peak, 16,384 tokens a GPU) leaves out the experts' imbalance. The source measures it: with "
          "experts placed as a perfect balancer would, 59,337 tokens/s a node at 4K prompts (the model "
          "{balanced}), and by default 20% slower than DeepSeek's profile. The default runs differ from the "
          "balanced one by that imbalance alone.").format(
            efficiency=format_percent(f["prefill_efficiency"], 0), balanced=_diff(f["balanced_difference"])),)
    return Report(title, blocks=(table,), lines=lines, data=f)


def mtp_speedup(f: dict) -> Report:
    title = _("DeepSeek-V3's MTP module: {published}× the decoding speed published (§5.4.3, second-token "
              "acceptance 85-90%), beside the model on the EP144 decode layout at {batch} sequences a GPU").format(
        published=f"{f['published']:g}", batch=f["batch"])
    table = Table((_("acceptance"), _("tokens a step"), _("step cost the 1.8× implies"), _("model's step cost"),
                   _("model's speed-up"), _("difference")),
                  [(format_percent(r["acceptance"], 0), f"{r['tokens_per_step']:.2f}", f"{r['implied_step_cost']:.3f}",
                    f"{r['model_step_cost']:.3f}", f"{r['model_speedup']:.2f}×", _diff(r["difference"]))
                   for r in f["rows"]])
    lines = (_("A step costs its verification (two positions a sequence: the weights are read once, the FLOPs "
               "and the all-to-all double) and one step of the MTP module (its layer and the output head)."),)
    return Report(title, blocks=(table,), lines=lines, data=f)
