"""Bugs found by running jax's own fft_test, linalg_test and
lax_scipy_special_functions_test (jax v0.10.2) with ``jax.numpy``, ``jax.lax`` and
``jax.scipy`` swapped for weaktrace's mirrors. Each is checked here against jax,
computed at test time: eagerly and through ``weaktrace.trace`` against ``jax.jit``."""

from __future__ import annotations

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace.numpy as wnp
from tests.mirror_harness import check

FFT_NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
             "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]  # fmt: skip


@pytest.mark.parametrize("name", FFT_NAMES)
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.ci_sample(2)
def test_fft_norms_under_strict_promotion(name, norm):
    """jax scales every transform by its norm factor; for "backward" that factor is a
    weak 1, which strict promotion accepts. weaktrace multiplied by a strong int32 1 and
    raised TypePromotionError under ``jax.numpy_dtype_promotion('strict')`` (the mode
    jax's tests run in): fft_test's testFft2_/testFftn found it."""
    x = (np.arange(24).reshape(2, 3, 4) % 5).astype(np.float32)
    for x64 in (False, True):
        with jax.enable_x64(x64), jax.numpy_dtype_promotion("strict"):
            check(lambda a: getattr(wnp.fft, name)(a, norm=norm),
                  lambda a: getattr(jnp.fft, name)(a, norm=norm), x,
                  rtol=1e-4, atol=1e-4, context=f"{name} {norm}")  # fmt: skip


FFT_REFUSALS = [
    ("lax.fft rfft of bfloat16", lambda m, lax: lax.fft(
        np.ones((14, 15), jnp.bfloat16), fft_type="rfft", fft_lengths=(5, 6))),
    ("lax.fft too many lengths", lambda m, lax: lax.fft(
        np.ones((14, 15)), fft_type="fft", fft_lengths=(4, 5, 6))),
    ("lax.fft wrong lengths", lambda m, lax: lax.fft(
        np.ones((14, 15)), fft_type="fft", fft_lengths=(17,))),
    ("lax.fft irfft lengths", lambda m, lax: lax.fft(
        np.ones((2, 14, 15)), fft_type="irfft", fft_lengths=(13, 15))),
    ("rfft of complex", lambda m, lax: m.fft.rfft(np.ones(4, np.complex64))),
    ("fftfreq list n", lambda m, lax: m.fft.fftfreq(n=[0, 1, 2])),
    ("rfftfreq list d", lambda m, lax: m.fft.rfftfreq(4, d=[0, 1])),
]  # fmt: skip


@pytest.mark.parametrize(("label", "call"), FFT_REFUSALS, ids=[c[0] for c in FFT_REFUSALS])
def test_fft_refusals_are_jax_exception_class_and_words(label, call):
    """jax raises ValueError for these, in words its fft_test matches; weaktrace raised
    TypeError for an rfft of bfloat16 or complex values, and its own words elsewhere."""
    import weaktrace.lax as wlax

    with pytest.raises(ValueError) as theirs:
        call(jnp, jax.lax)
    with pytest.raises(ValueError) as ours:
        call(wnp, wlax)
    words = str(theirs.value).split(",")[0][:60]
    assert words in str(ours.value), (str(theirs.value), str(ours.value))


def test_log_ndtr_compiles_under_jax_enable_checks():
    """weaktrace lowered log_ndtr by calling jax's with ``series_order=`` as a keyword;
    jax's custom_jvp then fails its own argument-name check under ``jax_enable_checks``
    (on in jax's test suite), so every traced or jitted log_ndtr raised AssertionError."""
    import weaktrace.scipy.special as wsp

    x = np.linspace(-5, 5, 7, dtype=np.float32)
    with jax.enable_checks(True):
        for k in (0, 3):
            check(lambda a, k=k: wsp.log_ndtr(a, k),
                  lambda a, k=k: jax.scipy.special.log_ndtr(a, k), x, rtol=1e-5)  # fmt: skip


