"""Generated operands for the math mirror tests (tests/test_numpy_math*.py).

`values(dtype, shape, seed)` draws an array with the awkward values of its dtype
(negative zero, infinities, NaN, the extremes of integers); `operand_kinds()` is the
dtype axis of the sweeps: every array dtype weaktrace knows that jax.numpy computes
with, and Python scalars (weak). `sample(cases, n, full)` keeps the CI run short: a
deterministic spread of `n` cases, or all of them under ``--run-slow``.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

ARRAY_DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
SCALARS = ("py_bool", "py_int", "py_float", "py_complex")
KINDS = ARRAY_DTYPES + SCALARS
REAL = tuple(k for k in KINDS if "complex" not in k)
FLOATS = ("bfloat16", "float16", "float32", "float64", "py_float")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "py_int")
SHAPES = ((), (3,), (2, 3))


def _seed(*parts: Any) -> int:
    return zlib.crc32(repr(parts).encode())


def values(kind: str, shape: tuple[int, ...] = (3,), seed: int = 0, special: bool = True) -> Any:
    """An operand of `kind`: a numpy array of that dtype (or a Python scalar)."""
    rng = np.random.default_rng(_seed(kind, shape, seed))
    if kind in SCALARS:
        return {
            "py_bool": bool(rng.integers(2)),
            "py_int": int(rng.integers(-4, 5)),
            "py_float": float(np.round(rng.normal() * 3, 2)),
            "py_complex": complex(np.round(rng.normal(), 2), np.round(rng.normal(), 2)),
        }[kind]
    dt = np.dtype(kind)
    n = int(np.prod(shape))
    if dt.kind == "b":
        flat = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        flat = rng.integers(max(int(info.min), -9), min(int(info.max), 9) + 1, n)
        if special and n >= 3:
            flat[rng.integers(n)] = 0
        flat = flat.astype(dt)
    else:
        real = np.round(rng.normal(size=n) * 3, 2)
        if special and n >= 3:
            extras = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1.0]
            picks = rng.choice(len(extras), size=min(n // 2, 3), replace=False)
            spots = rng.choice(n, size=len(picks), replace=False)
            real[spots] = [extras[p] for p in picks]
        if dt.kind == "c":
            flat = (real + 1j * np.round(rng.normal(size=n) * 2, 2)).astype(dt)
        else:
            flat = real.astype(dt)
    return np.asarray(flat).reshape(shape)


def positive(kind: str, shape: tuple[int, ...] = (3,), seed: int = 0) -> Any:
    """Finite values in (0.5, 4] (for functions whose domain is positive)."""
    x = values(kind, shape, seed, special=False)
    if kind in SCALARS:
        return type(x)(abs(x) + 1) if kind != "py_bool" else True
    if np.dtype(kind).kind == "b":
        return np.ones(shape, bool)
    mag = np.abs(x.astype(np.complex128 if np.dtype(kind).kind == "c" else np.float64))
    return (np.mod(mag, 3.5) + 0.5).astype(kind)


def is_64bit(kind: str) -> bool:
    return (kind.endswith("64") and kind not in ("complex64",)) or kind == "complex128"


def sample(cases: Sequence[Any], n: int, full: bool) -> list[Any]:
    """All cases under --run-slow; otherwise `n` of them, spread deterministically."""
    cases = list(cases)
    if full or len(cases) <= n:
        return cases
    step = len(cases) / n
    return [cases[int(i * step)] for i in range(n)]


# CI's share of each file's sample size `n` (the whole CI run must stay under 20 minutes
# on 2 cores; --run-slow runs every case in both modes whatever this is).
CI_SHARE = 0.65


def with_x64(
    cases: Sequence[Any], n: int, full: bool, halve: bool = True
) -> list[tuple[Any, bool]]:
    """(case, x64) pairs: every case in both modes under --run-slow; otherwise a sample
    of about ``CI_SHARE * n / 2`` cases, alternating x64 off and on (a file that asks for
    every case, ``n >= len(cases)``, gets every case, each in one mode)."""
    if full:
        return [(c, x64) for c in cases for x64 in (False, True)]
    if n >= len(cases):
        return [(c, bool(i % 2)) for i, c in enumerate(cases)]
    picked = [(c, bool(i % 2)) for i, c in enumerate(sample(cases, round(n * CI_SHARE), full))]
    if not halve:  # a file whose sample must cover every name (test_numpy_ufuncs)
        return picked
    return [p for i, p in enumerate(picked) if i % 4 < 2] or picked[:1]  # half, both modes


def product(*axes: Iterable[Any]) -> list[tuple[Any, ...]]:
    return list(itertools.product(*axes))


def finfo(kind: str) -> Any:
    return ml_dtypes.finfo(np.dtype(kind))
