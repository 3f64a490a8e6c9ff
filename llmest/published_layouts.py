"""Published training runs with their full layout, to check the layout search's step-time model against: each run's
model, GPUs, layout, batch and published MFU or step time, where each figure was read, and what the model
predicts for it (``predict``) or needs to reproduce it (``efficiency_for``)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import _validate as v
from . import hardware
from .hardware import GB_S, Network
from .i18n import _
from .model import ModelConfig
from .plans import search_layouts
from .units import format_percent


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


@dataclass(frozen=True)
class LayoutRun:
    name: str
    model: ModelConfig
    gpu: hardware.GPU
    seq_len: int
    sequences: int                  # per optimizer step
    layout: dict                    # tp, cp, pp, dp, zero, micro_batch, recompute
    schedule: str
    published_mfu: float | None     # model FLOPs (6·N·D and attention) over the peak
    published_step_s: float | None
    source: str

    @property
    def gpus(self) -> int:
        lay = self.layout
        return lay["tp"] * lay["cp"] * lay["pp"] * lay["dp"]


RUNS = {r.name: r for r in [
    LayoutRun("Megatron-LM 22B", _gpt(48, 6144, 64, name="GPT 22B"), hardware.gpu("A100 80GB"), 2048, 4,
              dict(tp=8, cp=1, pp=1, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.415, None,
              _KORTHIKANTI),
    LayoutRun("Megatron-LM 175B", _gpt(96, 12288, 96, name="GPT-3 175B"), hardware.gpu("A100 80GB"), 2048, 64,
              dict(tp=8, cp=1, pp=8, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.514, None,
              _KORTHIKANTI),
    LayoutRun("Megatron-LM 530B", _gpt(105, 20480, 128, name="MT-NLG 530B"), hardware.gpu("A100 80GB"), 2048, 280,
              dict(tp=8, cp=1, pp=35, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.560, None,
              _KORTHIKANTI),
    LayoutRun("Megatron-LM 1T", _gpt(128, 25600, 160, name="GPT 1T"), hardware.gpu("A100 80GB"), 2048, 512,
              dict(tp=8, cp=1, pp=64, dp=1, zero=0, micro_batch=1, recompute="selective"), "1f1b", 0.563, None,
              _KORTHIKANTI),
    LayoutRun("BLOOM-176B", ModelConfig(vocab_size=250880, hidden_size=14336, num_layers=70, num_heads=112,
                                        num_kv_heads=112, head_dim=128, ffn_hidden_size=4 * 14336, gated_ffn=False,
                                        norm="layernorm", attention_bias="all", ffn_bias=True, tie_embeddings=True,
                                        position_embedding="alibi", embedding_norm=True, name="BLOOM-176B"),
              _JEAN_ZAY, 2048, 2048, dict(tp=4, cp=1, pp=12, dp=8, zero=1, micro_batch=2, recompute="full"), "1f1b",
              None, 104.70,
              "bigscience-workshop/bigscience, train/tr11-176B-ml/README.md: 384 A100 80GB, TP=4 PP=12 DP=8 MBS=2, "
              "ZeRO-1, activation checkpointing, GBS 2048; log line 'elapsed time per iteration (s): 104.70 | "
              "global batch size: 2048 | ... TFLOPs: 149.77' (all read)"),
    LayoutRun("PaLM 540B", ModelConfig(vocab_size=256000, hidden_size=18432, num_layers=118, num_heads=48,
                                       num_kv_heads=1, head_dim=256, ffn_hidden_size=73728, gated_ffn=True,
                                       norm="layernorm_no_bias", attention_bias="none", ffn_bias=False,
                                       tie_embeddings=True, position_embedding="rotary", parallel_blocks=True,
                                       name="PaLM 540B"),
              _PALM_PODS, 2048, 2048, dict(tp=12, cp=1, pp=1, dp=512, zero=3, micro_batch=4, recompute="full"),
              "1f1b", 0.462, None,
              "Chowdhery et al. 2022: 238.3K tokens/s and 46.2% MFU on 6,144 TPU v4 chips, batch 2,048 × 2,048 "
              "(read in secondary copies); 12-way model parallelism and 256-way fully sharded data parallelism in "
              "each pod, 2 pods (recalled); rematerialisation (HFU 57.8%, read) taken as full recomputation"),
]}


def _run(run) -> LayoutRun:
    return v.lookup("run", run, RUNS) if not isinstance(run, LayoutRun) else run


DEFAULT_EFFICIENCY = 0.5  # the matmul efficiency a prediction assumes unless told


def predict(run, compute_efficiency=DEFAULT_EFFICIENCY, overlap=0.5) -> dict:
    """The layout search's row for a published run's own layout, at a matmul efficiency and overlap."""
    r = _run(run)
    lay = r.layout
    found = search_layouts(r.model, r.gpus, r.gpu, r.seq_len, r.sequences * r.seq_len, schedule=r.schedule,
                           overlap=overlap, compute_efficiency=compute_efficiency,
                           micro_batch_sizes=(lay["micro_batch"],), zero_stages=(lay["zero"],),
                           recomputations=(lay["recompute"],), margin=0.0)
    in_node = lay["tp"] <= r.gpu.network.gpus_per_node
    return found.find(tp=lay["tp"], cp=lay["cp"], pp=lay["pp"], dp=lay["dp"], tp_in_node=in_node)


def efficiency_for(run, overlap=0.5) -> float:
    """The matmul efficiency at which the model gives the run's published MFU (or step time), by bisection."""
    r = _run(run)

    def error(e):
        row = predict(r, e, overlap)
        return row["mfu"] - r.published_mfu if r.published_mfu is not None else r.published_step_s - row["step_time_s"]

    low, high = 0.05, 1.0
    for _ in range(40):
        middle = (low + high) / 2
        low, high = (middle, high) if error(middle) < 0 else (low, middle)
    return (low + high) / 2


def comparison(fitted_to="Megatron-LM 1T"):
    """Each run's published MFU (or step time) beside the model's at 50% matmul efficiency and at the efficiency
    fitted to one run (``efficiency_for``), as a table."""
    from .tables import Table

    fitted, anchor = efficiency_for(fitted_to), _run(fitted_to)
    rows = []
    for name, run in RUNS.items():
        lay = run.layout
        default, tuned = predict(run), predict(run, fitted)
        if run.published_mfu is not None:
            shown = (_("{mfu} MFU").format(mfu=format_percent(x, 1))
                     for x in (run.published_mfu, default["mfu"], tuned["mfu"]))
        else:
            shown = (_("{s} s a step").format(s=f"{x:.1f}")
                     for x in (run.published_step_s, default["step_time_s"], tuned["step_time_s"]))
        rows.append((name, f"{run.gpus:,} × {run.gpu.name}", f"{lay['tp']}×{lay['cp']}×{lay['pp']}×{lay['dp']}",
                     *shown))
    model = _("model, {efficiency} efficiency")
    return Table((_("run"), _("GPUs"), "TP×CP×PP×DP", _("published"),
                  model.format(efficiency=format_percent(DEFAULT_EFFICIENCY, 0)),
                  model.format(efficiency=format_percent(fitted, 1))), rows,
                 notes=[_("efficiency fitted to {run}'s published {mfu} MFU").format(
                     run=anchor.name, mfu=format_percent(anchor.published_mfu, 1))])
