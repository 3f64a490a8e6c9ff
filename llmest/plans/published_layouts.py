"""Published training runs with their full layout, to hold the layout search's step-time model to: each run's model,
GPUs, layout, batch and published MFU or step time, where each figure was read; what the model predicts for the
published layout and how far it is from the search's best (``predict``, ``comparison``); and the fit of the one free
number per GPU generation, the matmul efficiency (``fit``, to the runs of ``FITTED_TO``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..core import _validate as v
from ..catalog import hardware
from ..catalog.hardware import GB_S, Network
from ..core.i18n import N_, _
from ..formulas.compute import attention_flops_per_token_for, flops_params
from ..formulas.model import ModelConfig, preset
from . import search_layouts
from .layout_assumptions import DEEPSEEK_FP8_EFFICIENCY, NODES_PER_TOKEN
from ..core.units import format_percent


def _gpt(layers, hidden, heads, vocab=51200, name="") -> ModelConfig:
    """A GPT-3-style model as Megatron-LM trains it: LayerNorm, GELU FFN of 4h, biases, learned positions, tied
    embeddings."""
    return ModelConfig(vocab_size=vocab, hidden_size=hidden, num_layers=layers, num_heads=heads, num_kv_heads=heads,
                       head_dim=hidden // heads, ffn_hidden_size=4 * hidden, gated_ffn=False, norm="layernorm",
                       attention_bias="all", ffn_bias=True, tie_embeddings=True, position_embedding="learned",
                       max_positions=2048, name=name)


_KORTHIKANTI = ("Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large Transformer Models': MFU read in "
                "the Megatron-LM README's table ('for the one trillion parameter model, we reach a MFU and HFU of "
                "56.3% and 57.0%'); the layout (TP 8, PP = GPUs / 8, DP 1, a global batch of one sequence per GPU, "
                "sequence parallelism and selective recomputation) recalled, and consistent with the read MFUs "
                "to 0.15 points")
_JEAN_ZAY = replace(hardware.gpu("A100 80GB"), network=Network(
    300 * GB_S, 4 * 100 / 8 / 8 * GB_S, 8, "Jean Zay's A100 nodes: NVLink, 4 Omni-Path links of 100 Gb/s for 8 GPUs "
                                           "(bigscience tr11-176B-ml README; the BLOOM paper)"))
_PALM_PODS = replace(hardware.gpu("TPU v4"), network=Network(
    300 * GB_S, 100 / 8 * GB_S / 4, 3072, "TPU v4 ICI, 6 links of 50 GB/s a chip, in two slices of 3,072 chips "
                                          "joined over the data-center network (DCN per chip not found: assumed)",
    recalled=True))


_DGXC = ("NVIDIA/dgxc-benchmarking v25.02 (commit 8f5cbb3), {readme}: NeMo 24.12 on DGX H100, BF16; {layout}; "
         "'{step}' s a step, read in its table; its llama3.1_*.yaml: ub_tp_comm_overlap true (70B, 405B), "
         "overlap_grad_sync and overlap_param_sync true, distributed_fused_adam, activations_checkpoint_granularity "
         "null")
_LLAMA3_405B = ("Llama 3 paper (arXiv 2407.21783) §3.3.2, Table 4: {row}; BF16 MFU {mfu}; 'we could pre-train "
                "Llama 3 on sequences of 8K tokens without activation checkpointing'; an interleaved schedule, V not "
                "stated; 'DP stands for FSDP'")


_BEFORE_SELECTIVE = ("none", "full")  # selective recomputation came with Korthikanti et al. 2022
_OLDER_STACK = N_("Megatron-DeepSpeed of 2021-22, before selective recomputation: its matmuls and kernels reached less "
                "than the Megatron-LM of Korthikanti et al. that the A100's efficiency is fitted to")


@dataclass(frozen=True)
class LayoutRun:
    name: str
    model: ModelConfig
    gpu: hardware.GPU
    seq_len: int
    sequences: int                  # per optimizer step
    layout: dict                    # the settings published (of plans' SETTINGS); the others are the search's pick
    schedule: str
    published_mfu: float | None     # model FLOPs (6·N·D and attention) over the peak
    published_step_s: float | None
    source: str
    tp_comm_overlap: bool = False   # Transformer Engine's overlap of the tensor-parallel collectives
    cannot: str = ""                # why the model cannot be held to this run (what it leaves out)
    recomputations: tuple = ("none", "selective", "full")   # what the run's software offered
    missed: str = ""                # held to it, and why the model misses it
    precision: str | None = None    # a recipe of formulas.precision (None: the BF16 convention)
    low_efficiency: float | None = None   # its matmuls' share of the recipe's peak (None: precision_time's)
    nodes_per_token: int | None = None    # node-limited routing of a mixture of experts

    @property
    def gpus(self) -> int:
        lay = self.layout
        return lay["tp"] * lay["cp"] * lay["pp"] * lay["dp"]


def _llama3_405b(gpus, cp, dp, seq_len, mfu, row, missed=""):
    # Table 4 states no recomputation for its 8K rows only ("without activation checkpointing").
    layout = dict(tp=8, cp=cp, pp=16, dp=dp, **({"recompute": "none"} if seq_len == 8192 else {}))
    return LayoutRun(f"Llama 3 405B, {gpus:,} H100, {seq_len // 1024}K", preset("llama-3.1-405b"),
                     hardware.gpu("H100 SXM"), seq_len, 16 * 2**20 // seq_len, layout, "interleaved", mfu, None,
                     _LLAMA3_405B.format(row=row, mfu=format_percent(mfu, 0)), missed=missed)


def _nemotron4(layers, hidden, heads, ffn, name) -> ModelConfig:
    """Nemotron-4 (arXiv 2402.16819, 2406.11704): squared-ReLU FFN (not gated), no biases, rotary positions, 8 KV
    heads, a 256,000-token vocabulary, untied embeddings."""
    return ModelConfig(vocab_size=256000, hidden_size=hidden, num_layers=layers, num_heads=heads, num_kv_heads=8,
                       head_dim=hidden // heads, ffn_hidden_size=ffn, gated_ffn=False, norm="layernorm",
                       attention_bias="none", ffn_bias=False, tie_embeddings=False, position_embedding="rotary",
                       name=name)


def _dgxc(name, model, gpus, seq_len, sequences, layout, step_s, readme, schedule="1f1b", micro_batch=1):
    shown = " ".join(f"{k.upper()} {v}" for k, v in layout.items())
    model = preset(model) if isinstance(model, str) else model
    return LayoutRun(name, model, hardware.gpu("H100 SXM"), seq_len, sequences,
                     dict(layout, micro_batch=micro_batch, recompute="none", zero=1), schedule, None, step_s,
                     _DGXC.format(readme=readme, layout=f"{gpus:,} GPUs, {shown}, MBS {micro_batch}, GBS {sequences}",
                                  step=step_s), tp_comm_overlap=True)


RUNS = {r.name: r for r in [
    LayoutRun("Megatron-LM 22B", _gpt(48, 6144, 64, name="GPT 22B"), hardware.gpu("A100 80GB"), 2048, 4,
              dict(tp=8, cp=1, pp=1, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.415, None,
              _KORTHIKANTI, missed=N_("a scaling study's smallest point, not a tuned layout (2 tensor-parallel GPUs "
                                   "and 4 data-parallel ones are 24% faster in the model); one efficiency for every "
                                   "size misses its narrow matmuls (768 columns a GPU) and a 0.8 s step's fixed "
                                   "costs (the optimizer's step), which the model has no terms for")),
    LayoutRun("Megatron-LM 175B", _gpt(96, 12288, 96, name="GPT-3 175B"), hardware.gpu("A100 80GB"), 2048, 64,
              dict(tp=8, cp=1, pp=8, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.514, None,
              _KORTHIKANTI),
    LayoutRun("Megatron-LM 530B", _gpt(105, 20480, 128, name="MT-NLG 530B"), hardware.gpu("A100 80GB"), 2048, 280,
              dict(tp=8, cp=1, pp=35, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.560, None,
              _KORTHIKANTI),
    LayoutRun("Megatron-LM 1T", _gpt(128, 25600, 160, name="GPT 1T"), hardware.gpu("A100 80GB"), 2048, 512,
              dict(tp=8, cp=1, pp=64, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.563, None,
              _KORTHIKANTI),
    LayoutRun("MT-NLG 530B, 2,240 A100", _gpt(105, 20480, 128, name="MT-NLG 530B"), hardware.gpu("A100 80GB"), 2048,
              1920, dict(tp=8, cp=1, pp=35, dp=8, recompute="full"), "1f1b", None, 60.1,
              "Smith et al. 2022 (arXiv 2201.11990) §2.4, read in cli99/llm-analysis examples/megatron-turing-nlg/"
              "README.md (commit eb2d5c0): batch 1920 × 2048 on 280 DGX A100, 'the latency per iteration observed is "
              "60.1' s, 126 TFLOP/s a GPU; 8-way tensor and 35-way pipeline parallelism; the 126 counts the "
              "recomputed forward (4 passes, as Megatron-DeepSpeed's formula does)", recomputations=_BEFORE_SELECTIVE,
              cannot=_OLDER_STACK),
    LayoutRun("BLOOM-176B", ModelConfig(vocab_size=250880, hidden_size=14336, num_layers=70, num_heads=112,
                                        num_kv_heads=112, head_dim=128, ffn_hidden_size=4 * 14336, gated_ffn=False,
                                        norm="layernorm", attention_bias="all", ffn_bias=True, tie_embeddings=True,
                                        position_embedding="alibi", embedding_norm=True, name="BLOOM-176B"),
              _JEAN_ZAY, 2048, 2048, dict(tp=4, cp=1, pp=12, dp=8, zero=1, micro_batch=2, recompute="full"), "1f1b",
              None, 104.70,
              "bigscience-workshop/bigscience, train/tr11-176B-ml/README.md: 384 A100 80GB, TP=4 PP=12 DP=8 MBS=2, "
              "ZeRO-1, activation checkpointing, GBS 2048; log line 'elapsed time per iteration (s): 104.70 | "
              "global batch size: 2048 | ... TFLOPs: 149.77' (all read; the TFLOPs count the recomputed forward)",
              recomputations=_BEFORE_SELECTIVE, cannot=_OLDER_STACK),
    LayoutRun("PaLM 540B", ModelConfig(vocab_size=256000, hidden_size=18432, num_layers=118, num_heads=48,
                                       num_kv_heads=1, head_dim=256, ffn_hidden_size=73728, gated_ffn=True,
                                       norm="layernorm_no_bias", attention_bias="none", ffn_bias=False,
                                       tie_embeddings=True, position_embedding="rotary", parallel_blocks=True,
                                       name="PaLM 540B"),
              _PALM_PODS, 2048, 2048, dict(tp=12, cp=1, pp=1, dp=512, zero=3, micro_batch=4, recompute="full"),
              "1f1b", 0.462, None,
              "Chowdhery et al. 2022: 238.3K tokens/s and 46.2% MFU on 6,144 TPU v4 chips, batch 2,048 × 2,048 "
              "(read in secondary copies); 12-way model parallelism and 256-way fully sharded data parallelism in "
              "each pod, 2 pods (recalled); rematerialisation (HFU 57.8%, read) taken as full recomputation",
              cannot=N_("TPU v4: a 3D torus, not NVLink and a network; no TPU run calibrates the model")),
    _llama3_405b(8192, 1, 64, 8192, 0.43, "8,192 GPUs, TP 8, CP 1, PP 16, DP 64, 8,192 tokens, 16M tokens a batch"),
    _llama3_405b(16384, 1, 128, 8192, 0.41, "16,384 GPUs, TP 8, CP 1, PP 16, DP 128, 8,192 tokens"),
    _llama3_405b(16384, 16, 8, 131072, 0.38, "16,384 GPUs, TP 8, CP 16, PP 16, DP 8 (4 in the first version's "
                                              "table, which does not multiply to 16,384), 131,072 tokens",
                 N_("by the workbook's count the published layout needs full recomputation at 131,072 tokens, which "
                 "the paper neither states nor rules out; the search's best spreads the sequence over 64 GPUs, whose "
                 "ring attention hides behind the long sequence's attention")),
    _dgxc("Llama 3.1 8B, 8 H100 (NVIDIA)", "llama-3-8b", 8, 8192, 128, dict(tp=1, cp=2, pp=1, dp=4), 12.78,
          "llama3.1/README_8b.md"),
    _dgxc("Llama 3.1 70B, 64 H100 (NVIDIA)", "llama-3.1-70b", 64, 8192, 128,
          dict(tp=4, cp=2, pp=4, dp=2, vp=5), 14.61, "llama3.1/README_70b.md", "interleaved"),
    _dgxc("Llama 3.1 70B, 2,048 H100 (NVIDIA)", "llama-3.1-70b", 2048, 8192, 4096,
          dict(tp=4, cp=2, pp=4, dp=64, vp=5), 14.84, "llama3.1/README_70b.md", "interleaved"),
    _dgxc("Llama 3.1 405B, 576 H100 (NVIDIA)", "llama-3.1-405b", 576, 8192, 252,
          dict(tp=8, cp=2, pp=9, dp=4, vp=7), 17.50, "llama3.1/README_405b.md", "interleaved"),
    _dgxc("Llama 3.1 405B, 2,304 H100 (NVIDIA)", "llama-3.1-405b", 2304, 8192, 1008,
          dict(tp=8, cp=2, pp=9, dp=16, vp=7), 17.70, "llama3.1/README_405b.md", "interleaved"),
    _dgxc("Nemotron-4 15B, 64 H100 (NVIDIA)", _nemotron4(32, 6144, 48, 24576, "Nemotron-4 15B"), 64, 4096, 256,
          dict(tp=4, cp=1, pp=1, dp=16), 2.845, "nemotron/README_15b.md", micro_batch=4),
    _dgxc("Nemotron-4 340B, 128 H100 (NVIDIA)", _nemotron4(96, 18432, 96, 73728, "Nemotron-4 340B"), 128, 4096, 32,
          dict(tp=8, cp=1, pp=8, dp=2, vp=12), 4.61, "nemotron/README_340b.md", "interleaved"),
    LayoutRun("DeepSeek-V3, 2,048 H800", preset("deepseek-v3"), hardware.gpu("H800"), 4096, 15360,
              dict(tp=1, cp=1, pp=16, dp=128, ep=64, zero=1, recompute="none"), "dualpipe", None,
              15360 * 4096 / (1e12 / (180e3 * 3600) * 2048),
              "DeepSeek-V3 report (arXiv 2412.19437) §3.1-3.2, §4.2: 2,048 H800, '16-way Pipeline Parallelism', "
              "'64-way Expert Parallelism ... spanning 8 nodes', ZeRO-1, no tensor parallelism, DualPipe; 4K "
              "sequences, batch 15,360; 'each trillion tokens requires only 180K H800 GPU hours' gives the step "
              "time (tokens a step over 2,048 GPUs' tokens a second); §3.2.3: only RMSNorm and MLA's "
              "up-projections are recomputed (their forward is 2.4% of a token's work), taken as no recomputation; "
              "FP8 matmuls at its DeepGEMM kernels' rate (moe_plan), the dispatch in FP8, at most 4 nodes a token "
              "(§2.1.2)",
              precision="fp8-deepseek", low_efficiency=DEEPSEEK_FP8_EFFICIENCY, nodes_per_token=NODES_PER_TOKEN),
]}

# The run each GPU generation's matmul efficiency is fitted to; every other run is held out.
FITTED_TO = {"Ampere": "Megatron-LM 1T", "Hopper": "Llama 3.1 70B, 64 H100 (NVIDIA)"}


def _run(run) -> LayoutRun:
    return v.lookup("run", run, RUNS) if not isinstance(run, LayoutRun) else run


def search(run, compute_efficiency=None):
    """Every layout of the run's GPUs, sequence and batch, with its schedule and tensor-parallel overlap; a layout
    fits in the whole of a GPU's memory (the run did)."""
    r = _run(run)
    return search_layouts(r.model, r.gpus, r.gpu, r.seq_len, r.sequences * r.seq_len, schedule=r.schedule,
                          compute_efficiency=compute_efficiency, tp_comm_overlap=r.tp_comm_overlap,
                          recomputations=r.recomputations, margin=0.0, precision=r.precision,
                          low_efficiency=r.low_efficiency, nodes_per_token=r.nodes_per_token)


