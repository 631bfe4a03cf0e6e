"""The eager call's fast path gives the answers of the path it shortcuts.

An eager mirror call whose positional arguments are all "leaves" (jax arrays, Python and
numpy scalars, numpy arrays, strings) skips the generator and internal-call checks
(core/mirror.py `_LEAVES`), and once compiled goes to jax.jit's dispatch from the warm
slot (`hot`) without looking up its compile key; any other argument (a list, a tuple, a
generator, a weaktrace tracer) takes the full checks. Both must agree with jax.numpy,
also after a config that changes the answer is flipped under a warm cache.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import config as jax_config

import weaktrace as wt
import weaktrace.numpy as wnp
from weaktrace.core import mirror

X = np.linspace(-2, 2, 6, dtype=np.float32)
I16 = np.arange(6, dtype=np.int16)

CALLS = {
    "python ints": lambda m: m.clip(jnp.asarray(X), -1, 1),
    "python float": lambda m: m.add(jnp.asarray(I16), 2.5),
    "python complex": lambda m: m.multiply(jnp.asarray(X), 1j),
    "python bool": lambda m: m.logical_and(jnp.asarray(X) > 0, True),
    "numpy scalars": lambda m: m.add(np.float32(1.5), np.int8(2)),
    "numpy scalar and weak int": lambda m: m.add(np.int16(3), 7),
    "numpy array": lambda m: m.subtract(I16, np.int8(1)),
    "None": lambda m: m.clip(jnp.asarray(X), None, 1.0),
    "string": lambda m: m.pad(jnp.asarray(X), 1, "edge"),
    "list (full checks)": lambda m: m.concatenate([jnp.asarray(X), X]),
    "tuple (full checks)": lambda m: m.stack((jnp.asarray(I16), I16)),
    "generator (full checks)": lambda m: m.expand_dims(jnp.asarray(X), (i for i in (0, 2))),
    "generator keyword": lambda m: m.sum(jnp.ones((2, 3)), axis=(i for i in (1,))),
    "static keyword": lambda m: m.mean(jnp.asarray(X).reshape(2, 3), axis=0),
}


def _outcome(out: Any) -> tuple[Any, ...]:
    a = jnp.asarray(out)
    return a.shape, a.dtype, a.weak_type, np.asarray(a).tolist()


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("name", list(CALLS))
def test_eager_call_paths_match_jax(name: str, x64: bool) -> None:
    with jax.enable_x64(x64):
        for _ in range(2):  # the first call compiles, the second takes the warm path
            got, ref = CALLS[name](wnp), CALLS[name](jnp)
            assert type(got) is type(ref)
            assert _outcome(got) == _outcome(ref)


def test_leaf_classes_hold_no_tracer_container_or_generator() -> None:
    assert mirror._LEAVES.isdisjoint({tuple, list, dict, wt.core.trace.Tracer})
    assert type(i for i in ()) not in mirror._LEAVES
    for leaf in mirror._LEAVES:  # nothing a container subclass could hide behind
        assert not issubclass(leaf, tuple | list | dict)


def test_internal_list_of_tracers_inside_a_trace() -> None:
    # a mirror called by traced code with a list of tracers stays inside the trace
    def f(a: Any, b: Any) -> Any:
        return wnp.concatenate([a, b * 2])

    x = jnp.asarray(X)
    got = wt.trace(f)(x, x)
    ref = jax.jit(lambda a, b: jnp.concatenate([a, b * 2]))(x, x)
    assert _outcome(got) == _outcome(ref)


# -- the warm eager path reuses jax.jit's cache: each config that changes the answer
# must be part of its key (flipped under a warm cache, the answer follows jax's) -----

I64 = np.arange(3, dtype=np.int64)
CONFIGS: dict[str, tuple[Any, list[Any], Any]] = {
    "x64": (jax.enable_x64, [False, True, False], lambda m: m.sum(I64)),
    "numpy_dtype_promotion": (
        jax.numpy_dtype_promotion,
        ["standard", "strict", "standard"],
        lambda m: m.add(jnp.ones(3, jnp.int32), jnp.ones(3, jnp.float32)),
    ),
    "explicit_x64_dtypes": (
        jax_config.explicit_x64_dtypes,  # jax's own context manager (not public)
        ["allow", "error", "warn", "allow"],
        lambda m: m.zeros(3, dtype=np.float64),
    ),
}


def _run(call: Any, m: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", _outcome(call(m)))
    except Exception:  # compared with jax's: both raise
        return ("error",)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_warm_eager_path_follows_config_flips(name: str) -> None:
    setter, values, call = CONFIGS[name]
    answers = set()
    for value in values:
        with setter(value):
            for _ in range(2):  # compile, then the warm path
                got, ref = _run(call, wnp), _run(call, jnp)
                assert got[0] == ref[0], (value, got, ref)
                if ref[0] == "ok":
                    assert got == ref, (value, got, ref)
                answers.add(str(ref))
    assert len(answers) > 1  # the flip changes jax's answer: the test can fail
