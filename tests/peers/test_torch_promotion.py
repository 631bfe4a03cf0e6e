"""PyTorch's type promotion, differentially: weaktrace's ``policy("torch")`` (and
``policy("torch", default_float="float64")``) against the installed torch, at test time.

The cases are those of PyTorch's ``test/test_type_promotion.py`` (read for its cases;
this code is our own), widened to every dtype pair torch and numpy/ml_dtypes both name:

- the three operand categories: dimensioned tensor (a numpy array here), 0-dim tensor
  (a 0-d numpy array), wrapped number (a Python scalar), under both default dtypes
  (``torch.set_default_dtype(float32|float64)``, restored after each test);
- ``torch.promote_types`` / ``torch.result_type`` (pairs, scalar pairs, and triples against
  an N-ary TensorIterator op) vs ``wt.promote_types`` / ``wt.result_type``;
- binary ops traced under ``wt.trace(fn, policy=...)``: dtype and shape of ``out_avals``,
  the dtype comparisons compute in, and compiled values (batched, with a tolerance);
  true division of integers, bool arithmetic, complex (complex32 where torch has it);
- ``clamp`` with mixed-dtype bounds vs ``wnp.clip``; ``cat`` vs ``wnp.concatenate``;
  comparisons whose result depends on the compute dtype; reductions (sum/prod
  accumulation dtypes, ``dtype=``, int ``mean``); unary ops; creation dtypes; the range of
  Python ints torch accepts as wrapped numbers; promotions torch refuses (uint16/32/64,
  float8, sub-byte shells, bool subtraction).

How torch's errors count: ``TypeError`` means torch's signature has no overload for the
operands (not a promotion verdict: skipped); ``NotImplementedError`` means the CPU
kernel lacks the dtype (skipped: the promotion is still checked by ``result_type``),
except ordering comparisons / ``maximum`` / ``clamp`` on complex, which torch refuses
on every device (upstream's ``test_complex_assertraises``). Any other error is a verdict:
weaktrace must raise one of its own errors there. An exception of another class from
weaktrace (a crash) is always a failure.

Not ported, for want of a weaktrace analogue: in-place ops (``add_``, ``clamp_``, ``div_``:
traced values are immutable), ``out=`` (``test_alternate_result``,
``test_computation_ignores_out``, ``test_cat_out_different_dtypes``,
``test_unary_op_out_casting``, ``test_ternary_out_promotion``), autograd
(``test_mixed_type_backward``), sparse tensors, ``alpha=``, ``can_cast``, numpy arrays as
torch operands, indexing assignment.

Sizes: each sweep runs a deterministic sample in CI (chosen by a hash of the case id) and
everything with ``--run-slow`` (the ``full`` fixture). Disagreements are listed in
``KNOWN_MISMATCHES`` by root cause; their cases are left out of the sweeps and run as
``test_known_mismatch[...]`` items marked ``xfail(strict=True)``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import math
import operator
import warnings
import zlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax
import ml_dtypes
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run

torch = pytest.importorskip("torch")

DEFAULTS = ["float32", "float64"]


# -- dtypes: torch's, named as numpy / ml_dtypes name them ---------------------------------


def tname(dt: Any) -> str:
    """``torch.bfloat16`` -> ``"bfloat16"`` (and a numpy dtype -> its name)."""
    return dt.name if isinstance(dt, np.dtype) else str(dt).rsplit(".", 1)[-1]


def np_dtype(name: str) -> np.dtype | None:
    """The numpy dtype of a torch dtype name: numpy's own, else ml_dtypes' (bfloat16,
    float8_*, complex32, int4 ...), else None (torch's qint*, bits*, float4_e2m1fn_x2 ...)."""
    scalar = getattr(ml_dtypes, name, None)
    try:
        return np.dtype(scalar if scalar is not None else name)
    except TypeError:
        return None


@functools.cache
def _holds_values(name: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "ComplexHalf support is experimental"
            torch.tensor([1], dtype=getattr(torch, name))
    except (RuntimeError, TypeError):  # the sub-byte "shell" dtypes: no storage of values
        return False
    return True


TORCH_DTYPES = sorted(
    n
    for n in {tname(v) for v in vars(torch).values() if isinstance(v, torch.dtype)}
    if np_dtype(n) is not None
)
VALUE_DTYPES = [n for n in TORCH_DTYPES if _holds_values(n)]
SHELL_DTYPES = [n for n in TORCH_DTYPES if n not in VALUE_DTYPES]


def tdt(name: str) -> Any:
    return getattr(torch, name)


def is_complex(name: str | None) -> bool:
    return name is not None and tdt(name).is_complex


@contextlib.contextmanager
def torch_default(default: str) -> Iterator[Any]:
    """torch's default dtype set to `default` (restored after); yields the matching policy."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(tdt(default))
    try:
        yield wt.policy("torch", default_float=default)
    finally:
        torch.set_default_dtype(old)


# -- operands: dimensioned tensor, 0-dim tensor, wrapped number ------------------------------


def _values(name: str, positive: bool) -> list[Any]:
    """Two values every dtype holds exactly (float8_e8m0fnu holds powers of two only);
    `positive`: no zero and no sign (divisors, exponents)."""
    t = tdt(name)
    if t == torch.bool:
        return [True, True] if positive else [True, False]
    if name == "float8_e8m0fnu":
        return [2.0, 0.5]
    if t.is_complex:
        return [1.5 + 2j, 2 - 0.5j] if positive else [1.5 + 2j, -2.25 + 0.5j]
    if t.is_floating_point:
        return [1.5, 2.0] if positive else [1.5, -2.25]
    return [3, 2] if positive or not t.is_signed else [3, -2]


def _wide(t: Any) -> Any:
    if t.dtype == torch.bool:
        return t
    if t.dtype.is_complex:
        return t.to(torch.complex128)
    return t.to(torch.float64 if t.dtype.is_floating_point else torch.int64)


def to_numpy(t: Any) -> np.ndarray:
    """A torch tensor as a numpy array of a wide dtype (bool, int64, float64, complex128)."""
    return _wide(t).numpy()


@dataclasses.dataclass(frozen=True)
class Operand:
    """One torch operand: a tensor of `dtype` and `shape`, or (dtype None) the Python
    number `number`, which torch wraps."""

    dtype: str | None
    shape: tuple[int, ...] = (2,)
    number: Any = None
    positive: bool = False
    # the number's type, so that operands (and cases) holding True, 1 and 1.0 differ
    number_type: str = dataclasses.field(default="", init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "number_type", type(self.number).__name__)

    @functools.cached_property
    def label(self) -> str:
        if self.dtype is None:
            return repr(self.number)
        sign = "+" if self.positive else ""
        return f"{self.dtype}[{','.join(map(str, self.shape))}]{sign}"

    @property
    def wrapped(self) -> bool:
        return self.dtype is None

    def kind(self) -> str:
        """b, i, f or c: the kind of the values."""
        if self.wrapped:
            return {bool: "b", int: "i", float: "f", complex: "c"}[type(self.number)]
        t = tdt(self.dtype)
        return ("c" if t.is_complex else "f" if t.is_floating_point
                else "b" if t == torch.bool else "i")  # fmt: skip

    @functools.cache  # noqa: B019 -- operands are few, immutable, and live all session
    def as_torch(self) -> Any:
        if self.wrapped:
            return self.number
        if not _holds_values(self.dtype):
            return torch.zeros(self.shape, dtype=tdt(self.dtype))
        vals = _values(self.dtype, self.positive)
        if self.shape == ():
            return torch.tensor(vals[-1], dtype=tdt(self.dtype))
        n = math.prod(self.shape)
        return torch.tensor((vals * n)[:n], dtype=tdt(self.dtype)).reshape(self.shape)

    @functools.cache  # noqa: B019
    def as_ours(self) -> Any:
        """The same operand for weaktrace: a numpy array (0-d for a 0-dim tensor)."""
        if self.wrapped:
            return self.number
        dt = np_dtype(self.dtype)
        if not _holds_values(self.dtype):
            return np.zeros(self.shape, dt)
        return to_numpy(self.as_torch()).astype(dt)


def tensors(names: Sequence[str], shapes: Sequence[tuple[int, ...]] = ((2,), ()),
            positive: bool = False) -> list[Operand]:  # fmt: skip
    return [Operand(n, s, positive=positive) for n in names for s in shapes]


def numbers(values: Sequence[Any]) -> list[Operand]:
    return [Operand(None, (), v) for v in values]


# -- cases, outcomes, comparisons -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Case:
    section: str
    default: str  # torch's default dtype; the policy's default_float
    op: str
    operands: tuple[Operand | None, ...] = ()

    @functools.cached_property
    def id(self) -> str:
        args = ", ".join("None" if o is None else o.label for o in self.operands)
        return f"{self.section}:{self.op}({args})@{self.default}"


@dataclasses.dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None


def outcome(fn: Callable[[], Any]) -> Outcome:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's ComplexHalf warning, our lowering warnings
        try:
            return Outcome(fn())
        except Exception as e:  # compared by class below
            return Outcome(error=e)


ORDERED = {"lt", "le", "gt", "ge", "maximum", "minimum", "clip", "clip_min", "clip_max"}


def verdict(case: Case, theirs: Outcome) -> str:
    """What a torch outcome says: "value", "raises" (a verdict weaktrace must share), or
    "skip" (no verdict: no overload for these operands, or no CPU kernel for the dtype)."""
    if theirs.error is None:
        return "value"
    if isinstance(theirs.error, TypeError):
        return "skip"
    if isinstance(theirs.error, NotImplementedError):
        complex_order = case.op in ORDERED and any(
            o is not None and o.kind() == "c" for o in case.operands
        )
        return "raises" if complex_order else "skip"
    return "raises"


def dname(dt: Any) -> str:
    return tname(dt) if not isinstance(dt, str) else dt


@dataclasses.dataclass
class Job:
    """A compiled run to compare with torch's value."""

    case_id: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    expected: Any  # a torch tensor
    inputs: tuple[str, ...]  # dtype names of the operands, for the tolerance
    ulps: int = 4


@dataclasses.dataclass
class Result:
    compared: bool = False  # torch gave a verdict and we compared with it
    failure: str | None = None
    job: Job | None = None


def compare(case: Case, theirs: Outcome, ours: Outcome,
            show: Callable[[Any], str] = dname) -> Result:  # fmt: skip
    """The dtype-level comparison: same dtype, or both refuse."""
    v = verdict(case, theirs)
    if ours.error is not None and not isinstance(ours.error, wt.WeaktraceError):
        return Result(True, f"{case.id}: weaktrace crashed: {ours.error!r}")
    if v == "skip":
        return Result(False)
    if v == "raises":
        if ours.error is None:
            return Result(True, f"{case.id}: torch raises {theirs.error!r}; "
                                f"weaktrace gives {show(ours.value)}")  # fmt: skip
        return Result(True)
    if ours.error is not None:
        return Result(True, f"{case.id}: torch gives {show(theirs.value)}; "
                            f"weaktrace raises {ours.error!r}")  # fmt: skip
    if show(theirs.value) != show(ours.value):
        return Result(True, f"{case.id}: torch {show(theirs.value)}, weaktrace {show(ours.value)}")
    return Result(True)


def _dtype_of(o: Outcome) -> Outcome:
    return Outcome(o.value.dtype if o.error is None else None, o.error)


def traced_check(case: Case, theirs: Outcome, fn: Callable[..., Any], args: tuple[Any, ...],
                 policy: Any, inputs: Sequence[str | None] = ()) -> Result:  # fmt: skip
    """torch's outcome (a tensor, or an error) against `fn` traced on `args`: the dtype
    of out_avals, then, where both give one, a compiled value to compare."""
    tr = outcome(lambda: traced(fn, policy).trace(*args).out_avals)
    res = compare(case, _dtype_of(theirs), _dtype_of(tr))
    if res.compared and not res.failure and theirs.error is None:
        res.job = Job(case.id, fn, args, theirs.value, tuple(n or "" for n in inputs))
    return res


_TRACED: dict[tuple[int, int], Any] = {}


def traced(fn: Callable[..., Any], policy: Any) -> Any:
    """One TracedFunction per (function, policy), so that its trace cache is reused (the
    entry keeps both alive, so their ids stay theirs)."""
    key = (id(fn), id(policy))
    if key not in _TRACED:
        _TRACED[key] = (wt.trace(fn, policy=policy), fn, policy)
    return _TRACED[key][0]


# -- compiled values, in batches -------------------------------------------------------------

_EPS = {"float16": 2**-10, "bfloat16": 2**-7, "float32": 2**-23, "float64": 2**-52,
        "complex32": 2**-10, "complex64": 2**-23, "complex128": 2**-52,
        "float8_e4m3fn": 2**-3, "float8_e4m3fnuz": 2**-3, "float8_e5m2": 2**-2,
        "float8_e5m2fnuz": 2**-2, "float8_e8m0fnu": 2**-1}  # fmt: skip
LOWERED = {"complex32": "complex64"}  # XLA has no complex32: policy torch computes in complex64


def tolerance(names: Sequence[str], ulps: int) -> float:
    """`ulps` units of the coarsest float among the operands and the result (torch may
    compute e.g. ``1j / bfloat16`` through a bfloat16 reciprocal); 0 for integers, bools."""
    return ulps * max((_EPS.get(n, 0.0) for n in names), default=0.0)


def check_value(job: Job, out: Any) -> str | None:
    if isinstance(out, BaseException):
        return f"{job.case_id}: the compiled run raised {out!r}"
    got = np.asarray(out)
    want_name = tname(job.expected.dtype)
    if got.dtype.name != LOWERED.get(want_name, want_name):
        return f"{job.case_id}: compiled result is {got.dtype.name}, torch's is {want_name}"
    want = to_numpy(job.expected)
    if got.shape != want.shape:
        return f"{job.case_id}: compiled shape {got.shape}, torch's {want.shape}"
    tol = tolerance([*job.inputs, want_name], job.ulps)
    if not np.allclose(got.astype(want.dtype), want, rtol=tol, atol=tol, equal_nan=True):
        return f"{job.case_id}: compiled {got.tolist()}, torch {want.tolist()}"
    return None


def _default_sensitive(job: Job) -> bool:
    """Whether torch's default dtype may enter the job's program: a Python float or
    complex argument, or an inexact result with no inexact dimensioned operand (int / int,
    an int tensor with a 0-dim float one). A rule of thumb: it only orders the batches."""
    leaves = jax.tree_util.tree_leaves(job.args)
    if any(isinstance(a, (float, complex)) for a in leaves):
        return True
    inexact = job.expected.dtype.is_floating_point or job.expected.dtype.is_complex
    return inexact and not any(
        isinstance(a, np.ndarray) and a.ndim and a.dtype.kind in "fcV" for a in leaves
    )


def batch_order(jobs: list[Job]) -> list[Job]:
    """The jobs a default dtype cannot change first, by case id: their batches are then
    the same XLA modules under both defaults, and the second default's compiles are read
    back from jax's compilation cache (see conftest.py) instead of repeated."""
    return sorted(jobs, key=lambda j: (_default_sensitive(j), j.case_id.rsplit("@", 1)[0]))


def run_values(jobs: list[Job], policy: Any, batch: int = 300) -> list[str]:
    """Compile each batch of jobs as one traced function (one XLA compile per batch); a
    batch that fails is rerun job by job to name the culprit."""
    failures = []
    jobs = batch_order(jobs)
    for start in range(0, len(jobs), batch):
        chunk = jobs[start : start + batch]
        fns = [j.fn for j in chunk]
        run = wt.trace(lambda groups, fns=fns: [f(*g) for f, g in zip(fns, groups, strict=True)],
                       policy=policy)  # fmt: skip
        outs = outcome(lambda run=run, chunk=chunk: run([j.args for j in chunk]))
        if outs.error is not None:
            results = [outcome(lambda j=j: wt.trace(j.fn, policy=policy)(*j.args)) for j in chunk]
            values = [r.error if r.error is not None else r.value for r in results]
        else:
            values = outs.value
        failures += [m for j, v in zip(chunk, values, strict=True) if (m := check_value(j, v))]
    return failures


# -- sections: promote_types, result_type ------------------------------------------------------


def _promote_cases(default: str) -> Iterator[Case]:
    for a, b in itertools.product(TORCH_DTYPES, repeat=2):
        yield Case("promote_types", default, "promote_types", (Operand(a, ()), Operand(b, ())))


def _promote_torch(case: Case) -> Outcome:
    a, b = case.operands
    return outcome(lambda: torch.promote_types(tdt(a.dtype), tdt(b.dtype)))


def _promote_check(case: Case, policy: Any) -> Result:
    a, b = case.operands
    ours = outcome(lambda: wt.promote_types(np_dtype(a.dtype), np_dtype(b.dtype), policy=policy))
    return compare(case, _promote_torch(case), ours)


RESULT_TYPE_NUMBERS = (True, 3, 2.5, 1j)


def _result_type_cases(default: str) -> Iterator[Case]:
    forms = tensors(TORCH_DTYPES) + numbers(RESULT_TYPE_NUMBERS)
    for a, b in itertools.product(forms, repeat=2):
        yield Case("result_type", default, "result_type", (a, b))


def _result_type_torch(case: Case) -> Outcome:
    a, b = case.operands
    return outcome(lambda: torch.result_type(a.as_torch(), b.as_torch()))


def _result_type_check(case: Case, policy: Any) -> Result:
    a, b = case.operands
    ours = outcome(lambda: wt.result_type(a.as_ours(), b.as_ours(), policy=policy))
    return compare(case, _result_type_torch(case), ours)


def _triple_cases(default: str) -> Iterator[Case]:
    forms = tensors(VALUE_DTYPES, shapes=((0,), ()))
    for ops in itertools.product(forms, repeat=3):
        yield Case("result_type3", default, "result_type", ops)


def _triple_torch(case: Case) -> Outcome:
    """torch.result_type takes two operands; addcmul is a TensorIterator op that promotes
    all three with torch's categories (zero-size, so only the dtype logic runs)."""
    a, b, c = (o.as_torch() for o in case.operands)
    return outcome(lambda: torch.addcmul(a, b, c).dtype)


def _triple_check(case: Case, policy: Any) -> Result:
    ours = outcome(lambda: wt.result_type(*(o.as_ours() for o in case.operands), policy=policy))
    return compare(case, _triple_torch(case), ours)


# -- section: binary ops, traced and compiled --------------------------------------------------

_COND = [True, False]
BINARY: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "add": (operator.add, operator.add),
    "sub": (operator.sub, operator.sub),
    "mul": (operator.mul, operator.mul),
    "true_divide": (operator.truediv, operator.truediv),
    "floor_divide": (operator.floordiv, operator.floordiv),
    "remainder": (operator.mod, operator.mod),
    "pow": (operator.pow, operator.pow),
    "bitwise_and": (operator.and_, operator.and_),
    "bitwise_or": (operator.or_, operator.or_),
    "bitwise_xor": (operator.xor, operator.xor),
    "lt": (operator.lt, operator.lt),
    "le": (operator.le, operator.le),
    "gt": (operator.gt, operator.gt),
    "ge": (operator.ge, operator.ge),
    "eq": (operator.eq, operator.eq),
    "ne": (operator.ne, operator.ne),
    "maximum": (torch.maximum, wnp.maximum),
    "minimum": (torch.minimum, wnp.minimum),
    "atan2": (torch.atan2, wnp.arctan2),
    "where": (lambda a, b: torch.where(torch.tensor(_COND), a, b),
              lambda x, y: wnp.where(np.array(_COND), x, y)),
}  # fmt: skip
COMPARISONS = {"lt", "le", "gt", "ge", "eq", "ne"}
ULPS = {"pow": 64, "atan2": 8}
TENSOR_ONLY = {"maximum", "minimum", "atan2"}  # torch's signatures take no Python number
POSITIVE_RIGHT = {"true_divide", "floor_divide", "remainder", "pow"}  # no zero divisors
POSITIVE_LEFT = {"pow"}  # XLA and torch differ on 0 ** complex; keep bases away from 0
BINARY_NUMBERS = (True, 3, -7, 1000, 2.5, -0.5, 1j)


def _binary_operands(name_set: Sequence[str], positive: bool) -> list[Operand]:
    nums = [n for n in BINARY_NUMBERS if not positive or (n.real > 0 if n != 1j else True)]
    return tensors(name_set, positive=positive) + numbers(nums)


def _binary_cases(default: str) -> Iterator[Case]:
    for op in BINARY:
        lefts = _binary_operands(VALUE_DTYPES, op in POSITIVE_LEFT)
        rights = _binary_operands(VALUE_DTYPES, op in POSITIVE_RIGHT)
        for a, b in itertools.product(lefts, rights):
            if a.wrapped and b.wrapped:
                continue  # Python arithmetic, not torch's
            if op in TENSOR_ONLY and (a.wrapped or b.wrapped):
                continue
            yield Case("binary", default, op, (a, b))


def _binary_torch(case: Case) -> Outcome:
    a, b = case.operands
    return outcome(lambda: BINARY[case.op][0](a.as_torch(), b.as_torch()))


def _show_aval(v: Any) -> str:
    return f"{dname(v.dtype)}{list(v.shape)}" if hasattr(v, "shape") else dname(v)


def _compute_dtypes(tr: Any) -> list[str]:
    """The operand dtypes of the program's last comparison equation."""
    eqs = [e for e in tr.program.equations if e.primitive.name in COMPARISONS]
    return [dname(x.aval.dtype) for x in eqs[-1].inputs] if eqs else []


def _binary_check(case: Case, policy: Any) -> Result:
    a, b = case.operands
    theirs = _binary_torch(case)
    wop = BINARY[case.op][1]
    args = (a.as_ours(), b.as_ours())
    tr = outcome(lambda: traced(wop, policy).trace(*args))
    ours = Outcome(tr.value.out_avals if tr.error is None else None, tr.error)
    theirs_shown = Outcome(
        f"{tname(theirs.value.dtype)}{list(theirs.value.shape)}" if theirs.error is None else None,
        theirs.error,
    )
    res = compare(case, theirs_shown, ours, show=_show_aval)
    refused = res.failure and ours.error is None and verdict(case, theirs) == "raises"
    if refused and _int_argument_refused_per_call(case, wop, args, policy):
        return Result(True)
    if res.failure or verdict(case, theirs) != "value":
        return res
    if case.op in COMPARISONS:  # the dtype the comparison computes in: torch's common dtype
        want = tname(torch.result_type(a.as_torch(), b.as_torch()))
        got = _compute_dtypes(tr.value)
        if got != [want, want]:
            return Result(True, f"{case.id}: compares in {got}, torch in {want}")
    names = tuple(o.dtype or "" for o in case.operands)
    # pow (and atan2) of large or complex operands is ill-conditioned: 1000 ** (1.5+2j)
    # differs by ~20 ulp between torch's and XLA's complex pow
    res.job = Job(case.id, wop, args, theirs.value, names, ulps=ULPS.get(case.op, 4))
    return res


def _int_argument_refused_per_call(case: Case, fn: Callable[..., Any], args: tuple[Any, ...],
                                   policy: Any) -> bool:  # fmt: skip
    """A Python int argument torch refuses by its value (``where(c, int8_tensor, 1000)``):
    f.trace(...) sees no value, so f(*args) must raise (the value is checked per call)."""
    if not _has(case, lambda o: o.wrapped and type(o.number) is int):
        return False
    called = outcome(lambda: traced(fn, policy)(*args))
    return isinstance(called.error, wt.ArgumentOverflowError)


def _numbers_cases(default: str) -> Iterator[Case]:
    for op in ("add", "sub", "mul", "true_divide"):
        for a, b in itertools.product(numbers(RESULT_TYPE_NUMBERS), repeat=2):
            yield Case("numbers", default, op, (a, b))


def _numbers_torch(case: Case) -> Outcome:
    a, b = case.operands
    fn = {"add": torch.add, "sub": torch.sub, "mul": torch.mul,
          "true_divide": torch.true_divide}[case.op]  # fmt: skip
    return outcome(lambda: fn(a.number, b.number))


def _numbers_check(case: Case, policy: Any) -> Result:
    """torch.add(2, 2.5) (two wrapped numbers make a 0-dim tensor) vs a traced op on two
    Python-number arguments."""
    a, b = case.operands
    return traced_check(case, _numbers_torch(case), BINARY[case.op][1], (a.number, b.number),
                        policy)  # fmt: skip


# -- section: comparisons whose answer depends on the compute dtype ------------------------


def _edge_values() -> dict[str, list[Any]]:
    """Upstream's value_for_type (1 << 5 ... 1 << 35), and second values at the edge of
    each dtype's precision: 2**24 + 1 (int32) equals 2**24 (float32) when compared in
    float32, not in float64 -- so the values tell the compute dtype."""
    return {
        "uint8": [1 << 5, 255], "int8": [1 << 5, 127], "int16": [1 << 10, 2**11 + 1],
        "int32": [1 << 20, 2**24 + 1], "int64": [1 << 35, 2**53 + 1],
        "float16": [1 << 10, 2**11], "bfloat16": [1 << 7, 2**8], "float32": [1 << 20, 2**24],
        "float64": [1 << 35, 2**53], "complex64": [1 << 20, 2**24],
        "complex128": [1 << 35, 2**53],
    }  # fmt: skip


@dataclasses.dataclass(frozen=True)
class EdgeOperand(Operand):
    """An operand holding the edge values of its dtype (or a Python number)."""

    @functools.cache  # noqa: B019
    def as_torch(self) -> Any:
        if self.wrapped:
            return self.number
        vals = _edge_values()[self.dtype]
        return torch.tensor(vals if self.shape else vals[-1], dtype=tdt(self.dtype))

    @property
    def label(self) -> str:
        return "edge:" + super().label


def _edge_cases(default: str) -> Iterator[Case]:
    names = list(_edge_values())
    forms = [EdgeOperand(n, s) for n in names for s in ((2,), ())]
    forms += [EdgeOperand(None, (), v) for v in (2**24, 2**24 + 1, float(2**24), 2**53 + 1)]
    for op in sorted(COMPARISONS):
        for a, b in itertools.product(forms, repeat=2):
            if a.wrapped and b.wrapped:
                continue
            if op not in ("eq", "ne") and (a.kind() == "c" or b.kind() == "c"):
                continue  # complex order: the binary section checks that torch refuses it
            yield Case("compare_values", default, op, (a, b))


# -- section: clamp / clip with mixed-dtype bounds --------------------------------------------


def _clip_cases(default: str) -> Iterator[Case]:
    """Upstream's test_clamp_type_promotion: input, min, max over (bool, int32, float32,
    float64) -- widened here by six dtypes -- with bounds that are tensors or 0-dim tensors
    (in every mix) or Python numbers, or a single bound (clamp_min / clamp_max)."""
    names = ["bool", "int32", "float32", "float64"]
    names += ["uint8", "int8", "int64", "float16", "bfloat16", "complex64"]
    for x, lo, hi in itertools.product(names, repeat=3):
        inp = Operand(x, (2,))
        bounds = [(Operand(lo, sa), Operand(hi, sb, positive=True))
                  for sa, sb in itertools.product(((2,), ()), repeat=2)]  # fmt: skip
        lo_num, hi_num = Operand(lo, ()).as_torch().item(), Operand(hi, (), positive=True)
        bounds.append((Operand(None, (), lo_num), Operand(None, (), hi_num.as_torch().item())))
        for a, b in bounds:
            yield Case("clip", default, "clip", (inp, a, b))
        for one in (Operand(lo, (2,)), Operand(lo, ()), Operand(None, (), lo_num)):
            yield Case("clip", default, "clip_min", (inp, one, None))
            yield Case("clip", default, "clip_max", (inp, None, one))


@functools.cache
def _clip_torch(case: Case) -> Outcome:
    x, lo, hi = (None if o is None else o.as_torch() for o in case.operands)
    return outcome(lambda: torch.clamp(x, lo, hi))


def _clip_both(x: Any, lo: Any, hi: Any) -> Any:
    return wnp.clip(x, lo, hi)


def _clip_min(x: Any, lo: Any) -> Any:
    return wnp.clip(x, min=lo)


def _clip_max(x: Any, hi: Any) -> Any:
    return wnp.clip(x, max=hi)


def _clip_fn(case: Case) -> Callable[..., Any]:
    return {"clip_min": _clip_min, "clip_max": _clip_max}.get(case.op, _clip_both)


def _clip_check(case: Case, policy: Any) -> Result:
    ops = [o for o in case.operands if o is not None]
    args = tuple(o.as_ours() for o in ops)
    return traced_check(case, _clip_torch(case), _clip_fn(case), args, policy,
                        [o.dtype for o in ops])  # fmt: skip


def _cat_cases(default: str) -> Iterator[Case]:
    """Upstream's test_cat_different_dtypes (and a full with an empty tensor), over every
    dtype pair; triples of dtypes too (a sample of them in CI)."""
    for a, b in itertools.product(VALUE_DTYPES, repeat=2):
        yield Case("cat", default, "cat", (Operand(a, (2,)), Operand(b, (2,))))
        yield Case("cat", default, "cat", (Operand(a, (2,)), Operand(b, (0,))))
    for a, b, c in itertools.product(VALUE_DTYPES, repeat=3):
        yield Case("cat", default, "cat", (Operand(a, (2,)), Operand(b, (2,)), Operand(c, (2,))))
    yield Case("cat", default, "cat", (Operand("int8", ()), Operand("float32", ())))


def _cat_torch(case: Case) -> Outcome:
    return outcome(lambda: torch.cat([o.as_torch() for o in case.operands]))


def _cat_fn(*xs: Any) -> Any:
    return wnp.concatenate(list(xs))


def _cat_check(case: Case, policy: Any) -> Result:
    return traced_check(case, _cat_torch(case), _cat_fn,
                        tuple(o.as_ours() for o in case.operands), policy,
                        [o.dtype for o in case.operands])  # fmt: skip


# -- section: reductions ----------------------------------------------------------------------

REDUCTIONS = {"sum": wnp.sum, "prod": wnp.prod, "mean": wnp.mean, "max": wnp.max,
              "min": wnp.min, "all": wnp.all, "any": wnp.any}  # fmt: skip
REDUCTION_DTYPES = ["bool", "int8", "uint8", "int64", "float16", "float32", "float64", "complex64"]


def _reduce_cases(default: str) -> Iterator[Case]:
    for name in VALUE_DTYPES:
        # positive: torch and XLA convert negative floats to unsigned differently (C UB)
        x = Operand(name, (2,), positive=True)
        for op in REDUCTIONS:
            yield Case("reduce", default, op, (x,))
        for op in ("sum", "prod", "mean"):
            for d in REDUCTION_DTYPES:
                yield Case("reduce", default, f"{op}(dtype={d})", (x,))


def _reduce_parts(case: Case) -> tuple[str, str | None]:
    op, _, rest = case.op.partition("(dtype=")
    return op, rest.rstrip(")") or None


def _reduce_torch(case: Case) -> Outcome:
    op, d = _reduce_parts(case)
    t = case.operands[0].as_torch()
    kw = {} if d is None else {"dtype": tdt(d)}
    return outcome(lambda: getattr(t, op)(**kw))


def _reduce_fn(case: Case) -> Callable[[Any], Any]:
    return _reducer(*_reduce_parts(case))


@functools.cache
def _reducer(op: str, d: str | None) -> Callable[[Any], Any]:
    kw = {} if d is None else {"dtype": np_dtype(d)}
    return lambda x: REDUCTIONS[op](x, **kw)


def _reduce_check(case: Case, policy: Any) -> Result:
    x = case.operands[0]
    return traced_check(case, _reduce_torch(case), _reduce_fn(case), (x.as_ours(),), policy,
                        [x.dtype, _reduce_parts(case)[1]])  # fmt: skip


# -- section: unary ops -----------------------------------------------------------------------

UNARY = {
    "neg": (torch.neg, wnp.negative), "abs": (torch.abs, wnp.abs),
    "sign": (torch.sign, wnp.sign), "sqrt": (torch.sqrt, wnp.sqrt),
    "exp": (torch.exp, wnp.exp), "sin": (torch.sin, wnp.sin), "log": (torch.log, wnp.log),
    "tanh": (torch.tanh, wnp.tanh), "expm1": (torch.expm1, wnp.expm1),
    "floor": (torch.floor, wnp.floor), "ceil": (torch.ceil, wnp.ceil),
    "round": (torch.round, wnp.round), "trunc": (torch.trunc, wnp.trunc),
    "square": (torch.square, wnp.square), "reciprocal": (torch.reciprocal, wnp.reciprocal),
    "logical_not": (torch.logical_not, wnp.logical_not),
    "bitwise_not": (torch.bitwise_not, wnp.bitwise_not),
    "isnan": (torch.isnan, wnp.isnan), "isfinite": (torch.isfinite, wnp.isfinite),
    "real": (torch.real, wnp.real), "imag": (torch.imag, wnp.imag),
    "conj": (lambda t: torch.conj(t).resolve_conj(), wnp.conj),
}  # fmt: skip


def _unary_cases(default: str) -> Iterator[Case]:
    for op in UNARY:
        for x in tensors(VALUE_DTYPES, shapes=((2,),)):
            yield Case("unary", default, op, (x,))


def _unary_torch(case: Case) -> Outcome:
    return outcome(lambda: UNARY[case.op][0](case.operands[0].as_torch()))


def _unary_check(case: Case, policy: Any) -> Result:
    x = case.operands[0]
    return traced_check(case, _unary_torch(case), UNARY[case.op][1], (x.as_ours(),), policy,
                        [x.dtype])  # fmt: skip


# -- section: creation (upstream's test_create_bool_tensors, and default dtypes) -----------

CREATION: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
    "arange(3)": (lambda: torch.arange(3), lambda: wnp.arange(3)),
    "arange(False, True)": (lambda: torch.arange(False, True),
                            lambda: wnp.arange(False, True)),
    "arange(True)": (lambda: torch.arange(True), lambda: wnp.arange(True)),
    "arange(0, 1, 0.5)": (lambda: torch.arange(0, 1, 0.5), lambda: wnp.arange(0, 1, 0.5)),
    "full(2.5)": (lambda: torch.full((2,), 2.5), lambda: wnp.full((2,), 2.5)),
    "full(3)": (lambda: torch.full((2,), 3), lambda: wnp.full((2,), 3)),
    "full(True)": (lambda: torch.full((2,), True), lambda: wnp.full((2,), True)),
    "full(1j)": (lambda: torch.full((2,), 1j), lambda: wnp.full((2,), 1j)),
    "zeros": (lambda: torch.zeros(2), lambda: wnp.zeros((2,))),
    "ones": (lambda: torch.ones(2), lambda: wnp.ones((2,))),
    "tensor([1, 2.5])": (lambda: torch.tensor([1, 2.5]), lambda: wnp.array([1, 2.5])),
    "tensor([1, 2])": (lambda: torch.tensor([1, 2]), lambda: wnp.array([1, 2])),
    "tensor([True, 1])": (lambda: torch.tensor([True, 1]), lambda: wnp.array([True, 1])),
    "tensor([1, 1j])": (lambda: torch.tensor([1, 1j]), lambda: wnp.array([1, 1j])),
    "tensor(2.5)": (lambda: torch.tensor(2.5), lambda: wnp.asarray(2.5)),
    "full_like(int8, 2.5)": (lambda: torch.full_like(torch.ones(2, dtype=torch.int8), 2.5),
                             lambda: wnp.full_like(np.ones(2, np.int8), 2.5)),
}  # fmt: skip


