"""Tracing behaviour beyond dtypes: inputs, pytrees, statics, explain, eager mode,
the type checker, and every bad-input path raising a named, helpful error."""

from __future__ import annotations

import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp
from weaktrace.ir import AbstractValue, Equation, Program, Var


def test_pytrees_in_and_out_and_abstract_inputs():
    @wt.trace
    def f(params, x):
        return {"y": params["w"] * x + params["b"], "n": x.shape[0]}

    params = {"w": np.ones(3, np.float32), "b": 0.5}
    t = f.trace(params, jax.ShapeDtypeStruct((3,), np.int8))
    assert set(t.out_avals) == {"y", "n"}
    assert t.out_avals["y"] == AbstractValue((3,), np.float32, False)
    assert t.out_avals["n"] == AbstractValue((), np.int32, True)  # a Python int output
    args_avals, kwargs_avals = t.in_avals  # as jax's AOT stages: (args, kwargs)
    assert args_avals[0]["b"] == AbstractValue((), np.float32, True) and kwargs_avals == {}
    weak_struct = jax.ShapeDtypeStruct((), np.float32, weak_type=True)
    assert wt.trace(lambda x: x).trace(weak_struct).out_avals.weak_type


def test_static_argnums_and_argnames():
    f = wt.trace(lambda x, n, *, axis: wnp.sum(x**n, axis=axis), static_argnums=1,
                 static_argnames="axis")  # fmt: skip
    t = f.trace(np.ones((2, 3), np.float32), 3, axis=0)
    assert t.out_avals.shape == (3,)
    assert "integer_pow[y=3]" in str(t)
    with pytest.raises(wt.StaticArgumentError, match="unhashable"):
        f.trace(np.ones(3), [3], axis=0)
    with pytest.raises(wt.StaticArgumentError, match="positional"):
        wt.trace(lambda x: x, static_argnums=2)
    with pytest.raises(wt.StaticArgumentError, match="positional"):
        wt.trace(lambda *xs: xs[0], static_argnums=2).trace(1.0)


def test_explain_lists_every_implicit_promotion_with_source(capsys):
    @wt.trace
    def f(x, y):
        return x * 2.5 + y

    report = f.explain(np.ones(3, np.int8), np.ones(3, np.uint8))
    printed = capsys.readouterr().out
    lines = [str(p) for p in report]
    # int8 joins the weak float (2.5 is already ~f32): ~f32[3]; uint8 joins that: ~f32.
    assert len(report) == 2, lines
    assert all("test_trace.py" in line for line in lines)
    assert "multiply(i8[3], ~f32[]): i8[3] -> ~f32[3]" in printed
    assert "add(~f32[3], u8[3]): u8[3] -> ~f32[3]" in printed
    literal = wt.trace(lambda x: x * 2).explain(np.ones(3, np.int8), file=None).promotions
    assert [(p.literal, str(p.operand), str(p.result)) for p in literal] == [(2, "~i32[]", "i8[]")]
    assert wt.trace(lambda x: x + x).explain(np.ones(2), file=None).promotions == ()


def test_weak_literal_overflow_warns_and_wraps_like_jax():
    f = wt.trace(lambda x: x + 300)
    with pytest.warns(wt.WeakLiteralOverflowWarning, match="300 does not fit uint8"):
        t = f.trace(np.uint8(1))
    assert "44:u8[]" in str(t)  # JAX's value: (1 + 300) mod 256 = 45
    assert int(jnp.uint8(1) + 300) == 45
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wt.trace(lambda x: x + 200).trace(np.uint8(1))  # fits: no warning


def test_eager_mode_is_jax():
    x = jnp.arange(4, dtype=jnp.int8)
    for fn, args in [(wnp.add, (x, 2)), (wnp.true_divide, (x, 3)), (wnp.sum, (x,)),
                     (wnp.where, (x > 1, x, 2.5)), (wnp.floor_divide, (x, -3))]:  # fmt: skip
        ours, theirs = fn(*args), getattr(jnp, fn.__name__)(*args)
        assert ours.dtype == theirs.dtype and ours.weak_type == theirs.weak_type
        np.testing.assert_array_equal(ours, theirs)


