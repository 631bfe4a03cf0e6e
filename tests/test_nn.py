"""weaktrace.nn against jax.nn: coverage of jax.nn's public names (listed at test time),
the differential harness (tests/mirror_harness.py: eager, traced and compiled against
jax eager and jit: shapes, dtypes, weak flags, values, errors) over generated dtypes,
shapes and keyword values, x64 off and on; gradients through jax.grad (custom JVPs
included) of an MLP loss written with weaktrace.nn; initializers.

CI runs a deterministic sample of each sweep; ``--run-slow`` runs all of it.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.nn as wnn
import weaktrace.numpy as wnp
from tests.conftest import full_run
from tests.math_cases import KINDS, SCALARS, values, with_x64
from tests.mirror_harness import check

# jax.nn names weaktrace.nn does not mirror, and why.
EXCLUDED = {
    "scaled_matmul": "block-scaled (mxfp8/nvfp4) matmul for GPU tensor cores",
    "scaled_dot_general": "block-scaled (mxfp8/nvfp4) dot_general for GPU tensor cores",
    "get_scaled_dot_general_config": "a config factory for scaled_dot_general",
}
MODULES = {"initializers"}

UNARY = [
    "relu", "relu6", "log1mexp", "softplus", "sparse_plus", "soft_sign", "sigmoid",
    "sparse_sigmoid", "silu", "swish", "mish", "log_sigmoid", "elu", "leaky_relu", "hard_tanh",
    "celu", "selu", "gelu", "hard_sigmoid", "hard_silu", "hard_swish", "tanh", "identity",
    "squareplus", "softmax", "log_softmax", "logsumexp", "logmeanexp", "standardize",
]  # fmt: skip

# Calls with keyword values: (label, f(module, *args), kinds, shape).
KEYWORDS = [
    ("gelu exact", lambda m, x: m.gelu(x, approximate=False), ("float32",), (2, 3)),
    ("gelu exact f16", lambda m, x: m.gelu(x, approximate=False), ("float16",), (4,)),
    ("gelu exact bf16", lambda m, x: m.gelu(x, False), ("bfloat16",), (4,)),
    ("gelu exact int", lambda m, x: m.gelu(x, approximate=False), ("int8",), (4,)),
    ("gelu exact weak", lambda m, x: m.gelu(x, approximate=False), ("py_float",), ()),
    ("gelu exact f64", lambda m, x: m.gelu(x, approximate=False), ("float64",), (3,)),
    ("gelu complex", lambda m, x: m.gelu(x), ("complex64",), (3,)),
    ("elu alpha", lambda m, x: m.elu(x, alpha=0.5), ("float16",), (2, 3)),
    ("elu alpha array", lambda m, x, a: m.elu(x, a), ("float32", "float64"), (3,)),
    ("celu alpha", lambda m, x: m.celu(x, alpha=2), ("int32",), (3,)),
    ("leaky slope", lambda m, x: m.leaky_relu(x, negative_slope=0.2), ("bfloat16",), (3,)),
    ("leaky slope int", lambda m, x: m.leaky_relu(x, 2), ("int16",), (3,)),
    ("squareplus b", lambda m, x, b: m.squareplus(x, b), ("float16", "float32"), (3,)),
    ("glu", lambda m, x: m.glu(x), ("float32",), (2, 4)),
    ("glu axis", lambda m, x: m.glu(x, axis=0), ("bfloat16",), (4, 3)),
    ("glu int", lambda m, x: m.glu(x), ("int32",), (2, 2)),
    ("glu odd", lambda m, x: m.glu(x), ("float32",), (2, 3)),
    ("softmax axis0", lambda m, x: m.softmax(x, axis=0), ("float32",), (2, 3)),
    ("softmax axes", lambda m, x: m.softmax(x, axis=(0, 1)), ("float16",), (2, 3)),
    ("softmax None", lambda m, x: m.softmax(x, axis=None), ("float64",), (2, 3)),
    ("softmax where", lambda m, x, w: m.softmax(x, where=w), ("float32", "bool"), (2, 3)),
    ("softmax int", lambda m, x: m.softmax(x), ("int8",), (2, 3)),
    ("softmax bad axis", lambda m, x: m.softmax(x, axis=2), ("float32",), (2, 3)),
    ("log_softmax axis0", lambda m, x: m.log_softmax(x, axis=0), ("bfloat16",), (2, 3)),
    ("log_softmax where", lambda m, x, w: m.log_softmax(x, -1, w), ("float32", "bool"), (2, 3)),
    ("log_softmax complex", lambda m, x: m.log_softmax(x), ("complex64",), (3,)),
    ("logsumexp axis", lambda m, x: m.logsumexp(x, axis=1), ("float32",), (2, 3)),
    ("logsumexp keepdims", lambda m, x: m.logsumexp(x, 0, keepdims=True), ("float16",), (2, 3)),
    ("logsumexp b", lambda m, x, b: m.logsumexp(x, b=b), ("float32", "float32"), (2, 3)),
    ("logsumexp b weak", lambda m, x, b: m.logsumexp(x, b=b), ("int32", "py_float"), (2, 3)),
    ("logsumexp b int", lambda m, x, b: m.logsumexp(x, axis=-1, b=b), ("bfloat16", "int8"),
     (2, 3)),
    ("logsumexp sign", lambda m, x, b: m.logsumexp(x, b=b, return_sign=True),
     ("float32", "float32"), (2, 3)),
    ("logsumexp sign axis", lambda m, x: m.logsumexp(x, 1, return_sign=True), ("float64",),
     (2, 3)),
    ("logsumexp where", lambda m, x, w: m.logsumexp(x, axis=1, where=w), ("float32", "bool"),
     (2, 3)),
    ("logsumexp -inf", lambda m, x: m.logsumexp(x * -jnp.inf if m is jax.nn else
                                                x * -wnp.inf), ("float32",), (3,)),
    ("logmeanexp axis", lambda m, x: m.logmeanexp(x, axis=0, keepdims=True), ("float32",),
     (2, 3)),
    ("logmeanexp where", lambda m, x, w: m.logmeanexp(x, 1, w), ("float64", "bool"), (2, 3)),
    ("standardize axis", lambda m, x: m.standardize(x, axis=0), ("float32",), (3, 2)),
    ("standardize stable", lambda m, x: m.standardize(x, algorithm="stable"), ("float16",),
     (2, 3)),
    ("standardize mean var", lambda m, x, a, v: m.standardize(x, mean=a, variance=v),
     ("float32", "float32", "py_float"), (2, 3)),
    ("standardize where", lambda m, x, w: m.standardize(x, where=w, epsilon=0.1),
     ("float32", "bool"), (2, 3)),
    ("one_hot", lambda m, x: m.one_hot(x, 4), ("int32",), (3,)),
    ("one_hot 2d axis0", lambda m, x: m.one_hot(x, 3, axis=0), ("int8",), (2, 3)),
    ("one_hot dtype", lambda m, x: m.one_hot(x, 5, dtype=jnp.bfloat16), ("uint8",), (3,)),
    ("one_hot int dtype", lambda m, x: m.one_hot(x, 5, dtype="int32"), ("int64",), (3,)),
    ("one_hot weak", lambda m, x: m.one_hot(x, 3), ("py_int",), ()),
    ("one_hot f64 dtype", lambda m, x: m.one_hot(x, 3, dtype=np.float64), ("int16",), (2,)),
    ("one_hot bad axis", lambda m, x: m.one_hot(x, 3, axis=3), ("int32",), (2,)),
]  # fmt: skip

# Where weaktrace disagrees with jax: (label, kinds, x64) -> reason.
KNOWN_MISMATCHES: dict[tuple[str, tuple[str, ...], bool], str] = {}

# Gradients that differ from jax's, by root cause (label -> reason).
GRAD_MISMATCHES: dict[str, str] = {}


def _arg(kind: str, shape: tuple[int, ...], seed: int) -> object:
    if kind == "bool" and seed > 0:  # a where= mask: keep at least one element per row
        mask = values(kind, shape, seed=seed)
        mask[..., 0] = True
        return mask
    return values(kind, () if kind in SCALARS else shape, seed=seed)


def _tolerance(args: tuple[object, ...]) -> dict[str, float]:
    """f16/bf16 results may differ in the last bits: XLA keeps fused intermediates in f32
    under jit, an eager run rounds each operation."""
    names = {str(getattr(a, "dtype", "")) for a in args}
    if names & {"float16", "bfloat16"}:
        return {"rtol": 2e-2, "atol": 2e-2}
    return {"rtol": 2e-5, "atol": 2e-6}


UNARY_CASES = [(n, (k,), ((3,), (2, 3))[i % 2]) for n in UNARY for i, k in enumerate(KINDS)]


def _ids(picked: list) -> list[str]:
    kinds = [c[2] if callable(c[1]) else c[1] for c, _ in picked]
    return [
        f"{c[0]}-{'-'.join(k)}-{'x64' if x64 else 'x32'}"
        for (c, x64), k in zip(picked, kinds, strict=True)
    ]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    full = full_run(metafunc.config)
    for name, cases, n in (("unary_case", UNARY_CASES, 40), ("keyword_case", KEYWORDS, 30)):
        if name in metafunc.fixturenames:
            picked = with_x64(cases, n, full)
            metafunc.parametrize(name, picked, ids=_ids(picked))
    if "attention_case" in metafunc.fixturenames:
        picked = _attention_params(full)
        ids = [f"{c[0]}-{'-'.join(c[2])}-{'x64' if x64 else 'x32'}" for c, x64 in picked]
        metafunc.parametrize("attention_case", picked, ids=ids)


def _run(label: str, f, kinds: tuple[str, ...], shape: tuple[int, ...], x64: bool) -> None:
    args = tuple(_arg(k, shape, seed=i) for i, k in enumerate(kinds))
    reason = KNOWN_MISMATCHES.get((label, kinds, x64))
    if reason:
        pytest.xfail(reason)
    with jax.enable_x64(x64):
        check(lambda *a: f(wnn, *a), lambda *a: f(jax.nn, *a), *args, context=label,
              **_tolerance(args))  # fmt: skip


def test_unary(unary_case):
    (name, kinds, shape), x64 = unary_case
    _run(name, lambda m, a: getattr(m, name)(a), kinds, shape, x64)


def test_keywords(keyword_case):
    (label, f, kinds, shape), x64 = keyword_case
    _run(label, f, kinds, shape, x64)


# -- dot_product_attention ----------------------------------------------------------------

# (label, f(module, q, k, v), (query, key/value) dtypes, (query shape, key/value shape))
_BTNH, _BSKH = (2, 5, 4, 8), (2, 6, 2, 8)


def _attn_extra(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "bias": rng.normal(size=(1, 4, 5, 6)).astype(np.float32),
        "bias1": rng.normal(size=(2, 1, 5, 6)).astype(np.float16),
        "bias_int": rng.integers(-2, 3, (5, 6)).astype(np.int8),
        "mask": rng.random((2, 1, 5, 6)) > 0.3,
        "mask4": rng.random((1, 4, 1, 6)) > 0.3,
        "ql": np.array([3, 5], np.int32),
        "kl": np.array([6, 2], np.int32),
    }


_X = _attn_extra(0)
ATTENTION = [
    ("plain", lambda m, q, k, v: m.dot_product_attention(q, k, v)),
    ("bias mask", lambda m, q, k, v: m.dot_product_attention(q, k, v, _X["bias"], _X["mask"])),
    ("bias heads1", lambda m, q, k, v: m.dot_product_attention(q, k, v, bias=_X["bias1"])),
    ("bias int 2d", lambda m, q, k, v: m.dot_product_attention(q, k, v, _X["bias_int"])),
    ("mask per head", lambda m, q, k, v: m.dot_product_attention(q, k, v, mask=_X["mask4"])),
    ("causal scale", lambda m, q, k, v: m.dot_product_attention(q, k, v, is_causal=True,
                                                                scale=0.3)),
    ("seq lengths", lambda m, q, k, v: m.dot_product_attention(
        q, k, v, query_seq_lengths=_X["ql"], key_value_seq_lengths=_X["kl"])),
    ("kv lengths causal", lambda m, q, k, v: m.dot_product_attention(
        q, k, v, is_causal=True, key_value_seq_lengths=_X["kl"])),
    ("window", lambda m, q, k, v: m.dot_product_attention(q, k, v, local_window_size=(1, 2))),
    ("window int", lambda m, q, k, v: m.dot_product_attention(q, k, v, local_window_size=1)),
    ("residual", lambda m, q, k, v: m.dot_product_attention(q, k, v, mask=_X["mask"],
                                                            return_residual=True)),
    ("xla", lambda m, q, k, v: m.dot_product_attention(q, k, v, implementation="xla")),
    ("cudnn", lambda m, q, k, v: m.dot_product_attention(q, k, v, implementation="cudnn")),
    ("bad impl", lambda m, q, k, v: m.dot_product_attention(q, k, v, implementation="flash")),
    ("mask not bool", lambda m, q, k, v: m.dot_product_attention(
        q, k, v, mask=_X["mask"].astype(np.int32))),
    ("lengths int64", lambda m, q, k, v: m.dot_product_attention(
        q, k, v, query_seq_lengths=_X["ql"].astype(np.int64))),
    ("3d", lambda m, q, k, v: m.dot_product_attention(q[0], k[0], v[0], is_causal=True)),
    ("3d residual", lambda m, q, k, v: m.dot_product_attention(q[1], k[1], v[1],
                                                               return_residual=True)),
    ("heads not multiple", lambda m, q, k, v: m.dot_product_attention(q[:, :, :3], k, v)),
    ("key value shapes", lambda m, q, k, v: m.dot_product_attention(q, k, v[:, :4])),
]  # fmt: skip
_ATTN_DTYPES = [("float32", "float32"), ("float16", "float16"), ("bfloat16", "bfloat16"),
                ("float64", "float64"), ("int32", "int32"), ("bool", "bool"),
                ("float32", "float16")]  # fmt: skip
ATTENTION_CASES = [(label, f, dts) for label, f in ATTENTION for dts in _ATTN_DTYPES]


def _attention_params(full: bool) -> list:
    """All cases in both modes under --run-slow; in CI every label once (float32, x64
    alternating) and every other dtype pair once (on one of the first 11 labels)."""
    if full:
        return [(c, x64) for c in ATTENTION_CASES for x64 in (False, True)]
    picked = [((label, f, _ATTN_DTYPES[0]), bool(i % 2)) for i, (label, f) in enumerate(ATTENTION)]
    for i, dts in enumerate(_ATTN_DTYPES[1:]):
        label, f = ATTENTION[(2 * i) % 11]
        picked.append(((label, f, dts), bool(i % 2)))
    return picked


@pytest.mark.ci_sample(2)
def test_attention(attention_case):
    (label, f, (qdt, kdt)), x64 = attention_case
    rng = np.random.default_rng(1)
    q = (rng.normal(size=_BTNH) * 2).astype(qdt)
    k, v = ((rng.normal(size=_BSKH) * 2).astype(kdt) for _ in range(2))
    tol = _tolerance((q, k))
    with jax.enable_x64(x64):
        if qdt == kdt and qdt in ("float16", "bfloat16"):
            _half_attention(f, q, k, v, tol)
            return
        check(lambda *a: f(wnn, *a), lambda *a: f(jax.nn, *a), q, k, v, context=label, **tol)


def _half_attention(f, q, k, v, tol) -> None:
    """f16/bf16: jax asks dot_general for an F16_F16_F32 / BF16_BF16_F32 algorithm, which
    XLA's CPU backend rejects when it compiles; jax's eager call catches that (a bare
    except around the einsum) and retries with the default precision, jax.jit cannot. So
    jax's eager result is the reference for weaktrace eager, traced and compiled (which
    use the default precision with float32 accumulation). Where jax eager refuses the call
    (an unknown implementation, int64 lengths under x64), weaktrace must refuse it too,
    eagerly and under a trace, with a named error of jax's class."""
    try:
        theirs = f(jax.nn, *(jnp.asarray(a) for a in (q, k, v)))
    except Exception as err:  # jax's refusal is the oracle
        calls = {
            "eager": lambda: f(wnn, *(jnp.asarray(a) for a in (q, k, v))),
            "traced": lambda: wt.trace(lambda *a: f(wnn, *a)).trace(q, k, v),
        }
        for name, call in calls.items():
            with pytest.raises(type(err)) as info:
                call()
            assert isinstance(info.value, wt.WeaktraceError), (name, info.value, err)
        return
    ref = jax.eval_shape(lambda *a: f(jax.nn, *a), q, k, v)
    ours = {
        "eager": f(wnn, *(jnp.asarray(a) for a in (q, k, v))),
        "compiled": wt.trace(lambda *a: f(wnn, *a))(q, k, v),
        "traced": wt.trace(lambda *a: f(wnn, *a)).trace(q, k, v).out_avals,
    }
    for name, out in ours.items():
        for o, r, t in zip(*(jax.tree.leaves(x) for x in (out, ref, theirs)), strict=True):
            assert (o.shape, o.dtype, o.weak_type) == (r.shape, r.dtype, r.weak_type), name
            if name != "traced":
                np.testing.assert_allclose(np.asarray(o, np.float32), np.asarray(t, np.float32),
                                           err_msg=name, **tol)  # fmt: skip


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_attention_gradient_equals_jax(x64, full):
    if x64 and not full:
        pytest.skip("CI runs the x32 gradient (test_attention covers x64); --run-slow runs both")
    rng = np.random.default_rng(2)
    q = rng.normal(size=_BTNH).astype(np.float32)
    k, v = (rng.normal(size=_BSKH).astype(np.float32) for _ in range(2))
    x = _attn_extra(3)

    def loss(m, np_):
        def f(q, k, v, bias):
            out = m.dot_product_attention(
                q,
                k,
                v,
                bias,
                x["mask"],
                is_causal=True,
                key_value_seq_lengths=x["kl"],
                local_window_size=3,
            )
            return np_.sum(out * np_.arange(8.0))  # fmt: skip

        return f

    with jax.enable_x64(x64):
        ours = jax.grad(wt.trace(loss(wnn, wnp)), argnums=(0, 1, 2, 3))(q, k, v, x["bias"])
        theirs = jax.grad(loss(jax.nn, jnp), argnums=(0, 1, 2, 3))(q, k, v, x["bias"])
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


