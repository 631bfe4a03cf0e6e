"""The torch policy rounds into float8 as PyTorch does (`Policy.roundings`).

PyTorch saturates float8_e4m3fn (1000 -> 448) and maps float8_e8m0fnu's missing sign and
zero to magnitudes (-7 -> 8, 0 -> 2**-127), where XLA and ml_dtypes give NaN. The oracle
is torch itself, on generated values: conversions in a traced program, literals folded
at trace time, the host rounding, arithmetic torch implements for these dtypes, and the
float8 dtypes torch converts as XLA does (kept on XLA's conversion).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from weaktrace.dtypes import registry
from weaktrace.dtypes.rounding import round_host

torch = pytest.importorskip("torch")

FLOAT8 = ["float8_e4m3fn", "float8_e8m0fnu", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 448.0, 449.0, 464.0, 480.0, -1000.0,
           1e-40, -1e-40, 2.0**-127, 1.5 * 2.0**-127, 3e38, -3e38, 1.5, 3.0, 6.0, -7.0,
           2.0**-126]  # fmt: skip


def _values(seed: int, n: int = 4000) -> np.ndarray:
    """float32 values over the whole range (magnitudes 1e-45 .. 1e38, both signs), the
    specials above, and every float32 whose mantissa sits at a float8 rounding tie."""
    rng = np.random.default_rng(seed)
    mags = 10.0 ** rng.uniform(-45, 38.5, n)
    random = (mags * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    exps = rng.integers(0, 255, 200).astype(np.uint32)
    ties = ((exps << 23) | np.uint32(0x400000)).view(np.float32)  # e8m0's halfway points
    with np.errstate(over="ignore"):
        return np.concatenate([random, np.array(SPECIAL, np.float32), ties, -ties])


def _torch(values: np.ndarray, name: str) -> np.ndarray:
    return torch.from_numpy(values).to(getattr(torch, name)).float().numpy()


def _same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise agreement, NaN equal to NaN (the NaN bit patterns may differ)."""
    got = np.asarray(got, np.float32)
    return (got == want) | (np.isnan(got) & np.isnan(want))


def _assert_same(got: np.ndarray, want: np.ndarray, values: np.ndarray, what: str) -> None:
    ok = _same(got, want)
    bad = np.flatnonzero(~ok)[:5]
    assert ok.all(), f"{what}: {(~ok).sum()} differ, e.g. " + ", ".join(
        f"{values[i]!r} -> {got[i]!r} (torch {want[i]!r})" for i in bad
    )


@pytest.mark.parametrize("name", FLOAT8)
def test_traced_conversion_rounds_as_torch(name):
    values = _values(1)
    f = wt.trace(lambda x: x.astype(name), policy=wt.policy("torch"))
    out = np.asarray(f(values))
    assert out.dtype == np.dtype(name)
    got = out.astype(np.float32)
    _assert_same(got, _torch(values, name), values, f"float32 -> {name}")


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e8m0fnu"])
def test_conversion_from_other_dtypes(name, source):
    values = _values(2)
    with np.errstate(over="ignore", invalid="ignore"):
        if source in ("int32", "int64", "bool"):
            finite = np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0)
            src = np.clip(finite, -(2.0**31), 2.0**31 - 256).astype(source)
        else:
            src = values.astype(ml_dtypes.bfloat16 if source == "bfloat16" else source)
    f = wt.trace(lambda x: x.astype(name), policy=wt.policy("torch", default_float="float64"))
    got = np.asarray(f(src)).astype(np.float32)
    want = torch.from_numpy(np.asarray(src, np.float32) if source == "bfloat16" else src)
    if source == "bfloat16":
        want = want.to(torch.bfloat16)
    want = want.to(getattr(torch, name)).float().numpy()
    _assert_same(got, want, values, f"{source} -> {name}")


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e8m0fnu"])
def test_host_rounding_matches_torch(name):
    values = _values(3)
    got = np.asarray(round_host(values, registry.by_name(name), wt.policy("torch").roundings[
        registry.by_name(name)]), np.float32)  # fmt: skip
    _assert_same(got, _torch(values, name), values, f"host {name}")


NUMBERS = [True, 0, 3, -7, 1000, 2.5, -0.5, 0.0, 1e-40, 1e300, -math.inf, math.nan, 2**40]


