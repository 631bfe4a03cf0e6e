"""jax's transformations called inside a weaktrace trace.

JAX programs differentiate and batch inside jitted functions::

    def step(params, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        ...

With ``jax.numpy`` swapped for ``weaktrace.numpy`` and ``step`` traced by
``weaktrace.trace``, ``params`` are weaktrace tracers, which jax's transformations cannot
take. So weaktrace wraps ``jax.grad``, ``jax.value_and_grad``, ``jax.vmap``,
``jax.jacfwd``, ``jax.jacrev``, ``jax.jacobian``, ``jax.hessian``, ``jax.checkpoint``
(``jax.remat``), ``jax.pmap`` (its axis bound as vmap's), ``jax.jvp`` and ``jax.vjp``
(its pullback), and the ``__call__`` of
``jax.custom_jvp`` / ``jax.custom_vjp`` (see `_wrap_custom_derivatives`), when it is
imported (``jax.eval_shape`` on traced values traces the function with weaktrace, and
``jax.flatten_util.ravel_pytree`` of traced values runs on weaktrace.lax; odeint,
linearize, linear_transpose, device_put and the callbacks are in transforms_calls). A
wrapped transformation behaves exactly as jax's everywhere but inside a weaktrace trace,
where, called from user code, it:

1. asks jax which arguments the transformed function receives (``jax.eval_shape`` of the
   transformation, stopped at the call: vmap removes the mapped axes, grad keeps them);
2. traces the function once at those abstract values into a sub-program, with
   weaktrace's promotion (tracers of the enclosing trace it reads are captured);
3. asks jax for the transformation's output types (``jax.eval_shape`` of jax's
   transformation of the sub-program), and records one ``jax_transform`` equation.

A ``jax.jit``-decorated function called inside a trace is inlined (see
`_wrap_nested_jit`). When the program lowers, jax's own transformation is applied to the
sub-program, so
gradients, batching rules and their dtypes are jax's. Outside a weaktrace trace (and for
calls from weaktrace itself) the wrapper calls jax's transformation unchanged. jax's
error for a bad transformation argument is raised when it is created, as in jax.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
from collections.abc import Callable, Collection
from typing import Any, NamedTuple

import jax
import numpy as np

from weaktrace import lax as _wlax
from weaktrace import numpy as _wnp
from weaktrace.core.operands import abstractify, operand
from weaktrace.core.primitives_collective import bound_axes, bound_axis
from weaktrace.core.primitives_transform import (
    DebugCall,
    Static,
    Transform,
    debug_p,
    transform_p,
)
from weaktrace.core.program import make_program
from weaktrace.core.source import users_frame
from weaktrace.core.trace import Builder, Tracer, current, outside_trace
from weaktrace.lowering.evaluate import known_values, runner
from weaktrace.lowering.rules_transform import sub_function
from weaktrace.lowering.stages import spec

wlax: Any = _wlax  # the mirror modules fill their namespaces at import
wnp: Any = _wnp
# jax's transformations as jax defines them (the wrappers below call these).
ORIGINAL: dict[str, Callable[..., Any]] = {}
# jax.jit's Python cache-miss path, as jax defines it (see _wrap_nested_jit).
JIT_INTERNALS: dict[str, Callable[..., Any]] = {}
# Transformations of a function: name(fun, *options) -> transformed function.
_OF_FUNCTION = ("grad", "value_and_grad", "vmap", "jacfwd", "jacrev", "jacobian", "hessian",
                "checkpoint", "remat", "pmap")  # fmt: skip


class _Arguments(Exception):
    """Raised by the probe: the arguments jax's transformation hands the function."""


def _prober(axis_name: Any) -> Callable[..., Any]:
    """The probe: records the arguments (and the size of the axis vmap binds)."""

    def probe(*args: Any, **kwargs: Any) -> Any:
        size = None if axis_name is None else jax.lax.axis_size(axis_name)
        raise _Arguments(jax.tree_util.tree_flatten((args, kwargs)), size)

    return probe


