"""Policies beyond JAX, against the real libraries at test time: NumPy 2 vs numpy,
PyTorch vs torch, MAX vs its reference lattice, user lattices, and compare."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import weaktrace as wt
import weaktrace.numpy as wnp
from weaktrace.dtypes import Lattice, registry
from weaktrace.dtypes.policies import max_lattice

torch = pytest.importorskip("torch")

NP_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64", "complex64", "complex128"]  # fmt: skip
TORCH_DTYPES = [*NP_DTYPES, "bfloat16", "complex32", "float8_e4m3fn", "float8_e5m2"]
SCALARS = [True, 3, -7, 300, 2**40, 2**70, 2.5, 1e300, 1j]


def outcome(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args)
        except Exception as e:  # compared by family below
            return e


def same(ours, theirs, context):
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), (
            f"{context}: library raised {theirs!r}, we gave {ours!r}"
        )
        return
    assert not isinstance(ours, Exception), (
        f"{context}: we raised {ours!r}, library gave {theirs!r}"
    )
    assert ours == theirs, f"{context}: ours {ours}, library {theirs}"


def tdt(name):
    return getattr(torch, name)


def tname(dt):
    return str(dt).rsplit(".", 1)[-1]


# -- NumPy -------------------------------------------------------------------------------------


def test_numpy_promote_types_every_pair():
    pol = wt.policy("numpy")
    for a, b in itertools.product(NP_DTYPES, repeat=2):
        same(outcome(pol.promote_types, a, b), outcome(np.promote_types, a, b), f"{a}, {b}")


def test_numpy_binary_ops_every_pair_with_arrays_0d_arrays_and_python_scalars():
    """Traced a + b (and a / b) under the numpy policy has numpy's dtype, and raises
    NumPy's OverflowError where numpy does."""
    forms = [np.ones(2, d) for d in NP_DTYPES] + [np.ones((), d) for d in NP_DTYPES] + SCALARS
    for a, b in itertools.product(forms[:28], forms):
        for op in (np.add, np.true_divide, np.less):
            theirs = outcome(lambda x, y: op(x, y).dtype, a, b)
            wop = getattr(wnp, op.__name__)
            # Python scalars are constants of the program (as in numpy code), arrays inputs.
            fn = (lambda x, y=b: wop(x, y)) if isinstance(b, bool | int | float | complex) else wop
            args = (a,) if fn is not wop else (a, b)
            ours = outcome(lambda *v: wt.trace(fn, policy="numpy").trace(*v).out_avals.dtype, *args)
            same(ours, theirs, f"{op.__name__}({a!r}, {b!r})")
            if isinstance(theirs, OverflowError):
                assert isinstance(ours, OverflowError), (a, b)
                if "out of bounds" in str(theirs):  # NumPy's value-based message, verbatim
                    assert str(ours) == str(theirs)


def test_numpy_result_type_with_python_scalars():
    pol = wt.policy("numpy")
    for d, s in itertools.product(NP_DTYPES, SCALARS):
        same(
            outcome(pol.result_type, np.ones(2, d), s),
            outcome(np.result_type, np.ones(2, d), s),
            f"{d}, {s!r}",
        )


# -- PyTorch ----------------------------------------------------------------------------------


def test_torch_promote_types_every_pair():
    pol = wt.policy("torch")
    for a, b in itertools.product(TORCH_DTYPES, repeat=2):
        theirs = outcome(lambda: tname(torch.promote_types(tdt(a), tdt(b))))
        ours = outcome(lambda: registry.as_dtype(pol.promote_types(a, b)).name)
        same(ours, theirs, f"promote_types({a}, {b})")


def _torch_forms():
    for d in TORCH_DTYPES:
        yield (f"{d}[2]", torch.ones(2, dtype=tdt(d)), np.ones(2, registry.by_name(d).numpy))
        yield (f"{d}[]", torch.ones((), dtype=tdt(d)), np.ones((), registry.by_name(d).numpy))
    for s in (True, 3, 2.5, 1j):
        yield (repr(s), s, s)


