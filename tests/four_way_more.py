"""More four-way calls (tests/test_eager_traced.py runs them): the functions that were
once pending, each on a spread of inputs (INPUTS' names). What is never called four ways
is in data/four_way_excluded.txt, with its reason."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

_F = [("jax_f32",), ("jax_i8",), ("jax_weak_f",), ("jax_bf16",)]
_F2 = [("jax_f32", "np_f64"), ("jax_i8", "jax_u16"), ("jax_weak_f", "py_int"),
       ("jax_bf16", "jax_f16")]  # fmt: skip
_INT2 = [("jax_i8", "jax_u16"), ("np_i32", "py_int"), ("jax_weak_i", "jax_i8")]
_VEC = [("jax_u16",), ("jax_bf16",), ("np_f64",), ("jax_weak_i",)]
_VEC2 = [("jax_u16", "np_f64"), ("jax_bf16", "jax_weak_i"), ("np_f64", "jax_u16")]
_SQ = [("jax_f32",), ("jax_i8",), ("np_i32",), ("jax_bool",)]


def _idx(xnp: Any, x: Any) -> Any:
    return xnp.asarray(x).astype(jnp.int32) % 3


MORE: list[tuple[str, Callable[..., Any], list[tuple[str, ...]]]] = [
    ("acosh", lambda xnp, x: xnp.acosh(x + 2), _F),
    ("arccosh", lambda xnp, x: xnp.arccosh(x + 2), _F),
    ("atanh", lambda xnp, x: xnp.atanh(x / 9), _F),
    ("arctanh", lambda xnp, x: xnp.arctanh(x / 9), _F),
    ("allclose", lambda xnp, x, y: xnp.allclose(x, y), _F2),
    ("argpartition", lambda xnp, x: xnp.argpartition(x, 1), _F),
    ("partition", lambda xnp, x: xnp.partition(x, 1), _F),
    ("argwhere", lambda xnp, x: xnp.argwhere(x, size=4), _F),
    ("flatnonzero", lambda xnp, x: xnp.flatnonzero(x, size=3, fill_value=-1), _F),
    ("nonzero", lambda xnp, x: xnp.nonzero(x, size=2), _F),
    ("average", lambda xnp, x: xnp.average(x, axis=0), _F),
    ("average", lambda xnp, x, w: xnp.average(x, weights=w, returned=True), _VEC2),
    ("bincount", lambda xnp, x: xnp.bincount(xnp.abs(xnp.asarray(x)).astype(jnp.int32),
                                             length=8), [("jax_u16",), ("jax_i8",)]),
    ("bitwise_count", lambda xnp, x: xnp.bitwise_count(x), [("jax_i8",), ("jax_u16",),
                                                             ("np_i32",), ("jax_bool",)]),
    ("bitwise_invert", lambda xnp, x: xnp.bitwise_invert(x), [("jax_i8",), ("jax_bool",),
                                                               ("jax_weak_i",)]),
    ("bitwise_left_shift", lambda xnp, x, y: xnp.bitwise_left_shift(x, y), _INT2),
    ("bitwise_right_shift", lambda xnp, x, y: xnp.bitwise_right_shift(x, y), _INT2),
    ("gcd", lambda xnp, x, y: xnp.gcd(x, y), _INT2),
    ("lcm", lambda xnp, x, y: xnp.lcm(x, y), _INT2),
    ("fmod", lambda xnp, x, y: xnp.fmod(x, 3), _F2),
    ("divmod", lambda xnp, x, y: xnp.divmod(x, 2), _F2),
    ("logaddexp2", lambda xnp, x, y: xnp.logaddexp2(x, y), _F2),
    ("ldexp", lambda xnp, x: xnp.ldexp(x, 3), _F),
    ("frexp", lambda xnp, x: xnp.frexp(x), _F),
    ("modf", lambda xnp, x: xnp.modf(x), _F),
    ("convolve", lambda xnp, x, y: xnp.convolve(x, y), _VEC2),
    ("correlate", lambda xnp, x, y: xnp.correlate(x, y, mode="full"), _VEC2),
    ("corrcoef", lambda xnp, x: xnp.corrcoef(x), [("jax_f32",), ("np_i32",)]),
    ("cov", lambda xnp, x: xnp.cov(x), [("jax_f32",), ("np_i32",), ("jax_weak_f",)]),
    ("cross", lambda xnp, x, y: xnp.cross(x, y), [("jax_u16", "np_f64"),
                                                  ("jax_bf16", "jax_weak_i")]),
    ("cumulative_prod", lambda xnp, x: xnp.cumulative_prod(x, axis=1), _SQ),
    ("diff", lambda xnp, x: xnp.diff(x, axis=1), _SQ),
    ("diff", lambda xnp, x, y: xnp.diff(x, prepend=y), [("jax_u16", "py_int"),
                                                        ("np_f64", "jax_bf16")]),
    ("digitize", lambda xnp, x: xnp.digitize(x, jnp.asarray([-1.0, 0.5, 2.0])), _F),
    ("searchsorted", lambda xnp, x: xnp.searchsorted(jnp.asarray([-1, 0, 2]), x), _F),
    ("einsum", lambda xnp, x, y: xnp.einsum("i,i->", x, y), _VEC2),
    ("einsum", lambda xnp, x: xnp.einsum("ij->j", x), _SQ),
    ("tensordot", lambda xnp, x, y: xnp.tensordot(x, y, 1), _VEC2),
    ("vecdot", lambda xnp, x, y: xnp.vecdot(x, y), _VEC2),
    ("matvec", lambda xnp, x, y: xnp.matvec(xnp.ones((2, 3), xnp.asarray(x).dtype), y),
     _VEC2),
    ("vecmat", lambda xnp, x, y: xnp.vecmat(x, xnp.ones((3, 2), xnp.asarray(y).dtype)),
     _VEC2),
    ("trace", lambda xnp, x: xnp.trace(x), _SQ),
    ("tril", lambda xnp, x: xnp.tril(x), _SQ),
    ("triu", lambda xnp, x: xnp.triu(x, 1), _SQ),
    ("pad", lambda xnp, x: xnp.pad(x, 1), _SQ),
    ("pad", lambda xnp, x: xnp.pad(x, (1, 2), mode="reflect"), _VEC),
    ("pad", lambda xnp, x, v: xnp.pad(x, 1, constant_values=v), [("jax_u16", "py_float"),
                                                                  ("jax_bf16", "py_int")]),
    ("gradient", lambda xnp, x: xnp.gradient(x), _VEC),
    ("trapezoid", lambda xnp, x: xnp.trapezoid(x), _VEC),
    ("unwrap", lambda xnp, x: xnp.unwrap(x * 3), _VEC),
    ("histogram", lambda xnp, x: xnp.histogram(x, bins=3), _VEC),
    ("histogram_bin_edges", lambda xnp, x: xnp.histogram_bin_edges(x, bins=4), _VEC),
    ("histogram2d", lambda xnp, x, y: xnp.histogram2d(x, y, bins=2), _VEC2),
    ("histogramdd", lambda xnp, x: xnp.histogramdd(xnp.stack([x, x], -1), bins=2), _VEC),
    ("interp", lambda xnp, x: xnp.interp(x, jnp.asarray([0.0, 1.0]), jnp.asarray([3, 4])),
     _F),
    ("lexsort", lambda xnp, x, y: xnp.lexsort((x, y)), _VEC2),
    ("sort_complex", lambda xnp, x: xnp.sort_complex(x), [*_VEC, ("jax_c64",)]),
    ("nanargmax", lambda xnp, x: xnp.nanargmax(x), _F),
    ("nanargmin", lambda xnp, x: xnp.nanargmin(x, axis=0), _F),
    ("nancumprod", lambda xnp, x: xnp.nancumprod(x), _F),
    ("nanmedian", lambda xnp, x: xnp.nanmedian(x), _F),
    ("nanpercentile", lambda xnp, x: xnp.nanpercentile(x, 30), _F),
    ("nanquantile", lambda xnp, x: xnp.nanquantile(x, 0.3), _F),
    ("nanprod", lambda xnp, x: xnp.nanprod(x), _F),
    ("nanstd", lambda xnp, x: xnp.nanstd(x), _F),
    ("nanvar", lambda xnp, x: xnp.nanvar(x, ddof=1), _F),
    ("percentile", lambda xnp, x, q: xnp.percentile(x, q), [("jax_f32", "py_int"),
                                                            ("jax_i8", "py_float"),
                                                            ("jax_bf16", "jax_weak_i")]),
    ("quantile", lambda xnp, x: xnp.quantile(x, 0.5, method="nearest"), _F),
    ("packbits", lambda xnp, x: xnp.packbits(x), [("jax_bool",), ("jax_u16",)]),
    ("poly", lambda xnp, x: xnp.poly(x), _VEC),
    ("polyder", lambda xnp, x: xnp.polyder(x), _VEC),
    ("polyint", lambda xnp, x: xnp.polyint(x), _VEC),
    ("polyval", lambda xnp, p, x: xnp.polyval(p, x), [*_VEC2, ("jax_u16", "py_float")]),
    ("polydiv", lambda xnp, x, y: xnp.polydiv(x, y), [("np_f64", "jax_bf16")]),
    ("polyfit", lambda xnp, x, y: xnp.polyfit(x, y, 1), [("np_f64", "jax_u16")]),
    ("roots", lambda xnp, x: xnp.roots(x, strip_zeros=False), [("np_f64",), ("jax_bf16",)]),
    ("select", lambda xnp, x, y: xnp.select([x > 0, x < -1], [x, y], 7), _F2),
    ("setdiff1d", lambda xnp, x, y: xnp.setdiff1d(x, y, size=3), _VEC2),
    ("union1d", lambda xnp, x, y: xnp.union1d(x, y, size=6), _VEC2),
    ("unique", lambda xnp, x: xnp.unique(x, size=3), _VEC),
    ("unique_all", lambda xnp, x: xnp.unique_all(x, size=3), _VEC),
    ("unique_counts", lambda xnp, x: xnp.unique_counts(x, size=3), _VEC),
    ("unique_inverse", lambda xnp, x: xnp.unique_inverse(x, size=3), _VEC),
    ("unique_values", lambda xnp, x: xnp.unique_values(x, size=3), _VEC),
    ("iscomplexobj", lambda xnp, x: jnp.asarray(xnp.iscomplexobj(x)), _F),
    ("isrealobj", lambda xnp, x: jnp.asarray(xnp.isrealobj(x)), _F),
    ("result_type", lambda xnp, x, y: xnp.zeros(2, xnp.result_type(x, y)), _F2),
    ("promote_types", lambda xnp, x, y: xnp.zeros(
        2, xnp.promote_types(xnp.asarray(x).dtype, xnp.asarray(y).dtype)), _F2),
    ("can_cast", lambda xnp, x: jnp.asarray(xnp.can_cast(xnp.asarray(x).dtype, np.int16)), _F),
    ("s_", lambda xnp, x: xnp.asarray(x)[xnp.s_[1:, ::2]], _SQ),
    ("index_exp", lambda xnp, x: xnp.asarray(x)[xnp.index_exp[:, 1]], _SQ),
    ("newaxis", lambda xnp, x: xnp.asarray(x)[xnp.newaxis], _SQ),
    ("e", lambda xnp, x: x * xnp.e, _F),
    ("pi", lambda xnp, x: x + xnp.pi, _F),
    ("inf", lambda xnp, x: xnp.minimum(x, xnp.inf), _F),
    ("nan", lambda xnp, x: xnp.maximum(x, xnp.nan), _F),
    ("euler_gamma", lambda xnp, x: x - xnp.euler_gamma, _F),
    ("finfo", lambda xnp, x: xnp.multiply(x, xnp.finfo(xnp.asarray(x).dtype).eps),
     [("jax_f32",), ("jax_bf16",), ("np_f64",), ("jax_weak_f",)]),
    ("iinfo", lambda xnp, x: xnp.add(x, xnp.iinfo(xnp.asarray(x).dtype).min),
     [("jax_i8",), ("jax_u16",), ("np_i32",), ("jax_weak_i",)]),
    ("isdtype", lambda xnp, x: jnp.asarray(xnp.isdtype(xnp.asarray(x).dtype, "real floating")),
     _F),
    ("issubdtype", lambda xnp, x: jnp.asarray(
        xnp.issubdtype(xnp.asarray(x).dtype, xnp.floating)), _F),
    ("dtype", lambda xnp, x: xnp.zeros(2, xnp.dtype(xnp.asarray(x).dtype)), _F),
    ("frombuffer", lambda xnp: xnp.frombuffer(b"\x01\x02\x03\x04", dtype=jnp.uint16), [()]),
    ("fromiter", lambda xnp: xnp.fromiter(iter([1, 2, 3]), dtype=jnp.int8), [()]),
    ("einsum_path", lambda xnp, x, y: xnp.einsum(
        "i,i->", x, y, optimize=xnp.einsum_path("i,i->", x, y, optimize="greedy")[0]), _VEC2),
]  # fmt: skip

# the scalar types and dtypes, called as constructors on arrays and Python scalars
_TYPES = [
    "bfloat16", "bool", "bool_", "cdouble", "complex128", "complex64", "complex_", "csingle",
    "double", "float16", "float32", "float64", "float_", "int16", "int32", "int64", "int8",
    "int_", "single", "uint", "uint16", "uint32", "uint64", "uint8", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e3m4",
    "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "int4",
    "uint4", "int2", "uint2",
]  # fmt: skip
for _t in _TYPES:
    MORE.append((_t, lambda xnp, x, t=_t: getattr(xnp, t)(x),
                 [("jax_f32",), ("py_int",), ("jax_weak_i",), ("np_f64",)]))  # fmt: skip
