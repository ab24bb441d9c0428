"""The exponential mechanism and report-noisy-max (DR-Def3.4, DR-Thm3.10/3.11, DR-Claim3.9; chapter 07).

Both pick one element ``r`` of a finite range ``R`` (given by index ``0..|R|-1``) with a high utility
``u(x, r)``.  The scores are the vector ``u(x, ·)``; ``sensitivity`` is ``Δu = max_r max_{x~x'} |u(x,r) - u(x',r)|``.

* :func:`exponential_mechanism` samples ``r`` with probability ``∝ exp(ε u(x,r) / (2Δu))`` (ε-DP, DR-Thm3.10).
  The factor 1/2 pays for the normaliser moving against the chosen score when utilities are
  *non-monotone* (some scores go up, others down between neighbours); see ``dpbook.broken.exponential``.
* :func:`report_noisy_max` adds Laplace noise to every score and reports the argmax.  DR-Claim3.9:
  ``Lap(Δu/ε)`` suffices when the utilities are *monotone* (counting queries under add/remove: all scores
  move in the same direction); for general utilities we use ``Lap(2Δu/ε)`` (the same proof with a 2Δu shift).
* :func:`exponential_probabilities` is the exact output distribution of the exponential mechanism, for
  exact tails, exact privacy-loss computations (the PA(i) audit: exact privacy loss) and exact plots.
"""
from __future__ import annotations

import numpy as np
from scipy.special import softmax

from .noise import laplace_noise
from .release import Spend, with_claim
from .theory.exponential import report_noisy_max_scale
from .contract import mechanism_prologue
from .validation import real_dtype, as_array, check_epsilon, check_int, check_sensitivity, check_work

__all__ = ["exponential_mechanism", "exponential_probabilities", "exponential_sample", "report_noisy_max",
           "check_scores"]


def check_scores(scores, name: str = "scores", *, batch: bool = False) -> np.ndarray:
    """A utility vector: a non-empty 1-D array of finite real numbers (``TypeError`` / ``ValueError`` otherwise);
    with ``batch``, also a 2-D ``(trials, |R|)`` array of them, one utility vector per row."""
    arr = as_array(name, scores)
    if not real_dtype(arr.dtype):
        raise TypeError(f"{name} must be a 1-D array of real numbers, got dtype {arr.dtype}")
    if arr.ndim not in ((1, 2) if batch else (1,)) or arr.size == 0:
        shape = "1-D (or 2-D, one row per trial)" if batch else "1-D"
        raise ValueError(f"{name} must be a non-empty {shape} array, got shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; utilities must be finite")
    return arr


def _logits(u: np.ndarray, epsilon: float, sensitivity: float) -> np.ndarray:
    """The shifted log-weights ``ε(u - max u)/(2Δu) <= 0`` (per row for a batch; overflow to -inf is
    harmless: weight 0)."""
    with np.errstate(over="ignore"):
        return epsilon * (u - u.max(axis=-1, keepdims=True)) / (2.0 * sensitivity)


def _pick(picks, epsilon, mechanism, neighbours, trace=None):
    """The pick(s) as an int / array of ints that carries the claim (:func:`dpbook.release.with_claim`)."""
    return with_claim(picks, mechanism=mechanism, neighbours=neighbours,
                      ledger=(Spend(mechanism, epsilon),), trace=trace)


