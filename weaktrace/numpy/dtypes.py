"""Dtype names, scalar types and constants, as jax.numpy has them.

``float32``, ``bfloat16``, ``int4`` ... are scalar types in jax.numpy's sense: classes
whose ``dtype`` is the numpy dtype, equal (and hashing equal) to numpy's scalar type,
usable as ``dtype=`` anywhere (weaktrace, numpy, jax), and callable:
``float32(x)`` is a strong array of that dtype (``jnp.float32(x)``), concrete values
converted by numpy, arrays and tracers by a ``convert_element_type``. The abstract
classes (``floating``, ``integer`` ...) are numpy's, as in jax.numpy.

``promote_types`` and ``result_type`` are weaktrace's own promotion: inside a trace
they follow the trace's policy, outside one jax's config.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, cast

import jax
import ml_dtypes
import numpy as np

import weaktrace.dtypes as wdtypes
from weaktrace.core.operands import foreign_extended, to_jax
from weaktrace.core.trace import current
from weaktrace.dtypes import registry
from weaktrace.dtypes.policies import JaxPolicy
from weaktrace.errors import InvalidInputError
from weaktrace.ir.values import AbstractValue
from weaktrace.numpy._core import (
    EXPORTS,
    Tracer,
    context,
    convert,
    export,
    operand,
)
from weaktrace.numpy.shapes import stack

_PUBLIC_MODULE = "weaktrace.numpy"


class _ScalarMeta(type):
    """The metaclass of the scalar types: ``jax.numpy``'s ``_ScalarMeta`` semantics."""

    dtype: np.dtype

    @property
    def __numpy_dtype__(cls) -> np.dtype:  # numpy >= 2.4 reads dtypes through this
        return cls.dtype

    def __hash__(cls) -> int:
        return hash(cls.dtype.type)

    def __eq__(cls, other: Any) -> bool:
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other: Any) -> bool:
        return not cls == other

    def __call__(cls, x: Any) -> Any:
        try:
            return scalar_array(x, cls.dtype)
        except InvalidInputError:
            if current() is not None or not foreign_extended(x):
                raise
            return getattr(jax.numpy, cls.__name__)(x)  # a jax extended dtype: jax's call

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.dtype.type)


def _scalar_type(name: str) -> _ScalarMeta:
    dt = registry.by_name(name).numpy
    meta = _ScalarMeta(name, (object,), {"dtype": dt})
    meta.__module__ = _PUBLIC_MODULE
    meta.__doc__ = (
        f"A scalar type of dtype {name}: ``{name}(x)`` is a strong array of that dtype "
        f"(``jax.numpy.{name}(x)``), traced or eager."
    )
    return meta


def _has_array(x: Any) -> bool:
    """Does `x` (a value or a nested sequence) hold a tracer or a jax array?"""
    if x.__class__ is Tracer or isinstance(x, jax.Array):
        return True
    return isinstance(x, list | tuple) and builtins.any(_has_array(v) for v in x)


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, list | tuple):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def _build(x: Any, dt: registry.DType) -> Tracer:
    """``jnp.array(x, dtype)``: concrete values go through numpy's conversion (as
    jax's does); arrays and tracers through convert_element_type; sequences holding
    arrays element by element, then stacked."""
    b = context(*x) if isinstance(x, list | tuple) else context(x)
    if isinstance(x, list | tuple) and _has_array(x):
        return stack([_build(v, dt) for v in x])
    if _has_array(x):
        return convert(b, operand(x, b), dt, False)
    value = np.asarray(x, dtype=dt.numpy)
    return b.const(value, AbstractValue.make(value.shape, dt, False))


def scalar_array(x: Any, dtype: Any) -> Any:
    """What calling a scalar type does: ``jnp.asarray(x, dtype=dtype)`` (strong)."""
    if builtins.any(leaf is None for leaf in _leaves(x)):
        raise ValueError("None is not a valid value for an array (as in jnp.array)")
    dt = context(x).policy.user_dtype(dtype)
    out = _build(x, dt)
    if out.ctx.eager and not _internal(x):
        return to_jax(out)
    return out