def test_typecheck_accepts_traced_and_rejects_wrong_programs():
    t = wt.trace(lambda x: wnp.sin(x) + 1).trace(np.ones(3, np.float32))
    wt.typecheck(t.program)
    eqn = t.program.equations[0]
    bad_out = Var(AbstractValue((3,), np.float16, False))
    bad = t.program._replace(equations=(eqn._replace(outputs=(bad_out,)),), outvars=(bad_out,))
    with pytest.raises(wt.TypeCheckError, match=r"equation 0 \(sin.*f16\[3\].*f32\[3\]"):
        wt.typecheck(bad)
    loose = Var(AbstractValue((3,), np.float32, False))
    undefined = Program(
        t.program.invars, (Equation(eqn.primitive, (loose,), {}, (bad_out,), None),), ()
    )
    with pytest.raises(wt.TypeCheckError, match="before it is defined"):
        wt.typecheck(undefined)


def test_abstract_value_identity():
    a, b = AbstractValue((3,), "float32", True), AbstractValue((3,), np.float32, False)
    assert a != b and hash(a) != hash(b) and str(a) == "~f32[3]" and str(b) == "f32[3]"
    assert {a: 1}[AbstractValue([3], np.dtype("float32"), True)] == 1
    with pytest.raises(ValueError, match="negative"):
        AbstractValue((-1,), "float32")


# -- bad input ---------------------------------------------------------------------------

