"""diff, ediff1d, gradient, convolve, correlate, interp, polyval, tril and triu against
jax.numpy, eager and traced, over every dtype, shapes and keyword values, x64 off and
on."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, values, with_x64
from tests.mirror_harness import check

# Sorted sample points for interp, float32: with x64 off, jax 0.10.2 fails to lower
# interp under an outer jit when xp or fp is a float64 numpy array (its inner jit gets the
# uncanonicalized f64 constant: "func.call op operand type mismatch"); jax's bug, avoided.
XP = np.array([-3.0, -1.0, 0.5, 2.0, 4.0], np.float32)
FP = np.arange(5.0, dtype=np.float32)


def _x(kind: str, shape: tuple[int, ...], seed: int = 0, special: bool = True) -> object:
    return values(kind, () if kind in SCALARS else shape, seed=seed, special=special)


# name -> variants: f(module, x, y) where x has the swept dtype and y is a second operand
# of the dtype paired with it (the next dtype in KINDS).
VARIANTS = {
    "diff": [
        (lambda m, x, y: m.diff(x), (3, 4)),
        (lambda m, x, y: m.diff(x, n=2, axis=0), (4, 3)),
        (lambda m, x, y: m.diff(x, prepend=y, append=1.5), (2, 4)),
        (lambda m, x, y: m.diff(x, axis=0, append=y), (3, 2)),
        (lambda m, x, y: m.diff(x, n=0), (3,)),
    ],
    "ediff1d": [
        (lambda m, x, y: m.ediff1d(x), (2, 3)),
        (lambda m, x, y: m.ediff1d(x, to_end=y, to_begin=[1, 2]), (4,)),
    ],
    "gradient": [
        (lambda m, x, y: m.gradient(x), (4,)),
        (lambda m, x, y: m.gradient(x), (3, 4)),
        (lambda m, x, y: m.gradient(x, y, axis=-1), (3, 4)),
        (lambda m, x, y: m.gradient(x, 2.0, y, axis=(1, 0)), (3, 4)),
        (lambda m, x, y: m.gradient(x, np.array([0.0, 1.0, 2.5, 3.0]), axis=1), (2, 4)),
    ],
    "convolve": [
        (lambda m, x, y: m.convolve(x, y), (5,)),
        (lambda m, x, y: m.convolve(x, y, mode="same"), (3,)),
        (lambda m, x, y: m.convolve(x, y, "valid", preferred_element_type=np.float32), (4,)),
    ],
    "correlate": [
        (lambda m, x, y: m.correlate(x, y), (5,)),
        (lambda m, x, y: m.correlate(x, y, mode="full"), (2,)),
        (lambda m, x, y: m.correlate(x, y, "same", preferred_element_type=np.int32), (4,)),
    ],
    "interp": [
        (lambda m, x, y: m.interp(x, XP, FP), (2, 3)),
        (lambda m, x, y: m.interp(2.0, XP, x), (5,)),
        (lambda m, x, y: m.interp(x, XP, np.arange(5, dtype=np.int32), left=-1, right=y), (6,)),
        (lambda m, x, y: m.interp(x, XP.astype(np.float16), XP, "extrapolate"), (6,)),
    ],
    "polyval": [
        (lambda m, x, y: m.polyval(x, y), (3,)),
        (lambda m, x, y: m.polyval(np.array([1, -2, 3], np.int8), x), (2, 3)),
        (lambda m, x, y: m.polyval(x, 0.5), (4, 2)),
    ],
    "tril": [
        (lambda m, x, y: m.tril(x), (3, 4)),
        (lambda m, x, y: m.tril(x, k=-1), (2, 3, 3)),
        (lambda m, x, y: m.tril(x, 2), (4, 2)),
    ],
    "triu": [
        (lambda m, x, y: m.triu(x), (3, 4)),
        (lambda m, x, y: m.triu(x, k=1), (2, 2, 3)),
        (lambda m, x, y: m.triu(x, -2), (3,)),
    ],
}

# Where weaktrace disagrees with jax: (name, kind, variant) -> reason. None known.
KNOWN_MISMATCHES: dict[tuple[str, str, int], str] = {}


def _cases() -> list[tuple[str, str, str, int]]:
    out = []
    for name, variants in VARIANTS.items():
        for i, kind in enumerate(KINDS):
            partner = KINDS[(i * 7 + 3) % len(KINDS)]
            out.append((name, kind, partner, i % len(variants)))
    return out


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        cases = with_x64(CASES, 50, full_run(metafunc.config))
        ids = [f"{c[0]}{c[3]}-{c[1]}-{c[2]}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)


def _tolerance(*args: object) -> dict[str, float]:
    low = {str(getattr(a, "dtype", "")) for a in args} & {"float16", "bfloat16"}
    return {"rtol": 2e-2, "atol": 2e-2} if low else {"rtol": 1e-5, "atol": 1e-5}


def test_array_math(case):
    (name, kind, partner, variant), x64 = case
    if (name, kind, variant) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, kind, variant])
    f, shape = VARIANTS[name][variant]
    special = name not in ("convolve", "correlate", "polyval")
    x = _x(kind, shape, 0, special)
    y = _x(partner, shape if name in ("convolve", "correlate", "polyval") else (4,), 1, special)
    with jax.enable_x64(x64):
        check(lambda a, b: f(wnp, a, b), lambda a, b: f(jnp, a, b), x, y,
              context=f"{name}[{variant}]", **_tolerance(x, y))  # fmt: skip


CALLS = [
    ("diff negative n", lambda m, x: m.diff(x, n=-1)),
    ("diff 0-d", lambda m, x: m.diff(x[0, 0])),
    ("ediff1d bool", lambda m, x: m.ediff1d(x > 0)),
    ("gradient too small", lambda m, x: m.gradient(x[:1])),
    ("gradient no axes", lambda m, x: m.gradient(x, axis=())),
    ("gradient bad spacing count", lambda m, x: m.gradient(x, 1.0, 2.0, 3.0)),
    ("gradient edge_order", lambda m, x: m.gradient(x, edge_order=1)),
    ("convolve 2-d", lambda m, x: m.convolve(x, x)),
    ("convolve bad mode", lambda m, x: m.convolve(x[0], x[1], mode="middle")),
    ("convolve empty", lambda m, x: m.convolve(x[0, :0], x[1])),
    ("interp bad left", lambda m, x: m.interp(x, XP, XP, left="nearest")),
    ("interp complex x", lambda m, x: m.interp(x * 1j, XP, XP)),
    ("interp shapes", lambda m, x: m.interp(x, XP, XP[:3])),
    ("interp nan x", lambda m, x: m.interp(x * np.nan, XP, XP)),
    ("polyval scalar p", lambda m, x: m.polyval(2.0, x)),
    ("tril 1-d", lambda m, x: m.tril(x[0])),
]


@pytest.mark.parametrize(("label", "f"), CALLS, ids=[c[0] for c in CALLS])
def test_calls(label, f):
    x = values("float32", (2, 4), seed=5, special=False)
    check(lambda a: f(wnp, a), lambda a: f(jnp, a), x, context=label)
