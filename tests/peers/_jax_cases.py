"""Cases and oracles for test_jax_dtypes.py, a port of JAX's tests/dtypes_test.py.

Every case names a jax configuration (a `Mode`), an operation and its operands as
`Form`s: plain data that builds the operand under that configuration. A case is
checked by running jax (the oracle, live) and weaktrace on the same operands and
listing where they differ. Nothing here states an expected dtype.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import itertools
import operator
import random
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import dtypes as jax_dtypes_internal  # the dtypes jax promotes, in its order
from jax._src.lax import lax as lax_internal  # weak arrays of any dtype, as upstream makes them

import weaktrace as wt
import weaktrace.numpy as wnp

# -- configurations --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class Mode:
    """One jax configuration: x64, the promotion mode, jax_explicit_x64_dtypes."""

    x64: bool
    strict: bool
    explicit: str = "warn"

    def __str__(self) -> str:
        name = f"{'strict' if self.strict else 'standard'}-{'x64' if self.x64 else 'x32'}"
        return name if self.explicit == "warn" else f"{name}-{self.explicit}"

    def policy(self) -> Any:
        return wt.policy("jax", strict=self.strict, x64=self.x64)

    def flipped(self) -> Mode:
        """The ambient configuration an explicit policy must override."""
        return Mode(not self.x64, not self.strict, self.explicit)


MAIN_MODES = [Mode(x64, strict) for x64 in (False, True) for strict in (False, True)]
# jax_explicit_x64_dtypes only matters with x64 off
EXPLICIT_MODES = [Mode(False, strict, e) for e in ("allow", "error") for strict in (False, True)]
ALL_MODES = MAIN_MODES + EXPLICIT_MODES


def explicit_x64_values() -> list[str]:
    """The values the installed jax takes for jax_explicit_x64_dtypes, lower case."""
    from jax._src import config as jax_config_internal

    return [m.lower() for m in jax_config_internal.ExplicitX64Mode.__members__]


@contextlib.contextmanager
def jax_config(mode: Mode) -> Iterator[None]:
    old = jax.config.jax_explicit_x64_dtypes  # an ExplicitX64Mode
    jax.config.update("jax_explicit_x64_dtypes", mode.explicit)
    try:
        promotion = "strict" if mode.strict else "standard"
        with jax.enable_x64(mode.x64), jax.numpy_dtype_promotion(promotion):
            yield
    finally:
        jax.config.update("jax_explicit_x64_dtypes", old.name.lower())


# -- dtypes ----------------------------------------------------------------------------

ALL_DTYPES: list[np.dtype] = [np.dtype(t) for t in jax_dtypes_internal._jax_types]
X64_DTYPES = {np.dtype(n) for n in ("int64", "uint64", "float64", "complex128")}
PY_TYPES: list[type] = [bool, int, float, complex]
PY_VALUES: dict[type, Any] = {bool: True, int: 3, float: 2.5, complex: 1.5 + 2j}
_PY_TYPE_NAMES = {t.__name__ for t in PY_TYPES}


def is_x64(name: str) -> bool:
    """Whether a dtype name names a 64-bit dtype (not a Python type's name)."""
    if name in _PY_TYPE_NAMES:
        return False
    try:
        return np.dtype(name) in X64_DTYPES
    except TypeError:
        return False


def default_dtype(kind: str, x64: bool) -> np.dtype:
    """The dtype a weak value of a kind ("i", "f", "c") takes: jax's own answer."""
    with jax.enable_x64(x64):
        return np.dtype(jax.dtypes.canonicalize_dtype({"i": int, "f": float, "c": complex}[kind]))


def weak_kind(dt: np.dtype) -> str:
    """The weak lattice node a weakly typed dtype stands for ("i" for signed and unsigned
    ints, "f" for every float, "c"; "b" for bool)."""
    if dt == np.dtype(bool):
        return "b"
    if jax.dtypes.issubdtype(dt, np.complexfloating):
        return "c"
    if jax.dtypes.issubdtype(dt, np.floating):
        return "f"
    return "i"


# -- operands --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class Form:
    """An operand or dtype specifier, as data. Kinds:

    sds    jax.ShapeDtypeStruct(shape, dtype, weak_type=weak)
    np     a numpy scalar (shape ()) or array
    jax    a jax array made with an explicit dtype in the current mode; weak ones are
           then marked weak with lax._convert_element_type, as upstream does
    py     a Python scalar of type `name`
    pytype the Python type itself (bool, int, float, complex)
    dtype  np.dtype(name);  sctype  np.dtype(name).type;  str  the name;  none  None
    jnparray  jnp.array(1.0 or [1.0], dtype=name), name "-" for no dtype (upstream
           testBinaryPromotion's operands)
    enum   an int/float/complex subclass instance: SCALAR_SUBCLASS_VALUES[name] (IntEnum ...)
    """

    kind: str
    name: str
    weak: bool = False
    shape: tuple[int, ...] = ()
    data: str = ""  # "" for sample_data; "casts" for upstream testArrayCasts' numbers

    def __str__(self) -> str:
        if self.kind in ("py", "pytype", "none", "enum"):
            return f"{self.kind}:{self.name}"
        dims = ",".join(map(str, self.shape))
        tail = f"[{dims}]" if self.kind in ("sds", "np", "jax", "jnparray") else ""
        tail += "(casts data)" if self.data else ""
        return f"{self.kind}:{'~' if self.weak else ''}{self.name}{tail}"

    @property
    def dtype(self) -> np.dtype | None:
        if self.kind in ("py", "pytype", "none", "enum") or self.name == "-":
            return None
        return np.dtype(self.name)

    def construct(self, module: Any) -> Any:
        """A jnparray made by `module` (jax.numpy, or weaktrace.numpy inside a trace)."""
        assert self.kind == "jnparray", self
        value = [1.0] if self.shape else 1.0
        return module.array(value, dtype=None if self.name == "-" else self.name)

    def build(self) -> Any:
        """The operand, made under the current jax configuration (may raise or warn)."""
        if self.kind == "jnparray":
            return self.construct(jnp)
        if self.kind == "enum":
            return SCALAR_SUBCLASS_VALUES[self.name]
        if self.kind == "py":
            return PY_VALUES[_PY_TYPE_OF[self.name]]
        if self.kind == "pytype":
            return _PY_TYPE_OF[self.name]
        if self.kind == "none":
            return None
        dt = np.dtype(self.name)
        if self.kind == "dtype":
            return dt
        if self.kind == "sctype":
            return dt.type
        if self.kind == "str":
            return self.name
        if self.kind == "sds":
            return jax.ShapeDtypeStruct(self.shape, dt, weak_type=self.weak)
        data = CAST_DATA.astype(dt) if self.data == "casts" else sample_data(dt, self.shape)
        if self.kind == "np":
            return data
        if self.kind == "jax":
            x = jnp.asarray(data, dtype=dt)
            if self.weak:
                x = lax_internal._convert_element_type(x, x.dtype, weak_type=True)
            return x
        raise ValueError(self.kind)


_PY_TYPE_OF = {t.__name__: t for t in PY_TYPES}


CAST_DATA = np.array([1, 2.5, -3.7])  # upstream testArrayCasts


def sample_data(dt: np.dtype, shape: tuple[int, ...]) -> Any:
    """Numbers that exercise floor_divide and remainder (3 and -2, cast to dt)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        values = np.asarray([3, -2] if dt.kind not in "ub" else [3, 2])
        if not shape:
            return values[0].astype(dt)[()]
        return np.resize(values, shape).astype(dt)


def py(t: type) -> Form:
    return Form("py", t.__name__)


def sds(dt: np.dtype, weak: bool = False, shape: tuple[int, ...] = (2,)) -> Form:
    return Form("sds", dt.name, weak, () if weak else shape)


def operand_forms() -> list[Form]:
    """The operands of the big binary sweep: every dtype as a strong array, as a weak
    scalar, as a numpy scalar; and the Python scalars."""
    out = []
    for dt in ALL_DTYPES:
        out += [sds(dt), Form("sds", dt.name, True), Form("np", dt.name)]
    return out + [py(t) for t in PY_TYPES]


def concrete_forms(weak_names: Iterable[str] | None = None) -> list[Form]:
    """Concrete operands for compiled runs: every dtype as a strong jax array, weak jax
    scalars of the given dtypes (all by default), Python scalars."""
    names = [d.name for d in ALL_DTYPES] if weak_names is None else list(weak_names)
    out = [Form("jax", d.name, False, (2,)) for d in ALL_DTYPES]
    out += [Form("jax", n, True) for n in names]
    return out + [py(t) for t in PY_TYPES]


def spec_forms() -> list[Form]:
    """Every argument kind result_type takes on its own (upstream testDtypeFrom*)."""
    out = []
    for dt in ALL_DTYPES:
        out += [Form(k, dt.name) for k in ("dtype", "sctype", "str", "np")]
        out += [sds(dt), Form("sds", dt.name, True), Form("jax", dt.name, False, (2,))]
        out += [Form("jax", dt.name, True)]
    out += [Form("pytype", t.__name__) for t in PY_TYPES] + [py(t) for t in PY_TYPES]
    return [*out, Form("none", "None")]


# -- binary operations -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BinOp:
    name: str
    jax_fn: Callable[[Any, Any], Any]
    wt_fn: Callable[[Any, Any], Any]


def _same(name: str, fn: Callable[[Any, Any], Any]) -> BinOp:
    return BinOp(name, fn, fn)


# One op per promotion rule and decomposition: promote_args (add, subtract: no bools,
# maximum), promote_args_inexact (true_divide, arctan2), comparisons, bitwise,
# floor_divide / remainder / power (decomposed by dtype).
BINOPS: dict[str, BinOp] = {
    op.name: op
    for op in [
        _same("add", operator.add),
        _same("sub", operator.sub),
        _same("truediv", operator.truediv),
        _same("floordiv", operator.floordiv),
        _same("mod", operator.mod),
        _same("pow", operator.pow),
        _same("lt", operator.lt),
        _same("and", operator.and_),
        BinOp("maximum", jnp.maximum, wnp.maximum),
        BinOp("arctan2", jnp.arctan2, wnp.arctan2),
    ]
}


# -- outcomes --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Outcome:
    value: Any
    error: type[BaseException] | None
    warned: bool


def run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    """What a call did: its value or error class, and whether it warned (the overflow
    warning weaktrace adds where jax silently wraps is not counted)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value, error = fn(*args, **kwargs), None
        except Exception as e:  # the class is what we compare
            value, error = None, type(e)
    warned = any(
        issubclass(w.category, UserWarning)
        and not issubclass(w.category, wt.WeakLiteralOverflowWarning)
        for w in seen
    )
    return Outcome(value, error, warned)


_FAMILIES = (TypeError, ValueError, OverflowError)


def error_mismatch(theirs: type[BaseException], ours: type[BaseException] | None) -> str | None:
    """Where jax raises, weaktrace raises a weaktrace error of the same builtin family;
    where jax's failure is not a type or value error (XLA cannot compile a dtype), any
    error will do."""
    if ours is None:
        return f"jax raised {theirs.__name__}, weaktrace did not"
    family = next((f for f in _FAMILIES if issubclass(theirs, f)), None)
    if family is None:
        return None
    if not issubclass(ours, wt.WeaktraceError):
        return f"jax raised {theirs.__name__}, weaktrace raised a non-weaktrace {ours.__name__}"
    if not issubclass(ours, family):
        return f"jax raised {theirs.__name__} ({family.__name__}), weaktrace {ours.__name__}"
    return None


def compare(theirs: Outcome, ours: Outcome, what: str, warnings_too: bool = True) -> list[str]:
    if theirs.error is not None:
        msg = error_mismatch(theirs.error, ours.error)
        return [f"{what}: {msg}"] if msg else []
    if ours.error is not None:
        return [f"{what}: jax gave {theirs.value!r}, weaktrace raised {ours.error.__name__}"]
    out = []
    if ours.value != theirs.value:
        out.append(f"{what}: jax {theirs.value!r}, weaktrace {ours.value!r}")
    if warnings_too and ours.warned != theirs.warned:
        out.append(f"{what}: jax warned={theirs.warned}, weaktrace warned={ours.warned}")
    return out


def aval_key(a: Any) -> tuple[tuple[int, ...], np.dtype, bool]:
    return (tuple(a.shape), np.dtype(a.dtype), bool(a.weak_type))


def jax_avals(fn: Callable[..., Any], *args: Any) -> tuple[Any, ...]:
    """The abstract values jax traces fn to (jax.eval_shape: ShapeDtypeStructs with
    weak_type, as jax.make_jaxpr's out_avals, somewhat faster)."""
    return tuple(aval_key(a) for a in jax.tree_util.tree_leaves(jax.eval_shape(fn, *args)))


@functools.cache
def traced(fn: Callable[..., Any], policy: Any = None) -> Any:
    """One weaktrace.trace object per function and policy, reused across configurations
    and operands (as one jax.jit object is): its caches must not serve a stale answer."""
    return wt.trace(fn, policy=policy)


def wt_avals(fn: Callable[..., Any], *args: Any, policy: Any = None) -> tuple[Any, ...]:
    out = traced(fn, policy).trace(*args).out_avals
    leaves = [out] if isinstance(out, wt.AbstractValue) else jax.tree_util.tree_leaves(out)
    return tuple(aval_key(a) for a in leaves)


def array_key(x: Any) -> tuple[Any, ...]:
    """A compiled result as comparable data: shape, dtype, weak flag, then the values."""
    if not isinstance(x, jax.Array):
        return ("not a jax.Array", type(x).__name__)
    return (tuple(x.shape), np.dtype(x.dtype), bool(x.weak_type))


def values_differ(theirs: Any, ours: Any) -> str | None:
    """Integers and bools bitwise; floating values within a few ulps of their dtype."""
    a, b = np.asarray(theirs), np.asarray(ours)
    if a.dtype == np.dtype(bool) or jnp.issubdtype(a.dtype, np.integer):
        return None if np.array_equal(a, b) else f"values {a!r} vs {b!r}"
    complex_ = jnp.issubdtype(a.dtype, np.complexfloating)
    x, y = (v.astype(np.complex128 if complex_ else np.float64) for v in (a, b))
    eps = float(jnp.finfo(np.real(a).dtype if complex_ else a.dtype).eps)
    close = np.isclose(y, x, rtol=4 * eps, atol=4 * eps, equal_nan=True)
    return None if bool(np.all(close)) else f"values {a!r} vs {b!r}"


def compare_arrays(theirs: Outcome, ours: Outcome, what: str) -> list[str]:
    """Compiled results: error parity, then shape/dtype/weak flag, then values. The same
    error class on both sides is parity too: weaktrace compiles through jax, so where
    jax's lowering or XLA fails (converting to uint1), it fails alike."""
    if theirs.error is not None and theirs.error is ours.error:
        return []
    if theirs.error is not None or ours.error is not None:
        return compare(theirs, ours, what, warnings_too=False)
    ta = jax.tree_util.tree_leaves(theirs.value)
    oa = jax.tree_util.tree_leaves(ours.value)
    if len(ta) != len(oa):
        return [f"{what}: {len(ta)} outputs from jax, {len(oa)} from weaktrace"]
    out = []
    for t, o in zip(ta, oa, strict=True):
        if array_key(t) != array_key(o):
            out.append(f"{what}: jax {array_key(t)}, weaktrace {array_key(o)}")
        elif (msg := values_differ(t, o)) is not None:
            out.append(f"{what}: {msg}")
    return out


# -- cases and known mismatches --------------------------------------------------------


@dataclasses.dataclass(frozen=True, order=True)
class Case:
    family: str
    mode: Mode
    op: str
    args: tuple[Form, ...]

    def __str__(self) -> str:
        return f"{self.family}[{self.mode}] {self.op}({', '.join(map(str, self.args))})"


@dataclasses.dataclass(frozen=True)
class Known:
    """The cases that go through one weaktrace bug (a root cause): `where` selects them
    in `families`; not every one of them need come out wrong (the bug may not change
    the answer), but `examples` (minimal repros, always checked) do."""

    key: str
    reason: str
    families: tuple[str, ...]
    where: Callable[[Case], bool]
    examples: tuple[Case, ...] = ()

    def applies(self, case: Case) -> bool:
        return case.family in self.families and self.where(case)


def sample(items: Sequence[Any], n: int, full: bool, seed: str) -> list[Any]:
    """All items with --run-slow; otherwise a deterministic sample of n (seeded by name)."""
    if full or len(items) <= n:
        return list(items)
    return random.Random(seed).sample(list(items), n)


def by_mode(cases: Iterable[Case]) -> Iterator[tuple[Mode, list[Case]]]:
    ordered = sorted(cases, key=lambda c: c.mode)
    for mode, group in itertools.groupby(ordered, key=lambda c: c.mode):
        yield mode, list(group)


class IntChoice(enum.IntEnum):
    """Upstream testEnumPromotion's enum: an int subclass jax treats as a weak int."""

    A = 42
    B = 101


class FlagChoice(enum.IntFlag):
    X = 4


class FloatChoice(float, enum.Enum):
    P = 2.5


class FloatSub(float):
    """A float subclass (as numpy's float64 is one, but not a numpy scalar)."""


class ComplexSub(complex):
    pass


# Instances of int/float/complex subclasses, by Form("enum", name).name: all weak
# Python scalars to jax.
SCALAR_SUBCLASS_VALUES: dict[str, Any] = {
    "A": IntChoice.A,
    "B": IntChoice.B,
    "flag": FlagChoice.X,
    "float-enum": FloatChoice.P,
    "float-sub": FloatSub(-1.5),
    "complex-sub": ComplexSub(1.5 - 2j),
}
