"""weaktrace.numpy.pad, trapezoid and unwrap against jax.numpy (the oracle, computed at test time):
every mode, its keywords and the pad_width forms, over all dtypes, x64 off and on,
weaktrace eager, traced and compiled vs jax eager and jit (tests/mirror_harness.py)."""

from __future__ import annotations

import itertools
import random
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64", "complex64",
]  # fmt: skip
SHAPES = [(), (0,), (1,), (4,), (2, 3), (3, 1, 2)]
WIDTHS = [0, 2, (1, 3), ((1, 2),), 7]
MODES = [
    ("constant", {}),
    ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": 2.5}),
    ("constant", {"constant_values": (1, 3)}),
    ("constant", {"constant_values": ((1, 2),)}),
    ("edge", {}),
    ("wrap", {}),
    ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {}),
    ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {}),
    ("linear_ramp", {"end_values": (3, 5)}),
    ("maximum", {}),
    ("minimum", {"stat_length": 2}),
    ("mean", {}),
    ("mean", {"stat_length": (1, 3)}),
    ("median", {"stat_length": 5}),
    ("empty", {}),
]

# (mode, dtype kind) cases where weaktrace disagrees with jax; see the report.
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def _array(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(repr((dtype, shape)).encode()))
    vals = rng.integers(0, 9, size=shape)
    if dtype == "bool":
        return (vals % 2).astype(bool)
    if dtype == "complex64":
        return (vals + 1j * rng.integers(0, 9, size=shape)).astype(np.complex64)
    return vals.astype(jnp.dtype(dtype))


def _cases() -> list[tuple[str, dict, object, str, tuple[int, ...]]]:
    out = []
    for (mode, kw), width, dt, shape in itertools.product(MODES, WIDTHS, DTYPES, SHAPES):
        out.append((mode, kw, width, dt, shape))
    return out


CASES = _cases()


def _pad_case(mode: str, kw: dict, width: object, dt: str, shape: tuple[int, ...], x64: bool):
    x = _array(dt, shape)
    with jax.enable_x64(x64):
        check(
            lambda a: wnp.pad(a, width, mode, **kw),
            lambda a: jnp.pad(a, width, mode, **kw),
            x,
            rtol=1e-2 if dt in ("bfloat16", "float16") else 1e-5,
            context=f"pad({dt}{shape}, {width!r}, {mode!r}, {kw})",
        )


@pytest.mark.parametrize("x64", [False, True])
def test_pad_sweep(x64: bool, full: bool) -> None:
    cases = CASES if full else random.Random(7 + x64).sample(CASES, 10)
    for case in cases:
        _pad_case(*case, x64=x64)


@pytest.mark.parametrize("mode,kw", MODES, ids=[f"{m}-{sorted(k)}" for m, k in MODES])
@pytest.mark.ci_sample(2)
def test_pad_every_mode(mode: str, kw: dict) -> None:
    """Each mode at least once on a 2-d float32 array with per-axis widths."""
    _pad_case(mode, kw, ((1, 2), (3, 0)), "float32", (2, 3), x64=False)


@pytest.mark.parametrize("value", [3, 2.5, True, 1 + 2j])
@pytest.mark.parametrize("dt", ["int8", "float16", "bool"])
def test_pad_weak_scalar_values(value: object, dt: str) -> None:
    """Python scalars as the array (weak) and as constant_values."""
    check(lambda a: wnp.pad(a, 1, constant_values=value),
          lambda a: jnp.pad(a, 1, constant_values=value), _array(dt, (3,)))  # fmt: skip
    check(lambda a: wnp.pad(a, 2), lambda a: jnp.pad(a, 2), value)


