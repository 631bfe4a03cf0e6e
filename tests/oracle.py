"""Helpers that run the real JAX next to weaktrace and compare outcomes.

An outcome is what a call did: its value, or the class of the error it raised,
plus whether it warned. Both sides run in the same jax mode (strict/standard,
x64 on/off), set with jax's own context managers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import weaktrace as wt
from weaktrace.dtypes import jax_lattices, registry

MODES = [(strict, x64) for strict in (False, True) for x64 in (False, True)]
MODE_IDS = [f"{'strict' if s else 'standard'}-{'x64' if x else 'x32'}" for s, x in MODES]


@contextlib.contextmanager
def jax_mode(strict: bool, x64: bool) -> Iterator[None]:
    with (
        jax.numpy_dtype_promotion("strict" if strict else "standard"),
        jax.enable_x64(x64),
    ):
        yield


@dataclasses.dataclass(frozen=True)
class Outcome:
    value: Any
    error: type[BaseException] | None
    warned: bool


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            value, error = fn(*args, **kwargs), None
        except Exception as e:  # the class is what we compare
            value, error = None, type(e)
    warned = any(issubclass(w.category, UserWarning) for w in seen)
    return Outcome(value, error, warned)


def assert_same(jax_out: Outcome, ours: Outcome, context: str) -> None:
    """Same value, same warning; where JAX raises, ours raises a weaktrace error of
    the same builtin family (TypeError or ValueError)."""
    if jax_out.error is None:
        assert ours.error is None, f"{context}: jax gave {jax_out.value!r}, we raised {ours.error}"
        assert ours.value == jax_out.value, f"{context}: jax {jax_out.value!r}, ours {ours.value!r}"
        assert type(ours.value) is type(jax_out.value), f"{context}: result types differ"
        assert ours.warned == jax_out.warned, f"{context}: warning parity (jax {jax_out.warned})"
        return
    assert ours.error is not None, f"{context}: jax raised {jax_out.error}, we gave {ours.value!r}"
    assert issubclass(ours.error, wt.TypePromotionError), f"{context}: raised {ours.error}"
    family = TypeError if issubclass(jax_out.error, TypeError) else ValueError
    assert issubclass(ours.error, family), f"{context}: jax {jax_out.error}, ours {ours.error}"


def promotable() -> list[registry.DType]:
    """Every dtype the installed jax promotes, weak kinds included, in display order."""
    names = jax_lattices.supported_names()
    return [d for d in registry.ALL if d.name in names]


def spec(d: registry.DType) -> Any:
    """The dtype specifier JAX takes for a DType: Python int/float/complex for weak kinds."""
    return {"int": int, "float": float, "complex": complex}.get(d.name, d.numpy)


def dtype_specs() -> list[Any]:
    return [spec(d) for d in promotable()] + [bool, None]


def _jax_array(dt: np.dtype) -> Any:
    with jax.enable_x64(True):  # keep 64-bit dtypes as they are
        return jnp.zeros((2,), dt)


def value_forms() -> list[Any]:
    """result_type arguments of every kind JAX accepts, and some it rejects."""
    forms: list[Any] = []
    for d in promotable():
        if d.numpy is None:
            forms.append(spec(d))
            continue
        dt = d.numpy
        forms += [dt, dt.type, dt.name, np.zeros((2,), dt), dt.type(1)]
        with contextlib.suppress(Exception):
            forms.append(_jax_array(dt))
    for x64 in (False, True):
        with jax.enable_x64(x64):
            forms += [jnp.asarray(2), jnp.asarray(2.0), jnp.asarray(2j)]  # weak arrays
    forms += [2, 2.5, 1j, True, bool, None, np.bool_(True), np.array(3), 2**40]
    forms += [jax.ShapeDtypeStruct((), np.float32, weak_type=True)]
    forms += ["S3", np.array(["a"]), object(), [1, 2], (1, 2), "float0", jax.dtypes.float0]
    return forms


def pairs(items: list[Any]) -> Iterator[tuple[Any, Any]]:
    return itertools.product(items, repeat=2)
