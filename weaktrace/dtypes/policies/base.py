"""The Policy interface: what a trace asks of a promotion system.

A policy is a lattice (or another join rule), how Python scalars enter, and
canonicalization (x64). Tracing calls only the methods below; every dtype it hands
them or gets back is a :class:`~weaktrace.dtypes.registry.DType`, and every operand
is described by its abstract value ``(shape, dtype, weak_type)``. A user writes a
policy by subclassing `Policy` and overriding `join` (and, if the system has no weak
values, `scalar`):

>>> from weaktrace.dtypes import registry
>>> from weaktrace.dtypes.policies import Policy
>>> class Widest(Policy):
...     '''Joins to the operand with the most bits (ties: the first).'''
...     name = "widest"
...     def join(self, avals):
...         strong = [a for a in avals if not a[2]] or list(avals)
...         return max(strong, key=lambda a: a[1].bits)[1], all(a[2] for a in avals)
>>> import numpy as np, weaktrace as wt
>>> wt.trace(lambda x, y: x + y, policy=Widest()).trace(
...     np.ones(2, np.int16), np.ones(2, np.float16)).out_avals
AbstractValue((2,), int16, weak_type=False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import ml_dtypes
import numpy as np

from weaktrace.dtypes import registry, table
from weaktrace.dtypes.lattice import Lattice
from weaktrace.dtypes.registry import DType
from weaktrace.errors import ArgumentOverflowError, InvalidDTypeError, TypePromotionError

# An operand as the policy sees it: (shape, dtype, weak_type); an AbstractValue is one.
Aval = tuple[tuple[int, ...], DType, bool]

_PY_KIND = {bool: "b", int: "i", float: "f", complex: "c"}
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_D = registry.by_name
DEFAULTS_X64 = {"b": _D("bool"), "i": _D("int64"), "u": _D("uint64"), "f": _D("float64"),
                "c": _D("complex128")}  # fmt: skip
DEFAULTS_X32 = {"b": _D("bool"), "i": _D("int32"), "u": _D("uint32"), "f": _D("float32"),
                "c": _D("complex64")}  # fmt: skip


class Policy:
    """Base class of every promotion policy.

    Public face: `promote_types`, `result_type`, `lattice`, `table`. What tracing
    uses: `resolve` (once, when a trace starts), `scalar`, `check_python_int`,
    `canonicalize`, `join`, `promote`, `result`, `accumulate`, `mean`,
    `values_dtype`, `user_dtype`, `lowering_dtype` and the attributes below.
    """

    name: str = "policy"
    x64: bool = True  # 64-bit dtypes exist (NumPy, PyTorch and MAX always have them)
    strict: bool = False
    # A Python int that does not fit the integer dtype it meets: "wrap" (JAX, with a
    # WeakLiteralOverflowWarning) or "raise" (NumPy's OverflowError).
    literal_overflow: str = "wrap"
    # Operands of one dtype and weak flag need no join (false where the join of two
    # identical operands can differ from them: JAX strict, PyTorch's categories).
    same_needs_no_join: bool = True
    # power(x, n) with a concrete integer n: JAX decides the dtype from x alone
    # (integer_pow); elsewhere n joins the promotion like any operand.
    integer_pow_literal: bool = False
    # power(x, n) of a float/complex x by an integer n: JAX applies lax.pow to x and n
    # as they are once the join has checked them (the base keeps its dtype even where
    # the join differs, e.g. two weak operands under strict promotion); elsewhere the
    # base is raised in the joined dtype.
    float_base_keeps_dtype: bool = False
    # clip(int_array, lo, hi): NumPy drops a Python int bound beyond the array dtype's
    # range (it cannot change a value) instead of converting it.
    clip_drops_unreachable_int_bounds: bool = False
    # cumsum/cumprod (and add/multiply.accumulate) of integers: NumPy and PyTorch
    # accumulate in the sum's dtype (`accumulate`: int8 -> int64); JAX keeps the dtype.
    cumulative_promotes_integers: bool = False
    # asarray/array of a Python scalar, and functions that asarray their operands
    # before promoting (intersect1d, setxor1d):
    # NumPy has no weak arrays and PyTorch's 0-dim tensors are not wrapped numbers, so
    # an array of a Python scalar is strong (int64 / float64, torch's default float);
    # JAX's arrays from Python scalars stay weak.
    asarray_operands_strong: bool = False
    # NumPy's ufunc methods: ``at`` updates `a` in place (each result is cast back to a's
    # dtype), a ufunc without identity reduces one axis at a time (``axis=None`` of a
    # matrix raises). False: JAX's (``at`` returns the loop's dtype, reduce ravels).
    numpy_ufunc_methods: bool = False
    # power(x, n) by a Python number n: the dtypes of x ** n whose n PyTorch converts
    # with c10's checked conversion (float16 ** 70000 raises: "value cannot be converted
    # to type c10::Half without overflow"); float32/float64 compute with n as a double.
    pow_checked_exponent_dtypes: frozenset[str] = frozenset()
    # sign of bools: bool (PyTorch's kernel) rather than refused (JAX's lax.sign).
    bool_sign: bool = False
    # integer ** traced integer: JAX runs six squaring steps (exponents beyond 63 wrap
    # and negative ones give garbage); PyTorch raises to the whole exponent (one step per
    # bit of its dtype), and a negative one gives 0, or 1 / -1 for bases 1 / -1.
    int_pow_full_exponent: bool = False
    # Integer division by zero: NumPy gives 0 (x // 0 and x % 0); False keeps XLA's
    # values, as JAX does.
    int_division_by_zero_is_zero: bool = False
    # maximum/minimum/clip of complex values: NumPy's lexicographic order, NaN kept
    # (clip accepts complex values); False: JAX's (XLA's max/min, clip refuses complex).
    numpy_complex_order: bool = False
    # NumPy's scalar power fast paths: the operator x ** 2 is square(x), float x ** 0.5
    # is sqrt(x); integer powers by a traced exponent use every bit of the exponent.
    numpy_power: bool = False
    # Programs that keep IEEE values where XLA's algebraic rewrites change them: bool
    # operands promoted to floating go through uint8 (XLA makes convert(bool) * y a
    # select: False * inf would be 0, not nan) and a division by a constant or broadcast
    # divisor scales huge divisors (x * (1 / y) flushes 1 / y to zero). False keeps
    # JAX's programs, and so XLA's values.
    ieee_exact_lowering: bool = False
    # An instance of a subclass of int/float/complex (IntEnum) is the Python scalar it
    # stands for (weak, as in JAX and PyTorch); false: ``np.asarray(x)``, strong (NumPy).
    scalar_subclasses_weak: bool = True
    # Dtypes whose values this policy's library rounds otherwise than XLA does, and how
    # (a mode of `weaktrace.dtypes.rounding`): their arithmetic is lowered in float32 and
    # rounded so, and literals fold so. PyTorch saturates float8_e4m3fn.
    roundings: ClassVar[Mapping[DType, str]] = {}
    defaults: dict[str, DType] = DEFAULTS_X64

    # -- the public face ------------------------------------------------------------

    def promote_types(self, a: Any, b: Any) -> Any:
        """The dtype two dtypes promote to (a numpy dtype, as jnp.promote_types)."""
        da, db = _spec(a), _spec(b)
        return registry.to_numpy(self.join([((1,), da, False), ((1,), db, False)])[0])

    def result_type(self, *args: Any, return_weak_type_flag: bool = False) -> Any:
        """The dtype (and weak flag) an operation on `args` computes in."""
        if not args:
            raise TypePromotionError("result_type needs at least one argument; received none.")
        dt, weak = self.result([self.arg_aval(a) for a in args])
        out = registry.to_numpy(dt)
        return (out, weak) if return_weak_type_flag else out

    @property
    def lattice(self) -> Lattice[Any] | None:
        """The promotion lattice in force, or None for systems that are not one."""
        return None

    def table(self, dtypes: Any = None) -> Any:
        """The binary promotion table (a PromotionTable: text, markdown, HTML)."""
        return table.table(self, dtypes)

    def __repr__(self) -> str:
        return f"policy({self.name!r})"

    # -- what tracing uses --------------------------------------------------------------

    def resolve(self) -> Policy:
        """The policy a trace starting now runs under, every option pinned (JAX's
        follow jax's config until a trace starts; then they are fixed for that trace)."""
        return self

    def standard(self) -> Policy:
        """This policy with JAX's 'standard' promotion (not 'strict'): what jax's index
        tricks (mgrid, ogrid) promote their grids with whatever the config says."""
        return self

    def scalar(self, cls: type) -> tuple[DType, bool]:
        """(dtype, weak) a Python scalar of type `cls` enters with: bool strong, the
        others weak and of the default dtype of their kind."""
        return self.defaults[_PY_KIND[cls]], cls is not bool

    def overflow(self, op: str, position: int = 0) -> str:
        """What operation `op` does with a Python int (its operand number `position`)
        that does not fit the integer dtype it meets: "wrap" or "raise" (NumPy's ufuncs
        raise, its other functions such as where and concatenate cast and wrap)."""
        return self.literal_overflow

    def int_range(self, dt: DType) -> tuple[int, int]:
        """The Python ints integer dtype `dt` takes where `overflow` says "raise" (its
        range here)."""
        return int_bounds(dt)

    def check_python_int(self, value: int) -> None:
        """Raise where a Python int cannot enter at all (JAX: beyond the default int)."""

    def python_int(self, value: int) -> tuple[DType, bool]:
        """(dtype, weak) a Python int beyond int64's range enters with (asked for those
        only): the int default here, whose range check is `check_python_int`'s."""
        return self.scalar(int)

    def canonicalize(self, dt: DType) -> DType:
        """The dtype an array of dtype `dt` enters a trace with (x64 canonicalization)."""
        return dt

    def join(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        """The common (dtype, weak) of operands: what each is converted to before an
        elementwise operation (jax's ``lattice_result_type``)."""
        raise NotImplementedError(f"policy {self.name!r} defines no join")

    def promote(self, op: str, avals: Sequence[Aval], target: str | None) -> tuple[DType, bool]:
        """The (dtype, weak) operation `op` (a jax.numpy name) computes in. `target` asks
        for an inexact ("inexact"), non-bool ("numeric") or complex ("complex") dtype."""
        dt, weak = self.join(avals)
        return (self.to_target(dt, target), weak) if target else (dt, weak)

    def to_target(self, dt: DType, target: str) -> DType:
        k = dt.kind
        if target == "inexact" and k in "bui":
            return self.defaults["f"]
        if target == "numeric" and k == "b":
            return self.defaults["i"]
        if target == "complex" and k != "c":
            return self.defaults["c"]
        return dt

    def result(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        """``result_type`` of operands (JAX: a weak result takes its kind's default)."""
        return self.join(avals)

    def accumulate(self, dt: DType) -> DType:
        """The dtype sum and prod accumulate `dt` values in."""
        k = dt.kind
        return self.defaults["u" if k == "u" else "i"] if k in "bui" else dt

    def mean(self, dt: DType) -> DType:
        """The dtype mean of `dt` values computes in."""
        return self.defaults["f"] if dt.kind in "bui" else dt

    def mean_dtype(self, dt: DType) -> DType:
        """The dtype mean computes in when asked for ``dtype=dt`` (as given here)."""
        return dt

    def fft_dtype(self, dt: DType) -> DType:
        """The inexact dtype an FFT computes a `dt` operand in (a complex transform takes
        its complex counterpart). NumPy's pocketfft: bool and integers in the default
        float, float16 in float32."""
        if dt.kind in "bui":
            return self.defaults["f"]
        return _D("float32") if dt.name in ("float16", "bfloat16") else dt

    def fft_real_result(self, operand: DType, computed: DType) -> DType:
        """The dtype of a real FFT result (``irfft``, ``hfft``) of a `operand` array that
        was transformed in `computed`: `computed` itself here."""
        return computed

    def logical_reduction(self, dt: DType) -> DType:
        """The dtype all / any of `dt` values return (bool here)."""
        return _D("bool")

    def refuse(self, op: str, avals: Sequence[Aval]) -> None:
        """Raise where the system has no kernel for operation `op` on these operands
        (`promote` asks it too; nothing is refused here)."""

    def values_dtype(self, values: Sequence[Any]) -> DType:
        """The dtype of an array made from concrete Python/numpy values."""
        kinds = {_PY_KIND.get(type(v), "x") for v in values}
        for k in "cfib":
            if k in kinds and kinds <= set("bifc"):
                return self.defaults[k]
        return registry.of(np.asarray(values).dtype)

    def arange_dtype(self, bounds: Sequence[Any]) -> DType:
        """The dtype of ``arange(*bounds)``: NumPy and PyTorch count bools as ints."""
        return self.values_dtype([int(v) if isinstance(v, bool | np.bool_) else v for v in bounds])

    def user_dtype(self, spec: Any) -> DType:
        """A ``dtype=`` argument: int/float/complex mean the defaults of their kind."""
        if isinstance(spec, type) and spec in _PY_KIND:
            return self.defaults[_PY_KIND[spec]]
        return registry.of(spec) if not isinstance(spec, str) else _named(spec)

    def lowering_dtype(self, dt: DType) -> DType:
        """The dtype XLA computes `dt` in (itself, except for dtypes XLA lacks)."""
        return dt

    def arg_aval(self, x: Any) -> Aval:
        """(shape, dtype, weak) of a `result_type` argument."""
        cls = x.__class__
        if cls in _PY_KIND:
            big = cls is int and not INT64_MIN <= x <= INT64_MAX
            dt, weak = self.python_int(x) if big else self.scalar(cls)
            return (), dt, weak
        if cls is type:  # a scalar type (np.float32): a dtype, not a value
            return (1,), _spec(x), False
        spec = getattr(x, "dtype", None)
        if spec is not None and hasattr(x, "shape"):
            if type(spec).__module__.startswith("torch"):  # torch.float32 -> float32
                return tuple(x.shape), _D(str(spec).rsplit(".", 1)[-1]), False
            return tuple(x.shape), self.canonicalize(registry.of(spec)), False
        return (1,), _spec(x), False


def _named(spec: str) -> DType:
    """A dtype name: numpy's reading first ('i8' is int64), then weaktrace's ('bf16')."""
    try:
        return registry.of(spec)
    except InvalidDTypeError:
        d = registry.by_name(spec)
        if d.weak:
            raise
        return d


def _spec(x: Any) -> DType:
    """A promote_types argument: a concrete dtype, Python types read as numpy reads
    them (int is int64; weak kinds enter through values)."""
    return _named(x) if isinstance(x, str) else registry.of(x)


class ValueCheck(NamedTuple):
    """A per-call check of a Python number argument that a function knows it needs
    (``Context.checks_int(x, ValueCheck(...))``): the call raises `error` with `message`
    unless ``lo <= x <= hi``. Non-finite floats pass (they convert to any float dtype).
    Without one, a Python int argument converted to an integer dtype is checked against
    the policy's ``int_range`` of that dtype."""

    dtype: DType
    lo: float
    hi: float
    message: str  # formatted with {value} and {dtype}
    error: type[Exception] = ArgumentOverflowError


def int_bounds(dt: DType) -> tuple[int, int]:
    info = ml_dtypes.iinfo(dt.numpy)
    return int(info.min), int(info.max)


def overflow_error(value: int, dt: DType, x64: bool) -> ArgumentOverflowError:
    return ArgumentOverflowError(
        f"Python int {value} too large to convert to {dt}: it does not fit {dt}, the dtype "
        "Python ints take under this "
        f"policy{'' if x64 else ' (x64 is off)'}; JAX raises OverflowError here too. Use a "
        "float, an explicitly typed numpy scalar, or enable x64."
    )
