"""Any checked lattice as a policy: MAX's graph semilattice, or one a user builds.

Python scalars are weak, as in JAX: an int takes the dtype of what it meets; a float
takes it if that is floating, else joins the lattice as the default float; with
nothing strong they take the defaults."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from weaktrace.dtypes import registry
from weaktrace.dtypes.lattice import Lattice
from weaktrace.dtypes.policies.base import Aval, Policy
from weaktrace.dtypes.policies.torch import _TORCH_DEFAULTS
from weaktrace.dtypes.registry import DType
from weaktrace.errors import PolicyError, TypePromotionError

_D = registry.by_name
# MAX's dtypes that XLA lacks, and what they compute in.
_MAX_LOWERING = {"index": "uint64", "address": "uint64", "tensor_float32": "float32"}


class LatticePolicy(Policy):
    """Joins on a lattice of dtype names."""

    def __init__(self, lattice: Lattice[str], name: str | None = None,
                 defaults: Mapping[str, Any] | None = None) -> None:  # fmt: skip
        report = lattice.check()
        if any(v.law != "total" for v in report.violations):
            raise PolicyError(f"lattice {lattice.name!r} breaks the lattice laws:\n{report}")
        unknown = [n for n in lattice.nodes if n not in registry._BY_NAME]
        if unknown:
            raise PolicyError(
                f"lattice {lattice.name!r} has nodes that are not dtypes: {unknown}. Use dtype "
                "names such as 'int8' or 'bfloat16'."
            )
        self.name = name or lattice.name
        self.defaults = {k: registry.of(v) for k, v in (defaults or _TORCH_DEFAULTS).items()}
        self._lattice = lattice
        self._cache: dict[tuple[Any, ...], tuple[DType, bool]] = {}

    @property
    def lattice(self) -> Lattice[str]:
        return self._lattice

    def join(self, avals: Sequence[Aval]) -> tuple[DType, bool]:
        key = tuple((a[1], a[2]) for a in avals)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._join(key)
        return hit

    def _join(self, key: tuple[tuple[DType, bool], ...]) -> tuple[DType, bool]:
        strong = [dt.name for dt, weak in key if not weak]
        unknown = [n for n in strong if n not in self._lattice.upper_bounds]
        if unknown:
            raise TypePromotionError(
                f"{', '.join(unknown)} is not a dtype of the {self.name} lattice (its dtypes: "
                f"{', '.join(self._lattice.nodes)}). Cast to one of them first."
            )
        weak_kinds = {dt.kind for dt, weak in key if weak}
        if not strong:
            kind = "c" if "c" in weak_kinds else "f" if "f" in weak_kinds else "i"
            return self.defaults[kind], True
        nodes = list(dict.fromkeys(strong))
        out = self._lattice.join(*nodes)
        if out is not None and weak_kinds & {"f", "c"} and _D(out).kind not in "fc":
            out = self._lattice.join(out, self.defaults["f"].name)
        if out is None:
            raise TypePromotionError(
                f"{', '.join(nodes)} have no join on the {self.name} lattice. Cast explicitly."
            )
        return _D(out), False

    def lowering_dtype(self, dt: DType) -> DType:
        lowered = _MAX_LOWERING.get(dt.name)
        return dt if lowered is None else _D(lowered)


def max_lattice() -> Lattice[str]:
    """The MAX graph semilattice, from ``shared/reference/max_semilattice.json`` (bundled
    as package data so that installed copies have it)."""
    path = Path(__file__).parent.parent / "data" / "max_semilattice.json"
    return Lattice(json.loads(path.read_text())["edges"], name="max")


class MaxPolicy(LatticePolicy):
    """The MAX graph semilattice (seed 002), with index, address and tensor_float32."""

    def __init__(self) -> None:
        super().__init__(max_lattice(), "max")
