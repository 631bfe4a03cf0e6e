"""Bugs found by running jax's own tests/random_lax_test.py and tests/nn_test.py (jax
v0.10.2) with ``jax.random`` / ``jax.nn`` / ``jax.numpy`` / ``jax.lax`` swapped for the
weaktrace mirrors. Each is checked against jax computed at test time, eagerly and
through ``weaktrace.trace`` (against ``jax.jit``)."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.numpy as wnp
import weaktrace.random as wr

# -- out_sharding ---------------------------------------------------------------------
# random_lax_test's RandomOutShardingTest passes out_sharding= to every sampler that
# takes it; weaktrace's samplers did not accept the keyword (TypeError).

SHARDED = {
    "ball": lambda m, k, s: m.ball(k, 2, shape=(1,), out_sharding=s),
    "bernoulli": lambda m, k, s: m.bernoulli(k, 0.3, shape=(1,), out_sharding=s),
    "beta": lambda m, k, s: m.beta(k, 2.0, 3.0, shape=(1,), out_sharding=s),
    "bits": lambda m, k, s: m.bits(k, (1,), out_sharding=s),
    "categorical": lambda m, k, s: m.categorical(k, np.zeros(3, np.float32), shape=(1,),
                                                 out_sharding=s),
    "cauchy": lambda m, k, s: m.cauchy(k, (1,), out_sharding=s),
    "chisquare": lambda m, k, s: m.chisquare(k, 2.0, shape=(1,), out_sharding=s),
    "dirichlet": lambda m, k, s: m.dirichlet(k, np.ones(3, np.float32), shape=(1,),
                                             out_sharding=s),
    "exponential": lambda m, k, s: m.exponential(k, (1,), out_sharding=s),
    "f": lambda m, k, s: m.f(k, 2.0, 3.0, shape=(1,), out_sharding=s),
    "gamma": lambda m, k, s: m.gamma(k, 2.0, shape=(1,), out_sharding=s),
    "generalized_normal": lambda m, k, s: m.generalized_normal(k, 0.5, (1,), out_sharding=s),
    "geometric": lambda m, k, s: m.geometric(k, 0.5, shape=(1,), out_sharding=s),
    "gumbel": lambda m, k, s: m.gumbel(k, (1,), out_sharding=s),
    "laplace": lambda m, k, s: m.laplace(k, (1,), out_sharding=s),
    "loggamma": lambda m, k, s: m.loggamma(k, 2.0, shape=(1,), out_sharding=s),
    "logistic": lambda m, k, s: m.logistic(k, (1,), out_sharding=s),
    "lognormal": lambda m, k, s: m.lognormal(k, sigma=1.0, shape=(1,), out_sharding=s),
    "maxwell": lambda m, k, s: m.maxwell(k, (1,), out_sharding=s),
    "multivariate_normal": lambda m, k, s: m.multivariate_normal(
        k, np.zeros(1, np.float32), np.eye(1, dtype=np.float32), shape=(1,), out_sharding=s),
    "normal": lambda m, k, s: m.normal(k, (1,), out_sharding=s),
    "orthogonal": lambda m, k, s: m.orthogonal(k, 3, shape=(1,), out_sharding=s),
    "pareto": lambda m, k, s: m.pareto(k, 3.0, shape=(1,), out_sharding=s),
    "permutation": lambda m, k, s: m.permutation(k, 1, out_sharding=s),
    "poisson": lambda m, k, s: m.poisson(k, 3.0, shape=(1,), out_sharding=s),
    "rademacher": lambda m, k, s: m.rademacher(k, (1,), out_sharding=s),
    "randint": lambda m, k, s: m.randint(k, (1,), 0, 10, out_sharding=s),
    "rayleigh": lambda m, k, s: m.rayleigh(k, 0.5, shape=(1,), out_sharding=s),
    "t": lambda m, k, s: m.t(k, 10.0, shape=(1,), out_sharding=s),
    "triangular": lambda m, k, s: m.triangular(k, 0.0, 0.5, 1.0, shape=(1,), out_sharding=s),
    "truncated_normal": lambda m, k, s: m.truncated_normal(k, -2.0, 2.0, shape=(1,),
                                                           out_sharding=s),
    "uniform": lambda m, k, s: m.uniform(k, (1,), out_sharding=s),
    "wald": lambda m, k, s: m.wald(k, 1.0, shape=(1,), out_sharding=s),
}  # fmt: skip


def test_every_sampler_jax_gives_out_sharding_takes_it():
    """The case table covers every jax.random function with an out_sharding keyword."""
    takes = {n for n in dir(jax.random) if not n.startswith("_") and callable(f := getattr(
        jax.random, n)) and "out_sharding" in inspect.signature(f).parameters}  # fmt: skip
    assert takes == set(SHARDED)


def _mesh_sharding() -> tuple[jax.sharding.Mesh, jax.sharding.NamedSharding]:
    mesh = jax.make_mesh((1,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    return mesh, jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("x"))


@pytest.mark.parametrize("name", sorted(SHARDED))
@pytest.mark.ci_sample(4)
def test_samplers_take_out_sharding(name):
    """Same samples, dtype and sharding as jax's, eager and traced (against jax.jit)."""
    fn = SHARDED[name]
    mesh, s = _mesh_sharding()
    key = jax.random.key(3)
    with jax.set_mesh(mesh):
        got, want = fn(wr, key, s), fn(jax.random, key, s)
        got_t = wt.trace(lambda k: fn(wr, k, s))(key)
        want_t = jax.jit(lambda k: fn(jax.random, k, s))(key)
    for g, w in ((got, want), (got_t, want_t)):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.sharding.spec == w.sharding.spec
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_out_sharding_where_jax_takes_none_is_a_type_error():
    """binomial has no out_sharding in jax: TypeError, as jax's unexpected keyword."""
    _, s = _mesh_sharding()
    key = jax.random.key(0)
    with pytest.raises(TypeError):
        jax.random.binomial(key, 3.0, 0.5, out_sharding=s)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        wr.binomial(key, 3.0, 0.5, out_sharding=s)


