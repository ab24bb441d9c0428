"""Noise carries its meaning (issue: privacy for every call the API accepts, violations 2 and 3).

Each regression test audits a call that today's API used to accept while releasing far more than it claimed,
and shows it is now either accounted for or refused.  Audits: Clopper–Pearson at α = 1e-6, fixed seeds.
"""
import numpy as np
import pytest

from dpbook.audit import audit
from dpbook.broken.noise import broken_noise
from dpbook.gaussian import composed_laplace_mechanism, gaussian_mechanism
from dpbook.histogram import noisy_histogram
from dpbook.idc import online_idc_sv
from dpbook.laplace import laplace_mechanism
from dpbook.mwem import mwem
from dpbook.noise import (DISCRETE_LAPLACE, GRID_LAPLACE, LAPLACE, NOISES, Noise, as_noise, discrete_gaussian,
                          discrete_gaussian_delta, discrete_laplace, discrete_laplace_exact, gaussian_noise, grid_laplace,
                          laplace_noise)
from dpbook.queries import MatrixWorkload, k_way_marginals
from dpbook.sparse_vector import above_threshold, sparse_vector

EPS = 1.0
# One query with a fractional entry: q(x) = 0.3·x_0 + x_1.  x = (1, 0) and x' = (1, 1) are add/remove
# neighbours (the count moves by 0.3 <= Δ1 = 1), and the true counts 0.3 and 0.6 sit at different places between
# integers: a lattice sampler added without rounding keeps that place in its output.
Q_FRAC = np.array([[0.3, 1.0]])
X, X_PRIME = np.array([1, 0]), np.array([2, 0])


def _first(fn, x, **kw):
    return lambda trials, rng: fn(x, Q_FRAC, epsilon=EPS, n=1, trials=trials, rng=rng, **kw).answers[:, 0]


def _position_events():
    """Where on the integer lattice the output is (the attack), and the usual tail event."""
    return {"output ≡ 0.3 (mod 1)": lambda y: np.isclose(np.mod(y, 1.0), 0.3, atol=1e-9),
            "y <= 0.3": lambda y: y <= 0.3}


@pytest.mark.parametrize("sampler", [discrete_laplace, discrete_laplace_exact, grid_laplace],
                         ids=lambda s: s.__name__)
def test_lattice_laplace_on_fractional_counts_is_rounded_and_paid_for(sampler):
    """Violation 2: was ε_lb 11.1 at a claimed 1 (the fractional part revealed the count)."""
    trials = 20_000 if sampler is discrete_laplace_exact else 200_000
    res = audit(_first(laplace_mechanism, X, sampler=sampler), _first(laplace_mechanism, X_PRIME, sampler=sampler),
                _position_events(), trials=trials, rng=1)
    assert res.epsilon_lb <= EPS
    rel = laplace_mechanism(X, Q_FRAC, epsilon=EPS, n=1, sampler=sampler, rng=0)
    assert rel.trace["sensitivity"] > 1.0                                  # the rounding was paid for
    assert np.all(np.mod(rel.answers, rel.trace["lattice_step"]) == 0)   # outputs on the lattice only


def test_the_position_attack_catches_unrounded_lattice_noise():
    """The broken twin of the test above: the same audit on ``count + discrete_laplace`` (no rounding)."""
    def unrounded(x):
        count = float((Q_FRAC @ x)[0])
        return lambda trials, rng: count + discrete_laplace(1 / EPS, trials, rng)
    res = audit(unrounded(X), unrounded(X_PRIME), _position_events(), trials=20_000, rng=1)
    assert res.epsilon_lb > 5 * EPS


def test_integral_workloads_pay_nothing_for_lattice_noise():
    W = k_way_marginals(3, 2)
    x = np.arange(8)
    for sampler in (discrete_laplace, grid_laplace):
        rel = laplace_mechanism(x, W, epsilon=EPS, n=int(x.sum()), sampler=sampler, rng=0)
        assert rel.trace["sensitivity"] == W.l1_sensitivity()


