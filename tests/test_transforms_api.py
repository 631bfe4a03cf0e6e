"""jax's own API called on traced values inside a weaktrace trace (beyond the
transformations of tests/test_transforms_inside.py): device placement, host callbacks,
linearize / linear_transpose, odeint, checkpoint names, typeof, pytree utilities.

Generated programs (API call x operand dtype x x64), written once for both namespaces,
must give jax.jit's shapes, dtypes, weak flags and values, and raise where jax raises,
with its error class. jax's public callables are enumerated at test time: each is
tested here, tested elsewhere, takes no traced value, or is left with the reason (and
raises ForeignFunctionError, checked), so a name jax adds later fails until decided."""

from __future__ import annotations

import functools
import inspect
import itertools
import random
from collections.abc import Callable
from typing import Any

import jax
import jax.ad_checkpoint
import jax.experimental
import jax.experimental.checkify
import jax.experimental.ode
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.lax as wlax
import weaktrace.numpy as wnp
from weaktrace.transforms import ORIGINAL


def _host_sin(a: np.ndarray) -> np.ndarray:
    return np.sin(np.asarray(a)).astype(a.dtype)


def _host_pair(a: np.ndarray, *, scale: float) -> tuple:
    a = np.asarray(a)
    return (a * scale).astype(a.dtype), np.asarray(a.shape[-1], np.int32)


def _pure(n: object, x: object, method: str | None = None) -> object:
    return jax.pure_callback(
        _host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method=method
    )


def _device_put(n: object, x: object) -> object:
    return jax.device_put(x * 2) + 1


def _ode(n: object, x: object) -> object:
    ts = n.linspace(0.0, 1.0, 3)
    return jax.experimental.ode.odeint(lambda y, t, k: -k * y + t, x, ts, 0.5, rtol=1e-3, atol=1e-3)


def _named_policy(n: object, x: object) -> object:
    policy = jax.checkpoint_policies.save_only_these_names("h")

    def f(a: object) -> object:
        h = jax.ad_checkpoint.checkpoint_name(n.sin(a) * 2, "h")
        return n.sum(n.cos(h) * a)

    return jax.grad(jax.checkpoint(f, policy=policy))(x)


def _scoped(n: object, x: object) -> object:
    with jax.named_scope("block"), jax.default_device(jax.devices()[0]):
        y = n.tanh(x)
    with jax.ensure_compile_time_eval():
        c = n.arange(3.0).sum()
    return y * c


def _custom_gradient(n: object, outer: object = 1.0) -> Callable[..., object]:
    @jax.custom_gradient
    def f(a: object, s: object) -> object:
        e = n.exp(a) * outer  # a closed-over value of the enclosing trace
        return e * s, lambda g: (g * e * 3.0, n.sum(g * a))

    return f


def _custom_gradient_grads(n: object, x: object) -> object:
    f = _custom_gradient(n, x.sum())
    loss = lambda a, s: n.sum(f(a, s) ** 2)  # noqa: E731
    return f(x, 2.0), jax.grad(loss, argnums=(0, 1))(x, x[0]), jax.value_and_grad(loss)(x, 1.5)


def _custom_gradient_pytree_int(n: object, x: object) -> object:
    @jax.custom_gradient
    def f(a: object, k: object) -> object:
        out = (a * k, {"s": a.sum(), "i": (a > 0.5).astype("int32")})
        return out, lambda ct: (ct[0] * k + ct[1]["s"], None)

    loss = lambda b: n.sum(f(b, 3)[0]) + f(b, 2)[1]["s"] ** 2  # noqa: E731
    return f(x, 3), jax.grad(loss)(x)


def _custom_gradient_bad_rule(n: object, x: object) -> object:
    f = jax.custom_gradient(lambda a: (n.sin(a), lambda g: (g[:2],)))
    return jax.grad(lambda a: n.sum(f(a)))(x)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _doubled_vjp(f: Callable[..., object], x: object, *consts: object) -> object:
    return f(x, *consts)


def _doubled_fwd(f: Callable[..., object], x: object, *consts: object) -> object:
    return f(x, *consts), (x, consts)


def _doubled_bwd(f: Callable[..., object], res: tuple, g: object) -> tuple:
    x, consts = res
    return tuple(t * 2 for t in jax.vjp(f, x, *consts)[1](g))