def _internal(x: Any) -> bool:
    if x.__class__ is Tracer:
        return True
    return isinstance(x, list | tuple) and builtins.any(_internal(v) for v in x)


# -- the scalar types ---------------------------------------------------------------

_NAMES = [
    "bool", "uint1", "uint2", "uint4", "uint8", "uint16", "uint32", "uint64",
    "int1", "int2", "int4", "int8", "int16", "int32", "int64",
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e8m0fnu", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e4m3b11fnuz", "bfloat16", "float16", "float32", "float64",
    "complex64", "complex128",
]  # fmt: skip
# Names the installed ml_dtypes has (int1/uint1 came late), as jax.numpy defines them.
SCALAR_TYPES: dict[str, _ScalarMeta] = {
    n: _scalar_type(n) for n in _NAMES if n in {d.name for d in registry.ALL if d.numpy is not None}
}
bool_ = SCALAR_TYPES["bool"]
uint8, uint16, uint32, uint64 = (SCALAR_TYPES[f"uint{b}"] for b in (8, 16, 32, 64))
int8, int16, int32, int64 = (SCALAR_TYPES[f"int{b}"] for b in (8, 16, 32, 64))
uint2, uint4, int2, int4 = (SCALAR_TYPES[n] for n in ("uint2", "uint4", "int2", "int4"))
bfloat16, float16 = SCALAR_TYPES["bfloat16"], SCALAR_TYPES["float16"]
float32 = single = SCALAR_TYPES["float32"]
float64 = double = SCALAR_TYPES["float64"]
complex64 = csingle = SCALAR_TYPES["complex64"]
complex128 = cdouble = SCALAR_TYPES["complex128"]
# jax.numpy's defaults-named aliases are the 64-bit types (canonicalized when used).
int_, uint, float_, complex_ = int64, uint64, float64, complex128

# -- abstract classes, constants, numpy's own objects ------------------------------

generic, number, integer = np.generic, np.number, np.integer
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
inexact, floating, complexfloating = np.inexact, np.floating, np.complexfloating
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning
dtype = np.dtype
finfo = ml_dtypes.finfo
iinfo = ml_dtypes.iinfo
can_cast = np.can_cast  # jax.numpy's is numpy's own (the same object)
inf, nan, pi, e = math.inf, math.nan, math.pi, math.e
euler_gamma = float(np.euler_gamma)
newaxis = None


class _ArrayMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return instance.__class__ is Tracer or isinstance(instance, jax.Array)


class ndarray(metaclass=_ArrayMeta):  # jax.numpy's name
    """``jax.numpy.ndarray``: ``isinstance(x, ndarray)`` holds for jax arrays and for
    weaktrace's traced values."""


# -- dtype predicates -----------------------------------------------------------------

_SIGNED_SMALL = ("int1", "int2", "int4")
_UNSIGNED_SMALL = ("uint1", "uint2", "uint4")


def _sctype(x: Any) -> Any:
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return np.dtype(x).type


def _extended(x: Any) -> bool:
    """A jax extended dtype (a key dtype), its class (``jax.dtypes.prng_key``) or an
    array of one: numpy has no place for these."""
    if isinstance(x, type):
        return issubclass(x, jax.dtypes.extended)
    dt = getattr(x, "dtype", x)
    if isinstance(dt, np.dtype | str | type) or dt is None:
        return False
    try:
        return bool(jax.dtypes.issubdtype(dt, jax.dtypes.extended))
    except (TypeError, ValueError):
        return False


# ml_dtypes' scalar types derive from np.generic only; jax places them in numpy's tree.
_CUSTOM_PARENTS: dict[Any, set[Any]] = {}
for _d in registry.ALL:
    if _d.numpy is not None and not issubclass(_d.numpy.type, np.number | np.bool_):
        if _d.kind == "f":
            _CUSTOM_PARENTS[_d.numpy.type] = {np.floating, np.inexact, np.number, np.generic}
        elif _d.name in _SIGNED_SMALL:
            _CUSTOM_PARENTS[_d.numpy.type] = {np.signedinteger, np.integer, np.number, np.generic}
        elif _d.name in _UNSIGNED_SMALL:
            _CUSTOM_PARENTS[_d.numpy.type] = {np.unsignedinteger, np.integer, np.number,
                                              np.generic}  # fmt: skip


