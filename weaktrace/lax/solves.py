"""``custom_root``, ``custom_linear_solve``, ``composite`` and ``platform_dependent``.

The functions they take are traced once to sub-programs, as jax traces them to
jaxprs: custom_root's solve is traced as ``solve(f, initial_guess)`` with the user's
f (as jax's ``partial(solve, f)``), its tangent_solve as ``tangent_solve(g, y)``
where g is the linearization of f jax computes when the program runs (a
``linear_call`` of the sub-program); custom_linear_solve's solve gets the user's
matvec and its transpose_solve the transposed matvec jax computes (or matvec itself
when symmetric). They lower onto jax.lax.custom_root / custom_linear_solve with the
sub-programs evaluated as jax functions, so values and jax.grad are jax's. Output
types are jax's: custom_root gives solve's, custom_linear_solve gives b's.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import jax

from weaktrace.core.mirror import exporter
from weaktrace.core.operands import context, operand, to_jax
from weaktrace.core.primitives_control import typematch
from weaktrace.core.primitives_solve import (
    composite_p,
    custom_root_p,
    linear_call_p,
    linear_solve_p,
)
from weaktrace.core.program import Made, make_program
from weaktrace.core.promotion import lit
from weaktrace.core.trace import Context, Tracer
from weaktrace.dtypes.registry import by_name
from weaktrace.errors import CarryTypeError, OperandValueError
from weaktrace.ir.values import AbstractValue
from weaktrace.lax.control import _eager, _switch

_tree = jax.tree_util
EXPORTS: dict[str, Callable[..., Any]] = {}
export = exporter(EXPORTS, counterpart="jax.lax")
_SLOTS = itertools.count()


def _trace(ctx: Context, fun: Callable[..., Any], avals: list[AbstractValue]) -> Made:
    return make_program(fun, avals, ctx.policy, nested=not ctx.eager)


def _leaves(ctx: Context, value: Any) -> tuple[list[Tracer], Any]:
    leaves, tree = _tree.tree_flatten(value)
    return [operand(v, ctx) for v in leaves], tree


def _result(ctx: Context, tree: Any, outs: list[Tracer]) -> Any:
    value = _tree.tree_unflatten(tree, outs)
    return to_jax(value) if ctx.eager else value


def _main_tree(what: str, made: Made, has_aux: bool) -> Any:
    """The pytree of the function's main output: with has_aux, the first of the pair
    (solution, aux) it must return (jax's _check_tree)."""
    if not has_aux:
        return made.out_tree
    children = made.out_tree.children()
    if len(children) != 2:
        raise OperandValueError(
            f"{what}() produced a pytree with structure {made.out_tree}, but a pytree tuple "
            "with auxiliary output was expected because has_aux was set to True."
        )
    return children[0]


def _check_tree(what: str, made: Made, tree: Any, has_aux: bool = False) -> None:
    got = _main_tree(what, made, has_aux)
    if got != tree:
        raise CarryTypeError(f"{what}() output pytree structure must match the input's, got {got} "
                        f"and {tree}.")  # fmt: skip


def _check(what: str, made: Made, tree: Any, avals: list[AbstractValue],
           has_aux: bool = False, shapes_first: bool = False) -> None:  # fmt: skip
    """jax's _check_tree_and_avals: the same pytree, shapes and dtypes (weak flags may
    differ); with has_aux, of the main output (the aux output is free). shapes_first:
    the leaves' shapes before the tree (custom_linear_solve checks them while tracing,
    a ValueError)."""
    if shapes_first:
        main_tree = _main_tree(what, made, has_aux)
        shapes = [a.shape for a in made.out_avals[: main_tree.num_leaves]]
        if shapes != [a.shape for a in avals]:
            raise OperandValueError(f"{what}() output shapes must match b, got {shapes} and "
                             f"{[a.shape for a in avals]}")  # fmt: skip
    _check_tree(what, made, tree, has_aux)
    main = made.out_avals[: len(avals)]
    if len(main) != len(avals) or not all(map(typematch, main, avals)):
        raise CarryTypeError(
            f"{what} must produce outputs of the input's shapes and dtypes: "
            f"{[str(a) for a in main]} vs {[str(a) for a in avals]}"
        )


def _linear_fn(tree: Any, in_avals: list[AbstractValue], out_tree: Any,
               out_avals: list[AbstractValue]) -> Callable[..., Any]:  # fmt: skip
    """The stand-in for a function jax provides when the program runs: a pytree like
    `tree` (of in_avals' shapes and dtypes) in, a pytree like `out_tree` out."""
    slot = next(_SLOTS)

    def fn(x: Any) -> Any:
        leaves, got = _tree.tree_flatten(x)
        if got != tree:
            raise TypeError(f"the linear function takes a pytree {tree}, got {got}")
        ctx = context(*leaves)
        ins = tuple(operand(v, ctx) for v in leaves)
        if not all(typematch(t.aval, a) for t, a in zip(ins, in_avals, strict=True)):
            raise ValueError(  # jax's error for tangents of another type than the primal
                "linearized function called on tangent values inconsistent with the original "
                f"primal values: got {[str(t.aval) for t in ins]}, expected "
                f"{[str(a) for a in in_avals]}"
            )
        outs = ctx.emit_n(linear_call_p, ins, {"slot": slot, "out_avals": tuple(out_avals)})
        return _tree.tree_unflatten(out_tree, outs)

    return fn


@export
def custom_root(f: Callable[[Any], Any], initial_guess: Any,
                solve: Callable[[Callable[[Any], Any], Any], Any],
                tangent_solve: Callable[[Callable[[Any], Any], Any], Any],
                has_aux: bool = False) -> Any:  # fmt: skip
    """``jax.lax.custom_root``: solve(f, initial_guess), differentiated by the
    implicit function theorem with tangent_solve. With has_aux, solve returns a pair
    (solution, aux), and so does custom_root (aux gets zero tangents)."""
    ctx = context(*_tree.tree_leaves(initial_guess))
    if ctx.eager:  # jax's own, the functions running weaktrace's mirrors eagerly
        return _eager(jax.lax.custom_root, f, initial_guess, solve, tangent_solve,
                      has_aux=has_aux)  # fmt: skip
    guess, tree = _leaves(ctx, (initial_guess,))
    avals = [g.aval for g in guess]
    unpack = lambda a: _tree.tree_unflatten(tree, a)[0]  # noqa: E731
    fm = _trace(ctx, lambda *a: f(unpack(a)), avals)
    inner = _tree.tree_structure(initial_guess)
    _check("f", fm, inner, avals)
    sm = _trace(ctx, lambda *a: solve(f, unpack(a)), avals)
    _check_tree("solve", sm, inner, bool(has_aux))  # the tree only: dtypes unchecked, as jax
    g = _linear_fn(inner, avals, fm.out_tree, fm.out_avals)
    tm = _trace(ctx, lambda *a: tangent_solve(g, _tree.tree_unflatten(fm.out_tree, a)),
                fm.out_avals)  # fmt: skip
    params = {"f_program": fm.program, "solve_program": sm.program,
              "tangent_program": tm.program,
              "counts": (len(fm.captures), len(sm.captures), len(tm.captures))}  # fmt: skip
    ins = (*fm.captures, *sm.captures, *tm.captures, *guess)
    return _result(ctx, sm.out_tree, ctx.emit_n(custom_root_p, ins, params))


@export
def custom_linear_solve(matvec: Callable[[Any], Any], b: Any,
                        solve: Callable[[Callable[[Any], Any], Any], Any],
                        transpose_solve: Callable[[Callable[[Any], Any], Any], Any] | None = None,
                        symmetric: bool = False, has_aux: bool = False) -> Any:  # fmt: skip
    """``jax.lax.custom_linear_solve``: solve(matvec, b), differentiated implicitly
    (reverse mode needs transpose_solve, or symmetric). With has_aux, solve and
    transpose_solve return pairs (x, aux), and so does custom_linear_solve (its aux is
    solve's)."""
    aux = bool(has_aux)
    ctx = context(*_tree.tree_leaves(b))
    if ctx.eager:  # jax's own, the functions running weaktrace's mirrors eagerly
        return _eager(jax.lax.custom_linear_solve, matvec, b, solve, transpose_solve,
                      symmetric=symmetric, has_aux=has_aux)  # fmt: skip
    bs, tree = _leaves(ctx, b)
    avals = [x.aval for x in bs]
    unpack = lambda a: _tree.tree_unflatten(tree, a)  # noqa: E731
    mm = _trace(ctx, lambda *a: matvec(unpack(a)), avals)
    _check("matvec", mm, tree, avals, shapes_first=True)
    sm = _trace(ctx, lambda *a: solve(matvec, unpack(a)), avals)
    _check("solve", sm, tree, avals, aux, shapes_first=True)
    tm = None
    out_tree = sm.out_tree
    if transpose_solve is not None:
        vecmat = matvec if symmetric else _linear_fn(tree, avals, tree, avals)
        tm = _trace(ctx, lambda *a: transpose_solve(vecmat, unpack(a)), avals)
        _check("transpose_solve", tm, tree, avals, aux, shapes_first=True)
        if aux and tm.out_tree != sm.out_tree:
            # jax returns its result in transpose_solve's pytree with solve's leaves
            # (an unflatten error where their aux leaf counts differ): refuse it
            raise CarryTypeError(
                "custom_linear_solve with has_aux: solve and transpose_solve must return "
                f"the same pytree, got {sm.out_tree} and {tm.out_tree}"
            )
        out_tree = tm.out_tree
    params = {"matvec_program": mm.program, "solve_program": sm.program,
              "transpose_program": None if tm is None else tm.program,
              "counts": (len(mm.captures), len(sm.captures), len(tm.captures) if tm else 0),
              "symmetric": bool(symmetric)}  # fmt: skip
    ins = (*mm.captures, *sm.captures, *(tm.captures if tm else ()), *bs)
    return _result(ctx, out_tree, ctx.emit_n(linear_solve_p, ins, params))


@export
def composite(decomposition: Callable[..., Any], name: str, version: int = 0) -> Any:
    """``jax.lax.composite``: a function whose calls are one named composite operation
    (keyword arguments are its static attributes), decomposed by `decomposition`."""

    def call(*args: Any, **kwargs: Any) -> Any:
        leaves, tree = _tree.tree_flatten(args)
        ctx = context(*leaves)
        ins = [operand(v, ctx) for v in leaves]
        made = _trace(ctx, lambda *a: decomposition(*_tree.tree_unflatten(tree, a), **kwargs),
                      [t.aval for t in ins])  # fmt: skip
        params = {"program": made.program, "name": str(name), "version": int(version),
                  "attributes": tuple(sorted(kwargs.items())),
                  "num_consts": len(made.captures)}  # fmt: skip
        outs = ctx.emit_n(composite_p, (*made.captures, *ins), params)
        return _result(ctx, made.out_tree, outs)

    call.__name__ = call.__qualname__ = getattr(decomposition, "__name__", "composite")
    return call


@export
def platform_dependent(*args: Any, default: Callable[..., Any] | None = None,
                       **per_platform: Callable[..., Any]) -> Any:  # fmt: skip
    """``jax.lax.platform_dependent``: the branch for the platform the program runs on
    (weaktrace runs on CPU: the "cpu" branch, else default). Traced, every branch is
    traced and they must agree in type, as jax's switch over platforms requires."""
    branches: list[Callable[..., Any]] = []
    platforms: list[list[str]] = []
    for pname, fn in per_platform.items():
        if not callable(fn):
            raise TypeError(f"lax.platform_dependent: the '{pname}' branch must be a callable.")
        if pname == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for ps, b in zip(platforms, branches, strict=True):
            if b == fn:
                ps.append(pname)
                break
        else:
            platforms.append([pname])
            branches.append(fn)
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        branches.append(default)
        platforms.append([])
    which = next((i for i, ps in enumerate(platforms) if "cpu" in ps), None)
    if which is None:
        if default is None:
            raise NotImplementedError(
                "translation rule for platform_dependent not found for platform cpu: no "
                "branch for the cpu platform (weaktrace runs on CPU); give a 'cpu' branch or "
                f"a default; got {sorted(per_platform)}"
            )
        which = len(branches) - 1
    leaves = _tree.tree_leaves(args)
    ctx = context(*leaves)
    if ctx.eager or len(branches) == 1:  # jax: a concrete platform index calls the branch
        return branches[which](*args)
    return _switch(ctx, lit(ctx, which, by_name("int32")), branches, args)
