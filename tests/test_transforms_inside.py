"""jax's transformations (jax.grad, value_and_grad, vmap, jacfwd, jacrev, hessian,
checkpoint, jvp) called inside a weaktrace trace, on functions written with
weaktrace.numpy: generated (transformation x function x operand dtype x x64) programs
must give jax.make_jaxpr's shapes, dtypes and weak flags and jax.jit's values, and raise
where jax raises. Outside a trace the wrapped transformations are jax's."""

from __future__ import annotations

import functools
import inspect
import itertools
import operator
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.numpy as wnp
import weaktrace.random as wrandom
from weaktrace.transforms import ORIGINAL

# Scalar-valued functions of one array, written once for both namespaces: (xnp, nn, x).
BODIES = {
    "sum sin*2": lambda n, nn, x: n.sum(n.sin(x) * 2),
    "mean relu": lambda n, nn, x: n.mean(nn.relu(x - 0.5)),
    "logsumexp": lambda n, nn, x: nn.logsumexp(x),
    "where": lambda n, nn, x: n.sum(n.where(x > 0.5, x * x, 1.0)),
    "softmax·x": lambda n, nn, x: n.vdot(nn.softmax(x), x),
    "int power": lambda n, nn, x: (x**3).sum() + 1,
    "norm": lambda n, nn, x: n.linalg.norm(x),
}
# The transformation applied, as a function of (body, x) -> output pytree.
TRANSFORMS = {
    "grad": lambda f, x: jax.grad(f)(x),
    "value_and_grad": lambda f, x: jax.value_and_grad(f)(x),
    "grad has_aux": lambda f, x: jax.grad(lambda a: (f(a), {"a": a.sum() * 2}), has_aux=True)(x),
    "vmap": lambda f, x: jax.vmap(f)(x.reshape(2, -1)),
    "vmap in_axes=1": lambda f, x: jax.vmap(f, in_axes=1)(x.reshape(2, -1)),
    "vmap of grad": lambda f, x: jax.vmap(jax.grad(f))(x.reshape(2, -1)),
    "jacfwd": lambda f, x: jax.jacfwd(jax.grad(f))(x),
    "jacrev": lambda f, x: jax.jacrev(lambda a: a * f(a))(x),
    "hessian": lambda f, x: jax.hessian(f)(x),
    "checkpoint": lambda f, x: jax.grad(jax.checkpoint(f))(x),
    "jvp": lambda f, x: jax.jvp(f, (x,), (x * 0 + 1,)),
}
DTYPES = ["float32", "float16", "bfloat16", "float64", "python"]
CASES = list(itertools.product(TRANSFORMS, BODIES, DTYPES, [False, True]))
CI_CASES = set(random.Random(11).sample(CASES, 60))


def _x(dtype: str) -> object:
    if dtype == "python":
        return 0.75
    return np.linspace(0.1, 1.3, 6).astype(jnp.dtype(dtype))


def _program(n: object, nn: object, transform: str, body: str, scalar: bool) -> object:
    f = functools.partial(BODIES[body], n, nn)

    def run(x: object) -> object:
        if scalar:
            x = x * n.ones(6)  # a Python scalar argument: broadcast inside (weak)
        return TRANSFORMS[transform](f, x)

    return run


def _pairs(got: object, ref: object) -> list:
    leaves = jax.tree_util.tree_leaves
    return list(zip(leaves(got), leaves(ref), strict=True))


def _sig(a: object) -> tuple:
    return (tuple(a.shape), np.dtype(a.dtype), bool(a.weak_type))


