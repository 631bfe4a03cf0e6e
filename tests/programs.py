"""Random programs written once as ``prog(xnp, *args)`` and run with any numpy-like module.

A program is data: argument specs and a list of steps; each step applies one
operation (a jax.numpy function name, an operator, a method) to earlier values or
fresh Python scalar literals. `make_fn(program, xnp)` turns it into a function of
its arguments, for ``jax.numpy`` under ``jax.make_jaxpr`` and for
``weaktrace.numpy`` under ``weaktrace.trace``.
"""

from __future__ import annotations

import dataclasses
import operator
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from hypothesis import strategies as st

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "int4", "uint4", "bfloat16", "float16", "float32", "float64", "complex64",
    "complex128", "float8_e4m3fn", "float8_e5m2",
]  # fmt: skip
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1)]
SCALARS = [0, 1, 2, -3, 7, 300, 2.5, -0.5, 1e3, 1j, 2 + 0.5j, True, False]

UNARY = [
    "negative", "positive", "abs", "absolute", "sign", "square", "sqrt", "cbrt", "reciprocal",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "real",
    "imag", "conj", "conjugate", "logical_not", "bitwise_not", "invert", "isfinite", "isnan",
    "isinf", "ravel", "transpose", "sum", "prod", "max", "min", "mean", "argmax", "argmin",
    "all", "any", "zeros_like", "ones_like", "asarray", "array",
]  # fmt: skip
BINARY = [
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod",
    "power", "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "left_shift", "right_shift", "arctan2", "full_like",
]  # fmt: skip
OPERATORS = {
    "op_add": operator.add, "op_sub": operator.sub, "op_mul": operator.mul,
    "op_truediv": operator.truediv, "op_floordiv": operator.floordiv, "op_mod": operator.mod,
    "op_pow": operator.pow, "op_and": operator.and_, "op_or": operator.or_,
    "op_xor": operator.xor, "op_lt": operator.lt, "op_ge": operator.ge, "op_eq": operator.eq,
    "op_ne": operator.ne, "op_lshift": operator.lshift, "op_rshift": operator.rshift,
}  # fmt: skip
TERNARY = ["where", "clip", "stack", "concatenate"]
METHODS = ["astype", "T", "index0", "index_slice", "newaxis", "expand_dims", "reshape_flat",
           "sum_axis0", "mean_keepdims", "max_axis_last", "neg_op", "abs_op", "invert_op",
           "sum_method", "matmul", "dot", "zeros", "full"]  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Step:
    op: str
    operands: tuple[int, ...]  # indices into the value pool; -1-k means SCALARS[k]
    param: Any = None


@dataclasses.dataclass(frozen=True)
class Program:
    args: tuple[tuple[str, Any, Any], ...]  # (kind, dtype-or-value, shape)
    steps: tuple[Step, ...]
    n_out: int

    def __str__(self) -> str:
        lines = [f"args: {list(self.args)}"]
        for i, s in enumerate(self.steps):
            param = "" if s.param is None else s.param
            lines.append(f"  v{len(self.args) + i} = {s.op}{s.operands} {param}")
        return "\n".join(lines)


def _arg_spec() -> st.SearchStrategy[tuple[str, Any, Any]]:
    array = st.tuples(st.just("array"), st.sampled_from(DTYPES), st.sampled_from(SHAPES))
    jax_array = st.tuples(st.just("jax"), st.sampled_from(DTYPES), st.sampled_from(SHAPES))
    weak = st.tuples(
        st.just("weak"), st.sampled_from(["int", "float", "complex"]), st.sampled_from(SHAPES)
    )
    scalar = st.tuples(
        st.just("scalar"), st.sampled_from([3, -2, 1.5, 0.25, 2j, True]), st.just(())
    )
    npscalar = st.tuples(st.just("npscalar"), st.sampled_from(DTYPES), st.just(()))
    return st.one_of(array, array, jax_array, weak, scalar, npscalar)


