"""One meaning per name: the public API uses the notation table's letters only for what docs/notation.md says.

The table gives ``k`` (only the order of a k-way marginal), ``s`` (only the sparsity of a query), ``t`` (a round
index), ``T`` (only a number of rounds or updates), ``K`` (only the smoothness order), ``ℓ`` / ``ell`` (only
SparseProject's projection dimension), ``τ`` / ``threshold`` (only a threshold) and ``ρ`` / ``rho`` (only the
zCDP parameter) one meaning each.  A parameter
(or a public attribute: a dataclass field, a property) with one of these names is allowed only in the functions
and classes listed for it in :data:`ALLOWED`, next to what the name means there.  A new use of a guarded name
fails :func:`test_guarded_names_mean_what_the_table_says`: either it means what the table says (add it to
:data:`ALLOWED`) or it gets the name of what it is (``m`` queries, ``hits`` successes, ``j`` ⊥ answers,
``degree``, ``z`` an evaluation point, ...).

:data:`PENDING_RENAMES` lists the uses still to be renamed (work in progress on other parts of the package); the
test fails as soon as one of them is renamed, so the list empties as the renames land and cannot go stale.

Discovery is that of tests/test_api_coverage.py: every function and class in a dpbook module's ``__all__``
defined in that module, here with the public methods and properties of each class.
"""
import importlib
import inspect
import pkgutil

import dpbook

#: The guarded names and the one meaning each has (docs/notation.md).
MEANING = {
    "k": "the order of a k-way marginal (or conjunction)",
    "s": "the sparsity of a query (its number of nonzero entries)",
    "t": "a round index",
    "T": "a number of rounds or updates of an iterative mechanism",
    "K": "the smoothness order of smooth queries",
    "ell": "SparseProject's projection dimension ℓ",
    "threshold": "a threshold τ (sparse vector, an update test)",
    "rho": "the parameter ρ of zero-concentrated DP (a budget, or one step's)",
}

_SP = "dpbook.sparse_project."
_TSP = "dpbook.theory.sparse_project."
_SM = "dpbook.smooth."
_TSM = "dpbook.theory.smooth."

