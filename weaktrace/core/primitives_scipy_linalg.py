"""``jax.scipy.linalg``'s intricate functions as one primitive,
``scipy_linalg[fn, names, params]``.

The mirror (weaktrace/scipy/linalg.py) validates the static arguments and promotes the
operands under the active policy; it binds this primitive with operands that already
have the dtype jax computes in. The rule of each function below gives the shapes,
dtypes and weak flags of its results (jax's: ``expm`` of a weak matrix is strong,
``schur``'s real form keeps the weak flag ...); the lowering
(weaktrace/lowering/rules_scipy_linalg.py) calls ``jax.scipy.linalg.<fn>`` with the
operands (positionally, or by the keyword in `names`) and the static keyword arguments
in `params`, so values and custom derivatives are jax's own. Params whose names start
with "_" are for the rule only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from weaktrace.core.primitives import _real_dtype
from weaktrace.core.primitives_linalg import _COMPLEX, _matrix
from weaktrace.dtypes import registry
from weaktrace.errors import ShapeError
from weaktrace.ir.values import AbstractValue, Primitive, abstract_eval_rules

_make = AbstractValue.make
_D = registry.by_name
_INT32 = _D("int32")
Av = AbstractValue
Rule = Callable[..., list[AbstractValue]]
RULES: dict[str, Rule] = {}


def _rule(fn: Rule) -> Rule:
    RULES[fn.__name__[1:]] = fn
    return fn


def _weak(*xs: Av) -> bool:
    return all(x[2] for x in xs)


def _batch(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(f"{name}: batch shapes {list(shapes)} do not broadcast") from None


@_rule
def _expm(a: Av, *, upper_triangular: bool, max_squarings: int) -> list[Av]:
    _matrix("expm", a, square=True)
    return [_make(a.shape, a[1], False)]


@_rule
def _expm_frechet(a: Av, e: Av, *, method: Any, compute_expm: bool) -> list[Av]:
    out = _make(a.shape, a[1], False)
    return [out, out] if compute_expm else [out]


@_rule
def _sqrtm(a: Av, *, blocksize: int) -> list[Av]:
    _matrix("sqrtm", a, square=True)
    return [_make(a.shape, _COMPLEX.get(a[1], a[1]), False)]


@_rule
def _schur(a: Av, *, output: str) -> list[Av]:
    if output == "complex":
        # jax casts first: complex stays, 64-bit kinds go to complex128, the rest (bool,
        # ints, float16, bfloat16, float32) to complex64, then decomposes.
        wide = a[1].kind == "c" or a[1].name in ("float64", "int64", "uint64")
        name = a[1].name if a[1].kind == "c" else ("complex128" if wide else "complex64")
        out = _make(a.shape, _D(name), False)
        _matrix("schur", out, square=True)
        return [out, out]
    _matrix("schur", a, square=True)
    return [a, a]


@_rule
def _rsf2csf(t: Av, z: Av, *, check_finite: bool) -> list[Av]:
    batch = _batch("rsf2csf", t.shape[:-2], z.shape[:-2])
    return [_make((*batch, *t.shape[-2:]), t[1], _weak(t, z))] * 2


@_rule
def _polar(a: Av, *rest: Av, side: str, method: str, _m: int, _n: int) -> list[Av]:
    _matrix("polar", a)
    k = _n if side == "right" else _m
    return [_make(a.shape, a[1], False), _make((*a.shape[:-2], k, k), a[1], False)]


@_rule
def _hessenberg(a: Av, *, calc_q: bool, overwrite_a: bool, check_finite: bool) -> list[Av]:
    if a.shape and a.shape[-1] == 0:
        return [a, a] if calc_q else [a]  # jax: zeros_like(a), any dtype, no square check
    _matrix("hessenberg", a, square=True)
    return [a, _make(a.shape, a[1], False)] if calc_q else [a]


@_rule
def _lu(a: Av, *, permute_l: bool, overwrite_a: bool, check_finite: bool) -> list[Av]:
    m, n = _matrix("lu", a)
    k, batch = min(m, n), a.shape[:-2]
    lower = _make((*batch, m, k), a[1], False)
    upper = _make((*batch, k, n), a[1], a[2])
    if permute_l:
        return [lower, upper]
    return [_make((*batch, m, m), _real_dtype(a[1]), False), lower, upper]


def _vector_solve(name: str, a: Av, b: Av, vector: bool) -> tuple[int, ...]:
    """The result shape of jax's vectorized (n,n),(n)->(n) or (n,n),(n,k)->(n,k)."""
    n = a.shape[-1]
    core = b.shape[-1:] if vector else b.shape[-2:]
    if len(core) < (1 if vector else 2) or core[0] != n:
        raise ShapeError(f"{name}: shapes {a.shape} and {b.shape} do not fit")
    return (*_batch(name, a.shape[:-2], b.shape[: b.ndim - len(core)]), *core)


