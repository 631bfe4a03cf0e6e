"""weaktrace.scipy.spatial.transform (Rotation, Slerp) against jax's, computed at test
time: every public method and classmethod through the differential harness
(tests/mirror_harness.py: weaktrace eager, traced and compiled against jax eager and
jax.jit; shapes, dtypes, weak flags, values, error families) over input dtypes x
batch shapes x x64, and the classes as pytrees through jax.jit.

CI runs one profile (rotating) of every fourth call and of the error calls;
``--run-slow`` runs every call in every profile.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import jax.scipy.spatial.transform as jtf
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
import weaktrace.scipy.spatial.transform as wtf
from tests.conftest import full_run
from tests.mirror_harness import check

# Input profiles: (label, dtype, x64 modes).
PROFILES = {
    "f32": ("float32", (False, True)),
    "f64": ("float64", (True,)),
    "bf16": ("bfloat16", (False,)),
    "f16": ("float16", (False,)),
    "int": ("int32", (False, True)),
}
FLOATS = ("f32", "f64", "bf16", "f16")


def _values(kind: str, batch: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    """Inputs of a kind: quaternions, matrices, rotation vectors, MRPs, angles, ..."""
    rng = np.random.default_rng(seed)
    if kind == "matrix":  # rotation matrices (from scipy's formula on random quaternions)
        q = rng.normal(size=(*batch, 4))
        q /= np.linalg.norm(q, axis=-1, keepdims=True)
        x, y, z, w = np.moveaxis(q, -1, 0)
        v = np.stack([
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
        ], -1).reshape(*batch, 3, 3)  # fmt: skip
    else:
        size = {"quat": 4, "vec": 3, "angles1": 1, "angles2": 2, "angles3": 3, "times": 0}[kind]
        v = rng.normal(size=(*batch, size) if size else batch) * (3 if dtype == "int32" else 1)
        if kind == "times":
            v = np.cumsum(np.abs(v) + 0.5)
    if dtype == "int32":
        v = np.round(v)
    return v.astype(jnp.bfloat16 if dtype == "bfloat16" else dtype)


def _tree(x):
    """A Rotation / Slerp as a plain tuple of its leaves (the classes are each side's)."""
    return tuple(jax.tree_util.tree_leaves(x))


R = lambda m: m.Rotation  # noqa: E731
ZERO_W = np.array([1, 1, 0, 0], np.float32)  # quaternions with w = 0 (canonical's ties)

# (label, fn(module, *operands), operand kinds, batch shapes, profiles)
# fmt: off
CALLS = [
    ("from_quat", lambda m, q: R(m).from_quat(q).quat, ("quat",), [(), (5,), (2, 3)],
     (*FLOATS, "int")),
    ("from_matrix", lambda m, a: R(m).from_matrix(a).quat, ("matrix",), [(), (4,)], FLOATS),
    ("from_rotvec", lambda m, v: R(m).from_rotvec(v).quat, ("vec",), [(), (5,)],
     (*FLOATS, "int")),
    ("from_rotvec-deg", lambda m, v: R(m).from_rotvec(v * 50, degrees=True).quat, ("vec",),
     [(3,)], FLOATS),
    ("from_rotvec-small", lambda m, v: R(m).from_rotvec(v * 1e-4).quat, ("vec",), [(3,)],
     ("f32", "f64")),
    ("from_mrp", lambda m, v: R(m).from_mrp(v).quat, ("vec",), [(), (2, 2)], FLOATS),
    ("from_euler-xyz", lambda m, a: R(m).from_euler("xyz", a).quat, ("angles3",),
     [(), (4,)], (*FLOATS, "int")),
    ("from_euler-ZXZ-deg", lambda m, a: R(m).from_euler("ZXZ", a * 60, degrees=True).quat,
     ("angles3",), [(3,)], FLOATS),
    ("from_euler-zy", lambda m, a: R(m).from_euler("zy", a).quat, ("angles2",), [(2,)],
     FLOATS),
    ("from_euler-scalar", lambda m: R(m).from_euler("z", 90, degrees=True).quat, (), [()],
     ("f32",)),
    ("from_euler-weak", lambda m: R(m).from_euler("xY", [0.5, 1.0]).quat, (), [()], ("f32",)),
    ("as_matrix", lambda m, q: R(m).from_quat(q).as_matrix(), ("quat",), [(), (2, 3)],
     FLOATS),
    ("as_mrp", lambda m, q: R(m).from_quat(q).as_mrp(), ("quat",), [(), (6,)], FLOATS),
    ("as_rotvec", lambda m, q: R(m).from_quat(q).as_rotvec(), ("quat",), [(), (6,)], FLOATS),
    ("as_rotvec-deg", lambda m, q: R(m).from_quat(q).as_rotvec(degrees=True), ("quat",),
     [(4,)], FLOATS),
    ("as_quat", lambda m, q: R(m)(q).as_quat(), ("quat",), [(5,)], FLOATS),
    ("as_quat-canonical", lambda m, q: R(m)(q).as_quat(canonical=True, scalar_first=True),
     ("quat",), [(), (6,)], FLOATS),
    ("as_quat-zero-w", lambda m, q: R(m)(q * ZERO_W).as_quat(canonical=True),
     ("quat",), [(5,)], ("f32",)),
    ("as_euler-xyz", lambda m, q: R(m).from_quat(q).as_euler("xyz"), ("quat",),
     [(), (6,)], FLOATS),
    ("as_euler-ZYZ-deg", lambda m, q: R(m).from_quat(q).as_euler("ZYZ", degrees=True),
     ("quat",), [(5,)], FLOATS),
    ("as_euler-lock", lambda m: R(m).from_euler("xyz", [0.3, np.pi / 2, 0.2]).as_euler("xyz"),
     (), [()], ("f32",)),
    ("inv", lambda m, q: R(m).from_quat(q).inv().quat, ("quat",), [(), (3,)], FLOATS),
    ("magnitude", lambda m, q: R(m).from_quat(q).magnitude(), ("quat",), [(), (2, 3)],
     FLOATS),
    ("apply", lambda m, q, v: R(m).from_quat(q).apply(v), ("quat", "vec"), [(), (4,)],
     FLOATS),
    ("apply-inverse", lambda m, q, v: R(m).from_quat(q).apply(v, inverse=True),
     ("quat", "vec"), [(4,)], (*FLOATS, "int")),
    ("apply-broadcast", lambda m, q, v: R(m).from_quat(q).apply(v[:, None]), ("quat", "vec"),
     [(3,)], ("f32",)),
    ("mul", lambda m, p, q: (R(m).from_quat(p) * R(m).from_quat(q)).quat, ("quat", "quat"),
     [(), (4,)], FLOATS),
    ("getitem", lambda m, q: R(m)(q)[1:3].quat, ("quat",), [(5,)], FLOATS),
    ("len", lambda m, q: len(R(m)(q)) + 0 * q[0, 0], ("quat",), [(5,)], ("f32",)),
    ("concatenate", lambda m, p, q: R(m).concatenate([R(m)(p), R(m)(q)]).quat,
     ("quat", "quat"), [(2,)], FLOATS),
    ("identity", lambda m: R(m).identity().quat, (), [()], ("f32",)),
    ("identity-dtype", lambda m: R(m).identity(dtype=jnp.float16).quat, (), [()], ("f32",)),
    ("mean", lambda m, q: R(m).from_quat(q).mean().quat, ("quat",), [(6,)], ("f32", "f64")),
    ("mean-weights", lambda m, q, t: R(m).from_quat(q).mean(t).quat, ("quat", "times"),
     [(6,)], ("f32", "f64")),
    ("single", lambda m, q: R(m)(q).single + 0 * q[..., 0], ("quat",), [(), (2,)], ("f32",)),
    ("slerp", lambda m, q, t: _tree(m.Slerp.init(t, R(m).from_quat(q))(t[1:] - 0.3)),
     ("quat", "times"), [(5,)], FLOATS),
    ("slerp-scalar-time", lambda m, q, t: _tree(m.Slerp.init(t, R(m).from_quat(q))(t[2])),
     ("quat", "times"), [(4,)], ("f32", "f64")),
    ("slerp-init", lambda m, q, t: _tree(m.Slerp.init(t, R(m).from_quat(q))),
     ("quat", "times"), [(3,)], ("f32", "int")),
    ("slerp-weak-times", lambda m, q: _tree(m.Slerp.init([0, 1, 2], R(m).from_quat(q))(0.5)),
     ("quat",), [(3,)], ("f32",)),
    # errors: jax's, same family
    ("bad-euler-seq", lambda m, a: R(m).from_euler("xyq", a).quat, ("angles3",), [()],
     ("f32",)),
    ("bad-euler-mixed", lambda m, a: R(m).from_euler("xY", a).quat, ("angles2",), [()],
     ("f32",)),
    ("bad-euler-repeat", lambda m, a: R(m).from_euler("xxy", a).quat, ("angles3",), [()],
     ("f32",)),
    ("bad-euler-long", lambda m, a: R(m).from_euler("xyzx", a).quat, ("angles3",), [()],
     ("f32",)),
    ("bad-as-euler-2", lambda m, q: R(m)(q).as_euler("xy"), ("quat",), [()], ("f32",)),
    ("bad-as-euler-axes", lambda m, q: R(m)(q).as_euler("xyw"), ("quat",), [()], ("f32",)),
    ("bad-as-euler-repeat", lambda m, q: R(m)(q).as_euler("XXY"), ("quat",), [()], ("f32",)),
    ("bad-getitem-single", lambda m, q: R(m)(q)[0].quat, ("quat",), [()], ("f32",)),
    ("bad-len-single", lambda m, q: len(R(m)(q)), ("quat",), [()], ("f32",)),
    ("bad-mean-weights", lambda m, q: R(m)(q).mean(q).quat, ("quat",), [(3,)], ("f32",)),
    ("bad-mean-count", lambda m, q, t: R(m)(q).mean(t[:2]).quat, ("quat", "times"), [(3,)],
     ("f32",)),
    ("bad-slerp-rotations", lambda m, q, t: _tree(m.Slerp.init(t, q)), ("quat", "times"),
     [(3,)], ("f32",)),
    ("bad-slerp-single", lambda m, q: _tree(m.Slerp.init([0.0], R(m)(q))), ("quat",), [()],
     ("f32",)),
    ("bad-slerp-one", lambda m, q: _tree(m.Slerp.init([0.0], R(m)(q))), ("quat",), [(1,)],
     ("f32",)),
    ("bad-slerp-times-2d", lambda m, q: _tree(m.Slerp.init([[0.0, 1.0]], R(m)(q))),
     ("quat",), [(2,)], ("f32",)),
    ("bad-slerp-count", lambda m, q, t: _tree(m.Slerp.init(t[:2], R(m)(q))), ("quat", "times"),
     [(3,)], ("f32",)),
    ("bad-slerp-call-2d", lambda m, q, t: _tree(m.Slerp.init(t, R(m)(q))(t[None])),
     ("quat", "times"), [(3,)], ("f32",)),
    ("bad-random", lambda m: R(m).random(jax.random.key(0)).quat, (), [()], ("f32",)),
]
# fmt: on
NAMES = [c[0] for c in CALLS]
assert len(set(NAMES)) == len(NAMES), "call labels are unique"


def _runs() -> list[tuple[int, tuple[int, ...], str, bool, bool]]:
    """(call, batch, profile, x64, in the CI sample)."""
    out = []
    for i, (_, _, _, batches, profiles) in enumerate(CALLS):
        runs = [(b, p, x) for b in batches for p in profiles for x in PROFILES[p][1]]
        # CI: one run (rotating) of every fourth call and of every error call
        sampled = i % 4 == 0 or CALLS[i][0].startswith("bad")
        for n, (b, p, x) in enumerate(runs):
            out.append((i, b, p, x, sampled and n == i % len(runs)))
    return out


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "run" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        picked = [r[:4] for r in _runs() if full or r[4]]
        ids = [f"{CALLS[i][0]}-{p}-{list(b)}-{'x64' if x else 'x32'}" for i, b, p, x in picked]
        metafunc.parametrize("run", picked, ids=ids)


def _tolerance(profile: str) -> dict[str, float]:
    if profile in ("bf16", "f16"):
        return {"rtol": 5e-2, "atol": 5e-2}
    return {"rtol": 2e-4, "atol": 2e-5}


@pytest.mark.ci_sample(2)
def test_calls_equal_jax(run):
    i, batch, profile, x64 = run
    label, fn, kinds, _, _ = CALLS[i]
    dtype = PROFILES[profile][0]
    args = [_values(k, batch, dtype, seed=11 * i + n) for n, k in enumerate(kinds)]
    with jax.enable_x64(x64):
        check(
            lambda *a: fn(wtf, *a),
            lambda *a: fn(jtf, *a),
            *args,
            context=f"transform {label}",
            **_tolerance(profile),
        )


def test_identity_num_and_random_raise_as_jax():
    for mod in (wtf, jtf):
        with pytest.raises(AssertionError):
            mod.Rotation.identity(num=2)
        with pytest.raises(NotImplementedError):
            mod.Rotation.random(jax.random.key(0), 3)


# -- the classes: pytrees, signatures, every public member swept ------------------------


def test_classes_are_pytrees_through_jit():
    q = _values("quat", (4,), "float32", seed=1)
    t = np.arange(4.0, dtype=np.float32)
    r = wtf.Rotation.from_quat(q)
    s = wtf.Slerp.init(t, r)
    got_r = jax.jit(lambda r: r.inv())(r)
    got_s = jax.jit(lambda s, x: s(x))(s, t[1:] - 0.5)
    assert isinstance(got_r, wtf.Rotation) and isinstance(got_s, wtf.Rotation)
    want_r = jax.jit(lambda r: r.inv())(jtf.Rotation.from_quat(q))
    want_s = jax.jit(lambda s, x: s(x))(jtf.Slerp.init(t, jtf.Rotation.from_quat(q)), t[1:] - 0.5)
    np.testing.assert_allclose(got_r.quat, want_r.quat, rtol=1e-6)
    np.testing.assert_allclose(got_s.quat, want_s.quat, rtol=1e-5, atol=1e-6)
    # and through weaktrace.trace, as an argument and as a result
    traced = wt.trace(lambda s, x: s(x))(s, t[1:] - 0.5)
    assert isinstance(traced, wtf.Rotation)
    np.testing.assert_allclose(traced.quat, want_s.quat, rtol=1e-5, atol=1e-6)
    assert [f for f in wtf.Slerp._fields] == list(jtf.Slerp._fields)


def _members(cls: type) -> dict[str, object]:
    return {
        n: v
        for n, v in vars(cls).items()
        if not n.startswith("_") or n in ("__getitem__", "__len__", "__mul__")
    }


def _public(cls: type) -> set[str]:
    """Public methods, classmethods and properties (the fields are compared apart)."""
    skip = {"_asdict", "_field_defaults", "_fields", "_make", "_replace", "count", "index"}
    skip |= set(cls._fields)  # type: ignore[attr-defined]
    return {n for n in _members(cls) if n not in skip and not n.startswith("_")} | {
        n for n in ("__getitem__", "__len__", "__mul__", "__call__") if n in vars(cls)
    }


@pytest.mark.parametrize("name", ["Rotation", "Slerp"])
def test_every_member_is_jax_and_swept(name):
    ours, theirs = getattr(wtf, name), getattr(jtf, name)
    assert ours._fields == theirs._fields
    assert _public(ours) == _public(theirs), name
    swept = " ".join(NAMES)
    alias = {"__getitem__": "getitem", "__len__": "len", "__mul__": "mul", "__call__": "slerp",
             "init": "slerp-init"}  # fmt: skip
    for member in _public(theirs):
        want, got = inspect.getattr_static(theirs, member), inspect.getattr_static(ours, member)
        assert type(want) is type(got), f"{name}.{member}: {type(got)} vs jax {type(want)}"
        fn = getattr(theirs, member)
        if callable(fn) and not isinstance(want, property):
            w, g = inspect.signature(fn), inspect.signature(getattr(ours, member))
            assert list(g.parameters) == list(w.parameters), f"{name}.{member}"
            for p in w.parameters.values():
                assert g.parameters[p.name].default == p.default, f"{name}.{member}({p.name})"
        assert alias.get(member, member) in swept, f"{name}.{member} is not in the sweep"


def test_weak_python_angles_as_jax():
    """A Python float angle enters weak, as in jax (the quaternion is strong float)."""
    with jax.enable_x64(False):
        ours = wtf.Rotation.from_euler("z", 0.5).quat
        want = jtf.Rotation.from_euler("z", 0.5).quat
    assert (ours.dtype, ours.weak_type) == (want.dtype, want.weak_type)
    np.testing.assert_allclose(ours, want, rtol=1e-6)
    assert wnp.asarray(ours).shape == (4,)


@pytest.mark.parametrize("module", ["jax", "weaktrace"])
def test_repeated_eager_call_compiles_nothing(module):
    """jax's _CompileAndCheck: an op-by-op call repeated compiles nothing. Eagerly,
    weaktrace.numpy.vectorize maps with a new scan each call (compiled every time),
    so the kernels run under one jax.jit each (jax's scipy_spatial_test found it)."""
    from jax._src import dispatch

    mod = wtf if module == "weaktrace" else jtf
    q = jnp.asarray(_values("quat", (3,), "float32", seed=2))
    calls = [
        lambda: mod.Rotation.from_quat(q).as_matrix(),
        lambda: mod.Rotation.from_euler("xyz", q[:, :3], degrees=True).as_euler("ZYX"),
        lambda: mod.Slerp.init(jnp.arange(3.0), mod.Rotation.from_quat(q))(0.5).as_rotvec(),
    ]
    for call in calls:
        call()
        misses = dispatch.xla_primitive_callable.cache_info().misses
        call()
        assert dispatch.xla_primitive_callable.cache_info().misses == misses
