"""weaktrace.scipy.{integrate, signal, fft, ...} against jax.scipy's: coverage of jax's
public names (read at test time), the differential harness (tests/mirror_harness.py:
eager, traced and compiled against jax eager and jit: shapes, dtypes, weak flags,
values, errors) over generated dtype profiles x calls x x64, and gradients through
jax.grad.

CI runs a deterministic spread of the sweep (every call, profiles rotating);
``--run-slow`` runs all of it.
"""

from __future__ import annotations

import importlib
import inspect
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.mirror_harness import check

# jax.scipy namespaces mirrored here, with jax's public names weaktrace does not have
# (and why). A listed name weaktrace gains fails test_missing_is_really_missing.
MODULES = [
    "integrate",
    "signal",
    "fft",
    "ndimage",
    "cluster.vq",
    "sparse.linalg",
    "interpolate",
]
# Namespaces whose differential sweeps live in their own files, which also check
# jax's signatures and that every public name is swept.
SWEPT_ELSEWHERE = {
    "optimize": "tests/test_scipy_optimize.py",
    "spatial.transform": "tests/test_scipy_spatial.py",
}
COVERED = [*MODULES, *SWEPT_ELSEWHERE]
MISSING: dict[str, dict[str, str]] = {m: {} for m in COVERED}

# Dtype profiles: (label, dtype of the first array operand, of the others, x64 modes).
PROFILES = [
    ("f32", "float32", "float32", (False, True)),
    ("f16", "float16", "float16", (False,)),
    ("bf16", "bfloat16", "bfloat16", (False,)),
    ("int", "int32", "int32", (False, True)),
    ("f32-int", "float32", "int32", (False,)),
    ("f64", "float64", "float64", (True,)),
    ("c64", "complex64", "float32", (False, True)),
]
PROFILE = {p[0]: p for p in PROFILES}
REAL = ("f32", "f16", "bf16", "int", "f32-int", "f64")  # profiles of real-only calls


def _array(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=shape) * 2
    if dtype.startswith("int"):
        return np.round(v * 2).astype(dtype)
    if dtype.startswith("complex"):
        return (v + 1j * rng.normal(size=shape)).astype(dtype)
    return v.astype(jnp.bfloat16 if dtype == "bfloat16" else dtype)


