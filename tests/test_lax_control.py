"""weaktrace.lax control flow against jax.lax: generated loop and branch programs
(weak and strong initial carries, Python scalars, pytrees, x64 off and on) must give
jax.make_jaxpr's shapes, dtypes and weak flags and jax.jit's values; where jax raises,
weaktrace raises, and its message names the body line that changed the carry."""

from __future__ import annotations

import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp
from tests.mirror_harness import check

INITS = {
    "py float": lambda: 0.0,
    "py int": lambda: 0,
    "f32": lambda: np.float32(0),
    "f16": lambda: np.float16(0),
    "bf16": lambda: np.asarray(0, jnp.bfloat16),
    "i8": lambda: np.int8(0),
    "i32": lambda: np.int32(0),
    "u8": lambda: np.uint8(0),
    "bool": lambda: np.bool_(False),
}
STEPS = {  # what the body does to the carry, written once for both namespaces
    "+1": lambda n, c, x: c + 1,
    "*1.5": lambda n, c, x: c * 1.5,
    "+x": lambda n, c, x: c + x,
    "max x": lambda n, c, x: n.maximum(c, x),
    "astype x": lambda n, c, x: (c + 1).astype(x.dtype),
    "const": lambda n, c, x: 2.0,
    "where": lambda n, c, x: n.where(c > 2, c, x),
}
XS = {
    "f32": np.arange(4, dtype=np.float32),
    "f16": np.arange(4, dtype=np.float16),
    "i8": np.arange(4, dtype=np.int8),
    "i32": np.arange(4, dtype=np.int32),
    "bool": np.arange(4) % 2 == 0,
}


def loop_program(kind: str, step: str):
    """A (weaktrace, jax) pair of functions of (init, xs) with one loop or branch."""

    def build(n, lx):
        f = STEPS[step]

        def fn(init, xs):
            if kind == "while":

                def body(s):
                    i, c = s
                    return i + 1, f(n, c, xs[i])

                return lx.while_loop(lambda s: s[0] < 3, body, (0, init))[1]
            if kind == "fori":
                return lx.fori_loop(0, 3, lambda i, c: f(n, c, xs[i]), init)
            if kind == "scan":
                return lx.scan(lambda c, x: (f(n, c, x), c), init, xs)
            if kind == "scan pytree":
                return lx.scan(
                    lambda c, x: ({"a": f(n, c["a"], x), "b": c["b"]}, x),
                    {"a": init, "b": init},
                    xs,
                )
            if kind == "cond":
                return lx.cond(xs[0] > 0, lambda c: f(n, c, xs[1]), lambda c: c, init)
            if kind == "switch":
                return lx.switch(1, [lambda c: c, lambda c: f(n, c, xs[2]), lambda c: c * 2], init)
            if kind == "fori np bounds":  # static bounds of a numpy dtype: jax scans
                return lx.fori_loop(np.int16(1), np.int16(3), lambda i, c: f(n, c, xs[i]), init)
            if kind == "map":
                return lx.map(lambda x: f(n, x, x), xs)
            if kind == "map batched":
                return lx.map(lambda x: f(n, x, x), xs, batch_size=3)
            if kind == "associative_scan":
                return lx.associative_scan(lambda a, b: f(n, a, b), xs)
            if kind == "nested":
                return lx.fori_loop(
                    0, 2, lambda i, c: lx.scan(lambda d, x: (f(n, d, x), None), c, xs)[0], init
                )
            if kind == "while in cond":
                return lx.cond(
                    xs[1] > 0,
                    lambda c: lx.while_loop(
                        lambda s: s[0] < 2, lambda s: (s[0] + 1, f(n, s[1], xs[s[0]])), (0, c)
                    )[1],
                    lambda c: c,
                    init,
                )
            if kind == "switch of scans":
                return lx.switch(
                    2,
                    [
                        lambda c: (c, xs),
                        lambda c: lx.scan(lambda d, x: (f(n, d, x), d), c, xs),
                        lambda c: lx.scan(lambda d, x: (d, f(n, d, x)), c, xs),
                    ],
                    init,
                )
            raise AssertionError(kind)

        return fn

    return build(wnp, wlax), build(jnp, lax)