_doubled_vjp.defvjp(_doubled_fwd, _doubled_bwd)


def _closure_convert(n: object, x: object) -> object:
    w, c = n.cos(x) * 3, n.ones(6) * 0.5
    conv, consts = jax.closure_convert(lambda a: n.sin(a * w) * c + np.float32(2), x)
    loss = lambda a, w2: n.sum(_doubled_vjp(conv, a, *consts) * w2)  # noqa: E731
    return len(consts), conv(x, *consts), jax.grad(loss, argnums=(0, 1))(x, w)


def _typeof(n: object, x: object) -> object:
    t = jax.typeof(x)
    return n.zeros(t.shape, t.dtype) + (2 if t.weak_type else 3), x * len(t.shape)


# name -> program(n, x): x is a float array of 6 elements (a Python float broadcast
# inside, weak, for the "python" dtype). The API name each exercises is in USES.
PROGRAMS: dict[str, Callable[[object, object], object]] = {
    "device_put": _device_put,
    "device_put device": lambda n, x: jax.device_put(x, jax.devices()[0]) * x,
    "device_put pytree": lambda n, x: jax.device_put({"a": x, "b": x.sum(), "c": 2.0}),
    "device_put in grad": lambda n, x: jax.grad(lambda a: n.sum(jax.device_put(a) ** 2))(x),
    "device_put in vmap": lambda n, x: jax.vmap(lambda r: jax.device_put(r) * 2)(x.reshape(2, 3)),
    "device_get": lambda n, x: jax.device_get({"a": x * 2, "b": [x.sum()]}),
    "block_until_ready": lambda n, x: jax.block_until_ready((x + 1, x.sum())),
    "pure_callback": lambda n, x: _pure(n, x) + x,
    "pure_callback kwargs pair": lambda n, x: jax.pure_callback(
        _host_pair,
        (jax.ShapeDtypeStruct(x.shape, x.dtype), jax.ShapeDtypeStruct((), "int32")),
        x,
        scale=3.0,
    ),
    "pure_callback vmap sequential": lambda n, x: jax.vmap(lambda r: _pure(n, r, "sequential"))(
        x.reshape(2, 3)
    ),
    "pure_callback vmap expand_dims": lambda n, x: jax.vmap(lambda r: _pure(n, r, "expand_dims"))(
        x.reshape(3, 2)
    ),
    "pure_callback vmap none": lambda n, x: jax.vmap(lambda r: _pure(n, r))(x.reshape(2, 3)),
    "pure_callback under grad": lambda n, x: jax.grad(lambda a: n.sum(_pure(n, a)))(x),
    "pure_callback bad shape": lambda n, x: jax.pure_callback(
        _host_sin, jax.ShapeDtypeStruct((2,), x.dtype), x
    ),
    "io_callback ordered": lambda n, x: jax.experimental.io_callback(
        _host_sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x * 2, ordered=True
    ),
    "linearize": lambda n, x: (lambda o: (o[0], o[1](n.ones_like(x)), o[1](x)))(
        jax.linearize(lambda a: n.sin(a) * a, x)
    ),
    "linearize has_aux two args": lambda n, x: (lambda o: (o[0], o[1](x, 2.0), o[2]))(
        jax.linearize(lambda a, s: (n.exp(a) * s, {"m": a.mean()}), x, 1.5, has_aux=True)
    ),
    "linear_transpose": lambda n, x: jax.linear_transpose(lambda a: a * 2.0 + a[::-1], x)(x),
    "linear_transpose closure": lambda n, x: jax.linear_transpose(
        lambda a: (a * x, a.sum()), n.ones_like(x)
    )((x, x.sum())),
    "linear_transpose bad ct": lambda n, x: jax.linear_transpose(lambda a: a * 2.0, x)(
        x.astype("int32")
    ),
    "odeint": _ode,
    "odeint grad": lambda n, x: jax.grad(lambda y0: n.sum(_ode(n, y0)[-1]))(x),
    "checkpoint_name policy": _named_policy,
    "checkpoint_name dots_saveable": lambda n, x: jax.grad(
        jax.checkpoint(
            lambda a: n.sum(n.tanh(n.outer(a, a) @ a)), policy=jax.checkpoint_policies.dots_saveable
        )
    )(x),
    "checkpoint_name remat static_argnums": lambda n, x: jax.grad(
        jax.remat(lambda a, k: n.sum(n.sin(a) ** k), static_argnums=(1,))
    )(x, 3),
    "typeof": _typeof,
    "custom_gradient": _custom_gradient_grads,
    "closure_convert custom_vjp": _closure_convert,
    "closure_convert pytree": lambda n, x: (
        lambda cc: (len(cc[1]), cc[0]({"a": x[:2], "b": [x]}, *cc[1]))
    )(
        jax.closure_convert(
            lambda d: n.sum(d["a"] * x[3]) + d["b"][0] * x[1:].sum(), {"a": x[2:4], "b": [x * 2]}
        )
    ),
    "closure_convert other consts": lambda n, x: (
        lambda cc: cc[0](x[::-1], *(c * 2 for c in cc[1]))
    )(jax.closure_convert(lambda a: a * x.max() + x.min(), x)),
    "closure_convert in vmap": lambda n, x: jax.vmap(
        lambda r: (lambda cc: cc[0](r, *cc[1]))(jax.closure_convert(lambda a: a * r.sum(), r))
    )(x.reshape(2, 3)),
    "closure_convert wrong tree": lambda n, x: jax.closure_convert(lambda a: a * x, x)[0]((x,), x),
    "custom_gradient no grad": lambda n, x: _custom_gradient(n)(x, x * 2),
    "custom_gradient in vmap jacrev": lambda n, x: jax.vmap(
        jax.jacrev(lambda r: _custom_gradient(n)(r, 0.5))
    )(x.reshape(2, 3)),
    "custom_gradient grad of grad": lambda n, x: jax.grad(
        lambda a: n.sum(jax.grad(lambda b: n.sum(_custom_gradient(n)(b, b[1])))(a) * a)
    )(x),
    "custom_gradient bad rule": _custom_gradient_bad_rule,
    "custom_gradient pytree int": _custom_gradient_pytree_int,
    "pmap": lambda n, x: jax.pmap(lambda r: n.sin(r) * 2)(x[None]),
    "pmap psum axis_index": lambda n, x: jax.pmap(
        lambda r: (
            wlax.psum(r, "d") + wlax.axis_index("d")
            if n is wnp
            else jax.lax.psum(r, "d") + jax.lax.axis_index("d")
        ),
        axis_name="d",
    )(x.reshape(1, 2, 3)),
    "pmap in_axes None": lambda n, x: jax.pmap(lambda r, s: r * s, in_axes=(0, None))(x[None], 2.0),
    "pmap two devices": lambda n, x: jax.pmap(lambda r: r + 1)(x.reshape(2, 3)),
    "named_scope default_device ensure_compile_time_eval": _scoped,
    "named_call": lambda n, x: jax.named_call(lambda a: n.sin(a) * 2, name="layer")(x),
    "tree utilities": lambda n, x: jax.tree_util.tree_map(
        lambda a, b: a * b,
        jax.tree.unflatten(jax.tree.structure({"p": 0, "q": 0}), [x, x.sum()]),
        {"p": 2.0, "q": jax.tree_util.tree_reduce(lambda a, b: a + b, [x.max(), x.min()])},
    ),
}
# The API each program calls (beyond jax.jit, grad, vmap).
USES = {
    "device_put": ["device_put"],
    "device_get": ["device_get"],
    "block_until_ready": ["block_until_ready"],
    "pure_callback": ["pure_callback"],
    "io_callback": ["experimental.io_callback"],
    "linearize": ["linearize"],
    "linear_transpose": ["linear_transpose"],
    "odeint": ["experimental.ode.odeint"],
    "checkpoint_name": ["ad_checkpoint.checkpoint_name", "checkpoint", "remat"],
    "typeof": ["typeof"],
    "custom_gradient": ["custom_gradient"],
    "closure_convert": ["closure_convert"],
    "pmap": ["pmap"],
    "named_scope": ["named_scope", "default_device", "ensure_compile_time_eval"],
    "named_call": ["named_call"],
    "tree utilities": ["tree_util", "tree"],
}
DTYPES = ["float32", "float16", "bfloat16", "float64", "python"]
CASES = list(itertools.product(PROGRAMS, DTYPES, [False, True]))
_SLOW = {"odeint grad"}  # 5-15 s a case: CI runs one
CI_CASES = {c for c in CASES if c[1:] == ("float32", False)} | set(
    random.Random(10).sample([c for c in CASES if c[0] not in _SLOW], 15)
)


