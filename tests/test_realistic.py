"""Realistic JAX programs (tests/realistic/), written as public JAX code is, run unchanged
with their imports swapped for weaktrace's mirrors (`jax.numpy` -> `weaktrace.numpy`,
`jax.lax`, `jax.nn` (with `jax.nn.initializers`), `jax.random`, `jax.scipy.special`, `jax.ops` ->
their weaktrace namesakes; `from jax import jit, lax` keeps `jit` from jax).

Each program runs four ways: jax eagerly and under jax.jit (the oracle), weaktrace eagerly
(the swapped module called directly) and traced + compiled (`weaktrace.trace`). Output
structure, shapes, dtypes, weak flags and values must agree, x64 off and on; the traced
program's avals must be jax.make_jaxpr's.
"""

from __future__ import annotations

import pathlib
import re
import sys
import types
import warnings

import jax
import numpy as np
import pytest

import weaktrace as wt

HERE = pathlib.Path(__file__).parent / "realistic"
PROGRAMS = sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))
# jax modules weaktrace mirrors, importable from `weaktrace` under the same names.
MIRRORED = ("numpy", "lax", "nn", "random", "scipy", "ops")
# `import jax.<m> as x` and `from jax.<m> import ...` for the mirrored (sub)modules.
MODULE_IMPORT = re.compile(
    r"^(\s*)(import|from) jax\.(numpy|lax|nn|random|scipy|ops)((?:\.\w+)*)\b", re.MULTILINE
)
FROM_JAX = re.compile(r"^(\s*)from jax import (.+)$", re.MULTILINE)


def _split_from_jax(match: re.Match) -> str:
    """`from jax import jit, lax, nn` -> jax keeps jit, weaktrace gives lax and nn."""
    indent, names = match.group(1), [n.strip() for n in match.group(2).split(",")]
    ours = [n for n in names if n.split(" as ")[0] in MIRRORED]
    theirs = [n for n in names if n not in ours]
    lines = [f"{indent}from jax import {', '.join(theirs)}"] if theirs else []
    lines += [f"{indent}from weaktrace import {', '.join(ours)}"] if ours else []
    return "\n".join(lines)


def swap_imports(source: str) -> str:
    """The program's jax imports swapped for weaktrace's mirrors (other jax names stay)."""
    source = MODULE_IMPORT.sub(r"\1\2 weaktrace.\3\4", source)
    return FROM_JAX.sub(_split_from_jax, source)


def load(name: str, swapped: bool) -> types.ModuleType:
    path = HERE / f"{name}.py"
    source = path.read_text()
    if swapped:
        source = swap_imports(source)
    module = types.ModuleType(f"realistic_{name}_{'wt' if swapped else 'jax'}")
    module.__file__ = str(path)
    # As an import does: the module is in sys.modules while it runs (dataclasses looks
    # its namespace up there), and this file's `from __future__ import annotations` is
    # not inherited (a program's `name: str = field(...)` stays a type, not a string).
    sys.modules[module.__name__] = module
    exec(compile(source, str(path), "exec", dont_inherit=True), module.__dict__)
    return module


def test_every_program_swaps_an_import() -> None:
    for name in PROGRAMS:
        text = (HERE / f"{name}.py").read_text()
        assert swap_imports(text) != text, name
    assert len(PROGRAMS) >= 30
    assert set(KNOWN_MISMATCHES) <= set(PROGRAMS)


def test_swap_imports() -> None:
    source = (
        "import jax\nimport jax.numpy as jnp\nfrom jax import jit, lax, nn as jnn\n"
        "from jax.scipy.special import gammaln\nimport jax.random as jrandom\n"
        "from jax.nn import initializers\nfrom jax import random\n"
        "from jax.ops import segment_sum\n"
    )
    assert swap_imports(source).splitlines() == [
        "import jax",
        "import weaktrace.numpy as jnp",
        "from jax import jit",
        "from weaktrace import lax, nn as jnn",
        "from weaktrace.scipy.special import gammaln",
        "import weaktrace.random as jrandom",
        "from weaktrace.nn import initializers",
        "from weaktrace import random",
        "from weaktrace.ops import segment_sum",
    ]


