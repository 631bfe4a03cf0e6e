"""Focused regressions for bugs found by the session-15 ``--run-slow`` sweeps (issue #14):
the case that found a bug is checked here, in CI, in a few seconds; the sweep itself keeps
running only under ``--run-slow``.

The oracle is jax itself, computed at test time (tests/mirror_harness.py: eager, traced
and compiled weaktrace against jax eager and jit, shapes, dtypes, weak flags, values and
errors).
"""

from __future__ import annotations

import jax
import jax.scipy.special as jss
import numpy as np
import pytest

import weaktrace.scipy.special as wss
from tests.mirror_harness import check

# -- weaktrace.scipy.special.loggamma: complex results are strong --------------------------

LOGGAMMA = [1.5 + 0.5j, -2.5 + 1j, 3.0, np.complex64(2 - 1j), np.array([0.5 + 2j, -1.5 - 1j])]


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("x", LOGGAMMA, ids=[repr(x) for x in LOGGAMMA])
def test_loggamma_weak_flag_is_jaxs(x, x64):
    """test_scipy_special --run-slow, "loggamma-py_complex": jax's complex loggamma ends in
    ``where(pole | nan, complex NaN array of z's dtype, result)``, a strong array, so a
    Python complex gives a strong result; weaktrace kept it weak. Real results (a Python
    float) stay weak in both."""
    with jax.enable_x64(x64):
        check(wss.loggamma, jss.loggamma, x, rtol=1e-4, atol=1e-4, context="loggamma")