BAD = [
    ("string argument", lambda: wt.trace(lambda x: x).trace("abc"), wt.InvalidInputError, "not an array"),
    ("None operand", lambda: wt.trace(lambda x: x + None).trace(1.0), TypeError, "unsupported operand"),
    ("object operand", lambda: wt.trace(lambda x: wnp.add(x, object())).trace(1.0), wt.InvalidInputError, "not a valid array value"),
    ("string operand", lambda: wt.trace(lambda x: wnp.multiply(x, "a")).trace(1.0), wt.InvalidInputError, "not a valid array value"),
    ("list operand", lambda: wt.trace(lambda x: wnp.add(x, [1, 2])).trace(1.0), wt.InvalidInputError, "asarray"),
    ("object array", lambda: wt.trace(lambda x: x).trace(np.array([None])), wt.InvalidInputError, "dtype object"),
    ("datetime array", lambda: wt.trace(lambda x: x).trace(np.array(["2020"], "datetime64[D]")), wt.InvalidInputError, "datetime64"),
    ("shape mismatch", lambda: wt.trace(lambda x, y: x + y).trace(np.ones(3), np.ones(4)), wt.ShapeError, "incompatible shapes"),
    ("bad axis", lambda: wt.trace(lambda x: wnp.sum(x, axis=2)).trace(np.ones((2, 3))), wt.ShapeError, "out of bounds"),
    ("bad reshape", lambda: wt.trace(lambda x: x.reshape(4)).trace(np.ones(3)), wt.ShapeError, "cannot reshape"),
    ("index into an empty axis", lambda: wt.trace(lambda x: x[0]).trace(np.ones(0)), IndexError, "out of bounds"),
    ("if on tracer", lambda: wt.trace(lambda x: 1 if x > 0 else 2).trace(1.0), wt.ConcretizationError, "control flow"),
    ("int of tracer", lambda: wt.trace(lambda x: int(x)).trace(1.0), wt.ConcretizationError, "int()"),
    ("numpy on tracer", lambda: wt.trace(lambda x: np.asarray(x)).trace(1.0), wt.ConcretizationError, "numpy"),
    ("hash of tracer", lambda: wt.trace(lambda x: {x: 1}).trace(1.0), TypeError, "unhashable"),
    ("arange of tracer", lambda: wt.trace(lambda n: wnp.arange(n)).trace(3), wt.ConcretizationError, "concrete bounds"),
    ("int overflow arg", lambda: wt.trace(lambda x: x).trace(2**40), OverflowError, "does not fit int32"),
    ("strict promotion", lambda: wt.trace(lambda x, y: x + y, policy=wt.policy("jax", strict=True)).trace(np.int8(1), np.int16(1)), wt.TypePromotionError, "strict"),
    ("float8 x bf16", lambda: wt.trace(lambda x, y: x + y).trace(np.ones(2, jnp.float8_e4m3fn), np.ones(2, jnp.bfloat16)), wt.TypePromotionError, "8-, 6- and 4-bit"),
    ("neg of bool", lambda: wt.trace(lambda x: -x).trace(np.ones(2, bool)), wt.OperandTypeError, "neg does not accept"),
    ("not callable", lambda: wt.trace(3), wt.InvalidInputError, "callable"),
    ("unknown policy", lambda: wt.trace(lambda x: x, policy="nope"), wt.PolicyError, "unknown promotion policy"),
    ("__array__ raises", lambda: wt.trace(lambda x: x).trace(_ArrayRaises()), wt.InvalidInputError, "not an array"),
    ("__array__ raises as operand", lambda: wt.trace(lambda x: x + _ArrayRaises()).trace(1.0), TypeError, "unsupported operand"),
    ("str array", lambda: wt.trace(lambda x: x).trace(np.array(["a"])), wt.InvalidInputError, "<U1"),
    ("void array", lambda: wt.trace(lambda x: x).trace(np.zeros(2, "V4")), wt.InvalidInputError, "V4"),
    ("None argument is an empty pytree", lambda: wt.trace(lambda x: x + 1).trace(None), TypeError, "unsupported operand"),
    ("int beyond int64", lambda: wt.trace(lambda x: x + 2**70).trace(np.ones(2, np.float32)), OverflowError, "does not fit int32"),
    ("int beyond uint64 arg", lambda: wt.trace(lambda x: x).trace(2**65), OverflowError, "does not fit"),
    ("two -1 in reshape", lambda: wt.trace(lambda x: x.reshape(2, -1, -1)).trace(np.ones(4)), wt.ShapeError, "only one dimension"),
    ("empty concatenate", lambda: wt.trace(lambda x: wnp.concatenate([])).trace(1.0), wt.InvalidInputError, "at least one array"),
    ("stack of different shapes", lambda: wt.trace(lambda x, y: wnp.stack([x, y])).trace(np.ones(2), np.ones(3)), wt.ShapeError, "same shape"),
    ("float index", lambda: wt.trace(lambda x: x[1.5]).trace(np.ones(3)), IndexError, "valid indices"),
    ("two ellipses", lambda: wt.trace(lambda x: x[..., ...]).trace(np.ones(3)), IndexError, "single ellipsis"),
    ("too many indices", lambda: wt.trace(lambda x: x[0, 0]).trace(np.ones(3)), IndexError, "too many indices"),
    ("repeated axis", lambda: wt.trace(lambda x: wnp.sum(x, axis=(0, 0))).trace(np.ones((2, 2))), wt.ShapeError, "duplicate value in 'axis'"),
    ("astype to str", lambda: wt.trace(lambda x: x.astype("S3")).trace(np.ones(2)), TypeError, "not a valid JAX array type"),
    ("negative shape", lambda: wt.trace(lambda x: wnp.full((2, -1), x)).trace(1.0), wt.ShapeError, "negative dimensions"),
    ("matmul of scalars", lambda: wt.trace(lambda x: x @ x).trace(1.0), wt.ShapeError, "ndim at least 1"),
    ("where with one argument", lambda: wt.trace(lambda x: wnp.where(x)).trace(np.ones(2)), wt.ConcretizationError, "size="),
    ("complex clip", lambda: wt.trace(lambda x: wnp.clip(x, 0, 1)).trace(np.ones(2, np.complex64)), wt.OperandValueError, "no order"),
    ("bad policy option", lambda: wt.policy("jax", strict="yes"), wt.PolicyError, "True, False or None"),
    ("device as a string", lambda: wt.trace(lambda x: x, device="cpu"), wt.InvalidInputError, "jax.Device"),
    ("recursion", lambda: wt.trace(_recurse).trace(1.0), RecursionError, "recursion"),
    ("keyboard interrupt", lambda: wt.trace(_interrupt).trace(1.0), KeyboardInterrupt, ""),
    ("numpy overflow", lambda: wt.trace(lambda x: x + 300, policy="numpy").trace(np.ones(2, np.int8)), OverflowError, "Python integer 300 out of bounds for int8"),
    ("torch uint16 mix", lambda: wt.trace(lambda x, y: x + y, policy="torch").trace(np.ones(2, np.uint16), np.ones(2, np.int8)), wt.TypePromotionError, "uint16"),
]  # fmt: skip