# A call: (module, function, label, operand shapes, keyword arguments, profiles).
# An operand "shape" that is a float or int is that Python scalar (weak), passed as is.
S = tuple[int, ...]
CALLS: list[tuple[str, str, str, tuple[S | float | int, ...], dict[str, object], tuple[str, ...]]]
# fmt: off
CALLS = [
    ("integrate", "trapezoid", "1d", ((7,),), {}, REAL),
    ("integrate", "trapezoid", "x", ((3, 5), (5,)), {}, REAL),
    ("integrate", "trapezoid", "dx-axis", ((4, 3),), {"dx": 0.5, "axis": 0}, REAL),
    ("integrate", "trapezoid", "weak-dx", ((6,), 2.0), {}, ("f32", "int", "bf16")),
    ("signal", "convolve", "full", ((9,), (4,)), {}, (*REAL, "c64")),
    ("signal", "convolve", "same-swap", ((3, 2), (5, 6)), {"mode": "same"}, REAL),
    ("signal", "convolve", "valid", ((8, 6), (3, 2)), {"mode": "valid"}, REAL),
    ("signal", "convolve", "fft", ((9,), (4,)), {"method": "fft"}, (*REAL, "c64")),
    ("signal", "convolve", "bad-method", ((9,), (4,)), {"method": "x"}, ("f32",)),
    ("signal", "convolve", "bad-rank", ((9,), (4, 1)), {}, ("f32",)),
    ("signal", "convolve", "weak", ((9,), 2.0), {}, ("f32",)),
    ("signal", "convolve2d", "full", ((5, 6), (2, 3)), {}, REAL),
    ("signal", "convolve2d", "same", ((5, 6), (2, 3)), {"mode": "same"}, REAL),
    ("signal", "convolve2d", "bad-fill", ((5, 6), (2, 3)), {"fillvalue": 1}, ("f32",)),
    ("signal", "correlate", "full", ((9,), (4,)), {}, (*REAL, "c64")),
    ("signal", "correlate", "same-fft", ((9,), (4,)), {"mode": "same", "method": "fft"},
     (*REAL, "c64")),
    ("signal", "correlate2d", "full-swap", ((2, 3), (5, 6)), {}, (*REAL, "c64")),
    ("signal", "correlate2d", "valid", ((5, 6), (2, 3)), {"mode": "valid"}, (*REAL, "c64")),
    ("signal", "correlate2d", "valid-swap", ((2, 3), (5, 6)), {"mode": "valid"}, REAL),
    ("signal", "correlate2d", "same", ((5, 6), (2, 3)), {"mode": "same"}, (*REAL, "c64")),
    ("signal", "fftconvolve", "full", ((6, 5), (3, 2)), {}, (*REAL, "c64")),
    ("signal", "fftconvolve", "axes", ((4, 9), (4, 3)), {"axes": 1, "mode": "same"}, REAL),
    ("signal", "fftconvolve", "valid-swap", ((3,), (8,)), {"mode": "valid"}, REAL),
    ("signal", "fftconvolve", "ones", ((1, 5), (4, 1)), {}, REAL),
    ("signal", "fftconvolve", "bad-axes", ((4, 9), (3, 3)), {"axes": 1}, ("f32",)),
    ("signal", "detrend", "linear", ((12,),), {}, REAL),
    ("signal", "detrend", "bp", ((3, 20),), {"bp": [5, 11]}, ("f32", "int", "f64")),
    ("signal", "detrend", "constant", ((6, 4),), {"type": "constant", "axis": 0},
     (*REAL, "c64")),
    ("signal", "detrend", "bad-type", ((6,),), {"type": "quadratic"}, ("f32",)),
    ("signal", "stft", "default", ((40,),), {"nperseg": 8}, (*REAL, "c64")),
    ("signal", "stft", "odd-boundary", ((3, 30),), {"nperseg": 6, "noverlap": 2,
     "boundary": "odd", "detrend": "linear", "nfft": 9}, REAL),
    ("signal", "stft", "axis0-even", ((24, 2),), {"nperseg": 5, "axis": 0,
     "boundary": "even", "padded": False, "return_onesided": False}, REAL),
    ("signal", "stft", "window", ((32,),), {"nperseg": 8, "window": "hamming",
     "boundary": "constant", "fs": 4.0}, ("f32", "f64")),
    ("signal", "stft", "bad-overlap", ((32,),), {"nperseg": 8, "noverlap": 8}, ("f32",)),
    ("signal", "welch", "default", ((64,),), {"nperseg": 16}, REAL),
    ("signal", "welch", "median", ((2, 64),), {"nperseg": 16, "average": "median",
     "scaling": "spectrum", "fs": 8.0}, ("f32", "f64", "int")),
    ("signal", "welch", "odd-nfft", ((50,),), {"nperseg": 10, "nfft": 15,
     "detrend": "linear"}, ("f32", "f16", "f64")),
    ("signal", "welch", "bad-scaling", ((50,),), {"scaling": "x"}, ("f32",)),
    ("signal", "csd", "pair", ((48,), (40,)), {"nperseg": 8}, REAL),
    ("signal", "csd", "broadcast", ((2, 48), (1, 48)), {"nperseg": 12, "noverlap": 3},
     ("f32", "f64")),
    ("signal", "csd", "median", ((48,), (48,)), {"nperseg": 8, "average": "median"},
     ("f32", "f64")),
    ("signal", "istft", "default", ((5, 9),), {}, ("c64", "f32", "f64", "int")),
    ("signal", "istft", "axes", ((9, 3, 5),), {"time_axis": 0, "freq_axis": -1,
     "nperseg": 6}, ("c64", "f32")),
    ("signal", "istft", "twosided", ((8, 7),), {"input_onesided": False, "boundary": False,
     "nperseg": 8, "noverlap": 6}, ("c64", "f64")),
    ("signal", "istft", "bad-rank", ((8,),), {}, ("c64",)),
    ("fft", "dct", "default", ((4, 6),), {}, (*REAL, "c64")),
    ("fft", "dct", "n-axis-ortho", ((4, 6),), {"n": 7, "axis": 0, "norm": "ortho"}, REAL),
    ("fft", "dct", "bad-type", ((6,),), {"type": 3}, ("f32",)),
    ("fft", "dct", "bad-norm", ((6,),), {"norm": "forward"}, ("f32",)),
    ("fft", "dctn", "all", ((3, 4, 5),), {}, (*REAL, "c64")),
    ("fft", "dctn", "pair", ((3, 4, 5),), {"axes": (0, 2), "norm": "ortho"}, REAL),
    ("fft", "dctn", "s", ((3, 4, 5),), {"s": (2, 6)}, REAL),
    ("fft", "dctn", "one", ((3, 4),), {"axes": [0], "s": [5]}, REAL),
    ("fft", "idct", "default", ((4, 6),), {}, (*REAL, "c64")),
    ("fft", "idct", "n-ortho", ((4, 6),), {"n": 3, "axis": 0, "norm": "ortho"}, REAL),
    ("fft", "idctn", "all", ((3, 4, 5),), {"norm": "backward"}, (*REAL, "c64")),
    ("fft", "idctn", "s", ((3, 4, 5),), {"s": (4, 4), "norm": "ortho"}, REAL),
    # map_coordinates: the image, then one coordinate array per axis (passed as a list)
    ("ndimage", "map_coordinates", "linear", ((5, 6), (3, 4), (3, 4)), {"order": 1}, REAL),
    ("ndimage", "map_coordinates", "nearest-wrap", ((5, 6), (7,), (7,)),
     {"order": 0, "mode": "wrap"}, REAL),
    ("ndimage", "map_coordinates", "mirror-cval", ((5, 6), (4,), (4,)),
     {"order": 1, "mode": "mirror", "cval": 2.0}, REAL),
    ("ndimage", "map_coordinates", "reflect", ((4,), (9,)), {"order": 1, "mode": "reflect"},
     REAL),
    ("ndimage", "map_coordinates", "nearest", ((4, 3), (5,), (5,)),
     {"order": 0, "mode": "nearest"}, REAL),
    ("ndimage", "map_coordinates", "weak", ((4,), 1.5), {"order": 1}, ("f32", "int")),
    ("ndimage", "map_coordinates", "bad-order", ((4,), (3,)), {"order": 2}, ("f32",)),
    ("ndimage", "map_coordinates", "bad-mode", ((4,), (3,)), {"order": 1, "mode": "x"},
     ("f32",)),
    ("ndimage", "map_coordinates", "bad-len", ((4, 3), (3,)), {"order": 1}, ("f32",)),
    ("cluster.vq", "vq", "2d", ((7, 3), (4, 3)), {}, REAL),
    ("cluster.vq", "vq", "1d", ((9,), (3,)), {}, REAL),
    ("cluster.vq", "vq", "bad-rank", ((9, 2), (3,)), {}, ("f32",)),
    # the iterative solvers: ("spd", n) is a symmetric positive definite n x n matrix
    ("sparse.linalg", "cg", "matrix", (("spd", 5), (5,)), {}, (*REAL, "c64")),
    ("sparse.linalg", "cg", "tol-maxiter", (("spd", 4), (4,)), {"tol": 1e-3, "maxiter": 2},
     REAL),
    ("sparse.linalg", "cg", "bad-matrix", ((3, 4), (4,)), {}, ("f32",)),
    ("sparse.linalg", "bicgstab", "matrix", (("spd", 5), (5,)), {}, (*REAL, "c64")),
    ("sparse.linalg", "bicgstab", "atol", (("spd", 4), (4,)), {"atol": 1e-2}, REAL),
    ("sparse.linalg", "gmres", "batched", (("spd", 5), (5,)), {}, (*REAL, "c64")),
    ("sparse.linalg", "gmres", "incremental", (("spd", 5), (5,)),
     {"solve_method": "incremental", "restart": 2}, (*REAL, "c64")),
    ("sparse.linalg", "gmres", "bad-method", (("spd", 3), (3,)), {"solve_method": "x"},
     ("f32",)),
]
# fmt: on

