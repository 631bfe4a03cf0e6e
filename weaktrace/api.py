"""``weaktrace.trace``: trace a Python function to a typed Program, explain it.

Stages mirror JAX's AOT API: ``f.trace(*args)`` gives a `Traced` with the program
and the output avals.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import linecache
import math
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

import jax
import numpy as np

from weaktrace.core.arguments import (
    NUMBERS,
    Marked,
    in_dtypes,
    is_marked,
    refuse_scalar_subclasses,
    signature,
    stand_in,
)
from weaktrace.core.operands import abstractify
from weaktrace.core.program import make_program
from weaktrace.core.trace import Promotion
from weaktrace.dtypes import registry
from weaktrace.dtypes.policies import Policy, as_policy
from weaktrace.dtypes.policies.base import INT64_MAX, INT64_MIN, ValueCheck
from weaktrace.errors import (
    InvalidInputError,
    StaticArgumentError,
    WeaktraceError,
)
from weaktrace.ir.printer import pp_program
from weaktrace.ir.values import AbstractValue, Program
from weaktrace.lowering import stages
from weaktrace.lowering.dispatch import dispatcher
from weaktrace.lowering.evaluate import eval_program


@dataclasses.dataclass(frozen=True)
class Explanation:
    """Every implicit promotion a trace performed, in program order."""

    promotions: tuple[Promotion, ...]

    def __str__(self) -> str:
        if not self.promotions:
            return "no implicit promotions"
        return "\n".join(str(p) for p in self.promotions)

    def __repr__(self) -> str:
        return f"Explanation({len(self.promotions)} implicit promotions)"

    def __len__(self) -> int:
        return len(self.promotions)

    def __iter__(self) -> Any:
        return iter(self.promotions)


@dataclasses.dataclass(frozen=True)
class Traced:
    """A traced function: its program, input and output avals, promotions."""

    program: Program
    in_avals: Any  # pytree of AbstractValue (the dynamic arguments)
    out_avals: Any  # pytree of AbstractValue
    in_tree: Any
    out_tree: Any
    promotions: tuple[Promotion, ...]
    policy: Policy  # resolved: every option pinned as it was when the trace ran
    fun: Callable[..., Any]
    jit_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    pin_x64: bool | None = None  # the x64 mode jax runs the program under (None: jax's)

    def __str__(self) -> str:
        return pp_program(self.program)

    def lower(self) -> stages.Lowered:
        """Lower to StableHLO through ``jax.jit`` (``.as_text()``, ``.compile()``)."""
        flat = jax.tree_util.tree_leaves(self.in_avals, is_leaf=_is_aval)
        name = getattr(self.fun, "__name__", "run")
        return stages.lower(self.program, flat, self.in_tree, self.out_tree, self.policy,
                            self.pin_x64, self.jit_options, name)  # fmt: skip

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython
        p.text(str(self))

    def _repr_html_(self) -> str:
        """The program, weak types highlighted (they are what JAX's printing hides)."""
        import html
        import re

        text = html.escape(str(self))
        text = re.sub(r"(~[a-z0-9_]+\[[0-9,]*\])", r'<b style="color:#b35900">\1</b>', text)
        return f"<pre>{text}</pre>"

    def explain(self) -> Explanation:
        return Explanation(self.promotions)


def _normalize_argnums(nums: int | Iterable[int] | None, what: str) -> tuple[int, ...]:
    if nums is None:
        return ()
    items = (nums,) if isinstance(nums, int) else tuple(nums)
    for n in items:
        if not isinstance(n, int):
            raise StaticArgumentError(f"{what} must be ints, got {n!r}")
    return items


def _is_aval(x: Any) -> bool:
    return isinstance(x, AbstractValue)


def _policy_x64(policy: Policy) -> bool | None:
    """The x64 mode a policy pins (None: it follows jax's config)."""
    return policy.x64


_MAKE_JIT = threading.Lock()
_NO_STATICS: dict[Any, Any] = {}  # read only: no static arguments


class TracedFunction:
    """The result of ``@weaktrace.trace``: call it, ``.trace`` it, ``.explain`` it."""

    fun: Callable[..., Any]

    def __init__(
        self,
        fun: Callable[..., Any],
        *,
        policy: Policy | str | None = None,
        static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Sequence[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        **jit_options: Any,
    ) -> None:
        if isinstance(fun, TracedFunction):  # re-decorating: trace the original function
            fun = fun.fun
        if not callable(fun):
            raise InvalidInputError(
                f"weaktrace.trace needs a callable, got {fun!r} ({type(fun).__name__}); "
                "decorate a function with @weaktrace.trace or pass one: weaktrace.trace(f)."
            )
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.__name__: str = getattr(fun, "__name__", type(fun).__name__)
        self.policy = as_policy(policy)
        self.static_argnums = _normalize_argnums(static_argnums, "static_argnums")
        names = (static_argnames,) if isinstance(static_argnames, str) else static_argnames
        self.static_argnames = tuple(names or ())
        self.donate_argnums = _normalize_argnums(donate_argnums, "donate_argnums")
        self.jit_options = _jit_options(jit_options)
        self.traces = 0  # how often jax.jit traced us: one per compile-cache entry
        self._x64 = _policy_x64(self.policy)

        # (in_tree, leaf signatures) -> {leaf: [ValueCheck]}: Python numbers to check
        self._int_targets: dict[Any, dict[int, Any]] = {}
        pol = type(self.policy)
        self._may_check_ints = (self.policy.literal_overflow == "raise"
                                or pol.overflow is not Policy.overflow)  # fmt: skip
        self._jitted: Any = None
        # jax.jit is made on the first call (``.trace`` / ``.explain`` never pay for
        # it), or now when jax must check argnums against the signature.
        if self.static_argnums or self.static_argnames or self.donate_argnums or jit_options:
            self._make_jit()

    def _make_jit(self) -> None:
        # Calls go through jax.jit's own C++ dispatch and cache: a repeat call costs
        # what a jax.jit call costs, and weak and strong inputs get separate entries
        # exactly where jax's do.
        fun = self.fun

        def run(*args: Any, **kwargs: Any) -> Any:
            return self._run(*args, **kwargs)

        functools.update_wrapper(run, fun)  # names the module; gives jit the signature
        try:
            self._jitted = jax.jit(
                run,
                static_argnums=self.static_argnums or None,
                static_argnames=self.static_argnames or None,
                donate_argnums=self.donate_argnums or None,
                **self.jit_options,
            )
        except (TypeError, ValueError) as err:  # jax checks argnums against the signature
            raise StaticArgumentError(
                f"{self.__name__}: {err} Fix static_argnums / static_argnames / "
                "donate_argnums to name arguments the function has."
            ) from None
        # Calls cost what a jax.jit call costs: the instance gets a class of its own
        # whose __call__ is a plain function around jax.jit's C++ dispatch (no bound
        # method, no attribute lookups). See `weaktrace.lowering.dispatch`.
        call = dispatcher(self._jitted, fun, self._x64, self._check_ints, self._scalar_wrapper())
        cls = type(self)
        self.__class__ = type(cls.__name__, (cls,), {"__call__": staticmethod(call)})

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Trace (on the first call for these types), compile, and run on the device.

        Called inside another weaktrace trace, it is traced inline (as jax.jit inside
        jax.jit is), under the outer trace's policy.
        """
        if self._jitted is None:
            with _MAKE_JIT:  # threads racing on a first call share one jax.jit
                if self._jitted is None:
                    self._make_jit()
        return dispatcher(self._jitted, self.fun, self._x64, self._check_ints,
                           self._scalar_wrapper())(*args, **kwargs)  # fmt: skip

    def _scalar_wrapper(self) -> Callable[..., Any] | None:
        """What marks the Python scalar arguments jax.jit would misread (see
        `Marked`), for policies that have such (None elsewhere)."""
        pol = self.policy.resolve()
        weak_bools = pol.scalar(bool)[1]
        big_ints = type(pol).python_int is not Policy.python_int
        lowers = type(pol).lowering_dtype is not Policy.lowering_dtype
        # Python floats / complexes the policy types otherwise than jax.jit (x64) does:
        # torch's default float32 (see `_run`)
        numbers = tuple(t for t, jax_dt in ((float, "float64"), (complex, "complex128"))
                        if self._x64 and pol.scalar(t)[0].name != jax_dt)  # fmt: skip
        if not (weak_bools or big_ints or lowers or numbers):
            return None

        def leaf(x: Any) -> Any:
            if x.__class__ is bool and weak_bools:
                return Marked(x, True)
            if x.__class__ in numbers:
                return Marked(x, x.__class__())  # one stand-in (0.0, 0j): one cache entry
            if x.__class__ is int and big_ints and not INT64_MIN <= x <= INT64_MAX:
                dt = pol.python_int(x)[0]  # raises beyond the policy's range
                return Marked(np.asarray(x, dt.numpy), (x > 0 and INT64_MAX + 1) or INT64_MIN)
            if lowers and isinstance(x, np.ndarray | np.generic):
                known = registry.from_numpy(x.dtype)
                low = known if known is None else pol.lowering_dtype(known)
                if (
                    low is not None and low is not known
                ):  # complex32 computes (and enters jax) as complex64
                    return Marked(np.asarray(x).astype(low.numpy),
                                   jax.ShapeDtypeStruct(np.shape(x), x.dtype))  # fmt: skip
            return x

        def wrap(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            statics = self._split(args, kwargs)[0]
            args = tuple(a if i in statics else jax.tree_util.tree_map(leaf, a)
                         for i, a in enumerate(args))  # fmt: skip
            kwargs = {k: v if k in self.static_argnames else jax.tree_util.tree_map(leaf, v)
                      for k, v in kwargs.items()}  # fmt: skip
            return args, kwargs

        return wrap

    def _check_ints(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        """NumPy's value check of Python int arguments (``np.uint8(1) + 256`` raises):
        the trace recorded which integer dtype each one is converted to. Returns False
        when no trace has recorded that yet (the caller checks again after the call)."""
        if not self._int_targets and not self._may_check_ints:
            return True
        _, dyn_args, dyn_kwargs, _ = self._split(args, kwargs)
        leaves, in_tree = jax.tree_util.tree_flatten((dyn_args, dyn_kwargs))
        if not self.policy.scalar_subclasses_weak:
            refuse_scalar_subclasses(leaves, self.policy)
        targets = self._int_targets.get((in_tree, *map(signature, leaves)))
        if targets is None:
            return False
        for i, checks in targets.items():
            x = leaves[i]
            if x.__class__ is not int and (x.__class__ is not float or not math.isfinite(x)):
                continue
            for c in checks:
                if not c.lo <= x <= c.hi:
                    raise c.error(c.message.format(value=x, dtype=c.dtype))
        return True

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        """What jax.jit traces: our trace for the arguments' types, then the program
        evaluated with the lax lowering rules."""
        self.traces += 1
        traced, leaves = self._trace(args, kwargs, jit_view=True)
        stages.warn_lowered_dtypes(traced.policy, traced.program)
        outs = eval_program(traced.program, leaves, traced.policy)
        flat = jax.tree_util.tree_leaves((args, kwargs), is_leaf=is_marked)
        if any(x.__class__ is Marked and x.python.__class__ in NUMBERS for x in flat):
            # A Python float entered jax as float64 (x64), and the program computed with
            # it as such (each operation converts it where it meets other operands, so
            # f64_array + 0.1 adds 0.1, not 0.1 rounded to float32). The results leave in
            # the dtypes the policy traces them to (identity(2.5) is float32, as
            # f.trace(2.5) says and torch.tensor(2.5) is).
            wanted = self._trace(args, kwargs)[0].program.outvars
            outs = in_dtypes(outs, [v.aval for v in wanted], traced.policy)
        return jax.tree_util.tree_unflatten(traced.out_tree, outs)

    def lower(self, *args: Any, **kwargs: Any) -> stages.Lowered:
        """``f.trace(*args).lower()``."""
        return self.trace(*args, **kwargs).lower()

    def __repr__(self) -> str:
        return f"<weaktrace.trace of {getattr(self.fun, '__qualname__', self.fun)!r}>"

    def _split(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not self.static_argnums and not self.static_argnames:
            return _NO_STATICS, args, kwargs, _NO_STATICS
        n = len(args)
        statics = {}
        for i in self.static_argnums:
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise StaticArgumentError(
                    f"static_argnums={i} but {self.__name__} was called with {n} positional "
                    "arguments"
                )
            statics[j] = args[j]
        for name, value in [*statics.items(), *((k, v) for k, v in kwargs.items()
                                                  if k in self.static_argnames)]:  # fmt: skip
            try:
                hash(value)
            except TypeError:
                raise StaticArgumentError(
                    f"static argument {name!r} of {self.__name__} has unhashable type "
                    f"{type(value).__name__}: static arguments key the compile cache, so they "
                    "must be hashable. Pass a tuple instead of a list, or make it dynamic."
                ) from None
        dyn_args = tuple(a for i, a in enumerate(args) if i not in statics)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        static_kwargs = {k: v for k, v in kwargs.items() if k in self.static_argnames}
        return statics, dyn_args, dyn_kwargs, static_kwargs

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Trace with the given arguments (arrays, scalars, ShapeDtypeStructs)."""
        with stages.x64_mode(self._x64):
            return self._trace(args, kwargs)[0]

    def _trace(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], jit_view: bool = False
    ) -> tuple[Traced, list[Any]]:
        """The trace of the arguments; `jit_view`: Python numbers marked for their
        dtype (see `_run`) are traced as the values jax.jit passes."""
        statics, dyn_args, dyn_kwargs, static_kwargs = self._split(args, kwargs)
        leaves, in_tree = jax.tree_util.tree_flatten((dyn_args, dyn_kwargs), is_leaf=is_marked)
        key = (in_tree, *map(signature, leaves))  # the per-call checks' (see _check_ints)
        pol = self.policy.resolve()
        in_avals = [abstractify(stand_in(x, jit_view), pol) for x in leaves]
        leaves = [x.value if x.__class__ is Marked else x for x in leaves]

        def flat_fun(*tracers: Any) -> Any:
            t_args, t_kwargs = jax.tree_util.tree_unflatten(in_tree, tracers)
            it = iter(t_args)
            full = [statics[i] if i in statics else next(it) for i in range(len(args))]
            return self.fun(*full, **t_kwargs, **static_kwargs)

        made = make_program(flat_fun, in_avals, pol)
        if made.int_checks:
            index = {v: i for i, v in enumerate(made.program.invars)}
            targets: dict[int, list[ValueCheck]] = {}
            for v, check in made.int_checks:
                if v in index:
                    if check.__class__ is not ValueCheck:  # an integer dtype: its range
                        lo, hi = pol.int_range(check)
                        check = ValueCheck(check, lo, hi, _OUT_OF_BOUNDS)
                    targets.setdefault(index[v], []).append(check)
            self._int_targets[key] = targets
        traced = Traced(
            made.program,
            jax.tree_util.tree_unflatten(in_tree, in_avals),
            jax.tree_util.tree_unflatten(made.out_tree, made.out_avals),
            in_tree,
            made.out_tree,
            made.promotions,
            pol,
            self.fun,
            {k: v for k, v in self.jit_options.items() if k != "static_argnums"},
            self._x64,
        )
        return traced, leaves

    def explain(self, *args: Any, file: TextIO | None = None, **kwargs: Any) -> Explanation:
        """Print (to `file`, default stdout) and return every implicit promotion."""
        report = self.trace(*args, **kwargs).explain()
        print(report, file=file or sys.stdout)
        return report


_OUT_OF_BOUNDS = "Python integer {value} out of bounds for {dtype}"


def _jit_options(options: dict[str, Any]) -> dict[str, Any]:
    """jax.jit options passed through; ``device=`` becomes single-device shardings."""
    if not options:
        return {}
    out = dict(options)
    device = out.pop("device", None)
    if device is not None:
        if not isinstance(device, jax.Device):
            raise InvalidInputError(
                f"device= must be a jax.Device (e.g. jax.devices()[0]), got {device!r}"
            )
        sharding = jax.sharding.SingleDeviceSharding(device)
        out.setdefault("in_shardings", sharding)
        out.setdefault("out_shardings", sharding)
    for key in ("in_shardings", "out_shardings"):
        bad = [
            s
            for s in jax.tree_util.tree_leaves(out.get(key))
            if not isinstance(s, jax.sharding.Sharding)
        ]
        if bad:
            raise InvalidInputError(
                f"{key} must be jax.sharding.Sharding objects (e.g. NamedSharding(mesh, "
                f"PartitionSpec('x'))) or a pytree of them; got {bad[0]!r}"
            )
    allowed = {"in_shardings", "out_shardings", "keep_unused", "inline", "backend"}
    unknown = set(out) - allowed
    if unknown:
        raise InvalidInputError(
            f"unsupported jit options {sorted(unknown)}; weaktrace.trace passes through "
            f"{sorted(allowed | {'device', 'static_argnums', 'static_argnames', 'donate_argnums'})}"
        )
    return out


def trace(
    fun: Callable[..., Any] | None = None,
    *,
    policy: Policy | str | None = None,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    **jit_options: Any,
) -> Any:
    """Decorate a function for tracing, as ``@weaktrace.trace`` or ``@weaktrace.trace(...)``.

    >>> import numpy as np, weaktrace as wt, weaktrace.numpy as wnp
    >>> @wt.trace
    ... def f(x, y):
    ...     return wnp.sin(x) * 2 + y
    >>> print(f.trace(np.ones(3, np.float32), 1.5))
    { lambda ; a:f32[3] b:~f32[]. let
        c:f32[3] = sin a
        d:f32[3] = mul c 2.0:f32[]
        e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
        f:f32[3] = add d e
      in (f,) }
    """
    options = dict(
        policy=policy,
        static_argnums=static_argnums,
        static_argnames=static_argnames,
        donate_argnums=donate_argnums,
        **jit_options,
    )
    if fun is None:
        return lambda f: TracedFunction(f, **options)
    return TracedFunction(fun, **options)


# -- compare: where promotion policies disagree -------------------------------------


@dataclasses.dataclass(frozen=True)
class Row:
    """One output, or one source line: what each policy gives there."""

    label: str
    code: str
    cells: tuple[str, ...]  # one per policy; "" where that policy has nothing here

    @property
    def differs(self) -> bool:
        return len(set(self.cells)) > 1


@dataclasses.dataclass(frozen=True, repr=False)
class Comparison:
    """The report `compare` returns."""

    policies: tuple[str, ...]
    outputs: tuple[Row, ...]
    lines: tuple[Row, ...]
    errors: dict[str, str]

    @property
    def differences(self) -> list[Row]:
        """Rows (outputs first, then source lines) where the policies disagree."""
        return [r for r in (*self.outputs, *self.lines) if r.differs]

    def __str__(self) -> str:
        head = ["", "code", *self.policies, ""]
        rows = [head]
        for section, items in (("output", self.outputs), ("line", self.lines)):
            for r in items:
                rows.append(
                    [
                        f"{section} {r.label}",
                        r.code[:40],
                        *r.cells,
                        "<- differs" if r.differs else "",
                    ]
                )
        widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
        text = [
            " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        ]
        text.insert(1, "-+-".join("-" * w for w in widths))
        for name, err in self.errors.items():
            text.append(f"{name}: raised {err}")
        n = len(self.differences)
        text.append(f"{n} row(s) differ" if n else "no differences")
        return "\n".join(text)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        cols = "".join(f"<th>{html.escape(p)}</th>" for p in self.policies)
        body = []
        for section, items in (("output", self.outputs), ("line", self.lines)):
            for r in items:
                style = ' style="background:#fde2e1"' if r.differs else ""
                cells = "".join(f"<td><code>{html.escape(c)}</code></td>" for c in r.cells)
                body.append(
                    f"<tr{style}><td>{section} {html.escape(r.label)}</td>"
                    f"<td><code>{html.escape(r.code)}</code></td>{cells}</tr>"
                )
        errors = "".join(
            f"<p><b>{html.escape(k)}</b> raised {html.escape(v)}</p>"
            for k, v in self.errors.items()
        )
        return (
            f"<table><thead><tr><th></th><th>code</th>{cols}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{errors}"
        )


def compare(
    fun: Callable[..., Any],
    *args: Any,
    policies: Sequence[Policy | str] = ("jax", "numpy", "torch"),
    **kwargs: Any,
) -> Comparison:
    """Trace `fun` under each policy and report where dtypes or weak flags differ.

    >>> import numpy as np, weaktrace as wt
    >>> report = wt.compare(lambda x: x * 0.5, np.ones(3, np.int8), policies=["jax", "numpy"])
    >>> [r.cells for r in report.outputs]
    [('~f32[3]', 'f64[3]')]
    """
    resolved = [as_policy(p) for p in policies]
    names = tuple(_policy_name(p) for p in resolved)
    traced: list[Any] = []
    errors: dict[str, str] = {}
    for name, pol in zip(names, resolved, strict=True):
        try:
            traced.append(trace(fun, policy=pol).trace(*args, **kwargs))
        except (WeaktraceError, OverflowError, TypeError, ValueError) as err:
            errors[name] = f"{type(err).__name__}: {err}"
            traced.append(None)
    return Comparison(names, _outputs(traced), _lines(traced), errors)


def _policy_name(p: Policy) -> str:
    """'jax', 'jax strict', 'jax x64', 'numpy', ...: the name and any pinned option."""
    options = [k for k in ("strict", "x64") if getattr(p, k, None) is True and p.name == "jax"]
    return " ".join([p.name, *options])


def _outputs(traced: list[Any]) -> tuple[Row, ...]:
    per_policy = [
        None if t is None else jax.tree_util.tree_flatten_with_path(t.out_avals)[0] for t in traced
    ]
    count = max((len(x) for x in per_policy if x is not None), default=0)
    rows = []
    for i in range(count):
        cells, label = [], str(i)
        for leaves in per_policy:
            if leaves is None or i >= len(leaves):
                cells.append("error" if leaves is None else "")
                continue
            path, aval = leaves[i]
            label = jax.tree_util.keystr(path) or label
            cells.append(str(aval))
        rows.append(Row(label, "", tuple(cells)))
    return tuple(rows)


def _lines(traced: list[Any]) -> tuple[Row, ...]:
    """Per source line, the type of the last equation recorded there (the value the
    line produces), for each policy."""
    order: dict[tuple[str, int], None] = {}
    per_policy: list[dict[tuple[str, int], str]] = []
    for t in traced:
        seen: dict[tuple[str, int], str] = {}
        for eqn in () if t is None else t.program.equations:
            if eqn.source_info is None:
                continue
            key = (eqn.source_info.file, eqn.source_info.line)
            order.setdefault(key)
            seen[key] = str(eqn.outputs[0].aval)
        per_policy.append(seen)
    return tuple(
        Row(
            f"{file.rsplit('/', 1)[-1]}:{line}",
            linecache.getline(file, line).strip(),
            tuple(p.get((file, line), "") for p in per_policy),
        )
        for file, line in order
    )