class _ArrayRaises:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array here")


def _recurse(x):
    return _recurse(x + 1)


def _interrupt(x):
    _ = x + 1  # mid-trace: an equation is recorded, then the user hits Ctrl-C
    raise KeyboardInterrupt


ACCEPTED = [  # hostile-looking input that JAX accepts: the same result, JAX's numbers
    ("NaN literal", lambda xnp: lambda x: x + float("nan"), np.ones(2, np.int8)),
    ("inf literal", lambda xnp: lambda x: x * float("inf"), np.ones(2, np.float16)),
    ("negative int with unsigned", lambda xnp: lambda x: x + (-1), np.ones(2, np.uint8)),
    (
        "int64-sized int under x32 cast to float",
        lambda xnp: lambda x: x + 2.0**40,
        np.ones(2, np.int32),
    ),
]


@pytest.mark.parametrize(("what", "make", "arg"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_hostile_looking_input_jax_accepts(what, make, arg):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = jax.jit(make(jnp))(arg)
        got = wt.trace(make(wnp))(arg)
    assert (got.dtype, got.weak_type) == (expected.dtype, expected.weak_type)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def test_catalogue_is_at_least_30_rows():
    assert len(BAD) >= 30


@pytest.mark.parametrize(("what", "call", "error", "fragment"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_named_error(what, call, error, fragment):
    import re

    from weaktrace.core.trace import current

    with pytest.raises(error, match=re.escape(fragment)):
        call()
    assert current() is None  # no trace left open
    assert wt.trace(lambda x: x * 2).trace(1.0).out_avals.weak_type  # and the next one works
    if issubclass(error, wt.WeaktraceError):  # our messages say what to do
        with pytest.raises(error) as info:
            call()
        assert len(str(info.value)) > 40


def test_tracer_leak_is_caught():
    leaked = []
    wt.trace(lambda x: leaked.append(x) or x).trace(np.ones(2))
    with pytest.raises(wt.TracerLeakError, match="after the trace"):
        wt.trace(lambda y: y + leaked[0]).trace(np.ones(2))
    with pytest.raises(wt.TracerLeakError, match="after the trace"):
        wnp.sin(leaked[0])


def test_exception_in_user_function_leaves_clean_state():
    def boom(x):
        raise RuntimeError("user bug")

    with pytest.raises(RuntimeError, match="user bug"):
        wt.trace(boom).trace(1.0)
    from weaktrace.core.trace import current

    assert current() is None
    assert str(wt.trace(lambda x: x + 1).trace(np.int8(1)).out_avals) == "i8[]"


def test_traces_are_per_thread():
    results = {}

    def work(i):
        t = wt.trace(lambda x: wnp.sum(x * i)).trace(np.ones(100, np.float32))
        results[i] = len(t.program.equations)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == {i: 2 for i in range(8)}


def _body_a(x, y, wait):
    x = x * 2.0 + y  # line A1
    wait()
    return wnp.sin(x) - y * 0.5  # line A2


def _body_b(x, y, wait):
    x = wnp.maximum(x, 3) - y  # line B1
    wait()
    return x * x + 1  # line B2


def test_source_lines_are_per_trace_under_threads():
    """Each trace's equations carry the lines of its own function, with two threads
    tracing at once and interleaving between their lines (the pinned line of a public
    call belongs to the trace recording it, not to the process)."""
    barrier = threading.Barrier(2, timeout=30)
    lines = {}

    def work(name, body):
        x, y = np.ones(4, np.float32), np.ones(4, np.int8)
        t = wt.trace(lambda a, b: body(a, b, barrier.wait)).trace(x, y)
        lines[name] = {(e.source_info.function, e.source_info.line) for e in t.program.equations}

    threads = [
        threading.Thread(target=work, args=(n, b)) for n, b in (("a", _body_a), ("b", _body_b))
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for name, body in (("a", _body_a), ("b", _body_b)):
        first = body.__code__.co_firstlineno
        assert lines[name] == {(body.__name__, first + 1), (body.__name__, first + 3)}, name


@pytest.mark.parametrize("was_on", [True, False])
def test_trace_leaves_the_gc_as_it_found_it(was_on):
    """Tracing pauses the cyclic GC and hands its records to the oldest generation at
    the end; the GC's state, and objects the user froze, are left as they were."""
    import gc

    (gc.enable if was_on else gc.disable)()
    kept = [[object()] for _ in range(10)]
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        seen = []
        wt.trace(lambda v: seen.append(gc.isenabled()) or v * 2).trace(np.ones(3, np.float32))
        assert seen == [False] and gc.isenabled() is was_on
        # the user's frozen objects stay frozen (a few may be freed meanwhile)
        assert frozen - 100 <= gc.get_freeze_count() <= frozen
        gc.unfreeze()
        wt.trace(lambda v: v * 2).trace(np.ones(3, np.float32))
        assert gc.get_freeze_count() == 0 and gc.isenabled() is was_on
    finally:
        gc.unfreeze()
        gc.enable()
    assert kept


SLICES = [np.s_[::-1], np.s_[::-2], np.s_[4:1:-3], np.s_[3:0:-2], np.s_[2::-2], np.s_[-1:-6:-4],
          np.s_[1:4:2], np.s_[5:0:-1], np.s_[0:0:-1], np.s_[::3], np.s_[None, 1:, None], np.s_[..., -2]]  # fmt: skip


@pytest.mark.parametrize("key", SLICES, ids=[str(k) for k in SLICES])
def test_static_indexing_matches_jax(key):
    x = np.arange(30, dtype=np.int32).reshape(5, 6)
    ours = wt.trace(lambda a: a[key])(x)
    theirs = jax.jit(lambda a: a[key])(x)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("i", [0, 3, -1, -5])
def test_traced_and_array_indexing_matches_jax(i):
    x = np.arange(30, dtype=np.float32).reshape(5, 6)

    def cases(xnp):
        return [lambda a, j: a[j], lambda a, j: a[:, j], lambda a, j: a[xnp.asarray([j, 0, -2])],
                lambda a, j: a[1, j]]  # fmt: skip

    for ours_f, jax_f in zip(cases(wnp), cases(jnp), strict=True):
        ours, theirs = wt.trace(ours_f)(x, i), jax.jit(jax_f)(x, i)
        assert (ours.shape, ours.dtype, ours.weak_type) == (
            theirs.shape,
            theirs.dtype,
            theirs.weak_type,
        )
        np.testing.assert_array_equal(ours, theirs)
    idx = np.array([[0, -1], [2, 4]])
    np.testing.assert_array_equal(
        wt.trace(lambda a, k: a[k])(x, idx), jax.jit(lambda a, k: a[k])(x, idx)
    )
    with pytest.raises(TypeError, match="list as an index"):
        wt.trace(lambda a: a[[0, 1]]).trace(x)


@pytest.mark.parametrize("shape", [None, (2, 3), (4,)])
def test_zeros_like_with_shape_matches_jax(shape):
    x = np.ones(3, np.int8)
    for make in (
        lambda m: lambda a: m.zeros_like(a, shape=shape),
        lambda m: lambda a: m.ones_like(a, np.float16, shape),
    ):
        o, t = wt.trace(make(wnp))(x), jax.jit(make(jnp))(x)
        assert (o.shape, o.dtype, o.weak_type) == (t.shape, t.dtype, t.weak_type)
        np.testing.assert_array_equal(o, t)
