"""weaktrace.lint's gaps closed in session 8: no finding from jax.numpy's own defaults,
literals and casts (jnp.select's default 0, jnp.unravel_index's ``s - 1``, jnp.unwrap's
period, jnp.average's float16 sums), findings where jax joins the user's operands
without a promotion helper (jnp.linspace, jnp.array of a list, ``x.at[i].add``), and
sweeps of non-ufunc jax.numpy functions, jax.nn and jax.lax.

jax is the oracle: a finding is expected exactly when the operands the function joins
are of dtypes ``jnp.result_type`` joins to another dtype than a strong one's, computed
here at test time; every finding is at the line of the user's call.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import ShapeDtypeStruct as S

import weaktrace as wt

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.float16,
          jnp.bfloat16, np.float32, np.complex64]  # fmt: skip
SCALARS = [2, 2.5, 1j]


def _promotes(operands: Sequence) -> bool:
    """jax's verdict: a strong operand whose dtype is not the operands' joined dtype."""
    joined = jnp.result_type(*operands)
    strong = [o for o in operands if not isinstance(o, bool | int | float | complex)]
    return any(jnp.dtype(o.dtype) != joined for o in strong)


def _runs(fn: Callable, *args) -> bool:
    """Whether jax accepts the call (jax's own warnings silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jax.eval_shape(fn, *args)
    except Exception:  # jax refuses these operands (each its own error class)
        return False
    return True


def _line(fn: Callable) -> int:
    return fn.__code__.co_firstlineno


def _promotions(report: wt.LintReport) -> list:
    return [f for f in report if f.kind == "implicit-promotion"]


# ------------------------------------------------ jax's own constants are not the user's


b3, i3, f3 = S((3,), jnp.bool_), S((3,), jnp.int32), S((3,), jnp.float32)


def test_select_with_bool_choices_and_its_own_default_is_clean():
    # jnp.select joins the choices with its default 0: bools become int32, but the
    # user passed only bools
    assert not _promotes([b3, b3])
    assert not wt.lint(lambda c, x, y: jnp.select([c, ~c], [x, y]), b3, b3, b3)
    # a default the user passes is theirs: bool choices with the user's 0 are joined
    report = wt.lint(lambda c, x: jnp.select([c], [x], default=0), b3, b3)
    assert _promotes([b3, 0]) and report.kinds() == ["implicit-promotion"]
    assert not wt.lint(lambda c, x: jnp.select([c], [x], default=False), b3, b3)


def test_unravel_index_computes_with_its_own_ints_not_the_users():
    b = S((), jnp.bool_)
    assert not wt.lint(lambda i, s: jnp.unravel_index(i, s), b, b)
    assert not wt.lint(lambda i: jnp.unravel_index(i, (2, 3)), S((4,), jnp.bool_))
    assert not wt.lint(lambda i: jnp.unravel_index(i, (2, 3)), S((4,), jnp.int8))


def test_unwrap_joins_the_signal_with_its_default_period_not_with_discont():
    assert not wt.lint(lambda p: jnp.unwrap(p, 1.0), i3)
    assert not wt.lint(lambda p: jnp.unwrap(p, discont=1.0), i3)
    # the period joins the signal: the user's weak float changes it, as in i32 * 0.5
    report = wt.lint(lambda p: jnp.unwrap(p, 1.0, period=6.0), i3)
    assert _promotes([i3, 6.0]) and report.kinds() == ["implicit-promotion"]


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_a_reduction_cast_back_to_half_precision_is_not_a_promotion(dtype):
    # jnp.sum accumulates float16 in float32 and casts the sum back: the division of
    # two such sums in jnp.average narrows nothing the user gave
    x = S((4,), dtype)
    assert not wt.lint(lambda a, w: jnp.average(a, weights=w), x, x)
    assert not wt.lint(lambda a: jnp.sum(a) / jnp.sum(a * a), x)


def test_operands_a_partial_passes_to_a_jitted_function_are_the_users():
    # jnp.clip is jitted: the user calls its (*args, **kwargs) wrapper, and
    # functools.partial supplies min= to it
    clip_half, clip_one = (functools.partial(jnp.clip, min=m) for m in (0.5, 1))
    assert _promotes([i3, 0.5]) and not _promotes([i3, 1])
    assert wt.lint(lambda x: clip_half(x), i3).kinds() == ["implicit-promotion"]
    assert not wt.lint(lambda x: clip_one(x), i3)


# ------------------------------------- joins jax makes without jnp's promotion helpers


def _linspace(a, b):
    return jnp.linspace(a, b, 5)


def _array_of(a, b):
    return jnp.array([a, b])


def _at_add(a, b):
    return a.at[1].add(b)


@pytest.mark.parametrize("fn", [_linspace, _array_of, _at_add], ids=lambda f: f.__name__)
def test_joins_without_a_promotion_helper_are_found_at_the_call(fn):
    pairs = [(a, b) for a in (np.int8, np.int32, np.bool_, np.float32) for b in SCALARS]
    pairs += [(a, b) for a in (np.int8, np.float16) for b in (np.int16, np.float32)]
    pairs += [(a, a) for a in (np.int8, np.float32)]
    checked = 0
    for a, b in pairs:
        x = S((), a) if fn is not _at_add else S((3,), a)
        y = b if isinstance(b, int | float | complex) else S((), b)
        if not _runs(fn, x, y):
            continue
        checked += 1
        report = wt.lint(fn, x, y)
        assert bool(report) == _promotes([x, y]), (fn.__name__, a, b, str(report))
        assert {(f.kind, f.line) for f in report} <= {("implicit-promotion", _line(fn) + 1)}
    assert checked >= 12


# -------------------------------------------- non-ufunc jax.numpy functions, two operands
# (name, call, whether the function joins the two operands' dtypes); every call sits on
# its own line, the line lint must name


def _b(shape=(4,)):
    return lambda b: jnp.broadcast_to(b, shape)


BINARY: list[tuple[str, Callable, bool]] = [
    ("array_equiv", lambda a, b: jnp.array_equiv(a, b), True),
    ("allclose", lambda a, b: jnp.allclose(a, b), True),
    ("isclose", lambda a, b: jnp.isclose(a, b), True),
    ("where", lambda a, b: jnp.where(jnp.ones(4, bool), a, b), True),
    ("clip", lambda a, b: jnp.clip(a, b), True),
    ("clip_max", lambda a, b: jnp.clip(a, max=b), True),
    ("concatenate", lambda a, b: jnp.concatenate([a, jnp.atleast_1d(b)]), True),
    ("stack", lambda a, b: jnp.stack([a, _b()(b)]), True),
    ("hstack", lambda a, b: jnp.hstack([a, b]), True),
    ("append", lambda a, b: jnp.append(a, b), True),
    ("dot", lambda a, b: jnp.dot(a, b), True),
    ("matmul", lambda a, b: jnp.matmul(a, _b()(b)), True),
    ("inner", lambda a, b: jnp.inner(a, b), True),
    ("outer", lambda a, b: jnp.outer(a, b), True),
    ("vdot", lambda a, b: jnp.vdot(a, _b()(b)), True),
    ("kron", lambda a, b: jnp.kron(a, b), True),
    ("einsum", lambda a, b: jnp.einsum("i,i->", a, _b()(b)), True),
    ("tensordot", lambda a, b: jnp.tensordot(a, _b()(b), 1), True),
    ("convolve", lambda a, b: jnp.convolve(a, jnp.atleast_1d(b)), True),
    ("correlate", lambda a, b: jnp.correlate(a, jnp.atleast_1d(b)), True),
    ("polyval", lambda a, b: jnp.polyval(a, b), True),
    ("polyadd", lambda a, b: jnp.polyadd(a, jnp.atleast_1d(b)), True),
    ("polymul", lambda a, b: jnp.polymul(a, jnp.atleast_1d(b)), True),
    ("interp", lambda a, b: jnp.interp(a, _b()(b), _b()(b)), True),
    ("searchsorted", lambda a, b: jnp.searchsorted(a, b), True),
    ("digitize", lambda a, b: jnp.digitize(a, jnp.atleast_1d(b)), True),
    ("isin", lambda a, b: jnp.isin(a, b), True),
    ("at_set", lambda a, b: a.at[0].set(b), True),
    ("at_add", lambda a, b: a.at[1].add(b), True),
    ("at_multiply", lambda a, b: a.at[1].multiply(b), True),
    ("at_max", lambda a, b: a.at[1].max(b), True),
    ("put", lambda a, b: jnp.put(a, jnp.array([1]), b, inplace=False), True),
    ("select_default", lambda a, b: jnp.select([jnp.ones(4, bool)], [a], default=b), True),
    ("average_weights", lambda a, b: jnp.average(a, weights=_b()(b)), True),
    ("trapezoid", lambda a, b: jnp.trapezoid(a, x=_b()(b)), True),
    ("cross", lambda a, b: jnp.cross(a[:3], _b((3,))(b)), True),
    ("diff_prepend", lambda a, b: jnp.diff(a, prepend=b), True),
    ("cov", lambda a, b: jnp.cov(a, _b()(b)), True),
    ("corrcoef", lambda a, b: jnp.corrcoef(a, _b()(b)), True),
    ("histogram_weights", lambda a, b: jnp.histogram(a, bins=3, weights=_b()(b))[0], True),
    ("linspace", lambda a, b: jnp.linspace(a[0], b, 5), True),
    ("geomspace", lambda a, b: jnp.geomspace(a[0], b, 5), True),
    ("logspace", lambda a, b: jnp.logspace(a[0], b, 5), True),
    # the second operand is cast to the first's dtype, or is not joined with it
    ("full_like", lambda a, b: jnp.full_like(a, b), False),
    ("ediff1d_to_end", lambda a, b: jnp.ediff1d(a, to_end=b), False),
    ("percentile", lambda a, b: jnp.percentile(a, b), False),
    ("quantile", lambda a, b: jnp.quantile(a, b), False),
    ("take", lambda a, b: jnp.take(a, jnp.argsort(_b()(b))), False),
    ("bincount_weights", lambda a, b: jnp.bincount(a, weights=_b()(b), length=3), False),
]


def _binary_cases() -> list[tuple[str, Callable, bool, object, object]]:
    cases = []
    for name, fn, joined in BINARY:
        for a in DTYPES:
            for b in DTYPES + SCALARS:
                cases.append((name, fn, joined, a, b))
    return cases


@pytest.mark.slow
def test_non_ufunc_functions_report_exactly_when_they_join_two_dtypes(full):
    cases = _binary_cases()
    checked = 0
    for name, fn, joined, a, b in cases if full else cases[::23]:
        x = S((4,), a)
        y = b if isinstance(b, int | float | complex) else S((4,), b)
        if not _runs(fn, x, y):
            continue
        checked += 1
        report = wt.lint(fn, x, y)
        expected = joined and _promotes([x, y])
        assert bool(_promotions(report)) == expected, (name, a, b, str(report))
        assert {(f.kind, f.line) for f in report} <= {("implicit-promotion", _line(fn))}, (
            name,
            a,
            b,
            str(report),
        )
    assert checked > (4000 if full else 150)


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_jaxs_float32_accumulator_beside_its_own_constant_is_not_a_promotion(dtype):
    # jnp.sum(where=) sums half precision in float32 and fills with its own f32 0.0;
    # jax.nn.softmax(where=) does both: no operand of the user's was converted
    x, m = S((2, 3), dtype), S((2, 3), jnp.bool_)
    assert not wt.lint(lambda x, m: jax.nn.softmax(x, where=m), x, m)
    assert not wt.lint(lambda x, m: jnp.sum(x, where=m), x, m)
    assert not wt.lint(lambda x, m: jnp.mean(x, where=m), x, m)


def _cast_state(x):
    y = x * 2.0
    return y.astype(jnp.bfloat16)  # the cast changes the state's dtype


def test_a_state_cast_to_another_dtype_is_blamed_on_the_cast():
    report = wt.lint(_cast_state, f3, state_argnums=0)
    assert [(f.kind, f.line) for f in report] == [("weak-flip", _line(_cast_state) + 2)]


# ------------------------------------------------ jax.nn and jax.lax on clean inputs


def _nn_calls(d) -> list[tuple[str, Callable, tuple]]:
    nn = jax.nn
    x, i, m = S((2, 3, 4), d), S((2, 3), jnp.int32), S((2, 3), jnp.bool_)
    q, bias = S((2, 5, 2, 8), d), S((2, 2, 5, 5), d)
    key = jax.random.key(0)
    shape = (2, 3, 4)
    inits = {
        "glorot_normal": nn.initializers.glorot_normal(),
        "he_uniform": nn.initializers.he_uniform(),
        "lecun_normal": nn.initializers.lecun_normal(),
        "normal": nn.initializers.normal(0.02),
        "truncated_normal": nn.initializers.truncated_normal(0.02),
        "variance_scaling": nn.initializers.variance_scaling(2.0, "fan_avg", "uniform"),
    }
    calls = [
        ("celu", lambda x: nn.celu(x, alpha=0.5), (x,)),
        ("elu", lambda x: nn.elu(x, 2.0), (x,)),
        ("gelu_exact", lambda x: nn.gelu(x, approximate=False), (x,)),
        ("glu", lambda x: nn.glu(x, axis=-1), (x,)),
        ("leaky_relu", lambda x: nn.leaky_relu(x, 0.1), (x,)),
        ("log1mexp", lambda x: nn.log1mexp(-jnp.abs(x) - 1), (x,)),
        ("log_softmax_where", lambda x, m: nn.log_softmax(x, where=m[..., None]), (x, m)),
        ("softmax_axes", lambda x: nn.softmax(x, axis=(1, 2)), (x,)),
        ("softmax_where", lambda x, m: nn.softmax(x, where=m[..., None]), (x, m)),
        ("logsumexp_b", lambda x: nn.logsumexp(x, axis=-1, b=0.5), (x,)),
        ("logsumexp_sign", lambda x: nn.logsumexp(x, axis=0, return_sign=True), (x,)),
        ("logmeanexp", lambda x: nn.logmeanexp(x, axis=-1), (x,)),
        ("one_hot", lambda i: nn.one_hot(i, 5), (i,)),
        ("one_hot_dtype", lambda i: nn.one_hot(i, 5, dtype=d), (i,)),
        ("standardize", lambda x: nn.standardize(x, axis=-1, epsilon=1e-5), (x,)),
        ("squareplus", lambda x: nn.squareplus(x, b=4), (x,)),
        ("attention", lambda q: nn.dot_product_attention(q, q, q), (q,)),
        ("attention_causal", lambda q: nn.dot_product_attention(q, q, q, is_causal=True), (q,)),
        ("attention_bias", lambda q, b: nn.dot_product_attention(q, q, q, bias=b), (q, bias)),
        ("log_softmax_grad", lambda x: jax.grad(lambda y: nn.log_softmax(y).sum())(x), (x,)),
        ("gelu_grad", lambda x: jax.grad(lambda y: nn.gelu(y).sum())(x), (x,)),
        ("constant_init", lambda x: x + nn.initializers.constant(0.5, d)(key, shape), (x,)),
    ]  # fmt: skip
    for name, init in inits.items():
        calls.append((name, lambda x, init=init: x + init(key, shape, d), (x,)))
    for name in ("relu", "relu6", "sigmoid", "silu", "selu", "mish", "softplus", "soft_sign",
                 "hard_tanh", "hard_swish", "log_sigmoid", "sparse_plus", "sparse_sigmoid",
                 "gelu", "tanh", "identity"):  # fmt: skip
        calls.append((name, _applied(getattr(nn, name)), (x,)))
    return calls


def _applied(fn: Callable) -> Callable:
    return lambda x: fn(x)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16, jnp.float16])
