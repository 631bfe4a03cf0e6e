"""JAX's promotion (the default policy): ``jax.numpy``'s rules, exactly.

`JaxPolicy` with ``strict``/``x64`` of None follows jax's config
(``jax_numpy_dtype_promotion``, ``jax_enable_x64``, ``jax_explicit_x64_dtypes`` and
their context managers); `resolve` pins them when a trace starts, as jax fixes its
config in the trace context. The promotion engine is ``weaktrace.dtypes.jax_rules``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import jax
import ml_dtypes
import numpy as np

from weaktrace.dtypes import jax_rules, registry
from weaktrace.dtypes.jax_lattices import jax_lattice
from weaktrace.dtypes.lattice import Lattice
from weaktrace.dtypes.policies.base import (
    DEFAULTS_X32,
    DEFAULTS_X64,
    Aval,
    Policy,
    int_bounds,
    overflow_error,
)
from weaktrace.dtypes.registry import DType
from weaktrace.errors import InvalidDTypeError, OperandValueError, PolicyError

_D = registry.by_name
_TO_32 = {
    _D(a): _D(b)
    for a, b in [("int64", "int32"), ("uint64", "uint32"), ("float64", "float32"),
                 ("complex128", "complex64")]
}  # fmt: skip
_PY_KIND = {int: "i", float: "f", complex: "c"}
_INT32 = _D("int32")


def _to(table: Any) -> dict[DType, DType]:
    return {registry.of(k): registry.of(v) for k, v in table.items()}


# jax._src.dtypes.to_inexact_dtype / to_numeric / to_complex, on DTypes.
_TO_INEXACT = _to(jax_rules._TO_INEXACT)


def fft_inexact(dt: DType) -> DType:
    """``jax._src.dtypes.to_inexact_dtype``, the fixed table jax.lax.fft (and so
    jax.numpy.fft) converts operands with, x64 or not: inexact dtypes stay, 64-bit
    integers go to float64, every other dtype (bool, smaller integers) to float32."""
    if dt.kind in "fc":
        return dt
    return _D("float64") if dt.kind in "iu" and dt.bits == 64 else _D("float32")


class JaxPolicy(Policy):
    """JAX's rules. ``strict`` / ``x64`` of None follow jax's config in this thread.

    >>> import numpy as np
    >>> JaxPolicy(x64=True).result_type(np.uint32, np.int32)
    dtype('int64')
    >>> JaxPolicy(x64=False).result_type(np.uint32, np.int32)
    dtype('int32')
    """

    name = "jax"
    integer_pow_literal = True
    float_base_keeps_dtype = True

    def __init__(self, strict: bool | None = None, x64: bool | None = None) -> None:
        for option, value in (("strict", strict), ("x64", x64)):
            if value is not None and not isinstance(value, bool):
                raise PolicyError(
                    f"policy('jax') option {option}={value!r} must be True, False or None "
                    "(None follows jax's config)"
                )
        self.strict = strict  # type: ignore[assignment]
        self.x64 = x64  # type: ignore[assignment]
        self.explicit: str | None = None  # jax_explicit_x64_dtypes; None: follow the config

    def __repr__(self) -> str:
        return f"policy('jax', strict={self.strict}, x64={self.x64})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JaxPolicy) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(("jax", *self._key()))

    def _key(self) -> tuple[Any, ...]:
        return (self.strict, self.x64, self.explicit)

    def mode(self) -> tuple[bool, bool]:
        """The (strict, x64) pair in force now: the options, or jax's config for None."""
        strict, x64 = jax_rules.current_mode()
        return (
            strict if self.strict is None else self.strict,
            x64 if self.x64 is None else self.x64,
        )

    # -- public face
    def promote_types(self, a: Any, b: Any) -> np.dtype:
        return jax_rules.promote(a, b, *self.mode())

    def result_type(self, *args: Any, return_weak_type_flag: bool = False) -> Any:
        dt, weak = jax_rules.result(args, *self.mode())
        return (dt, weak) if return_weak_type_flag else dt

    @property
    def lattice(self) -> Lattice[str]:
        strict, x64 = self.mode()
        return jax_lattice(strict, x64)

    # -- tracing
    def fft_dtype(self, dt: DType) -> DType:
        """jax.lax.fft's fixed table, in every mode (`fft_inexact`)."""
        return fft_inexact(dt)

    def resolve(self) -> JaxPolicy:
        strict, x64 = self.mode()
        explicit = jax_rules.explicit_mode() if self.explicit is None else self.explicit
        return _pinned(strict, x64, explicit)


