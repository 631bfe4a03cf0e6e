"""``x[key]`` on weaktrace tracers against ``jax.numpy`` under ``jax.jit``, computed at test time.

A seeded generator builds index expressions over arrays of rank 0-4 with small shapes
(size-0 and size-1 dims included) and many dtypes (bool, ints, bf16, complex, weak
values): Python and numpy ints (in and out of bounds), slices with any start/stop/step,
None, Ellipsis, integer index arrays that broadcast (numpy constants, jax constants,
nested lists, traced arguments), traced integer scalars, concrete boolean masks and
scalar booleans, plus now and then an index jax rejects. For each case:

* the trace: ``wt.trace(f).trace(*args).out_avals`` against ``jax.jit(f).trace(*args)``
  (shape, dtype, weak_type);
* the values: weaktrace's compiled program against ``jax.jit`` of the same indexing,
  bit for bit (cases are compiled in batches, one program per side);
* errors: where jax raises, we raise an error of the same family (IndexError, TypeError
  or ValueError) that is ours (a weaktrace error, or IndexError); where jax does not
  raise, we do not.

Scalar boolean indices are checked against jax with NumPy's meaning spelled out
(`numpy_bool_form`): jax departs from NumPy there, weaktrace follows NumPy, and
`test_scalar_bools_follow_numpy` checks that against NumPy itself.

CI runs a deterministic sample of the seeds; ``--run-slow`` runs all of them.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

# The one way to build a weakly typed jax array of any shape and values.
from jax._src.lax.lax import _convert_element_type

import weaktrace as wt
from weaktrace.errors import WeaktraceError

X64 = [False, True]
X64_IDS = ["x32", "x64"]


# -- keys with placeholders ------------------------------------------------------------
@dataclasses.dataclass(frozen=True, eq=False)
class T:
    """An index handed to the function as an argument: a tracer inside the trace."""

    value: Any

    def __repr__(self) -> str:
        return f"T({_show(self.value)})"


@dataclasses.dataclass(frozen=True, eq=False)
class J:
    """A jax array constant closed over by the function (built in the case's x64 mode)."""

    value: np.ndarray

    def __repr__(self) -> str:
        return f"J({_show(self.value)})"


def _show(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r}, {v.dtype.name})"
    if isinstance(v, np.generic):
        return f"np.{v.dtype.name}({v.item()!r})"
    if isinstance(v, tuple):
        return "(" + "".join(_show(e) + ", " for e in v) + ")"
    if isinstance(v, slice):
        return f"slice({_show(v.start)}, {_show(v.stop)}, {_show(v.step)})"
    if v is Ellipsis:
        return "..."
    return repr(v)


def _walk(key: Any, f: Callable[[Any], Any]) -> Any:
    if isinstance(key, tuple):
        return tuple(_walk(k, f) for k in key)
    if isinstance(key, list):
        return [_walk(k, f) for k in key]
    if isinstance(key, slice):
        return slice(_walk(key.start, f), _walk(key.stop, f), _walk(key.step, f))
    if isinstance(key, T | J):
        return f(key)
    return key


def traced_args(key: Any) -> list[Any]:
    out: list[Any] = []
    _walk(key, lambda p: out.append(p.value) if isinstance(p, T) else None)
    return out


def materialize(key: Any, tracers: Iterator[Any]) -> Any:
    """The key with its placeholders replaced: T by the next argument, J by a jax array."""
    return _walk(key, lambda p: next(tracers) if isinstance(p, T) else jnp.asarray(p.value))


def index_fn(key: Any, unit_axes: tuple[int, ...] = ()) -> Callable[..., Any]:
    """``x[key]``; with `unit_axes`, jax.numpy's x gets those unit axes first."""

    def f(x: Any, *idx: Any) -> Any:
        if unit_axes:
            x = jnp.expand_dims(x, unit_axes)
        return x[materialize(key, iter(idx))]

    return f


# -- the arrays indexed -------------------------------------------------------------------
X_DTYPES = (
    "bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "float16", "bfloat16",
    "float32", "float64", "complex64", "weak int", "weak float", "weak complex",
    "python scalar",
)  # fmt: skip