# -- coverage -------------------------------------------------------------------------


def _public(module) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


def test_every_jax_nn_name_is_mirrored_or_excluded():
    theirs = _public(jax.nn) - MODULES
    missing = theirs - set(wnn.__all__) - set(EXCLUDED)
    assert not missing, f"jax.nn names without a mirror or an exclusion: {sorted(missing)}"
    stale = set(EXCLUDED) - theirs
    assert not stale, f"excluded names jax.nn no longer has: {sorted(stale)}"
    assert not set(EXCLUDED) & set(wnn.__all__), "a name is both mirrored and excluded"
    extra = set(wnn.__all__) - theirs - MODULES
    assert not extra, f"weaktrace.nn names jax.nn does not have: {sorted(extra)}"


def test_unary_sweep_calls_every_elementwise_mirror():
    keyword_calls = {"glu", "one_hot", "dot_product_attention"}
    assert set(wnn.__all__) - MODULES - set(UNARY) - keyword_calls == set()


def test_aliases():
    assert wnn.swish is wnn.silu and wnn.hard_swish is wnn.hard_silu


# -- gradients ------------------------------------------------------------------------


def _mlp(nn, np_):
    def loss(params, x, labels):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = nn.gelu(nn.relu(h)) + nn.gelu(h, approximate=False) * 0.1
        logp = nn.log_softmax(h)
        target = nn.one_hot(labels, h.shape[-1])
        probs = nn.softmax(h, axis=-1)
        return -np_.mean(np_.sum(target * logp, axis=-1)) + 0.01 * np_.sum(probs**2)

    return loss