KINDS = [
    "while",
    "fori",
    "scan",
    "scan pytree",
    "cond",
    "switch",
    "fori np bounds",
    "map",
    "map batched",
    "associative_scan",
    "nested",
    "while in cond",
    "switch of scans",
]
CASES = [(k, s, i, x) for k in KINDS for s in STEPS for i in INITS for x in XS]


def sample(full: bool, n: int = 50) -> list[tuple[str, str, str, str]]:
    return CASES if full else random.Random(12).sample(CASES, n)


@pytest.mark.slow
@pytest.mark.parametrize("x64", [False, True])
def test_generated_loops_and_branches_match_jax(full, x64):
    for kind, step, init, xs in sample(full):
        ours, theirs = loop_program(kind, step)
        with jax.enable_x64(x64):
            check(ours, theirs, INITS[init](), XS[xs], context=f"{kind} {step} init={init} xs={xs}")


def test_a_weak_initial_carry_takes_the_body_dtype_and_is_explained():
    f = wt.trace(lambda xs: wlax.scan(lambda c, x: (c + x, c), 0.0, xs))
    t = f.trace(np.ones(3, np.float16))
    assert [str(a) for a in jax.tree_util.tree_leaves(t.out_avals)] == ["f16[]", "f16[3]"]
    carry = [p for p in t.explain() if p.op == "scan carry"]
    assert len(carry) == 1 and str(carry[0].result) == "f16[]"
    assert carry[0].source is not None and carry[0].source.file == __file__


def test_a_strong_carry_change_names_the_line():
    def step(c):
        return (c + 1).astype(np.int16)  # the line the error must name

    with pytest.raises(TypeError) as jax_err:
        jax.make_jaxpr(lambda: lax.while_loop(lambda c: c < 3, step, np.int32(0)))()
    with pytest.raises(wt.CarryTypeError) as ours:
        wt.trace(lambda: wlax.while_loop(lambda c: c < 3, step, np.int32(0))).trace()
    assert "i16" in str(ours.value) and "int16" in str(jax_err.value)
    assert f"{__file__}:" in str(ours.value) and "astype(np.int16)" in str(ours.value)


def test_branches_must_agree():
    with pytest.raises(TypeError):
        jax.make_jaxpr(lambda p: lax.cond(p, lambda: 1, lambda: np.int16(1)))(True)
    with pytest.raises(wt.CarryTypeError):
        wt.trace(lambda p: wlax.cond(p, lambda: 1, lambda: np.int16(1))).trace(True)


def test_a_long_fori_loop_traces_its_body_once():
    calls = []

    def body(i, c):
        calls.append(i)
        return c + i

    f = wt.trace(lambda: wlax.fori_loop(0, 10_000, body, 0))
    assert int(f()) == sum(range(10_000))
    assert len(calls) == 1