def _creation_cases(default: str) -> Iterator[Case]:
    for op in CREATION:
        yield Case("creation", default, op)


def _creation_torch(case: Case) -> Outcome:
    return outcome(CREATION[case.op][0])


def _creation_check(case: Case, policy: Any) -> Result:
    return traced_check(case, _creation_torch(case), CREATION[case.op][1], (), policy)


# -- section: the Python ints torch takes as wrapped numbers ---------------------------------

BIG_INTS = (2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 2**100)


def _int_range_cases(default: str) -> Iterator[Case]:
    for mode in ("result_type", "argument", "constant"):
        for x in (Operand("int8", (2,)), Operand("int64", ()), Operand("float32", (2,)),
                  Operand("float64", ()), Operand("bool", (2,)), Operand("uint8", ())):  # fmt: skip
            for v in BIG_INTS:
                yield Case("int_range", default, mode, (x, Operand(None, (), v)))


def _int_range_torch(case: Case) -> Outcome:
    x, v = case.operands
    if case.op == "result_type":
        return outcome(lambda: torch.result_type(x.as_torch(), v.number))
    return outcome(lambda: x.as_torch() + v.number)


def _int_range_check(case: Case, policy: Any) -> Result:
    x, v = case.operands
    theirs = _int_range_torch(case)
    xs = x.as_ours()
    if case.op == "result_type":
        ours = outcome(lambda: wt.result_type(xs, v.number, policy=policy))
        return compare(case, theirs, ours)
    if case.op == "argument":
        return traced_check(case, theirs, operator.add, (xs, v.number), policy, [x.dtype])
    return traced_check(case, theirs, _adder(v.number), (xs,), policy, [x.dtype])