def _params(seed: int, sizes: tuple[int, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(a, b)).astype(np.float32) / np.sqrt(a),
         rng.normal(size=(b,)).astype(np.float32) * 0.1)
        for a, b in itertools.pairwise(sizes)
    ]  # fmt: skip


@pytest.mark.parametrize(("seed", "x64"), [(0, False), (1, True)])
def test_mlp_loss_gradient_equals_jax(seed, x64):
    with jax.enable_x64(x64):
        params = _params(seed, (5, 8, 8, 4))
        rng = np.random.default_rng(seed + 10)
        x = rng.normal(size=(6, 5)).astype(np.float32)
        labels = rng.integers(0, 4, 6).astype(np.int32)
        ours = jax.value_and_grad(wt.trace(_mlp(wnn, wnp)))(params, x, labels)
        theirs = jax.value_and_grad(_mlp(jax.nn, jnp))(params, x, labels)
        for a, b in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs), strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


GRAD_CASES = [
    ("relu", lambda m, x: m.relu(x)),
    ("relu6", lambda m, x: m.relu6(x)),
    ("hard_sigmoid", lambda m, x: m.hard_sigmoid(x)),
    ("leaky_relu", lambda m, x: m.leaky_relu(x)),
    ("elu", lambda m, x: m.elu(x)),
    ("celu", lambda m, x: m.celu(x)),
    ("gelu", lambda m, x: m.gelu(x)),
    ("gelu exact", lambda m, x: m.gelu(x, approximate=False)),
    ("silu", lambda m, x: m.silu(x)),
    ("softplus", lambda m, x: m.softplus(x)),
    ("log_sigmoid", lambda m, x: m.log_sigmoid(x)),
    ("mish", lambda m, x: m.mish(x)),
    ("logaddexp", lambda m, x: _np_of(m).logaddexp(x, x[::-1])),
    ("logaddexp2", lambda m, x: _np_of(m).logaddexp2(x, 0.0)),
    ("logaddexp -inf", lambda m, x: _np_of(m).logaddexp(x * 0 - np.inf, x)),
    ("log1mexp", lambda m, x: m.log1mexp(m.relu(x) + 0.5)),
    ("softmax", lambda m, x: m.softmax(x) * np.arange(7.0, dtype=np.float32)),
    ("softmax where", lambda m, x: m.softmax(x, where=np.arange(7) % 3 != 0) * 2.0 ** np.arange(7)),
    ("log_softmax", lambda m, x: m.log_softmax(x) * np.arange(7.0, dtype=np.float32)),
    ("logsumexp", lambda m, x: m.logsumexp(x)),
    ("logsumexp -inf", lambda m, x: m.logsumexp(x * 0 - np.inf)),
    ("logsumexp b", lambda m, x: m.logsumexp(x, b=np.arange(7.0, dtype=np.float32))),
    ("standardize", lambda m, x: m.standardize(x) * np.arange(7.0, dtype=np.float32)),
    ("hard_tanh", lambda m, x: m.hard_tanh(x)),
]


