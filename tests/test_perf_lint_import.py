"""lint's importer reads frame files and names from a traceback's code objects, not from
its ``frames`` (which computes a line number per frame, ~30 frames per equation): the
names and the caller it finds must be those jax's own ``frames`` give."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import source_info_util

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
