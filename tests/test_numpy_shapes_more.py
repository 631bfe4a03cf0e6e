"""Creation, manipulation and indexing mirrors (weaktrace/numpy/manipulation.py,
gathers.py, creation_more.py, windows.py, index_tricks.py) against jax.numpy, eager
and traced, over every dtype, shapes and keyword values, x64 off and on."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, sample, values, with_x64
from tests.mirror_harness import check

I32 = np.array([2, -1, 0, 5, 1, -4], np.int32)  # some out of bounds of a length-4 axis


def _x(kind: str, shape: tuple[int, ...], seed: int = 0) -> object:
    return values(kind, () if kind in SCALARS else shape, seed=seed, special=False)


# name -> variants: f(module, x, y), the shape of x. x has the swept dtype; y is a second
# operand of the dtype paired with it, of shape (4,) (or x's shape where marked "same").
VARIANTS = {
    "atleast_1d": [
        (lambda m, x, y: m.atleast_1d(x), (3,)),
        (lambda m, x, y: m.atleast_1d(x, y), (2, 2)),
    ],
    "atleast_2d": [
        (lambda m, x, y: m.atleast_2d(x), (3,)),
        (lambda m, x, y: m.atleast_2d(x, y), ()),
    ],
    "atleast_3d": [
        (lambda m, x, y: m.atleast_3d(x), (3,)),
        (lambda m, x, y: m.atleast_3d(x), (2, 3)),
        (lambda m, x, y: m.atleast_3d(y, x), ()),
    ],
    "broadcast_arrays": [
        (lambda m, x, y: m.broadcast_arrays(x, y), (3, 1)),
        (lambda m, x, y: m.broadcast_arrays(x, 2.5, y), (1, 4)),
    ],
    "moveaxis": [
        (lambda m, x, y: m.moveaxis(x, 0, -1), (2, 3, 4)),
        (lambda m, x, y: m.moveaxis(x, (0, 1), (2, 0)), (2, 3, 4)),
    ],
    "swapaxes": [
        (lambda m, x, y: m.swapaxes(x, 0, 2), (2, 3, 4)),
        (lambda m, x, y: m.swapaxes(x, -1, -1), (2, 3)),
    ],
    "matrix_transpose": [
        (lambda m, x, y: m.matrix_transpose(x), (2, 3, 4)),
        (lambda m, x, y: m.matrix_transpose(x), (3,)),
    ],
    "permute_dims": [(lambda m, x, y: m.permute_dims(x, (1, 2, 0)), (2, 3, 4))],
    "rollaxis": [
        (lambda m, x, y: m.rollaxis(x, 2), (2, 3, 4)),
        (lambda m, x, y: m.rollaxis(x, 0, 3), (2, 3, 4)),
        (lambda m, x, y: m.rollaxis(x, 1, -1), (2, 3, 4)),
    ],
    "flip": [
        (lambda m, x, y: m.flip(x), (2, 3)),
        (lambda m, x, y: m.flip(x, (0, -1)), (2, 3, 2)),
        (lambda m, x, y: m.flip(x, 1), (2, 3)),
    ],
    "fliplr": [(lambda m, x, y: m.fliplr(x), (2, 3)), (lambda m, x, y: m.fliplr(x), (3,))],
    "flipud": [(lambda m, x, y: m.flipud(x), (2, 3)), (lambda m, x, y: m.flipud(x), ())],
    "rot90": [
        (lambda m, x, y: m.rot90(x), (2, 3)),
        (lambda m, x, y: m.rot90(x, 2), (2, 3)),
        (lambda m, x, y: m.rot90(x, -1, axes=(2, 0)), (2, 3, 4)),
        (lambda m, x, y: m.rot90(x, 4), (2, 3)),
    ],
    "roll": [
        (lambda m, x, y: m.roll(x, 2), (2, 3)),
        (lambda m, x, y: m.roll(x, -1, axis=1), (2, 3)),
        (lambda m, x, y: m.roll(x, (1, 2), axis=(0, 1)), (2, 3)),
        (lambda m, x, y: m.roll(x, np.int32(4), axis=0), (3, 2)),
    ],
    "tile": [
        (lambda m, x, y: m.tile(x, 2), (3,)),
        (lambda m, x, y: m.tile(x, (2, 1, 2)), (2, 3)),
        (lambda m, x, y: m.tile(x, (2, 3)), ()),
    ],
    "repeat": [
        (lambda m, x, y: m.repeat(x, 2), (2, 3)),
        (lambda m, x, y: m.repeat(x, 3, axis=1), (2, 3)),
        (lambda m, x, y: m.repeat(x, np.array([1, 0, 2]), axis=0), (3, 2)),
        (lambda m, x, y: m.repeat(x, 2, total_repeat_length=2), ()),
    ],
    "split": [
        (lambda m, x, y: m.split(x, 2), (4, 3)),
        (lambda m, x, y: m.split(x, [1, 3], 1), (2, 5)),
        (lambda m, x, y: m.split(x, 3), (4,)),
    ],
    "array_split": [
        (lambda m, x, y: m.array_split(x, 3), (4, 3)),
        (lambda m, x, y: m.array_split(x, [2, 2, 7], axis=1), (2, 5)),
    ],
    "hsplit": [(lambda m, x, y: m.hsplit(x, 2), (3, 4)), (lambda m, x, y: m.hsplit(x, [1]), (3,))],
    "vsplit": [(lambda m, x, y: m.vsplit(x, 2), (4, 3)), (lambda m, x, y: m.vsplit(x, 2), (4,))],
    "dsplit": [
        (lambda m, x, y: m.dsplit(x, [1]), (2, 2, 3)),
        (lambda m, x, y: m.dsplit(x, 2), (2, 2)),
    ],
    "unstack": [
        (lambda m, x, y: m.unstack(x), (3, 2)),
        (lambda m, x, y: m.unstack(x, axis=-1), (2, 3)),
    ],
    "hstack": [
        (lambda m, x, y: m.hstack([x, y]), (3,)),
        (lambda m, x, y: m.hstack([x, x], dtype=np.float32), (2, 2)),
        (lambda m, x, y: m.hstack(x), (2, 3)),
    ],
    "vstack": [(lambda m, x, y: m.vstack([x, y]), (4,)), (lambda m, x, y: m.vstack((x, 1)), ())],
    "dstack": [
        (lambda m, x, y: m.dstack([x, y]), (4,)),
        (lambda m, x, y: m.dstack([x, x]), (2, 2)),
    ],
    "column_stack": [
        (lambda m, x, y: m.column_stack([x, y]), (4,)),
        (lambda m, x, y: m.column_stack([x, x]), (4, 2)),
    ],
    "concat": [
        (lambda m, x, y: m.concat([x, y]), (3,)),
        (lambda m, x, y: m.concat([x, x], axis=None), (2, 2)),
    ],
    "append": [
        (lambda m, x, y: m.append(x, y), (2, 3)),
        (lambda m, x, y: m.append(x, x, axis=1), (2, 3)),
    ],
    "block": [
        (lambda m, x, y: m.block([x, y]), (3,)),
        (lambda m, x, y: m.block([[x, x], [x, x]]), (2, 2)),
        (lambda m, x, y: m.block([[x], [y]]), ()),
    ],
    "resize": [
        (lambda m, x, y: m.resize(x, (3, 3)), (2, 2)),
        (lambda m, x, y: m.resize(x, 2), (2, 3)),
        (lambda m, x, y: m.resize(x, (2, 0)), (3,)),
    ],
    "copy": [(lambda m, x, y: m.copy(x), (2, 3))],
    "take": [
        (lambda m, x, y: m.take(x, I32), (4,)),
        (lambda m, x, y: m.take(x, I32[:3], axis=1), (2, 4)),
        (lambda m, x, y: m.take(x, I32, mode="clip"), (2, 2)),
        (lambda m, x, y: m.take(x, I32.reshape(2, 3), axis=0, mode="wrap"), (4, 2)),
        (lambda m, x, y: m.take(x, I32, fill_value=0), (4,)),
    ],
    "take_along_axis": [
        (lambda m, x, y: m.take_along_axis(x, np.array([[0, 3], [2, -1]]), axis=1), (2, 4)),
        (
            lambda m, x, y: m.take_along_axis(x, np.array([[1], [0], [5]]), axis=1, mode="clip"),
            (3, 4),
        ),
        (lambda m, x, y: m.take_along_axis(x, I32[:3], axis=None), (2, 2)),
        (
            lambda m, x, y: m.take_along_axis(
                x, np.array([[0, 1, 2]], np.int8), axis=0, fill_value=7
            ),
            (4, 1),
        ),
    ],
    "put_along_axis": [
        (
            lambda m, x, y: m.put_along_axis(
                x, np.array([[0], [3]]), y[:2, None], axis=1, inplace=False
            ),
            (2, 4),
        ),
        (
            lambda m, x, y: m.put_along_axis(
                x, np.array([1, 5]), 2, axis=None, inplace=False, mode="drop"
            ),
            (2, 2),
        ),
    ],
    "put": [
        (lambda m, x, y: m.put(x, np.array([0, 3]), y[:2], inplace=False), (2, 2)),
        (lambda m, x, y: m.put(x, I32, y, mode="clip", inplace=False), (2, 3)),
        (lambda m, x, y: m.put(x, I32, y[:2], mode="wrap", inplace=False), (5,)),
    ],
    "place": [
        (
            lambda m, x, y: m.place(x, np.array([[True, False], [True, True]]), y, inplace=False),
            (2, 2),
        ),
        (lambda m, x, y: m.place(x, x != x, y, inplace=False), (3,)),
    ],
    "choose": [
        (lambda m, x, y: m.choose(np.array([0, 1, 1, 0]), [x, y]), (4,)),
        (lambda m, x, y: m.choose(np.array([0, 3, -1, 2]), [x, y, x], mode="wrap"), (4,)),
        (lambda m, x, y: m.choose(np.array([[0], [5]]), [x, y], mode="clip"), (4,)),
    ],
    "compress": [
        (lambda m, x, y: m.compress(np.array([True, False, True]), x, axis=1), (2, 3)),
        (lambda m, x, y: m.compress(np.array([1, 0, 1, 1]), x, size=2, fill_value=3), (4,)),
        (lambda m, x, y: m.compress(np.array([False, True]), x, axis=0, size=2), (2, 3)),
    ],
    "extract": [
        (lambda m, x, y: m.extract(np.array([[True, False], [False, True]]), x), (2, 2)),
        (lambda m, x, y: m.extract(np.array([True, False, True]), x, size=3, fill_value=-1), (3,)),
    ],
    "delete": [
        (lambda m, x, y: m.delete(x, 1), (4,)),
        (lambda m, x, y: m.delete(x, -1, axis=1), (2, 3)),
        (lambda m, x, y: m.delete(x, slice(0, None, 2), axis=0), (5, 2)),
        (lambda m, x, y: m.delete(x, np.array([3, 0]), assume_unique_indices=True), (2, 3)),
        (lambda m, x, y: m.delete(x, [0, 2, 2]), (4,)),
    ],
    "insert": [
        (lambda m, x, y: m.insert(x, 1, y[0]), (3,)),
        (lambda m, x, y: m.insert(x, np.array([0, 2, 2]), y[:3], axis=0), (3,)),
        (lambda m, x, y: m.insert(x, 1, 5, axis=1), (2, 3)),
        (lambda m, x, y: m.insert(x, slice(0, 2), y[:2]), (2, 2)),
    ],
    "fill_diagonal": [
        (lambda m, x, y: m.fill_diagonal(x, y[0], inplace=False), (3, 3)),
        (lambda m, x, y: m.fill_diagonal(x, y, inplace=False), (3, 5)),
        (lambda m, x, y: m.fill_diagonal(x, 2, inplace=False), (2, 2, 2)),
    ],
    "trim_zeros": [(lambda m, x, y: m.trim_zeros(x * 0), (4,))],
    "apply_along_axis": [
        (lambda m, x, y: m.apply_along_axis(lambda r: r[::-1], 1, x), (2, 3)),
        (lambda m, x, y: m.apply_along_axis(lambda r: r[0], 0, x), (2, 3)),
        # no slices (a zero-size other axis): jax's vmap still gives the result's type
        # (jax's scipy_stats_test testRankData, rankdata(axis=...) of shape (0, 2, 3))
        (lambda m, x, y: m.apply_along_axis(lambda r: r * 2.0, 1, x), (0, 2, 3)),
        (lambda m, x, y: m.apply_along_axis(lambda r: m.outer(r, r[:2]), 2, x), (0, 2, 3)),
    ],
    "apply_over_axes": [(lambda m, x, y: m.apply_over_axes(m.sum, x, [0, 1]), (2, 3))],
    "diagonal": [
        (lambda m, x, y: m.diagonal(x), (3, 4)),
        (lambda m, x, y: m.diagonal(x, 1, 2, 0), (3, 2, 4)),
        (lambda m, x, y: m.diagonal(x, offset=-2), (3, 3)),
    ],
    "diag": [
        (lambda m, x, y: m.diag(x), (3,)),
        (lambda m, x, y: m.diag(x, -1), (3,)),
        (lambda m, x, y: m.diag(x, 1), (3, 4)),
    ],
    "diagflat": [
        (lambda m, x, y: m.diagflat(x), (2, 2)),
        (lambda m, x, y: m.diagflat(x, -2), (3,)),
    ],
    "vander": [
        (lambda m, x, y: m.vander(x), (3,)),
        (lambda m, x, y: m.vander(x, 4, increasing=True), (2,)),
    ],
    "ix_": [(lambda m, x, y: m.ix_(np.array([0, 2]), np.array([1, 0, 1], np.int8)), (3,))],
    "meshgrid": [
        (lambda m, x, y: m.meshgrid(x, y), (3,)),
        (lambda m, x, y: m.meshgrid(x, y, x, indexing="ij", sparse=True), (2,)),
    ],
    "linspace": [
        (lambda m, x, y: m.linspace(x, y, 5), (4,)),
        (lambda m, x, y: m.linspace(x, 10, 4, endpoint=False, retstep=True), ()),
        (lambda m, x, y: m.linspace(0, x, 3, axis=-1, dtype=np.int32), (2,)),
        (lambda m, x, y: m.linspace(x, y, 1, retstep=True), (4,)),
    ],
    "logspace": [
        (lambda m, x, y: m.logspace(x, 2, 4), ()),
        (lambda m, x, y: m.logspace(x, y, 3, base=2, axis=1), (4,)),
    ],
    "geomspace": [
        (lambda m, x, y: m.geomspace(1, x * 0 + 8, 4), (2,)),
        (lambda m, x, y: m.geomspace(-1, -100.0, 3, dtype=np.float32), ()),
    ],
    "empty_like": [
        (lambda m, x, y: m.empty_like(x), (2, 3)),
        (lambda m, x, y: m.empty_like(x, dtype=np.int8, shape=(2,)), (3,)),
    ],
    "eye": [(lambda m, x, y: m.eye(3, 4, k=x), ())],
    "kaiser": [(lambda m, x, y: m.kaiser(5, x), ())],
    "unravel_index": [
        (lambda m, x, y: m.unravel_index(I32, (2, 2)), ()),
        (lambda m, x, y: m.unravel_index(x, (3,)), ()),
    ],
    "ravel_multi_index": [
        (lambda m, x, y: m.ravel_multi_index((I32, I32[::-1]), (3, 4), mode="clip"), ()),
        (lambda m, x, y: m.ravel_multi_index((I32, 2), (3, 4), mode="wrap", order="F"), ()),
    ],
}

# Variants whose x is an index (integer) operand or that only take reals.
INT_ONLY = {"eye", "unravel_index"}
REAL_ONLY = {"linspace", "logspace", "geomspace", "kaiser"}

# Variants that slice y (so y is an array).
Y_SLICED = {"put_along_axis", "put", "insert", "fill_diagonal", "place"}
# Variants jax only runs eagerly (under jax.jit they raise, and so must traced weaktrace).
EAGER_ONLY_VARIANTS = {("choose", 0), ("compress", 0), ("extract", 0), ("trim_zeros", 0)}

# Where weaktrace disagrees with jax: (name, kind, variant) -> reason.
KNOWN_MISMATCHES: dict[tuple[str, str, int], str] = {}  # (none today)


def _cases() -> list[tuple[str, str, str, int]]:
    out = []
    for name, variants in VARIANTS.items():
        kinds = [k for k in KINDS if k not in ("complex128",)]
        if name in INT_ONLY:
            kinds = [k for k in kinds if k in ("int8", "int16", "int32", "int64", "uint8",
                                               "uint32", "py_int", "bool", "float32")]  # fmt: skip
        if name in REAL_ONLY:
            kinds = [k for k in kinds if "complex" not in k]
        partners = [k for k in kinds if k not in SCALARS] if name in Y_SLICED else kinds
        for i, kind in enumerate(kinds):
            partner = partners[(i * 7 + 3) % len(partners)]
            for v in range(len(variants)):
                out.append((name, kind, partner, v))
    return out


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 12, full_run(metafunc.config))
        ids = [f"{c[0]}{c[3]}-{c[1]}-{c[2]}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)
    full = full_run(metafunc.config)
    if "static" in metafunc.fixturenames:
        statics = with_x64(STATIC, 6, full)
        ids = [f"{c[0]}-{'x64' if x else 'x32'}" for c, x in statics]
        metafunc.parametrize("static", statics, ids=ids)
    if "creation" in metafunc.fixturenames:
        made = with_x64(_creation_cases(), 8, full)
        ids = [f"{n}-{getattr(d, '__name__', d)}-{'x64' if x else 'x32'}" for (n, d), x in made]
        metafunc.parametrize("creation", made, ids=ids)
    if "call" in metafunc.fixturenames:
        calls = sample(CALLS, 8, full)
        metafunc.parametrize("call", calls, ids=[c[0] for c in calls])


def _tolerance(*args: object) -> dict[str, float]:
    low = {str(getattr(a, "dtype", "")) for a in args} & {"float16", "bfloat16"}
    return {"rtol": 2e-2, "atol": 2e-2} if low else {"rtol": 1e-5, "atol": 1e-5}


def test_mirror(case):
    (name, kind, partner, variant), x64 = case
    if (name, kind, variant) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, kind, variant])
    f, shape = VARIANTS[name][variant]
    x = _x(kind, shape, 0)
    y = _x(partner, (4,), 1)
    if isinstance(y, np.ndarray) and y.ndim == 0:
        y = y.reshape(1)
    with jax.enable_x64(x64):
        if (name, variant) in EAGER_ONLY_VARIANTS:
            check_eager_only(lambda a, c: f(wnp, a, c), lambda a, c: f(jnp, a, c), x, y,
                             context=f"{name}[{variant}]")  # fmt: skip
            return
        check(lambda a, c: f(wnp, a, c), lambda a, c: f(jnp, a, c), x, y,
              context=f"{name}[{variant}]", **_tolerance(x, y))  # fmt: skip


# Functions of static arguments and a dtype: f(module, dtype).
CREATION = {
    "empty": lambda m, d: m.empty((2, 3), dtype=d),
    "eye": lambda m, d: m.eye(3, 4, 1, dtype=d),
    "identity": lambda m, d: m.identity(3, d),
    "tri": lambda m, d: m.tri(3, 2, -1, dtype=d),
    "indices": lambda m, d: m.indices((2, 3), dtype=d),
    "indices_sparse": lambda m, d: m.indices((2, 3), dtype=d, sparse=True),
    "linspace": lambda m, d: m.linspace(-1, 2.5, 7, dtype=d),
    "linspace_axis": lambda m, d: m.linspace(np.zeros(2, np.float32), 3, 4, dtype=d, axis=1),
    "logspace": lambda m, d: m.logspace(0, 2, 3, dtype=d),
    "geomspace": lambda m, d: m.geomspace(1, 100, 3, dtype=d),
    "fromfunction": lambda m, d: m.fromfunction(lambda i, j: i * 2 + j, (2, 3), dtype=d),
}
DTYPES = [None, bool, int, float, complex, np.int8, np.uint16, np.int64, np.uint64,
          jnp.bfloat16, np.float16, np.float32, np.float64, np.complex64]  # fmt: skip


def _creation_cases() -> list[tuple[str, object]]:
    return [(n, d) for n in CREATION for d in DTYPES]


def test_creation(creation):
    (name, dtype), x64 = creation
    f = CREATION[name]
    with jax.enable_x64(x64):
        check(lambda: f(wnp, dtype), lambda: f(jnp, dtype), context=name)


# Static-argument calls, each once in both modes.
STATIC = [
    ("empty default", lambda m: m.empty(3)),
    ("eye default", lambda m: m.eye(2)),
    ("eye negative", lambda m: m.eye(-1)),
    ("tri default", lambda m: m.tri(3)),
    ("indices empty", lambda m: m.indices(())),
    ("linspace 0", lambda m: m.linspace(0, 1, 0, retstep=True)),
    ("linspace negative", lambda m: m.linspace(0, 1, -1)),
    ("diag_indices", lambda m: m.diag_indices(3, 3)),
    ("diag_indices negative", lambda m: m.diag_indices(-1)),
    ("diag_indices_from", lambda m: m.diag_indices_from(np.ones((2, 2)))),
    ("diag_indices_from 1-d", lambda m: m.diag_indices_from(np.ones(3))),
    ("diag_indices_from ragged", lambda m: m.diag_indices_from(np.ones((2, 3)))),
    ("tril_indices", lambda m: m.tril_indices(3)),
    ("tril_indices k m", lambda m: m.tril_indices(3, -1, 4)),
    ("triu_indices", lambda m: m.triu_indices(4, 1)),
    ("triu_indices m", lambda m: m.triu_indices(2, 0, 3)),
    ("tril_indices_from", lambda m: m.tril_indices_from(np.ones((3, 2)), 1)),
    ("triu_indices_from", lambda m: m.triu_indices_from(np.ones((2, 4)))),
    ("triu_indices_from 3-d", lambda m: m.triu_indices_from(np.ones((2, 2, 2)))),
    ("mask_indices size", lambda m: m.mask_indices(3, m.triu, 1, size=4)),
    ("mask_indices size small", lambda m: m.mask_indices(3, m.tril, size=2)),
    ("bartlett", lambda m: m.bartlett(5)),
    ("blackman", lambda m: m.blackman(6)),
    ("hamming", lambda m: m.hamming(4)),
    ("hanning", lambda m: m.hanning(7)),
    ("hanning 1", lambda m: m.hanning(1)),
    ("bartlett 0", lambda m: m.bartlett(0)),
    ("kaiser", lambda m: m.kaiser(6, 2.5)),
    ("kaiser 1", lambda m: m.kaiser(1, 14.0)),
    ("mgrid", lambda m: m.mgrid[0:4:2, 1:3]),
    ("mgrid 1-d", lambda m: m.mgrid[-1:1:5j]),
    ("mgrid float", lambda m: m.mgrid[0:1:0.25, 0:2:3j]),
    ("ogrid", lambda m: m.ogrid[0:3, 0:5:2]),
    ("r_", lambda m: m.r_[np.array([1, 2], np.int8), 0, 5:7]),
    ("r_ float", lambda m: m.r_[1.5, np.array([2, 3])]),
    ("r_ directive", lambda m: m.r_["0,2", np.array([1, 2, 3]), np.array([4, 5, 6])]),
    ("r_ directive c", lambda m: m.r_["c", np.array([1, 2, 3], np.float16), [4, 5, 6]]),
    ("c_", lambda m: m.c_[np.array([1, 2, 3]), np.array([4.0, 5.0, 6.0], np.float32)]),
    ("c_ 2-d", lambda m: m.c_[np.ones((2, 2), np.int16), np.zeros((2, 1), np.uint8)]),
    ("broadcast_shapes", lambda m: jnp.asarray(m.broadcast_shapes((2, 1), (3,), ()))),
    ("broadcast_shapes bad", lambda m: jnp.asarray(m.broadcast_shapes((2,), (3,)))),
    ("ndim", lambda m: jnp.asarray(m.ndim(np.ones((2, 3))))),
    ("size axis", lambda m: jnp.asarray(m.size(np.ones((2, 3)), 1))),
    ("iterable", lambda m: jnp.asarray([m.iterable(3), m.iterable([1]), m.iterable(np.ones(2))])),
]


def test_static(static):
    (label, f), x64 = static
    with jax.enable_x64(x64):
        check(lambda: f(wnp), lambda: f(jnp), context=label)


# Calls on one float32 (2, 4) operand that exercise errors and traced-argument rules.
CALLS = [
    ("atleast_2d many", lambda m, x: m.atleast_2d(x, x[0], x[0, 0])),
    ("moveaxis mismatch", lambda m, x: m.moveaxis(x, (0, 1), 0)),
    ("moveaxis out of range", lambda m, x: m.moveaxis(x, 2, 0)),
    ("swapaxes bad", lambda m, x: m.swapaxes(x, 0, 3)),
    ("rollaxis bad start", lambda m, x: m.rollaxis(x, 0, 5)),
    ("rot90 same axes", lambda m, x: m.rot90(x, axes=(1, 1))),
    ("rot90 1-d", lambda m, x: m.rot90(x[0])),
    ("fliplr 1-d", lambda m, x: m.fliplr(x[0])),
    ("roll traced shift", lambda m, x: m.roll(x, x[0, 0].astype(np.int32) + 3, axis=1)),
    ("roll traced shifts", lambda m, x: m.roll(x, (x[0, :2] * 3).astype(np.int8), axis=(1, 0))),
    ("roll traced none", lambda m, x: m.roll(x, x[1, 1].astype(np.int32))),
    ("repeat traced", lambda m, x: m.repeat(x, (x[0] > 0).astype(np.int32), axis=1)),
    (
        "repeat traced total",
        lambda m, x: m.repeat(x, (x[0] > 0).astype(np.int32) + 1, axis=1, total_repeat_length=6),
    ),
    (
        "repeat traced total short",
        lambda m, x: m.repeat(x[0], x[1].astype(np.int32) % 3, total_repeat_length=3),
    ),
    ("repeat scalar array", lambda m, x: m.repeat(x[0, 0], np.array([1, 2]))),
    ("repeat zero", lambda m, x: m.repeat(x, 0, axis=0)),
    ("split unequal", lambda m, x: m.split(x, 3, axis=1)),
    ("split decreasing", lambda m, x: m.split(x, [3, 1], axis=1)),
    ("vsplit 1-d", lambda m, x: m.vsplit(x[0], 2)),
    ("unstack 0-d", lambda m, x: m.unstack(x[0, 0])),
    ("block tuple", lambda m, x: m.block((x, x))),
    ("block mismatched", lambda m, x: m.block([[x], x])),
    ("block empty", lambda m, x: m.block([])),
    ("resize negative", lambda m, x: m.resize(x, (-1, 2))),
    ("take traced", lambda m, x: m.take(x, (x[0] > 0).astype(np.int32) * 3, axis=1)),
    ("take raise", lambda m, x: m.take(x, np.array([0]), mode="raise")),
    ("take bad mode", lambda m, x: m.take(x, np.array([0]), mode="nope")),
    ("take out", lambda m, x: m.take(x, np.array([0]), out=x)),
    ("take empty axis", lambda m, x: m.take(x[:, :0], np.array([0]), axis=1)),
    ("take empty indices", lambda m, x: m.take(x, np.zeros((0, 2), np.int32), axis=1)),
    ("take_along_axis float", lambda m, x: m.take_along_axis(x, x, axis=1)),
    ("take_along_axis ranks", lambda m, x: m.take_along_axis(x, np.array([0]), axis=1)),
    ("take_along_axis traced", lambda m, x: m.take_along_axis(x, m.argmax(x, 1, keepdims=True), 1)),
    ("put_along_axis inplace", lambda m, x: m.put_along_axis(x, np.array([[0]]), 1.0, axis=1)),
    ("put inplace", lambda m, x: m.put(x, np.array([0]), 1.0)),
    ("put traced", lambda m, x: m.put(x, (x[0] > 0).astype(np.int32), x[1], inplace=False)),
    ("place traced mask", lambda m, x: m.place(x, x > 0, np.array([9.0, 8.0]), inplace=False)),
    ("place empty vals", lambda m, x: m.place(x, x > 0, np.zeros(0), inplace=False)),
    ("place sizes", lambda m, x: m.place(x, x[0] > 0, 1.0, inplace=False)),
    ("choose raise traced", lambda m, x: m.choose((x[0] > 0).astype(np.int32), [x[0], x[1]])),
    ("choose float", lambda m, x: m.choose(x[0], [x[0], x[1]], mode="clip")),
    (
        "choose traced wrap",
        lambda m, x: m.choose((x[0] * 2).astype(np.int32), [x[0], x[1], 1.0], mode="wrap"),
    ),
    ("compress traced", lambda m, x: m.compress(x[0] > 0, x, axis=1)),
    ("compress traced size", lambda m, x: m.compress(x[:, 0] > 0, x, size=1, fill_value=-2.0)),
    ("compress long", lambda m, x: m.compress(np.array([0, 1, 0, 0, 1]), x[0])),
    ("compress bad size", lambda m, x: m.compress(np.array([1, 0]), x, size=9)),
    ("compress 2-d", lambda m, x: m.compress(np.ones((2, 2)), x)),
    ("extract traced", lambda m, x: m.extract(x > 0, x, size=5)),
    ("delete traced", lambda m, x: m.delete(x, (x[0] > 0).astype(np.int32), axis=1)),
    (
        "delete traced unique",
        lambda m, x: m.delete(
            x,
            (x[0, :2] > 0).astype(np.int32) + np.array([0, 2]),
            axis=1,
            assume_unique_indices=True,
        ),
    ),
    ("delete bool", lambda m, x: m.delete(x, np.array([True, False, False, True]), axis=1)),
    ("delete bool bad", lambda m, x: m.delete(x, np.array([True, False]), axis=1)),
    ("delete float", lambda m, x: m.delete(x, np.array([1.0]))),
    (
        "insert traced",
        lambda m, x: m.insert(x, (x[0, :2] > 0).astype(np.int32) * 2, x[1, :2], axis=1),
    ),
    ("insert 2-d obj", lambda m, x: m.insert(x, np.ones((2, 2), np.int32), 0.0)),
    ("insert float obj", lambda m, x: m.insert(x, np.array([1.5]), 0.0)),
    ("fill_diagonal inplace", lambda m, x: m.fill_diagonal(x, 1.0)),
    ("fill_diagonal wrap", lambda m, x: m.fill_diagonal(x, 1.0, wrap=True, inplace=False)),
    ("fill_diagonal 1-d", lambda m, x: m.fill_diagonal(x[0], 1.0, inplace=False)),
    (
        "ravel_multi_index raise traced",
        lambda m, x: m.ravel_multi_index(
            ((x[0] > 0).astype(np.int32), np.array([0, 1, 1, 0])), (2, 2)
        ),
    ),
    (
        "ravel_multi_index traced clip",
        lambda m, x: m.ravel_multi_index(
            ((x[0] > 0).astype(np.int32), np.array([0, 1, 1, 0])), (2, 2), mode="clip"
        ),
    ),
    ("ravel_multi_index raise", lambda m, x: m.ravel_multi_index((np.array([0, 3]), 1), (3, 2))),
    ("ravel_multi_index raise ok", lambda m, x: m.ravel_multi_index((np.array([0, 2]), 1), (3, 2))),
    (
        "ravel_multi_index dtype",
        lambda m, x: m.ravel_multi_index(
            (np.array([0, 2]), 1), (3, 2), mode="wrap", dtype=np.uint8
        ),
    ),
    ("ravel_multi_index float", lambda m, x: m.ravel_multi_index((x[0], 1), (3, 2), mode="wrap")),
    ("unravel traced", lambda m, x: m.unravel_index((x * 4).astype(np.int32), (2, 3))),
    ("unravel unsigned", lambda m, x: m.unravel_index(np.array([0, 7, 300], np.uint16), (4, 2))),
    ("trim_zeros traced", lambda m, x: m.trim_zeros(x[0])),
    ("diagonal 1-d", lambda m, x: m.diagonal(x[0])),
    ("diag 3-d", lambda m, x: m.diag(x[None])),
    ("diagflat k", lambda m, x: m.diagflat(x, 2)),
    ("vander 2-d", lambda m, x: m.vander(x)),
    ("vander negative", lambda m, x: m.vander(x[0], -1)),
    ("meshgrid 2-d", lambda m, x: m.meshgrid(x, x)),
    ("meshgrid indexing", lambda m, x: m.meshgrid(x[0], indexing="yx")),
    ("ix_ bool", lambda m, x: m.ix_(x[0] > 0)),
    ("ix_ 2-d", lambda m, x: m.ix_(np.ones((2, 2), np.int32))),
    ("ix_ empty", lambda m, x: m.ix_(np.zeros(0, np.int32), np.array([1]))),
    ("eye traced k", lambda m, x: m.eye(3, k=(x[0, 0] > 0).astype(np.int32))),
    ("eye float k", lambda m, x: m.eye(3, k=x[0, 0])),
    ("apply_along_axis sum", lambda m, x: m.apply_along_axis(m.sum, -1, x)),
    ("apply_along_axis outer", lambda m, x: m.apply_along_axis(lambda r: m.outer(r, r[:2]), 1, x)),
    (
        "apply_over_axes",
        lambda m, x: m.apply_over_axes(lambda a, ax: m.max(a, ax, keepdims=True), x, (1,)),
    ),
    ("empty_like weak", lambda m, x: m.empty_like(2.5, shape=(2,))),
    ("geomspace complex", lambda m, x: m.geomspace(1j, 8j, 4)),
    ("linspace complex", lambda m, x: m.linspace(0, 2 + 1j, 3)),
    ("logspace traced", lambda m, x: m.logspace(x[0, 0], x[0], 3, axis=0)),
    ("mask_indices traced", lambda m, x: m.mask_indices(3, m.triu)),
    ("ndim", lambda m, x: jnp.asarray(m.ndim(x))),
    ("shape", lambda m, x: jnp.asarray(m.shape(x))),
    ("size", lambda m, x: jnp.asarray(m.size(x, (0, 1)))),
    ("iterable", lambda m, x: jnp.asarray(m.iterable(x[0, 0]))),
    ("hstack array", lambda m, x: m.hstack(x[0])),
    ("column_stack array", lambda m, x: m.column_stack(x)),
    ("dstack weak", lambda m, x: m.dstack([1.0, x[0]])),
]


# Calls jax only runs eagerly: under jax.jit they raise, traced weaktrace must raise too
# (ConcretizationError), while eagerly both give the same result.
EAGER_ONLY = {
    "repeat traced", "choose raise traced", "compress traced", "delete traced",
    "ravel_multi_index raise traced", "ravel_multi_index raise ok", "trim_zeros traced",
    "mask_indices traced",
}  # fmt: skip


def _outcome(fn):
    try:
        return fn()
    except Exception as err:  # the outcome is what we compare
        return err


def check_eager_only(wt_fn, jax_fn, *args, context):
    """jax.jit raises, and tracing raises the same kind of error: ConcretizationError
    where jax's is a concretization error, a ValueError where jax's is one (an axis out
    of bounds is found before the values are needed); eagerly both agree."""
    with pytest.raises(Exception) as jit_error:
        jax.jit(jax_fn)(*args)
    if isinstance(jit_error.value, jax.errors.ConcretizationTypeError):
        with pytest.raises(wt.ConcretizationError):
            wt.trace(wt_fn).trace(*args)
    else:
        with pytest.raises(type(jit_error.value)):
            wt.trace(wt_fn).trace(*args)
    eager = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    want = _outcome(lambda: jax_fn(*eager))
    got = _outcome(lambda: wt_fn(*eager))
    if isinstance(want, Exception):
        assert isinstance(got, ValueError) == isinstance(want, ValueError), (context, got, want)
        return
    assert not isinstance(got, Exception), f"{context}: eager raised {got!r}"
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree, context
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type), context
        np.testing.assert_allclose(
            np.asarray(g).astype(np.complex128), np.asarray(w).astype(np.complex128),
            rtol=2e-2, equal_nan=True, err_msg=context,
        )  # fmt: skip


def test_calls(call):
    label, f = call
    x = values("float32", (2, 4), seed=5, special=False)
    if label in EAGER_ONLY:
        check_eager_only(lambda a: f(wnp, a), lambda a: f(jnp, a), x, context=label)
        return
    check(lambda a: f(wnp, a), lambda a: f(jnp, a), x, context=label)


def test_traced_errors_are_concretization_errors():
    """Where jax needs a concrete value under jit, weaktrace names it ConcretizationError."""
    x = jax.ShapeDtypeStruct((4,), np.int32)
    for fn in (
        lambda a: wnp.repeat(a, a),
        lambda a: wnp.trim_zeros(a),
        lambda a: wnp.delete(a, a),
        lambda a: wnp.choose(a, [a, a]),
        lambda a: wnp.compress(a > 0, a),
    ):
        with pytest.raises(wt.ConcretizationError):
            wt.trace(fn).trace(x)


def test_index_objects():
    for key in (1, slice(1, 2), (slice(1, 2), slice(None, None, 3)), (Ellipsis, 0, None)):
        assert wnp.s_[key] == jnp.s_[key]
        assert wnp.index_exp[key] == jnp.index_exp[key]
    with wnp.printoptions(precision=2):
        assert wnp.get_printoptions()["precision"] == 2 == jnp.get_printoptions()["precision"]
    x = np.arange(3.0)
    assert wnp.array_repr(wnp.asarray(x)) == jnp.array_repr(jnp.asarray(x))
    assert wnp.array_str(wnp.asarray(x), precision=1) == jnp.array_str(jnp.asarray(x), precision=1)
    with pytest.raises(wt.ConcretizationError):
        wt.trace(wnp.array_str).trace(x)