def test_torch_result_type_tensors_zero_dim_and_wrapped_numbers():
    """torch.result_type against our policy, and the traced a + b against torch's actual
    a + b, for every pair of dimensioned, 0-dim and Python-number operands."""
    forms = list(_torch_forms())
    pol = wt.policy("torch")
    for (na, ta, xa), (nb, tb, xb) in itertools.product(forms, repeat=2):
        if not isinstance(ta, torch.Tensor) and not isinstance(tb, torch.Tensor):
            continue  # torch has no op on two Python numbers
        theirs = outcome(lambda: tname(torch.result_type(ta, tb)))
        ours = outcome(lambda: registry.as_dtype(pol.result_type(xa, xb)).name)
        same(ours, theirs, f"result_type({na}, {nb})")
        traced = outcome(lambda: registry.as_dtype(
            wt.trace(wnp.add, policy="torch").trace(xa, xb).out_avals.dtype).name)  # fmt: skip
        same(traced, theirs, f"traced {na} + {nb}")


@pytest.mark.parametrize("d", ["bool", "int8", "uint8", "int32", "int64"])
def test_torch_integer_true_division_gives_the_default_float(d):
    t = torch.ones(3, dtype=tdt(d))
    x = np.ones(3, registry.by_name(d).numpy)
    for other_t, other_x in ((t, x), (2, 2), (torch.tensor(2), np.int64(2))):
        expected = tname((t / other_t).dtype)
        got = wt.trace(wnp.true_divide, policy="torch").trace(x, other_x).out_avals.dtype
        assert got == np.dtype(expected)


def test_torch_reductions_and_errors():
    f = wt.trace(lambda x: wnp.sum(x), policy="torch")
    assert f.trace(np.ones(3, np.int8)).out_avals.dtype == np.dtype(
        tname(torch.ones(3, dtype=torch.int8).sum().dtype)
    )
    with pytest.raises(wt.OperandTypeError, match="mean"):
        wt.trace(lambda x: wnp.mean(x), policy="torch").trace(np.ones(3, np.int8))
    with pytest.raises(RuntimeError):
        torch.ones(3, dtype=torch.int8).mean()
    with pytest.raises(wt.TypePromotionError, match="Float8"):
        wt.trace(lambda x, y: x + y, policy="torch").trace(
            np.ones(2, jnp.float8_e4m3fn), np.ones(2, np.float32)
        )


# -- differential: random programs under a policy vs the library, compiled ----------------

OPS = ["add", "subtract", "multiply", "true_divide", "maximum", "minimum", "less", "equal",
       "where", "sin", "sqrt", "abs", "sum", "square"]  # fmt: skip
POLICY_DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
]


@st.composite
def policy_programs(draw):
    args = draw(st.lists(st.tuples(st.sampled_from(POLICY_DTYPES), st.sampled_from([(), (3,), (2, 3)])),
                         min_size=1, max_size=3))  # fmt: skip
    steps = []
    for i in range(draw(st.integers(1, 4))):
        pool = len(args) + i
        op = draw(st.sampled_from(OPS))
        other = draw(st.one_of(st.integers(0, pool - 1), st.sampled_from([2, 0.5, True])))
        steps.append((op, draw(st.integers(0, pool - 1)), other))
    return args, steps


TENSOR_ONLY = {"maximum", "minimum"}  # torch takes no Python number there (an API rule)


def random_policy_program(rng):
    """The distribution of `policy_programs`, from a seeded ``random.Random``."""
    shapes = [(), (3,), (2, 3)]
    args = [(rng.choice(POLICY_DTYPES), rng.choice(shapes)) for _ in range(rng.randint(1, 3))]
    steps = []
    for i in range(rng.randint(1, 4)):
        pool = len(args) + i
        other = rng.randrange(pool) if rng.random() < 0.6 else rng.choice([2, 0.5, True])
        steps.append((rng.choice(OPS), rng.randrange(pool), other))
    return args, steps