def _np_of(m):
    return jnp if m is jax.nn else wnp


def _grad_params() -> list:
    marks = {k: [pytest.mark.xfail(strict=True, reason=r)] for k, r in GRAD_MISMATCHES.items()}
    return [pytest.param(label, f, id=label, marks=marks.get(label, [])) for label, f in GRAD_CASES]


@pytest.mark.parametrize(("label", "f"), _grad_params())
@pytest.mark.ci_sample(2)
def test_gradients_equal_jax(label, f):
    x = np.array([-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 6.0], np.float32)  # kinks at 0, +-1, 6

    def loss(m):
        return lambda v: jnp.sum(f(m, v)) if m is jax.nn else wnp.sum(f(m, v))

    ours = jax.grad(wt.trace(loss(wnn)))(x)
    theirs = jax.grad(loss(jax.nn))(x)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7, equal_nan=True)


def test_relu_gradient_at_zero_is_zero():
    g = jax.grad(wt.trace(lambda v: wnn.relu(v)))(0.0)
    assert g == 0.0 == jax.grad(jax.nn.relu)(0.0)
    # a plain max(x, 0) would give 0.5 there: the custom JVP is what makes the difference
    assert jax.grad(wt.trace(lambda v: wnp.maximum(v, 0.0)))(0.0) == 0.5