@_rule
def _solve_triangular(a: Av, b: Av, *, trans: Any, lower: bool, unit_diagonal: bool,
                      _vector: bool) -> list[Av]:  # fmt: skip
    _matrix("solve_triangular", a, square=True, half=True)
    return [_make(_vector_solve("solve_triangular", a, b, _vector), b[1], _weak(a, b))]


@_rule
def _cho_solve(c: Av, b: Av, *, _lower: bool, _vector: bool) -> list[Av]:
    _matrix("cho_solve", c, square=True, half=True)
    return [_make(_vector_solve("cho_solve", c, b, _vector), b[1], _weak(c, b))]


@_rule
def _lu_solve(lu: Av, piv: Av, b: Av, *, trans: int, _vector: bool) -> list[Av]:
    _matrix("lu_solve", lu, square=True)
    return [_make(_vector_solve("lu_solve", lu, b, _vector), b[1], _weak(lu, b))]


@_rule
def _solve(a: Av, b: Av, *, lower: bool, assume_a: str, _vector: bool) -> list[Av]:
    _matrix("solve", a, square=True)
    return [_make(_vector_solve("solve", a, b, _vector), b[1], _weak(a, b))]


@_rule
def _qr(a: Av, *, mode: str, pivoting: bool) -> list[Av]:
    m, n = _matrix("qr", a)
    k, batch, w = min(m, n), a.shape[:-2], a[2]
    rows = k if mode == "economic" else m  # "full" and "r": jax's full_matrices
    q = _make((*batch, m, rows), a[1], w)
    r = _make((*batch, rows, n), a[1], w)
    out = [r] if mode == "r" else [q, r]
    return [*out, _make((*batch, n), _INT32, w)] if pivoting else out


@_rule
def _qr_multiply(a: Av, c: Av, *, mode: str, pivoting: bool, conjugate: bool,
                 _shape: tuple[int, ...]) -> list[Av]:  # fmt: skip
    m, n = _matrix("qr_multiply", a)
    k, w = min(m, n), _weak(a, c)
    batch = _batch("qr_multiply", a.shape[:-2], c.shape[:-2] if c.ndim >= 2 else ())
    out = [_make(_shape, a[1], w), _make((*batch, k, n), a[1], w)]
    return [*out, _make((*batch, n), _INT32, w)] if pivoting else out


@_rule
def _solve_sylvester(a: Av, b: Av, c: Av, *rest: Av, method: str) -> list[Av]:
    batch = _batch("solve_sylvester", a.shape[:-2], b.shape[:-2], c.shape[:-2])
    return [_make((*batch, *c.shape[-2:]), c[1], False)]


@_rule
def _eigh_tridiagonal(d: Av, e: Av, *rest: Av, eigvals_only: bool, select: str,
                      select_range: Any) -> list[Av]:  # fmt: skip
    n = d.shape[0]
    k = n if select == "a" or n <= 1 else select_range[1] - select_range[0] + 1
    w = _make((k,), _real_dtype(d[1]), False)
    return [w] if eigvals_only else [w, _make((n, k), d[1], False)]


@_rule
def _funm(a: Av, *, func: Any, disp: bool) -> list[Av]:
    _matrix("funm", a, square=True)
    f = _make(a.shape, _COMPLEX.get(a[1], a[1]), False)
    return [f] if disp else [f, _make((), _real_dtype(a[1]), False)]


# -- special matrices: the mirror computes shape, dtype and weak flag (`_out`) ----------


def _given(*xs: Av, _out: tuple[Any, ...], **params: Any) -> list[Av]:
    return [_make(*_out)]


for _name in ("block_diag", "toeplitz", "hankel", "circulant", "leslie", "companion", "fiedler",
              "fiedler_companion", "convolution_matrix", "hilbert", "invhilbert", "pascal",
              "invpascal", "helmert", "hadamard", "dft"):  # fmt: skip
    RULES[_name] = _given


def _scipy_linalg(*xs: Av, fn: str, names: tuple[str | None, ...],
                  params: tuple[tuple[str, Any], ...]) -> list[Av]:  # fmt: skip
    return RULES[fn](*xs, **dict(params))


scipy_linalg_p = Primitive("scipy_linalg", multiple_results=True)
abstract_eval_rules[scipy_linalg_p] = _scipy_linalg