def test_pad_errors() -> None:
    x = _array("float32", (2, 3))
    for width, mode, kw in [
        (-1, "constant", {}),
        (((1, 2, 3),), "constant", {}),
        (1, "bogus", {}),
        (1, "edge", {"constant_values": 1}),
        (1, "mean", {"stat_length": 0}),
        (1, "constant", {"constant_values": (1, 2, 3)}),
    ]:
        check(lambda a: wnp.pad(a, width, mode, **kw),  # noqa: B023
              lambda a: jnp.pad(a, width, mode, **kw), x)  # noqa: B023  # fmt: skip
    e = np.zeros((0, 2), np.float32)
    for mode in ("wrap", "edge", "reflect", "symmetric"):
        check(lambda a: wnp.pad(a, 1, mode),  # noqa: B023
              lambda a: jnp.pad(a, 1, mode), e)  # noqa: B023  # fmt: skip


def test_pad_callable_mode() -> None:
    def fill(vector, pad_width, iaxis, kwargs):
        v = kwargs.get("padder", 10)
        vector = vector.at[: pad_width[0]].set(v)
        return vector.at[vector.shape[0] - pad_width[1] :].set(v)

    x = _array("float32", (2, 3))
    out = wnp.pad(x, 2, fill, padder=4)
    np.testing.assert_array_equal(out, jnp.pad(x, 2, fill, padder=4))


ALL = [*DTYPES, "weak_int", "weak_float"]


def _value(dt: str, shape: tuple[int, ...]) -> object:
    if dt == "weak_int":
        return 3
    if dt == "weak_float":
        return 2.5
    return _array(dt, shape)


TRAPZ = list(
    itertools.product(
        ALL, [(4,), (2, 3), (3, 1)], [{}, {"dx": 0.5}, {"axis": 0}, {"x": "same"}, {"dx": "arr"}]
    )
)


def _trapz_case(dt: str, shape: tuple[int, ...], kw: dict, x64: bool) -> None:
    y = _value(dt, shape)
    kw = dict(kw)
    if kw.get("x") == "same":
        kw["x"] = _array(dt if dt in DTYPES and dt != "bool" else "float16", shape)
    if kw.get("dx") == "arr":
        kw["dx"] = _array("int32", shape[-1:])
    with jax.enable_x64(x64):
        check(lambda a: wnp.trapezoid(a, **kw), lambda a: jnp.trapezoid(a, **kw), y,
              rtol=2e-2, atol=1e-2, context=f"trapezoid({dt}{shape}, {kw})")  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
def test_trapezoid(x64: bool, full: bool) -> None:
    cases = TRAPZ if full else random.Random(11 + x64).sample(TRAPZ, 8)
    for case in cases:
        _trapz_case(*case, x64=x64)


UNWRAP = list(
    itertools.product(
        ALL, [(5,), (2, 4), (0,)], [{}, {"period": 4}, {"discont": 1.0, "axis": 0}, {"period": 1.5}]
    )
)


def _unwrap_case(dt: str, shape: tuple[int, ...], kw: dict, x64: bool) -> None:
    p = _value(dt, shape)
    if isinstance(p, np.ndarray) and p.dtype.kind in "fc":
        p = (p * 1.7).astype(p.dtype)
    with jax.enable_x64(x64):
        check(lambda a: wnp.unwrap(a, **kw), lambda a: jnp.unwrap(a, **kw), p,
              rtol=2e-2, atol=2e-2, context=f"unwrap({dt}{shape}, {kw})")  # fmt: skip


@pytest.mark.parametrize("x64", [False, True])
def test_unwrap(x64: bool, full: bool) -> None:
    cases = UNWRAP if full else random.Random(13 + x64).sample(UNWRAP, 8)
    for case in cases:
        _unwrap_case(*case, x64=x64)


PACK = list(
    itertools.product(
        [*DTYPES, "weak_int"], [(9,), (2, 12), (3, 0)], [None, 0, -1], ["big", "little"]
    )
)


@pytest.mark.parametrize("x64", [False, True])
def test_packbits(x64: bool, full: bool) -> None:
    cases = PACK if full else random.Random(17 + x64).sample(PACK, 10)
    for dt, shape, axis, order in cases:
        with jax.enable_x64(x64):
            check(lambda a: wnp.packbits(a, axis, order),  # noqa: B023
                  lambda a: jnp.packbits(a, axis, order),  # noqa: B023
                  _value(dt, shape), context=f"packbits({dt}{shape}, {axis}, {order})")  # fmt: skip
