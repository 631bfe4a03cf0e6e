"""JAX's promotion semantics: ``jnp.promote_types`` and ``jnp.result_type``, exactly.

Mirrors ``jax._src.dtypes`` (``promote_types``, ``dtype``, ``lattice_result_type``,
``result_type``) on top of our own lattices, for a given mode ``(strict, x64)``.
Both entry points are cached per mode; the caches hold only results that are
pure functions of their key (no warnings, no errors), so they cannot be poisoned.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import numpy as np

from weaktrace.dtypes import registry
from weaktrace.dtypes.jax_lattices import jax_lattice, supported_names
from weaktrace.errors import InvalidDTypeError, TypePromotionError, listing

# Public jax config states; ``.value`` follows jax.config.update *and* the
# thread-local context managers ``jax.enable_x64(...)`` / ``jax.numpy_dtype_promotion(...)``.
X64_STATE: Any = jax.enable_x64
PROMOTION_STATE: Any = jax.numpy_dtype_promotion

_BOOL = np.dtype(bool)
_DEFAULTS = {
    True: {"b": _BOOL, "i": np.dtype("int64"), "u": np.dtype("uint64"),
           "f": np.dtype("float64"), "c": np.dtype("complex128")},
    False: {"b": _BOOL, "i": np.dtype("int32"), "u": np.dtype("uint32"),
            "f": np.dtype("float32"), "c": np.dtype("complex64")},
}  # fmt: skip
_TO_32 = {np.dtype(a): np.dtype(b) for a, b in
          [("int64", "int32"), ("uint64", "uint32"), ("float64", "float32"),
           ("complex128", "complex64")]}  # fmt: skip
_PY_SCALARS: dict[type, str] = {int: "i", float: "f", complex: "c"}
_WEAK_NODE = {"i": "int", "f": "float", "c": "complex"}
# jnp.promote_types returns np.dtype(int) etc. for a weak result, un-canonicalized.
_PROMOTE_RESULT: dict[str, np.dtype] = {
    "int": np.dtype(int),
    "float": np.dtype(float),
    "complex": np.dtype(complex),
}
_EXTRA_VALID = frozenset({np.dtype(jax.dtypes.float0), np.dtypes.StringDType()})
_ArrayImpl = type(jax.numpy.zeros(()))


def mode_name(strict: bool) -> str:
    return "strict" if strict else "standard"


def current_mode() -> tuple[bool, bool]:
    """(strict, x64) as jax's config says in this thread right now."""
    return PROMOTION_STATE.value == "strict", bool(X64_STATE.value)


# -- node lookup -------------------------------------------------------------------


# np.dtype -> lattice node, and numpy scalar type -> np.dtype, for what jax promotes.
_NODE_OF: dict[np.dtype, str] = {
    d.numpy: d.name for d in registry.ALL if d.numpy is not None and d.name in supported_names()
}
_DTYPE_OF_TYPE: dict[type, np.dtype] = {dt.type: dt for dt in _NODE_OF}


def _node_of_numpy(dt: Any) -> str | None:
    try:
        return _NODE_OF.get(dt)
    except TypeError:  # an unhashable extended dtype
        return None


def _weak_node(dt: np.dtype) -> str:
    """``jax._src.dtypes._jax_type(dtype, weak_type=True)``."""
    if dt == _BOOL:
        return "bool"
    d = registry.from_numpy(dt)
    kind = d.kind if d is not None else dt.kind
    if d is not None and kind == "f":  # bfloat16 and the small floats are weak floats too
        return "float"
    return _WEAK_NODE["i" if kind == "u" else kind]


def _label(node: str) -> str:
    return f"{node}* (weak)" if node in _WEAK_NODE.values() else node


_SMALL_FLOATS = ("float8_", "float6_", "float4_")


