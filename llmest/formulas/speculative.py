"""Speculative decoding and multi-token prediction: how many tokens one step of the target model yields, what the
step costs and the speed-up over decoding one token at a time.

A draft proposes k tokens; the target checks them all in one forward pass over k + 1 positions a sequence and
keeps the longest prefix it agrees with, plus one token of its own. If each draft token is accepted with the same
probability α, independently (Leviathan, Kalman and Matias 2023, arXiv 2211.17192, §3.1, eq. 1), a step yields
(1 − α^(k+1)) / (1 − α) tokens on average: 1 + α + α² + ... + α^k.

DeepSeek-V3's multi-token-prediction module (arXiv 2412.19437 §2.2) drafts one token (k = 1): a step yields 1 + α.

Formulas use only + - * / and powers and work on numbers, NumPy arrays and SymPy symbols.
"""

from __future__ import annotations

from ..core import _validate as v

# DeepSeek-V3 report §5.4.3: "the acceptance rate of the second token prediction ranges between 85% and 90% across
# various generation topics ... enabling DeepSeek-V3 to achieve a significantly improved decoding speed, delivering
# 1.8 times TPS (Tokens Per Second)."
MTP_ACCEPTANCE = (0.85, 0.90)
MTP_SPEEDUP = 1.8


@v.checked
def tokens_per_step(acceptance, draft_tokens):
    """Tokens one verification step yields on average, each of the ``draft_tokens`` (k) draft tokens accepted with
    probability ``acceptance`` (α) independently: (1 − α^(k+1)) / (1 − α), the sum 1 + α + ... + α^k, k + 1 at
    α = 1 (Leviathan et al. 2023, eq. 1)."""
    acceptance = v.check_number("acceptance", acceptance, low=0, high=1)
    draft_tokens = v.check_whole("draft_tokens", draft_tokens)
    if not v.is_symbolic(acceptance) and type(acceptance).__name__ != "ndarray" and acceptance == 1:
        return draft_tokens + 1
    return (1 - acceptance ** (draft_tokens + 1)) / (1 - acceptance)


@v.checked
def speculative_step_seconds(verify_s, draft_step_s, draft_tokens):
    """One speculative step: the draft's k steps one after another, then the target's pass over k + 1 tokens a
    sequence (``verify_s``)."""
    v.check_positive("verify_s", verify_s)
    v.check_nonnegative("draft_step_s", draft_step_s)
    draft_tokens = v.check_whole("draft_tokens", draft_tokens)
    return verify_s + draft_tokens * draft_step_s


@v.checked
def speculative_speedup(acceptance, draft_tokens, target_step_s, verify_s, draft_step_s):
    """Tokens a second with speculation over tokens a second without: the tokens a step yields over the step's
    time measured in plain decoding steps (``target_step_s``, one token a sequence)."""
    v.check_positive("target_step_s", target_step_s)
    step = speculative_step_seconds(verify_s, draft_step_s, draft_tokens)
    return tokens_per_step(acceptance, draft_tokens) * target_step_s / step


@v.checked
def step_cost_for_speedup(acceptance, draft_tokens, speedup):
    """The other way: how many plain decoding steps a speculative step must cost for a published ``speedup`` at an
    acceptance rate, tokens a step over speed-up (DeepSeek-V3: 1.85 to 1.90 tokens over 1.8 times)."""
    v.check_positive("speedup", speedup)
    return tokens_per_step(acceptance, draft_tokens) / speedup
