"""A lighter differential check for generated sweeps (no compilation).

`agree(wt_fn, jax_fn, *args)` compares weaktrace's trace (its out avals: structure,
shapes, dtypes, weak flags) with ``jax.make_jaxpr`` of jax_fn, and, with
``values=True``, the values of both compiled. Where jax raises, weaktrace must raise
an error of the same builtin family. Without values it costs milliseconds (no
compilation), so sweeps check types on many cases and values on a sample;
`mirror_harness.check` (eager and compiled, both sides) runs on fewer still.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

import weaktrace as wt

FAMILIES = (IndexError, OverflowError, TypeError, ValueError, NotImplementedError)
LOW_PRECISION = {"bfloat16", "float16"}


def run(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except Exception as err:  # the outcome is what we compare
            return err


def family(err: BaseException) -> type[BaseException] | None:
    return next((f for f in FAMILIES if isinstance(err, f)), None)


def same_values(got: Any, ref: Any, where: str) -> None:
    g, r = np.asarray(got), np.asarray(ref)
    assert g.shape == r.shape, f"{where}: value shape {g.shape} != {r.shape}"
    if r.dtype.kind in "biu" and g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, r, err_msg=where)
        return
    rtol = 1e-2 if r.dtype.name in LOW_PRECISION else 1e-5
    np.testing.assert_allclose(g.astype(np.complex128), r.astype(np.complex128), rtol=rtol,
                               atol=rtol, equal_nan=True, err_msg=where)  # fmt: skip


def agree(
    wt_fn: Callable[..., Any],
    jax_fn: Callable[..., Any],
    *args: Any,
    values: bool = True,
    context: str = "",
    policy: Any = None,
) -> None:
    """Assert weaktrace's trace (and its eager run) agrees with jax's."""
    x64 = bool(jax.config.read("jax_enable_x64"))
    where = f"{context} (x64={x64})"
    theirs = run(lambda: jax.make_jaxpr(jax_fn, return_shape=True)(*args))
    traced = wt.trace(wt_fn) if policy is None else wt.trace(wt_fn, policy=policy)
    ours = run(lambda: traced.trace(*args))
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), f"{where}: jax raised {theirs!r}, weaktrace did not"
        fam = family(theirs)
        assert fam is not None and isinstance(ours, fam), (
            f"{where}: jax raised {theirs!r}, weaktrace raised {ours!r}"
        )
        return
    if isinstance(ours, Exception):
        # jax may trace what its lowering then rejects (argmax of complex); weaktrace
        # raising earlier is right when running jax's function raises the same family.
        ran = run(lambda: jax.jit(jax_fn)(*args))
        fam = family(ran) if isinstance(ran, Exception) else None
        assert fam is not None and isinstance(ours, fam), (
            f"{where}: jax gave a result, weaktrace raised {ours!r}"
        )
        return
    ref_shapes = jax.tree_util.tree_leaves(theirs[1])
    avals, tree = jax.tree_util.tree_flatten(ours.out_avals)
    assert tree == jax.tree_util.tree_structure(theirs[1]), f"{where}: structure {tree}"
    for a, r in zip(avals, ref_shapes, strict=True):
        assert (a.shape, a.dtype, a.weak_type) == (r.shape, r.dtype, r.weak_type), (
            f"{where}: weaktrace {a}, jax {r.dtype}{list(r.shape)} weak={r.weak_type}"
        )
    if not values:
        return
    ref = run(lambda: jax.jit(jax_fn)(*args))
    assert not isinstance(ref, Exception), f"{where}: jax.jit raised {ref!r} when run"
    got = run(lambda: traced(*args))
    assert not isinstance(got, Exception), f"{where}: weaktrace's compiled run raised {got!r}"
    for g, r in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(ref), strict=True):
        same_values(g, r, f"{where}: values")