def no_path_error(nodes: list[str], strict: bool) -> TypePromotionError:
    """One message builder for every 'these dtypes do not promote' case."""
    shown = listing(_label(n) for n in dict.fromkeys(nodes))
    small = [n for n in nodes if n.startswith(_SMALL_FLOATS)]  # not float64
    narrow = [n for n in nodes if n in registry.SUB_BYTE_INTS]
    if strict:
        why = (
            "jax_numpy_dtype_promotion='strict' allows no implicit promotion between "
            "different dtypes (only Python scalars adapt to the array they meet)"
        )
        fix = (
            "Cast explicitly, e.g. x.astype(y.dtype), or use standard promotion: "
            "jax.numpy_dtype_promotion('standard')."
        )
    elif small:
        why = (
            f"{small[0]} is one of the 8-, 6- and 4-bit floats, which to avoid unintended "
            "promotion never promote implicitly to or from another floating or complex dtype"
        )
        fix = "Cast explicitly to the dtype you want, e.g. x.astype('float32')."
    elif narrow:
        why = (
            f"{narrow[0]} is one of the 1-, 2- and 4-bit integers, which to avoid "
            "unintended promotion only combine with themselves, bool and Python ints"
        )
        fix = "Cast explicitly to the dtype you want, e.g. x.astype('int32')."
    else:
        why = "they have no common upper bound on the JAX promotion lattice"
        fix = "Cast the inputs explicitly to the desired output dtype."
    return TypePromotionError(f"Cannot promote {shown}: {why}. {fix} {_jax_words(nodes, strict)}")


def _jax_words(nodes: list[str], strict: bool) -> str:
    """What jax's own TypePromotionError says (its tests match these words)."""
    shown = tuple(dict.fromkeys(nodes))
    out = f"(Input dtypes {shown} have no available implicit dtype promotion path"
    if strict:
        return out + " when jax_numpy_dtype_promotion=strict.)"
    for prefix in _SMALL_FLOATS:  # jax's order: 8-bit floats first
        if any(n.startswith(prefix) for n in nodes):
            return out + f"; {prefix[5]}-bit floats do not support implicit promotion.)"
    if any(n in registry.SUB_BYTE_INTS for n in nodes):
        return out + "; 1-bit, 2-bit and 4-bit integers do not support implicit promotion.)"
    return out + ".)"


def not_promotable_error(received: Any, dt: Any) -> TypePromotionError:
    return TypePromotionError(
        f"dtype {dt} (from {received!r}) is not a valid dtype for JAX type promotion: "
        "only bool, integer, floating and complex dtypes promote. Convert the value to "
        "a numeric dtype first."
    )


# -- promote_types -----------------------------------------------------------------


def _spec_node(x: Any) -> str:
    """A dtype specifier as ``jnp.promote_types`` reads it: int/float/complex are weak."""
    if isinstance(x, type) and x in _PY_SCALARS:
        return _WEAK_NODE[_PY_SCALARS[x]]
    if isinstance(x, registry.DType):
        if x.weak:
            return x.name
        x = x.numpy
    try:
        dt = np.dtype(x)
    except TypeError as err:
        raise InvalidDTypeError(
            f"promote_types received {x!r}, which is not a dtype ({err}). Pass dtypes, "
            "scalar types (numpy.int8, int, float) or dtype names ('int8'); for arrays "
            "pass x.dtype, or use result_type(x, y)."
        ) from None
    node = _node_of_numpy(dt)
    if node is None:
        raise not_promotable_error(x, dt)
    return node


class _Row(dict[Any, np.dtype]):
    """One row {b: result} of the promote_types cache, for first operand `key`.

    Results that depend on x64 (standard mode: uint32 with int8/16/32) are not
    stored in the row; a lookup that misses falls to ``__missing__``, which reads
    the x64 flag only then. The hot path, a plain dict hit, never reads it.
    """

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        super().__init__()
        self.key = key

    def __missing__(self, b: Any) -> np.dtype:
        return X64_DEPENDENT[self.key][b][bool(X64_STATE.value)]


# {mode name: {a: row}}; X64_DEPENDENT[a][b] = (x32 result, x64 result).
PROMOTE_CACHE: dict[str, dict[Any, dict[Any, np.dtype]]] = {"standard": {}, "strict": {}}
_X64_SENSITIVE = frozenset({"uint32", "int8", "int16", "int32"})
X64_DEPENDENT: dict[Any, dict[Any, tuple[np.dtype, np.dtype]]] = {}
_CACHE_LIMIT = 4096