@functools.cache
def _adder(n: int) -> Callable[[Any], Any]:
    """``lambda a: a + n``: n enters the trace as a constant, not an argument."""
    return lambda a: a + n


# -- the sections ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Section:
    cases: Callable[[str], Iterator[Case]]
    torch_outcome: Callable[[Case], Outcome]
    check: Callable[[Case, Any], Result]
    rate: int = 1  # CI checks one case in `rate` (by a hash of its id); --run-slow all
    value_rate: int = 1  # ... and compiles one in `value_rate`


SECTIONS: dict[str, Section] = {
    "promote_types": Section(_promote_cases, _promote_torch, _promote_check),
    "result_type": Section(_result_type_cases, _result_type_torch, _result_type_check),
    "result_type3": Section(_triple_cases, _triple_torch, _triple_check, rate=120),
    "binary": Section(_binary_cases, _binary_torch, _binary_check, rate=40, value_rate=640),
    "numbers": Section(_numbers_cases, _numbers_torch, _numbers_check, value_rate=2),
    "compare_values": Section(_edge_cases, _binary_torch, _binary_check, rate=4, value_rate=48),
    "clip": Section(_clip_cases, _clip_torch, _clip_check, rate=20, value_rate=256),
    "cat": Section(_cat_cases, _cat_torch, _cat_check, rate=64, value_rate=320),
    "reduce": Section(_reduce_cases, _reduce_torch, _reduce_check, rate=1, value_rate=20),
    "unary": Section(_unary_cases, _unary_torch, _unary_check, rate=1, value_rate=20),
    "creation": Section(_creation_cases, _creation_torch, _creation_check),
    "int_range": Section(_int_range_cases, _int_range_torch, _int_range_check),
}