def test_softmax_jvp_is_jax_custom_rule():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    t = np.array([0.1, -0.3, 0.7], np.float32)
    ours = jax.jvp(wt.trace(wnn.softmax), (x,), (t,))
    theirs = jax.jvp(jax.nn.softmax, (x,), (t,))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_second_derivatives_equal_jax():
    x = np.array([-1.5, -0.2, 0.3, 2.0], np.float32)
    for name in ("gelu", "silu"):
        ours = jax.hessian(wt.trace(lambda v, n=name: wnp.sum(getattr(wnn, n)(v))))(x)
        theirs = jax.hessian(lambda v, n=name: jnp.sum(getattr(jax.nn, n)(v)))(x)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=name)


# -- dtypes come from the policy ----------------------------------------------------


def test_one_hot_default_dtype_follows_the_policy():
    x = np.array([0, 1], np.int32)
    traced = wt.trace(
        lambda v: wnn.one_hot(v, 3), policy=wt.policy("torch", default_float="float64")
    )
    assert traced.trace(x).out_avals.dtype == np.float64


def test_gelu_of_ints_follows_the_numpy_policy():
    traced = wt.trace(lambda v: wnn.gelu(v), policy=wt.policy("numpy"))
    assert traced.trace(np.array([1, 2], np.int32)).out_avals.dtype == np.float64