def _jax_values(tree: Any) -> bool:
    """Whether jax is tracing these arguments (and no weaktrace tracer is among them):
    a function the user transformed, called by jax itself while a program lowers."""
    leaves = jax.tree_util.tree_leaves(tree)
    return not any(x.__class__ is Tracer for x in leaves) and any(
        isinstance(x, jax.core.Tracer) for x in leaves
    )


def _eager_values(tree: Any) -> Any:
    """Eager weaktrace values (inside weaktrace's own eager evaluation: a user function
    it calls, such as associative_scan's fn) as the jax values they hold."""
    if not _has_tracer(tree):
        return tree
    eager = lambda x: x.__class__ is Tracer and x.ctx.eager  # noqa: E731
    return jax.tree_util.tree_map(lambda x: x.concrete() if eager(x) else x, tree)


_FLOAT0 = np.dtype(jax.dtypes.float0)


def _eval_shape(fn: Callable[..., Any], *trees: Any) -> Any:
    """``jax.eval_shape(fn, *trees)`` inside the vmapped axes that enclose this
    transformation (a nested jax.vmap whose function names an outer axis in a collective):
    jax evaluates it under vmaps that bind them, every input batched, as the enclosing
    function's values are; the outputs' leading axes are dropped."""
    axes = bound_axes()
    if not axes:
        return jax.eval_shape(fn, *trees)
    sizes = tuple(axes.values())
    for name, size in reversed(axes.items()):
        fn = jax.vmap(fn, axis_name=name, axis_size=size)
    batched = jax.tree_util.tree_map(
        lambda s: jax.ShapeDtypeStruct((*sizes, *s.shape), s.dtype, weak_type=s.weak_type), trees
    )
    out = jax.eval_shape(fn, *batched)
    k = len(sizes)
    return jax.tree_util.tree_map(
        lambda s: jax.ShapeDtypeStruct(s.shape[k:], s.dtype, weak_type=s.weak_type), out
    )


def _has_tracer(tree: Any) -> bool:
    return any(x.__class__ is Tracer for x in jax.tree_util.tree_leaves(tree))


