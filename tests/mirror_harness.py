"""A differential harness for mirror functions (weaktrace.numpy, .lax, .nn, ...).

`check(wt_fn, jax_fn, *args)` runs a program four ways: weaktrace eagerly, weaktrace
traced and compiled, jax eagerly and under jax.jit; it asserts that all four agree on
pytree structure, shapes, dtypes, weak flags and values, and that where jax raises,
weaktrace raises an error of the same builtin family. Call it inside
``jax.enable_x64(...)`` to cover both modes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

import weaktrace as wt

FAMILIES = (IndexError, OverflowError, TypeError, ValueError, NotImplementedError)


def _run(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception as err:  # the outcome is what we compare
            return err


def _family(err: BaseException) -> type[BaseException] | None:
    return next((f for f in FAMILIES if isinstance(err, f)), None)


def _leaves(out: Any) -> tuple[list[Any], Any]:
    return jax.tree_util.tree_flatten(out)


def _weak(x: Any) -> bool:
    return bool(getattr(x, "weak_type", False))


def _close(a: Any, b: Any, rtol: float, atol: float, context: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        np.testing.assert_array_equal(a, b, err_msg=context)
    else:
        np.testing.assert_allclose(
            a.astype(np.complex128), b.astype(np.complex128), rtol=rtol, atol=atol,
            equal_nan=True, err_msg=context,
        )  # fmt: skip


def _agrees(a: Any, b: Any, rtol: float, atol: float) -> bool:
    try:
        _close(a, b, rtol, atol, "")
    except AssertionError:
        return False
    return True


def check(
    wt_fn: Callable[..., Any],
    jax_fn: Callable[..., Any],
    *args: Any,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    values: bool = True,
    context: str = "",
) -> None:
    """Assert that weaktrace (eager and traced) agrees with jax (eager and jit)."""
    x64 = bool(jax.config.read("jax_enable_x64"))
    where = f"{context} (x64={x64}, args={[getattr(a, 'dtype', type(a).__name__) for a in args]})"
    # Eagerly, users hold jax arrays (numpy arrays would bring numpy's own operators).
    eager_args = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    jax_eager = _run(lambda: jax_fn(*eager_args))
    jax_jit = _run(lambda: jax.jit(jax_fn)(*args))
    if isinstance(jax_eager, jax.errors.JaxRuntimeError) and not isinstance(jax_jit, Exception):
        # jax's eager dispatch ran an executable cached under the other x64 mode (jax's own
        # bug, seen with owens_t's matmul when x64 is switched in one process): jit stands
        jax_eager = jax_jit
    wt_eager = _run(lambda: wt_fn(*eager_args))
    traced = wt.trace(wt_fn)
    wt_avals = _run(lambda: traced.trace(*args).out_avals)
    wt_jit = _run(lambda: traced(*args))
    if isinstance(jax_jit, Exception):
        for name, ours in (("eager", wt_eager), ("traced", wt_avals)):
            assert isinstance(ours, Exception), (
                f"{where}: jax.jit raised {jax_jit!r}, {name} did not"
            )
            assert (_family(ours) is not None and _family(ours) == _family(jax_jit)) or isinstance(
                ours, wt.WeaktraceError
            ), f"{where}: jax raised {jax_jit!r}, {name} raised {ours!r}"
        return
    for name, ours in (("eager", wt_eager), ("traced", wt_avals), ("compiled", wt_jit)):
        assert not isinstance(ours, Exception), (
            f"{where}: jax gave a result, {name} raised {ours!r}"
        )
    assert not isinstance(jax_eager, Exception), f"{where}: jax eager raised {jax_eager!r}"
    ref, tree = _leaves(jax_jit)
    ref_avals = jax.make_jaxpr(jax_fn)(*args).out_avals
    for name, got, want in (("eager", wt_eager, jax_eager), ("compiled", wt_jit, jax_jit)):
        leaves, got_tree = _leaves(got)
        assert got_tree == tree, f"{where}: {name} structure {got_tree} != jax {tree}"
        for g, r, w in zip(leaves, ref, _leaves(want)[0], strict=True):
            assert isinstance(g, jax.Array) or type(g) is type(w), (
                f"{where}: {name} returned {type(g).__name__}, jax {type(w).__name__}"
            )
            if not isinstance(g, jax.Array):
                continue  # a value jax passes through untouched (eager control flow)
            assert (g.shape, g.dtype) == (r.shape, r.dtype), (
                f"{where}: {name} gave {g.dtype}{list(g.shape)}, jax {r.dtype}{list(r.shape)}"
            )
            assert _weak(g) == _weak(r), f"{where}: {name} weak={_weak(g)}, jax {_weak(r)}"
            if values:
                try:
                    _close(g, r, rtol, atol, f"{where}: {name} values")
                except AssertionError:
                    # jax's own eager and jit answers may differ by a rounding at a
                    # knife edge (a histogram bin edge at 7e-9 eagerly, 0 under jit):
                    # an eager result may then be either of jax's.
                    if name != "eager" or _agrees(w, r, rtol, atol):
                        raise
                    _close(g, w, rtol, atol, f"{where}: {name} values (jax eager)")
    avals, aval_tree = _leaves(wt_avals)
    assert aval_tree == tree, f"{where}: traced structure {aval_tree} != jax {tree}"
    for a, r in zip(avals, ref_avals, strict=True):
        assert (a.shape, a.dtype, a.weak_type) == (r.shape, r.dtype, r.weak_type), (
            f"{where}: traced {a}, jax {r.str_short()} weak={r.weak_type}"
        )
