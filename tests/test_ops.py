"""weaktrace.ops, the jax.ops mirror, against jax.ops computed at test time.

Coverage: every public name of jax.ops (enumerated at test time) exists in
weaktrace.ops with jax's parameters and defaults. Differential (tests/mirror_harness
``check``: eager, traced and compiled vs jax eager and jit): generated data dtypes and
shapes, segment id dtypes and values (out of range and negative too), num_segments,
bucket_size, indices_are_sorted, unique_indices and mode, x64 off and on.
num_segments=None: eagerly as jax eagerly, inside a trace the error jax raises under
jit. CI runs a deterministic sample; ``--run-slow`` runs every case."""

# ruff: noqa: B023  (every lambda made in a loop is called within that iteration)
from __future__ import annotations

import inspect
import itertools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.ops as wops
from tests.mirror_harness import check

X64 = [False, True]
DATA = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
        "bfloat16", "float16", "float32", "float64", "complex64", "py float", "py int"]  # fmt: skip
IDS = ["int32", "int8", "uint8", "int64"]
SHAPES = [(5,), (5, 2), (1,), (0,), (4, 2, 3)]
KWARGS = [  # keyword arguments besides num_segments
    {},
    {"bucket_size": 2},
    {"bucket_size": 10},
    {"indices_are_sorted": True},
    {"unique_indices": True},
    {"mode": "clip"},
    {"mode": "drop"},
    {"mode": jax.lax.GatherScatterMode.FILL_OR_DROP},
    {"mode": "promise_in_bounds"},
]


def public(mod) -> list[str]:
    return sorted(n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n)))


NAMES = public(jax.ops)


def sample(cases, k: int, full: bool, seed: str) -> list:
    cases = list(cases)
    return cases if full or len(cases) <= k else random.Random(seed).sample(cases, k)


def _data(spec: str, shape: tuple[int, ...], seed: int):
    if spec == "py float":
        return 1.5
    if spec == "py int":
        return 3
    x = np.random.default_rng(seed).integers(-3, 4, shape)
    if spec == "bool":
        return x > 0
    if spec.startswith("uint"):
        x = np.abs(x)
    return x.astype(jnp.dtype(spec))


def _ids(spec: str, n: int, in_bounds: bool, sorted_: bool, unique: bool, seed: int):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(max(n, 4))[:n] if unique else rng.integers(0, 4, n)
    if not in_bounds and n:
        ids[0] = 7  # past num_segments: dropped (or clipped)
        if spec.startswith("int") and n > 1:
            ids[-1] = -1  # negative ids are not wrapped
    if sorted_:
        ids = np.sort(ids)
    return ids.astype(spec)


def test_every_public_jax_ops_name_is_mirrored_with_jax_signature():
    assert NAMES, "jax.ops exports nothing?"
    assert sorted(wops.__all__) == NAMES
    for name in NAMES:
        ours = inspect.signature(getattr(wops, name)).parameters
        theirs = inspect.signature(getattr(jax.ops, name)).parameters
        assert list(ours) == list(theirs), name
        for p in theirs:
            assert ours[p].default == theirs[p].default, (name, p)
            assert ours[p].kind == theirs[p].kind, (name, p)
        assert wt.ops is wops


def _cases():
    """Every (name, data dtype, keywords), with id dtypes and shapes taken in turn."""
    return [
        (name, dt, IDS[i % len(IDS)], i % len(SHAPES), ki)
        for i, (name, dt, ki) in enumerate(itertools.product(NAMES, DATA, range(len(KWARGS))))
    ]