# Calls whose jax signature takes operands other than positionally.
ADAPT = {"map_coordinates": lambda fn, image, *coords, **kw: fn(image, list(coords), **kw)}


def _module(prefix: str, name: str) -> object:
    return importlib.import_module(f"{prefix}.scipy.{name}")


# Calls whose four-way check costs seconds (long signals, many frames): --run-slow only.
HEAVY = {"odd-boundary", "odd-nfft", "broadcast"}


def _cases() -> list[tuple[int, str, bool, bool]]:
    """(call index, profile, x64, in the CI sample)."""
    out = []
    for i, call in enumerate(CALLS):
        runs = [(p, x) for p in call[5] for x in PROFILE[p][3]]
        # CI: one run for every third call (profiles rotating) and for the error calls;
        # --run-slow runs every call in every profile (CI's time budget).
        sampled = (i % 3 == 0 and call[2] not in HEAVY) or call[2].startswith("bad")
        for n, (p, x64) in enumerate(runs):
            out.append((i, p, x64, sampled and n == i % len(runs)))
    return out


CASES = _cases()
for _m in MODULES:  # jax.scipy.<name> attributes for the gradient lambdas
    _module("jax", _m)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        picked = [c[:3] for c in CASES if full or c[3]]
        ids = [
            f"{CALLS[i][0]}.{CALLS[i][1]}-{CALLS[i][2]}-{p}-{'x64' if x else 'x32'}"
            for i, p, x in picked
        ]
        metafunc.parametrize("case", picked, ids=ids)