def exponential_mechanism(scores, *, epsilon, sensitivity, trials=None, rng=None, neighbours="add/remove"):
    """Pick index ``r`` with probability ``∝ exp(ε·u(r) / (2Δu))`` — ε-DP (DR-Def3.4, DR-Thm3.10).

    ``scores`` is the utility vector ``u(x, ·)`` over the range (higher is better), ``sensitivity`` its
    ``Δu``.  Sampling uses the Gumbel-max trick on the shifted log-weights ``ε(u - max u)/(2Δu)``: exact,
    and free of overflow and underflow at any ε.  Returns an int, or an array of ``trials`` ints, that carries
    its claim (:class:`dpbook.release.ReleasedIndex` / :class:`~dpbook.release.ReleasedArray`: ε under
    ``neighbours``, the relation for which ``sensitivity`` bounds the change of every score).
    A 2-D ``scores`` of shape ``(trials, |R|)`` gives one independent pick per row (``trials`` must be None).

    Utility (DR-Thm3.11): ``P[u(M(x)) <= OPT - 2Δu/ε · (ln(|R|/|R_OPT|) + t)] <= e^{-t}``; see
    ``dpbook.theory.exponential``.  The Gumbel-max trick says the exponential mechanism *is*
    report-noisy-max with Gumbel noise of scale ``2Δu/ε``.
    """
    u = check_scores(scores, batch=True)
    if u.ndim == 2 and trials is not None:
        raise ValueError(f"trials ({trials!r}) must be None when scores is 2-D (one pick per row)")
    p = mechanism_prologue(epsilon=epsilon, rng=rng, trials=trials, neighbours=neighbours, per_release=u.shape[-1:])
    sensitivity = check_sensitivity(sensitivity)
    logits = _logits(u, p.epsilon, sensitivity)
    picks = np.argmax(logits + p.rng.gumbel(size=u.shape if u.ndim == 2 else p.shape), axis=-1)
    return _pick(int(picks) if picks.ndim == 0 else picks, p.epsilon, "exponential mechanism", p.neighbours)


def exponential_probabilities(scores, *, epsilon, sensitivity) -> np.ndarray:
    """The exact output distribution of :func:`exponential_mechanism`: ``softmax(ε u / (2Δu))`` (DR-Def3.4).

    Computed from the max-shifted logits with ``scipy.special.softmax``: sums to 1, no overflow at any ε.
    """
    u = check_scores(scores)
    return softmax(_logits(u, check_epsilon(epsilon), check_sensitivity(sensitivity)))


def exponential_sample(scores, *, epsilon, sensitivity, size, rng=None, neighbours="add/remove") -> np.ndarray:
    """``size`` independent draws of :func:`exponential_mechanism` on the same scores, by inverse CDF.

    Same distribution (:func:`exponential_probabilities`), but ``O(|R| + size·log|R|)`` work instead of the
    ``size × |R|`` Gumbel array: the batch sampler for experiments over large ranges (SmallDB).  The picks carry
    the claim of one draw (as ``trials`` releases do).
    """
    p = exponential_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity)
    size = check_int("size", size, low=1)
    check_work(size=size)
    pro = mechanism_prologue(epsilon=epsilon, rng=rng, neighbours=neighbours)
    return _pick(pro.rng.choice(p.size, size=size, p=p), pro.epsilon, "exponential mechanism", pro.neighbours)


def report_noisy_max(scores, *, epsilon, sensitivity, monotone: bool = False, trials=None, rng=None,
                     sampler=laplace_noise, neighbours="add/remove"):
    """Report ``argmax_r (u(r) + Lap(b))`` — ε-DP (DR-Claim3.9; Dwork–Roth §3.3).

    ``b = Δu/ε`` when ``monotone=True``: the caller promises that between neighbours all scores move in
    the same direction by at most ``Δu`` (e.g. counting queries under add/remove, ``Δu = 1``).  Otherwise
    ``b = 2Δu/ε`` [DERIVED: fixing the other noises, the winning threshold moves by at most ``2Δu``].
    ``trials`` draws that many independent picks (noise array ``trials × |R|``).  ``sampler(scale, size,
    rng)`` draws the noise.  Returns an int, or an array of ``trials`` ints, carrying the claim (ε under
    ``neighbours``) as :func:`exponential_mechanism` does.

    Accuracy [DERIVED from DR-Thm3.8]: with probability ``1-β`` every ``|noise| < b ln(|R|/β)``, so the pick
    has ``u >= OPT - 2 b ln(|R|/β)`` (``dpbook.theory.exponential.report_noisy_max_gap``).
    """
    u = check_scores(scores)
    p = mechanism_prologue(epsilon=epsilon, rng=rng, sampler=sampler, trials=trials, neighbours=neighbours,
                           per_release=u.shape, family="laplace", lattice_ok=False)  # scores are reals, off any lattice
    b = report_noisy_max_scale(p.epsilon, sensitivity, monotone=monotone)   # the whole budget ε, one pick
    picks = np.argmax(u + p.noise(b, p.shape, p.rng), axis=-1)
    return _pick(int(picks) if trials is None else picks, p.epsilon, "report noisy max", p.neighbours,
                 trace={"noise_scale": b, "monotone": bool(monotone)})