def bind_transform(name: str, options: dict[str, Any], apply: Callable[..., Any],
                   fun: Callable[..., Any], args: tuple[Any, ...],
                   kwargs: dict[str, Any], static: Collection[int] = ()) -> Any:  # fmt: skip
    """Record ``apply(fun, *args, **kwargs)`` (jax's transformation of `fun`, applied)
    in the current trace; returns its outputs as tracers, in jax's output structure.
    Positional arguments in `static` that hold no tracer go to jax as they are."""
    b = current()
    assert isinstance(b, Builder)
    pol = b.policy
    args = tuple(Static(a) if i in static and not _has_tracer(a) else a for i, a in enumerate(args))
    leaves, in_tree = jax.tree_util.tree_flatten((args, kwargs))
    ops = [operand(x, b) for x in leaves]
    structs = [spec(o.aval, pol) for o in ops]

    transform = Transform(name, options, apply, in_tree, None, None, None, ())
    axis_name = options.get("axis_name") if name in ("vmap", "pmap") else None
    call = transform.call

    # 1. What the function receives under jax's transformation.
    try:
        with outside_trace():
            _eval_shape(lambda *ls: call(_prober(axis_name), ls), *structs)
    except _Arguments as got:
        (inner_leaves, inner_tree), size = got.args
    else:
        raise NotImplementedError(f"jax.{name} never called the function it transforms")
    raw = tuple(not isinstance(x, jax.core.Tracer) for x in inner_leaves)  # passed as is
    inner_avals = [abstractify(x, pol) for x, r in zip(inner_leaves, raw, strict=True) if not r]

    # 2. The function, traced once with weaktrace's promotion (raw values stay values).
    def flat(*tracers: Any) -> Any:
        it = iter(tracers)
        full = [x if r else next(it) for x, r in zip(inner_leaves, raw, strict=True)]
        a, k = jax.tree_util.tree_unflatten(inner_tree, full)
        return fun(*a, **k)

    with bound_axis(axis_name, size) if axis_name is not None else contextlib.nullcontext():
        made = make_program(flat, inner_avals, pol, nested=True)
    caps = made.captures
    transform.inner_tree, transform.inner_out_tree, transform.raw = inner_tree, made.out_tree, raw

    # 3. jax's output types for its transformation of the sub-program.
    run = runner(pol)

    def jax_side(cap_vals: list[Any], leaf_vals: list[Any]) -> Any:
        # a custom_vjp rule run here may read a captured value (closure_convert's ints)
        with known_values({t.atom: v for t, v in zip(caps, cap_vals, strict=True)}):
            return call(sub_function(run, made.program, cap_vals, transform), leaf_vals)

    cap_structs = [spec(t.aval, pol) for t in caps]
    with outside_trace():  # user rules (custom_jvp's) run on jax's values, as at lowering
        out = _eval_shape(jax_side, cap_structs, structs)
    out_leaves, out_tree = jax.tree_util.tree_flatten(out)
    transform.out_tree = out_tree
    # jax.grad(allow_int=True) / jax.vjp give integer inputs float0 cotangents: zeros of
    # no data, constants (as jax.jit's jaxpr has them), not outputs of the equation.
    zero = tuple(o.dtype == _FLOAT0 for o in out_leaves)
    transform.float0 = zero if any(zero) else ()
    kept = [o for o, z in zip(out_leaves, zero, strict=True) if not z]
    transform.out_avals = tuple(abstractify(o, pol) for o in kept)
    params = {"program": made.program, "transform": transform, "n_captures": len(caps)}
    outs = iter(b.emit_n(transform_p, (*caps, *ops), params))
    leaves = [  # a float0 is a traced constant, as jax.jit's is (operations on it are ours)
        operand(np.zeros(o.shape, _FLOAT0), b) if z else next(outs)
        for o, z in zip(out_leaves, zero, strict=True)
    ]
    return jax.tree_util.tree_unflatten(out_tree, leaves)


def _wrap_transformation(name: str) -> None:
    """jax.<name>(fun, *options) -> a function that is jax's, except inside a trace."""
    original = ORIGINAL[name] = getattr(jax, name)

    @functools.wraps(original)
    def transformation(fun: Callable[..., Any], *t_args: Any, **t_kwargs: Any) -> Any:
        transformed = original(fun, *t_args, **t_kwargs)  # jax validates its options here
        if not callable(transformed) or not users_frame(sys._getframe(1)):
            return transformed  # weaktrace's own use of jax (lowering rules): jax's

        def apply(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return original(fn, *t_args, **t_kwargs)(*args, **kwargs)

        options = {str(i): v for i, v in enumerate(t_args)} | t_kwargs

        @functools.wraps(transformed)
        def call(*args: Any, **kwargs: Any) -> Any:
            if current() is None or _jax_values((args, kwargs)):
                return transformed(*_eager_values(args), **_eager_values(kwargs))
            static = _static_positions(name, t_kwargs, len(args))
            return bind_transform(name, options, apply, fun, args, kwargs, static)

        return call

    setattr(jax, name, transformation)


def _static_positions(name: str, options: dict[str, Any], n_args: int) -> set[int]:
    """The positional arguments ``jax.checkpoint(static_argnums=...)`` hands the function
    as the Python values they are (a loop bound), not as traced values."""
    if name not in ("checkpoint", "remat"):
        return set()
    nums = options.get("static_argnums", ())
    nums = (nums,) if isinstance(nums, int) else tuple(nums)
    return {i % n_args for i in nums if -n_args <= i < n_args}


def _wrap_jvp() -> None:
    original = ORIGINAL["jvp"] = jax.jvp

    @functools.wraps(original)
    def jvp(fun: Callable[..., Any], primals: Any, tangents: Any, *rest: Any, **kw: Any) -> Any:
        if current() is None or not users_frame(sys._getframe(1)) or _jax_values(primals):
            return original(fun, _eager_values(primals), _eager_values(tangents), *rest, **kw)

        def apply(fn: Callable[..., Any], primals: Any, tangents: Any) -> Any:
            return original(fn, primals, tangents, *rest, **kw)

        return bind_transform("jvp", kw, apply, fun, (primals, tangents), {})

    jax.jvp = jvp


def _wrap_vjp() -> None:
    """``out, pullback = jax.vjp(fun, *primals)`` inside a trace: `out` is `fun` traced
    by weaktrace; each ``pullback(ct)`` records jax's vjp of `fun`, applied to `ct`."""
    original: Any = jax.vjp  # its has_aux overloads: one call site passes either
    ORIGINAL["vjp"] = original

    @functools.wraps(original)
    def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False, **kw: Any) -> Any:
        if current() is None or not users_frame(sys._getframe(1)) or _jax_values(primals):
            return original(fun, *_eager_values(primals), has_aux=has_aux, **kw)
        result = fun(*primals)
        out, aux = result if has_aux else (result, None)

        def apply(fn: Callable[..., Any], primals: Any, cotangent: Any) -> Any:
            return original(fn, *primals, has_aux=has_aux, **kw)[1](cotangent)

        def pullback(cotangent: Any) -> Any:
            options = dict(kw, has_aux=has_aux)
            return bind_transform("vjp", options, apply, fun, (primals, cotangent), {})

        return (out, pullback, aux) if has_aux else (out, pullback)

    jax.vjp = vjp