def run_program(xnp, steps, values, lib="numpy"):
    pool = list(values)
    for op, a, b in steps:
        x = pool[a]
        y = pool[b] if isinstance(b, int) and not isinstance(b, bool) else b
        if (lib == "torch" and op in TENSOR_ONLY and not isinstance(b, int | np.integer)) or (
            lib == "torch" and op in TENSOR_ONLY and isinstance(b, bool)
        ):
            y = x  # the same substitution on both sides keeps the program identical
        if op in ("sin", "sqrt", "abs", "sum", "square"):
            pool.append(getattr(xnp, op)(x))
        elif op == "where":
            pool.append(xnp.where(xnp.greater(x, 0), x, y) if xnp is not torch else
                        torch.where(torch.greater(x, 0), x, y))  # fmt: skip
        else:
            if op == "true_divide":  # XLA gives 0 for False / 0 where numpy and torch give nan
                if type(y) in (bool, int, float):  # exact: np.float64 subclasses float
                    y = y or 2
                else:  # the same substitution on both sides keeps the program identical
                    where, eq = (torch.where, torch.eq) if xnp is torch else (xnp.where, xnp.equal)
                    y = where(eq(y, 0), 1, y)
            name = {"equal": "eq"}.get(op, op) if lib == "torch" and xnp is torch else op
            pool.append(getattr(xnp, name)(x, y))  # torch.equal compares whole tensors
    return pool[len(values) :]


def _inputs(args, lib):
    rng = np.random.default_rng(0)
    out = []
    for d, shape in args:
        v = (
            rng.integers(0, 4, shape).astype(d)
            if d != "bool"
            else rng.integers(0, 2, shape).astype(bool)
        )
        out.append(torch.from_numpy(np.asarray(v)) if lib == "torch" else v)
    return out


def _check(lib, args, steps):
    lib_mod = torch if lib == "torch" else np
    theirs = outcome(lambda: run_program(lib_mod, steps, _inputs(args, lib), lib))
    ours = outcome(
        lambda: list(
            wt.trace(lambda *v: run_program(wnp, steps, v, lib), policy=lib)(
                *_inputs(args, "numpy")
            )
        )
    )
    context = f"{lib}: args {args} steps {steps}\n theirs {theirs!r}\n ours {ours!r}"
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception), context
        return
    assert not isinstance(ours, Exception), context
    for t, o in zip(theirs, ours, strict=True):
        t_dt = tname(t.dtype) if lib == "torch" else np.asarray(t).dtype.name
        assert np.dtype(o.dtype).name == t_dt, context
        t_np = (t.numpy() if lib == "torch" else np.asarray(t)).astype(np.float64)
        finite = np.isfinite(t_np)  # 0/0 and x/0 differ between XLA and the libraries' CPUs
        np.testing.assert_allclose(np.asarray(o, dtype=np.float64)[finite], t_np[finite],
                                   rtol=2e-3, atol=1e-6, err_msg=context)  # fmt: skip


@pytest.mark.parametrize("lib", ["numpy", "torch"])
@settings(
    suppress_health_check=[HealthCheck.too_slow],
    max_examples=max(30, settings.default.max_examples // 4),
)
@given(program=policy_programs())
def test_random_programs_match_the_library(lib, program):
    args, steps = program
    _check(lib, args, steps)


# -- MAX and user lattices ------------------------------------------------------------------

MAX_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "index", "address", "float16", "bfloat16", "float32", "tensor_float32", "float64"]  # fmt: skip


def _tokens(text):
    out, names = [], sorted(MAX_NAMES, key=len, reverse=True)
    while text:
        name = next(n for n in names if text.startswith(n))
        out.append(name)
        text = text[len(name) :]
    return out


def seed_table():
    text = (Path(__file__).parent / "data" / "max_seed_table.txt").read_text()
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    header = _tokens(lines[0].removeprefix("Type"))
    table = {}
    for line in lines[1:]:
        first, *cells = _tokens(line)
        table.update({(first, b): c for b, c in zip(header, cells, strict=True)})
    return table


def reference_join():
    """The join from the reference edges, computed here independently of Lattice."""
    edges = json.loads(
        (
            Path(__file__).parent.parent / "weaktrace" / "dtypes" / "data" / "max_semilattice.json"
        ).read_text()
    )["edges"]
    up = {n: {n} for n in MAX_NAMES}
    changed = True
    while changed:
        changed = False
        for n in MAX_NAMES:
            new = set().union(*(up[s] for m in up[n] for s in edges.get(m, [])), up[n])
            changed |= new != up[n]
            up[n] = new

    def join(a, b):
        common = up[a] & up[b]
        return next(c for c in common if common <= up[c])

    return join


