"""weaktrace.lax operations against jax.lax: same results, dtypes and weak flags,
eager and traced, x64 off and on; errors exactly where jax.lax raises (it never
promotes: mismatched dtypes, Python scalars of another kind)."""

from __future__ import annotations

import random
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import weaktrace.lax as wlax
from tests.mirror_harness import check

DTYPES = ["bool", "uint8", "int8", "int32", "float16", "bfloat16", "float32", "complex64"]
UNARY = ["abs", "acos", "asin", "atan", "cbrt", "ceil", "cos", "cosh", "erf", "exp",
         "expm1", "floor", "imag", "is_finite", "log", "log1p", "logistic", "neg", "bitwise_not",
         "real", "rsqrt", "sign", "sin", "sqrt", "square", "tanh", "lgamma",
         "population_count"]  # fmt: skip
BINARY = ["add", "sub", "mul", "div", "rem", "pow", "max", "min", "atan2", "bitwise_and",
          "bitwise_or", "shift_left", "eq", "ne", "lt", "ge", "nextafter", "complex"]  # fmt: skip


def value(dt: str, shape=(3,)):
    x = (np.arange(int(np.prod(shape))).reshape(shape) % 3) + 1
    return x.astype(jnp.dtype(dt))


def cases(full: bool):
    un = [(op, dt) for op in UNARY for dt in DTYPES]
    bi = [(op, a, b) for op in BINARY for a in DTYPES for b in [*DTYPES, "py float", "py int"]]
    rng = random.Random(3)
    return (un, bi) if full else (rng.sample(un, 30), rng.sample(bi, 50))


def operand_(name: str):
    return {"py float": 2.0, "py int": 2}.get(name) if name.startswith("py") else value(name)


@pytest.mark.slow
@pytest.mark.parametrize("x64", [False, True])
def test_elementwise_match_jax_lax(full, x64):
    un, bi = cases(full)
    with jax.enable_x64(x64):
        for op, dt in un:
            check(getattr(wlax, op), getattr(lax, op), value(dt), rtol=2e-3, context=op)
        for op, a, b in bi:
            check(getattr(wlax, op), getattr(lax, op), value(a), operand_(b), rtol=2e-3, context=op)


STRUCTURAL = {
    "broadcast_in_dim": lambda m, x: m.broadcast_in_dim(x, (2, 3, 4), (1, 2)),
    "broadcast": lambda m, x: m.broadcast(x, (2,)),
    "reshape dims": lambda m, x: m.reshape(x, (4, 3), dimensions=(1, 0)),
    "transpose": lambda m, x: m.transpose(x, (1, 0)),
    "squeeze": lambda m, x: m.squeeze(m.expand_dims(x, (0,)), (0,)),
    "concatenate": lambda m, x: m.concatenate([x, x], 1),
    "slice": lambda m, x: m.slice(x, (0, 1), (3, 4), (2, 1)),
    "slice_in_dim": lambda m, x: m.slice_in_dim(x, 1, None, axis=1),
    "index_in_dim": lambda m, x: m.index_in_dim(x, -1, 1, keepdims=False),
    "dynamic_slice": lambda m, x: m.dynamic_slice(x, (1, -2), (2, 2)),
    "dynamic_update_slice": lambda m, x: m.dynamic_update_slice(x, x[:1, :2], (2, 3)),
    "dynamic_index_in_dim": lambda m, x: m.dynamic_index_in_dim(x, 1, 0, False),
    "rev": lambda m, x: m.rev(x, (0,)),
    "pad": lambda m, x: m.pad(x, m.convert_element_type(0, x.dtype), ((1, 0, 1), (-1, 2, 0))),
    "reduce_sum": lambda m, x: m.reduce_max(x, (1,)),
    "argmax": lambda m, x: m.argmax(x, 1, np.int32),
    "dot_general": lambda m, x: m.dot_general(x, x, (((1,), (1,)), ((), ()))),
    "dot pref": lambda m, x: m.dot(x, m.transpose(x, (1, 0)), preferred_element_type=np.float32),
    "top_k": lambda m, x: m.top_k(x, 2),
    "sort": lambda m, x: m.sort(x, 0),
    "sort_key_val": lambda m, x: m.sort_key_val(x, -x, 1),
    "select": lambda m, x: m.select(x > 1, x, x * 2),
    "clamp": lambda m, x: m.clamp(
        m.convert_element_type(1, x.dtype), x, m.convert_element_type(2, x.dtype)
    ),
    "convert": lambda m, x: m.convert_element_type(x, np.float16),
    "full_like": lambda m, x: m.full_like(x, 2),
    "iota": lambda m, x: (
        m.broadcasted_iota(np.int32, (2, 3), 1) + m.convert_element_type(x[0, :3], np.int32)
    ),
    "stop_gradient": lambda m, x: m.stop_gradient((x, x)),
    "integer_pow": lambda m, x: m.integer_pow(x, 3),
}


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
@pytest.mark.ci_sample(2)
def test_structural_ops_match_jax_lax(name, full):
    fn = STRUCTURAL[name]
    modes = [(dt, x64) for dt in ("int8", "float32", "bfloat16") for x64 in (False, True)]
    for dt, x64 in modes if full else random.Random(name).sample(modes, 2):
        with jax.enable_x64(x64):
            x = value(dt, (3, 4))
            check(lambda a: fn(wlax, a), lambda a: fn(lax, a), x, rtol=1e-2, context=name)


def test_lax_never_promotes():
    for a, b in [(value("float16"), 2.0), (value("int8"), 2), (value("float16"), value("float32"))]:
        with pytest.raises(TypeError):
            lax.add(a, b)
        with pytest.raises(TypeError):
            wlax.add(a, b)


DATA = Path(__file__).parent / "data"
PENDING = set((DATA / "lax_pending.txt").read_text().split())
EXCLUDED = {  # name -> why weaktrace.lax does not mirror it
    line.split(None, 1)[0]: line.split(None, 1)[1]
    for line in (DATA / "lax_excluded.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
}


def test_every_jax_lax_name_is_mirrored_or_pending():
    names = sorted(n for n in dir(lax) if not n.startswith("_"))
    unlisted = [n for n in names if not hasattr(wlax, n) and n not in PENDING | set(EXCLUDED)]
    assert not unlisted, f"weaktrace.lax lacks {unlisted}: mirror them or list them as pending"
    done = sorted(n for n in PENDING | set(EXCLUDED) if hasattr(wlax, n))
    assert not done, f"remove {done} from tests/data/lax_pending.txt / lax_excluded.txt"
    assert all(EXCLUDED.values()), "every excluded name needs a reason"