def test_grad_through_scan_matches_jax():
    def loss(n, lx):
        def fn(w, xs):
            c, ys = lx.scan(lambda c, x: (c * w + x, c * c), 0.0, xs)
            return c + n.sum(ys)

        return fn

    xs = np.linspace(0.1, 1.0, 5).astype(np.float32)
    ours = jax.grad(wt.trace(loss(wnp, wlax)))(np.float32(0.7), xs)
    theirs = jax.grad(loss(jnp, lax))(np.float32(0.7), xs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_loops_lower_to_lax_control_flow_not_unrolled():
    f = wt.trace(lambda n: wlax.fori_loop(0, n, lambda i, c: c + i, 0.0))
    text = f.trace(5).lower().as_text()
    assert "stablehlo.while" in text


def test_body_closures_are_captured_inputs():
    w = np.arange(3, dtype=np.float32)
    f = wt.trace(lambda x, xs: wlax.scan(lambda c, y: (c + x * y + w, c), x * 0, xs))
    x, xs = np.ones(3, np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)
    wt.typecheck(f.trace(x, xs).program)
    want = lax.scan(lambda c, y: (c + x * y + w, c), x * 0, xs)
    for got, ref in zip(
        jax.tree_util.tree_leaves(f(x, xs)), jax.tree_util.tree_leaves(want), strict=True
    ):
        np.testing.assert_allclose(got, ref)


def control_programs(n, lx):
    """Functions of (w, xs) with cond, while_loop, fori_loop (static and traced trip
    counts) and scan, written once for both namespaces."""
    return {
        "cond": lambda w, xs: lx.cond(w > 0.5, lambda v: v * w, lambda v: v - w, xs).sum(),
        "switch": lambda w, xs: lx.switch(2, [lambda v: v, lambda v: v * w, lambda v: v + w], xs)
        .sum(),
        "fori static": lambda w, xs: lx.fori_loop(0, 4, lambda i, c: c * w + xs[i], w * 0.0),
        "scan": lambda w, xs: lx.scan(lambda c, x: (n.tanh(c * w + x), c * x), w, xs)[1].sum(),
        "while": lambda w, xs: lx.while_loop(
            lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * w + 1.0), (0, xs)
        )[1].sum(),
        "fori traced": lambda w, xs: lx.fori_loop(
            0, xs.shape[0] - 1 + (w > 10).astype(np.int32), lambda i, c: c + w * xs[i], w * 0.0
        ),
        "map batched": lambda w, xs: lx.map(lambda x: x * w, xs, batch_size=3).sum(),
        "associative_scan": lambda w, xs: lx.associative_scan(lx.add, xs * w).sum(),
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(control_programs(jnp, lax)))
def test_vmap_and_grad_of_compiled_control_flow_match_jax(name):
    ours = wt.trace(control_programs(wnp, wlax)[name])
    theirs = jax.jit(control_programs(jnp, lax)[name])  # ours is compiled too
    xs = jnp.asarray(np.linspace(0.1, 0.9, 4).astype(np.float32))
    ws = np.linspace(0.2, 0.8, 3).astype(np.float32)
    v_ours = jax.vmap(ours, in_axes=(0, None))(ws, xs)
    v_theirs = jax.vmap(theirs, in_axes=(0, None))(ws, xs)
    assert (v_ours.dtype, v_ours.shape) == (v_theirs.dtype, v_theirs.shape)
    np.testing.assert_allclose(v_ours, v_theirs, rtol=1e-5)
    try:
        want = jax.grad(theirs)(np.float32(0.7), xs)
    except Exception as err:  # jax cannot reverse-differentiate a while loop
        with pytest.raises(type(err)):
            jax.grad(ours)(np.float32(0.7), xs)
        assert name in ("while", "fori traced")
        return
    np.testing.assert_allclose(jax.grad(ours)(np.float32(0.7), xs), want, rtol=1e-5)


def test_a_static_fori_loop_scans_so_grad_works():
    f = wt.trace(lambda w: wlax.fori_loop(0, 10_000, lambda i, c: c * w, np.float32(1)))
    assert "stablehlo.while" in f.trace(np.float32(1)).lower().as_text()
    g = jax.grad(f)(np.float32(1.0001))
    np.testing.assert_allclose(g, jax.grad(lambda w: lax.fori_loop(0, 10_000, lambda i, c: c * w,
                                                                     np.float32(1)))(np.float32(1.0001)),
                               rtol=1e-4)  # fmt: skip


def test_map_with_batch_size_traces_the_function_once_per_part():
    calls = []

    def f(x):
        calls.append(x.shape)
        return x * 2

    wt.trace(lambda xs: wlax.map(f, xs, batch_size=4)).trace(np.ones((10, 3), np.float32))
    assert calls == [(3,), (3,)]  # the batches' body and the remainder's