def _wrap_eval_shape() -> None:
    """``jax.eval_shape(fun, *args)`` inside a trace, on traced values: `fun` traced by
    weaktrace at the arguments' abstract values (nothing is recorded), its outputs as
    ``jax.ShapeDtypeStruct``s with their weak flags, as jax's eval_shape gives."""
    original = ORIGINAL["eval_shape"] = jax.eval_shape

    @functools.wraps(original)
    def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        b = current()
        if b is None or not users_frame(sys._getframe(1)) or not _has_tracer((args, kwargs)):
            return original(fun, *args, **kwargs)
        leaves, in_tree = jax.tree_util.tree_flatten((args, kwargs))
        avals = [operand(x, b).aval for x in leaves]

        def flat(*tracers: Any) -> Any:
            a, k = jax.tree_util.tree_unflatten(in_tree, tracers)
            return fun(*a, **k)

        made = make_program(flat, avals, b.policy, nested=True)
        outs = [spec(v.aval, b.policy) for v in made.program.outvars]
        return jax.tree_util.tree_unflatten(made.out_tree, outs)

    jax.eval_shape = eval_shape


def _wrap_ravel_pytree() -> None:
    """``jax.flatten_util.ravel_pytree`` of a pytree holding tracers of a trace (an
    optimizer flattening its parameters inside the step): jax's algorithm on weaktrace.lax,
    so the flat vector and what ``unravel`` gives back have jax's dtypes and weak flags."""
    import jax.flatten_util as flatten_util

    original = ORIGINAL["flatten_util.ravel_pytree"] = flatten_util.ravel_pytree

    @functools.wraps(original)
    def ravel_pytree(pytree: Any) -> Any:
        b = current()
        if b is None or not users_frame(sys._getframe(1)) or not _has_tracer(pytree):
            return original(pytree)
        leaves, tree = jax.tree_util.tree_flatten(pytree)
        ops = [operand(x, b) for x in leaves]
        from_dtypes = [o.aval.dtype for o in ops]
        to_dtype = wnp.result_type(*from_dtypes)  # the dtypes alone: strong, as jax's
        shapes = [o.aval.shape for o in ops]
        sizes = [int(np.prod(s, dtype=int)) for s in shapes]
        one = all(d == to_dtype for d in from_dtypes)
        parts = [wlax.reshape(o if one else wlax.convert_element_type(o, to_dtype), (n,))
                 for o, n in zip(ops, sizes, strict=True)]  # fmt: skip
        flat = wlax.concatenate(parts, 0)

        def unravel(arr: Any) -> Any:
            if not one and wnp.result_type(arr) != to_dtype:
                raise TypeError(
                    f"unravel function given array of dtype {wnp.result_type(arr)}, "
                    f"but expected dtype {to_dtype}"
                )
            chunks = wlax.split(arr, sizes)
            out = [wlax.reshape(c, s) for c, s in zip(chunks, shapes, strict=True)]
            if not one:
                out = [
                    wlax.convert_element_type(c, d) for c, d in zip(out, from_dtypes, strict=True)
                ]
            return jax.tree_util.tree_unflatten(tree, out)

        return flat, unravel

    flatten_util.ravel_pytree = ravel_pytree


