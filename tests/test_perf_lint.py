"""lint's speed-ups give the answers of what they replace.

- The importer reads frame files and names from a traceback's code objects, not from
  its ``frames`` (which computes a line number per frame, ~30 frames per equation): the
  names, the caller and the user's line it finds must be those jax's own give.
- Python's cyclic GC is paused while lint runs: its state afterwards is the caller's,
  also when the linted function raises.
"""

from __future__ import annotations

import gc
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import source_info_util

import weaktrace as wt
from weaktrace.lint import importer
from weaktrace.lint.hooks import recording


def _program(x: Any, n: Any) -> Any:
    y = jnp.sin(x) * 2 + n  # an operator, a ufunc and a promotion
    z = jax.lax.dot(y, y.T)
    return jnp.mean(z, axis=0) + jnp.asarray(n, jnp.float32).sum()


def _reference_caller(tb: Any) -> str:
    """The caller as read from jax's own Frame objects (file, qualified name)."""
    frames = tb.frames
    for i, fr in enumerate(frames):
        name = fr.file_name
        if source_info_util.is_user_filename(name) and not name.startswith(importer._PACKAGE_DIR):
            j = i - 1
            while j > 0 and (
                frames[j].file_name.startswith(importer._PACKAGE_DIR)
                or frames[j].file_name == importer._ARRAY_METHODS
            ):
                j -= 1
            if not i:
                return ""
            api = frames[j]
            lax = api.file_name.startswith(importer._LAX_DIR)
            out = ("lax." if lax else "") + api.function_name
            if out == "ufunc.__call__":
                ops = [f.function_name for f in frames[j:i] if f.function_name.startswith("_op")]
                return ops[0].removeprefix("_operator_") if ops else "ufunc"
            return out
    return ""


def test_importer_frames_and_caller_match_jax_frames() -> None:
    x = jax.ShapeDtypeStruct((3, 3), np.float32)
    n = jax.ShapeDtypeStruct((3, 3), np.int32)
    with jax.enable_x64(False), recording(False):
        closed = jax.make_jaxpr(_program)(x, n)
    imp = importer._Importer()
    seen = 0
    for e in closed.jaxpr.eqns:
        tb = e.source_info.traceback
        if tb is None:
            continue
        seen += 1
        assert imp.frames(tb) == tuple(f.function_name for f in tb.frames)
        assert imp.caller(tb) == _reference_caller(tb)
    assert seen >= 5
    callers = {imp.caller(e.source_info.traceback) for e in closed.jaxpr.eqns}
    assert {"lax.dot", "mean", "mul"} <= callers


def test_user_source_matches_jax_user_frames() -> None:
    x = jax.ShapeDtypeStruct((3, 3), np.float32)
    n = jax.ShapeDtypeStruct((3, 3), np.int32)
    with jax.enable_x64(False), recording(False):
        closed = jax.make_jaxpr(_program)(x, n)
    found = []
    for e in closed.jaxpr.eqns:
        tb = e.source_info.traceback
        ref = next(
            (
                (f.file_name, f.start_line, f.function_name)
                for f in source_info_util.user_frames(tb)
                if not f.file_name.startswith(importer._PACKAGE_DIR)
            ),
            None,
        )
        got = importer.user_source(tb)
        assert (got if got is None else (got.file, got.line, got.function)) == ref
        found.append(ref)
    assert any(r is not None and r[0] == __file__ for r in found)


def _fails(x: Any) -> Any:
    raise ValueError("the user's own error")


@pytest.mark.parametrize("was_on", [True, False])
def test_lint_leaves_the_gc_as_it_found_it(was_on: bool) -> None:
    x = np.ones(3, np.float32)
    (gc.enable if was_on else gc.disable)()
    try:
        seen = []
        report = wt.lint(lambda v: seen.append(gc.isenabled()) or v * 2, x)
        assert [f.kind for f in report] == [] and seen == [False]
        assert gc.isenabled() is was_on
        with pytest.raises(ValueError, match="own error"):
            wt.lint(_fails, x)
        assert gc.isenabled() is was_on
    finally:
        gc.enable()