def _leaves(tree):
    return jax.tree_util.tree_leaves(tree)


def _signature(x) -> tuple:
    a = jax.numpy.asarray(x) if not hasattr(x, "dtype") else x
    return (tuple(a.shape), np.dtype(a.dtype), bool(getattr(a, "weak_type", False)))


def _structure(tree) -> str:
    """The tree's structure, with classes by name: the jax and the weaktrace run of a
    program each exec its source, so a NamedTuple or dataclass it defines is two classes."""
    return str(jax.tree_util.tree_structure(tree))


def _same(got, ref, where: str) -> None:
    g, r = _leaves(got), _leaves(ref)
    assert _structure(got) == _structure(ref), where
    for i, (a, b) in enumerate(zip(g, r, strict=True)):
        assert _signature(a) == _signature(b), (
            f"{where}: leaf {i}: {_signature(a)} != {_signature(b)}"
        )
        tol = 2e-2 if np.dtype(_signature(b)[1]).itemsize <= 2 else 1e-5
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind in "biu":
            np.testing.assert_array_equal(a, b, err_msg=f"{where}: leaf {i}")
        else:
            c = np.complex128
            np.testing.assert_allclose(
                a.astype(c), b.astype(c), rtol=tol, atol=tol, err_msg=f"{where}: leaf {i}"
            )


# Programs weaktrace cannot run yet, by root cause: strict xfails, so a fix forces removal.
KNOWN_MISMATCHES: dict[str, str] = {}
# CI runs x64 on for every third program (x32 for all); --run-slow runs x64 for all.
X64_SAMPLE = frozenset(PROGRAMS[::3])
# Eager runs (jax's op by op, and weaktrace's) cost most of a program's time: CI
# compares the eager result for a sixth of the programs, half of them with x64 on
# (traced and compiled for all; --run-slow: eager for all). (jax.jit's values are no
# cheaper oracle: they differ from jax's eager run by more than the tolerance, e.g.
# newton_hessian's 1.4e-5.)
EAGER_SAMPLE = frozenset(PROGRAMS[::12] + PROGRAMS[1::12])


def _program(name: str) -> object:
    if name in KNOWN_MISMATCHES:
        return pytest.param(
            name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[name])
        )
    return name


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("name", [_program(n) for n in PROGRAMS])
def test_program_runs_unchanged(name: str, x64: bool, full: bool) -> None:
    if x64 and not full and name not in X64_SAMPLE and name not in KNOWN_MISMATCHES:
        pytest.skip("x64 runs on a deterministic sample of programs in CI (--run-slow: all)")
    if not x64 and not full and name in X64_SAMPLE and name not in KNOWN_MISMATCHES:
        pytest.skip("CI runs each program in one mode: this one with x64 (--run-slow: both)")
    with jax.enable_x64(x64), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = load(name, False), load(name, True)
        args = theirs.inputs(np.random.default_rng(0))
        ref_jit = jax.jit(theirs.run)(*args)
        shapes = jax.make_jaxpr(theirs.run, return_shape=True)(*args)[1]
        traced = wt.trace(ours.run)
        avals = traced.trace(*args).out_avals
        for a, r in zip(_leaves(avals), _leaves(shapes), strict=True):
            assert (a.shape, a.dtype, a.weak_type) == (r.shape, r.dtype, r.weak_type), (
                f"{name}: traced {a}, jax {r}"
            )
        _same(traced(*args), ref_jit, f"{name} compiled")
        if full or name in EAGER_SAMPLE or name in KNOWN_MISMATCHES:
            _same(ours.run(*args), theirs.run(*args), f"{name} eager")
