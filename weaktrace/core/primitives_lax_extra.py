"""The last jax.lax primitives weaktrace.lax mirrors: approximate top-k, the stateful
and counter-based bit generators, ragged and scaled dot products and ``dce_sink``.

Shape, dtype and weak-flag rules are jax.lax's (``approx_top_k``: values keep the
operand's dtype and flag, indices are strong int32; ``rng_uniform``: the bounds'
dtype, weak only if both are; ``rng_bit_generator``: the key's type and strong bits;
``ragged_dot_general``: dot_general's rules; ``scaled_dot``: the preferred element
type, bfloat16 by default, strong). ``dce_sink`` has no outputs.
"""

from __future__ import annotations

from typing import Any

from jax._src.lib import _jax

from weaktrace.core.primitives import _def, dot_general_p
from weaktrace.dtypes import registry
from weaktrace.errors import OperandTypeError, ShapeError
from weaktrace.ir.values import AbstractValue, abstract_eval_rules

_make = AbstractValue.make
_D = registry.by_name
_INT32 = _D("int32")
_RNG_UNIFORM = frozenset(
    _D(n) for n in ("int32", "int64", "uint32", "uint64", "float16", "bfloat16", "float32",
                    "float64")
)  # fmt: skip
_UINTS = frozenset(_D(n) for n in ("uint8", "uint16", "uint32", "uint64"))


def _approx_top_k(
    x: AbstractValue,
    *,
    k: int,
    reduction_dimension: int,
    recall_target: float,
    is_max_k: bool,
    reduction_input_size_override: int,
    aggregate_to_topk: bool,
) -> list[AbstractValue]:
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if x.ndim == 0:
        raise ShapeError(f"approx_top_k operand must have >= 1 dimension, got {x.shape}")
    if not -x.ndim <= reduction_dimension < x.ndim:
        raise ShapeError(f"reduction_dimension {reduction_dimension} is out of range for {x}")
    dims = list(x.shape)
    n = dims[reduction_dimension]
    if n < k:
        raise ValueError(f"k must be smaller than the size of reduction_dim {n}, got {k}")
    if x[1].kind != "f":
        raise OperandTypeError(f"approx_top_k operand must be a floating type, got {x[1]}")
    if aggregate_to_topk:
        dims[reduction_dimension] = k
    else:  # XLA's own size rule (the jaxlib helper jax's shape rule calls)
        dims[reduction_dimension] = _jax.approx_top_k_reduction_output_size(
            n, len(dims), k, recall_target, aggregate_to_topk, reduction_input_size_override
        )[0]
    shape = tuple(dims)
    return [_make(shape, x[1], x[2]), _make(shape, _INT32, False)]


approx_top_k_p = _def("approx_top_k", _approx_top_k, multiple_results=True)


def _rng_uniform(a: AbstractValue, b: AbstractValue, *, shape: tuple[int, ...]) -> list[Any]:
    if a[1] is not b[1]:
        raise OperandTypeError(
            f"Arguments to rng_uniform must have identical dtypes, got {a[1]} and {b[1]}."
        )
    if a.shape or b.shape:
        raise ShapeError(f"Arguments to rng_uniform must be scalars; got {a.shape}, {b.shape}.")
    if a[1] not in _RNG_UNIFORM:
        raise OperandTypeError(
            f"rng_uniform does not accept dtype {a[1]}: XLA's CPU generator takes "
            f"{', '.join(sorted(d.name for d in _RNG_UNIFORM))} (jax's lowering aborts the "
            "process on the others)"
        )
    return [_make(shape, a[1], a[2] and b[2])]


rng_uniform_p = _def("rng_uniform", _rng_uniform)


def _rng_bit_generator(
    key: AbstractValue, *, shape: tuple[int, ...], dtype: Any, algorithm: Any
) -> list[AbstractValue]:
    if dtype not in _UINTS:
        raise OperandTypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    if (key.shape, key[1].name) not in (((4,), "uint32"), ((2,), "uint64")):
        raise ShapeError(
            f"rng_bit_generator needs a uint32[4] or uint64[2] key (128 bits), got {key}"
        )
    return [key, _make(shape, dtype, False)]


rng_bit_generator_p = _def("rng_bit_generator", _rng_bit_generator, multiple_results=True)

# ragged_dot_general's dimension numbers as a hashable record:
# ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)), lhs_ragged, rhs_group
RaggedDims = tuple[Any, tuple[int, ...], tuple[int, ...]]


def ragged_mode(ndim: int, dn: RaggedDims) -> str:
    (xc, _), (xb, _) = dn[0]
    (r,) = dn[1]
    if r in xc:
        return "contracting"
    if r in xb:
        return "batch"
    return "noncontracting"


def _ragged_range(dim: int, rank: int, what: str, arg: str) -> None:
    if not 0 <= dim < rank:
        raise ShapeError(
            f"ragged_dot_general requires {what} numbers to be nonnegative and less than the "
            f"number of axes of the {arg} value, got {dim} for {arg} of rank {rank}."
        )


def _group_sizes_prefix(mode: str, rank: int, r: int, dot: Any) -> list[int]:
    """The lhs dims a group_sizes of rank > 1 leads with (jax's [b..., x..., g]): the
    batch dims, then those of the ragged dim's kind before it."""
    (xc, _), (xb, _) = dot
    if mode == "batch":
        return list(xb[: list(xb).index(r)])
    kind = list(xc) if mode == "contracting" else [d for d in range(rank) if d not in (*xc, *xb)]
    return [*xb, *kind[: kind.index(r)]]