def _x(dtype: str) -> object:
    if dtype == "python":
        return 0.75
    return np.linspace(0.1, 1.3, 6).astype(jnp.dtype(dtype))


def _program(n: object, name: str, scalar: bool) -> object:
    def run(x: object) -> object:
        if scalar:
            x = x * n.ones(6)  # a Python scalar argument: broadcast inside (weak)
        return PROGRAMS[name](n, x)

    return run


def _sig(a: object) -> tuple:
    return (tuple(np.shape(a)), np.dtype(a.dtype), bool(getattr(a, "weak_type", False)))


def _check(
    ours: Callable[..., object], theirs: Callable[..., object], *args: object, tol: float = 1e-5
) -> None:
    """wt.trace(ours)(*args) against jax.jit(theirs)(*args): types, values, errors."""
    try:
        ref = jax.jit(theirs)(*args)
    except Exception as err:  # jax refuses: so must we, with its error class
        with pytest.raises(type(err)) as got:
            wt.trace(ours)(*args)
        assert not isinstance(got.value, wt.ForeignFunctionError)
        assert str(got.value).split("\n")[0] == str(err).split("\n")[0]
        return
    shapes = jax.eval_shape(theirs, *args)
    traced = wt.trace(ours)
    avals = jax.tree_util.tree_leaves(traced.trace(*args).out_avals)
    assert [_sig(a) for a in avals] == [_sig(s) for s in jax.tree_util.tree_leaves(shapes)]
    got = traced(*args)
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(ref)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(ref), strict=True):
        assert _sig(a) == _sig(b)
        np.testing.assert_allclose(
            np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol
        )