@dataclasses.dataclass(frozen=True, eq=False)
class Case:
    shape: tuple[int, ...]
    dtype: str
    key: Any
    seed: int = 0
    invalid: bool = False  # an index jax rejects was put in

    def __repr__(self) -> str:
        return f"x: {self.dtype}{list(self.shape)}  key: {_show(self.key)}"


def make_x(case: Case) -> Any:
    """The indexed value, in the current x64 mode: distinct entries where the dtype allows."""
    r = np.random.default_rng(case.seed)
    shape, size = case.shape, math.prod(case.shape)
    perm = r.permutation(size).reshape(shape)
    if case.dtype == "python scalar":
        return (7, -2.5, 1.5 - 2j)[case.seed % 3]
    if case.dtype == "bool":
        return r.random(shape) < 0.5
    if case.dtype.startswith("weak"):
        kind = case.dtype.split()[1]
        dt = jnp.asarray({"int": 1, "float": 1.0, "complex": 1j}[kind]).dtype  # 32 or 64 bit
        vals = (perm - size // 2).astype(dt)
        if kind == "complex":
            vals = vals + 1j * (perm % 5)
        return _convert_element_type(vals, dt, weak_type=True)
    dt = jnp.dtype(case.dtype)
    if np.issubdtype(dt, np.unsignedinteger):
        return (perm % 250).astype(dt)
    if np.issubdtype(dt, np.integer):
        return (perm % 250 - 125).astype(dt)
    vals = (perm % 256 - 128) * 0.5  # exact in bfloat16 and float16
    if np.issubdtype(dt, np.complexfloating):
        vals = vals + 1j * (perm % 7)
    return vals.astype(dt)


# -- the generator --------------------------------------------------------------------------
INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")
KINDS = {  # kind: weight
    "int": 10, "npint": 3, "tscalar": 6, "slice": 14, "none": 6, "arr": 10, "targ": 8,
    "jarr": 3, "seq": 3, "mask": 5, "boolseq": 2, "bool": 3, "bool0d": 1,
}  # fmt: skip
BAD_INDICES: list[Callable[[random.Random], Any]] = [
    lambda r: 1.5,
    lambda r: np.float32(1.0),
    lambda r: 1j,
    lambda r: "a",
    lambda r: T(1.5),
    lambda r: T(np.array([0.5, 1.0])),
    lambda r: np.array([1.0, 0.0]),
    lambda r: T(np.array([True, False])),
    lambda r: T(True),
    lambda r: J(np.array([True, False])),
    lambda r: slice(T(1), None),
    lambda r: slice(None, T(np.int32(2))),
    lambda r: slice(None, None, 0),
    lambda r: slice(1.5, None),
    lambda r: [0, slice(None)],
    lambda r: [0.5, 1.5],
    lambda r: object(),
]


def _consumes(kind: str, rank: int) -> int:
    return {"none": 0, "ellipsis": 0, "bool": 0, "bool0d": 0}.get(
        kind, rank if kind == "mask" else 1
    )


def _int_values(r: random.Random, n: int, count: int, unsigned: bool) -> list[int]:
    """Mostly in [-n, n) (in [0, n) unsigned); now and then out of bounds (jax clamps)."""
    out = []
    for _ in range(count):
        lo = 0 if unsigned else -n
        if n == 0 or r.random() < 0.1:
            out.append(r.randint(0 if unsigned else -n - 3, n + 3))
        else:
            out.append(r.randint(lo, n - 1))
    return out


def _index_array(r: random.Random, n: int, shape: tuple[int, ...]) -> np.ndarray:
    dt = np.dtype(r.choice(INDEX_DTYPES))
    vals = _int_values(r, n, math.prod(shape), dt.kind == "u")
    return np.array(vals, dt).reshape(shape)


def _broadcastable(r: random.Random, batch: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to `batch` (now and then one that does not)."""
    shape = list(batch[r.randint(0, len(batch)) :])
    shape = [1 if r.random() < 0.3 else d for d in shape]
    if shape and r.random() < 0.03:
        i = r.randrange(len(shape))
        shape[i] = batch[len(batch) - len(shape) + i] + 2  # cannot broadcast
    return tuple(shape)


def _slice(r: random.Random, n: int) -> slice:
    def bound() -> Any:
        if r.random() < 0.35:
            return None
        v = r.randint(-n - 3, n + 3)
        return np.int64(v) if r.random() < 0.1 else v

    step = None if r.random() < 0.4 else r.choice((1, 2, 3, -1, -2, -3))
    return slice(bound(), bound(), step)


def _scalar(r: random.Random, n: int, traced: bool) -> Any:
    (v,) = _int_values(r, n, 1, unsigned=False)
    kinds = ["py", "int8", "int32", "int64"] + (["uint8"] if v >= 0 else [])
    kinds += ["0d"] if traced else []
    k = r.choice(kinds)
    if k == "py":
        return v
    if k == "0d":
        return np.array(v, np.int32)
    return np.dtype(k).type(v)


def gen_case(seed: int) -> Case:
    r = random.Random(seed)
    rank = r.choice((0, 1, 1, 2, 2, 2, 3, 3, 4))
    shape = tuple(r.choice((0, 1, 1, 2, 3, 3, 4, 5)) for _ in range(rank))
    dtype = r.choice(X_DTYPES)
    if dtype == "python scalar":
        shape, rank = (), 0
    # 1. which kinds, and how many dimensions each consumes
    kinds = r.choices(list(KINDS), weights=list(KINDS.values()), k=r.randint(0, rank + 1))
    for _ in range(2 if r.random() < 0.02 else 1 if r.random() < 0.3 else 0):
        kinds.insert(r.randint(0, len(kinds)), "ellipsis")
    mask_ranks = [r.randint(1, 2) if k == "mask" else 0 for k in kinds]
    used = [_consumes(k, m) for k, m in zip(kinds, mask_ranks, strict=True)]
    # 2. the axes each entry indexes: from the front before an Ellipsis, from the back after
    axes: list[list[int]] = []
    at = kinds.index("ellipsis") if "ellipsis" in kinds else len(kinds)
    cursor = 0
    for i, n in enumerate(used):
        if i == at:
            cursor = rank - sum(used[at + 1 :])
        axes.append(list(range(cursor, cursor + n)))
        cursor += n

    def size(a: int) -> int:
        return shape[a] if 0 <= a < rank else 3  # beyond the rank: too many indices

    # 3. the values
    batch = tuple(r.choice((1, 2, 3, 3, 2, 0 if r.random() < 0.15 else 1)) for _ in range(
        r.choice((0, 1, 1, 2, 2, 3))))  # fmt: skip
    key: list[Any] = []
    for kind, ax in zip(kinds, axes, strict=True):
        n = size(ax[0]) if ax else 0
        if kind == "int":
            key.append(_int_values(r, n, 1, unsigned=False)[0])
        elif kind == "npint":
            key.append(_scalar(r, n, traced=False))
        elif kind == "tscalar":
            key.append(T(_scalar(r, n, traced=True)))
        elif kind == "slice":
            key.append(_slice(r, n))
        elif kind == "none":
            key.append(None)
        elif kind == "ellipsis":
            key.append(Ellipsis)
        elif kind in ("arr", "targ", "jarr", "seq"):
            a = _index_array(r, n, _broadcastable(r, batch))
            if kind == "targ":
                key.append(T(a))
            elif kind == "jarr":
                key.append(J(a))
            elif kind == "seq" and a.ndim:
                seq = a.astype(int).tolist()
                if a.ndim == 1 and seq and r.random() < 0.25:  # a traced element: x[[i, 0],]
                    seq[r.randrange(len(seq))] = T(np.int32(seq[0]) if r.random() < 0.5 else seq[0])
                key.append(tuple(seq) if a.ndim == 1 and r.random() < 0.3 else seq)
            else:
                key.append(a)
        elif kind == "mask":
            mshape = [size(a) for a in ax]
            if r.random() < 0.08:  # a mask of the wrong shape
                i = r.randrange(len(mshape))
                mshape[i] = r.choice((0, mshape[i] + 1))
            key.append(
                np.array([r.random() < 0.6 for _ in range(math.prod(mshape))]).reshape(mshape)
            )
        elif kind == "boolseq":
            key.append([r.random() < 0.5 for _ in range(n)] or [])
        elif kind == "bool":
            key.append(r.random() < 0.7)
        elif kind == "bool0d":
            key.append(np.array(r.random() < 0.7))
    invalid = r.random() < 0.07
    if invalid:  # an index jax rejects
        key.insert(r.randint(0, len(key)), r.choice(BAD_INDICES)(r))
    bare = len(key) == 1 and r.random() < 0.5
    return Case(shape, dtype, key[0] if bare else tuple(key), seed, invalid)


# -- running both ---------------------------------------------------------------------------
def _attempt(f: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f()
        except Exception as e:  # the class is what we compare
            return e


def jax_aval(case: Case, x: Any, unit_axes: tuple[int, ...] = ()) -> Any:
    fn = index_fn(case.key, unit_axes)
    out = jax.jit(fn).trace(x, *traced_args(case.key)).jaxpr.out_avals[0]
    return (tuple(out.shape), np.dtype(out.dtype), bool(out.weak_type))


def our_aval(case: Case, x: Any) -> Any:
    out = wt.trace(index_fn(case.key)).trace(x, *traced_args(case.key)).out_avals
    return (tuple(out.shape), np.dtype(out.dtype), bool(out.weak_type))


def _is_scalar_bool(k: Any) -> bool:
    return isinstance(k, bool | np.bool_) or (
        isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0
    )


def _consumed(k: Any) -> int:
    """How many axes of x an index uses (a scalar bool: the unit axis it adds)."""
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, np.ndarray) and k.dtype == bool:
        return max(k.ndim, 1)
    return 1


def numpy_bool_form(case: Case) -> tuple[tuple[int, ...], Any] | None:
    """NumPy's meaning of scalar boolean indices, spelled without them: each adds a
    unit axis to x where it stands and indexes it with arange(0 or 1), an integer
    array (an advanced index like any other). Returns (axes to add to x, new key), or
    None if the key has no scalar boolean (or too many indices or ellipses: jax raises
    either way).

    jax treats scalar booleans differently in two ways (both NumPy's rule, too, in
    ``test_scalar_bools_follow_numpy``): it inserts the unit axis at the boolean's
    position in the key, Nones counted, and it leaves booleans out when it decides
    whether advanced indices are adjacent. weaktrace follows NumPy.
    """
    items = case.key if isinstance(case.key, tuple) else (case.key,)
    if isinstance(case.key, list) or not any(_is_scalar_bool(k) for k in items):
        return None
    rank = len(case.shape) + sum(_is_scalar_bool(k) for k in items)
    total = sum(_consumed(k) for k in items)
    if total > rank or sum(k is Ellipsis for k in items) > 1:
        return None
    axes, key, cursor = [], [], 0
    for k in items:
        if _is_scalar_bool(k):
            axes.append(cursor)
            key.append(np.arange(int(bool(k))))
        else:
            key.append(k)
        cursor += rank - total if k is Ellipsis else _consumed(k)
    return tuple(axes), tuple(key)


def reference(case: Case, x: Any) -> Any:
    """jax's aval for the case (NumPy's meaning for scalar booleans), or its error."""
    form = numpy_bool_form(case)
    if form is None:
        return _attempt(lambda: jax_aval(case, x))
    axes, key = form
    return _attempt(lambda: jax_aval(Case(case.shape, case.dtype, key), x, axes))


def _family(e: BaseException) -> type[BaseException]:
    for fam in (IndexError, TypeError, ValueError):
        if isinstance(e, fam):
            return fam
    return type(e)


def check_error(case: Case, theirs: BaseException, ours: Any) -> str | None:
    """Where jax raises we raise: an error of the same family, and ours on purpose."""
    if not isinstance(ours, BaseException):
        return f"{case}: jax raised {type(theirs).__name__}: {theirs}; we gave {ours}"
    fam = _family(theirs)
    if not isinstance(ours, fam) or not isinstance(ours, WeaktraceError | IndexError):
        return (f"{case}: jax raised {type(theirs).__name__} ({fam.__name__}): {theirs}; "
                f"we raised {type(ours).__name__}: {ours}")  # fmt: skip
    return None


def _bits(a: Any) -> bytes:
    a = np.asarray(a)
    return a.tobytes() + str((a.shape, a.dtype)).encode()


def check_cases(cases: list[Case], x64: bool, batch: int = 40) -> list[str]:
    """Every case's avals and errors; then the values of those that ran, in batches."""
    failures: list[str] = []
    runnable: list[tuple[Case, Any, Any]] = []
    with jax.enable_x64(x64):
        for case in cases:
            # Fresh numpy arrays in each mode: jax keeps something per numpy index array
            # across x64 modes (x[i, too_short] failing under x32, then x[:, i, ..., j]
            # under x64 raises "lax.add requires arguments to have the same dtypes").
            case = dataclasses.replace(case, key=copy.deepcopy(case.key))
            x = make_x(case)
            theirs = reference(case, x)
            ours = _attempt(lambda case=case, x=x: our_aval(case, x))
            if isinstance(theirs, BaseException):
                msg = check_error(case, theirs, ours)
            elif isinstance(ours, BaseException):
                msg = f"{case}: jax gave {theirs}; we raised {type(ours).__name__}: {ours}"
            elif ours != theirs:
                msg = f"{case}: jax aval {theirs}; ours {ours}"
            else:
                msg = None
                runnable.append((case, x, theirs))
            if msg:
                failures.append(msg)
        for i in range(0, len(runnable), batch):
            failures += _check_values(runnable[i : i + batch])
    return failures


def _check_values(group: list[tuple[Case, Any, Any]]) -> list[str]:
    """One program per side for the whole group; every output compared bit for bit."""
    ours_fns, jax_fns = [], []
    for case, _, _ in group:
        ours_fns.append(index_fn(case.key))
        form = numpy_bool_form(case)
        jax_fns.append(index_fn(case.key) if form is None else index_fn(form[1], form[0]))
    args = [(x, *traced_args(c.key)) for c, x, _ in group]

    def batched(fns: list[Callable[..., Any]]) -> Callable[..., list[Any]]:
        return lambda *groups: [f(*g) for f, g in zip(fns, groups, strict=True)]

    theirs = _attempt(lambda: jax.jit(batched(jax_fns))(*args))
    ours = _attempt(lambda: wt.trace(batched(ours_fns))(*args))
    if isinstance(ours, BaseException) or isinstance(theirs, BaseException):
        if len(group) > 1:  # find the culprit
            return [m for g in group for m in _check_values([g])]
        return [f"{group[0][0]}: running: jax {theirs!r}, ours {ours!r}"]
    failures = []
    for (case, _, aval), a, b in zip(group, theirs, ours, strict=True):
        if _bits(b) != _bits(a):
            failures.append(f"{case}: values differ:\njax:  {np.asarray(a)!r}\n"
                            f"ours: {np.asarray(b)!r}")  # fmt: skip
        elif bool(jax.typeof(b).weak_type) != aval[2]:
            failures.append(f"{case}: weak_type of the result {jax.typeof(b)} vs {aval}")
    return failures


def _report(failures: list[str]) -> str:
    return f"{len(failures)} mismatches:\n" + "\n".join(failures[:25])


# -- the sweep -------------------------------------------------------------------------------
CHUNKS = 8
FULL_PER_CHUNK = 500  # 4000 seeds per x64 mode with --run-slow
CI_PER_CHUNK = 25  # 200 per mode in CI


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("x64", X64, ids=X64_IDS)
def test_random_keys(x64: bool, chunk: int, full: bool) -> None:
    seeds = range(chunk * FULL_PER_CHUNK, (chunk + 1) * FULL_PER_CHUNK)
    if not full:
        seeds = seeds[:: FULL_PER_CHUNK // CI_PER_CHUNK]
    failures = check_cases([gen_case(s) for s in seeds], x64)
    assert not failures, _report(failures)


def test_generator_covers_the_index_kinds() -> None:
    """The sample CI runs holds every kind of index, valid and invalid ones."""
    seen: set[str] = set()
    invalid = 0
    for chunk in range(CHUNKS):
        for s in range(chunk * FULL_PER_CHUNK, (chunk + 1) * FULL_PER_CHUNK,
                       FULL_PER_CHUNK // CI_PER_CHUNK):  # fmt: skip
            case = gen_case(s)
            invalid += case.invalid
            for k in case.key if isinstance(case.key, tuple) else (case.key,):
                seen.add(_kind_of(k))
    want = {"int", "npint", "T scalar", "T array", "J", "slice", "neg step", "None", "...",
            "array", "mask", "bool", "list"}  # fmt: skip
    assert want <= seen, want - seen
    assert invalid >= 5


def _kind_of(k: Any) -> str:
    if isinstance(k, T):
        return "T array" if np.ndim(k.value) else "T scalar"
    if isinstance(k, slice):
        return "neg step" if (k.step or 1) < 0 else "slice"
    if isinstance(k, bool):
        return "bool"
    if isinstance(k, np.ndarray):
        return "mask" if k.dtype == bool else "array"
    if isinstance(k, np.integer):
        return "npint"
    names = {int: "int", type(None): "None", type(Ellipsis): "...", list: "list", J: "J"}
    return names.get(type(k), type(k).__name__)


# -- the reported cases -----------------------------------------------------------------------
S = slice(None)
I3, J3 = np.array([0, 1, 2]), np.array([1, 2, 3])
REPORTED = {  # x[i, j] used to gather the outer product of i and j
    "x[i, j]": (I3, J3),
    "x[i, :, j]": (I3, S, J3),
    "x[1, i, j]": (1, I3, J3),
    "x[:, i, j]": (S, I3, J3),
}


def _as(form: str, k: Any) -> Any:
    """`k` in the given form, a copy: jax confuses a numpy array passed to jit with the
    same array made a jax constant inside, across x64 modes (a runtime buffer mismatch)."""
    if not isinstance(k, np.ndarray):
        return k
    k = k.copy()
    return {"numpy": k, "traced": T(k), "jax": J(k), "list": k.tolist()}[form]


@pytest.mark.parametrize("name", list(REPORTED))
@pytest.mark.parametrize("x64", X64, ids=X64_IDS)
def test_reported_advanced_index_cases(x64: bool, name: str) -> None:
    """i, j as numpy constants, traced arguments, jax constants and lists, on a (3, 4, 5)
    array: jax's answer, and NumPy's (every index here is in bounds)."""
    forms = ["numpy", "traced", "jax", "list"]
    cases = [Case((3, 4, 5), "float32", tuple(_as(f, k) for k in REPORTED[name])) for f in forms]
    failures = check_cases(cases, x64)
    assert not failures, _report(failures)
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    fns = [index_fn(c.key) for c in cases]
    with jax.enable_x64(x64):
        outs = wt.trace(lambda *groups: [f(*g) for f, g in zip(fns, groups, strict=True)])(
            *[(x, *traced_args(c.key)) for c in cases]
        )
    for case, out in zip(cases, outs, strict=True):
        np.testing.assert_array_equal(np.asarray(out), x[REPORTED[name]], err_msg=repr(case))


# -- regressions: the mismatches the generator found, one example each -----------------------
I2, J2 = np.array([0, 1]), np.array([1, 2])
REGRESSIONS = {
    # The adjacency of advanced indices was judged after the Ellipsis was expanded: an
    # Ellipsis standing for no axis separates them too (NumPy, jax).
    "ellipsis separates advanced indices": [
        Case((3, 4, 5), "float32", (S, I2, ..., J2)),
        Case((4, 1, 1), "complex64",
             (slice(None, -1, -2), np.zeros((3, 2), np.uint32), ..., np.int64(0))),
    ],
    # A traced scalar index was made non-negative, then dynamic_slice (lax.dynamic_slice)
    # counted it from the end a second time: x[-4] on an axis of 3 gave x[2], not x[0].
    "traced scalar out of bounds clamps once": [
        Case((4, 5, 3), "weak complex",
             (T(np.array(0, np.int32)), T(np.int32(-1)), T(np.int32(-4)))),
        Case((4,), "float32", T(-7)),
    ],
    # Static ints out of bounds raised IndexError; jax clamps them, as it does traced ones.
    "static int out of bounds clamps": [
        Case((5,), "int32", 10),
        Case((5,), "int32", (-6,)),
        Case((2, 3), "float32", (S, 7)),
        Case((2, 3), "float32", (np.uint8(9), None)),
    ],
    # An integer index into an axis of size 0 is an IndexError (was a ShapeError).
    "int into an empty axis": [
        Case((0, 2, 3), "int64", (T(np.array(2, np.int8)),)),
        Case((0, 5), "bool", (np.array(3, np.uint8), None)),
        Case((1, 0), "float32", (slice(2, 3, 3), np.array(1, np.uint16))),
        Case((0, 5), "float32", 0),
    ],
    # A gather whose result is empty gives zeros (the gather itself cannot be built); one
    # that would select elements of an empty axis raises.
    "empty gathers": [
        Case((0, 5, 0), "float64",
             (np.array([1], np.uint32), slice(-7, 6, -2), slice(-1, None, -3))),
        Case((0, 3), "weak float", (np.array([], np.int32),)),
        Case((0, 1, 1, 0), "int64", (-2, np.array(0, np.int64), None, [False])),
        Case((0, 3), "float32", np.array([0])),
        Case((0, 5), "complex64", (-3, 2, True)),
    ],
    # Scalar booleans (and 0-d boolean arrays) add a unit axis (they raised IndexError).
    "scalar booleans": [
        Case((4, 2, 3), "int32", (True,)),
        Case((1,), "uint32", False),
        Case((), "python scalar", True),
        Case((3, 0, 2, 0), "weak int", (True, 1)),
        Case((2,), "bool", (np.array(True), T(np.uint8(0)))),
        Case((1,), "weak float", np.array(False)),
        Case((0, 0, 3), "int32", (slice(1, None), 1, True, np.int32(0), ...)),
        Case((2, 3, 1, 3), "float16", (False, T(np.array([-2, 1])), True)),
    ],
    # Lists and tuples inside a tuple key are arrays or masks (they raised).
    "sequences inside the key": [
        Case((5, 4), "int64", (3, [[1, 3, 6]])),
        Case((1, 2), "float16", ([True], slice(-5, None))),
        Case((5,), "float16", (..., [True, False, True, False, True])),
        Case((3, 4), "float32", ((0, 2), S)),
        Case((3, 4), "float32", ([],)),
        Case((5,), "float32", ([T(3), 0],)),  # a traced element
        Case((5, 2), "weak int", ([[T(np.int32(-1))], [1]], None)),
        Case((5,), "float32", ([T(True), True, False, True, True],)),  # jax: TypeError
        Case((3, 4), "float32", ([0, S],)),  # jax: TypeError
        Case((3, 4), "float32", ([0.5],)),  # jax: TypeError
    ],
    # Float and complex indices are TypeErrors in jax (they were IndexErrors only; now
    # both, as NumPy raises IndexError).
    "float indices": [
        Case((3, 3, 1), "uint32", (T(np.array([0.5, 1.0])),)),
        Case((4,), "weak complex", (None, T(1.5), np.array([1, -1, -1]))),
        Case((5,), "float32", 1.5),
        Case((3,), "int32", (np.array([True, False, True]), 1j)),
        Case((3, 4), "float32", (np.array([1.0, 0.0]),)),
        Case((3, 4), "float32", slice(1.5, None)),
    ],
    # Non-concrete booleans and traced slice bounds are IndexErrors in jax (they were
    # ConcretizationErrors, TypeErrors).
    "traced booleans and slice bounds": [
        Case((3,), "weak int", slice(T(1), None, None)),
        Case((3, 2, 1), "weak int", (T(np.array([True, False, True])),)),
        Case((3,), "float32", J(np.array([True, False, True]))),
        Case((3,), "float32", T(True)),
    ],
    "masks": [
        Case((3, 4), "float32", np.array([True, False])),  # wrong shape: IndexError
        Case((3, 4), "float32", np.ones((0,), bool)),  # a 0-length mask fits any axis in jax
        Case((3, 4), "float32", np.ones((3, 4, 1), bool)),  # too many indices
        Case((3, 4), "int8", (S, np.array([False, True, True, True]))),
    ],
    "other invalid keys": [
        Case((3, 4), "float32", [0, 1]),
        Case((3, 4), "float32", "a"),
        Case((3, 4), "float32", (..., ...)),
        Case((3, 4), "float32", (0, 0, 0)),
        Case((3, 4), "float32", slice(None, None, 0)),
        Case((3, 4), "float32", (I2, np.array([0, 1, 2]))),  # cannot broadcast: ValueError
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(REGRESSIONS))
@pytest.mark.parametrize("x64", X64, ids=X64_IDS)
def test_regressions(x64: bool, name: str) -> None:
    failures = check_cases(REGRESSIONS[name], x64)
    assert not failures, _report(failures)


@pytest.mark.parametrize("x64", X64, ids=X64_IDS)
def test_static_bounds_check_follows_jax_flag(x64: bool) -> None:
    """With ``jax_check_static_indices`` on, jax raises IndexError for a static int out of
    bounds (off, it clamps): so do we."""
    cases = [*REGRESSIONS["static int out of bounds clamps"],
             Case((5, 10), "float32", (np.array([0]), 9)),
             Case((5, 10), "float32", (np.array([0]), -11)),
             Case((5, 10), "float32", (T(np.int32(7)), 3))]  # fmt: skip
    before = jax.config.jax_check_static_indices
    jax.config.update("jax_check_static_indices", True)
    try:
        failures = check_cases(cases, x64)
    finally:
        jax.config.update("jax_check_static_indices", before)
    assert not failures, _report(failures)


# -- scalar booleans: NumPy's rule ------------------------------------------------------------
BOOL_KEYS = [
    (True,), (False,), (None, True), (True, None), (None, ..., True), (S, None, True),
    (S, True, S, I2), (S, I2, True, J2), (I2, True, J2), (True, S, I2), (0, True, I2),
    (np.True_,), (np.False_, S), (S, np.array(True)), (True, True), (..., False, 0),
    (S, I2, None, True), (1, None, True, ..., 2),
]  # fmt: skip


@pytest.mark.parametrize("x64", X64, ids=X64_IDS)
def test_scalar_bools_follow_numpy(x64: bool) -> None:
    """Against NumPy itself (jax puts the unit axis elsewhere after a None, and treats
    booleans as separating advanced indices): shapes and values."""
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    with jax.enable_x64(x64):
        outs = wt.trace(lambda x: [x[k] for k in BOOL_KEYS])(x)
    for key, out in zip(BOOL_KEYS, outs, strict=True):
        want = x[key]
        assert out.shape == want.shape, (key, out.shape, want.shape)
        np.testing.assert_array_equal(np.asarray(out), want, err_msg=repr(key))


def test_numpy_bool_form_is_numpys_rule() -> None:
    """The reference's spelling of scalar booleans (unit axes + arange) is NumPy's."""
    x = np.arange(60).reshape(3, 4, 5)
    for key in BOOL_KEYS:
        form = numpy_bool_form(Case(x.shape, "int64", key))
        assert form is not None, key
        axes, plain = form
        np.testing.assert_array_equal(np.expand_dims(x, axes)[plain], x[key], err_msg=repr(key))