# -- initializers -----------------------------------------------------------------------


def test_initializers_are_jax_names_and_jax_objects_where_no_key_is_drawn():
    theirs = _public(jax.nn.initializers)
    assert set(wnn.initializers.__all__) == theirs
    # (not constant: its value may be a weaktrace tracer, which jax's jnp.full cannot take;
    # see test_realistic_regressions_f.test_constant_initializer_of_a_traced_value)
    for name in ("Initializer", "zeros", "ones"):
        assert getattr(wnn.initializers, name) is getattr(jax.nn.initializers, name), name


@pytest.mark.parametrize("name", ["glorot_normal", "he_uniform", "lecun_normal", "orthogonal"])
def test_initializers_are_bit_identical_eagerly(name):
    key = jax.random.key(3)
    ours = getattr(wnn.initializers, name)()(key, (4, 3), jnp.float32)
    theirs = getattr(jax.nn.initializers, name)()(key, (4, 3), jnp.float32)
    np.testing.assert_array_equal(ours, theirs)


# Initialising inside the traced function (`params = init_params(key)` in a jitted step),
# as programs do: the key is a weaktrace tracer. Found by the tests/realistic programs.
INIT_CASES = [
    ("glorot_uniform", (), (4, 3)),
    ("glorot_normal", (), (4, 3)),
    ("he_normal", (), (3, 3, 2, 5)),
    ("lecun_uniform", (), (6, 2)),
    ("kaiming_uniform", (), (2, 7)),
    ("xavier_normal", (), (5, 5)),
    ("normal", (0.02,), (3,)),
    ("uniform", (), (2, 2)),
    ("truncated_normal", (0.1, None, -1.0, 3.0), (4,)),
    ("orthogonal", (), (4, 3)),
    ("orthogonal", (2.0, 0), (3, 5)),
    ("delta_orthogonal", (), (3, 3, 4)),
    ("variance_scaling", (2.0, "fan_geo_avg", "normal"), (4, 6)),
    ("variance_scaling", (1.0, "fan_out", "uniform", -2, -1, 0), (2, 4, 6)),
    ("variance_scaling", (1.0, "fan_in", "truncated_normal", -2, -1, (), jnp.complex64), (4, 6)),
    ("variance_scaling", (1.0, "fan_avg", "uniform", -2, -1, (), jnp.complex64), (4, 6)),
]