def test_max_lattice_is_a_semilattice_and_its_joins_are_the_references():
    lattice = max_lattice()
    assert lattice.check(require_total=True).ok
    join = reference_join()
    for a, b in itertools.product(MAX_NAMES, repeat=2):
        assert lattice.join(a, b) == join(a, b) == wt.policy("max").lattice.join(a, b)


def test_max_seed_table_check_names_exactly_the_inconsistent_cells():
    table, join = seed_table(), reference_join()
    expected = {cell for cell, out in table.items() if out != join(*cell)}
    assert ("bool", "index") in expected and (
        "index",
        "bool",
    ) not in expected  # bool+index vs index+bool
    found = {v.nodes for v in max_lattice().check_table(table) if v.law == "least upper bound"}
    assert found == expected
    asymmetric = {v.nodes for v in max_lattice().check_table(table) if v.law == "commutativity"}
    assert ("bool", "index") in asymmetric or ("index", "bool") in asymmetric
    implied = Lattice.from_table(table, name="max-seed-table").check()
    assert not implied.ok and any(v.law == "commutativity" for v in implied.violations)


def test_max_programs_trace_and_lower_with_a_warning():
    index = registry.by_name("index")
    f = wt.trace(lambda x: x.astype(index) + 1, policy="max")
    assert str(f.trace(np.ones(3, np.int32)).out_avals) == "index[3]"
    with pytest.warns(UserWarning, match="index .computed as uint64"):
        out = f(np.ones(3, np.int32))
    assert out.dtype == np.uint64 and list(np.asarray(out)) == [2, 2, 2]
    assert wt.policy("max").promote_types("bool", "index") == np.dtype("uint64")
    tf32 = registry.by_name("tensor_float32")
    assert wt.policy("max").promote_types("float32", "bfloat16") == np.dtype("float32")
    assert wt.policy("max").promote_types(tf32, "float16") is tf32


def test_user_lattice_as_a_policy():
    lattice = Lattice({"bool": ["int32"], "int32": ["float32"], "float32": []}, name="tiny")
    f = wt.trace(lambda x, y: x + y, policy=lattice)
    assert f.trace(np.ones(2, bool), np.ones(2, np.int32)).out_avals.dtype == np.int32
    with pytest.raises(wt.TypePromotionError, match="tiny"):
        wt.policy("jax")  # sanity: jax still works
        f.trace(np.ones(2, np.int8), np.ones(2, np.int32))
    with pytest.raises(wt.PolicyError, match="lattice laws"):
        wt.trace(
            lambda x: x, policy=Lattice({"int8": ["int16", "int32"], "uint8": ["int16", "int32"]})
        )


# -- compare ---------------------------------------------------------------------------------