def published_mfu(run) -> float:
    """The run's MFU: as published, or from its published step time and the workbook's count of its FLOPs."""
    r = _run(run)
    if r.published_mfu is not None:
        return r.published_mfu
    flops = (6 * flops_params(r.model) + attention_flops_per_token_for(r.model, r.seq_len)) * r.sequences * r.seq_len
    return flops / (r.gpus * r.gpu.bf16_flops_per_s * r.published_step_s)


def predict(run, compute_efficiency=None) -> dict:
    """The model's row for the run's published layout (its rank among all, the settings not published chosen as
    the search would), with ``best_step_s``: the search's best step time."""
    found = search(run, compute_efficiency)
    row = found.evaluate(**_run(run).layout)
    return {**row, "best_step_s": found.best["step_time_s"] if found.best else float("nan")}


def fit(generation) -> float:
    """The matmul efficiency at which the model gives the published MFU of ``FITTED_TO[generation]``, by
    bisection."""
    anchor = RUNS[v.check_choice("generation", generation, FITTED_TO) and FITTED_TO[generation]]
    target = published_mfu(anchor)
    low, high = 0.05, 1.0
    for _i in range(30):
        middle = (low + high) / 2
        low, high = (middle, high) if predict(anchor, middle)["mfu"] < target else (low, middle)
    return (low + high) / 2


def comparison():
    """Every run's published MFU beside the model's for its published layout, the difference in points, how much
    longer its step is than the search's best, and whether it was fitted on or held out; as a table."""
    from ..display.table import Table

    fitted = set(FITTED_TO.values())
    rows = []
    for name, run in RUNS.items():
        row, published = predict(run), published_mfu(run)
        lay = run.layout
        expert = f", EP {lay['ep']}" if "ep" in lay else ""
        rows.append((name, f"{lay['tp']}×{lay['cp']}×{lay['pp']}×{lay['dp']}{expert}",
                     format_percent(published, 1), format_percent(row["mfu"], 1),
                     f"{100 * (row['mfu'] - published):+.1f}",
                     format_percent(row["step_time_s"] / row["best_step_s"] - 1, 0, signed=True),
                     _("fitted") if name in fitted else _("held out") if not run.cannot else _("not held to it")))
    return Table((_("run"), "TP×CP×PP×DP", _("published MFU"), _("model MFU"), _("points"),
                  _("step over the best"), _("use")), rows,
                 notes=[_("{run}: {why}").format(run=name, why=_(run.cannot or run.missed))
                        for name, run in RUNS.items() if run.cannot or run.missed])
