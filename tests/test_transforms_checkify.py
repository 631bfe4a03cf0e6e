"""jax.experimental.checkify called inside a weaktrace trace (it raised
ForeignFunctionError): checkify, check, check_error and Error.throw on traced values.

Generated programs (check kind x operand dtype x x64), written once for both namespaces:
wt.trace must give jax.jit's outputs (shapes, dtypes, weak flags, values), the same
error message from each returned Error's get(), the same exception from its throw(),
and raise where jax.jit raises, with its error class."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import checkify

import weaktrace as wt
import weaktrace.numpy as wnp


def _user(n: object, a: object) -> object:
    checkify.check(n.sum(a) < 3, "sum {s} too big, first {f}", s=n.sum(a), f=a[0])
    return a * 2


def _checked(errors: object, f: Callable[..., object]) -> Callable[..., object]:
    return checkify.checkify(f, errors=errors)


def _throw_inside(n: object, x: object) -> object:
    err, out = _checked(checkify.index_checks, lambda a: a[7])(x)
    err.throw()
    return out


def _check_error_inside(n: object, x: object) -> object:
    def f(a: object) -> object:
        err, out = _checked(checkify.all_checks, lambda b: n.log(b - 0.5))(a)
        checkify.check_error(err)
        return out

    return _checked(checkify.all_checks, f)(x)


# name -> program(n, x): x is a float array of 6 elements (0.1 .. 1.3).
PROGRAMS: dict[str, Callable[[object, object], object]] = {
    "traced index in bounds": lambda n, x: _checked(checkify.index_checks, lambda a, i: a[i] * 2)(
        x, n.argmax(x) - 2
    ),
    "traced index out of bounds": lambda n, x: _checked(
        checkify.index_checks, lambda a, i: a[i] * 2
    )(x, n.argmax(x) + 3),
    "static index out of bounds": lambda n, x: _checked(checkify.index_checks, lambda a: a[7])(x),
    "static negative index out of bounds": lambda n, x: _checked(
        checkify.index_checks, lambda a: a[-9] + a[1:3]
    )(x),
    "nan": lambda n, x: _checked(checkify.nan_checks, lambda a: n.log(a - 0.5))(x),
    "no nan": lambda n, x: _checked(checkify.nan_checks, lambda a: n.log(a + 0.5))(x),
    "division by zero": lambda n, x: _checked(
        checkify.div_checks, lambda a: (a * 10).astype("int32") // (n.arange(6) - 2)
    )(x),
    "user check": lambda n, x: _checked(checkify.user_checks, lambda a: _user(n, a))(x),
    "user check passes": lambda n, x: _checked(checkify.user_checks, lambda a: _user(n, a))(x / 9),
    "all checks first error": lambda n, x: _checked(
        checkify.all_checks, lambda a: (_user(n, a), n.log(a - 0.5), a[9])
    )(x),
    "vmap inside checkify": lambda n, x: _checked(
        checkify.all_checks, jax.vmap(lambda r: _user(n, r))
    )(x.reshape(2, 3)),
    "checkify inside vmap": lambda n, x: jax.vmap(
        _checked(checkify.all_checks, lambda r: _user(n, r))
    )(x.reshape(2, 3)),
    "grad inside checkify": lambda n, x: _checked(
        checkify.all_checks, jax.grad(lambda a: n.sum(_user(n, a) * n.sqrt(a - 0.7)))
    )(x),
    "checkify inside grad": lambda n, x: jax.grad(
        lambda a: n.sum(_checked(checkify.user_checks, lambda b: _user(n, b))(a)[1])
    )(x),
    "check_error inside checkify": _check_error_inside,
    "throw inside": _throw_inside,
    "check outside checkify": lambda n, x: _user(n, x),
    "get inside": lambda n, x: _checked(checkify.all_checks, lambda a: a[7])(x)[0].get(),
}
DTYPES = ["float32", "float16", "bfloat16", "float64", "python"]
CASES = list(itertools.product(PROGRAMS, DTYPES, [False, True]))
CI_CASES = {c for c in CASES if c[1:] == ("float32", False)} | set(
    random.Random(11).sample(CASES, 3)
)


def _x(dtype: str) -> object:
    if dtype == "python":
        return 0.75
    return np.linspace(0.1, 1.3, 6).astype(jnp.dtype(dtype))


def _program(n: object, name: str, scalar: bool) -> Callable[[object], object]:
    def run(x: object) -> object:
        if scalar:
            x = x * n.linspace(0.1, 1.3, 6) / 0.75  # a Python scalar argument (weak)
        return PROGRAMS[name](n, x)

    return run


def _sig(a: object) -> tuple:
    return (tuple(np.shape(a)), np.dtype(a.dtype), bool(getattr(a, "weak_type", False)))


def _thrown(err: checkify.Error) -> tuple[type, str] | None:
    try:
        err.throw()
    except Exception as e:  # jax's JaxRuntimeError
        return type(e), str(e).split("\n")[0]
    return None


def _check(ours: Callable[..., object], theirs: Callable[..., object], x: object,
           tol: float) -> None:  # fmt: skip
    try:
        ref = jax.jit(theirs)(x)
    except Exception as err:  # jax refuses: so must we, with its error class
        with pytest.raises(type(err)) as got:
            wt.trace(ours)(x)
        assert not isinstance(got.value, wt.ForeignFunctionError)
        if not isinstance(err, jax.errors.ConcretizationTypeError):  # worded by weaktrace
            assert str(got.value).split("\n")[0] == str(err).split("\n")[0]
        return
    got = wt.trace(ours)(x)
    is_error = lambda e: isinstance(e, checkify.Error)  # noqa: E731
    ref_leaves = jax.tree_util.tree_leaves(ref, is_leaf=is_error)
    got_leaves = jax.tree_util.tree_leaves(got, is_leaf=is_error)
    assert len(got_leaves) == len(ref_leaves)
    for a, b in zip(got_leaves, ref_leaves, strict=True):
        if is_error(b):
            assert is_error(a)
            assert a.get() == b.get()
            assert _thrown(a) == _thrown(b)
            continue
        assert _sig(a) == _sig(b)
        np.testing.assert_allclose(
            np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol
        )


@pytest.mark.slow
@pytest.mark.parametrize(("name", "dtype", "x64"), CASES)
def test_checkify_inside_trace_matches_jax_jit(
    name: str, dtype: str, x64: bool, full: bool
) -> None:
    if not full and (name, dtype, x64) not in CI_CASES:
        pytest.skip("sampled in CI (--run-slow: all)")
    scalar = dtype == "python"
    tol = 3e-2 if dtype in ("float16", "bfloat16") else 1e-5
    with jax.enable_x64(x64):
        _check(_program(wnp, name, scalar), _program(jnp, name, scalar), _x(dtype), tol)


def test_checkify_of_a_traced_function_and_messages_name_the_error() -> None:
    """checkify of wt.trace(f) (jax's transformation outside, weaktrace's check inside)
    and the error of a trace of a checkified function: jax's messages."""

    def f(n: object) -> Callable[[object], object]:
        return lambda a: _user(n, a)

    x = np.linspace(0.1, 1.3, 6).astype("float32")
    want = checkify.checkify(jax.jit(f(jnp)))(x)[0].get()
    assert want is not None and "too big" in want
    assert checkify.checkify(wt.trace(f(wnp)))(x)[0].get() == want
    assert wt.trace(checkify.checkify(f(wnp)))(x)[0].get() == want