def promote(a: Any, b: Any, strict: bool, x64: bool) -> np.dtype:
    """``jnp.promote_types(a, b)`` for a given mode, cached (never reads jax's config)."""
    try:
        row = PROMOTE_CACHE[mode_name(strict)].get(a)
        hit = row.get(b) if row is not None else None
        if hit is None and not strict:
            hit = X64_DEPENDENT.get(a, {}).get(b, (None, None))[x64]
    except TypeError:  # unhashable specifier
        hit = None
    return hit if hit is not None else _promote_and_cache(a, b, strict, x64)


def _promote_and_cache(a: Any, b: Any, strict: bool, x64: bool) -> np.dtype:
    na, nb = _spec_node(a), _spec_node(b)

    def join(x64_: bool) -> np.dtype:
        out = jax_lattice(strict, x64_).join(na, nb)
        if out is None:
            raise no_path_error([na, nb], strict)
        return _PROMOTE_RESULT.get(out) or registry.by_name(out).numpy  # type: ignore[return-value]

    result, other = join(x64), join(not x64)
    rows = PROMOTE_CACHE[mode_name(strict)]
    try:
        if len(rows) > _CACHE_LIMIT:
            rows.clear()
            X64_DEPENDENT.clear()
        row = rows.get(a)
        if row is None:  # only rows that can hold x64-dependent pairs pay for __missing__
            row = rows[a] = _Row(a) if not strict and na in _X64_SENSITIVE else {}
        if result == other:
            row[b] = result
        else:
            X64_DEPENDENT.setdefault(a, {})[b] = (other, result) if x64 else (result, other)
    except TypeError:
        pass  # unhashable specifier (e.g. a list describing a structured dtype)
    return result


# -- result_type ---------------------------------------------------------------------


def explicit_mode() -> str:
    """``jax_explicit_x64_dtypes`` now: "warn", "error" or "allow" (what an explicitly
    requested 64-bit dtype does with x64 off)."""
    value = getattr(jax.config, "jax_explicit_x64_dtypes", "warn")
    name = str(getattr(value, "name", value)).lower()
    return name if name in ("warn", "error", "allow") else "warn"


def _explicit(dt: np.dtype, x64: bool, mode: str | None = None) -> np.dtype:
    """``_maybe_canonicalize_explicit_dtype``: an explicitly named 64-bit dtype under x32."""
    narrow = None if x64 else _TO_32.get(dt)
    if narrow is None:
        return dt
    mode = explicit_mode() if mode is None else mode
    if mode == "allow":
        return dt
    if mode == "error":
        raise TypePromotionError(
            f"Explicitly requested dtype {dt} is not available with x64 disabled "
            "(jax_explicit_x64_dtypes='error'). Enable x64 (jax.config.update("
            "'jax_enable_x64', True)) or request a 32-bit dtype."
        )
    warnings.warn(
        f"Explicitly requested dtype {dt} is not available, and will be truncated to "
        f"dtype {narrow}. To enable more dtypes, set the jax_enable_x64 configuration "
        "option or the JAX_ENABLE_X64 shell environment variable.",
        UserWarning,
        stacklevel=5,
    )
    return narrow


def _is_extended(dt: Any) -> bool:
    try:
        return bool(jax.dtypes.issubdtype(dt, jax.dtypes.extended))
    except TypeError:
        return False


def _check_valid(x: Any, dt: Any) -> None:
    if _node_of_numpy(dt) is None and dt not in _EXTRA_VALID and not _is_extended(dt):
        raise InvalidDTypeError(
            f"JAX only supports number, bool, and string dtypes, got dtype {dt}: value "
            f"{x!r} is not a valid JAX array type. Convert it to a numeric dtype first."
        )