def torch_verdict(case: Case) -> str:
    return verdict(case, SECTIONS[case.section].torch_outcome(case))


def torch_gives_value(case: Case) -> bool:
    return torch_verdict(case) == "value"


# -- known mismatches, by root cause ---------------------------------------------------------

BIG_UINTS = {"uint16", "uint32", "uint64"}
FLOAT8 = {n for n in TORCH_DTYPES if n.startswith("float8")}


def _has(case: Case, pred: Callable[[Operand], bool]) -> bool:
    return any(o is not None and pred(o) for o in case.operands)


@dataclasses.dataclass(frozen=True)
class Known:
    sections: tuple[str, ...]  # where it can apply (the predicate is asked only there)
    reason: str
    applies: Callable[[Case], bool]
    stage: str = "dtype"  # "values": the dtype agrees, the compiled run does not


# None today: the last one (torch's float8 conversions of values the type cannot hold) is
# lowered with torch's rounding since session 13 (`Policy.roundings`).
KNOWN_MISMATCHES: dict[str, Known] = {}


def known(case: Case) -> tuple[str, Known] | None:
    for name, k in KNOWN_MISMATCHES.items():
        if case.section in k.sections and k.applies(case):
            return name, k
    return None


# -- the sweep driver --------------------------------------------------------------------------