def _spd(n: int, dtype: str, seed: int) -> np.ndarray:
    a = np.random.default_rng(seed).normal(size=(n, n))
    m = np.round(a @ a.T) + 2 * n * np.eye(n)  # integral: exact in every dtype
    return m.astype(jnp.bfloat16 if dtype == "bfloat16" else dtype)


def _operand(shape: object, dtype: str, seed: int) -> object:
    if isinstance(shape, float | int):
        return shape  # a weak Python scalar
    if shape[0] == "spd":
        return _spd(shape[1], dtype, seed)
    return _array(shape, dtype, seed)


def _operands(i: int, profile: str) -> list[object]:
    _, first, rest, _ = PROFILE[profile]
    return [
        _operand(s, first if k == 0 else rest, seed=7 * i + k) for k, s in enumerate(CALLS[i][3])
    ]


def _tolerance(profile: str) -> dict[str, float]:
    if profile in ("f16", "bf16"):
        return {"rtol": 5e-2, "atol": 5e-2}
    return {"rtol": 2e-4, "atol": 2e-4}


@pytest.mark.ci_sample(2)
def test_calls(case):
    i, profile, x64 = case
    mod, fn, label, _, kwargs, _ = CALLS[i]
    ours, theirs = getattr(_module("weaktrace", mod), fn), getattr(_module("jax", mod), fn)
    args = _operands(i, profile)
    call = ADAPT.get(fn, lambda f, *a, **kw: f(*a, **kw))
    with jax.enable_x64(x64):
        check(
            lambda *a: call(ours, *a, **kwargs),
            lambda *a: call(theirs, *a, **kwargs),
            *args,
            context=f"{mod}.{fn} {label}",
            **_tolerance(profile),
        )


# -- coverage -------------------------------------------------------------------------


def _jax_names(mod: str) -> set[str]:
    return {n for n in dir(_module("jax", mod)) if not n.startswith("_")} - {"annotations"}


@pytest.mark.parametrize("mod", COVERED)
def test_every_name_is_built_or_listed_missing(mod):
    ours = _module("weaktrace", mod)
    theirs = _jax_names(mod)
    built = set(ours.__all__)
    assert built <= theirs, f"{mod}: names jax does not have: {built - theirs}"
    assert set(MISSING[mod]) <= theirs, f"{mod}: a missing name jax no longer has"
    unaccounted = theirs - built - set(MISSING[mod])
    assert not unaccounted, f"jax.scipy.{mod} names neither built nor listed: {unaccounted}"


