"""A rollout's decoding when its answers end at different lengths, and the weight refit that follows each update.

A wave of B sequences is decoded together: P prompt tokens each, answer i of L_i tokens (its first token comes
from the prefill, the other L_i − 1 from decode steps). Decode step t (t = 1 .. T − 1, T the longest answer) reads
every weight once, W bytes, and the KV cache of each sequence still decoding, at its context P + t; the sequences
still decoding at step t are those with L_i > t, so the batch shrinks as answers finish. Summed over the steps:

    bytes = (T − 1)·W + kv · Σ_i Σ_{t=1}^{L_i−1} (P + t)
          = (T − 1)·W + kv · B · (P·(E[L] − 1) + (E[L²] − E[L]) / 2)
    FLOPs = f · Σ_i (L_i − 1) = f · B · (E[L] − 1)

(kv the cache bytes a token of context, f the FLOPs a decoded token). The weights are read once a step for as long
as the longest answer runs, however few sequences are left: that is what a wave waits for. With every answer of O
tokens (E[L] = O, E[L²] = O², T = O) this is (O − 1) steps at the mean context P + O/2, the serving plan's request.

Answer lengths here: an exponential of scale θ clipped at the maximum M (an answer that reaches M is cut there),
with q = exp(−M/θ) the share clipped:

    E[L] = θ·(1 − q)        E[L²] = 2θ² − 2θ·(M + θ)·q

(E[L²] is ∫₀^M 2t·P(L > t) dt with P(L > t) = exp(−t/θ)). The plans solve θ from a published mean and maximum.

Formulas use only + - * / and work on numbers, NumPy arrays and SymPy symbols."""

from __future__ import annotations

from ..core import _validate as v



def _share(name, value):
    """A share that may be none or all: [0, 1] (exp(−M/θ) underflows to 0 when answers are short)."""
    return v.check_number(name, value, low=0, high=1)


_LENGTHS = dict(mean_tokens=v.check_positive, mean_square_tokens=v.check_positive, longest_tokens=v.check_positive,
                scale_tokens=v.check_positive, max_tokens=v.check_positive, clipped_share=_share)
_WAVE = dict(decode_bytes=v.check_nonnegative, decode_flops=v.check_nonnegative, refit_bytes_per_s=v.check_positive)


@v.checked(**_LENGTHS)
def clipped_exponential_mean(scale_tokens, max_tokens, clipped_share):
    """E[L] of answers exponential with scale θ clipped at M, q = exp(−M/θ) of them cut there: θ·(1 − q).
    (``max_tokens`` enters through q.)"""
    return scale_tokens * (1 - clipped_share)


@v.checked(**_LENGTHS)
def clipped_exponential_mean_square(scale_tokens, max_tokens, clipped_share):
    """E[L²] of the same answers: 2θ² − 2θ·(M + θ)·q."""
    return 2 * scale_tokens**2 - 2 * scale_tokens * (max_tokens + scale_tokens) * clipped_share


@v.checked(**_LENGTHS)
def wave_decode_bytes(weight_bytes, kv_bytes_per_token, batch, prompt_tokens, mean_tokens, mean_square_tokens,
                      longest_tokens):
    """Bytes a wave's decode steps read: the weights once a step until the longest answer ends, (T − 1)·W, and the
    cache of each sequence still decoding at its context, kv·B·(P·(E[L] − 1) + (E[L²] − E[L]) / 2)."""
    return ((longest_tokens - 1) * weight_bytes
            + kv_bytes_per_token * batch * (prompt_tokens * (mean_tokens - 1) + (mean_square_tokens - mean_tokens) / 2))


@v.checked(**_LENGTHS)
def wave_decode_flops(flops_per_token, batch, mean_tokens):
    """FLOPs of a wave's decode steps: f a decoded token, B·(E[L] − 1) tokens decoded (the first comes from the
    prefill)."""
    return flops_per_token * batch * (mean_tokens - 1)


@v.checked(**_WAVE)
def wave_decode_seconds(decode_bytes, decode_flops, bandwidth_bytes_per_s, peak_flops_per_s, efficiency):
    """The wave on the roofline, at ``efficiency`` of it: reading its bytes or doing its FLOPs, whichever takes
    longer. Summed over the wave rather than step by step, it is exact where every step is bound the same way, as
    a rollout's are past ``kv_context_limit`` (every step memory-bound)."""
    return max(decode_bytes / bandwidth_bytes_per_s, decode_flops / peak_flops_per_s) / efficiency


@v.checked(**_WAVE)
def refit_seconds(weight_bytes, refit_bytes_per_s):
    """Sending the updated weights from the trainer to the inference engines: bytes / the refit's rate."""
    return weight_bytes / refit_bytes_per_s