def keep(case_id: str, rate: int) -> bool:
    return rate <= 1 or zlib.crc32(case_id.encode()) % rate == 0


def run_section(name: str, default: str, full: bool) -> tuple[int, int]:
    """Check a section's (sampled) cases; returns (cases compared, values compiled)."""
    sec = SECTIONS[name]
    failures: list[str] = []
    jobs: list[Job] = []
    compared = checked = 0
    with torch_default(default) as policy:
        for case in sec.cases(default):
            if not (full or keep(case.id, sec.rate)):
                continue
            k = known(case)
            if k is not None and k[1].stage == "dtype":
                continue  # test_known_mismatch runs it
            checked += 1
            res = sec.check(case, policy)
            compared += res.compared
            if res.failure:
                failures.append(res.failure)
            elif res.job is not None and k is None and (full or keep(case.id, sec.value_rate)):
                jobs.append(res.job)
        failures += run_values(jobs, policy)
    print(
        f"\nPEER-SUMMARY torch {name}[{default}] full={full}: cases={checked} "
        f"verdicts={compared} values={len(jobs)} mismatches={len(failures)}"
    )
    assert not failures, f"{len(failures)} disagreements with torch:\n" + "\n".join(failures[:60])
    assert compared, f"{name}: torch gave no verdict on any case"
    return compared, len(jobs)