OWENS_CODE = """
import jax, numpy as np
import weaktrace.scipy.special as wsp
from tests.mirror_harness import check
jsp = jax.scipy.special
for dtype in ["float16", "bfloat16", "float32", "float64", "complex64", "int32", "bool"]:
    h = np.linspace(-3, 3, 12).reshape(3, 4).astype(dtype)
    a = np.linspace(-2, 2, 4).astype(dtype)
    check(wsp.owens_t, jsp.owens_t, h, a, rtol=2e-3, atol=1e-4, context=dtype)
    check(lambda x: wsp.owens_t(x, 0.5), lambda x: jsp.owens_t(x, 0.5), h,
          rtol=2e-3, atol=1e-4, context=dtype)
check(lambda x: wsp.owens_t(0.5, 2.0) + x, lambda x: jsp.owens_t(0.5, 2.0) + x,
      np.ones(3, np.float32), rtol=2e-3, atol=1e-4)
"""


@pytest.mark.parametrize("x64", ["0", "1"])
@pytest.mark.ci_sample(2)
def test_owens_t_dtype_is_jax_s(x64):
    """owens_t crashed on every input (its dtype rule read a ``DType.itemsize`` that does
    not exist: lax_scipy_special_functions_test's owens_t cases). Its rule also said
    "at least float32", while jax's quadrature weights are a strong float64 table: with
    x64 on jax gives float64 for float32 operands (complex128 for complex64), and the
    trace said f32 while running f64. Each x64 mode runs in a fresh process, because
    jax caches its float64 weights canonicalized to the mode of its first call."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "JAX_ENABLE_X64": x64}
    run = subprocess.run([sys.executable, "-c", OWENS_CODE], env=env, cwd=root,
                         capture_output=True, text=True)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]


BINARY_NAMES = ["beta", "betaln", "boxcox", "boxcox1p", "expn", "kl_div", "poch",
                "rel_entr", "xlog1py", "xlogy"]  # fmt: skip


@pytest.mark.parametrize("name", BINARY_NAMES)
def test_scipy_special_binary_functions_take_jax_s_keywords(name):
    """The two-operand scipy.special mirrors took ``(x, y)`` whatever jax names them:
    ``beta(1, b=1)`` raised TypeError (lax_scipy_special_functions_test's
    testBetaParameterDeprecation). Every keyword spelling jax accepts works, every one it
    refuses raises TypeError, and the values agree."""
    import inspect

    import weaktrace.scipy.special as wsp

    ours, theirs = getattr(wsp, name), getattr(jax.scipy.special, name)
    a, b = list(inspect.signature(theirs).parameters)
    assert list(inspect.signature(ours).parameters) == [a, b]
    x, y = np.float32(3.0), np.float32(2.0)
    for args, kwargs in [((x, y), {}), ((x,), {b: y}), ((), {a: x, b: y})]:
        np.testing.assert_allclose(ours(*args, **kwargs), theirs(*args, **kwargs), rtol=1e-5)
    for kwargs in [{"x_": x, "y_": y}, {b: y}]:
        with pytest.raises(TypeError):
            theirs(**kwargs)
        with pytest.raises(TypeError):
            ours(**kwargs)


COMPLEX_REFUSERS = ["beta", "betainc", "dawsn", "entr", "exp1", "expi", "expn", "gammasgn",
                    "hyp1f1", "kl_div", "poch", "rel_entr", "sici", "fresnel"]  # fmt: skip


@pytest.mark.parametrize("name", COMPLEX_REFUSERS)
def test_scipy_special_complex_refusals_are_jax_s_class(name):
    """jax refuses complex operands of these real-only functions with ValueError
    (fresnel: NotImplementedError); weaktrace raised a TypeError only
    (testSiciRaiseOnComplexInput). Both eagerly and under a trace."""
    import inspect

    import weaktrace as wt
    import weaktrace.scipy.special as wsp

    theirs = getattr(jax.scipy.special, name)
    k = sum(p.default is inspect.Parameter.empty
            for p in inspect.signature(theirs).parameters.values())  # fmt: skip
    args = [np.arange(1, 4, dtype=np.complex64)] * k
    with pytest.raises(Exception) as want:
        theirs(*args)
    cls = type(want.value)
    assert cls in (ValueError, NotImplementedError), cls
    with pytest.raises(cls) as got:
        getattr(wsp, name)(*args)
    with pytest.raises(cls):
        wt.trace(getattr(wsp, name))(*args)
    words = str(want.value).split(".")[0]
    assert words.lower() in str(got.value).lower(), (str(want.value), str(got.value))


def test_polygamma_non_integer_n_is_a_value_error():
    """jax: ValueError for a non-integer ``n``; weaktrace raised a TypeError only."""
    import weaktrace.scipy.special as wsp

    with pytest.raises(ValueError):
        jax.scipy.special.polygamma(1.5, 2.0)
    with pytest.raises(ValueError, match="must be of integer type"):
        wsp.polygamma(1.5, 2.0)


@pytest.mark.parametrize("algorithm", ["QR", "DIVIDE_AND_CONQUER", "JACOBI"])
def test_lax_svd_takes_jax_s_algorithm(algorithm):
    """``lax.linalg.svd(..., algorithm=...)`` raised NotImplementedError for every
    algorithm (linalg_test's testSVD): it is now handed to jax's kernel, so values agree
    and what jax refuses on this device (JACOBI on CPU) weaktrace refuses too."""
    import weaktrace as wt
    import weaktrace.lax as wlax

    alg = getattr(jax.lax.linalg.SvdAlgorithm, algorithm)
    x = (np.arange(12).reshape(3, 4) % 5 + np.eye(3, 4)).astype(np.float32)
    try:
        jax.jit(lambda a: jax.lax.linalg.svd(a, algorithm=alg))(x)
    except NotImplementedError:  # refused by the device's lowering, not while tracing
        with pytest.raises(NotImplementedError):
            wlax.linalg.svd(x, algorithm=alg)
        with pytest.raises(NotImplementedError):
            wt.trace(lambda a: wlax.linalg.svd(a, algorithm=alg))(x)
        return
    for full in (True, False):
        check(lambda a, full=full: wlax.linalg.svd(a, full_matrices=full, algorithm=alg)[1],
              lambda a, full=full: jax.lax.linalg.svd(a, full_matrices=full, algorithm=alg)[1],
              x, rtol=1e-4, atol=1e-5, context=algorithm)  # fmt: skip


LSTSQ_SHAPES = [((4, 3), (4,)), ((3, 4), (3, 2)), ((4, 4), (4,)), ((0, 3), (0,)),
                ((3, 0), (3, 2)), ((0, 0), (0,))]  # fmt: skip


@pytest.mark.parametrize(("ashape", "bshape"), LSTSQ_SHAPES)
def test_lstsq_numpy_resid_and_empty_matrices(ashape, bshape):
    """lstsq refused ``numpy_resid=True`` outright and any empty matrix (linalg_test's
    testLstsq, testLstsqZeroMatrix). Eagerly it now gives jax's answer (empty residuals
    where NumPy's are); under a trace numpy_resid needs a concrete rank, so jax.jit and
    weaktrace.trace both refuse (ConcretizationTypeError)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(ashape).astype(np.float32)
    b = rng.standard_normal(bshape).astype(np.float32)
    for x64 in (False, True):
        with jax.enable_x64(x64):
            check(lambda u, v: wnp.linalg.lstsq(u, v), lambda u, v: jnp.linalg.lstsq(u, v),
                  a, b, rtol=1e-4, atol=1e-4)  # fmt: skip
            theirs = jnp.linalg.lstsq(jnp.asarray(a), jnp.asarray(b), numpy_resid=True)
            ours = wnp.linalg.lstsq(jnp.asarray(a), jnp.asarray(b), numpy_resid=True)
            for t, o in zip(theirs, ours, strict=True):
                assert (o.shape, o.dtype, o.weak_type) == (t.shape, t.dtype, t.weak_type)
                np.testing.assert_allclose(o, t, rtol=1e-4, atol=1e-4)
    if ashape[0] > ashape[1] > 0:  # only then is the rank consulted
        with pytest.raises(jax.errors.ConcretizationTypeError):
            jax.jit(lambda u, v: jnp.linalg.lstsq(u, v, numpy_resid=True))(a, b)
        with pytest.raises(jax.errors.ConcretizationTypeError):
            import weaktrace as wt

            wt.trace(lambda u, v: wnp.linalg.lstsq(u, v, numpy_resid=True))(a, b)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 3), (0, 0)])