class _Inlined(NamedTuple):
    outs: Any


def _as_operands(tree: Any, b: Builder) -> Any:
    """Array and number leaves as tracers of `b` (jax.jit makes every non-static
    argument a tracer: Python control flow on one raises, as it does under jax.jit)."""
    take = (Tracer, bool, int, float, complex, np.ndarray, np.generic, jax.Array)
    return jax.tree_util.tree_map(lambda x: operand(x, b) if isinstance(x, take) else x, tree)


def _wrap_nested_jit() -> None:
    """A ``jax.jit``-decorated function called inside a weaktrace trace is inlined, as jax
    inlines a jit inside a jit: its Python function is traced into the enclosing program.

    jax.jit's C++ dispatch hands arguments it cannot take (weaktrace tracers) to its
    Python cache-miss path, which computes the call with ``_infer_params`` and
    ``_run_python_pjit``; those two are wrapped, only for that path and only when a
    weaktrace tracer is among the arguments. The compiled fast path is untouched. If jax
    changes these internals, nothing is wrapped and a nested jit raises
    ForeignFunctionError, as before."""
    try:
        from jax._src import pjit
    except ImportError:  # pragma: no cover - another jax
        return
    infer, run = getattr(pjit, "_infer_params", None), getattr(pjit, "_run_python_pjit", None)
    if infer is None or run is None:  # pragma: no cover - another jax
        return
    JIT_INTERNALS["_infer_params"], JIT_INTERNALS["_run_python_pjit"] = infer, run

    def infer_params(fun: Callable[..., Any], info: Any, args: Any, kwargs: Any) -> Any:
        b = current()
        if b is None or sys._getframe(1).f_code.co_name != "cache_miss":
            return infer(fun, info, args, kwargs)
        leaves = jax.tree_util.tree_leaves((args, kwargs))
        if not any(x.__class__ is Tracer for x in leaves) or _in_jax(fun):
            return infer(fun, info, args, kwargs)  # jax's own jitted functions: refused
        static, names = set(info.static_argnums), set(info.static_argnames)
        args = tuple(a if i in static else _as_operands(a, b) for i, a in enumerate(args))
        kwargs = {k: v if k in names else _as_operands(v, b) for k, v in kwargs.items()}
        return _Inlined(_as_operands(fun(*args, **kwargs), b)), []

    def run_python_pjit(p: Any, args_flat: Any, *rest: Any) -> Any:
        if p.__class__ is _Inlined:  # no executable: nothing is cached for this call
            return p.outs, None, None, args_flat, _NO_JAXPR, None, None, ()
        return run(p, args_flat, *rest)

    setattr(pjit, "_infer_params", infer_params)  # noqa: B010 (jax's private names)
    setattr(pjit, "_run_python_pjit", run_python_pjit)  # noqa: B010


_JAX_DIR = os.path.dirname(os.path.abspath(jax.__file__)) + os.sep


def _in_jax(fun: Callable[..., Any]) -> bool:
    """Whether `fun` is jax's own (jnp.sin is a jitted function): jax's implementation
    never runs on weaktrace tracers; the call raises ForeignFunctionError, naming the
    mirror."""
    f = inspect.unwrap(fun)
    while isinstance(f, functools.partial):
        f = inspect.unwrap(f.func)
    code = getattr(f, "__code__", None) or getattr(type(f).__call__, "__code__", None)
    return code is None or code.co_filename.startswith(_JAX_DIR)


