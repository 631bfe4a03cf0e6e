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


@functools.partial(jax.jit, static_argnums=(2,))
def _scaled_power(scale, x, n):
    return scale * x**n  # <- power


def test_partial_of_a_jitted_function_keeps_its_static_numbering():
    # functools.partial(jitted, scale): jax counts the partial's argument first, so
    # `n` (static_argnums=2) is the second argument lint gets; it was traced: crash
    report = wt.lint(functools.partial(_scaled_power, jnp.int32(2)), S((3,), jnp.float32), 3)
    assert _found(report) == [("implicit-promotion", _line(_scaled_power, "power"))]


class _Smoother:
    """A model object whose jitted method takes self and a width as static arguments."""

    def __init__(self, alpha):
        self.alpha = alpha

    def __hash__(self):
        return hash(self.alpha)

    def __eq__(self, other):
        return isinstance(other, _Smoother) and other.alpha == self.alpha

    @functools.partial(jax.jit, static_argnums=(0, 2))
    def smooth(self, signal, width):
        kernel = jnp.ones(width, jnp.int32)
        return jnp.convolve(signal, kernel, mode="same") * self.alpha  # <- conv


def test_jitted_method_with_static_self_and_width():
    # obj.smooth is a bound method whose static_argnums count `self` as 0: lint took
    # the signal (argument 1 of the method, 0 of the call) for a static argument and
    # crashed (jax: non-hashable static argument)
    sm = _Smoother(0.5)
    f3 = S((8,), jnp.float32)
    assert jnp.result_type(jnp.int32, jnp.float32) != jnp.int32  # jax promotes the kernel
    for report in (wt.lint(sm.smooth, f3, 3), wt.lint(_Smoother.smooth, sm, f3, 3)):
        assert _found(report) == [("implicit-promotion", _line(_Smoother.smooth, "conv"))]


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


# ------------------------------- weak loop inits jax converts to the body's dtype silently


def _running_total(xs):
    def step(total, x):
        total = total + x  # <- total
        return total, total

    return jax.lax.scan(step, 0, xs)


def _newton_sqrt(a):
    def cond(state):
        i, _ = state
        return i < 20

    def body(state):
        i, y = state
        return i + 1.0, 0.5 * (y + a / y)  # <- counter

    return jax.lax.while_loop(cond, body, (0, a))


def _accumulate(xs):
    return jax.lax.scan(lambda acc, x: (acc + x, None), 0.0, xs)[0]  # <- acc


def _two_carries(xs):
    def step(carry, x):
        count, total = carry
        return (count + x, total + x), None  # <- two

    return jax.lax.scan(step, (0, jnp.zeros((), xs.dtype)), xs)[0]


def _typed_init(xs):
    return jax.lax.scan(lambda acc, x: (acc + x, None), jnp.zeros((), xs.dtype), xs)[0]


@pytest.mark.parametrize(
    ("fn", "xs", "mark", "carry"),
    [
        (_running_total, S((4,), jnp.float32), "total", 0),  # int 0 -> float32
        (_newton_sqrt, S((), jnp.float32), "counter", 0),  # i: int -> float32
        (_accumulate, S((4,), jnp.bfloat16), "acc", 0),  # 0.0 -> bfloat16
        (_running_total, S((4,), jnp.int8), "total", 0),  # int 0 -> int8
        (_two_carries, S((4,), jnp.float32), "two", 0),  # only the first carry
    ],
)
def test_weak_loop_init_converted_by_jax(fn, xs, mark, carry):
    # jax converts a weak initial carry to the dtype the body returns and traces the
    # body again, so the final jaxpr shows no change: lint said nothing. The user's
    # counter or accumulator silently changed dtype (an int 0 became float32).
    out = jax.tree_util.tree_leaves(jax.eval_shape(fn, xs))[0]
    init = jnp.result_type(0.0 if fn is _accumulate else 0)
    assert out.dtype != init  # jax: the carry's dtype is not the initial value's
    report = wt.lint(fn, xs)
    changes = [f for f in report if f.kind == "carry-change"]
    assert [(f.line, f"carry {carry} enters as ~" in f.message) for f in changes] == [
        (_line(fn, mark), True)
    ], report
    assert out.dtype.name in changes[0].message


def test_typed_loop_init_is_clean():
    for dtype in (jnp.float32, jnp.bfloat16, jnp.int8):
        assert not wt.lint(_typed_init, S((4,), dtype))


# -------------------------------- loops and conds of jax's libraries are not the user's


def _decay(y, t, rate):
    return -rate * y


def _decay_substeps(y, t, rate):
    # the user's own loop inside the function odeint calls: a weak int init that
    # the body makes float32
    return jax.lax.fori_loop(0, 2, lambda i, acc: acc - rate * y / 2, 0)  # <- substeps