def classify(x: Any, x64: bool) -> tuple[Any, bool]:
    """``(dtype, weak_type)`` of one ``result_type`` argument, as JAX's ``dtype(x)``
    and ``is_weakly_typed(x)`` see it (Python scalars canonical and weak, bool strong;
    numpy values canonicalized; jax arrays as they are)."""
    if x is None:
        return _DEFAULTS[x64]["f"], False
    cls = x.__class__
    if cls in _PY_SCALARS:
        return _DEFAULTS[x64][_PY_SCALARS[cls]], True
    if cls is bool:
        return _BOOL, False
    if cls is np.ndarray or isinstance(x, np.generic):  # numpy values: canonicalized
        dt = x.dtype
        if dt in _NODE_OF:
            return (dt if x64 else _TO_32.get(dt, dt)), False
    if cls is type:
        if x in _PY_SCALARS:
            return _DEFAULTS[x64][_PY_SCALARS[x]], True
        if x is bool:
            return _BOOL, False
        if x in _DTYPE_OF_TYPE:
            return _explicit(_DTYPE_OF_TYPE[x], x64), False
        if issubclass(x, np.generic):
            return _explicit(np.dtype(x), x64), False
    if isinstance(x, jax.Array):
        aval = x.aval
        return aval.dtype, bool(aval.weak_type)
    if isinstance(x, registry.DType):
        return _classify_dtype_object(x, x64)
    if isinstance(x, str | np.dtype):
        dt = _np_dtype(x)
        _check_valid(x, dt)
        return _explicit(dt, x64), False
    return _classify_value(x, x64)


def _classify_dtype_object(x: registry.DType, x64: bool) -> tuple[Any, bool]:
    if x.weak:
        return _DEFAULTS[x64][x.kind], True
    if x.numpy is None:
        raise not_promotable_error(x, x)
    return _explicit(x.numpy, x64), False


def _np_dtype(x: Any) -> np.dtype:
    try:
        return np.dtype(x)
    except TypeError as err:
        raise InvalidDTypeError(
            f"cannot interpret {x!r} as a dtype ({err}). Pass a dtype such as "
            "numpy.float32 or a name such as 'float32'."
        ) from None


def _classify_value(x: Any, x64: bool) -> tuple[Any, bool]:
    """Arrays, numpy scalars and other objects with a dtype (ShapeDtypeStruct, tracers)."""
    dt = getattr(x, "dtype", None)
    if not (isinstance(dt, np.dtype) or _is_extended(dt)):
        try:
            dt = np.result_type(x)
        except (TypeError, ValueError):
            raise InvalidDTypeError(
                f"Cannot determine the dtype of {x!r} (type {type(x).__name__}). Pass "
                "arrays, scalars or dtypes; convert sequences with jnp.asarray first."
            ) from None
    _check_valid(x, dt)
    if not x64 and isinstance(dt, np.dtype):
        dt = _TO_32.get(dt, dt)
    aval = getattr(x, "aval", None)
    return dt, bool(getattr(aval, "weak_type", False))


_FAST_SCALARS = frozenset({int, float, complex, bool})
# numpy scalar types (np.int8, ml_dtypes.bfloat16) whose classification cannot warn.
_SPEC_PAIRS: dict[bool, dict[type, tuple[np.dtype, bool]]] = {
    x64: {t: (dt, False) for t, dt in _DTYPE_OF_TYPE.items() if x64 or dt not in _TO_32}
    for x64 in (False, True)
}
RESULT_CACHE: dict[tuple[Any, ...], tuple[Any, bool]] = {}


def result(args: tuple[Any, ...], strict: bool, x64: bool) -> tuple[Any, bool]:
    """``jax.dtypes.result_type(*args, return_weak_type_flag=True)``.

    The cache key is flat: strict, x64, then per argument either its Python scalar
    class, or its (dtype, weak_type) as two entries; classes and dtypes never
    compare equal, so the encoding is unambiguous.
    """
    key: list[Any] = [strict, x64]
    specs = _SPEC_PAIRS[x64]
    for a in args:
        cls = a.__class__
        if cls in _FAST_SCALARS:
            key.append(cls)
        elif cls is _ArrayImpl:
            aval = a.aval
            key.append(aval.dtype)
            key.append(aval.weak_type)
        elif cls is type and a in specs:
            key += specs[a]
        else:
            key += classify(a, x64)
    frozen = tuple(key)
    hit = RESULT_CACHE.get(frozen)
    if hit is None:
        hit = join_classified(_pairs(frozen, x64), strict, x64)
        if x64 or not any(isinstance(k, np.dtype) and k in _TO_32 for k in frozen[2:]):
            if len(RESULT_CACHE) > _CACHE_LIMIT:
                RESULT_CACHE.clear()
            RESULT_CACHE[frozen] = hit  # pure: joining warned about nothing
    return hit