def test_composed_laplace_pays_for_rounding_per_query():
    rel = composed_laplace_mechanism(X, Q_FRAC, epsilon=EPS, n=1, sampler=discrete_laplace, rng=0)
    assert rel.noise_scale == pytest.approx(2.0)                          # (1 + step)/ε_q, ε_q = ε
    assert sum(s.epsilon for s in rel.ledger) == pytest.approx(EPS)
    res = audit(_first(composed_laplace_mechanism, X, sampler=discrete_laplace),
                _first(composed_laplace_mechanism, X_PRIME, sampler=discrete_laplace), _position_events(),
                trials=200_000, rng=2)
    assert res.epsilon_lb <= EPS


@pytest.mark.parametrize("fn, kwargs", [
    (above_threshold, dict(threshold=0.5)), (sparse_vector, dict(threshold=0.5, c=2)),
])
@pytest.mark.parametrize("sampler", [discrete_laplace, grid_laplace], ids=lambda s: s.__name__)
def test_lattice_noise_in_normalised_streams_is_refused(fn, kwargs, sampler):
    """Violation 2, second half: was ε_lb 9.5–11.1 (noise far below one lattice step returned 0)."""
    W = k_way_marginals(3, 1)
    with pytest.raises(ValueError, match="sampler .*lattice"):
        fn(np.arange(8), W, epsilon=EPS, sampler=sampler, rng=0, **kwargs)


def test_lattice_noise_in_online_idc_and_mwem_is_refused():
    from dpbook.idc import FixedStream, MultiplicativeWeightsIDC
    x, W = np.arange(8), k_way_marginals(3, 1)
    with pytest.raises(ValueError, match="sampler .*lattice"):
        online_idc_sv(x, MultiplicativeWeightsIDC(8, 0.2), FixedStream(W), epsilon=EPS, delta=1e-6,
                      sampler=discrete_laplace, rng=0)
    with pytest.raises(ValueError, match="sampler .*lattice"):
        mwem(x, W, epsilon=EPS, T=2, sampler=discrete_laplace, rng=0)


@pytest.mark.parametrize("mechanism, sampler", [
    (laplace_mechanism, discrete_gaussian), (laplace_mechanism, gaussian_noise), (noisy_histogram, gaussian_noise),
    (gaussian_mechanism, laplace_noise), (gaussian_mechanism, discrete_laplace),
])
def test_a_sampler_of_another_family_is_refused(mechanism, sampler):
    """Violation 3: ``noisy_histogram`` with discrete Gaussian noise had ε_lb 2.4 at a claimed 1."""
    x = np.array([3, 4])
    kwargs = dict(epsilon=0.5, sampler=sampler, rng=0)
    if mechanism is noisy_histogram:
        call = lambda: mechanism(x, n=7, **kwargs)
    elif mechanism is gaussian_mechanism:
        call = lambda: mechanism(x, np.eye(2), delta=1e-5, n=7, **kwargs)
    else:
        call = lambda: mechanism(x, np.eye(2), n=7, **kwargs)
    with pytest.raises(ValueError, match="sampler"):
        call()


@pytest.mark.parametrize("bad", [
    lambda s, size, r: np.zeros(size),                  # exact answers under a claim of ε
    lambda s, size, r: np.full(size, np.nan),
    lambda s, size, r: np.zeros(3),
    lambda s, size, r: 0.0,
    np.zeros,
])
def test_a_bare_function_is_refused(bad):
    """Violation 3: a sampler returning zeros, NaN, the wrong shape or a non-array was accepted."""
    with pytest.raises(TypeError, match="sampler"):
        laplace_mechanism(X, Q_FRAC, epsilon=EPS, n=1, sampler=bad, rng=0)


