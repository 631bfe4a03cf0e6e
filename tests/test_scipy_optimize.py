"""weaktrace.scipy.optimize.minimize against jax.scipy.optimize.minimize, computed at
test time: the harness (tests/mirror_harness.py) runs each minimization eagerly,
traced and compiled against jax eager and jax.jit, and compares every field of the
result (x, success, status, fun, jac, hess_inv, nfev, njev, nit: the same iterations,
so the counts are equal) with its dtype and weak flag, x64 off and on.

CI runs a sample (one run per case, x64 rotating); ``--run-slow`` runs every case in
both modes.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import jax.scipy.optimize as jopt
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
import weaktrace.scipy.optimize as wopt
from tests.conftest import full_run
from tests.mirror_harness import check


# Objectives, written once for either numpy module `m` (jax.numpy or weaktrace.numpy).
def rosenbrock(m):
    return lambda x: m.sum(100.0 * m.diff(x) ** 2 + (1.0 - x[:-1]) ** 2)


def quadratic(m):
    a = np.array([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]], np.float32)
    return lambda x, shift: 0.5 * m.dot(x, m.dot(a, x)) - m.sum(shift * x)


def himmelblau(m):
    return lambda p: (p[0] ** 2 + p[1] - 11.0) ** 2 + (p[0] + p[1] ** 2 - 7.0) ** 2


def matyas(m):
    return lambda p: 0.26 * (p[0] ** 2 + p[1] ** 2) - 0.48 * p[0] * p[1]


def eggholder(m):
    def f(p):
        x, y = p[0], p[1]
        return -(y + 47) * m.sin(m.sqrt(m.abs(x / 2.0 + y + 47.0))) - x * m.sin(
            m.sqrt(m.abs(x - (y + 47.0)))
        )

    return f


def sphere(m):  # a real function of complex variables (L-BFGS's complex path)
    z0 = np.array([1.0, 2.0 - 3.0j, 4.0, -5.0j], np.complex64)
    return lambda z: m.real(m.dot(m.conj(z - z0), z - z0))


BFGS, LBFGS = "BFGS", "l-bfgs-experimental-do-not-rely-on-this"
SHIFT = np.array([1.0, -2.0, 0.5], np.float32)

# (label, objective, x0, args (a tuple, or a bad value), method, options)
# fmt: off
CASES = [
    ("rosen-f32", rosenbrock, np.zeros(3, np.float32), (), BFGS, {}),
    ("rosen-f64", rosenbrock, np.zeros(3), (), BFGS, {"gtol": 1e-6}),
    ("rosen-maxiter", rosenbrock, np.zeros(2, np.float32), (), BFGS, {"maxiter": 3}),
    ("rosen-norm2", rosenbrock, np.full(4, 0.5, np.float32), (), BFGS, {"norm": 2}),
    ("rosen-ls2", rosenbrock, np.zeros(2, np.float32), (), BFGS, {"line_search_maxiter": 2}),
    ("quad-args", quadratic, np.ones(3, np.float32), (SHIFT,), BFGS, {}),
    ("quad-weak-arg", quadratic, np.ones(3, np.float32), (2.0,), BFGS, {}),
    ("himmelblau", himmelblau, np.ones(2, np.float32), (), BFGS, {"gtol": 1e-6}),
    ("himmelblau-bad", himmelblau, np.array([92, 0.001], np.float32), (), BFGS, {}),
    ("matyas", matyas, np.ones(2) * 6.0, (), BFGS, {}),
    ("eggholder", eggholder, np.ones(2, np.float32) * 100.0, (), BFGS, {}),
    ("bad-args", quadratic, np.ones(3, np.float32), 45, BFGS, {}),
    ("bad-method", rosenbrock, np.zeros(2, np.float32), (), "Nelder-Mead", {}),
    ("bad-int-x0", rosenbrock, np.zeros(2, np.int32), (), BFGS, {}),
    ("lbfgs-rosen", rosenbrock, np.zeros(3, np.float32), (), LBFGS, {}),
    ("lbfgs-rosen-f64", rosenbrock, np.zeros(2), (), LBFGS, {"gtol": 1e-7}),
    ("lbfgs-maxcor", rosenbrock, np.zeros(4, np.float32), (), LBFGS, {"maxcor": 3}),
    ("lbfgs-maxfun", rosenbrock, np.zeros(2, np.float32), (), LBFGS, {"maxfun": 5}),
    ("lbfgs-maxgrad", rosenbrock, np.zeros(2, np.float32), (), LBFGS,
     {"maxgrad": 6, "maxiter": None}),
    ("lbfgs-ftol", quadratic, np.ones(3, np.float32), (SHIFT,), LBFGS, {"ftol": 1e-2}),
    ("lbfgs-himmelblau", himmelblau, np.zeros(2, np.float32), (), LBFGS, {"maxls": 5}),
    ("lbfgs-eggholder", eggholder, np.ones(2, np.float32) * 100.0, (), LBFGS, {}),
    ("lbfgs-complex", sphere, np.zeros(4, np.complex64), (), LBFGS, {"gtol": 1e-6}),
]
# fmt: on
# Cases CI runs (a few seconds each: every run compiles a nested loop five ways).
CI = {"rosen-f32", "bad-args", "bad-int-x0", "lbfgs-complex"}


def _runs(full: bool) -> list[tuple[int, bool]]:
    out = []
    for i, case in enumerate(CASES):
        if not full and case[0] not in CI:
            continue
        modes = (False, True) if full else (i % 2 == 1,)
        out.extend((i, x64) for x64 in modes)
    return out


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "run" in metafunc.fixturenames:
        runs = _runs(full_run(metafunc.config))
        ids = [f"{CASES[i][0]}-{'x64' if x else 'x32'}" for i, x in runs]
        metafunc.parametrize("run", runs, ids=ids)


def _minimizer(minimize, m, i):
    _, objective, _, args, method, options = CASES[i]
    fun = objective(m)
    return lambda x0: tuple(minimize(fun, x0, args, method=method, options=options))


def _tolerance(x0: np.ndarray, x64: bool) -> dict[str, float]:
    """The iterates agree to rounding (jax's gradient of an objective that reads x in
    two places, such as rosenbrock's x[:-1], sums the cotangents in another order than
    jax's gradient of weaktrace's traced objective: 1 ulp), and the counts exactly; a
    gradient at convergence is rounding noise, about 400 eps in 32 bits."""
    wide = x64 and x0.dtype in (np.float64, np.complex128)
    return {"rtol": 2e-4, "atol": 2e-5 if wide else 1e-4}


def test_minimize_equals_jax(run):
    i, x64 = run
    with jax.enable_x64(x64):
        check(
            _minimizer(wopt.minimize, wnp, i),
            _minimizer(jopt.minimize, jnp, i),
            CASES[i][2],
            **_tolerance(CASES[i][2], x64),
            context=f"minimize {CASES[i][0]}",
        )


def test_results_class_is_jax():
    assert wopt.OptimizeResults._fields == jopt.OptimizeResults._fields
    # under jax.jit, as jax's own tests call it (the objective sees jax's tracers)
    r = jax.jit(lambda x: wopt.minimize(matyas(wnp), x, method="BFGS"))(jnp.ones(2))
    want = jax.jit(lambda x: jopt.minimize(matyas(jnp), x, method="BFGS"))(jnp.ones(2))
    assert isinstance(r, wopt.OptimizeResults)
    assert (int(r.nit), int(r.nfev)) == (int(want.nit), int(want.nfev))
    np.testing.assert_allclose(r.x, want.x, rtol=1e-5, atol=1e-6)


def test_user_objective_inside_a_trace_prints_its_gradient():
    """The objective's value and gradient are recorded as jax transforms of the
    objective traced by weaktrace (its promotions are weaktrace's)."""
    f = wt.trace(lambda x: wopt.minimize(rosenbrock(wnp), x, method="BFGS").x)
    text = str(f.trace(np.zeros(2, np.float32)))
    assert "value_and_grad" in text and "while" in text


def test_errors_are_jax_families():
    with pytest.raises(TypeError, match="must be a tuple"):
        wopt.minimize(matyas(wnp), jnp.ones(2), args=45, method="BFGS")
    with pytest.raises(ValueError, match="Method x not recognized"):
        wopt.minimize(matyas(wnp), jnp.ones(2), method="x")
    with pytest.raises(TypeError):  # no method: a keyword-only argument, required
        wopt.minimize(matyas(wnp), jnp.ones(2))  # type: ignore[call-arg]


def test_every_name_is_jax_and_swept():
    assert set(wopt.__all__) == {n for n in dir(jopt) if not n.startswith("_")} - {"annotations"}
    want, got = inspect.signature(jopt.minimize), inspect.signature(wopt.minimize)
    assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == [
        (p.name, p.kind, p.default) for p in want.parameters.values()
    ]
    assert {c[4] for c in CASES} >= {BFGS, LBFGS}  # both methods in the sweep