@st.composite
def programs(draw: Any, max_steps: int = 6) -> Program:
    args = tuple(draw(st.lists(_arg_spec(), min_size=1, max_size=3)))
    n_steps = draw(st.integers(1, max_steps))
    steps = []
    for i in range(n_steps):
        pool = len(args) + i
        value = st.integers(0, pool - 1)
        maybe_scalar = st.one_of(value, value, st.integers(-len(SCALARS), -1))
        kind = draw(st.sampled_from(["unary", "binary", "binary", "operator", "ternary", "method"]))
        if kind == "unary":
            steps.append(Step(draw(st.sampled_from(UNARY)), (draw(value),)))
        elif kind == "binary":
            steps.append(Step(draw(st.sampled_from(BINARY)), (draw(value), draw(maybe_scalar))))
        elif kind == "operator":
            a, b = draw(value), draw(maybe_scalar)
            if draw(st.booleans()):
                a, b = b, a  # reflected operators: scalar op array
            steps.append(Step(draw(st.sampled_from(sorted(OPERATORS))), (a, b)))
        elif kind == "ternary":
            steps.append(
                Step(
                    draw(st.sampled_from(TERNARY)),
                    (draw(value), draw(maybe_scalar), draw(maybe_scalar)),
                )
            )
        else:
            steps.append(Step(draw(st.sampled_from(METHODS)), (draw(value), draw(maybe_scalar)),
                              draw(st.sampled_from(DTYPES))))  # fmt: skip
    n_out = draw(st.integers(1, min(3, len(args) + n_steps)))
    return Program(args, tuple(steps), n_out)


def make_args(program: Program, seed: int = 0, x64: bool = True) -> list[Any]:
    """Concrete arguments, jax arrays made in the mode they will be used in (a 64-bit
    jax array under x32 is a state JAX itself handles inconsistently)."""
    rng = np.random.default_rng(seed)
    out = []
    for kind, what, shape in program.args:
        if kind == "scalar":
            out.append(what)
        elif kind == "weak":
            base = {"int": 3, "float": 1.5, "complex": 1 + 2j}[what]
            with jax.enable_x64(x64):
                out.append(jnp.full(shape, base) if shape else jnp.asarray(base))
        else:
            values = _values(rng, np.dtype(getattr(ml_dtypes, what, what)), shape)
            if kind == "npscalar":
                out.append(values[()] if values.shape == () else values.ravel()[0])
            elif kind == "jax":
                with jax.enable_x64(x64), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out.append(jnp.asarray(values))
            else:
                out.append(values)
    return out