@pytest.mark.parametrize("default", DEFAULTS)
def test_promote_types_every_pair(default, full):
    compared, _ = run_section("promote_types", default, full)
    with torch_default(default):
        left_out = sum(1 for c in _promote_cases(default) if known(c) is not None)
    assert compared == len(TORCH_DTYPES) ** 2 - left_out  # every other pair had a verdict


@pytest.mark.parametrize("default", DEFAULTS)
def test_result_type_tensor_zero_dim_and_wrapped_number(default, full):
    run_section("result_type", default, full)


@pytest.mark.slow
@pytest.mark.parametrize("default", DEFAULTS)
def test_result_type_of_three_operands(default, full):
    run_section("result_type3", default, full)


@pytest.mark.slow
@pytest.mark.parametrize("default", DEFAULTS)
def test_binary_ops_traced_and_compiled(default, full):
    _, compiled = run_section("binary", default, full)
    assert compiled > 20, "too few compiled values compared"


@pytest.mark.parametrize("default", DEFAULTS)
def test_ops_on_two_wrapped_numbers(default, full):
    run_section("numbers", default, full)


@pytest.mark.parametrize("default", DEFAULTS)
def test_comparisons_compute_in_the_common_dtype(default, full):
    _, compiled = run_section("compare_values", default, full)
    assert compiled > 20


@pytest.mark.slow
@pytest.mark.parametrize("default", DEFAULTS)
def test_clamp_with_mixed_dtype_bounds(default, full):
    run_section("clip", default, full)


@pytest.mark.slow
@pytest.mark.parametrize("default", DEFAULTS)
def test_cat_of_mixed_dtypes(default, full):
    run_section("cat", default, full)


@pytest.mark.parametrize("default", DEFAULTS)
def test_reductions_accumulation_dtypes(default, full):
    run_section("reduce", default, full)


@pytest.mark.parametrize("default", DEFAULTS)
def test_unary_ops(default, full):
    run_section("unary", default, full)


@pytest.mark.parametrize("default", DEFAULTS)
def test_creation_dtypes(default, full):
    run_section("creation", default, full)


@pytest.mark.parametrize("default", DEFAULTS)
def test_python_int_range_of_wrapped_numbers(default, full):
    run_section("int_range", default, full)


# -- ports of upstream spot checks that the sweeps reach only in a sample --------------------


@pytest.mark.parametrize("default", DEFAULTS)
@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_true_division_of_integers_gives_the_default_float(default, name):
    """Upstream's test_div_promotion: int / int, int / 2.0 and int / 2 divide in the
    default dtype."""
    with torch_default(default) as policy:
        dividend = torch.tensor([7, -3, 5, 100, -128], dtype=tdt(name))
        divisor = torch.arange(1, 6).to(tdt(name))
        if name == "bool":
            divisor = torch.ones(5, dtype=torch.bool)
        x, y = to_numpy(dividend).astype(np_dtype(name)), to_numpy(divisor).astype(np_dtype(name))
        jobs = []
        for other_t, other_x in ((divisor, y), (2.0, 2.0), (2, 2)):
            want = torch.true_divide(dividend, other_t)
            assert want.dtype == tdt(default)  # the premise, from torch itself
            f = traced(operator.truediv, policy)
            assert dname(f.trace(x, other_x).out_avals.dtype) == default
            jobs.append(Job(f"{name} / {other_t!r}", operator.truediv, (x, other_x), want, ()))
        assert not run_values(jobs, policy)


