"""Lattice laws (exhaustive for JAX's lattices, hypothesis for random ones), the
documented JAX table as a golden file, and table checking."""

from __future__ import annotations

import itertools
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import weaktrace as wt
from tests.oracle import jax_mode, promotable, spec
from weaktrace.dtypes import Lattice, jax_lattice, registry
from weaktrace.dtypes.table import DOC_DTYPES, table_cells

JAX_LATTICES = [(False, True), (False, False), (True, True)]

# The documentation names dtypes by bytes: i1 = int8, f2 = float16, c8 = complex64.
DOC_NAMES = {
    "b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
    "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "bf": "bfloat16",
    "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64",
    "c16": "complex128", "i*": "int", "f*": "float", "c*": "complex",
}  # fmt: skip


def read_doc_table() -> dict[tuple[str, str], str]:
    text = (Path(__file__).parent / "data" / "jax_doc_promotion_table.txt").read_text()
    rows = [
        [c.strip() for c in line.split("|")]
        for line in text.splitlines()
        if not line.startswith("#") and not line.startswith("---")
    ]
    header, body = rows[0][:18], rows[1:]
    assert len(body) == 18, "the documented table has 18 rows"
    return {
        (DOC_NAMES[r[0]], DOC_NAMES[col]): DOC_NAMES[cell]
        for r in body
        for col, cell in zip(header, r[1:19], strict=True)
    }


@pytest.mark.parametrize(("strict", "x64"), JAX_LATTICES)
def test_jax_lattices_obey_the_laws_over_all_triples(strict, x64):
    lattice = jax_lattice(strict, x64)
    report = lattice.check()
    assert report.ok and not report and list(report) == [], str(report)
    nodes = lattice.nodes
    for a, b, c in itertools.product(nodes, repeat=3):  # independent of check()
        ab = lattice.join(a, b)
        if ab is not None and lattice.join(b, c) is not None:
            assert lattice.join(ab, c) == lattice.join(a, lattice.join(b, c)), (a, b, c)
    for a, b in itertools.product(nodes, repeat=2):
        assert lattice.join(a, b) == lattice.join(b, a)
        j = lattice.join(a, b)
        if j is not None:  # an upper bound, and below every other common upper bound
            assert lattice.leq(a, j) and lattice.leq(b, j)
            assert all(lattice.leq(j, u) for u in nodes if lattice.leq(a, u) and lattice.leq(b, u))


@pytest.mark.parametrize(("strict", "x64"), JAX_LATTICES)
def test_lattice_join_is_jnp_promote_types(strict, x64):
    """Each node pair's join equals jnp.promote_types (weak results as np.dtype(int) etc.)."""
    lattice = jax_lattice(strict, x64)
    with jax_mode(strict, x64):
        for a, b in itertools.product(promotable(), repeat=2):
            try:
                expected = jnp.promote_types(spec(a), spec(b))
            except (TypeError, ValueError):
                expected = None
            got = lattice.join(a.name, b.name)
            got_dt = None if got is None else np.dtype(spec(registry.by_name(got)))
            assert got_dt == expected, (a, b)


def test_doc_table_golden_file_equals_our_table():
    _, cells = table_cells(wt.policy("jax", x64=True), DOC_DTYPES)
    ours = {(a.name, b.name): c.name for (a, b), c in cells.items()}
    assert ours == read_doc_table()


def test_doc_table_matches_jax_where_jax_can_say():
    """The golden file itself is checked against jax (so a bad copy cannot pass)."""
    with jax_mode(False, True):
        for (a, b), c in read_doc_table().items():
            got = jnp.promote_types(spec(registry.by_name(a)), spec(registry.by_name(b)))
            assert got == np.dtype(spec(registry.by_name(c))), (a, b, c)


def test_promotion_table_text_and_markdown():
    text = wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES)
    rows = [line.split() for line in text.splitlines()]
    assert rows[0] == [registry.by_name(n).short for n in DOC_DTYPES]
    assert rows[5][:2] == ["u64", "u64"] and rows[5][6] == "f*"  # u64 x i8 -> f*
    md = wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES, format="markdown")
    assert md.splitlines()[1].startswith("|---|") and "| i* |" in md
    full = wt.promotion_table()
    assert "f8_e4m3fn" in full and " - " in full  # float8 x bf16 does not promote
    with pytest.raises(wt.PolicyError, match="format"):
        wt.promotion_table(format="html5")


def test_x32_table_differs_only_in_the_uint32_row_and_column():
    on = table_cells(wt.policy("jax", x64=True))[1]
    off = table_cells(wt.policy("jax", x64=False))[1]
    differ = {(a.name, b.name) for (a, b) in on if on[a, b] is not off[a, b]}
    assert differ == {
        (x, y) for s in ("int8", "int16", "int32") for x, y in (("uint32", s), (s, "uint32"))
    }


# -- checks that can fail ------------------------------------------------------------