#: Where each guarded name may appear (qualified name of the function, class or method).
ALLOWED = {
    "k": {                                                    # the marginal order
        "dpbook.queries.conjunctions", "dpbook.queries.k_way_marginals",
    },
    "s": {                                                    # the sparsity of a query
        _SP + "SparseProjectParameters", _SP + "SparseProjectRelease", _SP + "random_sparse_queries",
        _SP + "sparse_project", _SP + "sparse_project_gaussian", _SP + "sparse_project_parameters",
        _SP + "sparse_workload", _TSP + "practical_error_bound", _TSP + "sparse_project_ell",
        _TSP + "sparse_project_ell_seed_form", _TSP + "thm2_alpha",
        "dpbook.broken.sparse_project.sparse_project_no_composition",
        "dpbook.explorers.sparse_project.explore_sparse_project",
    },
    "t": {                                                    # the round whose query an analyst picks / has seen
        "dpbook.idc.streams.AdversarialStream.pick", "dpbook.idc.streams.FixedStream.pick",
        "dpbook.idc.streams.StreamView", "dpbook.privacy_loss.BorderlineStream.pick",
    },
    "T": {                                                    # MWEM's rounds
        "dpbook.mwem.mwem", "dpbook.mwem.mwem_practical", "dpbook.mwem.advanced_step_epsilon",
        "dpbook.theory.mwem.hlm_error_bound", "dpbook.theory.mwem.hlm_failure_probability",
        "dpbook.theory.mwem.mwem_advanced_step_epsilon", "dpbook.theory.mwem.mwem_epsilon_split",
        "dpbook.theory.mwem.mwem_measurement_scale", "dpbook.broken.mwem.mwem_argmax_select",
        "dpbook.broken.mwem.mwem_marginal_cell_sensitivity", "dpbook.broken.mwem.mwem_no_round_split",
        "dpbook.broken.mwem.mwem_wrong_sign", "dpbook.broken.workloads.mwem_practical_distinct_cells",
        "dpbook.broken.workloads.mwem_practical_unit_range", "dpbook.comparisons.mwem.regime_errors",
        "dpbook.comparisons.mwem.workload_growth", "dpbook.comparisons.mwem.practical_ablation",
        "dpbook.comparisons.projection.compare_mechanisms", "dpbook.explorers.mwem.explore_mwem",
        "dpbook.idc.streams.AdversarialStream", "dpbook.privacy_loss.BorderlineStream",   # an online stream's rounds
        "dpbook.privacy_loss.PrivacyLossReplay.azuma", "dpbook.theory.idc.azuma_bound",  # IDC-Claim4.7's rounds
    },
    "K": {                                                    # the smoothness order
        _SM + "SmoothQuery", _SM + "SmoothSummary", _SM + "cosine_query", _SM + "gaussian_bump",
        _SM + "jackson_coefficients", _SM + "kink_query", _SM + "make_query", _SM + "polynomial_query",
        _SM + "sigmoid_query", _SM + "smooth_norm", _SM + "smooth_query", _SM + "smooth_summary",
        _SM + "summary_inputs", _TSM + "accuracy_exponent", _TSM + "coefficient_bound",
        _TSM + "dct_query_time_exponent", _TSM + "jackson_multipliers", _TSM + "query_time_exponent",
        _TSM + "summary_degree", _TSM + "summary_time_exponent", _TSM + "table1_exponents",
        _TSM + "worst_case_accuracy", "dpbook.broken.smooth.smooth_summary_paper_scale",
        "dpbook.comparisons.smooth.RegimeSweep", "dpbook.comparisons.smooth.compare_per_query",
        "dpbook.comparisons.smooth.regime_sweep", "dpbook.explorers.smooth.explore_smooth",
    },
    "ell": {                                                  # SparseProject's projection dimension
        _SP + "SparseProjectParameters", _SP + "SparseProjectRelease", _SP + "sparse_project",
        _SP + "sparse_project_gaussian", _SP + "sparse_project_parameters", _TSP + "hash_independence",
        _TSP + "jl_error_bound", _TSP + "jl_variance", _TSP + "memory_words", _TSP + "practical_error_bound",
        _TSP + "sparse_project_epsilon", "dpbook.hashing.PolynomialSignHash", "dpbook.hashing.PolynomialSignHash.sample",
        "dpbook.hashing.field_bits",
        "dpbook.broken.sparse_project.sparse_project_no_composition",
        "dpbook.comparisons.sparse_project.per_query_comparison",
        "dpbook.explorers.sparse_project.explore_sparse_project",
        "dpbook.explorers.sparse_project.figure_column_products",
    },
    "threshold": {                                            # sparse vector's τ, an update test's threshold
        "dpbook.sparse_vector.SparseVectorRelease", "dpbook.sparse_vector.above_threshold",
        "dpbook.sparse_vector.above_threshold_stream", "dpbook.sparse_vector.numeric_sparse",
        "dpbook.sparse_vector.numeric_sparse_stream", "dpbook.sparse_vector.sparse_vector",
        "dpbook.sparse_vector.sparse_vector_stream", "dpbook.sparse_vector.threshold_alpha",
        "dpbook.broken.sparse_vector.above_threshold_no_halt",
        "dpbook.broken.sparse_vector.above_threshold_no_query_noise",
        "dpbook.broken.sparse_vector.above_threshold_outputs_value",
        "dpbook.broken.sparse_vector.above_threshold_renoise_threshold",
        "dpbook.broken.sparse_vector.sparse_vector_unscaled_noise",
        "dpbook.broken.workloads.above_threshold_stored_entries", "dpbook.explorers.sparse_vector.explore_sparse",
        "dpbook.idc.online_mw_dr", "dpbook.broken.idc.online_mw_dr_exact_values",
        "dpbook.theory.idc.alg1_error_bound", "dpbook.theory.idc.dr_alg6_conditions",
        "dpbook.theory.idc.dr_alg6_error_bound",
        "dpbook.privacy_loss.PrivacyLossReplay", "dpbook.privacy_loss.classify_rounds",
        "dpbook.privacy_loss.round_log_likelihood", "dpbook.privacy_loss.round_loss",
        "dpbook.privacy_loss.round_moments", "dpbook.privacy_loss.update_probability",
    },
    "rho": {                                                  # zCDP's ρ
        "dpbook.release.Spend", "dpbook.release.zcdp_epsilon",
    },
}

#: Uses of a guarded name for something else, still to be renamed (``qualified name: parameter``).  Empty it
#: as the renames land: the test fails for an entry that is already renamed.
PENDING_RENAMES: dict[str, str] = {}


# --- discovery --------------------------------------------------------------------------------------------------