@pytest.mark.parametrize("default", DEFAULTS)
def test_bool_arithmetic(default):
    """Upstream's test_booleans: bool + bool and bool + True stay bool (logical or),
    bool - bool and -bool are refused, with values."""
    with torch_default(default) as policy:
        t = torch.tensor([True, False])
        x = to_numpy(t)
        jobs = []
        for label, tf, wf, args in (
            ("b + b", lambda: t + t, operator.add, (x, x)),
            ("b + True", lambda: t + True, operator.add, (x, True)),
            ("b * b", lambda: t * t, operator.mul, (x, x)),
            ("b * 2", lambda: t * 2, operator.mul, (x, 2)),
            ("b + 2.5", lambda: t + 2.5, operator.add, (x, 2.5)),
        ):
            want = tf()
            assert dname(traced(wf, policy).trace(*args).out_avals.dtype) == tname(want.dtype)
            jobs.append(Job(label, wf, args, want, ()))
        assert not run_values(jobs, policy)
        for tf, wf in ((lambda: t - t, lambda a: a - a), (lambda: -t, lambda a: -a)):
            with pytest.raises(RuntimeError):
                tf()
            with pytest.raises(wt.WeaktraceError):
                wt.trace(wf, policy=policy).trace(x)


@pytest.mark.parametrize("default", DEFAULTS)
def test_reported_clamp_int32_with_float64_zero_dim_and_float32_bounds(default):
    """The reported case: torch.clamp(int32[2], float64 0-dim, float32[2]) against
    wnp.clip under policy torch (dtype, then values); the sweep's clip section holds
    its whole family."""
    with torch_default(default) as policy:
        x = torch.tensor([1, 5], dtype=torch.int32)
        lo = torch.tensor(2.5, dtype=torch.float64)
        hi = torch.tensor([3.5, 4.0], dtype=torch.float32)
        want = torch.clamp(x, lo, hi)
        args = (to_numpy(x).astype(np.int32), np.array(2.5), np.array([3.5, 4.0], np.float32))
        fn = _clip_fn(Case("clip", default, "clip"))
        got = wt.trace(fn, policy=policy).trace(*args).out_avals.dtype
        assert dname(got) == tname(want.dtype), f"torch {want.dtype}, weaktrace {got}"
        assert not run_values(
            [Job("clamp", fn, args, want, ("int32", "float64", "float32"))], policy
        )


# Python number arguments returned as they are, or through operations that do not
# join them with anything (broadcast, reshape, stack): each output's dtype is torch's
# for the number made a tensor; next to other operands, the number keeps its double value.
NUMBER_OUTPUTS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "identity": (lambda n: torch.tensor(n), lambda n: n),
    "broadcast": (lambda n: torch.tensor(n).expand(3), lambda n: wnp.broadcast_to(n, (3,))),
    "stack": (lambda n: torch.stack([torch.tensor(n)] * 2), lambda n: wnp.stack([n, n])),
    "pair": (lambda n: (torch.tensor(n), torch.tensor(n) * 2), lambda n: (n, n * 2)),
    "f64 + n": (lambda n: torch.ones(2, dtype=torch.float64) + n,
                lambda n: np.ones(2, np.float64) + n),
    "f32 + n": (lambda n: torch.ones(2, dtype=torch.float32) + n,
                lambda n: np.ones(2, np.float32) + n),
}  # fmt: skip


NUMBER_ARGUMENTS = [2.5, 1j, True, 0.1, -1e-3, 0.1 - 2.5j, 3]


@pytest.mark.parametrize("default", DEFAULTS)
@pytest.mark.parametrize("how", sorted(NUMBER_OUTPUTS))
def test_python_number_argument_runs_in_its_traced_dtype(default, how, full):
    """Regression (weak-scalar-argument-runtime-dtype): a Python float argument entered
    jax.jit as float64 and the compiled identity returned it so, where f.trace said
    float32 (torch.tensor(2.5) is float32). Traced and compiled dtypes and values
    against torch; f64_array + 0.1 must still add 0.1 in double precision."""
    tf, wf = NUMBER_OUTPUTS[how]
    with torch_default(default) as policy:
        f = wt.trace(wf, policy=policy)
        for number in NUMBER_ARGUMENTS if full else NUMBER_ARGUMENTS[:3]:
            theirs = outcome(lambda number=number: tf(number))
            if verdict(Case("binary", default, "add"), theirs) != "value":
                continue
            want = theirs.value if isinstance(theirs.value, tuple) else (theirs.value,)
            traced = f.trace(number).out_avals
            traced = (traced,) if isinstance(traced, wt.AbstractValue) else traced
            label = f"{how}({number!r})"
            assert [dname(a.dtype) for a in traced] == [tname(t.dtype) for t in want], label
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = f(number)
            got = got if isinstance(got, tuple) else (got,)
            for g, t in zip(got, want, strict=True):
                g = np.asarray(g)
                assert g.dtype.name == tname(t.dtype), f"{label} compiled"
                np.testing.assert_array_equal(g, to_numpy(t).astype(g.dtype), label)


# -- regressions: torch's kernel rules, each against torch (and jax's kept under policy jax) ---


def _agree(theirs: Outcome, fn: Callable[..., Any], args: tuple[Any, ...], policy: Any,
           label: str) -> None:  # fmt: skip
    """torch's outcome against the compiled call of `fn` (dtype and values), or both raise
    (weaktrace with one of its own errors)."""
    ours = outcome(lambda: traced(fn, policy)(*args))  # one jax.jit per function
    if theirs.error is not None:
        shown = ours.value if ours.error is None else repr(ours.error)
        assert isinstance(ours.error, wt.WeaktraceError), (
            f"{label}: torch raises {theirs.error!r}; weaktrace gives {shown}"
        )
        return
    assert ours.error is None, f"{label}: torch gives a value; weaktrace raises {ours.error!r}"
    want = theirs.value
    got = np.asarray(ours.value)
    assert got.dtype.name == LOWERED.get(tname(want.dtype), tname(want.dtype)), label
    np.testing.assert_array_equal(got.astype(to_numpy(want).dtype), to_numpy(want), label)


INT_NAMES = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_power_uses_the_whole_exponent(name):
    """Integer ** integer array, exponents across the dtype's range (negative ones too):
    torch raises to the whole exponent modulo 2**bits; so must policy torch."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    info = np.iinfo(name)
    n = 64
    base = rng.integers(max(info.min, -5), min(info.max, 6), n, endpoint=True).astype(name)
    exp = rng.integers(max(info.min, -300), info.max, n, endpoint=True).astype(name)
    with torch_default("float32") as policy:
        theirs = outcome(lambda: torch.from_numpy(base) ** torch.from_numpy(exp))
        _agree(theirs, operator.pow, (base, exp), policy, f"{name} ** {name}")


def test_integer_power_keeps_six_steps_under_policy_jax():
    """jax.numpy's six squarings are jax's semantics: policy jax keeps them (jnp oracle)."""
    import jax.numpy as jnp

    base, exp = np.array([3, 2, 5], np.int32), np.array([100, 70, 64], np.int32)
    want = np.asarray(jnp.power(base, exp))
    got = np.asarray(wt.trace(operator.pow)(base, exp))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("default", DEFAULTS)
@pytest.mark.parametrize("number", [True, False])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_bool_power_of_a_python_bool_stays_bool(default, number, shape):
    x = np.array([True, False, True])[: shape[0] if shape else 1].reshape(shape)
    with torch_default(default) as policy:
        theirs = outcome(lambda: torch.from_numpy(x) ** number)
        _agree(theirs, operator.pow, (x, number), policy, f"bool{shape} ** {number}")
        _agree(theirs, lambda a: a**number, (x,), policy, f"bool{shape} ** {number} (constant)")


@pytest.mark.parametrize("name", [*INT_NAMES, "bool"])
@pytest.mark.parametrize("op", ["where_right", "where_left", "pow"])
def test_python_int_checked_against_the_result_dtype(name, op, full):
    """where(c, x, n), where(c, n, x) and x ** n check that the Python int n fits the
    result dtype (c10's checked Scalar conversion; unsigned types take -max..max): at
    trace time for a constant, per call for an argument. Values at the dtype's edges."""
    x = np.array([1, 0, 1]).astype(name)
    cond = np.array([True, False, True])
    hi = int(np.iinfo(name).max) if name not in ("float16", "float32", "bool") else 70000
    lo = int(np.iinfo(name).min) if name not in ("float16", "float32", "bool") else -70000
    numbers = sorted({hi, hi + 1, lo, lo - 1, -hi, -hi - 1, 1000, -7, 3})
    if not full:  # CI: the edges that decide (--run-slow: all)
        numbers = [hi, hi + 1, -hi - 1]
    torch_fns = {
        "where_right": lambda t, n: torch.where(torch.from_numpy(cond), t, n),
        "where_left": lambda t, n: torch.where(torch.from_numpy(cond), n, t),
        "pow": lambda t, n: t**n,
    }
    our_fns = {
        "where_right": lambda a, n: wnp.where(cond, a, n),
        "where_left": lambda a, n: wnp.where(cond, n, a),
        "pow": lambda a, n: a**n,
    }
    with torch_default("float32") as policy:
        for n in numbers:
            if op == "pow" and n < 0:
                continue  # integer ** negative number: see test_python_int_checks_left
            theirs = outcome(lambda n=n: torch_fns[op](torch.from_numpy(x), n))
            if verdict(Case("binary", "float32", op), theirs) == "skip":
                continue
            _agree(theirs, our_fns[op], (x, n), policy, f"{op}({name}, {n}) argument")
            const = functools.partial(lambda a, n: our_fns[op](a, n), n=n)
            _agree(theirs, const, (x,), policy, f"{op}({name}, {n}) constant")


CHECKED_EXPONENTS = [-7, -1, 0, 2, 65504, 65505, 70000, -65505, -70001, 2**40, 65504.0,
                     65504.5, 7e4, -7e4, 1e300, math.inf, -math.inf, math.nan, 2.5]  # fmt: skip


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int64", "float16", "bfloat16",
                                  "float32", "float64", "complex64"])  # fmt: skip
