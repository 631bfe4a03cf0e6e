"""Eager calls compiled whole, as jax.numpy compiles its own functions.

A mirror called eagerly by the user (outside any trace) is traced once per argument
signature into a program, and the program runs under one ``jax.jit``: the call then
costs one jax.jit dispatch (jax's C++ fast path) instead of one eager jax operation per
primitive. Array arguments and Python/numpy scalars are dynamic (a Python scalar stays
weakly typed, as jax.jit passes it); parameters that fix a shape or a type (axis,
dtype, keepdims, shape, ...) are static, named in `STATIC_NAMES`.

Anything this cannot compile falls back to evaluating primitive by primitive (the
result is the same; only the speed differs): a call whose trace needs a concrete value
(``arange(n)``), a static argument jax cannot hash, a non-array argument in a dynamic
position, a function that returns something other than arrays (``ndim``). A function
that falls back repeatedly is not tried again.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace.core.operands import abstractify
from weaktrace.core.program import make_program
from weaktrace.core.trace import Tracer
from weaktrace.dtypes.policies import DEFAULT
from weaktrace.ir.values import program_evaluator

# Parameters that fix a shape, a type or a code path: static under jax.jit.
STATIC_NAMES = frozenset(
    {
        "axis",
        "axes",
        "funclist",  # jnp.piecewise's functions (a tuple): compiled once per functions
        "axis1",
        "axis2",
        "axisa",
        "axisb",
        "axisc",
        "dtype",
        "keepdims",
        "shape",
        "newshape",
        "new_shape",
        "order",
        "mode",
        "side",
        "kind",
        "stable",
        "descending",
        "size",
        "method",
        "norm",
        "ord",
        "ddof",
        "correction",
        "n",
        "s",
        "k",
        "M",
        "N",
        "num",
        "endpoint",
        "retstep",
        "indices_or_sections",
        "pad_width",
        "reps",
        "source",
        "destination",
        "start",
        "precision",
        "preferred_element_type",
        "out_sharding",
        "sharding",
        "device",
        "copy",
        "inplace",
        "ndmin",
        "promote_integers",
        "return_index",
        "return_inverse",
        "return_counts",
        "return_sign",
        "equal_nan",
        "assume_unique",
        "invert",
        "total_repeat_length",
        "unique_indices",
        "indices_are_sorted",
        "decimals",
        "subscripts",
        "optimize",
        "_use_xeinsum",
        "full_matrices",
        "compute_uv",
        "hermitian",
        "UPLO",
        "symmetrize_input",
        "lower",
        "approximate",
        "num_classes",
        "return_weak_type_flag",
        "count",
        "bitorder",
        "little",
        "offset",
        "wrap",
        "ndim",
        "sparse",
        "indexing",
        "weak_type",
        "is_causal",
        "local_window_size",
        "implementation",
        "return_residual",
        "subset_by_index",
        # jax.scipy.linalg's static arguments ("scale" is not: jax.random's is an array)
        "trans",
        "unit_diagonal",
        "overwrite_a",
        "overwrite_b",
        "overwrite_c",
        "check_finite",
        "assume_a",
        "permute_l",
        "eigvals_only",
        "turbo",
        "eigvals",
        "type",
        "lwork",
        "pivoting",
        "conjugate",
        "output",
        "upper_triangular",
        "max_squarings",
        "compute_expm",
        "calc_q",
        "select",
        "select_range",
        "blocksize",
        "disp",
        "func",
        "debug",
        "lapack_driver",
        "full",
    }
)
# Mirrors whose result depends on whether a scalar argument is concrete, as jax.numpy's
# (``power(x, 2)`` is integer_pow, and ``power(int_array, -1)`` an error, only for a
# concrete exponent): an eager call with a Python or numpy integer argument runs
# uncompiled, where that scalar stays concrete.
CONCRETE_SCALARS = frozenset({"power", "pow"})
ENABLED = True  # compile eager calls (False: primitive by primitive, for comparisons)
GIVE_UP = 3  # fallbacks after which a function is no longer compiled


def concrete_int(x: Any) -> int | None:
    """A concrete integer exponent, as jnp.power's ``core.is_concrete`` and
    ``operator.index`` find it: a Python/numpy integer or bool, or a 0-d integer numpy or
    (concrete) jax array (under jax.jit the latter is a tracer: `EagerJit` then runs the
    call uncompiled)."""
    if x.__class__ is Tracer or isinstance(x, float | complex | jax.core.Tracer):
        return None
    if isinstance(x, np.ndarray | jax.Array) and (x.ndim or x.dtype.kind not in "iu"):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


class _NotArrays(Exception):
    """The function returned something other than weaktrace values."""


class EagerJit:
    """One mirror function's compiled eager path."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.failures = 0
        self.scalar_sensitive = getattr(fn, "__name__", "") in CONCRETE_SCALARS
        self.fast = not self.scalar_sensitive  # callers may call `jitted` directly
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        statics = [
            n
            for n, p in params.items()
            if n in STATIC_NAMES and p.kind is not inspect.Parameter.POSITIONAL_ONLY
        ]
        run = self._run

        def compiled(*args: Any, **kwargs: Any) -> Any:
            return run(*args, **kwargs)

        compiled.__signature__ = inspect.signature(fn) if params else None  # type: ignore[attr-defined]
        compiled.__name__ = getattr(fn, "__name__", "mirror")
        try:
            # inline: called under another jax trace (jax.jit, make_jaxpr of user code),
            # the primitives go straight into the caller's jaxpr, as jax.numpy's own
            # functions (``jit(inline=True)``) do, not as a nested ``jit`` equation.
            self.jitted = jax.jit(compiled, static_argnames=statics or None, inline=True)
        except (TypeError, ValueError):  # a signature jax.jit cannot take: stay eager
            self.failures, self.fast = GIVE_UP, False

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        """What jax.jit traces: weaktrace's trace of `fn`, evaluated with lax."""
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
        dynamic = [i for i, v in enumerate(leaves) if isinstance(v, jax.core.Tracer)]
        pol = DEFAULT.resolve()
        avals = [abstractify(leaves[i], pol) for i in dynamic]

        def flat(*tracers: Any) -> Any:
            full = list(leaves)
            for i, t in zip(dynamic, tracers, strict=True):
                full[i] = t
            a, k = jax.tree_util.tree_unflatten(tree, full)
            out = self.fn(*a, **k)
            if any(o.__class__ is not Tracer for o in jax.tree_util.tree_leaves(out)):
                raise _NotArrays
            return out

        made = make_program(flat, avals, pol)
        outs = program_evaluator[0](pol)(made.program, [leaves[i] for i in dynamic])
        return jax.tree_util.tree_unflatten(made.out_tree, outs)

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The compiled result, or `FALLBACK` when this call must run eagerly."""
        if self.scalar_sensitive and any(
            concrete_int(a) is not None for a in (*args, *kwargs.values())
        ):
            return FALLBACK
        try:
            return self.jitted(*args, **kwargs) if kwargs else self.jitted(*args)
        except Exception as err:  # the eager path gives the same error, or runs what jit cannot
            self.failed(err)
        return FALLBACK

    def failed(self, err: Exception) -> None:
        """Count a call jax.jit could not run (the caller then evaluates eagerly)."""
        self.failures = GIVE_UP if isinstance(err, _NotArrays) else self.failures + 1
        if self.failures >= GIVE_UP:
            self.fast = False


FALLBACK = object()