@pytest.mark.parametrize("draw, exc, match", [
    (lambda s, size, r: np.full(size, np.nan), ValueError, "NaN"),
    (lambda s, size, r: np.zeros(3), ValueError, "shape"),
    (lambda s, size, r: 0.0, ValueError, "array"),
    (lambda s, size, r: np.zeros(size, dtype=complex), TypeError, "dtype"),
    (lambda s, size, r: np.zeros(size, dtype=bool), TypeError, "dtype"),
    (lambda s, size, r: np.zeros(size, dtype="m8[s]"), TypeError, "dtype"),     # timedelta: not a real number
    (lambda s, size, r: np.zeros(size, dtype=object), TypeError, "dtype"),
    (lambda s, size, r: np.full(size, "1"), TypeError, "dtype"),
])
def test_every_draw_is_checked_before_release(draw, exc, match):
    """A noise that got past the declaration check (a broken twin's) still has its draws checked at release."""
    noise = broken_noise("BROKEN declared", "laplace", None, draw)
    with pytest.raises(exc, match=match):
        laplace_mechanism(X, Q_FRAC, epsilon=EPS, n=1, sampler=noise, trials=4, rng=0)


def test_lattice_noise_must_return_integer_steps():
    noise = broken_noise("BROKEN declared lattice", "laplace", "integers", lambda s, size, r: np.full(size, 0.5))
    with pytest.raises(TypeError, match="integer"):
        noise.sample(1.0, 3, 0)


def test_discrete_gaussian_claim_is_its_exact_delta():
    """gaussian_mechanism with discrete Gaussian noise: one query, σ chosen so the exact δ holds."""
    rel = gaussian_mechanism(np.array([3, 4]), np.array([[0.0, 1.0]]), epsilon=0.5, delta=1e-5, n=7,
                             sampler=discrete_gaussian, rng=0)
    sigma = rel.trace["sigma_counts"]
    assert discrete_gaussian_delta(0.5, sigma, 1) <= 1e-5 < discrete_gaussian_delta(0.5, sigma / 1.01, 1)
    with pytest.raises(ValueError, match="one query"):
        gaussian_mechanism(np.array([3, 4]), np.eye(2), epsilon=0.5, delta=1e-5, n=7, sampler=discrete_gaussian)


def test_each_library_noise_is_recognised_from_its_sampler():
    for sampler, noise in [(laplace_noise, LAPLACE), (discrete_laplace, DISCRETE_LAPLACE), (grid_laplace, GRID_LAPLACE)]:
        assert as_noise(sampler) is noise and as_noise(noise) is noise
    assert set(NOISES) == {"laplace", "discrete_laplace", "discrete_laplace_exact", "grid_laplace", "gaussian",
                           "discrete_gaussian", "discrete_gaussian_exact"}
    # a Noise is a sampler with the same law as its function, seed for seed
    assert np.array_equal(GRID_LAPLACE(3.0, 5, 7), grid_laplace(3.0, 5, 7))
    assert np.array_equal(LAPLACE(3.0, 5, 7), laplace_noise(3.0, 5, 7))


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(sampler="laplace"), TypeError, "sampler"),
    (dict(sampler=3), TypeError, "sampler"),
    (dict(sampler=lambda s, z, r: z), TypeError, "sampler"),
    (dict(sampler=laplace_noise, family="cauchy"), ValueError, "gaussian|laplace"),
    (dict(sampler=gaussian_noise, family="laplace"), ValueError, "sampler"),
    (dict(sampler=discrete_laplace, lattice_ok=False), ValueError, "lattice"),
])
def test_as_noise_rejects_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        as_noise(**kwargs)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(family="cauchy"), ValueError, "family"),
    (dict(lattice="reals"), ValueError, "lattice"),
    (dict(steps=3), TypeError, "steps"),
])
def test_noise_rejects_bad_declarations(kwargs, exc, match):
    args = {**dict(name="x", family="laplace", lattice=None, steps=laplace_noise), **kwargs}
    with pytest.raises(exc, match=match):
        Noise(**args)


# --- violation 4: the status of n is part of every claim -------------------------------------------------------