def test_python_number_exponent_checks(name, full):
    """Regression (python-int-checks-left): torch raises for int_tensor ** -7 (a
    negative wrapped exponent: "Integers to negative integer powers are not allowed")
    and for float16_tensor ** 70000 (the exponent's checked conversion to Half); so must
    weaktrace, for a constant exponent at trace time and for an argument per call.
    Every verdict, raise or value, is torch's."""
    x = np.array([1, 0, 1]).astype(np_dtype(name))
    numbers = CHECKED_EXPONENTS if full else [-1, 2, 65505, 7e4]  # CI: the deciding ones
    if not full and name in ("bool", "int64"):  # an int64 power compiles 64 steps: CI
        numbers = [-1]  # checks the refusal (test_python_int_checked_... checks values)
    with torch_default("float32") as policy:
        for n in numbers:
            t = torch.tensor([1, 0, 1], dtype=tdt(name))
            theirs = outcome(lambda t=t, n=n: t**n)
            if verdict(Case("binary", "float32", "pow"), theirs) == "skip":
                continue
            if theirs.error is None and np.isnan(to_numpy(theirs.value).real).any():
                continue  # nan values (x ** nan): the dtype is compared by the sweep
            _agree(theirs, operator.pow, (x, n), policy, f"{name} ** {n!r} argument")
            const = functools.partial(lambda a, n: a**n, n=n)
            _agree(theirs, const, (x,), policy, f"{name} ** {n!r} constant")


@pytest.mark.parametrize("name", sorted(BIG_UINTS | FLOAT8 - {"float8_e8m0fnu"}))
@pytest.mark.parametrize("number", [True, False])
def test_python_bool_argument_is_a_wrapped_number(name, number):
    """A Python bool passed to a compiled call is a wrapped number, as in f.trace(...):
    with a 0-dim uint16/32/64 or float8 tensor torch promotes it (a 0-dim bool tensor
    would be refused)."""
    x = np.array(2).astype(np_dtype(name))
    with torch_default("float32") as policy:
        for op in (operator.add, operator.mul, operator.eq):
            theirs = outcome(lambda op=op: op(torch.from_numpy(to_numpy(torch.tensor(2)))
                                              .to(tdt(name)), number))  # fmt: skip
            if verdict(Case("binary", "float32", "add"), theirs) == "skip":
                continue
            _agree(theirs, op, (x, number), policy, f"{op.__name__}({name}[], {number})")


def test_complex32_arguments_compute_as_complex64():
    """A complex32 argument of a compiled call is traced as complex32 and enters jax as
    complex64 (its lowering dtype): dtypes as torch's, values to complex32's precision."""
    x = np.array([1.5 + 2j, -2.25 + 0.5j, 0.5 - 1j])
    tx = torch.from_numpy(x).to(torch.complex32)
    ours = to_numpy(tx).astype(np_dtype("complex32"))
    cases = [
        ("abs", torch.abs, wnp.abs), ("real", torch.real, wnp.real),
        ("imag", torch.imag, wnp.imag), ("x + 3", lambda t: t + 3, lambda a: a + 3),
        ("x * f16", lambda t: t * torch.tensor(2.0, dtype=torch.float16),
         lambda a: a * np.float16(2.0)),
    ]  # fmt: skip
    with torch_default("float32") as policy:
        for label, tf, wf in cases:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = tf(tx)
                assert dname(wt.trace(wf, policy=policy).trace(ours).out_avals.dtype) == tname(
                    want.dtype
                ), label
                job = Job(label, wf, (ours,), want, ("complex32",))
            assert not run_values([job], policy), label


# -- the known mismatches, one xfail(strict) item per case -------------------------------------


@functools.cache
def known_cases(full: bool) -> list[tuple[str, Case]]:
    """Every case a KNOWN_MISMATCHES entry covers (membership asks torch, case by case).
    CI: the first two of each entry and a hash sample of the rest; --run-slow: all."""
    out: list[tuple[str, Case]] = []
    seen: dict[str, int] = {}
    for default in DEFAULTS:
        with torch_default(default):
            for sec in SECTIONS.values():
                for case in sec.cases(default):
                    k = known(case)
                    if k is None:
                        continue
                    seen[k[0]] = seen.get(k[0], 0) + 1
                    if full or seen[k[0]] <= 2 or keep(case.id, 100):
                        out.append((k[0], case))
    return out


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "known_case" not in metafunc.fixturenames:
        return
    params = [
        pytest.param(
            case,
            id=case.id,
            marks=pytest.mark.xfail(
                strict=True, raises=AssertionError,
                reason=f"{group}: {KNOWN_MISMATCHES[group].reason}",
            ),
        )
        for group, case in known_cases(full_run(metafunc.config))
    ]  # fmt: skip
    metafunc.parametrize("known_case", params)


def test_known_mismatch(known_case):
    """Asserts agreement with torch for a case of a KNOWN_MISMATCHES entry: it fails (xfail)
    while the mismatch lasts; once fixed it passes, strict xfail fails, and the entry
    must go. A case torch gives no verdict on is an error of the entry, not an xfail."""
    sec = SECTIONS[known_case.section]
    with torch_default(known_case.default) as policy:
        res = sec.check(known_case, policy)
        if not res.compared:
            pytest.fail(f"{known_case.id}: torch gives no verdict; the entry is too wide")
        assert res.failure is None, res.failure
        if res.job is not None:
            failures = run_values([res.job], policy)
            assert not failures, failures[0]


def test_every_known_mismatch_has_cases():
    """An entry that matches no case is dead weight (or a typo)."""
    groups = {group for group, _ in known_cases(False)}  # as collected: cached
    assert groups == set(KNOWN_MISMATCHES), set(KNOWN_MISMATCHES) - groups
