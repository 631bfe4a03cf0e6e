"""weaktrace.numpy.fft against jax.numpy.fft (computed at test time): every transform
over generated dtypes, shapes, n=/s=/axes=/norm= values, x64 off and on; the
frequency helpers and shifts; errors where jax errors; jax.grad through compiled
programs; coverage of jax's public names."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import ARRAY_DTYPES, values, with_x64
from tests.mirror_harness import check

EXCLUDED: dict[str, str] = {}  # jax.numpy.fft names not mirrored, with the reason
NORMS = (None, "backward", "ortho", "forward")

# name -> (f(module, a, norm), shapes)
FUNCS = {
    "fft": (lambda m, a, nm: m.fft.fft(a, norm=nm), [(5,), (2, 6)]),
    "fft n axis": (lambda m, a, nm: m.fft.fft(a, n=4, axis=0, norm=nm), [(3, 2)]),
    "ifft": (lambda m, a, nm: m.fft.ifft(a, n=7, norm=nm), [(2, 5)]),
    "rfft": (lambda m, a, nm: m.fft.rfft(a, norm=nm), [(6,), (2, 5)]),
    "rfft n": (lambda m, a, nm: m.fft.rfft(a, n=3, axis=-2, norm=nm), [(4, 2)]),
    "irfft": (lambda m, a, nm: m.fft.irfft(a, norm=nm), [(5,), (2, 4)]),
    "irfft n": (lambda m, a, nm: m.fft.irfft(a, n=5, axis=0, norm=nm), [(3, 2)]),
    "hfft": (lambda m, a, nm: m.fft.hfft(a, norm=nm), [(4,), (2, 3)]),
    "hfft n": (lambda m, a, nm: m.fft.hfft(a, n=6, norm=nm), [(2, 3)]),
    "ihfft": (lambda m, a, nm: m.fft.ihfft(a, norm=nm), [(6,), (2, 5)]),
    "fft2": (lambda m, a, nm: m.fft.fft2(a, norm=nm), [(3, 4), (2, 3, 4)]),
    "fft2 s axes": (lambda m, a, nm: m.fft.fft2(a, s=(2, 5), axes=(0, 2), norm=nm), [(3, 2, 4)]),
    "ifft2": (lambda m, a, nm: m.fft.ifft2(a, norm=nm), [(2, 3, 4)]),
    "rfft2": (lambda m, a, nm: m.fft.rfft2(a, norm=nm), [(3, 4)]),
    "irfft2": (lambda m, a, nm: m.fft.irfft2(a, s=(3, 6), norm=nm), [(2, 3, 4)]),
    "fftn": (lambda m, a, nm: m.fft.fftn(a, norm=nm), [(2, 3, 4), (2, 2, 2, 2, 2)]),
    "fftn s": (lambda m, a, nm: m.fft.fftn(a, s=(3, 2), norm=nm), [(2, 3, 4)]),
    "ifftn": (lambda m, a, nm: m.fft.ifftn(a, axes=(1,), norm=nm), [(2, 3, 4), (2, 2, 2, 2)]),
    "ifftn all": (lambda m, a, nm: m.fft.ifftn(a, norm=nm), [(2, 2, 2, 2)]),
    "rfftn": (lambda m, a, nm: m.fft.rfftn(a, axes=(0, 2), norm=nm), [(2, 3, 4)]),
    "rfftn 4d": (lambda m, a, nm: m.fft.rfftn(a, norm=nm), [(2, 2, 2, 3)]),
    "irfftn": (lambda m, a, nm: m.fft.irfftn(a, s=(2, 3, 4), norm=nm), [(2, 3, 4)]),
    "irfftn 4d": (lambda m, a, nm: m.fft.irfftn(a, norm=nm), [(2, 2, 2, 3)]),
    "fftn no axes": (lambda m, a, nm: m.fft.fftn(a, axes=(), norm=nm), [(2, 3)]),
    "fftshift": (lambda m, a, nm: m.fft.fftshift(a), [(5,), (2, 3, 4)]),
    "fftshift axes": (lambda m, a, nm: m.fft.fftshift(a, axes=(0, -1)), [(3, 2, 5)]),
    "ifftshift": (lambda m, a, nm: m.fft.ifftshift(a, axes=1), [(2, 5)]),
}  # fmt: skip

# (function, dtype) -> reason; strict xfails.
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def _cases() -> list[tuple[str, str, int, str | None]]:
    out = []
    for name, (_, shapes) in FUNCS.items():
        for i in range(len(shapes)):
            for j, dt in enumerate(ARRAY_DTYPES):
                out.append((name, dt, i, NORMS[(i + j) % len(NORMS)]))
    return out


CASES = _cases()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        full = full_run(metafunc.config)
        cases = with_x64(CASES, 44, full)
        ids = [f"{c[0]}-{c[1]}-s{c[2]}-{c[3]}-{'x64' if x else 'x32'}" for c, x in cases]
        metafunc.parametrize("case", cases, ids=ids)


def _tol(dtype: str) -> dict[str, float]:
    if dtype in ("float16", "bfloat16"):
        return {"rtol": 3e-2, "atol": 5e-2}
    return {"rtol": 1e-4, "atol": 1e-4}


def test_fft_function(case):
    (name, dtype, index, norm), x64 = case
    if (name, dtype) in KNOWN_MISMATCHES:
        pytest.xfail(KNOWN_MISMATCHES[name, dtype])
    f, shapes = FUNCS[name]
    a = values(dtype, shapes[index], index, special=False)
    with jax.enable_x64(x64):
        check(lambda x: f(wnp, x, norm), lambda x: f(jnp, x, norm), a, context=name,
              **_tol(dtype))  # fmt: skip


FREQS = [
    ("fftfreq", lambda m: m.fft.fftfreq(7)),
    ("fftfreq d", lambda m: m.fft.fftfreq(8, 0.25)),
    ("fftfreq dtype", lambda m: m.fft.fftfreq(6, dtype=np.float16)),
    ("fftfreq f64", lambda m: m.fft.fftfreq(5, 2.0, dtype=np.float64)),
    ("rfftfreq", lambda m: m.fft.rfftfreq(7)),
    ("rfftfreq d", lambda m: m.fft.rfftfreq(8, 0.1)),
    ("rfftfreq dtype", lambda m: m.fft.rfftfreq(9, dtype=np.float64)),
]


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("call", FREQS, ids=[c[0] for c in FREQS])
def test_frequencies(call, x64):
    name, f = call
    with jax.enable_x64(x64):
        check(lambda: f(wnp), lambda: f(jnp), context=name)


def test_weak_operand():
    arg = jax.ShapeDtypeStruct((4,), np.dtype("float32"), weak_type=True)
    for name in ("fft", "rfft", "irfft", "fftshift"):
        f = FUNCS[name][0]
        want = jax.eval_shape(lambda a, f=f: f(jnp, a, "ortho"), arg)
        got = wt.trace(lambda a, f=f: f(wnp, a, "ortho")).trace(arg).out_avals
        assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type), name


ERRORS = [
    ("rfft complex", lambda m, a: m.fft.rfft(a.astype(m.complex64))),
    ("ihfft complex", lambda m, a: m.fft.ihfft(a.astype(m.complex64))),
    ("rfft float16", lambda m, a: m.fft.rfft(a.astype(m.float16))),
    ("bad norm", lambda m, a: m.fft.fft(a, norm="nope")),
    ("fft tuple axis", lambda m, a: m.fft.fft(a, axis=(0, 1))),
    ("fft2 three axes", lambda m, a: m.fft.fft2(a, axes=(0, 1, 2))),
    ("fftn repeated axes", lambda m, a: m.fft.fftn(a, axes=(1, 1))),
    ("fftn s axes lengths", lambda m, a: m.fft.fftn(a, s=(2, 2), axes=(0,))),
    ("fftn non-positive s", lambda m, a: m.fft.fftn(a, s=(0, 2))),
    ("fft axis out of range", lambda m, a: m.fft.fft(a, axis=3)),
]


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("err", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(err, x64):
    name, f = err
    a = values("float32", (2, 3, 4), 0, special=False)
    with jax.enable_x64(x64):
        with pytest.raises(Exception):  # noqa: B017  (jax's own error kinds vary)
            jax.jit(lambda x: f(jnp, x))(a)
        with pytest.raises(wt.WeaktraceError):
            wt.trace(lambda x: f(wnp, x)).trace(a)
        check(lambda x: f(wnp, x), lambda x: f(jnp, x), a, context=name)


LOSSES = {
    "fft": lambda m, a: m.sum(m.abs(m.fft.fft(a, norm="ortho")) ** 2),
    "rfft": lambda m, a: m.sum(m.real(m.fft.rfft(a, n=6)) * m.arange(4.0)),
    "irfft": lambda m, a: m.sum(m.fft.irfft(a * (1 + 2j)) ** 2),
    "fftn": lambda m, a: m.sum(m.imag(m.fft.fftn(a[None] * a[:, None], s=(3, 5))) ** 2),
    "fftshift": lambda m, a: m.sum(m.fft.fftshift(a) * m.arange(5.0)),
}


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradients(name):
    loss = LOSSES[name]
    a = values("float32", (5,), 3, special=False)
    ours = jax.grad(wt.trace(lambda x: loss(wnp, x)))(a)
    want = jax.grad(lambda x: loss(jnp, x))(a)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(want), rtol=1e-3, atol=1e-3)


def test_every_jax_fft_name_is_mirrored():
    names = sorted(n for n in dir(jnp.fft) if not n.startswith("_"))
    missing = [n for n in names if not hasattr(wnp.fft, n) and n not in EXCLUDED]
    assert not missing, f"weaktrace.numpy.fft lacks {missing}"
    assert sorted(wnp.fft.EXPORTS) == [n for n in names if n not in EXCLUDED]
    from weaktrace.numpy import fft

    assert wnp.fft is fft and "fft" not in wnp.__all__