def test_mechanisms_that_scale_counts_need_a_public_n_under_add_remove():
    """Was: ``laplace_mechanism`` with n read from the data, ε_lb 4.3 on add/remove neighbours;
    ``histogram_mechanism`` had no n at all (n recoverable exactly from trace and answers: ε_lb 11.1)."""
    from dpbook.histogram import histogram_mechanism
    x, Q = np.array([3, 4]), np.eye(2)
    for call in (lambda: laplace_mechanism(x, Q, epsilon=1.0),
                 lambda: gaussian_mechanism(x, Q, epsilon=0.5, delta=1e-5),
                 lambda: composed_laplace_mechanism(x, Q, epsilon=1.0),
                 lambda: histogram_mechanism(x, Q, epsilon=1.0),
                 lambda: noisy_histogram(x, epsilon=1.0)):
        with pytest.raises(ValueError, match="n .*public"):
            call()
    # replace-one: n may be read from the data, and the sensitivity is the replace-one one
    assert laplace_mechanism(x, Q, epsilon=1.0, neighbours="replace-one", rng=0).trace["sensitivity"] == 2.0
    g = gaussian_mechanism(x, Q, epsilon=0.5, delta=1e-5, neighbours="replace-one", rng=0)
    assert g.neighbours == "replace-one" and g.trace["sensitivity"] == pytest.approx(np.sqrt(2.0))
    assert histogram_mechanism(x, Q, epsilon=1.0, neighbours="replace-one", rng=0).neighbours == "replace-one"


def test_the_histograms_n_is_the_public_one():
    from dpbook.histogram import histogram_mechanism
    x, x_prime = np.array([1, 0]), np.array([1, 1])        # add/remove neighbours, one public n
    rel = histogram_mechanism(x_prime, np.eye(2), epsilon=1.0, n=5, rng=0)
    assert np.allclose(rel.answers, rel.trace["histogram"] / 5)      # nothing about ||x'||_1 = 2 leaks
    res = audit(lambda t, r: histogram_mechanism(x, np.eye(2), epsilon=EPS, n=5, trials=t, rng=r).answers[:, 1],
                lambda t, r: histogram_mechanism(x_prime, np.eye(2), epsilon=EPS, n=5, trials=t, rng=r).answers[:, 1],
                {"y <= 0": lambda y: y <= 0}, trials=400_000, rng=4)
    assert 0.9 < res.epsilon_lb <= EPS


def test_numeric_sparse_states_replace_one_when_n_comes_from_the_data():
    """Was: numeric_sparse had no n (its released values revealed ||x||_1: ε_lb 3.7 under add/remove).
    Now n read from the data makes the claim a replace-one claim; with a public n it holds under add/remove."""
    from dpbook.sparse_vector import numeric_sparse
    W = MatrixWorkload(np.array([[0.0, 1.0]]))
    x, x_prime = np.array([1, 0]), np.array([1, 1])
    assert numeric_sparse(x, W, threshold=0.5, c=1, epsilon=EPS, rng=0).neighbours == "replace-one"
    assert numeric_sparse(x, W, threshold=0.5, c=1, epsilon=EPS, n=2, rng=0).neighbours == "add/remove"

    def value(xx, **kw):
        return lambda t, r: np.nan_to_num(numeric_sparse(xx, W, threshold=0.0, c=1, epsilon=EPS, trials=t, rng=r,
                                                         **kw).values[:, 0], nan=-99.0)
    # with n = ||x||_1 the noise on the value is σ/1 under x and σ/2 under x': the far tail tells them apart
    events = {f"value > {v}": (lambda y, v=v: y > v) for v in (6.0, 9.0, 12.0, 15.0)}
    public = audit(value(x, n=2), value(x_prime, n=2), events, trials=400_000, rng=5)
    private = audit(value(x), value(x_prime), events, trials=400_000, rng=5)
    assert public.epsilon_lb <= EPS < private.epsilon_lb


