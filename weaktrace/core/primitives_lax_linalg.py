"""The rest of ``jax.lax.linalg`` as one primitive, ``lax_linalg[fn, params]``: the
shape, dtype and weak-flag rule of each function is here (`RULES`), its lowering the
jax.lax.linalg function of that name. Operands take float32, float64, complex64 or
complex128, as XLA's CPU kernels do (half precision fails when jax lowers it; here
it is refused while tracing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from weaktrace.core.primitives import _real_dtype
from weaktrace.core.primitives_linalg import _matrix
from weaktrace.dtypes import registry
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, Primitive, abstract_eval_rules

_make = AbstractValue.make
_D = registry.by_name
_INT32, _BOOL = _D("int32"), _D("bool")
Rule = Callable[..., list[AbstractValue]]
RULES: dict[str, Rule] = {}


def _rule(fn: Rule) -> Rule:
    RULES[fn.__name__[1:]] = fn
    return fn


def _same(name: str, *xs: AbstractValue) -> None:
    if len({x[1] for x in xs}) != 1:
        raise OperandTypeError(f"{name} needs operands of one dtype, got {[str(x) for x in xs]}")


def _weak(*xs: AbstractValue) -> bool:
    """jax's rule for n-ary operations: weak only if every operand is."""
    return all(x[2] for x in xs)


@_rule
def _hessenberg(a: AbstractValue) -> list[AbstractValue]:
    n, _ = _matrix("hessenberg", a, square=True)
    return [a, _make((*a.shape[:-2], max(n - 1, 0)), a[1], a[2])]


@_rule
def _householder_product(a: AbstractValue, taus: AbstractValue) -> list[AbstractValue]:
    m, n = _matrix("householder_product", a)
    _same("householder_product", a, taus)
    if m < n or taus.shape[:-1] != a.shape[:-2] or taus.shape[-1:] > (n,):
        raise ShapeError(f"householder_product: shapes {a.shape} and {taus.shape} do not fit")
    return [_make(a.shape, a[1], _weak(a, taus))]


@_rule
def _ormqr(a: AbstractValue, taus: AbstractValue, c: AbstractValue, *, left: bool,
           transpose: bool) -> list[AbstractValue]:  # fmt: skip
    _matrix("ormqr", a)
    _matrix("ormqr", c)
    _same("ormqr", a, taus, c)
    return [_make(c.shape, c[1], _weak(a, taus, c))]


@_rule
def _schur(x: AbstractValue, *, compute_schur_vectors: bool,
           sort_eig_vals: bool) -> list[AbstractValue]:  # fmt: skip
    _matrix("schur", x, square=True)
    return [x, x] if compute_schur_vectors else [x]


@_rule
def _symmetric_product(a: AbstractValue, c: AbstractValue, *, alpha: float, beta: float,
                       symmetrize_output: bool) -> list[AbstractValue]:  # fmt: skip
    _matrix("symmetric_product", a, half=True)  # jax computes it with dots: any float
    n, _ = _matrix("symmetric_product", c, square=True, half=True)
    _real_only("symmetric_product", a, c)
    _same("symmetric_product", a, c)
    if a.shape[-2] != n or a.shape[:-2] != c.shape[:-2]:
        raise ShapeError(f"symmetric_product: shapes {a.shape} and {c.shape} do not fit")
    return [_make(c.shape, c[1], _weak(a, c))]


@_rule
def _tridiagonal(a: AbstractValue, *, lower: bool) -> list[AbstractValue]:
    n, _ = _matrix("tridiagonal", a, square=True)
    batch, real = a.shape[:-2], _real_dtype(a[1])
    m = max(n - 1, 0)
    return [a, _make((*batch, n), real, a[2]), _make((*batch, m), real, a[2]),
            _make((*batch, m), a[1], a[2])]  # fmt: skip


@_rule
def _tridiagonal_solve(dl: AbstractValue, d: AbstractValue, du: AbstractValue, b: AbstractValue,
                       *, perturb_singular: bool) -> list[AbstractValue]:  # fmt: skip
    m, _ = _matrix("tridiagonal_solve", b)
    _same("tridiagonal_solve", dl, d, du, b)
    if any(v.shape != (*b.shape[:-2], m) for v in (dl, d, du)):
        raise ShapeError(
            f"tridiagonal_solve: diagonals {dl.shape}, {d.shape}, {du.shape} must be "
            f"{(*b.shape[:-2], m)} for b of shape {b.shape}"
        )
    return [_make(b.shape, b[1], _weak(dl, d, du, b))]


def _real_only(name: str, *xs: AbstractValue) -> None:
    """jax.lax.linalg's functions written with jnp operations take real floats only."""
    for x in xs:
        if x[1].kind == "c":
            raise OperandTypeError(
                f"{name} does not accept dtype {x[1]}: jax.lax.linalg.{name} takes real "
                "floating matrices."
            )


@_rule
def _cholesky_update(r: AbstractValue, w: AbstractValue) -> list[AbstractValue]:
    n, _ = _matrix("cholesky_update", r, square=True, half=True)  # computed with jnp ops
    _real_only("cholesky_update", r, w)
    _same("cholesky_update", r, w)
    if r.ndim != 2 or w.shape != (n,):
        raise ShapeError(f"cholesky_update: shapes {r.shape} and {w.shape} do not fit")
    return [_make(r.shape, r[1], _weak(r, w))]


@_rule
def _lu_pivots_to_permutation(pivots: AbstractValue, *,
                              permutation_size: int) -> list[AbstractValue]:  # fmt: skip
    if pivots[1] is not _INT32 or pivots.ndim < 1:
        raise OperandTypeError(f"lu_pivots_to_permutation needs int32 pivots, got {pivots}")
    if pivots.shape[-1] > permutation_size:
        raise ShapeError(
            f"Output permutation size {permutation_size} has to exceed the trailing dimension "
            f"of the pivots. Got pivots size {pivots.shape[-1]}"
        )
    return [_make((*pivots.shape[:-1], permutation_size), _INT32, False)]


@_rule
def _qdwh(x: AbstractValue, *, is_hermitian: bool, max_iterations: Any, eps: Any,
          _int: Any) -> list[AbstractValue]:  # fmt: skip
    m, n = _matrix("qdwh", x)
    if x.ndim != 2 or m < n:
        raise ShapeError(f"qdwh needs one matrix with rows >= columns, got {x.shape}")
    return [_make(x.shape, x[1], False), _make((n, n), x[1], False), _make((), _int, True),
            _make((), _BOOL, False)]  # fmt: skip


def _lax_linalg(*xs: AbstractValue, fn: str, params: tuple[tuple[str, Any], ...]) -> list[Any]:
    return RULES[fn](*xs, **dict(params))


lax_linalg_p = Primitive("lax_linalg", multiple_results=True)
abstract_eval_rules[lax_linalg_p] = _lax_linalg
