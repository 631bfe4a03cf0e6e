"""``map`` (with ``batch_size``) and ``associative_scan``, written over weaktrace's
own operations: no new primitive, so they trace, lower, differentiate and vmap as
the scans and slices they are made of."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax

from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand
from weaktrace.core.promotion import lit
from weaktrace.core.trace import Tracer
from weaktrace.errors import ShapeError
from weaktrace.lax import ops
from weaktrace.lax.control import scan

_tree = jax.tree_util
EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")


def _map(f: Callable[[Any], Any], xs: Any) -> Any:
    _, ys = scan(lambda c, x: (c, f(x)), (), xs)
    return ys


@export
def map(f: Callable[[Any], Any], xs: Any, *, batch_size: int | None = None) -> Any:
    """``jax.lax.map``: f over the leading axis of xs (a scan without a carry). With
    batch_size, a scan over batches of that size (each mapped in turn, where jax
    vmaps f) and the remainder after them: the same values, dtypes and weak flags."""
    if batch_size is None:
        return _map(f, xs)
    leaves = _tree.tree_leaves(xs)
    ctx = context(*leaves)
    ts = [operand(x, ctx) for x in leaves]
    if not ts or any(not t.aval[0] for t in ts):
        raise ValueError("lax.map with batch_size needs xs with a leading axis")
    n = ts[0].aval[0][0]
    bs = int(batch_size)
    if bs <= 0:
        raise ValueError(f"batch_size must be positive, got {bs}")
    nb, rem = divmod(n, bs)
    tree = _tree.tree_structure(xs)

    def part(lo: int, hi: int, shape: tuple[int, ...] | None) -> Any:
        out = []
        for t in ts:
            p = ops.slice_in_dim(t, lo, hi, 1, 0)
            out.append(p if shape is None else ops.reshape(p, (*shape, *t.aval[0][1:])))
        return _tree.tree_unflatten(tree, out)

    ys = _map(lambda b: _map(f, b), part(0, nb * bs, (nb, bs)))
    ys = _tree.tree_map(lambda y: ops.reshape(y, (nb * bs, *y.shape[2:])), ys)
    if rem:
        tail = _map(f, part(nb * bs, n, None))
        ys = _tree.tree_map(lambda a, b: ops.concatenate([a, b], 0), ys, tail)
    return ys


def _interleave(a: Tracer, b: Tracer, axis: int) -> Tracer:
    """a's and b's slices along axis, alternating (a first): pads and an add/or."""
    ctx = a.ctx
    same = a.aval[0][axis] == b.aval[0][axis]
    pa = [(0, 0, 0)] * a.aval.ndim
    pb = [(0, 0, 0)] * b.aval.ndim
    pa[axis] = (0, 1 if same else 0, 1)
    pb[axis] = (1, 0 if same else 1, 1)
    za, zb = lit(ctx, 0, a.aval[1]), lit(ctx, 0, b.aval[1])
    op = ops.EXPORTS["bitwise_or" if a.aval[1].kind == "b" else "add"]
    return op(ops.pad(a, za, pa), ops.pad(b, zb, pb))


@export
def associative_scan(
    fn: Callable[[Any, Any], Any], elems: Any, reverse: bool = False, axis: int = 0
) -> Any:
    """``jax.lax.associative_scan``: the parallel prefix scan of an associative fn
    (the odd/even recursion of Blelloch's algorithm), log-depth."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = _tree.tree_flatten(elems)
    ctx = context(*flat)
    xs = [operand(x, ctx) for x in flat]
    if not xs:
        raise ValueError("associative_scan needs at least one array")
    ndim = xs[0].aval.ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    if reverse and axis < 0:  # jax reverses before it normalizes the axis
        raise ShapeError(f"rev dimensions must have every element be nonnegative, got ({axis},).")
    axis %= ndim
    if reverse:
        xs = [ops.rev(x, (axis,)) for x in xs]
    n = xs[0].aval[0][axis]
    if any(x.aval[0][axis] != n for x in xs[1:]):
        raise ValueError(
            "Array inputs to associative_scan must have the same first dimension. "
            f"(saw: {[x.aval[0] for x in xs]})"
        )

    def combine(a: list[Tracer], b: list[Tracer]) -> list[Tracer]:
        out = fn(_tree.tree_unflatten(tree, a), _tree.tree_unflatten(tree, b))
        res = [operand(o, ctx) for o in _tree.tree_leaves(out)]
        if [r.aval[0] for r in res] != [x.aval[0] for x in a]:
            raise ShapeError(
                "associative_scan: fn must return arrays of its inputs' shapes "
                f"{[x.aval[0] for x in a]}, got {[r.aval[0] for r in res]}"
            )
        return res

    sl = functools.partial(ops.slice_in_dim, axis=axis)

    def rec(es: list[Tracer]) -> list[Tracer]:
        m = es[0].aval[0][axis]
        if m < 2:
            return es
        odd = rec(combine([sl(e, 0, -1, 2) for e in es], [sl(e, 1, None, 2) for e in es]))
        evens = [sl(e, 2, None, 2) for e in es]
        even = combine([sl(e, 0, -1) for e in odd] if m % 2 == 0 else odd, evens)
        even = [ops.concatenate([sl(e, 0, 1), r], axis) for e, r in zip(es, even, strict=True)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd, strict=True)]

    out = rec(xs)
    if reverse:
        out = [ops.rev(x, (axis,)) for x in out]
    return _tree.tree_unflatten(tree, out)