def test_iterative_mechanisms_state_their_relation():
    from dpbook.idc import FixedStream, MultiplicativeWeightsIDC
    x, W = np.arange(8), k_way_marginals(3, 1)
    assert mwem(x, W, epsilon=EPS, T=2, rng=0).neighbours == "replace-one"
    assert mwem(x, W, epsilon=EPS, T=2, n=28, rng=0).neighbours == "add/remove"
    rule = MultiplicativeWeightsIDC(8, 0.2)
    assert online_idc_sv(x, rule, FixedStream(W), epsilon=0.9, delta=1e-6, rng=0).neighbours == "replace-one"
    assert online_idc_sv(x, rule, FixedStream(W), epsilon=0.9, delta=1e-6, n=28, rng=0).neighbours == "add/remove"


# --- a caller-built Noise must declare its sampler's true law ---------------------------------------------------
# Was: Noise("x", "laplace", None, discrete_laplace) was accepted by laplace_mechanism (ε_lb 11.1 at a claimed 1:
# the unrounded counts' fractional part shows through the integer noise), and a zero-noise Noise by 10 mechanisms.

def _zero(scale, size, rng):
    return np.zeros(size)


HOSTILE_STEPS = {
    "zero": _zero,
    "constant": lambda s, size, r: np.full(size, 3.0),
    "NaN": lambda s, size, r: np.full(size, np.nan),
    "wrong shape": lambda s, size, r: laplace_noise(s, 3, r),
    "half scale": lambda s, size, r: laplace_noise(s / 2, size, r),
    "double scale (conservative, but not a law the claim is computed for)": lambda s, size, r: laplace_noise(2 * s, size, r),
    "off the lattice": lambda s, size, r: discrete_laplace(s, size, r) + 0.5,
    "a wrapped book sampler": lambda s, size, r: laplace_noise(s, size, r),
}


@pytest.mark.parametrize("label", sorted(HOSTILE_STEPS))
@pytest.mark.parametrize("lattice", [None, "integers", "grid"])
def test_a_noise_of_unknown_law_is_refused_at_construction(label, lattice):
    with pytest.raises(ValueError, match="not the sampler of one of the book's noises"):
        Noise("x", "laplace", lattice, HOSTILE_STEPS[label])


@pytest.mark.parametrize("family, lattice, steps, exact", [
    ("laplace", None, discrete_laplace, False),              # integer noise declared real-valued (the finding)
    ("laplace", "grid", discrete_laplace, False),            # integer steps declared grid steps
    ("laplace", "integers", laplace_noise, False),           # real noise declared on the integers
    ("laplace", None, grid_laplace, False),                  # grid values declared real-valued
    ("gaussian", None, laplace_noise, False),                # another family
    ("laplace", None, gaussian_noise, False),
    ("gaussian", "integers", discrete_laplace, False),
    ("laplace", "integers", discrete_laplace, True),         # a floating-point sampler declared exact
    ("laplace", "integers", discrete_laplace_exact, False),  # and the reverse
])
def test_a_misdeclared_law_is_refused_at_construction(family, lattice, steps, exact):
    with pytest.raises(ValueError, match="mis-declared"):
        Noise("x", family, lattice, steps, exact)


