"""``jax.custom_gradient``, ``jax.closure_convert`` and ``jax.experimental.checkify``
called inside a weaktrace trace (each raised ForeignFunctionError).

``jax.custom_gradient(fun)``: `fun` returns the value and its vjp as a Python closure over
the forward pass. jax builds a ``custom_vjp`` whose rules are its own functions, which
never run on weaktrace values, so its call inside a trace raised ForeignFunctionError.
Here `fun` is traced by weaktrace once, with the cotangent as an extra input, into a
sub-program giving both the value and ``vjp(cotangent)``; when the program lowers, jax's
``custom_gradient`` is applied to a function of jax's values whose vjp is that
sub-program at the real cotangent (the forward pass is recomputed there, as under
``jax.checkpoint``): jax's checks and its gradients' dtypes apply.

``closure_convert`` and ``checkify`` are described at their wrappers (`_wrap_closure_convert`,
`_wrap_checkify`). As in `weaktrace.transforms_calls`, a name bound by ``from ... import``
before weaktrace is imported stays jax's (the ForeignFunctionError then says so).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from weaktrace.core.operands import operand
from weaktrace.core.primitives_transform import DebugCall, Transform, debug_p, transform_p
from weaktrace.core.program import make_program
from weaktrace.core.source import users_frame
from weaktrace.core.trace import Builder, current
from weaktrace.errors import ClosureConversionError
from weaktrace.lowering.evaluate import enclosing_value, runner
from weaktrace.lowering.rules import convert
from weaktrace.lowering.stages import spec
from weaktrace.transforms import ORIGINAL, _eager_values, _jax_values, bind_transform


def _zeros(s: Any) -> Any:
    """A zero cotangent of `s`'s type (its weak flag too)."""
    return convert(np.zeros(s.shape, s.dtype), new_dtype=s.dtype, weak_type=s.weak_type)


def _wrap_custom_gradient() -> None:
    original = ORIGINAL["custom_gradient"] = jax.custom_gradient

    @functools.wraps(original)
    def custom_gradient(fun: Callable[..., Any]) -> Any:
        wrapped = original(fun)
        if not users_frame(sys._getframe(1)):
            return wrapped

        @functools.wraps(fun)
        def call(*args: Any, **kwargs: Any) -> Any:
            b = current()
            if not isinstance(b, Builder) or _jax_values((args, kwargs)):
                return wrapped(*_eager_values(args), **_eager_values(kwargs))
            return _bind_custom_gradient(b, fun, args, kwargs)

        return call

    jax.custom_gradient = custom_gradient


def _bind_custom_gradient(b: Builder, fun: Callable[..., Any], args: tuple[Any, ...],
                          kwargs: dict[str, Any]) -> Any:  # fmt: skip
    leaves, in_tree = jax.tree_util.tree_flatten((args, kwargs))
    avals = [operand(x, b).aval for x in leaves]

    def value(*tracers: Any) -> Any:
        a, k = jax.tree_util.tree_unflatten(in_tree, tracers)
        return fun(*a, **k)[0]

    made = make_program(value, avals, b.policy, nested=True)  # the value's types only
    ct_specs = jax.tree_util.tree_unflatten(
        made.out_tree, [spec(v.aval, b.policy) for v in made.program.outvars]
    )

    def both(args: Any, kwargs: Any, ct: Any) -> Any:
        out, rule = fun(*args, **kwargs)
        return out, rule(ct)

    def apply(fn: Callable[..., Any], args: Any, kwargs: Any, specs: Any) -> Any:
        zero = jax.tree_util.tree_map(_zeros, specs)

        def with_rule(*a: Any, **k: Any) -> Any:
            return fn(a, k, zero)[0], lambda ct: fn(a, k, ct)[1]

        return original(with_rule)(*args, **kwargs)

    original = ORIGINAL["custom_gradient"]
    name = getattr(fun, "__name__", type(fun).__name__)
    return bind_transform("custom_gradient", {"fun": name}, apply, both,
                          (args, kwargs, ct_specs), {}, (2,))  # fmt: skip