def test_jax_nn_on_clean_inputs_has_no_findings(dtype, full):
    # jax.nn's softmax(where=) sums bfloat16 in float32 beside its own float32 0.0:
    # jax's accumulator, not a promotion of the user's operands
    calls = _nn_calls(dtype)
    checked = 0
    for name, fn, args in calls if full or dtype is jnp.float32 else calls[::4]:
        if not _runs(fn, *args):
            continue
        checked += 1
        report = wt.lint(fn, *args)
        assert not report, (name, str(report))
    assert checked >= (30 if full or dtype is jnp.float32 else 7)


_m = S((4, 4), jnp.float32)
_key = jax.random.key(0)
lax, rnd = jax.lax, jax.random


def _decay(c):
    return c[0] + 1, c[1] * 0.9


def _solve(f, y):
    return y


LAX_CALLS: list[tuple[str, Callable]] = [
    ("add", lambda x: lax.add(x, 2.0)),
    ("integer_pow", lambda x: lax.integer_pow(x, 3)),
    ("clamp", lambda x: lax.clamp(0.0, x, 1.0)),
    ("dot_general", lambda x: lax.dot_general(x, x, (((1,), (0,)), ((), ())))),
    ("conv", lambda x: lax.conv(x[None, None], x[None, None], (1, 1), "SAME")),
    ("reduce", lambda x: lax.reduce(x, 0.0, lax.add, (0,))),
    ("argmax", lambda x: lax.argmax(x, 0, jnp.int32)),
    ("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 1)),
    ("reduce_window", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID")),
    ("pad", lambda x: lax.pad(x, 0.0, [(1, 1, 0), (0, 0, 1)])),
    ("sort_kv", lambda x: lax.sort((x, x), num_keys=1)),
    ("top_k", lambda x: lax.top_k(x, 2)),
    ("full_like", lambda x: lax.full_like(x, 2)),
    ("fori_loop", lambda x: lax.fori_loop(0, 3, lambda k, c: c * 0.5 + k, x)),
    ("while_loop", lambda x: lax.while_loop(lambda c: c[0] < 5, _decay, (0, x))[1]),
    ("scan", lambda x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(4), x)),
    ("scan_length", lambda x: lax.scan(lambda c, _: (c * 2.0, c), x[0], None, length=3)),
    ("cond", lambda x: lax.cond(x.sum() > 0, lambda a: a * 2.0, lambda a: a - 1.0, x)),
    ("switch", lambda x: lax.switch(jnp.argmax(x[0]), [jnp.cos, lambda a: a * 2.0, jnp.sin], x)),
    ("map", lambda x: lax.map(lambda r: r.sum(), x)),
    ("associative_scan", lambda x: lax.associative_scan(jnp.add, x)),
    ("custom_root", lambda x: lax.custom_root(lambda y: y * y - 2.0, 1.0, _solve, _solve)),
    ("cholesky", lambda x: lax.linalg.cholesky(x @ x.T + jnp.eye(4))),
    ("eigh", lambda x: lax.linalg.eigh(x + x.T)),
    ("nextafter", lambda x: lax.nextafter(x, x + 1.0)),
    ("scatter_add", lambda x: x.at[jnp.array([0, 2])].add(1.0)),
    ("checkpoint", lambda x: jax.checkpoint(lambda a: jnp.sin(a) * 2.0)(x)),
    ("hessian", lambda x: jax.hessian(lambda a: (a**3).sum())(x[0])),
    ("vmap_psum", lambda x: jax.vmap(lambda r: lax.psum(r, "b"), axis_name="b")(x)),
    ("normal", lambda x: x + rnd.normal(_key, x.shape)),
    ("uniform", lambda x: x * rnd.uniform(_key, x.shape, minval=-1.0, maxval=1.0)),
    ("dropout", lambda x: jnp.where(rnd.bernoulli(_key, 0.9, x.shape), x / 0.9, 0.0)),
    ("categorical", lambda x: rnd.categorical(_key, x)),
    ("randint", lambda x: rnd.randint(_key, (3,), 0, 10)),
    ("choice", lambda x: rnd.choice(_key, 4, (2,), replace=False)),
    ("truncated_normal", lambda x: x + rnd.truncated_normal(_key, -2.0, 2.0, x.shape)),
    ("legacy_key", lambda x: x + rnd.normal(rnd.PRNGKey(0), x.shape)),
    ("beta", lambda x: rnd.beta(_key, 2.0, 3.0, (4,))),
    ("gamma", lambda x: rnd.gamma(_key, 2.0, (4,))),
    ("multivariate_normal", lambda x: rnd.multivariate_normal(_key, jnp.zeros(4), jnp.eye(4))),
    ("poisson", lambda x: rnd.poisson(_key, 3.0, (4,))),
    ("t", lambda x: rnd.t(_key, 3.0, (4,))),
    ("permutation", lambda x: rnd.permutation(_key, x, axis=1, independent=True)),
]  # fmt: skip


@pytest.mark.slow
def test_jax_lax_and_random_on_clean_inputs_have_no_findings(full):
    checked = 0
    for name, fn in LAX_CALLS if full else LAX_CALLS[::3]:
        assert _runs(fn, _m), name
        checked += 1
        report = wt.lint(fn, _m)
        assert not report, (name, str(report))
    assert checked >= (40 if full else 14)


# ------------------------------- one array (all dtypes) with Python scalars and keywords
# (name, call, the operands the function joins or None): a finding exactly when those
# operands join two dtypes


def _reductions() -> list[tuple[str, Callable, Callable | None]]:
    calls: list[tuple[str, Callable, Callable | None]] = []
    names = ["sum", "prod", "mean", "var", "std", "cumsum", "cumprod", "nansum", "nanmean",
             "nanvar", "nanstd", "nancumsum", "max", "nanmin", "ptp", "average", "median",
             "nanmedian", "argmax", "nanargmin", "count_nonzero", "all"]  # fmt: skip
    for name in names:
        fn = getattr(jnp, name)
        calls.append((name, _applied(fn), None))
        calls.append((f"{name}_axis", lambda x, fn=fn: fn(x, axis=-1, keepdims=True), None))
        for d in (jnp.int8, jnp.float16, jnp.bfloat16, jnp.float32, jnp.complex64):
            calls.append(
                (f"{name}_{jnp.dtype(d).name}", lambda x, fn=fn, d=d: fn(x, dtype=d), None)
            )
    return calls


ONE_ARRAY: list[tuple[str, Callable, Callable | None]] = [
    ("percentile", lambda x: jnp.percentile(x, 25.5), None),
    ("nanquantile", lambda x: jnp.nanquantile(x, 0.5), None),
    ("round", lambda x: jnp.round(x, 2), None),
    ("clip_int", lambda x: jnp.clip(x, 0, 3), lambda x: [x, 0, 3]),
    ("clip_float", lambda x: jnp.clip(x, 0.5, 3.5), lambda x: [x, 0.5, 3.5]),
    ("where_int", lambda x: jnp.where(x == x, x, 0), lambda x: [x, 0]),
    ("where_float", lambda x: jnp.where(x == x, x, 0.0), lambda x: [x, 0.0]),
    ("full_like", lambda x: jnp.full_like(x, 2.5), None),
    ("full", lambda x: jnp.full((2, 4), x), None),
    ("arange", lambda x: (x, jnp.arange(0, 2.0, 0.5)), None),
    ("linspace_self", lambda x: jnp.linspace(x, x + x, 3), None),
    ("at_set", lambda x: x.at[0].set(0), lambda x: [x, 0]),
    ("at_multiply", lambda x: x.at[1:].multiply(2.0), lambda x: [x, 2.0]),
    ("put", lambda x: jnp.put(x, jnp.array([0]), 1, inplace=False), lambda x: [x, 1]),
    ("fill_diag", lambda x: jnp.fill_diagonal(jnp.outer(x, x), 0, inplace=False), lambda x: [x, 0]),
    ("searchsorted", lambda x: jnp.searchsorted(jnp.sort(x), 1), lambda x: [x, 1]),
    ("histogram", lambda x: jnp.histogram(x, bins=3, range=(0, 5)), None),
    ("interp", lambda x: jnp.interp(2.5, jnp.sort(x), x), lambda x: [x, 2.5]),
    ("polyval", lambda x: jnp.polyval(x, 2.0), lambda x: [x, 2.0]),
    ("take_along_axis", lambda x: jnp.take_along_axis(x, jnp.argsort(x), axis=-1), None),
    ("pad_constant", lambda x: jnp.pad(x, 1, constant_values=2), None),
    ("nan_to_num", lambda x: jnp.nan_to_num(x, nan=0.0, posinf=1.0), None),
    ("isclose", lambda x: jnp.isclose(x, 1), lambda x: [x, 1]),
    ("select", lambda x: jnp.select([x == x], [x]), None),
    ("unwrap", lambda x: jnp.unwrap(x), None),
    ("unravel_index", lambda x: jnp.unravel_index(x, (2, 3)), None),
    ("ravel_multi_index", lambda x: jnp.ravel_multi_index((x, x), (5, 5), mode="clip"), None),
    ("array_of_list", lambda x: jnp.array([x[0], 1.5]), lambda x: [x, 1.5]),
    ("true_divide", lambda x: x / 2, lambda x: [x, 2]),
    ("float_power", lambda x: jnp.float_power(x, 2), lambda x: [x, 2]),
    ("divmod", lambda x: jnp.divmod(x, 2), lambda x: [x, 2]),
    ("heaviside", lambda x: jnp.heaviside(x, 0.5), lambda x: [x, 0.5]),
    ("ldexp", lambda x: jnp.ldexp(x, 2), None),
    ("gradient", lambda x: jnp.gradient(x), None),
    ("cov", lambda x: jnp.cov(x), None),
    ("trapezoid_dx", lambda x: jnp.trapezoid(x, dx=0.5), None),
    ("vander", lambda x: jnp.vander(x, 3), None),
    ("histogram2d", lambda x: jnp.histogram2d(x, x, bins=2), None),
    ("fft", lambda x: jnp.fft.fft(x), None),
    ("norm", lambda x: jnp.linalg.norm(x), None),
    ("logsumexp", lambda x: jax.nn.logsumexp(x), None),
    *_reductions(),
]  # fmt: skip


@pytest.mark.slow
def test_one_array_calls_report_exactly_when_the_joined_operands_differ(full):
    cases = [(c, d) for c in ONE_ARRAY for d in DTYPES]
    checked = 0
    for (name, fn, joined), d in cases if full else cases[::19]:
        x = S((4,), d)
        if not _runs(fn, x):
            continue
        checked += 1
        report = wt.lint(fn, x)
        ops = joined(S((), d)) if joined is not None else None
        expected = ops is not None and _promotes(ops)
        assert bool(_promotions(report)) == expected, (name, d, str(report))
        assert {(f.kind, f.line) for f in report} <= {("implicit-promotion", _line(fn))}, (
            name,
            d,
            str(report),
        )
    assert checked > (1200 if full else 60)


# --------------------------------------------------------------- literal overflow


def _add_literal(x, v):
    return x + v


def _fits(value: int, dtype) -> bool:
    info = jnp.iinfo(dtype) if jnp.issubdtype(dtype, jnp.integer) else jnp.finfo(dtype)
    return float(info.min) <= value <= float(info.max)


def test_python_int_literals_outside_the_dtype_are_found_ints_wrap_floats_overflow():
    dtypes = [jnp.uint8, jnp.int8, jnp.int16, jnp.uint32, jnp.float16]
    values = [-129, -1, 127, 128, 255, 256, 65504, 70000, 2**31]
    checked = 0
    for d in dtypes:
        for v in values:
            fn = lambda x, v=v: _add_literal(x, v)  # noqa: E731
            if not _runs(fn, S((3,), d)):
                continue  # jax raises OverflowError itself (2**31 beside uint32 is fine)
            checked += 1
            report = wt.lint(fn, S((3,), d))
            assert bool(report) == (not _fits(v, d)), (d, v, str(report))
            assert {(f.kind, f.line) for f in report} <= {
                ("literal-overflow", _line(_add_literal) + 1)
            }
            floating = jnp.issubdtype(d, jnp.floating)
            assert all(("inf" in f.message) == floating for f in report), str(report)
    assert checked >= 40


def test_ints_jax_computes_from_a_shape_are_not_the_users_literals():
    # jnp.unravel_index(i, (0,)) passes 0 - 1 to its jitted where: jax's -1, not the
    # user's; the user's own out-of-range ints in the same kind of call still count
    u8 = S((4,), jnp.uint8)
    assert not _fits(-1, jnp.uint8)
    assert not wt.lint(lambda i: jnp.unravel_index(i, (0,)), u8)
    assert wt.lint(lambda x: jnp.where(x > 0, x, -1), u8).kinds() == ["literal-overflow"]
    assert wt.lint(lambda x: jnp.clip(x, -1, 3), u8).kinds() == ["literal-overflow"]


# ------------------------- every jax.numpy function, operands of one dtype: never a finding

_NOT_PLAIN = {"vectorize", "from_dlpack", "frompyfunc", "piecewise", "fromfunction",
              "apply_along_axis", "apply_over_axes"}  # fmt: skip


def _all_jnp_calls() -> list[tuple[str, Callable, tuple, list]]:
    """(name, call, traced args, the call's operands as jnp.result_type sees them)."""
    calls = []
    for name in sorted(n for n in dir(jnp) if not n.startswith("_")):
        fn = getattr(jnp, name)
        if not callable(fn) or isinstance(fn, type) or name in _NOT_PLAIN:
            continue
        for d in DTYPES:
            x = S((4,), d)
            calls.append((name, lambda x, y, fn=fn: fn(x, y), (x, x), [x, x]))
            for c in (0, 2, 0.5):
                calls.append((name, lambda x, fn=fn, c=c: fn(x, c), (x,), [x, c]))
    return calls


@pytest.mark.slow
def test_no_jax_numpy_function_reports_operands_jax_does_not_join_to_another_dtype(full):
    calls = [c for c in _all_jnp_calls() if not _promotes(c[3])]
    checked = 0
    for name, fn, args, _ in calls if full else calls[::61]:
        if not _runs(fn, *args):
            continue
        checked += 1
        report = wt.lint(fn, *args)
        assert not report, (name, args, str(report))
    assert checked > (3000 if full else 40)


# ------------------------------------------ loop carries and branches: jax is the oracle

_BODY_FNS = [jax.nn.relu, jax.nn.gelu, jax.nn.softmax, jax.nn.standardize, jax.nn.glu,
             jnp.sin, jnp.sqrt, jnp.abs, jnp.cumsum, jnp.round, jnp.sign, jnp.mean,
             jnp.reciprocal, jnp.maximum, jnp.power, jnp.divide, jnp.arctan2]  # fmt: skip


def _apply(fn: Callable, c):
    try:
        return fn(c)
    except TypeError:  # a binary function: applied to the carry twice
        return fn(c, c)


def _loops(fn: Callable) -> list[tuple[str, Callable]]:
    return [
        ("scan", lambda c: lax.scan(lambda a, _: (_apply(fn, a), None), c, None, length=3)[0]),
        ("fori_loop", lambda c: lax.fori_loop(0, 3, lambda i, a: _apply(fn, a), c)),
        ("while_loop", lambda c: lax.while_loop(lambda a: a.sum() < 3, lambda a: _apply(fn, a), c)),
        ("cond", lambda c: lax.cond(c.sum() > 0, lambda a: _apply(fn, a), lambda a: a, c)),
    ]  # fmt: skip


@pytest.mark.slow
def test_carry_change_exactly_when_the_body_changes_the_carrys_type(full):
    # the oracle: jax.eval_shape of the body alone (another dtype or a weak result)
    cases = [(fn, d) for fn in _BODY_FNS for d in (jnp.float32, jnp.bfloat16, jnp.int32, jnp.int8)]
    checked = 0
    for fn, d in cases if full else cases[::5]:
        c = S((4,), d)
        if not _runs(lambda c, fn=fn: _apply(fn, c), c):
            continue
        out = jax.eval_shape(lambda c, fn=fn: _apply(fn, c), c)
        if out.shape != c.shape:
            continue
        changes = out.dtype != c.dtype or out.weak_type
        for what, loop in _loops(fn):
            checked += 1
            report = wt.lint(loop, c)
            assert set(report.kinds()) == ({"carry-change"} if changes else set()), (
                fn.__name__,
                d,
                what,
                str(report),
            )
    assert checked >= (150 if full else 30)


def test_prng_key_arrays_joined_by_jax_numpy_lint_clean():
    # jnp.concatenate / jnp.array join key<fry> arrays: an extended dtype has no
    # promotion (and no canonical dtype), and lint must not fail on it
    keys = jax.eval_shape(lambda: jax.random.split(jax.random.key(0), 3))
    key = jax.eval_shape(lambda: jax.random.key(0))
    assert not wt.lint(lambda ks: jnp.concatenate([ks, ks]), keys)
    assert not wt.lint(lambda ks: jnp.where(jnp.ones(3, bool), ks, ks), keys)
    assert not wt.lint(lambda k: jnp.array([k, k]), key)
    assert not wt.lint(lambda k: jnp.stack([k, jax.random.split(k)[0]]), key)
