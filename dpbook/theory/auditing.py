"""The audit templates of the book (chapter 17, and every chapter's privacy check) as registry entries.

An audit can refute a privacy claim, never prove it.  PA(i) uses the exact privacy loss when the output law has
a closed form; PA(ii) estimates the probabilities of a few events on a neighbouring pair and compares them with
Clopper–Pearson intervals (:mod:`dpbook.audit`, :mod:`dpbook.stats`).  No bound functions live here: the audit
engine is :func:`dpbook.audit.audit` and its lower bound on ε is :func:`dpbook.audit.epsilon_lower_bound`.
"""
from __future__ import annotations

from .registry import DWORK_ROTH, Result

__all__: list[str] = []

RESULTS = (
    Result(id="PA(i)", title="Privacy audit with the exact privacy loss", chapter="04_gaussian",
           section="Why it is private: the privacy loss is Gaussian",
           statement=r"When the output density is known, sample outputs $o\sim M(x)$ on a fixed neighbouring pair and compute "
                     r"the privacy loss $L(o)=\ln(p_x(o)/p_{x'}(o))$: pure ε-DP needs $\max L\le\varepsilon$, and "
                     r"$\Pr[L>\varepsilon]\le\delta$ suffices for $(\varepsilon,\delta)$-DP.",
           implemented_by=("dpbook.theory.gaussian.gaussian_privacy_loss", "dpbook.privacy_loss.round_loss",
                           "dpbook.stats.clopper_pearson"),
           bounds=("dpbook.theory.gaussian.privacy_loss_tail",),
           source=f"the book's audit template, after the privacy-loss random variable of {DWORK_ROTH}, §3.5"),
    Result(id="PA(ii)", title="Privacy audit by event frequencies", chapter="17_auditing",
           section="What an audit measures",
           statement=r"Run the mechanism many times on $x$ and on a neighbour $x'$, count a few events $S$, and turn the "
                     r"Clopper–Pearson bounds on $\Pr[M(x)\in S]$ and $\Pr[M(x')\in S]$ into a lower bound on ε; a lower "
                     r"bound above the claim refutes it.",
           implemented_by=("dpbook.audit.audit", "dpbook.audit.epsilon_lower_bound", "dpbook.audit.run_audits"),
           bounds=("dpbook.stats.clopper_pearson_lower", "dpbook.stats.clopper_pearson_upper"),
           source=f"the book's audit template, testing the definition of {DWORK_ROTH}, Def. 2.4"),
)