@pytest.mark.parametrize("x64", X64)
def test_segment_ops_match_jax(full, x64):
    with jax.enable_x64(x64):
        for i, (name, dt, idt, si, ki) in enumerate(sample(_cases(), 24, full, f"seg {x64}")):
            shape, kw = SHAPES[si], dict(KWARGS[ki])
            if dt.startswith("py"):
                shape = ()
            safe = kw.get("mode") == "promise_in_bounds" or kw.get("unique_indices")
            sorted_ = bool(kw.get("indices_are_sorted"))
            n = shape[0] if shape else 1
            ids = _ids(idt, n, in_bounds=safe, sorted_=sorted_,
                       unique=bool(kw.get("unique_indices")), seed=i)  # fmt: skip
            if not shape:
                ids = ids[0]
            segs = max(4, n) if kw.get("unique_indices") else 4
            data = _data(dt, shape, i)
            what = f"{name} data={dt}{shape} ids={idt} {kw} num_segments={segs}"
            check(
                lambda d, s: getattr(wops, name)(d, s, segs, **kw),
                lambda d, s: getattr(jax.ops, name)(d, s, segs, **kw),
                data,
                ids,
                rtol=1e-2,
                atol=1e-2,
                context=what,
            )


@pytest.mark.parametrize("x64", X64)
def test_num_segments_none_eager_as_jax_and_an_error_when_traced(x64):
    data = np.arange(6, dtype=np.float32).reshape(3, 2)
    ids = np.array([0, 4, 1], np.int32)
    with jax.enable_x64(x64):
        for name in NAMES:
            ours = getattr(wops, name)(jnp.asarray(data), jnp.asarray(ids))
            theirs = getattr(jax.ops, name)(jnp.asarray(data), jnp.asarray(ids))
            assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, name
            np.testing.assert_array_equal(ours, theirs)
            with pytest.raises(jax.errors.ConcretizationTypeError):
                jax.jit(lambda d, s: getattr(jax.ops, name)(d, s))(data, ids)
            with pytest.raises(wt.errors.ConcretizationError):
                wt.trace(lambda d, s: getattr(wops, name)(d, s)).trace(data, ids)
            # num_segments from a traced value: jax's concrete_dim_or_error
            with pytest.raises(TypeError):
                jax.jit(lambda d, s, k: getattr(jax.ops, name)(d, s, k))(data, ids, 3)
            with pytest.raises(TypeError):
                wt.trace(lambda d, s, k: getattr(wops, name)(d, s, k)).trace(data, ids, 3)


BAD = {  # name -> (data, segment_ids, keyword arguments): jax raises, so must we
    "negative num_segments": (np.ones(3, np.float32), np.zeros(3, np.int32), {"num_segments": -1}),
    "list data": ([1.0, 2.0], np.zeros(2, np.int32), {"num_segments": 2}),
    "list ids": (np.ones(2, np.float32), [0, 1], {"num_segments": 2}),
    "float ids": (np.ones(2, np.float32), np.zeros(2, np.float32), {"num_segments": 2}),
    "ids longer than data": (np.ones(2, np.float32), np.zeros(3, np.int32), {"num_segments": 2}),
    "bad mode": (np.ones(2, np.float32), np.zeros(2, np.int32), {"num_segments": 2,
                                                                 "mode": "wrap"}),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_as_jax(case):
    data, ids, kw = BAD[case]
    for name in NAMES:
        check(lambda d, s: getattr(wops, name)(d, s, **kw),
              lambda d, s: getattr(jax.ops, name)(d, s, **kw), data, ids,
              context=f"{name} {case}")  # fmt: skip


@pytest.mark.parametrize("unique", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_gradient_matches_jax(name, unique):
    """jax.grad through the compiled function: jax's values, or jax's error kind
    (jax differentiates scatter_mul only with unique_indices)."""
    data = np.array([[1.0, -2.0], [3.0, 0.5], [2.0, 2.0], [-1.0, 4.0]], np.float32)
    ids = np.array([3, 2, 0, 1] if unique else [0, 2, 0, 1], np.int32)
    traced = wt.trace(lambda d: getattr(wops, name)(d, ids, 4, unique_indices=unique))

    def theirs_fn(d):
        return jnp.sum(jnp.sin(getattr(jax.ops, name)(d, ids, 4, unique_indices=unique)))

    try:
        theirs = jax.grad(theirs_fn)(data)
    except Exception as e:  # jax's error kind is the oracle
        with pytest.raises(type(e)):
            jax.grad(lambda d: jnp.sum(jnp.sin(traced(d))))(data)
        return
    ours = jax.grad(lambda d: jnp.sum(jnp.sin(traced(d))))(data)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, err_msg=name)
