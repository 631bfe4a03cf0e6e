"""``vectorize`` and ``piecewise``: a function written for the core (by default 0-d)
shapes, applied over the broadcast loop dimensions of its arguments.

jax batches the function with ``vmap``. weaktrace's tracer has no batching, so the
function is traced once, on the core shapes, as the body of a ``lax.scan`` over the
flattened loop dimensions (one program, no Python loop over elements): arguments
whose loop dimensions are all of size 1 are passed to every step unchanged, the
others are broadcast to the loop shape and scanned. The body sees the dtypes and
weak flags the arguments have (as under ``vmap``), so results follow jax's types.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

import jax
import numpy as np

from weaktrace.core.mirror import exporter
from weaktrace.core.operands import to_jax
from weaktrace.core.promotion import rank_promotion_check
from weaktrace.core.trace import current
from weaktrace.errors import InvalidInputError, OperandTypeError, ShapeError
from weaktrace.lax.control import scan, switch
from weaktrace.numpy._core import (
    EXPORTS,
    N,
    Tracer,
    context,
    export,
    operand,
    result_shape,
    to_bool,
)

_tree = jax.tree_util
_NAME = r"\w+"
_ARG = rf"\((?:{_NAME}(?:,{_NAME})*)?\)"
_SIG = re.compile(rf"^{_ARG}(?:,{_ARG})*->{_ARG}(?:,{_ARG})*$")

CoreDims = tuple[str, ...]


def parse_signature(signature: str) -> tuple[list[CoreDims], list[CoreDims]]:
    """The input and output core dimension names of a gufunc signature ``(m,n),(n)->(m)``."""
    if not _SIG.match(signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.split("->")
    return (
        [tuple(re.findall(_NAME, a)) for a in re.findall(_ARG, ins)],
        [tuple(re.findall(_NAME, a)) for a in re.findall(_ARG, outs)],
    )


def _shape(x: Any) -> tuple[int, ...]:
    s = getattr(x, "shape", None)
    return tuple(np.shape(x) if s is None else s)


def _sizes(sizes: dict[str, int], shape: tuple[int, ...], dims: CoreDims, where: str,
           *, is_input: bool) -> None:  # fmt: skip
    """Record (and check) the sizes of the core dimensions `dims` of one argument."""
    if is_input and len(shape) < len(dims):
        raise ValueError(
            f"input with shape {shape!r} does not have enough dimensions for all core "
            f"dimensions {dims!r} {where}"
        )
    if not is_input and len(shape) != len(dims):
        raise ValueError(f"output shape {shape!r} does not match core dimensions {dims!r} {where}")
    core = shape[len(shape) - len(dims) :] if dims else ()
    for name, size in zip(dims, core, strict=True):
        if sizes.setdefault(name, size) != size:
            raise ValueError(
                f"inconsistent size for core dimension {name!r}: {size!r} vs {sizes[name]!r} "
                f"{where}"
            )


def _checked(func: Callable[..., Any], sizes: dict[str, int], out_dims: list[CoreDims],
             where: str) -> Callable[..., Any]:  # fmt: skip
    def run(*args: Any) -> Any:
        out = func(*args)
        if len(out_dims) > 1 and not isinstance(out, tuple):
            raise OperandTypeError(
                f"output must be a tuple when multiple outputs are expected, got: {out!r}\n{where}"
            )
        outs = out if isinstance(out, tuple) else (out,)
        if len(outs) != len(out_dims):
            raise OperandTypeError(
                f"wrong number of output arguments: expected {len(out_dims)!r}, got "
                f"{len(outs)!r} {where}"
            )
        seen = dict(sizes)
        for o, dims in zip(outs, out_dims, strict=True):
            _sizes(seen, _shape(o), dims, where, is_input=False)
        return out

    return run


def _apply_excluded(
    func: Callable[..., Any], excluded: Collection[int | str], args: Sequence[Any],
    kwargs: dict[str, Any],
) -> tuple[Any, list[Any], Any]:  # fmt: skip
    """`func` with the excluded positional and keyword arguments bound."""
    if not excluded:
        return func, list(args), kwargs
    fixed = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
             if i < len(args)]  # fmt: skip
    fixed_kw = {k: v for k, v in kwargs.items() if k in excluded}

    def bound(*rest: Any, **kw: Any) -> Any:
        full = list(rest)
        for i, a in fixed:
            full.insert(i, a)
        return func(*full, **kw, **fixed_kw)

    dynamic = [a for i, a in enumerate(args) if i not in excluded]
    return bound, dynamic, {k: v for k, v in kwargs.items() if k not in excluded}


def _expand(x: Any, lead: tuple[int, ...]) -> Any:
    """A result of the unbatched call, given the (all size-1) loop dimensions."""
    return N.reshape(x, (*lead, *_shape(x))) if lead else x


def _run(func: Callable[..., Any], args: list[Any], in_dims: list[CoreDims],
         lead: tuple[int, ...]) -> Any:  # fmt: skip
    """func over the loop shape `lead`: a scan over its flattened elements."""
    statics: dict[int, Any] = {}
    scanned: dict[int, Any] = {}
    n = math.prod(lead)
    for i, (x, dims) in enumerate(zip(args, in_dims, strict=True)):
        nd = x.aval.ndim - len(dims)
        core = x.aval.shape[nd:]
        if all(d == 1 for d in x.aval.shape[:nd]):
            statics[i] = N.reshape(x, core) if nd else x
        else:
            scanned[i] = N.reshape(N.broadcast_to(x, (*lead, *core)), (n, *core))
    if not scanned:
        out = func(*[statics[i] for i in range(len(args))])
        if not lead:
            return out
        if isinstance(out, tuple):
            return tuple(_expand(o, lead) for o in out)
        return _expand(out, lead)
    ctx = next(iter(scanned.values())).ctx
    if ctx.eager:
        statics = {i: to_jax(s) for i, s in statics.items()}
        scanned = {i: to_jax(s) for i, s in scanned.items()}

    def body(carry: Any, xs: dict[int, Any]) -> Any:
        full = [xs[i] if i in xs else statics[i] for i in range(len(args))]
        return carry, to_jax(func(*full))

    _, ys = scan(body, (), scanned)
    return _tree.tree_map(lambda y: N.reshape(y, (*lead, *_shape(y)[1:])), ys)


@export
def vectorize(pyfunc: Callable[..., Any], *, excluded: Collection[int | str] = frozenset(),
              signature: str | None = None) -> Callable[..., Any]:  # fmt: skip
    """``jax.numpy.vectorize``: `pyfunc`, written for core-shaped arguments (0-d without
    a `signature`), applied with broadcasting over the leading loop dimensions.

    The function is traced once on the core shapes and mapped with a scan over the
    flattened loop dimensions; positions in `excluded` are passed through unmapped.
    As in jax, keyword arguments that are not excluded are not passed to `pyfunc`."""
    if any(not isinstance(e, str | int) for e in excluded):
        raise InvalidInputError(
            "jax.numpy.vectorize can only exclude integer or string arguments, but "
            f"excluded={excluded!r}"
        )
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ShapeError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        # Called eagerly (by the user, on arrays and scalars), the scan runs under one
        # jax.jit per vectorized function: a fresh scan body per call would make jax
        # compile it again on every call (jax's vmap dispatches cached primitives).
        if (
            not excluded
            and not kwargs
            and current() is None
            and all(a.__class__ is not Tracer and isinstance(a, _PLAIN) for a in args)
        ):
            return compiled(*args)
        return _vectorized(*args, **kwargs)

    def _vectorized(*args: Any, **kwargs: Any) -> Any:
        where = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, dyn, _ = _apply_excluded(pyfunc, excluded, args, kwargs)
        out_dims: list[CoreDims] | None
        if signature is not None:
            in_dims, out_dims = parse_signature(signature)
        else:
            in_dims, out_dims = [()] * len(dyn), None
        nones = {i for i, a in enumerate(dyn) if a is None}
        if any(nones):  # as jax: a None in the first position alone is not excluded
            if any(in_dims[i] != () for i in nones):
                raise ShapeError(f"Cannot pass None at locations {nones} with {signature=}")
            func, dyn, _ = _apply_excluded(func, nones, dyn, {})
            in_dims = [d for i, d in enumerate(in_dims) if i not in nones]
        b = context(*dyn)
        xs = [operand(N.asarray(a) if isinstance(a, list | tuple) else a, b) for a in dyn]
        if len(xs) != len(in_dims):
            raise OperandTypeError(
                f"wrong number of positional arguments: expected {len(in_dims)!r}, got "
                f"{len(xs)!r} {where}"
            )
        sizes: dict[str, int] = {}
        loops = []
        for x, dims in zip(xs, in_dims, strict=True):
            _sizes(sizes, x.aval.shape, dims, where, is_input=True)
            loops.append(x.aval.shape[: x.aval.ndim - len(dims)])
        if len({len(lp) for lp, x in zip(loops, xs, strict=True) if x.aval.ndim}) > 1:
            fn = f"jnp.vectorize function with signature {signature}"
            rank_promotion_check([x.aval.shape for x in xs], fn)
        lead = result_shape("vectorize", loops)
        run = func if out_dims is None else _checked(func, sizes, out_dims, where)
        out = _run(run, xs, in_dims, lead)
        return to_jax(out) if b.eager else out

    compiled = jax.jit(_vectorized, inline=True)
    return wrapped


_PLAIN = (jax.Array, np.ndarray, np.generic, bool, int, float, complex)


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """``jax.numpy.piecewise``: at each element of `x`, the function (or constant) of
    the last true condition, ``funclist[len(condlist)]`` (or 0) where none holds; each
    function is called on 0-d elements, its result converted to x's dtype. Eager
    calls are compiled once per tuple of functions (and avals), as jax's are: the
    functions are not traced again when called with the same ones."""
    return _piecewise(x, condlist, tuple(funclist), *args, **kw)


def _piecewise_mirror(x: Any, condlist: Any, funclist: tuple[Any, ...], *args: Any,
                      **kw: Any) -> Any:  # fmt: skip
    b = context(x)
    xx = operand(x, b)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funcs = list(funclist[-1:]) + list(funclist[:-1])
    elif nf == nc:
        funcs = [0, *funclist]
    else:
        raise ShapeError(
            f"with {nc} condition(s), either {nc} or {nc + 1} functions are expected; got {nf}"
        )
    if isinstance(condlist, list | tuple):
        conds = N.stack([to_bool(operand(c, b)) for c in condlist]) if nc else None
    else:
        conds = to_bool(operand(condlist, b))
    if conds is None:
        conds = N.zeros((0,), dtype=bool)
    dt = xx.aval[1].numpy

    def call(f: Callable[..., Any]) -> Callable[[Any], Any]:
        return lambda v: N.astype(f(v, *args, **kw), dt)

    def const(v: Any) -> Callable[[Any], Any]:
        return lambda _: N.array(v, dtype=dt)

    branches = [call(f) if callable(f) else const(f) for f in funcs]
    first = N.zeros_like(conds[:1])
    indices = N.argmax(N.cumsum(N.concatenate([first, conds], 0), 0), 0)
    return vectorize(switch, excluded=(1,))(indices, branches, xx)


# funclist is static in the compiled eager path ("funclist" in STATIC_NAMES): a tuple,
# hashed by its functions, so jax.jit's cache keys on them
_piecewise_mirror.__name__ = _piecewise_mirror.__qualname__ = "piecewise"
_piecewise = exporter({}, counterpart="jax.numpy")(_piecewise_mirror)
EXPORTS["piecewise"] = piecewise
