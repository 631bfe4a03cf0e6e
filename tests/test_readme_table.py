"""The README's promotion comparison table is recomputed here from jax, numpy and torch
(and from weaktrace's policies, which must agree with each), so it cannot go stale."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import weaktrace as wt
import weaktrace.numpy as wnp

torch = pytest.importorskip("torch")

ROWS = {
    "int8 array * 0.5": (lambda m: m.ones(2, dtype=_dt(m, "int8")) * 0.5),
    "int32 array / int32 array": (lambda m: m.ones(2, dtype=_dt(m, "int32")) / m.ones(2, dtype=_dt(m, "int32"))),
    "float16 array + 0-d float32 array": (lambda m: m.ones(2, dtype=_dt(m, "float16")) + m.ones((), dtype=_dt(m, "float32"))),
    "uint8 array + 300": (lambda m: m.ones(2, dtype=_dt(m, "uint8")) + 300),
    "int32 array + float16 array": (lambda m: m.ones(2, dtype=_dt(m, "int32")) + m.ones(2, dtype=_dt(m, "float16"))),
    "int32 array + uint32 array": (lambda m: m.ones(2, dtype=_dt(m, "int32")) + m.ones(2, dtype=_dt(m, "uint32"))),
    "bfloat16 array + float16 array": (lambda m: m.ones(2, dtype=_dt(m, "bfloat16")) + m.ones(2, dtype=_dt(m, "float16"))),
    "sum of an int8 array": (lambda m: m.ones(2, dtype=_dt(m, "int8")).sum()),
    "bool array + Python int": (lambda m: m.ones(2, dtype=_dt(m, "bool")) + 3),
}  # fmt: skip


def _dt(module, name):
    if module is torch:
        return getattr(torch, name)
    return jnp.dtype(name) if name == "bfloat16" else np.dtype(name)


def describe(value) -> str:
    name = str(value.dtype).replace("torch.", "")
    return name + (" (weak)" if getattr(value, "weak_type", False) else "")


def library(module, fn) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return describe(fn(module))
        except Exception as e:  # the table says which error
            return f"error ({type(e).__name__})"


def ours(policy, fn) -> str:
    def body():
        return fn(_WeakModule())

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            aval = wt.trace(body, policy=policy).trace().out_avals
        return str(aval.dtype) + (" (weak)" if aval.weak_type else "")
    except (wt.WeaktraceError, OverflowError) as e:
        return f"error ({'OverflowError' if isinstance(e, OverflowError) else 'RuntimeError'})"


class _WeakModule:
    """weaktrace.numpy with ones() building traced constants."""

    def ones(self, shape, dtype):
        return wnp.ones(shape, dtype=dtype)

    def __getattr__(self, name):
        return getattr(wnp, name)


def readme_rows() -> dict[str, list[str]]:
    text = (Path(__file__).parent.parent / "README.md").read_text()
    section = text.split("## How the systems differ", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] in ROWS:
            rows[cells[0]] = cells[1:]
    return rows


def test_readme_table_matches_the_libraries_and_our_policies():
    rows = readme_rows()
    assert set(rows) == set(ROWS)
    for name, fn in ROWS.items():
        with jax.enable_x64(False):
            expected = [library(jnp, fn), library(np, fn), library(torch, fn)]
            got = [ours("jax", fn), ours("numpy", fn), ours("torch", fn)]
        assert rows[name] == expected, f"README row {name!r} is stale"
        assert got == expected, f"weaktrace's policies disagree with the libraries on {name!r}"
    assert re.search(r"x64 off", (Path(__file__).parent.parent / "README.md").read_text())