class _NoJaxpr(NamedTuple):
    effects: tuple[Any, ...] = ()
    consts: tuple[Any, ...] = ()


_NO_JAXPR = _NoJaxpr()


def _wrap_custom_derivatives() -> None:
    """A user's ``jax.custom_jvp`` / ``jax.custom_vjp`` function called inside a trace:
    its primal function is traced to the sub-program; when the program lowers, a new
    custom_jvp (custom_vjp) of the sub-program with the user's rules is called, so jax
    differentiates it with them (the rules run then, on jax's values, where
    weaktrace.numpy computes as jax.numpy does)."""
    for cls, name in ((jax.custom_jvp, "custom_jvp"), (jax.custom_vjp, "custom_vjp")):
        original = JIT_INTERNALS[name] = cls.__call__

        def call(self: Any, *args: Any, _orig: Any = original, _name: str = name,
                 **kwargs: Any) -> Any:  # fmt: skip
            if current() is None or _jax_values((args, kwargs)) or _in_jax(self.fun):
                return _orig(self, *_eager_values(args), **_eager_values(kwargs))
            bound = inspect.signature(self.fun).bind(*args, **kwargs)  # as jax resolves them
            bound.apply_defaults()
            if bound.kwargs:
                return _orig(self, *args, **kwargs)  # jax's error for keyword-only arguments
            name = getattr(self.fun, "__name__", type(self.fun).__name__)
            return bind_transform(_name, {"fun": name}, _custom_apply(self), self.fun,
                                  bound.args, {}, self.nondiff_argnums)  # fmt: skip

        functools.update_wrapper(call, original)
        cls.__call__ = call  # type: ignore[method-assign]


def _custom_apply(self: Any) -> Callable[..., Any]:
    def apply(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if isinstance(self, jax.custom_jvp):
            new: Any = jax.custom_jvp(fn, nondiff_argnums=self.nondiff_argnums)
            new.defjvp(self.jvp, symbolic_zeros=self.symbolic_zeros)
        else:
            new = jax.custom_vjp(fn, nondiff_argnums=self.nondiff_argnums)
            new.defvjp(self.fwd, self.bwd, symbolic_zeros=self.symbolic_zeros,
                       optimize_remat=self.optimize_remat)  # fmt: skip
        return new(*args, **kwargs)

    return apply


_DEBUG_OPTIONS = ("ordered", "partitioned", "skip_format_check", "_use_logging")


def _wrap_debug() -> None:
    """``jax.debug.print`` / ``callback`` / ``log`` of traced values: a ``debug``
    equation with no outputs, calling jax's when the program runs."""
    for name in ("print", "callback", "log"):
        original = ORIGINAL[f"debug.{name}"] = getattr(jax.debug, name)

        def debug(first: Any = None, *args: Any, _orig: Any = original, _name: str = name,
                  **kwargs: Any) -> Any:  # fmt: skip
            b = current()
            if b is None or _jax_values((args, kwargs)):  # printed when the program runs
                return _orig(first, *args, **kwargs)
            options = {k: kwargs.pop(k) for k in _DEBUG_OPTIONS if k in kwargs}
            leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
            call = DebugCall(_name, _orig, first, tree, options)
            b.emit_n(debug_p, tuple(operand(x, b) for x in leaves), {"call": call})
            return None

        functools.update_wrapper(debug, original)
        setattr(jax.debug, name, debug)


def install() -> None:
    """Wrap jax's transformations (once)."""
    if ORIGINAL:
        return
    for name in _OF_FUNCTION:
        _wrap_transformation(name)
    _wrap_jvp()
    _wrap_vjp()
    _wrap_eval_shape()
    _wrap_ravel_pytree()
    _wrap_nested_jit()
    _wrap_custom_derivatives()
    _wrap_debug()
