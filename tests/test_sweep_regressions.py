"""Focused regressions for bugs found by running the slow sweeps (``--run-slow``) of the
model namespaces in full (issues #12 and #14): each sweep keeps running only under
``--run-slow``; the case that found a bug is checked here, in CI, in a few seconds.

The oracle is jax itself, computed at test time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.special as jss
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.numpy as wnp
import weaktrace.scipy.linalg as wsl
import weaktrace.scipy.special as wss
from tests.mirror_harness import check

X64 = pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])


# -- weaktrace.nn --------------------------------------------------------------------------


@X64
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_log1mexp_of_complex_computes_as_jax(dt, x64):
    """jax.nn.log1mexp computes on complex operands (it picks its branch by comparing x
    with log 2 lexicographically); weaktrace refused them with OperandTypeError."""
    x = np.array([0.5 + 1j, -1 + 0.3j, 2 - 2j, 0.1j, 0.7, 1e-8 + 1e-8j], dt)
    with jax.enable_x64(x64):
        check(wnn.log1mexp, jax.nn.log1mexp, x, rtol=1e-5, atol=1e-6, context="log1mexp")
        check(wnn.log1mexp, jax.nn.log1mexp, 1.5 - 0.5j, context="log1mexp weak")


_Q = np.random.default_rng(0).normal(size=(2, 5, 4, 8))
_KV = np.random.default_rng(1).normal(size=(2, 6, 2, 8))
_REFUSED = {
    "bad implementation": lambda m, q, k, v: m.dot_product_attention(
        q, k, v, implementation="flash"
    ),
    "int64 lengths": lambda m, q, k, v: m.dot_product_attention(
        q, k, v, query_seq_lengths=np.array([3, 5], np.int64)
    ),
    "int mask": lambda m, q, k, v: m.dot_product_attention(
        q, k, v, mask=np.ones((2, 1, 5, 6), np.int32)
    ),
    "heads not multiple": lambda m, q, k, v: m.dot_product_attention(q[:, :, :3], k, v),
    "value shape": lambda m, q, k, v: m.dot_product_attention(q, k, v[:, :4]),
}


# int64 lengths refused only under x64 (without it they are int32: both compute)
_REFUSAL_CASES = [(label, x64) for label in _REFUSED for x64 in (False, True)
                  if x64 or label != "int64 lengths"]  # fmt: skip


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize(("label", "x64"), _REFUSAL_CASES)
def test_attention_refuses_as_jax_with_named_errors(label, x64, dt):
    """Where jax.nn.dot_product_attention raises ValueError, weaktrace raised a bare
    ValueError; now a named weaktrace error of jax's class, eagerly and under a trace.
    (The f16/bf16 sweep called jax without expecting it to raise: the test was wrong.)"""
    f = _REFUSED[label]
    q, k, v = (jnp.asarray(a.astype(dt)) for a in (_Q, _KV, _KV))
    with jax.enable_x64(x64):
        with pytest.raises(ValueError) as jax_info:
            f(jax.nn, q, k, v)
        calls = {
            "eager": lambda: f(wnn, q, k, v),
            "traced": lambda: wt.trace(lambda *a: f(wnn, *a)).trace(q, k, v),
        }
        for name, call in calls.items():
            with pytest.raises(type(jax_info.value)) as info:
                call()
            assert isinstance(info.value, wt.WeaktraceError), (name, info.value, jax_info.value)


# -- weaktrace.scipy.linalg ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "a_shape", "c_shape", "x64"),
    [("right", (2, 4, 3), (4,), False), ("left", (3, 5, 2), (2,), True)],
)
def test_qr_multiply_of_a_vector_ravels_the_batch_too(mode, a_shape, c_shape, x64):
    """qr_multiply of a batched a and a 1-D c: jax ravels the whole (batch..., core)
    result; weaktrace's traced shape dropped the batch ((3,), jax (6,)) while the
    compiled program (jax's lowering) gave (6,)."""
    rng = np.random.default_rng(0)
    a, c = rng.normal(size=a_shape).astype(np.float32), rng.normal(size=c_shape).astype("f")
    with jax.enable_x64(x64):
        check(
            lambda a, c: wsl.qr_multiply(a, c, mode=mode),
            lambda a, c: jsl.qr_multiply(a, c, mode=mode),
            a,
            c,
            rtol=1e-4,
            atol=1e-5,
            context="qr_multiply",
        )


@pytest.mark.parametrize(("shape", "x64"), [((1,), True), ((2, 2), False)])
def test_fiedler_companion_of_a_weak_short_polynomial_is_weak(shape, x64):
    """jax builds the n <= 2 Fiedler companion (0x0, 1x1) from a itself, so a weak a gives
    a weak matrix; weaktrace's was always strong (test_scipy_linalg --run-slow:
    fiedler_companion bool s2 x64, a = bool + 5)."""
    with jax.enable_x64(x64):
        check(
            lambda a: wsl.fiedler_companion(a + 5),
            lambda a: jsl.fiedler_companion(a + 5),
            np.ones(shape, bool),
            context="fiedler_companion",
        )


# -- weaktrace.numpy.linalg ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "dt", "shape", "x64"),
    [
        ("det", "bfloat16", (2, 1, 1), True),
        ("slogdet", "float16", (1, 1), False),
        ("slogdet", "bfloat16", (3, 2, 2), True),
        ("slogdet", "float16", (0, 4, 4), False),
        ("det", "float16", (4, 4), False),  # the LU kernel: both refuse
    ],
)
def test_half_det_and_slogdet_compute_where_jax_does(name, dt, shape, x64):
    """jax's det / slogdet of float16 / bfloat16 compute where no LU kernel runs (1x1 and
    2x2 matrices, an empty batch); weaktrace refused every half matrix with
    KernelDtypeError (test_linalg --run-slow: det bf16 (2,1,1), slogdet f16 (1,1))."""
    rng = np.random.default_rng(0)
    a = (rng.normal(size=shape) + 2 * np.eye(shape[-1])).astype(dt)
    with jax.enable_x64(x64):
        check(getattr(wnp.linalg, name), getattr(jnp.linalg, name), a, rtol=2e-2, atol=2e-2)


# -- weaktrace.scipy.special ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["rel_entr", "kl_div"])
@pytest.mark.parametrize(
    ("p", "q", "x64"),
    [
        (np.arange(1, 4, dtype=np.int8), 2.0, False),  # weak p of shape (3,): strong
        (np.arange(1, 4, dtype=np.uint64), np.arange(3, dtype=np.int64), True),
        (2.0, np.arange(1, 4, dtype=np.int8), True),  # weak 0-d p: weak
    ],
    ids=["i8-py", "u64-i64", "py-i8"],
)
def test_rel_entr_is_strong_unless_p_is_a_weak_scalar(name, p, q, x64):
    """jax's rel_entr mixes in lax._const(p, 0), strong unless p is a weak 0-d value, so
    rel_entr(int8 array, 2.0) is strong float32; weaktrace's traced result was weak
    (test_scipy_special --run-slow: rel_entr int8/py_float, uint64/int64 under x64)."""
    with jax.enable_x64(x64):
        check(getattr(wss, name), getattr(jss, name), p, q, context=name)
