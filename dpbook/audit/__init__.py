"""Empirical privacy audits (chapter 17).

* :mod:`dpbook.audit.engine` — Clopper–Pearson lower bounds on ε and one audit of a pair of samplers.
* :mod:`dpbook.audit.catalogue` — :class:`AuditCase`, the registry, running and tabulating audits.
* :mod:`dpbook.audit.pairs` — the standard neighbouring pairs and builders the cases share.
* :mod:`dpbook.audit.cases` — the catalogue's cases, one module per family (mechanisms, broken controls, findings).

Everything a chapter or a test needs is importable from ``dpbook.audit`` directly.
"""
from .catalogue import (KINDS, AuditCase, audit_case_names, audit_cases, audit_table, broken_mechanisms,
                        epsilon_lb_ceiling, public_mechanisms, run_audits, stored_audits)
from .engine import AuditResult, audit, epsilon_lower_bound
from . import cases  # noqa: E402,F401  (registers the catalogue's cases)

__all__: list[str] = []    # re-exports only: each function is documented and swept in its own module