@pytest.mark.slow
@pytest.mark.parametrize(("name", "dtype", "x64"), CASES)
def test_jax_api_inside_trace_matches_jax_jit(name: str, dtype: str, x64: bool, full: bool) -> None:
    if not full and (name, dtype, x64) not in CI_CASES:
        pytest.skip("sampled in CI (--run-slow: all)")
    scalar = dtype == "python"
    tol = 3e-2 if dtype in ("float16", "bfloat16") else 1e-5
    with jax.enable_x64(x64):
        _check(_program(wnp, name, scalar), _program(jnp, name, scalar), _x(dtype), tol=tol)


def test_pure_callback_runs_at_every_call_not_when_traced() -> None:
    seen: list = []

    def host(a: np.ndarray) -> np.ndarray:
        seen.append(a.shape)
        return a * 2

    f = wt.trace(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct((3,), "float32"), x) + 1)
    x = np.arange(3, dtype="float32")
    text = str(f.trace(x).program)
    assert "pure_callback(callback='host'" in text and not seen
    for _ in range(2):
        np.testing.assert_array_equal(f(x), x * 2 + 1)
    assert seen == [(3,), (3,)]


def test_debug_log_logs_at_every_call(caplog: pytest.LogCaptureFixture) -> None:
    """jax.debug.log (print's logging form) of a traced value raised ForeignFunctionError."""

    def program(n: object) -> Callable[[object], object]:
        def f(x: object) -> object:
            jax.debug.log("total {t} first {f}", t=n.sum(x), f=x[0])
            return x * 2

        return f

    x = np.arange(3, dtype="float32")
    with caplog.at_level("INFO"):
        jax.jit(program(jnp))(x)
        jax.effects_barrier()
        want = [r.getMessage() for r in caplog.records]
        caplog.clear()
        traced = wt.trace(program(wnp))
        for _ in range(2):
            traced(x)
        jax.effects_barrier()
        got = [r.getMessage() for r in caplog.records]
    assert want == ["total 3.0 first 0.0"] and got == want * 2
    assert "debug[call=jax.debug.log(" in str(traced.trace(x).program)