def test_pinv_of_empty_matrices(shape):
    """pinv of an empty matrix raised NotImplementedError (linalg_test's testPinv);
    jax gives an empty (..., n, m) array in the operand's inexact dtype."""
    for dtype in (np.float32, np.int32, np.complex64):
        check(wnp.linalg.pinv, jnp.linalg.pinv, np.zeros(shape, dtype), context=str(dtype))


HALF_LINALG = ["qr", "svd", "eigh", "cholesky", "inv", "eig", "slogdet", "det"]


@pytest.mark.parametrize("name", HALF_LINALG)
def test_half_float_linalg_refusal_is_not_implemented_as_jax(name):
    """jax's CPU kernels refuse float16 with NotImplementedError ("Unsupported dtype
    float16"); weaktrace raised TypeError only (linalg_test's testQrInvalidDtypeCPU).
    Where jax computes (det of 3x3 by cofactors) weaktrace computes too."""
    import weaktrace as wt

    a = (np.ones((3, 3)) + np.eye(3)).astype(np.float16)
    theirs, ours = getattr(jnp.linalg, name), getattr(wnp.linalg, name)
    try:
        want = jax.block_until_ready(theirs(jnp.asarray(a)))
    except NotImplementedError as err:
        assert "Unsupported dtype float16" in str(err)
        for fn in (ours, wt.trace(ours)):
            with pytest.raises(NotImplementedError, match="Unsupported dtype float16"):
                fn(a)
        return
    got = ours(jnp.asarray(a))
    np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32))


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_lax_triangular_solve_of_a_vector(left_side, dtype):
    """jax.lax.linalg.triangular_solve takes b with one axis fewer than a (a vector, a
    column when left_side, else a row); weaktrace raised ShapeError (linalg_test's
    testTriangularSolveGrad)."""
    import weaktrace.lax as wlax

    rng = np.random.default_rng(1)
    a = np.tril(rng.standard_normal((2, 4, 4)) + 5 * np.eye(4)).astype(dtype)
    b = rng.standard_normal((2, 4)).astype(dtype)
    for flags in [dict(lower=True), dict(lower=True, transpose_a=True, conjugate_a=True),
                  dict(lower=False, unit_diagonal=True)]:  # fmt: skip
        check(lambda u, v, f=flags: wlax.linalg.triangular_solve(u, v, left_side=left_side, **f),
              lambda u, v, f=flags: jax.lax.linalg.triangular_solve(u, v, left_side=left_side,
                                                                    **f),
              a, b, rtol=1e-4, atol=1e-5, context=str(flags))  # fmt: skip


def test_lax_eig_enable_eigvec_derivs():
    """``lax.linalg.eig(..., enable_eigvec_derivs=True)`` raised NotImplementedError
    (linalg_test's testEigGrad*); it is handed to jax's eig, whose JVP then covers the
    eigenvectors: values and tangents agree with jax's, eagerly and traced."""
    import weaktrace as wt
    import weaktrace.lax as wlax

    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3)).astype(np.float32)
    t = rng.standard_normal((3, 3)).astype(np.float32)

    def theirs(x):
        w, v = jax.lax.linalg.eig(x, compute_left_eigenvectors=False,
                                  enable_eigvec_derivs=True)  # fmt: skip
        return jnp.abs(w).sum() + jnp.abs(v).sum()

    def ours(x):
        w, v = wlax.linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
        return wnp.abs(w).sum() + wnp.abs(v).sum()

    want = jax.jvp(theirs, (a,), (t,))
    for fn in (ours, wt.trace(ours)):
        got = jax.jvp(fn, (a,), (t,))
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