def _pairs(key: tuple[Any, ...], x64: bool) -> tuple[tuple[Any, bool], ...]:
    """Decode a flat key back to one (dtype, weak_type) pair per argument."""
    out, i = [], 2
    while i < len(key):
        if isinstance(key[i], type) and key[i] in _FAST_SCALARS:
            out.append(classify(key[i](), x64))
            i += 1
        else:
            out.append((key[i], bool(key[i + 1])))
            i += 2
    if not out:
        raise TypePromotionError(
            "result_type needs at least one array, scalar or dtype; received none."
        )
    return tuple(out)


def join_classified(
    pairs: tuple[tuple[Any, bool], ...], strict: bool, x64: bool, explicit: str | None = None
) -> Any:
    """``lattice_result_type`` followed by ``result_type``'s weak-default step."""
    dt, weak = lattice_result(pairs, strict, x64, explicit)
    if weak:
        d = registry.from_numpy(dt)
        kind = "f" if d is not None and d.kind == "f" else (d.kind if d else dt.kind)
        dt = _DEFAULTS[x64][kind]
    return dt, weak


def lattice_result(
    pairs: tuple[tuple[Any, bool], ...], strict: bool, x64: bool, explicit: str | None = None
) -> Any:
    """``jax._src.dtypes.lattice_result_type`` on (dtype, weak_type) pairs: what
    ``jnp``'s ``promote_dtypes`` converts every operand to."""
    dts = [dt for dt, _ in pairs]
    weaks = [w for _, w in pairs]
    if len(pairs) == 1:
        dt, weak = pairs[0]
    elif len(set(dts)) == 1 and not all(weaks):
        dt, weak = dts[0], False  # trivial: also lets extended dtypes through
    elif all(weaks) and not strict:
        # JAX joins the strong counterparts, then marks the result weak.
        node = _lattice_join([_strong_node(d) for d in dts], dts, strict, x64)
        dt, weak = _canonical(node, x64, explicit)
        weak = True
    else:
        nodes = [_weak_node(d) if w else _strong_node(d) for d, w in pairs]
        dt, weak = _canonical(_lattice_join(nodes, dts, strict, x64), x64, explicit)
    return dt, weak and dt != _BOOL


def _strong_node(dt: Any) -> str:
    node = _node_of_numpy(dt)
    if node is None:
        raise not_promotable_error(dt, dt)
    return node


def _lattice_join(nodes: list[str], dts: list[Any], strict: bool, x64: bool) -> str:
    out = jax_lattice(strict, x64).join(*dict.fromkeys(nodes))
    if out is None:
        raise no_path_error(nodes, strict)
    return out


def _canonical(node: str, x64: bool, explicit: str | None = None) -> tuple[np.dtype, bool]:
    """JAX's ``dtype(lub)``: weak kinds become the default dtype of their kind."""
    if node in _PROMOTE_RESULT:
        return _DEFAULTS[x64][node[0]], True
    numpy = registry.by_name(node).numpy
    assert numpy is not None, f"lattice node {node} has no numpy dtype"
    return _explicit(numpy, x64, explicit), False


# jax._src.dtypes._dtype_to_inexact (narrow types become float32, 64-bit ints float64)
_TO_INEXACT = {np.dtype(k): np.dtype(v) for k, v in [
    ("bool", "float32"), ("uint4", "float32"), ("int4", "float32"),
    ("uint8", "float32"), ("int8", "float32"), ("uint16", "float32"),
    ("int16", "float32"), ("uint32", "float32"), ("int32", "float32"),
    ("uint64", "float64"), ("int64", "float64"),
]}  # fmt: skip


def to_inexact(dt: np.dtype) -> np.dtype:
    return _TO_INEXACT.get(dt, dt)


def to_numeric(dt: np.dtype) -> np.dtype:
    return _BOOL_INT32 if dt == _BOOL else dt


def to_complex(dt: np.dtype) -> np.dtype:
    wide = to_inexact(dt) in (np.dtype("float64"), np.dtype("complex128"))
    return np.dtype("complex128") if wide else np.dtype("complex64")


_BOOL_INT32 = np.dtype("int32")
_TARGETS = {"inexact": to_inexact, "numeric": to_numeric, "complex": to_complex}