# jax's public callables that take no traced value (configuration, devices, processes,
# caches, context managers): nothing to mirror inside a trace.
NO_TRACED_VALUE = {
    "allow_f16_reductions",
    "array_garbage_collection_guard",
    "auto_pcast",
    "check_tracer_leaks",
    "checking_leaks",
    "clear_caches",
    "debug_infs",
    "debug_key_reuse",
    "debug_nans",
    "default_backend",
    "default_matmul_precision",
    "default_prng_impl",
    "device_count",
    "devices",
    "disable_jit",
    "enable_checks",
    "enable_custom_prng",
    "enable_x64",
    "explain_cache_misses",
    "host_count",
    "host_id",
    "host_ids",
    "jax2tf_associative_scan_reductions",
    "legacy_prng_key",
    "live_arrays",
    "local_device_count",
    "local_devices",
    "log_compiles",
    "make_mesh",
    "make_user_context",
    "no_execution",
    "no_tracing",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "print_environment_info",
    "process_count",
    "process_index",
    "process_indices",
    "thread_guard",
    "threefry_partitionable",
    "transfer_guard",
    "transfer_guard_device_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
    "effects_barrier",
    "softmax_custom_jvp",
}
# Tested in tests/test_transforms_inside.py (transformations, nested jit, debug, ravel).
ELSEWHERE = {
    "grad",
    "value_and_grad",
    "vmap",
    "jacfwd",
    "jacrev",
    "jacobian",
    "hessian",
    "jvp",
    "vjp",
    "checkpoint",
    "remat",
    "eval_shape",
    "jit",
    "debug.print",
    "debug.callback",
    "flatten_util.ravel_pytree",
    # tests/test_transforms_checkify.py
    "experimental.checkify.checkify",
    "experimental.checkify.check",
    "experimental.checkify.check_error",
}
# Left, with the reason: inside a trace these raise ForeignFunctionError (checked below
# for those that take a traced value).
LEFT = {
    "make_jaxpr": "introspection: there is no jaxpr of a function of weaktrace values; print "
    "the weaktrace program (wt.trace(f).trace(x).program) instead",
    "shard_map": "needs a device mesh and shardings, which weaktrace does not model",
    "smap": "needs a device mesh (shard_map's one-axis form)",
    "reshard": "sharding-in-types (a mesh), not modelled",
    "remove_size_one_mesh_axis_from_type": "sharding-in-types, not modelled",
    "copy_to_host_async": "host transfer of a concrete array (not inside jax.jit either)",
    "make_array_from_callback": "builds a sharded concrete array (outside jit)",
    "make_array_from_process_local_data": "multi-process input (outside jit)",
    "make_array_from_single_device_arrays": "sharded concrete arrays (outside jit)",
    "new_ref": "mutable array refs (experimental): no weaktrace equivalent",
    "empty_ref": "mutable array refs (experimental)",
    "free_ref": "mutable array refs (experimental)",
    "freeze": "mutable array refs (experimental)",
    "ds": "a dynamic-slice index for refs (experimental)",
    "fwd_and_bwd": "experimental split of vjp into two functions; use jax.vjp (supported)",
}
LEFT_PROGRAMS = {
    "make_jaxpr": lambda x: jax.make_jaxpr(lambda a: a * 2)(x),
}
# jax.lax helpers weaktrace.lax does not mirror (called inside a trace on traced values,
# they raise ForeignFunctionError).
LAX_LEFT = {
    "after_all": "tokens order effects; weaktrace orders jax.debug / io_callback calls itself",
    "create_token": "tokens (as after_all)",
    "pbroadcast": "sharding-in-types varying-axis annotation (shard_map)",
    "pcast": "sharding-in-types varying-axis annotation (shard_map)",
    "precv": "point-to-point send/recv across devices",
    "psend": "point-to-point send/recv across devices",
    "ragged_all_to_all": "multi-device ragged collective (no vmap rule in jax either)",
}
DEBUG_LEFT = {
    "breakpoint": "an interactive debugger on device values",
    "inspect_array_sharding": "sharding introspection (one device: nothing to inspect)",
    "visualize_array_sharding": "sharding introspection",
    "visualize_sharding": "sharding introspection (of a sharding, not a value)",
}