@pytest.mark.parametrize("mod", COVERED)
def test_missing_is_really_missing(mod):
    ours = _module("weaktrace", mod)
    for name in MISSING[mod]:
        assert not hasattr(ours, name), f"{mod}.{name} is built: remove it from MISSING"


@pytest.mark.parametrize("mod", MODULES)
def test_signatures_are_jax_and_every_function_is_swept(mod):
    ours, jaxs = _module("weaktrace", mod), _module("jax", mod)
    swept = {c[1] for c in CALLS if c[0] == mod}
    for name in ours.__all__:
        fn = getattr(ours, name)
        if not inspect.isfunction(fn):
            continue
        want = inspect.signature(getattr(jaxs, name))
        got = inspect.signature(fn)
        assert list(got.parameters) == list(want.parameters), f"{mod}.{name}"
        for p in want.parameters.values():
            assert got.parameters[p.name].default == p.default, f"{mod}.{name}({p.name})"
        assert name in swept, f"{mod}.{name} is not in the differential sweep"


# -- RegularGridInterpolator: a class, built and called -------------------------------

RGI_CASES = {
    "linear": ({}, {}),
    "nearest": ({"method": "nearest"}, {}),
    "fill-none": ({"fill_value": None}, {}),
    "fill-0": ({"fill_value": 0.0}, {}),
    "call-method": ({}, {"method": "nearest"}),
    "bad-method": ({"method": "cubic"}, {}),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("profile", ["f32", "int", "f64", "bf16"])
@pytest.mark.parametrize("label", list(RGI_CASES))
def test_regular_grid_interpolator(label, profile, x64, request):
    if (profile == "f64") != x64 and profile != "f32":
        pytest.skip("f64 runs with x64 only; int and bf16 without")
    ci = (profile, x64) == (("f32", False) if label != "linear" else ("f64", True))
    if not ci and not full_run(request.config):
        pytest.skip("CI sample (--run-slow runs it)")
    ours = importlib.import_module("weaktrace.scipy.interpolate").RegularGridInterpolator
    theirs = importlib.import_module("jax.scipy.interpolate").RegularGridInterpolator
    build, call = RGI_CASES[label]
    dt = PROFILE[profile][1]
    g0 = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
    g1 = np.linspace(-1, 1, 5).astype(np.float32)
    values = _array((4, 5, 2), dt, seed=3)
    xi = np.random.default_rng(4).uniform(-1.5, 4.5, size=(6, 2)).astype(np.float32)
    with jax.enable_x64(x64):
        check(
            lambda a, b, v, x: ours((a, b), v, **build)(x, **call),
            lambda a, b, v, x: theirs((a, b), v, **build)(x, **call),
            g0, g1, values, xi, context=f"RegularGridInterpolator {label}",
            **_tolerance(profile),
        )  # fmt: skip


# -- jax.scipy namespaces not mirrored -------------------------------------------------

# jax.scipy namespaces weaktrace does not mirror yet, and why (importing them from
# weaktrace.scipy is an ImportError). A module weaktrace gains fails the test below.
# (Empty since session 10 built optimize and spatial.transform.)
MISSING_MODULES: dict[str, str] = {}
# Every jax.scipy namespace and where its coverage is checked.
ALL_NAMESPACES = ["special", "linalg", "stats", *COVERED, *MISSING_MODULES]


def test_every_jax_scipy_namespace_is_mirrored_or_listed():
    for name in ALL_NAMESPACES:
        importlib.import_module(f"jax.scipy.{name}")  # jax has it
    import jax.scipy as jsp

    top = {n for n in dir(jsp) if not n.startswith("_") and n != "annotations"}
    assert top <= {n.split(".")[0] for n in ALL_NAMESPACES}, top
    import weaktrace.scipy as wsp

    assert top - {n.split(".")[0] for n in MISSING_MODULES} <= set(wsp.__all__), top
    for name in MISSING_MODULES:
        with pytest.raises(ImportError):
            importlib.import_module(f"weaktrace.scipy.{name}")
    for name in ALL_NAMESPACES:
        if name not in MISSING_MODULES:
            importlib.import_module(f"weaktrace.scipy.{name}")


# -- warnings jax gives ---------------------------------------------------------------


@pytest.mark.parametrize("module", ["jax", "weaktrace"])
def test_spectral_warnings_as_jax(module):
    sig = _module(module, "signal")
    x = np.ones(10, np.float32)
    with pytest.warns(UserWarning, match="nperseg=16 is greater than input_length=10"):
        sig.welch(x, nperseg=16)
    with pytest.warns(UserWarning, match="switching to return_onesided=False"):
        sig.stft(x.astype(np.complex64), nperseg=4)


# -- gradients ------------------------------------------------------------------------

GRADS = [
    ("trapezoid", lambda m, x: m.integrate.trapezoid(x * x, dx=0.3)),
    ("convolve", lambda m, x: m.signal.convolve(x, x[:3] * 2, mode="same")),
    ("fftconvolve", lambda m, x: m.signal.fftconvolve(x, x[::-1])),
    ("correlate2d", lambda m, x: m.signal.correlate2d(x.reshape(2, 4), x[:4].reshape(2, 2))),
    ("detrend", lambda m, x: m.signal.detrend(x) ** 2),
    ("stft", lambda m, x: abs(m.signal.stft(x, nperseg=4)[2]) ** 2),
    ("welch", lambda m, x: m.signal.welch(x, nperseg=4)[1]),
    ("istft", lambda m, x: m.signal.istft(x.reshape(2, 4) + 0j, nperseg=2)[1]),
    ("dct", lambda m, x: m.fft.dct(x, norm="ortho") * m.fft.idct(x)),
    ("dctn", lambda m, x: m.fft.dctn(x.reshape(2, 4)) + m.fft.idctn(x.reshape(2, 4))),
    (
        "map_coordinates",
        lambda m, x: m.ndimage.map_coordinates(
            x.reshape(2, 4), [x[:3] * 0.3 + 0.5, x[3:6] + 1.2], order=1, mode="reflect"
        ),
    ),
    ("vq", lambda m, x: m.cluster.vq.vq(x.reshape(4, 2), x[:4].reshape(2, 2) * 0.5)[1]),
    (
        "interpolate",
        lambda m, x: m.interpolate.RegularGridInterpolator(
            (np.arange(4.0, dtype=np.float32),), x[:4] * x[4:]
        )(x * 0.9 + 1.2),
    ),
    ("cg", lambda m, x: m.sparse.linalg.cg(lambda v: v * (x * x + 1.0), x)[0]),
    (
        "bicgstab gmres",
        lambda m, x: (
            m.sparse.linalg.bicgstab(lambda v: v * (x * x + 2.0), x)[0]
            + m.sparse.linalg.gmres(lambda v: v * (x * x + 2.0), x * 0.5)[0]
        ),
    ),
]


# Gradients CI runs (the others, each seconds of jax.grad compiles, under --run-slow).
GRADS_CI = {"trapezoid", "convolve", "fftconvolve", "correlate2d", "stft", "vq", "cg"}


@pytest.mark.parametrize(("label", "f"), GRADS, ids=[g[0] for g in GRADS])
def test_gradients_equal_jax(label, f, request):
    if label not in GRADS_CI and not full_run(request.config):
        pytest.skip("CI runs a sample of the gradients (--run-slow: all)")
    import jax.scipy as jsp

    import weaktrace.scipy as wsp

    x = np.array([-2.0, -0.5, 0.25, 1.0, 3.0, 0.7, -1.2, 0.1], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = jax.grad(wt.trace(lambda v: wnp.sum(f(wsp, v))))(x)
        want = jax.grad(lambda v: jnp.sum(f(jsp, v)))(x)
    np.testing.assert_allclose(ours, want, rtol=1e-4, atol=1e-5)