def _rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


def test_library_loops_are_not_the_users():
    # jax.experimental.ode.odeint's backward pass and jax.scipy.optimize.minimize's
    # BFGS run while_loops/scans whose weak initial values jax promotes: lint reported
    # them as carry-change at the user's call line, which the user cannot change
    from jax.experimental.ode import odeint

    ts = jnp.linspace(0.0, 1.0, 4)

    def loss(y0, rate):
        return odeint(_decay, y0, ts, rate).sum()

    assert not wt.lint(jax.grad(loss, argnums=(0, 1)), S((2,), jnp.float32), 0.5)
    from jax.scipy.optimize import minimize

    assert not wt.lint(lambda x0: minimize(_rosenbrock, x0, method="BFGS").x, S((3,), jnp.float32))

    # the user's own loop inside the function odeint runs is still the user's
    assert jnp.result_type(0, jnp.float32) != jnp.result_type(0)  # jax makes the 0 float32
    report = wt.lint(lambda y0: odeint(_decay_substeps, y0, ts, 0.5), S((2,), jnp.float32))
    assert _found(report) == [("carry-change", _line(_decay_substeps, "substeps"))]


def test_cli_static_string_argument_of_a_jitted_function(tmp_path, capsys, monkeypatch):
    # `--arg "'scale'"` for a function jitted with static_argnames: the CLI refused any
    # string ("expected an array type"), so such functions could not be linted
    from weaktrace.__main__ import main

    mod = tmp_path / "wild_static_cli.py"
    mod.write_text(
        "import functools\n"
        "import jax\n"
        "import jax.numpy as jnp\n"
        "\n"
        "\n"
        "@functools.partial(jax.jit, static_argnames=('mode',))\n"
        "def normalize(counts, mode):\n"
        "    if mode == 'scale':\n"
        "        return counts * jnp.float32(0.5)\n"
        "    return counts\n"
    )
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    assert jnp.result_type(jnp.int32, jnp.float32) != jnp.int32  # jax promotes the counts
    argv = ["lint", f"{mod}:normalize", "--arg", "i32[3]", "--arg"]
    assert main([*argv, "'scale'", "--format", "json"]) == 1
    out = capsys.readouterr().out
    assert '"implicit-promotion"' in out and '"line": 9' in out
    assert main([*argv, "'keep'"]) == 0
    assert main([*argv, "(2, 3)"]) == 0  # a tuple: hashable, static
    capsys.readouterr()


# ------------------------------------------ jax's own functions linted as they are


def test_jax_functions_linted_directly_report_the_users_line():
    # lint(jnp.add, i32, f32): the function has no line of the user's, and lint fell
    # back to its "def" line, inside jax (jax/_src/numpy/ufunc_api.py); operator.add
    # and sum have no def line at all, so their promotion was dropped. The user's line
    # is the one that called lint.
    import operator

    i3, f3 = S((3,), jnp.int32), S((3,), jnp.float32)
    assert jnp.result_type(jnp.int32, jnp.float32) != jnp.int32  # jax promotes the int32
    reports = {
        "add": wt.lint(jnp.add, i3, f3),  # <- add
        "where": wt.lint(jnp.where, S((3,), jnp.bool_), f3, i3),  # <- where
        "operator": wt.lint(operator.add, i3, f3),  # <- operator
        "sum": wt.lint(sum, [f3, i3]),  # <- sum
        "softmax": wt.lint(jax.nn.softmax, np.ones(3)),  # <- softmax
    }
    test = test_jax_functions_linted_directly_report_the_users_line
    for mark, report in reports.items():
        assert [(f.file, f.line) for f in report] == [(__file__, _line(test, mark))], mark
    assert reports["softmax"][0].kind == "x64-truncation"


def test_cli_on_a_jax_function_names_no_frozen_python_frame():
    # from the command line no line of the user's calls lint: the caller's frame was
    # Python's own "<frozen runpy>" (not a file); it is now the function's definition
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(wt.__file__)))
    env = {**os.environ, "PYTHONPATH": root}
    argv = ["lint", "jax.numpy:add", "--arg", "i32[3]", "--arg", "f32[3]"]
    done = subprocess.run(
        [sys.executable, "-m", "weaktrace", *argv], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1, done.stderr
    line = done.stdout.strip()
    assert not line.startswith("<") and ": implicit-promotion: " in line


# ------------------------------------------------------------------ messages


def _sharded_scale(x):
    return jax.lax.psum(x * jnp.arange(x.shape[0]), "d")  # <- scale


def test_shard_map_promotion_names_the_operator_not_lints_hook():
    # inside jax.shard_map the promotion's message named lint's own hook
    # ("in _recording.<locals>.ufunc_call"): the frame walk stopped at the hook
    # wrapping jnp's ufuncs when an operator forwarded to it
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:1]), ("d",))
    fn = jax.shard_map(_sharded_scale, mesh=mesh, in_specs=P("d"), out_specs=P())
    assert jnp.result_type(jnp.int32, jnp.float32) != jnp.int32  # jax promotes the arange
    report = wt.lint(fn, S((4,), jnp.float32))
    assert _found(report) == [("implicit-promotion", _line(_sharded_scale, "scale"))]
    message = report[0].message
    assert "ufunc_call" not in message and "recording" not in message and " in mul " in message