def _init_combos():
    for (name, args, shape), dtype, x64 in itertools.product(
        INIT_CASES, [None, jnp.float32, jnp.bfloat16], [False, True]
    ):
        complex_init = len(args) > 6  # takes no real dtype
        no_qr = name.endswith("orthogonal") and dtype == jnp.bfloat16  # jax has no bf16 QR
        if not (dtype is not None and complex_init) and not no_qr:
            yield name, args, shape, dtype, x64


INIT_COMBOS = list(_init_combos())


@pytest.mark.parametrize("k", range(len(INIT_COMBOS)))
@pytest.mark.ci_sample(2)
def test_initializers_with_a_traced_key_equal_jax_jit(k, full):
    if not full and k % 6:
        pytest.skip("CI checks every sixth case (--run-slow: all)")
    name, args, shape, dtype, x64 = INIT_COMBOS[k]
    kw = {} if dtype is None else {"dtype": dtype}
    with jax.enable_x64(x64):
        theirs = getattr(jax.nn.initializers, name)(*args)
        ours = getattr(wnn.initializers, name)(*args)
        for key in (jax.random.key(1), jax.random.PRNGKey(2)):
            want = jax.jit(lambda k, init=theirs: init(k, shape, **kw))(key)
            got = wt.trace(lambda k, init=ours: init(k, shape, **kw))(key)
            assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_initializer_options_are_checked_by_jax_and_bad_shapes_raise_as_jax():
    with pytest.raises(ValueError, match="invalid mode"):
        jax.jit(lambda k: jax.nn.initializers.variance_scaling(1.0, "fan", "normal")(k, (2, 2)))(
            jax.random.key(0)
        )
    init = wnn.initializers.variance_scaling(1.0, "fan", "normal")
    with pytest.raises(ValueError, match="invalid mode"):
        wt.trace(lambda k: init(k, (2, 2))).trace(jax.random.key(0))
    with pytest.raises(ValueError, match="at least 2D"):
        wt.trace(lambda k: wnn.initializers.glorot_uniform()(k, (3,))).trace(jax.random.key(0))


def test_a_constant_initializer_inside_a_trace_is_a_constant():
    def g(x):
        return x * wnn.initializers.constant(1.0)(jax.random.key(0), (2,))

    out = wt.trace(g)(np.float32(2.0))
    np.testing.assert_array_equal(out, np.full(2, 2.0, np.float32))


def test_jax_nn_on_a_traced_value_raises_foreign_function_error():
    with pytest.raises(wt.ForeignFunctionError, match=r"weaktrace\.nn\.relu"):
        wt.trace(lambda x: jax.nn.relu(x)).trace(np.float32(1.0))