def _public_callables(module: object) -> set[str]:
    return {
        n
        for n in dir(module)
        if not n.startswith("_")
        and callable(getattr(module, n))
        and not inspect.isclass(getattr(module, n))
        and not inspect.ismodule(getattr(module, n))
    }


def test_every_public_jax_callable_is_decided() -> None:
    assert all(any(p.startswith(k) for p in PROGRAMS) for k in USES)
    tested = {u for uses in USES.values() for u in uses}
    top = _public_callables(jax)
    undecided = top - tested - ELSEWHERE - NO_TRACED_VALUE - set(LEFT)
    assert not undecided, f"jax callables neither tested nor left with a reason: {undecided}"
    assert not (tested & set(LEFT)) and not (ELSEWHERE & set(LEFT))
    assert set(LEFT_PROGRAMS) <= set(LEFT)
    debug = _public_callables(jax.debug) - {"print", "callback", "log"} - set(DEBUG_LEFT)
    assert not debug, f"jax.debug callables undecided: {debug}"
    lax = {n for n in _public_callables(jax.lax) if not hasattr(wlax, n)} - set(LAX_LEFT)
    assert not lax, f"jax.lax callables weaktrace.lax does not mirror, undecided: {lax}"
    for name in tested | ELSEWHERE:  # wrapped ones are in ORIGINAL (or need no wrapper)
        if name in ORIGINAL:
            assert functools.reduce(getattr, name.split("."), jax).__wrapped__ is ORIGINAL[name]


@pytest.mark.parametrize("name", sorted(LEFT_PROGRAMS))
def test_left_api_raises_a_named_error(name: str) -> None:
    with pytest.raises(wt.ForeignFunctionError):
        wt.trace(LEFT_PROGRAMS[name])(np.ones(3, "float32"))


def _int_closure(n: object, x: object) -> object:
    """closure_convert of a function closing over a traced int and bool (jax hoists
    neither into its consts), used in a custom_vjp's fwd and bwd under jax.grad."""
    k = (x > 0.5).sum()
    w = n.cos(x) * 3
    conv, consts = jax.closure_convert(lambda a: n.sin(a * w) * k + (k > 2) * a, x)
    loss = lambda a, w2: n.sum(_doubled_vjp(conv, a, *consts) * w2)  # noqa: E731
    return len(consts), conv(x * 2, *consts), jax.grad(loss, argnums=(0, 1))(x, w)


def _int_closure_nested(n: object, x: object) -> object:
    """The same, with the int made inside the differentiated function (a nested trace)."""

    def inner(y: object) -> object:
        k = (y > 0.5).sum()
        conv, consts = jax.closure_convert(lambda a: a * y[0] + k, y)
        return n.sum(_doubled_vjp(conv, y, *consts))

    return jax.value_and_grad(inner)(x), jax.vmap(jax.grad(inner))(n.stack([x, x * 2]))


@pytest.mark.parametrize("program", [_int_closure, _int_closure_nested])
@pytest.mark.parametrize("x64", [False, True])
def test_closure_convert_of_a_closure_over_a_traced_int(program: Any, x64: bool) -> None:
    """jax does not hoist a closed-over integer tracer: its converted function reads it
    where it is called, in a custom_vjp rule too. weaktrace's reads it from the program
    being evaluated (the rule runs on jax's values as the program lowers), so values and
    gradients are jax.jit's (it raised ClosureConversionError before)."""
    x = np.linspace(0.1, 1.3, 6).astype("float32")
    with jax.enable_x64(x64):
        _check(functools.partial(program, wnp), functools.partial(program, jnp), x)


def test_closure_convert_int_closure_called_later_is_named() -> None:
    """The converted function called on jax's values after the trace (no program being
    evaluated holds the int it closes over): a named error, not a wrong value."""
    kept: list[Any] = []

    def f(x: object) -> object:
        k = (x > 0).sum()
        conv, consts = jax.closure_convert(lambda a: a + k, x)
        kept.append((conv, consts))
        return conv(x, *consts)

    wt.trace(f)(np.ones(3, "float32"))
    conv, _ = kept[0]
    with pytest.raises(wt.ClosureConversionError, match="integer or boolean"):
        conv(jnp.ones(3))