def public_api():
    """{qualified name: function or class} for every function and class in a dpbook module's ``__all__``."""
    found = {}
    for info in pkgutil.walk_packages(dpbook.__path__, "dpbook."):
        module = importlib.import_module(info.name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == info.name:
                found[f"{info.name}.{attr}"] = obj
    return found


def _parameters(obj):
    try:
        return [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]
    except (TypeError, ValueError):            # a builtin or an extension class without a signature
        return []


def names_in_use(api):
    """{qualified name: names} — each callable's parameters, and for a class also its public properties; each
    public method of a class is an entry of its own (``module.Class.method``)."""
    out = {}
    for qualname, obj in api.items():
        names = set(_parameters(obj))
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(value, property):
                    names.add(attr)
                elif inspect.isfunction(value) or isinstance(value, (staticmethod, classmethod)):
                    out[f"{qualname}.{attr}"] = set(_parameters(getattr(obj, attr)))
        out[qualname] = names
    return out


def violations(in_use, allowed=ALLOWED, pending=PENDING_RENAMES):
    """(qualified name, guarded name) for every guarded name used where it is neither allowed nor pending."""
    return sorted((q, name) for q, names in in_use.items() for name in names
                  if name in allowed and q not in allowed[name] and pending.get(q) != name)


def stale_allowed(in_use, allowed=ALLOWED):
    """(qualified name, name) listed in ``allowed`` but no longer used there."""
    return sorted((q, name) for name, qs in allowed.items() for q in qs if name not in in_use.get(q, ()))


def stale_pending(in_use, pending=PENDING_RENAMES):
    """(qualified name, name) listed in ``pending`` but already renamed (or gone)."""
    return sorted((q, name) for q, name in pending.items() if name not in in_use.get(q, ()))


IN_USE = names_in_use(public_api())


# --- the tests --------------------------------------------------------------------------------------------------

def test_guarded_names_mean_what_the_table_says():
    bad = violations(IN_USE)
    assert not bad, ("a guarded name used for something else (docs/notation.md): give it the name of what it is, or "
                     "list it in ALLOWED if it means " + "; ".join(f"{n}: {MEANING[n]}" for n in MEANING) + "\n"
                     + "\n".join(f"  {q}({name})" for q, name in bad))


def test_the_allow_list_is_not_stale():
    stale = stale_allowed(IN_USE)
    assert not stale, "ALLOWED lists uses that no longer exist: delete them\n" + "\n".join(
        f"  {q}({name})" for q, name in stale)


def test_pending_renames_are_still_pending():
    done = stale_pending(IN_USE)
    assert not done, "already renamed: delete these entries from PENDING_RENAMES\n" + "\n".join(
        f"  {q}: {name}" for q, name in done)


def test_no_entry_is_both_allowed_and_pending():
    both = sorted((q, name) for q, name in PENDING_RENAMES.items() if q in ALLOWED.get(name, ()))
    assert not both, both


def test_every_guarded_name_has_a_meaning_and_an_allow_list():
    assert set(ALLOWED) == set(MEANING)
    assert all(name in MEANING for name in PENDING_RENAMES.values())


# --- the checks can fail ----------------------------------------------------------------------------------------

def _count_successes(k, trials):                     # k used for a count of successes: not a marginal order
    return k / trials


def _marginal(k, d):                                  # k a marginal order
    return k <= d


class _Run:
    def __init__(self, threshold, s):                 # s a slack here: not a sparsity
        self.threshold, self.s = threshold, s

    @property
    def t(self):                                      # an attribute t that is a degree, not a round index
        return 3

    def tail(self, t):                                # t an evaluation point
        return t


def test_a_wrongly_used_name_is_caught():
    fake = {"dpbook.fake.count": _count_successes, "dpbook.fake.marginal": _marginal, "dpbook.fake.Run": _Run}
    in_use = names_in_use(fake)
    allowed = {**ALLOWED, "k": ALLOWED["k"] | {"dpbook.fake.marginal"},
               "threshold": ALLOWED["threshold"] | {"dpbook.fake.Run"}}
    assert violations(in_use, allowed, {}) == [("dpbook.fake.Run", "s"), ("dpbook.fake.Run", "t"),
                                               ("dpbook.fake.Run.tail", "t"), ("dpbook.fake.count", "k")]
    # a pending entry silences exactly its (function, name) pair
    assert ("dpbook.fake.count", "k") not in violations(in_use, allowed, {"dpbook.fake.count": "k"})
    assert ("dpbook.fake.Run", "s") in violations(in_use, allowed, {"dpbook.fake.Run": "t"})
    # once renamed, a pending entry is reported (so PENDING_RENAMES cannot go stale), and so is a stale allow-list
    assert stale_pending(in_use, {"dpbook.fake.marginal": "s", "dpbook.fake.count": "k"}) == [
        ("dpbook.fake.marginal", "s")]
    assert stale_allowed(in_use, {"k": {"dpbook.fake.count", "dpbook.fake.gone"}}) == [("dpbook.fake.gone", "k")]


def test_the_sweep_sees_the_whole_api():
    assert len(IN_USE) > 500
    assert "dpbook.sparse_vector.SparseVectorRelease" in IN_USE and "m" in IN_USE["dpbook.sparse_vector.SparseVectorRelease"]
    assert "t" in IN_USE["dpbook.idc.streams.FixedStream.pick"]            # public methods are swept
    assert "answers" in IN_USE["dpbook.sparse_vector.SparseVectorRelease"]      # dataclass fields are swept
