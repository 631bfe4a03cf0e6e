"""Weak flags of the nn / scipy.special functions that reduce along axes, traced, against
``jax.make_jaxpr`` computed at test time: a weak input does not make these results weak
(jax's maximum inside them has a strong initial value). Found by a CI sample that
picked a Python scalar for ``logmeanexp`` and ``scipy.special.softmax``."""

from __future__ import annotations

import itertools

import jax
import jax.nn
import jax.scipy.special as jsp
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.scipy.special as wsp

FUNCTIONS = {
    "scipy.special.softmax": (jsp.softmax, wsp.softmax, True),
    "scipy.special.log_softmax": (jsp.log_softmax, wsp.log_softmax, True),
    "scipy.special.logsumexp": (jsp.logsumexp, wsp.logsumexp, True),
    "nn.softmax": (jax.nn.softmax, wnn.softmax, False),
    "nn.log_softmax": (jax.nn.log_softmax, wnn.log_softmax, False),
    "nn.logsumexp": (jax.nn.logsumexp, wnn.logsumexp, True),
    "nn.logmeanexp": (jax.nn.logmeanexp, wnn.logmeanexp, True),
}
SHAPES = [(), (3,), (2, 3)]
DTYPES = ["float32", "int32", "bool", "float16", "complex64"]


def _aval(fn, *args):
    try:
        out = fn(*args)
    except (TypeError, ValueError) as err:
        return type(err)
    leaves = jax.tree_util.tree_leaves(out)
    return [(a.shape, str(a.dtype), bool(a.weak_type)) for a in leaves]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("x64", [False, True])
def test_weak_flags_match_jax(name, x64, full):
    if not full and x64 != bool(sorted(FUNCTIONS).index(name) % 2):
        pytest.skip("CI checks each function in one x64 mode (--run-slow: both)")
    theirs, ours, axis_none = FUNCTIONS[name]
    axes = [{}, {"axis": 0}, {"axis": -1}] + ([{"axis": None}] if axis_none else [])
    with jax.enable_x64(x64):
        for shape, dt, weak, kw in itertools.product(SHAPES, DTYPES, [True, False], axes):
            arg = jax.ShapeDtypeStruct(shape, dt, weak_type=weak)
            want = _aval(
                lambda a, kw=kw: jax.make_jaxpr(lambda x: theirs(x, **kw))(a).out_avals, arg
            )
            got = _aval(lambda a, kw=kw: wt.trace(lambda x: ours(x, **kw)).trace(a).out_avals, arg)
            if isinstance(want, type):
                assert isinstance(got, type) and issubclass(got, Exception), (
                    name,
                    shape,
                    dt,
                    kw,
                    got,
                )
                continue
            assert got == want, f"{name}({dt}{list(shape)} weak={weak}, {kw}): {got} != jax {want}"