@pytest.mark.parametrize(("transform", "body", "dtype", "x64"), CASES)
@pytest.mark.ci_sample(2)
def test_transform_inside_trace_matches_jax(
    transform: str, body: str, dtype: str, x64: bool, full: bool
) -> None:
    if not full and (transform, body, dtype, x64) not in CI_CASES:
        pytest.skip("sampled in CI (--run-slow: all)")
    scalar = dtype == "python"
    with jax.enable_x64(x64):
        x = _x(dtype)
        theirs = _program(jnp, jax.nn, transform, body, scalar)
        ours = _program(wnp, wnn, transform, body, scalar)
        try:
            ref = jax.jit(theirs)(x)
        except Exception as err:  # jax refuses: so must we, with its error class
            with pytest.raises(type(err)):
                wt.trace(ours)(x)
            return
        shapes = jax.eval_shape(theirs, x)
        traced = wt.trace(ours)
        avals = jax.tree_util.tree_leaves(traced.trace(x).out_avals)
        assert [_sig(a) for a in avals] == [_sig(s) for s in jax.tree_util.tree_leaves(shapes)]
        got = traced(x)
        assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(ref)
        tol = 3e-2 if dtype in ("float16", "bfloat16") else 1e-5
        for a, b in _pairs(got, ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_allclose(
                np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol
            )


def _train_step(n: object, nn: object) -> object:
    def loss(p: dict, x: object, y: object) -> tuple:
        h = nn.gelu(x @ p["w"] + p["b"])
        out = n.mean((h.sum(-1) - y) ** 2)
        return out, {"h_mean": h.mean()}

    def step(p: dict, x: object, y: object, lr: float) -> tuple:
        (value, aux), g = jax.value_and_grad(loss, has_aux=True)(p, x, y)
        p = jax.tree_util.tree_map(lambda a, b: a - lr * b, p, g)
        per_example = jax.vmap(lambda xi, yi: loss(p, xi[None], yi[None])[0])(x, y)
        return p, value, aux, per_example

    return step


@pytest.mark.parametrize("x64", [False, True])
def test_training_step_with_value_and_grad(x64: bool) -> None:
    rng = np.random.default_rng(0)
    p = {"w": rng.standard_normal((3, 2)).astype("float32"), "b": np.zeros(2, "float32")}
    x, y = rng.standard_normal((4, 3)).astype("float32"), np.ones(4, "float32")
    with jax.enable_x64(x64):
        ref = jax.jit(_train_step(jnp, jax.nn))(p, x, y, 0.1)
        traced = wt.trace(_train_step(wnp, wnn))
        got = traced(p, x, y, 0.1)
        for a, b in _pairs(got, ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        text = str(traced.trace(p, x, y, 0.1).program)
    assert "jax_transform" in text and "value_and_grad(has_aux=True)" in text
    assert "transform=vmap()" in text and "tanh" in text  # the sub-programs print nested


def test_captured_tracers_keys_nesting_and_loops() -> None:
    x = np.arange(12.0, dtype="float32").reshape(4, 3)

    def prog(n: object, lax: object, rnd: object) -> object:
        def f(x: object) -> object:
            by_index = jax.vmap(lambda i: x[i] * 2)(n.arange(4))  # x is captured
            nested = jax.vmap(jax.vmap(lambda e: e * 2 + 1))(x)
            keys = rnd.split(rnd.key(0), 3)
            samples = jax.vmap(lambda k: rnd.normal(k, (2,)))(keys)
            scanned = lax.scan(lambda c, r: (c + jax.vmap(lambda e: e * c)(r).sum(), r), 0.0, x)
            through = jax.grad(lambda w: lax.scan(lambda c, r: (c * w + r.sum(), None), 1.0, x)[0])
            return by_index, nested, samples, scanned, through(0.5)

        return f

    ref = jax.jit(prog(jnp, jax.lax, jax.random))(x)
    got = wt.trace(prog(wnp, wt.lax, wrandom))(x)
    for a, b in _pairs(got, ref):
        assert _sig(a) == _sig(b)
        np.testing.assert_allclose(a, b, rtol=1e-6)


BAD = {  # programs jax refuses, written once for both namespaces
    "grad of a non-scalar": lambda n, x: jax.grad(lambda a: a * 2)(x),
    "grad of an integer": lambda n, x: jax.grad(lambda a: a.sum())(n.arange(3)),
    "vmap of unequal sizes": lambda n, x: jax.vmap(lambda a, b: a + b)(n.ones(3), n.ones(4)),
    "vmap of a scalar": lambda n, x: jax.vmap(lambda a: a)(x.sum()),
    "jvp of mismatched tangents": lambda n, x: jax.jvp(n.sin, (x,), (x.astype("float16"),)),
}


@pytest.mark.parametrize("name", BAD)
def test_where_jax_raises_we_raise_its_error(name: str) -> None:
    x = np.ones(3, "float32")
    with pytest.raises(Exception) as theirs:
        jax.jit(functools.partial(BAD[name], jnp))(x)
    with pytest.raises(type(theirs.value)) as ours:
        wt.trace(functools.partial(BAD[name], wnp))(x)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


def test_jax_numpy_inside_a_transformation_is_named() -> None:
    with pytest.raises(wt.ForeignFunctionError, match="jax or numpy function"):
        wt.trace(lambda x: jax.grad(lambda a: jnp.sum(a))(x))(np.ones(3, "float32"))


def test_policies_reach_inside_the_sub_program() -> None:
    x = np.ones(3, "float32")

    def f(x: object) -> object:
        return jax.vmap(lambda a: a + np.float64(1))(x)

    assert wt.trace(f, policy="numpy").trace(x).out_avals.dtype == np.float64
    assert wt.trace(f).trace(x).out_avals.dtype == np.float32  # jax: the numpy scalar is weak


def test_wrappers_are_jax_outside_a_trace() -> None:
    for name, original in ORIGINAL.items():
        wrapped = operator.attrgetter(name)(jax)  # "grad", "debug.print", ...
        assert wrapped is not original and wrapped.__wrapped__ is original
        assert inspect.signature(wrapped) == inspect.signature(original)
    x = jnp.linspace(0.0, 1.0, 5)
    f = lambda a: jnp.sum(jnp.sin(a) ** 2)  # noqa: E731
    np.testing.assert_array_equal(jax.grad(f)(x), ORIGINAL["grad"](f)(x))
    np.testing.assert_array_equal(jax.vmap(jnp.sin)(x), ORIGINAL["vmap"](jnp.sin)(x))
    assert jax.grad(f).__name__ == ORIGINAL["grad"](f).__name__
    with pytest.raises(TypeError) as ours:  # jax validates options where it does
        jax.vmap(jnp.sin, in_axes=1.5)
    with pytest.raises(TypeError) as theirs:
        ORIGINAL["vmap"](jnp.sin, in_axes=1.5)
    assert str(ours.value) == str(theirs.value)
    # eagerly, weaktrace.numpy runs on jax's own tracers under jax's transformations
    np.testing.assert_allclose(
        jax.grad(lambda a: wnp.sum(wnp.sin(a) ** 2))(x), jax.grad(f)(x), rtol=1e-6
    )


def _jitted_helpers(n: object) -> object:
    @jax.jit
    def layer(x: object, w: object) -> object:
        return n.tanh(x @ w)

    @functools.partial(jax.jit, static_argnums=(1,))
    def power(x: object, k: int) -> object:
        return x**k

    @functools.partial(jax.jit, static_argnames=("mode",))
    def norm(x: object, mode: str = "l2") -> object:
        return n.sqrt((x * x).sum()) if mode == "l2" else n.abs(x).sum()

    @jax.jit
    def run(x: object, w: object, scale: float) -> object:
        h = layer(x, w)
        return power(h, 3), norm(h, mode="l1"), norm(h) * scale, jax.grad(norm)(h)

    return run


@pytest.mark.parametrize("x64", [False, True])
def test_nested_jax_jit_is_inlined(x64: bool) -> None:
    rng = np.random.default_rng(1)
    x, w = rng.random((4, 3), "float32"), rng.random((3, 2), "float32")
    with jax.enable_x64(x64):
        ref = _jitted_helpers(jnp)(x, w, 0.5)
        shapes = jax.eval_shape(_jitted_helpers(jnp), x, w, 0.5)
        traced = wt.trace(_jitted_helpers(wnp))  # the decorated function itself, too
        avals = jax.tree_util.tree_leaves(traced.trace(x, w, 0.5).out_avals)
        assert [_sig(a) for a in avals] == [_sig(s) for s in jax.tree_util.tree_leaves(shapes)]
        for a, b in _pairs(traced(x, w, 0.5), ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_allclose(a, b, rtol=1e-6)
        text = str(traced.trace(x, w, 0.5).program)
    assert "tanh" in text and "jax_transform" in text  # inlined, and the grad nested


def test_nested_jit_arguments_are_not_concrete_and_jit_still_caches() -> None:
    @jax.jit
    def branchy(x: object, n: object) -> object:
        return x * 2 if n > 0 else x

    x = np.ones(2, "float32")
    with pytest.raises(Exception) as theirs:
        jax.jit(lambda a: branchy(a, 2))(x)
    with pytest.raises(type(theirs.value)):
        wt.trace(lambda a: branchy(a, 2))(x)
    double = jax.jit(lambda a: a * 2)
    before = double(x)
    cached = double._cache_size()
    np.testing.assert_array_equal(wt.trace(lambda a: double(a) + 1)(x), before + 1)
    # the inlined call compiled and cached nothing (jax's jit cache is a process-wide
    # LRU: in a long test worker it may also drop an entry meanwhile, never add one)
    assert double._cache_size() <= cached
    np.testing.assert_array_equal(double(x), before)  # jax's own path is unchanged


def _custom_rules(n: object) -> object:
    @functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
    def soft_clip(x: object, limit: float) -> object:
        return n.clip(x, -limit, limit) if limit > 0 else x  # Python control flow on limit

    @soft_clip.defjvp
    def _soft_clip_jvp(limit: float, primals: tuple, tangents: tuple) -> tuple:
        (x,), (t,) = primals, tangents
        return soft_clip(x, limit), t * n.where(n.abs(x) < limit, 1.0, 0.1)

    @jax.custom_jvp
    def safe_log(x: object) -> object:
        return n.log(n.maximum(x, 1e-6))

    safe_log.defjvps(lambda t, ans, x: t / n.maximum(x, 1e-6))

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def scale_grad(s: float, x: object) -> object:
        return x

    scale_grad.defvjp(lambda s, x: (x, n.sign(x)), lambda s, res, g: (g * s * res,))

    def run(x: object, y: object) -> tuple:
        return (
            soft_clip(x, 0.5),
            jax.grad(lambda v: soft_clip(v, 1.0).sum())(x),
            jax.grad(lambda v: safe_log(v * y).sum())(x),
            jax.grad(lambda v: (scale_grad(3.0, v) ** 2).sum())(x),
            jax.hessian(lambda v: safe_log(v).sum())(x),
        )

    return run


@pytest.mark.parametrize("x64", [False, True])
def test_custom_jvp_and_vjp_rules_are_the_users(x64: bool) -> None:
    x = np.array([0.5, 2.0, -3.0, 0.0], "float32")
    with jax.enable_x64(x64):
        ref = jax.jit(_custom_rules(jnp))(x, 2.0)
        traced = wt.trace(_custom_rules(wnp))
        avals = jax.tree_util.tree_leaves(traced.trace(x, 2.0).out_avals)
        shapes = jax.eval_shape(_custom_rules(jnp), x, 2.0)
        assert [_sig(a) for a in avals] == [_sig(s) for s in jax.tree_util.tree_leaves(shapes)]
        for a, b in _pairs(traced(x, 2.0), ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_allclose(a, b, rtol=1e-6)
        assert "custom_jvp(fun='safe_log')" in str(traced.trace(x, 2.0).program)


def _collectives(n: object, lax: object) -> object:
    def run(x: object, xi: object) -> tuple:
        def standardize(a: object) -> object:
            centered = a - lax.pmean(a, "b")
            return centered / n.sqrt(lax.pmean(centered**2, "b") + 1e-5)

        def stats(a: object) -> dict:
            return {"s": lax.psum(a, "i"), "hi": lax.pmax(a, "i"), "lo": lax.pmin(a, "i")}

        return (
            jax.vmap(standardize, axis_name="b")(x),  # batch norm across the vmapped axis
            jax.vmap(stats, axis_name="i")(x),
            jax.vmap(lambda a: lax.axis_index("i") * 2 + lax.axis_size("i"), axis_name="i")(x),
            jax.vmap(
                lambda a: (lax.psum(a, "k"), lax.pmean(a, "k"), lax.psum(a > 1, "k")), axis_name="k"
            )(xi),
            jax.vmap(lambda a: lax.psum(2.0, "c") + a, axis_name="c")(x[:, 0]),  # a constant
        )

    return run


@pytest.mark.parametrize("x64", [False, True])
def test_collectives_over_a_vmapped_axis(x64: bool) -> None:
    x = np.random.default_rng(2).random((4, 3), "float32")
    xi = np.arange(8, dtype="int8").reshape(4, 2)
    with jax.enable_x64(x64):
        ref = jax.jit(_collectives(jnp, jax.lax))(x, xi)
        traced = wt.trace(_collectives(wnp, wt.lax))
        avals = jax.tree_util.tree_leaves(traced.trace(x, xi).out_avals)
        assert [_sig(a) for a in avals] == [_sig(r) for r in jax.tree_util.tree_leaves(ref)]
        for a, b in _pairs(traced(x, xi), ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_allclose(a, b, rtol=1e-6)
        for a, b in _pairs(_collectives(wnp, wt.lax)(x, xi), ref):  # eagerly: jax's vmap
            np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(NameError) as theirs:
        jax.jit(lambda a: jax.lax.psum(a, "z"))(x)
    with pytest.raises(NameError) as ours:
        wt.trace(lambda a: wt.lax.psum(a, "z"))(x)
    assert str(ours.value) == str(theirs.value)


# The data-moving collectives of b: (4, 3), under a vmap axis "i" of size 4, and the
# same inside a nested vmap over b's rows (collectives over the outer axis, and both).
_MOVING = {
    "all_gather": lambda lax, b: lax.all_gather(b, "i"),
    "all_gather_tiled": lambda lax, b: lax.all_gather(b, "i", axis=0, tiled=True),
    "all_gather_axis1": lambda lax, b: lax.all_gather(b, "i", axis=1),
    "ppermute": lambda lax, b: lax.ppermute(b, "i", perm=[(0, 1), (1, 2), (2, 3), (3, 0)]),
    "pshuffle": lambda lax, b: lax.pshuffle(b, "i", perm=[1, 2, 3, 0]),
    "psum_scatter": lambda lax, b: lax.psum_scatter(b[:, 0], "i"),
    "psum_scatter_tiled": lambda lax, b: lax.psum_scatter(b.reshape(-1)[:8], "i", tiled=True),
    "all_to_all": lambda lax, b: lax.all_to_all(b[:, :2], "i", 0, 0),
    "pswapaxes": lambda lax, b: lax.pswapaxes(b[:, 0], "i", 0),
    "all_gather_weak_const": lambda lax, b: lax.all_gather(2.0, "i") + b[0, 0],
    "nested_outer_axis": lambda lax, b: jax.vmap(lambda r: lax.all_gather(r, "i"), axis_name="j")(
        b
    ),
    "nested_both_axes": lambda lax, b: jax.vmap(lambda r: lax.psum(r, ("i", "j")), axis_name="j")(
        b
    ),
}


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", sorted(_MOVING))
@pytest.mark.parametrize("dtype", ["float32", "int8", "bfloat16"])
def test_data_moving_collectives_over_a_vmapped_axis(
    name: str, dtype: str, x64: bool, full: bool
) -> None:
    if not full and (dtype, x64) not in {("float32", False), ("int8", True)}:
        pytest.skip("CI runs two dtype/x64 pairs per collective (--run-slow: all)")
    call = _MOVING[name]
    x = (np.arange(4 * 4 * 3) % 7).reshape(4, 4, 3).astype(dtype)

    def program(lax: object) -> object:
        return lambda v: jax.vmap(lambda b: call(lax, b), axis_name="i")(v)

    with jax.enable_x64(x64):
        ref = jax.jit(program(jax.lax))(x)
        traced = wt.trace(program(wt.lax))
        avals = jax.tree_util.tree_leaves(traced.trace(x).out_avals)
        assert [_sig(a) for a in avals] == [_sig(r) for r in jax.tree_util.tree_leaves(ref)]
        for a, b in _pairs(traced(x), ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_array_equal(np.asarray(a, "float64"), np.asarray(b, "float64"))
        for a, b in _pairs(program(wt.lax)(x), ref):  # eagerly: jax's vmap
            np.testing.assert_array_equal(np.asarray(a, "float64"), np.asarray(b, "float64"))


def test_data_moving_collective_errors_are_jaxs() -> None:
    x = np.ones((4, 3), "float32")
    for call in (
        *(  # unbound: jax words it per collective
            lambda lax, a, f=f: f(lax)(a)
            for f in (
                lambda lax: functools.partial(lax.all_gather, axis_name="z"),
                lambda lax: functools.partial(lax.pmax, axis_name="z"),
                lambda lax: functools.partial(lax.pmean, axis_name="z"),
                lambda lax: functools.partial(lax.pshuffle, axis_name="z", perm=[0]),
                lambda lax: functools.partial(lax.psum_scatter, axis_name="z"),
                lambda lax: lambda a: lax.axis_size("z") + a,
            )
        ),
        lambda lax, a: lax.ppermute(a, "i", perm=[(0, 1), (0, 2)]),  # a source twice
        lambda lax, a: lax.all_to_all(a, "i", 0, 0),  # 3 rows do not split over 4
    ):
        with pytest.raises(Exception) as theirs:
            jax.jit(jax.vmap(lambda a, c=call: c(jax.lax, a), axis_name="i"))(x)
        with pytest.raises(type(theirs.value)) as ours:
            wt.trace(jax.vmap(lambda a, c=call: c(wt.lax, a), axis_name="i"))(x)
        assert str(ours.value) == str(theirs.value)


def test_debug_print_and_callback_run_when_the_program_runs(capfd: pytest.CaptureFixture) -> None:
    seen: list = []

    def f(x: object) -> object:
        y = wnp.sin(x) * 2
        jax.debug.print("y={y} total={t}", y=y, t=y.sum())
        jax.debug.callback(lambda v: seen.append((v.dtype, v.shape)), x)
        jax.debug.print("constant {}", 3)
        return y + 1

    traced = wt.trace(f)
    x = np.ones(3, "float32")
    program = traced.trace(x).program
    assert str(program).count("= debug[call=jax.debug.") == 3
    capfd.readouterr()
    seen.clear()
    for _ in range(2):  # printed at every call, as jax's are, not when traced
        np.testing.assert_allclose(traced(x), jax.jit(lambda a: jnp.sin(a) * 2 + 1)(x))
    jax.effects_barrier()
    out = capfd.readouterr().out
    want = jax.jit(lambda a: jnp.sin(a) * 2)(x)
    assert out.count(f"y={want} total={want.sum()}") == 2 and out.count("constant 3") == 2
    assert seen == [(np.dtype("float32"), (3,))] * 2


def test_a_transformed_function_called_by_weaktrace_eagerly() -> None:
    """jax.lax.associative_scan's own test: fn is a jax.vmap, which weaktrace's eager
    associative_scan calls with its eager values."""
    ms = np.repeat(np.eye(2, dtype="float32")[None], 3, axis=0)
    vs = np.ones((3, 2), "float32")

    def fn(a: tuple, b: tuple) -> tuple:
        (m1, v1), (m2, v2) = a, b
        return m1 + m2, m1 @ v2 + m2 @ v1

    ours = wt.lax.associative_scan(jax.vmap(fn), (ms, vs))
    theirs = jax.lax.associative_scan(jax.vmap(fn), (ms, vs))
    for a, b in _pairs(ours, theirs):
        np.testing.assert_allclose(a, b)


# Pytrees ravel_pytree flattens inside a trace: (name, make(x)), x an f32[4] argument.
_RAVEL_TREES = {
    "one_dtype": lambda x: {"w": x.reshape(2, 2), "b": x[:2]},
    "weak_scalar_leaf": lambda x: {"b": 2.0, "c": x},
    "all_weak": lambda x: {"b": 2.0, "c": 3.0, "x": x},
    "mixed_dtypes": lambda x: {
        "a": x.astype("bfloat16"),
        "b": 2.0,
        "c": np.arange(3, dtype="int32"),
    },
    "ints_and_bools": lambda x: [x.astype("int8"), x > 1, (x[0], 3)],
    "int_leaf_only": lambda x: (x.astype("int32"),),
}


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("name", sorted(_RAVEL_TREES))
def test_ravel_pytree_inside_a_trace(name: str, x64: bool) -> None:
    """jax.flatten_util.ravel_pytree on traced values (an optimizer flattening its
    parameters in the step) raised ForeignFunctionError; now jax's dtypes and weak flags."""
    from jax.flatten_util import ravel_pytree

    make = _RAVEL_TREES[name]

    def run(x: object) -> tuple:
        flat, unravel = ravel_pytree(make(x))
        return flat, unravel(flat * 2)

    x = np.arange(4, dtype="float32")
    with jax.enable_x64(x64):
        ref = jax.jit(run)(x)
        traced = wt.trace(run)
        avals = jax.tree_util.tree_leaves(traced.trace(x).out_avals)
        assert [_sig(a) for a in avals] == [_sig(r) for r in jax.tree_util.tree_leaves(ref)]
        for a, b in _pairs(traced(x), ref):
            assert _sig(a) == _sig(b)
            np.testing.assert_array_equal(np.asarray(a, "float64"), np.asarray(b, "float64"))


def test_ravel_pytree_unravel_refuses_another_dtype_as_jax() -> None:
    from jax.flatten_util import ravel_pytree

    def run(x: object) -> object:
        flat, unravel = ravel_pytree({"a": x, "i": x.astype("int32")})
        return unravel(flat.astype("float16"))

    x = np.arange(4, dtype="float32")
    with pytest.raises(TypeError) as theirs:
        jax.jit(run)(x)
    with pytest.raises(TypeError) as ours:
        wt.trace(run)(x)
    assert str(ours.value) == str(theirs.value)
