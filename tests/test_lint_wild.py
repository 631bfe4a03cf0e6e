"""weaktrace.lint on JAX code as it is written in the wild (session 10): jax's own
examples and example_libraries, already-jitted functions with static arguments, and
the idioms public JAX code uses. Each test is a bug found by linting such code: a
crash, a false positive, a wrong line or a missed finding.

jax is the oracle: where a finding is expected, the test asks jax (at test time) that
the dtype really changes; where none is, that nothing does. Lines are found by the
``# <-`` marks in the programs' source, never typed in.
"""

from __future__ import annotations

import functools
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import ShapeDtypeStruct as S

import weaktrace as wt


def _line(fn, mark: str) -> int:
    """The line of `fn`'s source that carries the comment ``# <- mark``."""
    fn = inspect.unwrap(fn)
    lines, start = inspect.getsourcelines(fn)
    hits = [start + k for k, text in enumerate(lines) if text.rstrip().endswith(f"# <- {mark}")]
    assert len(hits) == 1, (mark, hits)
    return hits[0]


def _found(report: wt.LintReport) -> list[tuple[str, int]]:
    return [(f.kind, f.line) for f in report]


# ---------------------------------------- already-jitted functions with static arguments


@functools.partial(jax.jit, static_argnames=("steps",))
def _scaled_counts(counts, weights, steps=2):
    total = counts
    for _ in range(steps):
        total = total * weights  # <- promote
    return total


@functools.partial(jax.jit, static_argnums=(0,))
def _apply_schedule(schedule, params, grads):
    return jax.tree.map(lambda p, g: p - schedule(0) * g, params, grads)  # <- update


def _lr(step):
    return 0.1 / (1 + step)


def test_static_argnames_of_a_jitted_function_stay_static():
    # jax.make_jaxpr traced `steps` too: jit then refused the tracer as a non-hashable
    # static argument and lint crashed with ValueError
    i3, f3 = S((3,), jnp.int32), S((3,), jnp.float32)
    assert jnp.result_type(jnp.int32, jnp.float32) != jnp.int32  # jax promotes
    for call in (
        lambda: wt.lint(_scaled_counts, i3, f3, steps=3),
        lambda: wt.lint(_scaled_counts, i3, f3, 3),  # static_argnames given by position
    ):
        report = call()
        assert _found(report) == [("implicit-promotion", _line(_scaled_counts, "promote"))]


def test_static_argnums_callable_and_the_state_after_it():
    # a static function argument was traced as an array: TypeError; the state and the
    # 64-bit argument keep the user's numbering (static arguments counted)
    params = {"w": 1.0}  # a weak Python float leaf
    grads = {"w": jnp.ones((), jnp.float32)}
    out = jax.eval_shape(_apply_schedule, _lr, params, grads)
    assert out["w"].weak_type is False  # jax: the leaf comes back strong
    report = wt.lint(_apply_schedule, _lr, params, grads, state_argnums=1)
    assert _found(report) == [("weak-flip", _line(_apply_schedule, "update"))]
    assert "state argument 1 " in report.findings[0].message
    report = wt.lint(_apply_schedule, _lr, {"w": np.float64(1.0)}, grads)
    assert [f.kind for f in report] == ["x64-truncation"]
    assert "argument 1['w'] is float64" in report.findings[0].message
    with pytest.raises(ValueError, match="static argument"):
        wt.lint(_apply_schedule, _lr, params, grads, state_argnums=0)


# ------------------------------------------------------- the CLI on a file of a package


def test_cli_path_to_a_file_of_a_package(tmp_path, capsys, monkeypatch):
    # a package's module imports its siblings relatively (`from .consts import DT`):
    # loaded by path as a lone script it raised "attempted relative import with no
    # known parent package" (exit 2); it is now imported as the package's module
    from weaktrace.__main__ import main

    name = f"wildpkg_{tmp_path.name.replace('-', '_')}"
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("DT = 0.01\n")
    (pkg / "integrate.py").write_text(
        "import jax.numpy as jnp\n"
        "from .consts import DT\n"
        "\n"
        "\n"
        "def euler(x, v):\n"
        "    return x + DT * v, v * jnp.int32(1)\n"
    )
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    assert jnp.result_type(jnp.float32, jnp.int32) != jnp.int32  # jax promotes the int32
    target = f"{pkg / 'integrate.py'}:euler"
    assert main(["lint", target, "--arg", "f32[3]", "--arg", "f32[3]"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith(f"{pkg / 'integrate.py'}:6: implicit-promotion")