def _wrap_checkify() -> None:
    """``checkify.checkify(f, errors)(*args)`` inside a trace: `f` traced by weaktrace; jax's
    checkify of it when the program lowers, which instruments the jax operations the
    program lowers to (index, NaN, division checks) and the ``checkify.check`` calls
    recorded in it. The returned Error is jax's: its pytree structure names each error by
    a code jax numbers anew at every trace, so the codes of the lowered program's Error
    are mapped back to those of the Error built when weaktrace traced it (both number the
    same checks in the same order), whose structure the traced program returns."""
    from jax.experimental import checkify as ck

    original = ORIGINAL["experimental.checkify.checkify"] = ck.checkify
    check = ORIGINAL["experimental.checkify.check"] = ck.check
    check_error = ORIGINAL["experimental.checkify.check_error"] = ck.check_error

    @functools.wraps(original)
    def checkify(f: Callable[..., Any], errors: Any = ck.user_checks) -> Any:
        transformed = original(f, errors)
        if not users_frame(sys._getframe(1)):
            return transformed

        @functools.wraps(transformed)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not isinstance(current(), Builder) or _jax_values((args, kwargs)):
                return transformed(*_eager_values(args), **_eager_values(kwargs))
            reference: list[Any] = []  # the Error of the first complete trace

            def apply(fn: Callable[..., Any], *a: Any, **k: Any) -> Any:
                err, out = original(fn, errors)(*a, **k)
                return _renumbered(err, reference), out

            names = sorted(e.__name__ for e in errors)
            return bind_transform("checkify", {"errors": names}, apply, f, args, kwargs)

        return call

    @functools.wraps(check)
    def checked(pred: Any, msg: str, *fmt_args: Any, **fmt_kwargs: Any) -> None:
        tree = (pred, fmt_args, fmt_kwargs)
        if not _inside(sys._getframe(1), tree):
            return check(*_eager_values((pred, msg, *fmt_args)), **_eager_values(fmt_kwargs))
        _record("checkify.check", lambda m, p, *a, **k: check(p, m, *a, **k), msg,
                (pred, *fmt_args), fmt_kwargs)  # fmt: skip
        return None

    @functools.wraps(check_error)
    def checked_error(error: Any) -> None:
        if not _inside(sys._getframe(1), error):
            return check_error(_eager_values(error))
        _record("checkify.check_error", lambda _, e: check_error(e), None, (error,), {})
        return None

    throw = ORIGINAL["experimental.checkify.Error.throw"] = ck.Error.throw

    @functools.wraps(throw)
    def thrown(self: Any) -> None:  # err.throw(): check_error(err), as jax's
        if not _inside(sys._getframe(1), self):
            return throw(_eager_values(self))
        _record("checkify.check_error", lambda _, e: throw(e), None, (self,), {})
        return None

    ck.checkify, ck.check, ck.check_error = checkify, checked, checked_error
    ck.Error.throw = thrown  # type: ignore[method-assign]


def _inside(frame: Any, tree: Any) -> bool:
    return isinstance(current(), Builder) and users_frame(frame) and not _jax_values(tree)


def _record(name: str, function: Callable[..., Any], first: Any, args: tuple[Any, ...],
            kwargs: dict[str, Any]) -> None:  # fmt: skip
    """An equation with no outputs calling `function` on the values when the program runs."""
    b = current()
    assert isinstance(b, Builder)
    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    call = DebugCall(name, function, first, tree, {})
    b.emit_n(debug_p, tuple(operand(x, b) for x in leaves), {"call": call})


def _renumbered(err: Any, reference: list[Any]) -> Any:
    """`err` with the codes and messages of `reference`'s Error (the first one seen)."""
    codes = sorted(err._metadata)
    if not reference:
        reference.append((codes, err._metadata))
        return err
    ref_codes, ref_metadata = reference[0]
    if len(codes) != len(ref_codes):  # pragma: no cover - the same program checked again
        raise AssertionError(f"checkify numbered {len(codes)} checks, traced {len(ref_codes)}")
    renumbered = {}
    for effect, code in err._code.items():
        for new, old in zip(codes, ref_codes, strict=True):
            code = jax.numpy.where(code == new, jax.numpy.asarray(old, code.dtype), code)
        renumbered[effect] = code
    return err._replace(_code=renumbered, _metadata=ref_metadata)