@pytest.mark.parametrize("number", NUMBERS, ids=repr)
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e8m0fnu"])
def test_folded_literal_rounds_as_torch(name, number):
    """torch.where(c, number, f8 tensor) converts the wrapped number to float8; weaktrace
    folds it at trace time."""
    cond = np.array([True, False])
    other = np.array([2.0, 0.5], getattr(ml_dtypes, name))
    f = wt.trace(lambda y: wnp.where(cond, number, y), policy=wt.policy("torch"))
    got = np.asarray(f(other)).astype(np.float32)
    t_other = torch.tensor([2.0, 0.5]).to(getattr(torch, name))
    want = torch.where(torch.tensor(cond), number, t_other).float().numpy()
    assert _same(got, want).all(), (got, want)


@pytest.mark.parametrize("number", [0.0, -7.0, 3.0, 1000.0, 1e-40, -math.inf], ids=repr)
def test_e8m0_product_rounds_as_torch(number):
    """mul(bfloat16 0-dim, float8_e8m0fnu) computes in float8_e8m0fnu in torch."""
    a = np.array(number, ml_dtypes.bfloat16)
    b = np.array([2.0, 0.5, 2.0**-127, 2.0**100], ml_dtypes.float8_e8m0fnu)
    f = wt.trace(lambda a, b: a * b, policy=wt.policy("torch"))
    got = np.asarray(f(a, b)).astype(np.float32)
    ta = torch.tensor(number, dtype=torch.bfloat16)
    tb = torch.from_numpy(b.astype(np.float32)).to(torch.float8_e8m0fnu)
    want = (ta * tb).float().numpy()
    assert _same(got, want).all(), (got, want)


def test_jax_policy_keeps_xla_conversion():
    """Only the torch policy rounds its own way: under jax's, NaN as jax gives."""
    import jax.numpy as jnp

    values = _values(4, 500)
    for name in ("float8_e4m3fn", "float8_e8m0fnu"):
        f = wt.trace(lambda x, name=name: x.astype(name), static_argnames="name")
        got = np.asarray(f(values)).astype(np.float32)
        want = np.asarray(jnp.asarray(values).astype(name)).astype(np.float32)
        _assert_same(got, want, values, f"jax policy {name}")


CREATORS = {
    "array": (lambda wnp, d: wnp.array([1000.0, -7.0, 0.0, 3.0], dtype=d),
              lambda t: torch.tensor([1000.0, -7.0, 0.0, 3.0], dtype=t)),
    "asarray_of_numpy": (lambda wnp, d: wnp.asarray(np.array([1000.0, -7.0, 0.0]), dtype=d),
                         lambda t: torch.asarray(np.array([1000.0, -7.0, 0.0]), dtype=t)),
    "zeros": (lambda wnp, d: wnp.zeros(3, d), lambda t: torch.zeros(3, dtype=t)),
    "ones": (lambda wnp, d: wnp.ones(3, d), lambda t: torch.ones(3, dtype=t)),
    "full_int": (lambda wnp, d: wnp.full(3, 0, dtype=d), lambda t: torch.full((3,), 0, dtype=t)),
    # (torch's full checks a fill it cannot hold with c10's checked conversion: -0.5
    # into float8_e8m0fnu raises for 3 elements; that check is not mirrored)
    "full_float": (lambda wnp, d: wnp.full(3, 3.5, dtype=d),
                   lambda t: torch.full((3,), 3.5, dtype=t)),
    "zeros_like": (lambda wnp, d: wnp.zeros_like(np.ones(2, np.float32), dtype=d),
                   lambda t: torch.zeros_like(torch.ones(2), dtype=t)),
    "eye": (lambda wnp, d: wnp.eye(3, dtype=d), lambda t: torch.eye(3, dtype=t)),
}  # fmt: skip


@pytest.mark.parametrize("creator", sorted(CREATORS))
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e8m0fnu"])
def test_created_values_round_as_torch(name, creator):
    """Constants made in the trace (folded on the host) round as torch's creators do."""
    ours, theirs = CREATORS[creator]
    got = wt.trace(lambda: ours(wnp, name), policy=wt.policy("torch"))()
    assert np.asarray(got).dtype == np.dtype(name)
    want = theirs(getattr(torch, name)).float().numpy()
    assert _same(np.asarray(got).astype(np.float32), want).all(), (got, want)


@pytest.mark.xfail(
    strict=True, reason="docs/torch_policy.md 'Known limits': full does not check its fill"
)
@pytest.mark.parametrize(("fill", "dtype"), [(300, "uint8"), (-0.5, "float8_e8m0fnu")])
def test_full_checks_its_fill_as_torch(fill, dtype):
    """torch.full((3,), fill, dtype=...) raises where the fill does not fit."""
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.full((3,), fill, dtype=getattr(torch, dtype))
    with pytest.raises(OverflowError):
        wt.trace(lambda: wnp.full((3,), fill, dtype=dtype), policy=wt.policy("torch"))()