class PinnedJaxPolicy(JaxPolicy):
    """JAX's rules for one (strict, x64, explicit-x64) mode: what a trace runs under.
    Joins of operand avals are cached per instance."""

    def __init__(self, strict: bool, x64: bool, explicit: str) -> None:
        super().__init__(strict, x64)
        self.explicit = explicit
        self.defaults = DEFAULTS_X64 if x64 else DEFAULTS_X32
        self.same_needs_no_join = not strict
        self._int_bounds = int_bounds(self.defaults["i"])
        self._joins: dict[tuple[Any, ...], tuple[DType, bool]] = {}
        self._results: dict[tuple[Any, ...], tuple[DType, bool]] = {}
        self._hash = hash(("jax", *self._key()))  # a pinned policy does not change

    def __hash__(self) -> int:
        return self._hash

    def resolve(self) -> JaxPolicy:
        return self

    def mode(self) -> tuple[bool, bool]:
        return self.strict, self.x64

    def standard(self) -> PinnedJaxPolicy:
        return _pinned(False, self.x64, cast(str, self.explicit)) if self.strict else self

    def check_python_int(self, value: int) -> None:
        lo, hi = self._int_bounds
        if not lo <= value <= hi:
            raise overflow_error(value, self.defaults["i"], self.x64)

    def canonicalize(self, dt: DType) -> DType:
        return dt if self.x64 else _TO_32.get(dt, dt)

    def join(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        """``lattice_result_type`` of operand avals, cached by (dtype, weak) pairs."""
        if len(avals) == 2:  # the common case: a flat key
            a, b = avals
            key: tuple[Any, ...] = (a[1], a[2], b[1], b[2])
        else:
            key = tuple([x for av in avals for x in (av[1], av[2])])
        hit = self._joins.get(key)
        if hit is None:
            hit = self._joins[key] = self._lattice(key, jax_rules.lattice_result)
        return hit

    def promote(self, op: str, avals: Sequence[Aval], target: str | None) -> tuple[DType, bool]:
        if target is None:  # the base rule with its join called directly: every binary op
            return self.join(avals)
        if len(avals) == 1 and avals[0][1].kind != "b":
            dt, weak = avals[0][1], avals[0][2]  # one operand's join is itself (unary math)
        else:
            dt, weak = self.join(avals)
        return self.to_target(dt, target), weak

    def result(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        key = tuple([x for av in avals for x in (av[1], av[2])])
        hit = self._results.get(key)
        if hit is None:
            hit = self._results[key] = self._lattice(key, jax_rules.join_classified)
        return hit

    def _lattice(self, key: tuple[Any, ...], fn: Any) -> tuple[DType, bool]:
        pairs = tuple((registry.to_numpy(d), w) for d, w in zip(key[::2], key[1::2], strict=True))
        dt, weak = fn(pairs, self.strict, self.x64, self.explicit)
        return registry.of(dt), weak

    def to_target(self, dt: DType, target: str) -> DType:
        if target == "inexact":
            return _TO_INEXACT.get(dt, dt)
        if target == "numeric":
            return _INT32 if dt.kind == "b" else dt  # to_numeric_dtype: bool -> int32, always
        wide = _TO_INEXACT.get(dt, dt).name in ("float64", "complex128")
        return _D("complex128" if wide else "complex64")

    def accumulate(self, dt: DType) -> DType:
        """``_promote_integer_dtype``: small ints accumulate in the default int (uint)."""
        k = dt.kind
        if k == "b":
            return self.defaults["i"]
        if k in "iu":
            if dt.name in registry.SUB_BYTE_INTS:  # jax asks numpy's iinfo, which rejects them
                raise InvalidDTypeError(
                    f"summing {dt} values is not supported (as in JAX: numpy's iinfo does not "
                    "know the sub-byte integer types). Convert to int8 or wider first."
                )
            wide = self.defaults[k]
            return wide if ml_dtypes.iinfo(dt.numpy).bits < wide.bits else dt  # type: ignore[operator]
        return dt

    def mean(self, dt: DType) -> DType:
        return _TO_INEXACT.get(dt, dt)

    def values_dtype(self, values: Sequence[Any]) -> DType:
        return registry.of(jax_rules.result(tuple(values), self.strict, self.x64)[0])

    def arange_dtype(self, bounds: Sequence[Any]) -> DType:
        return self.values_dtype(bounds)  # bool bounds give bool, which iota rejects

    def user_dtype(self, spec: Any) -> DType:
        """``check_and_canonicalize_user_dtype``: int/float/complex mean the defaults."""
        if spec.__class__ is DType:  # from inside weaktrace: already canonical
            return spec
        if spec.__class__.__name__ == "KeyTy":  # a PRNG key dtype (keys.dtype), as jax takes it
            kd = registry.key_dtype(spec)
            if kd is not None:
                return kd
        if isinstance(spec, type) and spec in _PY_KIND:
            return self.defaults[_PY_KIND[spec]]
        if spec is bool:
            return self.defaults["b"]
        if isinstance(spec, jax.Array) or hasattr(type(spec), "__jax_array__"):  # tracers too
            raise OperandValueError(
                "Passing an array as a dtype argument is no longer supported (as in jax); "
                "instead of dtype=arr use dtype=arr.dtype."
            )
        dt = jax_rules._np_dtype(spec)
        jax_rules._check_valid(spec, dt)
        return registry.of(jax_rules._explicit(dt, self.x64, self.explicit))


_PINNED: dict[tuple[bool, bool, str], PinnedJaxPolicy] = {}


def _pinned(strict: bool, x64: bool, explicit: str) -> PinnedJaxPolicy:
    key = (strict, x64, explicit)
    p = _PINNED.get(key)
    if p is None:
        p = _PINNED[key] = PinnedJaxPolicy(strict, x64, explicit)
    return p