def _values(rng: np.random.Generator, dt: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    if dt == np.dtype(bool):
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu" or dt.name in ("int4", "uint4"):
        lo = 0 if (dt.kind == "u" or dt.name == "uint4") else -5
        return rng.integers(lo, 6, shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dt)
    return rng.uniform(-2, 2, shape).astype(np.float32).astype(dt)


def make_fn(program: Program, xnp: Any) -> Callable[..., Any]:
    """The program as a function of its arguments, calling `xnp` for every operation."""

    def fn(*args: Any) -> Any:
        pool = list(args)
        for s in program.steps:
            vals = [pool[i] if i >= 0 else SCALARS[-1 - i] for i in s.operands]
            pool.append(_apply(xnp, s, vals))
        return tuple(pool[-program.n_out :])

    return fn


_INT_DIVISIONS = {"floor_divide", "remainder", "mod", "op_floordiv", "op_mod"}


def _safe_divisor(xnp: Any, y: Any) -> Any:
    """XLA's constant folder traps (SIGFPE, killing the process) on an integer 0 // 0
    it can see at compile time, e.g. ``(x - x) // 0`` -- in jax.jit of jax.numpy code
    too. Programs therefore never divide integers by zero; the same substitution is
    made on both sides, so the comparison is unchanged."""
    if isinstance(y, bool | int) and not y:
        return 2
    kind = np.dtype(getattr(y, "dtype", np.float32)).kind if hasattr(y, "dtype") else "f"
    if kind in "iu":
        return xnp.where(xnp.equal(y, 0), 1, y)
    if kind == "b":  # bools divide as integers: False would be a zero divisor
        return xnp.logical_or(y, True)
    return y


def _apply(xnp: Any, s: Step, v: list[Any]) -> Any:
    op = s.op
    if op in _INT_DIVISIONS:
        v = [v[0], _safe_divisor(xnp, v[1])]
    if op in OPERATORS:
        return OPERATORS[op](v[0], v[1])
    if op in ("asarray", "array"):
        return getattr(xnp, op)(v[0])
    if op in UNARY:
        return getattr(xnp, op)(v[0])
    if op == "full_like":
        return xnp.full_like(v[0], v[1])
    if op in BINARY:
        return getattr(xnp, op)(v[0], v[1])
    if op == "where":
        return xnp.where(xnp.greater(v[0], 0) if _dtype_kind(v[0]) != "c" else True, v[1], v[2])
    if op == "clip":
        return xnp.clip(v[0], v[1], v[2])
    if op in ("stack", "concatenate"):
        x = xnp.asarray(v[0])
        y = xnp.broadcast_to(xnp.asarray(v[1]), x.shape)
        if op == "stack":
            return xnp.stack([x, y])
        return xnp.concatenate([xnp.ravel(x), xnp.ravel(y)])
    return _method(xnp, s, v)


def _dtype_kind(x: Any) -> str:
    dt = getattr(x, "dtype", None)
    if dt is None:
        return {bool: "b", int: "i", float: "f", complex: "c"}[type(x)]
    return "c" if np.dtype(dt).kind == "c" else "x"


def _method(xnp: Any, s: Step, v: list[Any]) -> Any:
    x = xnp.asarray(v[0])
    op, dt = s.op, getattr(ml_dtypes, s.param, s.param)
    if op == "astype":
        return x.astype(dt)
    if op == "T":
        return x.T
    if op == "index0":
        return x[0] if x.ndim else x
    if op == "index_slice":
        return x[..., ::-1] if x.ndim else x
    if op == "newaxis":
        return x[None, ...]
    if op == "expand_dims":
        return xnp.expand_dims(x, 0)
    if op == "reshape_flat":
        return x.reshape(-1)
    if op == "sum_axis0":
        return xnp.sum(x, axis=0) if x.ndim else xnp.sum(x)
    if op == "mean_keepdims":
        return xnp.mean(x, keepdims=True)
    if op == "max_axis_last":
        return x.max(axis=-1) if x.ndim else x.max()
    if op == "neg_op":
        return -x
    if op == "abs_op":
        return abs(x)
    if op == "invert_op":
        return ~x
    if op == "sum_method":
        return x.sum()
    if op == "matmul":
        y = xnp.asarray(v[1])
        return x @ xnp.ones(x.shape[-1:], dtype=y.dtype) if x.ndim else x * y
    if op == "dot":
        return xnp.dot(x, v[1])
    if op == "zeros":
        return xnp.zeros(x.shape, dt)
    if op == "full":
        return xnp.full((2,), v[1])
    raise AssertionError(op)


def random_program(rng: Any, max_steps: int = 6) -> Program:
    """The same distribution as `programs()`, from a seeded ``random.Random`` (for the
    long campaign runner, which must not depend on hypothesis' database)."""

    def arg() -> tuple[str, Any, Any]:
        kind = rng.choice(["array", "array", "jax", "weak", "scalar", "npscalar"])
        if kind in ("array", "jax"):
            return (kind, rng.choice(DTYPES), rng.choice(SHAPES))
        if kind == "weak":
            return (kind, rng.choice(["int", "float", "complex"]), rng.choice(SHAPES))
        if kind == "scalar":
            return (kind, rng.choice([3, -2, 1.5, 0.25, 2j, True]), ())
        return (kind, rng.choice(DTYPES), ())

    args = tuple(arg() for _ in range(rng.randint(1, 3)))
    steps = []
    for i in range(rng.randint(1, max_steps)):
        pool = len(args) + i

        def value(pool: int = pool) -> int:
            return rng.randrange(pool)

        def maybe_scalar(pool: int = pool) -> int:
            return value(pool) if rng.random() < 2 / 3 else -rng.randint(1, len(SCALARS))

        kind = rng.choice(["unary", "binary", "binary", "operator", "ternary", "method"])
        if kind == "unary":
            steps.append(Step(rng.choice(UNARY), (value(),)))
        elif kind == "binary":
            steps.append(Step(rng.choice(BINARY), (value(), maybe_scalar())))
        elif kind == "operator":
            a, b = value(), maybe_scalar()
            if rng.random() < 0.5:
                a, b = b, a
            steps.append(Step(rng.choice(sorted(OPERATORS)), (a, b)))
        elif kind == "ternary":
            steps.append(Step(rng.choice(TERNARY), (value(), maybe_scalar(), maybe_scalar())))
        else:
            steps.append(Step(rng.choice(METHODS), (value(), maybe_scalar()), rng.choice(DTYPES)))
    n_out = rng.randint(1, min(3, len(args) + len(steps)))
    return Program(args, tuple(steps), n_out)
