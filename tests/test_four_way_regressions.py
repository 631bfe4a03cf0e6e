"""Regressions for what the four-way calls of tests/four_way_more.py found, each checked
against jax at test time (tests/mirror_harness.check: eager and traced, x64 off and on)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
import weaktrace.scipy.special as wss
from tests.mirror_harness import check

_INPUTS = {
    "weak int": lambda: jnp.full((3,), 2),
    "weak float": lambda: jnp.full((3,), 1.5),
    "weak complex": lambda: jnp.full((3,), 1j),
    "int8": lambda: jnp.asarray(np.array([3, -1, 2], np.int8)),
    "bfloat16": lambda: jnp.asarray(np.array([0.5, -2, 1], jnp.bfloat16)),
    "complex64": lambda: jnp.asarray(np.array([1 + 2j, -1j, 3], np.complex64)),
}


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", sorted(_INPUTS))
def test_sort_complex_is_strong_as_jax(name, x64):
    """jnp.sort_complex converts with lax.convert_element_type: strong even for a weak
    input (weaktrace kept the weak flag)."""
    with jax.enable_x64(x64):
        check(wnp.sort_complex, jnp.sort_complex, _INPUTS[name]())


_LINALG = ["roots", "linalg.eigvals", "linalg.svd", "linalg.inv", "linalg.qr", "linalg.eigh",
           "linalg.cholesky", "linalg.det", "linalg.solve"]  # fmt: skip


def _get(mod, path):
    for part in path.split("."):
        mod = getattr(mod, part)
    return mod


def _raised(fn):
    try:
        fn()
    except Exception as err:  # the outcome is what we compare
        return err
    return None


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", _LINALG)
def test_half_precision_linear_algebra_raises_as_jax(name, dtype):
    """jax's CPU kernels do not implement float16/bfloat16 linear algebra and raise
    NotImplementedError; weaktrace raised a TypeError-only OperandTypeError (the class a
    user's `except` names must catch ours too), eagerly and traced."""
    m = jnp.asarray(np.array([[2.0, 0.5], [0.5, 1.0]]), dtype)
    arg = m[0] if name == "roots" else m
    args = (arg, m) if name == "linalg.solve" else (arg,)
    want = _raised(lambda: jax.jit(_get(jnp, name))(*args))
    if want is None:  # jax computes it (det of a small matrix): so must we
        check(_get(wnp, name), _get(jnp, name), *args)
        return
    builtin = next(c for c in type(want).__mro__ if c.__module__ == "builtins")
    fn = _get(wnp, name)
    for got in (_raised(lambda: fn(*args)), _raised(lambda: wt.trace(fn)(*args))):
        assert isinstance(got, builtin), (got, want)


def test_i0_of_complex_raises_jaxs_builtin_class():
    """jnp.i0 refuses complex input with a ValueError; weaktrace raised a TypeError."""
    z = jnp.asarray(np.array([1 + 1j], np.complex64))
    want = _raised(lambda: jnp.i0(z))
    builtin = next(c for c in type(want).__mro__ if c.__module__ == "builtins")
    for got in (_raised(lambda: wnp.i0(z)), _raised(lambda: wt.trace(wnp.i0)(z))):
        assert isinstance(got, builtin), (got, want)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize(
    "shift", [1.7, -0.5, True, np.float32(3.2), np.array([1.5, -2.7], np.float32)], ids=repr
)
def test_roll_takes_any_numeric_shift_as_jax(shift, x64):
    """jnp.roll converts its shift to int32 (floats truncate, as NumPy's roll); weaktrace
    refused float shifts. Found by the gradient scan over two-argument functions."""
    axis = 0 if np.ndim(shift) == 0 else (0, 1)
    with jax.enable_x64(x64):
        x = jnp.arange(12).reshape(3, 4)
        check(lambda v, s: wnp.roll(v, s, axis), lambda v, s: jnp.roll(v, s, axis), x, shift)


_OWENS = {
    "bool": np.array([True, False, True]),
    "int8": np.array([1, -2, 3], np.int8),
    "float16": np.array([0.5, -1, 2], np.float16),
    "bfloat16": np.array([0.5, -1, 2], jnp.bfloat16),
    "float32": np.array([0.5, -1, 2], np.float32),
    "python float": 0.75,
}


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("kind", sorted(_OWENS))
@pytest.mark.ci_sample(2)
def test_owens_t_dtype_is_jaxs(kind, x64):
    """owens_t crashed (an AttributeError in its dtype rule) for every input; jax's result
    is at least the canonical float64 (its quadrature weights are float64 numpy values)."""
    with jax.enable_x64(x64):
        h = _OWENS[kind]
        check(wss.owens_t, jss.owens_t, h, np.array([0.25, 1.0, 3.0], np.float32))


def _matrices(n):
    rng = np.random.default_rng(n)
    return {
        "zero": np.zeros((n, n), np.float32),
        "identity": np.eye(n, dtype=np.float32),
        "singular": np.ones((n, n), np.float32),
        "random": rng.standard_normal((n, n)).astype(np.float32),
        "complex": (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(
            np.complex64
        ),
    }


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("fn", ["det", "slogdet", "pinv"])
@pytest.mark.ci_sample(2)
def test_det_slogdet_pinv_derivatives_are_jaxs(fn, n):
    """det/slogdet/pinv differentiate by jax's custom JVPs: weaktrace's compositions gave NaN
    at singular matrices (jax: 0 at the zero matrix) and a zero sign tangent for a complex
    1x1 matrix (found by up7 from jax's linalg_test)."""
    for label, m in _matrices(n).items():
        t = np.ones_like(m)

        def ours(a):
            return getattr(wnp.linalg, fn)(a)

        def theirs(a):
            return getattr(jnp.linalg, fn)(a)

        got = jax.jvp(wt.trace(ours), (m,), (t,))
        want = jax.jvp(theirs, (m,), (t,))
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-5,
                                       equal_nan=True, err_msg=f"{fn} {label} {n}")  # fmt: skip


def _message(fn):
    err = _raised(fn)
    return type(err), str(err)


def test_control_flow_refusals_use_jaxs_words():
    """jax's lax_control_flow_test (testCallableErrors, test_platform_dependent_no_default)
    matches these words; associative_scan checked its elements before its function."""
    import re

    import weaktrace.lax as wlax

    for call, words in [
        (lambda m: m.associative_scan(42, 0), r"lax.associative_scan: fn argument should be"),
        (lambda m: m.platform_dependent(1, tpu=lambda x: x),
         r"translation rule .* not found for platform cpu"),
    ]:  # fmt: skip
        want_cls, want = _message(lambda c=call: c(jax.lax))
        got_cls, got = _message(lambda c=call: c(wlax))
        assert re.search(words, want), want  # jax still says so
        assert issubclass(got_cls, want_cls) and re.search(words, got), (got_cls, got)