def _wrap_closure_convert() -> None:
    """``converted, consts = jax.closure_convert(fun, *example_args)`` inside a trace:
    `fun` traced by weaktrace at the examples' types; the traced values it closes over
    that a derivative could perturb (inexact ones, as jax's choice) are hoisted into
    `consts`. ``converted(*args, *consts)`` is `fun` with those values replaced: inside
    the trace it records the sub-program; on jax's values (a custom_vjp rule running
    when the program lowers) it evaluates it on them."""
    original = ORIGINAL["closure_convert"] = jax.closure_convert

    @functools.wraps(original)
    def closure_convert(fun: Callable[..., Any], *example_args: Any) -> Any:
        b = current()
        if not isinstance(b, Builder) or not users_frame(sys._getframe(1)):
            return original(fun, *_eager_values(example_args))
        leaves, in_tree = jax.tree_util.tree_flatten(example_args)
        avals = [operand(x, b).aval for x in leaves]
        made = make_program(_flat(fun, in_tree), avals, b.policy, nested=True)
        caps = made.captures
        hoist = [jax.numpy.issubdtype(spec(t.aval, b.policy).dtype, jax.numpy.inexact)
                 for t in caps]  # fmt: skip
        consts = [t for t, h in zip(caps, hoist, strict=True) if h]
        return _converted(made, in_tree, avals, hoist, b.policy), consts

    jax.closure_convert = closure_convert


def _flat(fun: Callable[..., Any], in_tree: Any) -> Callable[..., Any]:
    return lambda *leaves: fun(*jax.tree_util.tree_unflatten(in_tree, leaves))


def _converted(made: Any, in_tree: Any, avals: list[Any], hoist: list[bool],
               policy: Any) -> Callable[..., Any]:  # fmt: skip
    n_consts = sum(hoist)

    def converted(*args_consts: Any) -> Any:
        split = len(args_consts) - n_consts
        args, consts = args_consts[:split], list(args_consts[split:])
        leaves, tree = jax.tree_util.tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same "
                "Pytree structure as the example arguments passed when closure_convert was "
                f"called. Expected {in_tree}, but got {tree}"
            )
        it = iter(consts)
        caps = [next(it) if h else t for t, h in zip(made.captures, hoist, strict=True)]
        b = current()
        if isinstance(b, Builder) and not _jax_values(args_consts):
            call_tree = jax.tree_util.tree_structure((tuple(args), {}))
            transform = Transform("closure_convert", {}, lambda fn, *a: fn(*a), call_tree,
                                  call_tree, made.out_tree, made.out_tree,
                                  made.out_avals)  # fmt: skip
            params = {"program": made.program, "transform": transform, "n_captures": len(caps)}
            ops = tuple(operand(x, b) for x in (*caps, *leaves))
            return jax.tree_util.tree_unflatten(made.out_tree, b.emit_n(transform_p, ops, params))
        # On jax's values (a custom_vjp rule jax runs while the program lowers): the
        # traced values jax left closed over (integers, booleans) are the values they
        # have in the program being evaluated, as jax's converted function reads its
        # enclosing trace's tracers
        try:
            vals = [c if h else enclosing_value(c.atom, policy)
                    for c, h in zip(caps, hoist, strict=True)]  # fmt: skip
        except LookupError:
            raise ClosureConversionError(
                "the function given to jax.closure_convert inside weaktrace.trace closes over "
                "traced integer or boolean values, which jax does not hoist into its consts, "
                "and it was called on jax's values outside the traced program's evaluation; "
                "pass them as arguments instead."
            ) from None
        outs = runner(policy)(made.program, (*vals, *leaves))
        return jax.tree_util.tree_unflatten(made.out_tree, outs)

    return converted


def install() -> None:
    """Wrap these jax functions (once)."""
    if "custom_gradient" in ORIGINAL:
        return
    _wrap_custom_gradient()
    _wrap_checkify()
    _wrap_closure_convert()