def test_the_books_laws_can_be_declared_under_any_name_and_draw_the_same_bytes():
    for noise in NOISES.values():
        mine = Noise("my " + noise.name, noise.family, noise.lattice, noise.steps, noise.exact)
        assert as_noise(mine) is mine
        assert np.array_equal(mine.sample(3.0, 5, 7), noise.sample(3.0, 5, 7))
    assert np.array_equal(laplace_mechanism(X, Q_FRAC, epsilon=EPS, n=1, rng=3,
                                            sampler=Noise("mine", "laplace", "integers", discrete_laplace)).answers,
                          laplace_mechanism(X, Q_FRAC, epsilon=EPS, n=1, rng=3, sampler=DISCRETE_LAPLACE).answers)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(name=3), TypeError, "name"), (dict(name=""), TypeError, "name"),
    (dict(exact="yes"), TypeError, "exact"), (dict(family=["laplace"]), ValueError, "family"),
])
def test_noise_rejects_bad_fields(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Noise(**{**dict(name="x", family="laplace", lattice=None, steps=laplace_noise), **kwargs})


def _around_the_constructor(steps, family="laplace", lattice=None):
    """A Noise built without its constructor (so without its declaration check)."""
    noise = object.__new__(Noise)
    for key, value in dict(name="zero", family=family, lattice=lattice, steps=steps, exact=False).items():
        object.__setattr__(noise, key, value)
    return noise


def test_a_noise_built_around_its_constructor_or_a_subclass_is_refused_by_as_noise():
    with pytest.raises(ValueError, match="sampler is refused.*not the sampler"):
        as_noise(_around_the_constructor(_zero))
    with pytest.raises(ValueError, match="sampler is refused.*mis-declared"):
        as_noise(_around_the_constructor(discrete_laplace))
    import dataclasses
    with pytest.raises(ValueError, match="not the sampler"):
        dataclasses.replace(LAPLACE, steps=_zero)

    class Quiet(Noise):
        def sample(self, scale, size, rng=None, *, step=None):
            return np.zeros(size)
    with pytest.raises(TypeError, match="subclass"):
        as_noise(Quiet("quiet", "laplace", None, laplace_noise))


def _mechanisms_with_a_sampler():
    import inspect
    from test_api_coverage import FUNCTIONS, _valid_call
    from dpbook.audit import public_mechanisms
    calls = {}
    for qualname in public_mechanisms():
        fn = FUNCTIONS[qualname]
        if "sampler" in inspect.signature(fn).parameters:
            kwargs = _valid_call(qualname, fn)
            if kwargs is not None:
                calls[qualname] = (fn, kwargs)
    return calls


SAMPLER_MECHANISMS = _mechanisms_with_a_sampler()


@pytest.mark.parametrize("qualname", sorted(SAMPLER_MECHANISMS))
@pytest.mark.parametrize("family", ["laplace", "gaussian"])
def test_zero_noise_is_refused_by_every_mechanism(qualname, family):
    """The zero-noise Noise that 10 mechanisms accepted: refused, by name, even when built around the constructor."""
    fn, kwargs = SAMPLER_MECHANISMS[qualname]
    with pytest.raises(ValueError, match="sampler"):
        fn(**{**kwargs, "sampler": _around_the_constructor(_zero, family)})
    with pytest.raises(ValueError, match="sampler"):
        fn(**{**kwargs, "sampler": _around_the_constructor(discrete_laplace, family)})


def test_the_sweep_of_mechanisms_with_a_sampler_is_substantial():
    assert len(SAMPLER_MECHANISMS) >= 15
    assert {"dpbook.laplace.laplace_mechanism", "dpbook.histogram.noisy_histogram", "dpbook.mwem.mwem",
            "dpbook.sparse_vector.above_threshold", "dpbook.gaussian.gaussian_mechanism"} <= set(SAMPLER_MECHANISMS)


def test_the_misdeclared_noise_audit():
    """The broken twin (a mis-declared law taken on trust) is caught; the same sampler declared with its true law
    stays within its claim (the catalogue's cases at their own trial counts and seeds)."""
    import zlib
    from dpbook.audit import audit_cases
    twin, fixed = audit_cases(names=["custom_noise_misdeclared", "custom_noise_declared_integers"])
    assert twin.run(zlib.crc32(twin.name.encode())).epsilon_lb > 5 * EPS
    assert fixed.run(zlib.crc32(fixed.name.encode())).epsilon_lb <= EPS


def test_broken_noise_must_say_it_is_broken():
    for bad, exc in [("zero", ValueError), (3, ValueError)]:
        with pytest.raises(exc, match="name"):
            broken_noise(bad, "laplace", None, _zero)
    with pytest.raises(ValueError, match="family"):
        broken_noise("BROKEN x", "cauchy", None, _zero)
    with pytest.raises(TypeError, match="steps"):
        broken_noise("BROKEN x", "laplace", None, 3)