def test_sarif_uris_are_percent_encoded(tmp_path, monkeypatch):
    # a file under a directory with a space and code run from "<string>" (exec, a
    # notebook) gave SARIF artifact URIs with raw spaces and angle brackets, which are
    # not URI references (RFC 3986)
    import json
    import re
    from urllib.parse import unquote

    folder = tmp_path / "my project"
    folder.mkdir()
    source = "import jax.numpy as jnp\n\n\ndef f(x):\n    return x + jnp.arange(3)\n"
    path = folder / "wild_space.py"
    path.write_text(source)
    spaced: dict = {}
    exec(compile(source, str(path), "exec"), spaced)
    typed: dict = {}
    exec(compile(source, "<string>", "exec"), typed)
    allowed = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")
    for ns, where in ((spaced, str(path)), (typed, "<string>")):
        for cwd in (tmp_path, folder):
            monkeypatch.chdir(cwd)
            log = json.loads(wt.lint(ns["f"], S((3,), jnp.float32)).to_sarif())
            (result,) = log["runs"][0]["results"]
            uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            assert allowed.match(uri), uri
            assert (
                unquote(uri)
                .removeprefix("file://")
                .endswith(where if where.startswith("<") else "wild_space.py")
            )


# ------------------------------------------------ counts that wrap (session 11)


def _positions(x):
    return x + jnp.arange(x.shape[0], dtype=x.dtype)  # <- count


def _positions_in_loop(x):
    def body(i, c):
        return c + jax.lax.broadcasted_iota(c.dtype, c.shape, 0)  # <- loop

    return jax.lax.fori_loop(0, 1, body, x)


@pytest.mark.parametrize("fn", [_positions, _positions_in_loop], ids=["arange", "fori-iota"])
@pytest.mark.parametrize("dtype", [np.uint8, np.int8, jnp.uint4])
@pytest.mark.parametrize("n", [129, 256, 257])
def test_a_count_past_the_integer_dtype_is_literal_overflow(fn, dtype, n) -> None:
    """`jnp.arange(300, dtype=jnp.uint8)` counts 0..255 then wraps; jax says nothing.
    A finding exactly when jax's own count (asked at test time) is not 0..n-1."""
    counted = np.asarray(jax.jit(fn)(jnp.zeros(n, dtype))).astype(np.int64)
    wraps = not np.array_equal(counted, np.arange(n))
    mark = "count" if fn is _positions else "loop"
    expected = [("literal-overflow", _line(fn, mark))] if wraps else []
    assert _found(wt.lint(fn, S((n,), dtype))) == expected


def _arange(start, stop, step, dtype):
    return jnp.arange(start, stop, step, dtype=dtype)  # <- arange


def test_an_arange_whose_start_or_step_carries_it_past_the_dtype_is_literal_overflow(full):
    """`jnp.arange(250, 260, dtype=jnp.uint8)` is an iota plus 250: 250..255 then 0..3,
    silently; the count alone (10) fits. A finding exactly when jax's values (asked at test
    time) are not numpy's int64 arange, or a start or step literal itself does not fit the
    dtype (that literal wraps; jax's unsigned counting down still gives the right values)."""
    import itertools
    import random

    cases = list(
        itertools.product(
            [np.uint8, np.int8, jnp.int4, jnp.uint4], [0, 3, 120, 250, -5], [1, 3, -1, 7], [5, 40]
        )
    )
    if not full:
        cases = random.Random("arange-wrap").sample(cases, 24)
    for dtype, start, step, n in cases:
        stop = start + step * n
        want = np.arange(start, stop, step)
        try:
            got = np.asarray(jnp.arange(start, stop, step, dtype=dtype)).astype(np.int64)
        except Exception:  # jax refuses (e.g. a start its dtype cannot hold): no lint case
            continue
        info = jnp.iinfo(dtype)
        literal_wraps = any(not info.min <= v <= info.max for v in (start, step))
        expected = (
            [("literal-overflow", _line(_arange, "arange"))]
            if literal_wraps or not np.array_equal(got, want)
            else []
        )
        found = _found(wt.lint(functools.partial(_arange, start, stop, step, dtype)))
        assert sorted(set(found)) == expected, (dtype, start, stop, step, found)