def test_check_names_ambiguous_pairs_and_cycles():
    diamond = Lattice({"a": ["x", "y"], "b": ["x", "y"], "x": [], "y": []}, name="diamond")
    report = diamond.check()
    assert not report.ok and len(report) == len(report.violations) > 0 and report[0] in report
    assert any(
        v.law == "unique least upper bound" and v.nodes == ("a", "b") for v in report.violations
    )
    with pytest.raises(wt.LatticeError, match="no unique least upper bound"):
        diamond.join("a", "b")
    with pytest.raises(wt.LatticeError, match="diamond"):
        report.raise_for_violations()
    cycle = Lattice({"a": ["b"], "b": ["a"]}, name="cycle").check()
    assert any(v.law == "antisymmetry" for v in cycle.violations)


def test_check_total_and_unknown_nodes():
    two = Lattice({"a": [], "b": []}, name="two")
    assert two.check().ok and two.check().unbounded == (("a", "b"),)
    assert [v.law for v in two.check(require_total=True).violations] == ["total"]
    with pytest.raises(wt.LatticeError, match="not a node"):
        two.join("a", "zzz")


def test_from_table_round_trips_jax_and_names_bad_cells():
    _, cells = table_cells(wt.policy("jax", x64=True), DOC_DTYPES)
    table = {(a.name, b.name): (c.name if c else None) for (a, b), c in cells.items()}
    rebuilt = Lattice.from_table(table, name="doc")
    assert rebuilt.check().ok
    bad = dict(table)
    bad["int8", "uint8"] = "int32"  # not least (int16 is) and not commutative
    report = Lattice.from_table(bad, name="bad").check()
    found = {(v.law, v.nodes) for v in report.violations}
    assert ("commutativity", ("uint8", "int8")) in found
    assert ("least upper bound", ("int8", "uint8")) in found
    assert len(report.violations) == 2, str(report)


def test_from_table_accepts_rows_and_rejects_junk():
    rows = {"b": {"b": "b", "i": "i"}, "i": {"b": "i", "i": "i"}}
    assert Lattice.from_table(rows).join("b", "i") == "i"
    with pytest.raises(wt.LatticeError, match="promotion table"):
        Lattice.from_table({"a": 1})


# -- hypothesis: random DAGs ---------------------------------------------------------


@st.composite
def dags(draw):
    n = draw(st.integers(2, 7))
    nodes = [f"n{i}" for i in range(n)]
    edges = {
        a: [b for j, b in enumerate(nodes) if j > i and draw(st.booleans())]
        for i, a in enumerate(nodes)
    }
    return Lattice(edges, name="random")


@given(dags())
def test_check_agrees_with_brute_force_on_random_dags(lat):
    ub = {a: {b for b in lat.nodes if lat.leq(a, b)} for a in lat.nodes}
    ambiguous = []
    for a, b in itertools.combinations(lat.nodes, 2):
        common = ub[a] & ub[b]
        least = [c for c in common if common <= ub[c]]
        if common and len(least) != 1:
            ambiguous.append((a, b))
    found = [v.nodes for v in lat.check().violations if v.law == "unique least upper bound"]
    assert found == ambiguous
    if lat.check().ok:
        for a, b, c in itertools.product(lat.nodes, repeat=3):
            ab, bc = lat.join(a, b), lat.join(b, c)
            if ab is not None and bc is not None:
                assert lat.join(ab, c) == lat.join(a, bc)


def test_registry_is_interned_and_named():
    assert registry.by_name("bf16") is registry.by_name("bfloat16")
    assert registry.as_dtype(np.float32) is registry.by_name("f32")
    assert registry.as_dtype("i8") is registry.by_name("int64")  # numpy's reading of 'i8'
    assert registry.as_dtype(float) is registry.weak_float
    assert str(registry.weak_int) == "int" and registry.weak_int.short == "i*"
    import pickle

    assert pickle.loads(pickle.dumps(registry.by_name("f8_e4m3fn"))) is registry.by_name(
        "float8_e4m3fn"
    )
    with pytest.raises(wt.InvalidDTypeError, match="known: bool"):
        registry.by_name("float3")
    with pytest.raises(TypeError):
        registry.as_dtype("not a dtype")


def test_registry_covers_every_dtype_jax_promotes():
    """Every numeric dtype jax.numpy exposes is in our lattice (nothing silently missing)."""
    names = {d.name for d in promotable()}
    for attr in dir(jnp):
        obj = getattr(jnp, attr)
        if isinstance(obj, type) and issubclass(obj, np.generic):
            try:
                dt = np.dtype(obj)
                jnp.promote_types(dt, dt)
            except (TypeError, ValueError):
                continue
            assert dt.name in names, f"jax.numpy.{attr} ({dt}) is missing from weaktrace"
    assert {"int", "float", "complex"} <= names
    assert jax.dtypes.float0 is not None
