"""Chapter 5, interview drills: the figure of seed 000 §5 (interview questions) that no earlier chapter registers.
The exercises of seed 000 §3, the numbers of its §4 and seed 004 §5's are registered with chapters 2-4, whose
functions they use; chapter 5 walks through them again."""

from __future__ import annotations

from ...formulas import compute as c
from ...formulas import memory as mem
from ...formulas import model as m
from ...core.i18n import N_, _
from ...core.units import format_percent
from .figure import Figure, register
from .render import Text

_Q = "§5 常见面试问题"


def _selective_saving(seq_len=2048, hidden=12288, heads=96) -> float:
    """Share of a GPT-3 175B layer's activations that selective recomputation frees (Korthikanti et al.'s case)."""
    kept = mem.layer_activation_bytes(seq_len, 1, hidden, heads, recompute="selective")
    return 1 - kept / mem.layer_activation_bytes(seq_len, 1, hidden, heads)


def _full_saving() -> float:
    """Full checkpointing of the material's 7B example (8 × 4,096 tokens, FlashAttention on)."""
    cfg = m.preset("llama-2-7b")
    full = mem.activations_per_gpu(cfg, 8, 4096, recompute="full", flash=True)
    return 1 - full / mem.activations_per_gpu(cfg, 8, 4096, recompute="none", flash=True)


def _checkpointing_note() -> str:
    more = c.training_flops_per_token(1, recompute=True) / c.training_flops_per_token(1) - 1
    return _("The two methods bear the same name. The material's 60-70% is what selective recomputation saves, as "
             "llmest's count of Korthikanti et al.'s GPT-3 layer gives too; full checkpointing frees {freed} of the "
             "material's 7B example (8 × 4,096 tokens, FlashAttention on), for {more} more compute (a second forward "
             "pass).").format(freed=format_percent(_full_saving(), 0), more=format_percent(more, 0))


def _selective_literature() -> str:
    published = ", ".join(_("{saved} on {model}").format(saved=format_percent(saved, 0), model=name)
                          for name, (saved, _kept) in mem.SELECTIVE_RECOMPUTE_PUBLISHED.items())
    return _("selective recomputation, which recomputes only the attention scores, saves activation memory: "
             "{published}, by their analytic count").format(published=published)


register(
    Figure("000-5-checkpointing", 5, "000", _Q, N_("activation memory that gradient checkpointing saves"),
           "Gradient checkpointing（用计算换显存，省 60-70% 激活值显存）", (0.6, 0.7), _selective_saving,
           "1 − layer_activation_bytes(2048, 1, 12288, 96, selective) / (none): GPT-3 175B", unit="fraction",
           literature=((Text(_selective_literature), "Korthikanti et al. 2022, Reducing Activation Recomputation in "
                                                       "Large Transformer Models, arXiv 2205.05198"),
                       (N_("full checkpointing keeps only chosen layers' inputs and recomputes the rest in a second "
                        "forward pass"), "Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost, "
                        "arXiv 1604.06174")),
           cause=_checkpointing_note),
)