# -- nn.one_hot of a traced num_classes -------------------------------------------------


def _error(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


def test_one_hot_of_a_jax_traced_num_classes_raises_jaxs_concretization_error():
    """nn_test's testOneHotConcretizationError: ``jax.jit(nn.one_hot)(3, 5)`` raises
    ConcretizationTypeError naming the argument; weaktrace raised InvalidInputError
    for a jax tracer (it only recognised its own)."""
    want = _error(jax.jit(jax.nn.one_hot), 3, 5)
    for fn in (jax.jit(wnn.one_hot), wt.trace(wnn.one_hot)):
        got = _error(fn, 3, 5)
        assert isinstance(got, type(want)), (type(got), type(want))
        assert "in jax.nn.one_hot argument `num_classes`" in str(got)
    np.testing.assert_array_equal(wnn.one_hot(wnp.asarray([0, 2]), 3),
                                  jax.nn.one_hot(jnp.asarray([0, 2]), 3))  # fmt: skip


# -- raw keys after a change of jax_default_prng_impl ----------------------------------

RAW_KEY_OPS = {
    "split": lambda m, k: m.split(k, 3),
    "split shape": lambda m, k: m.split(k, (3, 2)),
    "fold_in": lambda m, k: m.fold_in(k, 7),
    "vmap split": lambda m, k: jax.vmap(m.split)(m.split(k, 3)),
    "bits": lambda m, k: m.bits(k, (4,)),
}


@pytest.mark.parametrize("name", sorted(RAW_KEY_OPS))
@pytest.mark.ci_sample(2)
def test_raw_keys_follow_the_default_prng_impl_after_it_changes(name):
    """random_lax_test's UnsafeRBGPRNGTest (run after RBGPRNGTest) split raw unsafe_rbg
    keys as rbg keys: the eager path reused the program compiled under the previous
    default implementation (both keys are uint32[4]), silently giving other keys."""
    op = RAW_KEY_OPS[name]
    old = jax.config.jax_default_prng_impl
    try:
        for impl in ("rbg", "unsafe_rbg", "threefry2x32", "rbg"):
            jax.config.update("jax_default_prng_impl", impl)
            key = jax.random.PRNGKey(73, impl=impl)
            want = op(jax.random, key)
            np.testing.assert_array_equal(op(wr, key), want, err_msg=f"{impl} eager")
            if name == "vmap split":
                continue  # jax.vmap takes no weaktrace tracer inside a trace
            traced = wt.trace(lambda k, op=op: op(wr, k))(key)
            np.testing.assert_array_equal(traced, jax.jit(lambda k, op=op: op(jax.random, k))(key),
                                          err_msg=f"{impl} traced")  # fmt: skip
            assert traced.dtype == want.dtype and traced.shape == want.shape
    finally:
        jax.config.update("jax_default_prng_impl", old)


# -- shape arguments and permutation's refusals -----------------------------------------

KEY_SHAPED = {
    "normal": lambda m, k, s: m.normal(k, s),
    "uniform": lambda m, k, s: m.uniform(k, s),
    "bits": lambda m, k, s: m.bits(k, s),
    "gamma": lambda m, k, s: m.gamma(k, 2.0, shape=s),
    "bernoulli": lambda m, k, s: m.bernoulli(k, 0.5, s),
    "randint": lambda m, k, s: m.randint(k, s, 0, 4),
    "orthogonal": lambda m, k, s: m.orthogonal(k, 2, s),
    "weibull_min": lambda m, k, s: m.weibull_min(k, 1.0, 1.0, s),
    "multinomial": lambda m, k, s: m.multinomial(k, 3.0, np.ones(3, np.float32) / 3, shape=s),
    "choice": lambda m, k, s: m.choice(k, 5, s),
}
SHAPES = [3, True, np.int64(3), np.array(3), np.array([2, 3]), [2, 1], (2.5,), "ab"]


def _outcome(fn):
    try:
        r = fn()
    except Exception as err:  # the class is compared: what jax raises
        return ("error", isinstance(err, TypeError), str(err).split(",")[0])
    return ("ok", r.shape, r.dtype, np.asarray(r).tobytes())


@pytest.mark.parametrize("name", sorted(KEY_SHAPED))
@pytest.mark.ci_sample(3)
def test_shape_arguments_are_what_jax_random_takes(name):
    """jax.random reads a shape with canonicalize_shape: a Python int is one dimension
    (weaktrace refused ``normal(key, 3)``), and a refusal is a TypeError in jax's words
    (random_lax_test's testStaticShapeErrors matches 'Shapes must be 1D')."""
    fn = KEY_SHAPED[name]
    key = jax.random.PRNGKey(0)
    for s in SHAPES:
        want = _outcome(lambda s=s: fn(jax.random, key, s))
        got = _outcome(lambda s=s: fn(wr, key, s))
        if want[0] == "error":  # (multinomial's IndexError for np.int64(3) is jax's accident)
            assert got[0] == "error" and got[1] >= want[1], (s, got, want)
            if want[2].startswith("Shapes must be"):
                assert got[2] == want[2], (s, got, want)
        else:
            assert got == want, s
        if want[0] == "ok":
            traced = wt.trace(lambda k, s=s: fn(wr, k, s))(key)
            np.testing.assert_array_equal(traced, jax.jit(lambda k, s=s: fn(jax.random, k, s))(key))


def test_a_jit_traced_shape_is_refused_in_jaxs_words():
    want = _error(jax.jit(lambda n: jax.random.normal(jax.random.PRNGKey(0), (n, 2))), 3)
    got = _error(jax.jit(lambda n: wr.normal(jax.random.PRNGKey(0), (n, 2))), 3)
    assert isinstance(got, TypeError) and isinstance(want, TypeError)
    assert str(got).startswith("Shapes must be 1D sequences of concrete values of integer type")


@pytest.mark.parametrize("axis", [-3, -2, -1, 0, 1, 3])
def test_permutation_of_an_int_checks_the_axis(axis):
    """random_lax_test's testPermutationErrors: ``permutation(key, 10, axis=3)`` is a
    ValueError in jax (the axis of arange(10)); weaktrace ignored the axis."""
    key = jax.random.PRNGKey(1)
    want = _outcome(lambda: jax.random.permutation(key, 10, axis=axis))
    got = _outcome(lambda: wr.permutation(key, 10, axis=axis))
    assert got[:2] == want[:2]
    if want[0] == "error":
        with pytest.raises(ValueError):
            wr.permutation(key, 10, axis=axis)
        with pytest.raises(ValueError):
            wt.trace(lambda k: wr.permutation(k, 10, axis=axis))(key)
    else:
        traced = wt.trace(lambda k: wr.permutation(k, 10, axis=axis))(key)
        np.testing.assert_array_equal(traced, jax.jit(lambda k: jax.random.permutation(
            k, 10, axis=axis))(key))  # fmt: skip


@pytest.mark.parametrize("name", ["permutation", "choice"])
def test_a_jit_traced_int_population_is_a_concretization_error(name):
    """``jax.jit(random.permutation)(key, 10)`` raises ConcretizationTypeError; weaktrace
    raised TracerArrayConversionError (np.asarray of the jax tracer)."""
    key = jax.random.PRNGKey(0)
    want = _error(jax.jit(getattr(jax.random, name)), key, 10)
    got = _error(jax.jit(getattr(wr, name)), key, 10)
    assert isinstance(got, jax.errors.ConcretizationTypeError), type(got)
    assert isinstance(want, jax.errors.ConcretizationTypeError)
    traced = _error(wt.trace(getattr(wr, name)), key, 10)
    assert isinstance(traced, jax.errors.ConcretizationTypeError), type(traced)