@export
def issubdtype(arg1: Any, arg2: Any) -> bool:
    """``jax.numpy.issubdtype``: numpy's hierarchy, with bfloat16 and the float8 types
    under ``floating`` and int4 and friends under (un)signed ``integer``. Extended
    dtypes (``key<fry>``, ``jax.dtypes.prng_key``) sit in jax's own tree: jax decides."""
    if _extended(arg1) or _extended(arg2):
        return bool(jax.dtypes.issubdtype(arg1, arg2))
    a, b = _sctype(arg1), _sctype(arg2)
    parents = _CUSTOM_PARENTS.get(a)
    if parents is not None:
        return b is a or b in parents
    return bool(np.issubdtype(a, b))


def _kind_sets() -> dict[str, set[np.dtype]]:
    known = [SCALAR_TYPES[n].dtype for n in SCALAR_TYPES if n != "bool"]
    kinds = {n: registry.of(n).kind for n in SCALAR_TYPES}
    by = {k: {t.dtype for n, t in SCALAR_TYPES.items() if kinds[n] == k} for k in "buifc"}
    return {
        "bool": by["b"],
        "signed integer": by["i"],
        "unsigned integer": by["u"],
        "integral": by["i"] | by["u"],
        "real floating": by["f"],
        "complex floating": by["c"],
        "numeric": set(known),
    }


_KINDS = _kind_sets()


@export
def isdtype(dtype: Any, kind: Any) -> bool:
    """``jax.numpy.isdtype`` (the array API's kinds: 'bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric')."""
    the_dtype = np.dtype(dtype)
    options: set[np.dtype] = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _KINDS:
            options |= _KINDS[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError as err:
            if isinstance(k, str):
                raise ValueError(
                    f"Unrecognized kind={k!r}: expected one of {list(_KINDS)}, or a "
                    "dtype-like value"
                ) from None
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got {k!r}") from err
    return the_dtype in options


# -- promotion, under the current trace's policy ----------------------------------------


def _policy() -> Any:
    b = current()
    return None if b is None else b.policy


@export
def promote_types(a: Any, b: Any) -> np.dtype:
    """``jax.numpy.promote_types`` with weaktrace's promotion: inside a trace under the
    trace's policy, outside one under jax's config."""
    return wdtypes.promote_types(a, b, policy=_policy())


@export
def result_type(*args: Any) -> Any:
    """``jax.numpy.result_type`` with weaktrace's promotion (traced values keep their
    weak flag): inside a trace under the trace's policy, outside one jax's config."""
    pol = _policy()
    if pol is None or isinstance(pol, JaxPolicy):
        return wdtypes.result_type(*args, policy=pol)
    if not args:
        return pol.result_type()
    avals = [a.aval if a.__class__ is Tracer else pol.arg_aval(a) for a in args]
    return registry.to_numpy(pol.result(avals)[0])


_VALUES: dict[str, Any] = {
    **SCALAR_TYPES,
    "bool_": bool_, "single": single, "double": double, "csingle": csingle,
    "cdouble": cdouble, "int_": int_, "uint": uint, "float_": float_, "complex_": complex_,
    "generic": generic, "number": number, "integer": integer, "signedinteger": signedinteger,
    "unsignedinteger": unsignedinteger, "inexact": inexact, "floating": floating,
    "complexfloating": complexfloating, "character": character, "flexible": flexible,
    "object_": object_, "ComplexWarning": ComplexWarning, "dtype": dtype, "finfo": finfo,
    "iinfo": iinfo, "can_cast": can_cast, "inf": inf, "nan": nan, "pi": pi, "e": e,
    "euler_gamma": euler_gamma, "newaxis": newaxis, "ndarray": ndarray,
}  # fmt: skip
cast(dict[str, Any], EXPORTS).update(_VALUES)
