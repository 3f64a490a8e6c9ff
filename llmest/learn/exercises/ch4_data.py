"""Chapter 4's exercises (data and tokens): each a question, the answer llmest computes, a tolerance, hints."""

from __future__ import annotations

from ...formulas import data as dt
from ..grading import Exercise
from ...core.i18n import N_
from .registry import register


register(
    Exercise(
        "4.1",
        N_("By Chinchilla's rule of thumb, how many training tokens does a compute-optimal 13B model get?"),
        lambda: dt.chinchilla_tokens(13e9), rel_tol=0.02,
        hints=(N_("About {ratio} tokens per parameter."),), values={"ratio": dt.TOKENS_PER_PARAM}),
    Exercise(
        "4.2",
        N_("A budget of 10²³ FLOPs, spent the rule's way (D = 20·N, C = 6·N·D): how many parameters?"),
        lambda: dt.chinchilla_params_for_flops(1e23), rel_tol=0.03,
        hints=(N_("C = 6 · N · 20N = 120·N²."),)),
    Exercise(
        "4.3",
        N_("The same 10²³ FLOPs under the fit printed in the Chinchilla paper (E 1.69, A 406.4, B 410.7, α 0.34, "
        "β 0.28): what is the compute-optimal N?"),
        lambda: dt.fit("hoffmann").optimal(1e23)[0], rel_tol=0.03,
        hints=(N_("N_opt = G·(C/6)^(β/(α+β)) with G = (αA / (βB))^(1/(α+β))."),)),
    Exercise(
        "4.4",
        N_("A team trains a 3B-parameter model on 9T tokens, to serve it cheaply. How many tokens per parameter is "
        "that?"),
        lambda: 9e12 / 3e9, rel_tol=0.03,
        hints=(N_("Divide tokens by parameters; compare with Chinchilla's {ratio}."),),
        values={"ratio": dt.TOKENS_PER_PARAM}),
    Exercise(
        "4.5",
        N_("300B training tokens from a mix of 70% English, 20% Chinese and 10% code, at the workbook's rates "
           "(measured in §4.2, the median of three tokenizers: {rates} × 10⁸ tokens per GB): how many GB (10⁹ "
           "bytes) of cleaned text?"),
        lambda: sum(dt.mixture_bytes(300e9, {"english": 0.7, "chinese": 0.2, "code": 0.1}).values()), unit="bytes",
        rel_tol=0.03,
        hints=(N_("Split the tokens by the shares, divide each by its rate per GB, and add."),),
        values={"rates": ", ".join(f"{dt.tokens_per_gb(lang) / 1e8:g}" for lang in ("english", "chinese", "code"))}),
    Exercise(
        "4.6",
        N_("At a cleaning yield of 25%, how many GB of raw crawl give the cleaned text of exercise 4.5?"),
        lambda: dt.raw_bytes(sum(dt.mixture_bytes(300e9, {"english": 0.7, "chinese": 0.2, "code": 0.1}).values()),
                             0.25), unit="bytes", rel_tol=0.03,
        hints=(N_("Cleaned = yield × raw."),)),
    Exercise(
        "4.7",
        N_("You have 300B unique tokens of good data and want to train on 2.4T tokens. How many epochs is that?"),
        lambda: dt.epochs(2.4e12, 300e9), unit="epochs", rel_tol=0.01,
        hints=(N_("Training tokens / unique tokens."),
               N_("Then set it beside the {epochs} epochs of repeated data that Muennighoff et al. (2023) "
               "found to change the loss little against unique data.")), values={"epochs": dt.EPOCHS_NEARLY_FREE}),
)