def test_compare_porting_example_against_the_libraries():
    x8 = np.ones((2, 3), np.int8)
    h16 = np.ones(3, np.float16)

    def port(x, h):
        return x * 0.5, wnp.sum(x) / 3, h + np.float64(1.0)

    report = wt.compare(port, x8, h16, policies=["jax", "numpy", "torch"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = {
            "jax": [jnp.asarray(x8) * 0.5, jnp.sum(x8) / 3, jnp.asarray(h16) + jnp.asarray(np.float64(1.0))],
            "numpy": [x8 * 0.5, np.sum(x8) / 3, h16 + np.float64(1.0)],
            "torch": [torch.from_numpy(x8) * 0.5, torch.from_numpy(x8).sum() / 3,
                      torch.from_numpy(h16) + torch.tensor(1.0, dtype=torch.float64)],
        }  # fmt: skip
    for col, lib in enumerate(["jax", "numpy", "torch"]):
        got = [row.cells[col] for row in report.outputs]
        want = [np.dtype(tname(v.dtype) if lib == "torch" else v.dtype) for v in expected[lib]]
        assert [registry.from_numpy(w).short for w in want] == [
            g.lstrip("~").split("[")[0] for g in got
        ], lib
    assert len(report.differences) >= 3
    text = str(report)
    assert "differs" in text and "x * 0.5" in text
    assert "<table>" in report._repr_html_() and "#fde2e1" in report._repr_html_()


def test_compare_reports_a_policy_that_raises():
    report = wt.compare(lambda x: x + 300, np.ones(2, np.int8), policies=["jax", "numpy"])
    assert "numpy" in report.errors and "out of bounds for int8" in report.errors["numpy"]
    assert "raised" in str(report)
    _ = jax  # the oracle module is imported for its types above


_ARRAY_OF_SCALAR_DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32",
                           "float64", "complex64"]  # fmt: skip


@pytest.mark.parametrize("scalar", [True, 3, 2.5, 1j], ids=repr)
@pytest.mark.parametrize("make", ["asarray", "array"])
def test_an_array_of_a_python_scalar_is_strong_under_numpy_and_torch(scalar, make):
    """np.asarray(2.5) is a float64 0-d array and torch.as_tensor(2.5) a 0-dim tensor of
    the default float: neither is a Python scalar any more, so neither joins weakly
    (``np.asarray(2.5) + f32`` is float64; it was float32 here). jax's stays weak."""
    wmake = getattr(wnp, make)
    for name in _ARRAY_OF_SCALAR_DTYPES:
        x = np.ones(2, name)
        want = (np.asarray(scalar) + x).dtype
        got = wt.trace(lambda v: wmake(scalar) + v, policy=wt.policy("numpy")).trace(x)
        assert got.out_avals.dtype == want, (scalar, name)
        for default in ("float32", "float64"):
            torch.set_default_dtype(getattr(torch, default))
            try:
                tw = torch.as_tensor(scalar) + torch.from_numpy(x)
            finally:
                torch.set_default_dtype(torch.float32)
            pol = wt.policy("torch", default_float=default)
            got = wt.trace(lambda v: wmake(scalar) + v, policy=pol).trace(x).out_avals
            assert str(got.dtype) == str(tw.dtype).removeprefix("torch."), (scalar, name)
        jx = getattr(jnp, make)(scalar)
        got = wt.trace(lambda: wmake(scalar)).trace().out_avals
        assert (got.dtype, got.weak_type) == (jx.dtype, jx.weak_type)


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "int32"])
@pytest.mark.parametrize("value", [1000, -300, 2**20])
def test_torch_pow_checks_its_exponent_scalar_and_wraps_its_base(name, value):
    """torch.pow(1000, int8_tensor) wraps the Python base; int8_tensor ** 1000 checks the
    exponent ("value cannot be converted"). The full torch sweep found the base raising
    here, traced with the int as a dynamic argument and as a constant."""
    t = np.array([1, 2], name)
    pol = wt.policy("torch")
    for args in [(value, t), (t, value)]:
        targs = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
        try:
            want = torch.pow(*targs).numpy()
        except RuntimeError:  # overflow, or a negative integer power: ours raises too
            want = None
        calls = [
            lambda a=args: wt.trace(lambda p, q: wnp.power(p, q), policy=pol)(*a),
            lambda a=args: wt.trace(lambda: wnp.power(*a), policy=pol)(),
        ]
        for call in calls:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", wt.WeakLiteralOverflowWarning)
                if want is None:
                    with pytest.raises(wt.errors.WeaktraceError):
                        call()
                else:
                    got = np.asarray(call())
                    assert got.dtype == want.dtype
                    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("base", [1j, 1 + 1j, 0.5j, np.complex64(1j)], ids=repr)
@pytest.mark.parametrize("exponent", [3, 99, 100, -100, 150, 2**40, 2**64])
def test_numpy_complex_power_by_a_large_python_int(base, exponent):
    """NumPy's complex power multiplies out only exponents below 100; larger ones take the
    general complex power (1j ** 2**64 is not 1 there). The full NumPy sweep found it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.power(base, exponent)
        got = wt.trace(lambda a: wnp.power(a, exponent), policy="numpy")(base)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5 if want.dtype == "c8" else 1e-12)


@pytest.mark.parametrize("value", [2**64, 2**64 - 1, 2**100, -(2**70)])
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64"])
def test_numpy_array_of_a_huge_python_int_with_a_float_dtype(value, name):
    """np.array(2**64, float32) is a float array; the full NumPy sweep found ours raising
    an int64 overflow once asarray made Python scalars strong before the dtype applied."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.array(value, name)
        got = wt.trace(lambda x: wnp.array(value, x.dtype), policy="numpy")(np.ones(2, name))
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