def _ragged_group_dim(y: AbstractValue, group: tuple[int, ...], dot: Any, g: int) -> None:
    if len(group) != 1:
        raise ShapeError(
            "ragged_dot_general requires exactly one rhs group dimension when lhs ragged "
            "dimension is noncontracting."
        )
    _ragged_range(group[0], y.ndim, "rhs group dimension", "rhs")
    (_, yc), (_, yb) = dot
    if group[0] in (*yc, *yb):
        raise ShapeError(
            "ragged_dot_general requires rhs group dimension numbers to be distinct from "
            "contracting and batch dimensions."
        )
    if y.shape[group[0]] != g:
        raise ShapeError(f"expected rhs group dimension size to be {g}, got {y.shape[group[0]]}.")


def _ragged_dot_general(
    x: AbstractValue,
    y: AbstractValue,
    gs: AbstractValue,
    *,
    dimension_numbers: RaggedDims,
    preferred_element_type: Any,
    out_sharding: Any = None,
    precision: Any = None,
) -> list[AbstractValue]:
    """jax's _ragged_dot_general_shape_rule, its checks in its order and words, then its
    dtype rule (group_sizes integers)."""
    dot, ragged, group = dimension_numbers
    if len(ragged) != 1:
        raise ShapeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    _ragged_range(ragged[0], x.ndim, "lhs ragged dimension", "lhs")
    mode = ragged_mode(x.ndim, dimension_numbers)
    if gs.ndim == 0:
        raise ShapeError("expected rank of group_sizes to be >=1.")
    if gs.ndim != 1:
        prefix = _group_sizes_prefix(mode, x.ndim, ragged[0], dot)
        want = (*(x.shape[d] for d in prefix), gs.shape[-1])
        if gs.shape != want:
            raise ShapeError(f"expected group_sizes to have shape {want}, got {gs.shape}.")
    g = gs.shape[-1]
    if mode != "noncontracting" and group:
        raise ShapeError(
            "ragged_dot_general requires zero group dimensions in the rhs when lhs ragged "
            "dimension is contracting or batch."
        )
    (xc, yc), (xb, yb) = dot
    if mode == "noncontracting":
        _ragged_group_dim(y, group, dot, g)
        # dot_general over rhs without its group dimension
        keep = [i for i in range(y.ndim) if i != group[0]]
        y = _make(tuple(y.shape[i] for i in keep), y[1], y[2])
        renum = {old: new for new, old in enumerate(keep)}
        dot = ((xc, tuple(renum[i] for i in yc)), (xb, tuple(renum[i] for i in yb)))
    (out,) = abstract_eval_rules[dot_general_p](
        x, y, dimension_numbers=dot, preferred_element_type=preferred_element_type
    )
    if gs[1].kind not in "iu":
        raise OperandTypeError(
            "ragged_dot_general requires that group_sizes.dtype is subtype of np.integer."
        )
    if mode == "contracting":
        out = _make((g, *out.shape), out[1], out[2])
    return [out]


ragged_dot_general_p = _def("ragged_dot_general", _ragged_dot_general)


def _scaled_dot(
    x: AbstractValue,
    y: AbstractValue,
    *scales: AbstractValue,
    dimension_numbers: Any,
    preferred_element_type: Any,
    given: tuple[bool, bool],
) -> list[AbstractValue]:
    """Scales are optional (`given` says which come, lhs's first); a missing one is
    jax's dummy scale (a contracting size of one: no check)."""
    (xc, yc), (xb, yb) = dimension_numbers
    it = iter(scales)
    xs, ys = (next(it) if g else None for g in given)
    if len({x.ndim, y.ndim, *(s.ndim for s in scales)}) != 1:
        raise ShapeError("scaled_dot: all input tensors must have the same rank.")
    if len(xb) != len(yb) or len(xc) != len(yc):
        raise ShapeError("scaled_dot: lhs and rhs batch/contracting dimensions differ in number")
    for i, j in zip(xb, yb, strict=True):
        sizes = {x.shape[i], y.shape[j]}
        sizes |= {xs.shape[i]} if xs is not None else set()
        sizes |= {ys.shape[j]} if ys is not None else set()
        if len(sizes) != 1:
            raise ShapeError(f"scaled_dot: batch dims ({i}, {j}) differ in size")
    for i, j in zip(xc, yc, strict=True):
        if x.shape[i] != y.shape[j]:
            raise ShapeError(f"scaled_dot: contracting dims {i} and {j} differ in size")
    for side, op, sc, cdims in (("LHS", x, xs, xc), ("RHS", y, ys, yc)):
        if sc is None:
            continue
        for i, size in enumerate(op.shape):
            if i in cdims:
                if sc.shape[i] == 0 or size % sc.shape[i] or size // sc.shape[i] < 2:
                    raise ShapeError(
                        f"scaled_dot: {side} contracting dim {i} of size {size} must be at "
                        f"least twice a multiple of its scale's size {sc.shape[i]}"
                    )
            elif sc.shape[i] != size:
                raise ShapeError(f"scaled_dot: {side} dim {i} does not match its scale")
    free_x = [s for i, s in enumerate(x.shape) if i not in xc and i not in xb]
    free_y = [s for i, s in enumerate(y.shape) if i not in yc and i not in yb]
    shape = tuple([x.shape[i] for i in xb] + free_x + free_y)
    return [_make(shape, preferred_element_type, False)]


scaled_dot_p = _def("scaled_dot", _scaled_dot)


def _dce_sink(x: AbstractValue, *, prevent_mlir_dce: bool) -> list[AbstractValue]:
    return []


dce_sink_p = _def("dce_sink", _dce_sink, multiple_results=True)
