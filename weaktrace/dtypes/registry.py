"""The dtype registry: one interned, immutable :class:`DType` per dtype name.

A DType is a lattice node. Concrete ones wrap a numpy dtype (``bfloat16`` and the
small floats and ints come from ml_dtypes, as in JAX); the weak kinds ``int``,
``float`` and ``complex`` (JAX's ``i*``, ``f*``, ``c*``) have none, and neither do
dtypes that only some policies know (MAX's ``index``). Short names follow jaxpr
printing: ``i8``, ``u32``, ``bf16``, ``f8_e4m3fn``, ``c64``, ``bool``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_dtypes
import numpy as np

from weaktrace.errors import InvalidDTypeError

KINDS = ("b", "u", "i", "f", "c")  # numpy's kind letters, in promotion order


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class DType:
    """An interned dtype: compare with ``is`` or ``==`` (identity); hash by identity.

    >>> from weaktrace.dtypes import by_name
    >>> by_name("i8") is by_name("int8")
    True
    >>> by_name("int").short, by_name("int").weak
    ('i*', True)
    """

    name: str
    short: str
    kind: str  # "b", "u", "i", "f" or "c": the kind of the values, weak or not
    bits: int | None  # None for the weak kinds
    weak: bool
    numpy: np.dtype | None  # None for weak kinds and policy-only dtypes; jax's for keys

    def __repr__(self) -> str:
        return f"weaktrace.dtypes.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (by_name, (self.name,))  # unpickling keeps interning


_BY_NAME: dict[str, DType] = {}
_BY_NUMPY: dict[np.dtype, DType] = {}
ALL: list[DType] = []  # registration order, which is display order


def register(
    name: str, short: str, kind: str, bits: int | None, numpy: np.dtype | None = None
) -> DType:
    """Intern a new dtype; names and short names must be unused."""
    for key in (name, short):
        assert key not in _BY_NAME, f"dtype name {key!r} registered twice"
    dt = DType(name, short, kind, bits, bits is None, numpy)
    _BY_NAME[name] = _BY_NAME[short] = dt
    if numpy is not None:
        _BY_NUMPY[numpy] = dt
    ALL.append(dt)
    return dt


def short_name(name: str) -> str:
    """jaxpr's abbreviation: ``float8_e4m3fn`` -> ``f8_e4m3fn``, ``bfloat16`` -> ``bf16``."""
    if name == "bool":
        return name
    for long, short in (("bfloat", "bf"), ("complex", "c"), ("float", "f"), ("uint", "u")):
        if name.startswith(long):
            return short + name[len(long) :]
    return name.replace("int", "i", 1)


def _numpy_dtype(name: str) -> np.dtype | None:
    """The numpy dtype for a name, or None when neither numpy nor ml_dtypes has it."""
    scalar = getattr(ml_dtypes, name, None)
    try:
        return np.dtype(scalar if scalar is not None else name)
    except TypeError:
        return None


# The ml_dtypes floats narrower than 16 bits (JAX keeps them out of implicit promotion).
SMALL_FLOATS: tuple[str, ...] = (
    "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
    "float8_e8m0fnu", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz",
)  # fmt: skip

# The 1-, 2- and 4-bit integers (JAX keeps them out of implicit promotion, like the
# small floats); listed once, here.
SUB_BYTE_INTS: tuple[str, ...] = ("uint1", "uint2", "uint4", "int1", "int2", "int4")

# Every concrete dtype JAX has had, in display order. Sub-byte ints and the small
# floats exist only when the installed ml_dtypes has them; `supported_by_jax`
# narrows further to what the installed jax promotes.
_CANDIDATES: tuple[tuple[str, str], ...] = (
    ("bool", "b"),
    *((f"uint{b}", "u") for b in (1, 2, 4, 8, 16, 32, 64)),
    *((f"int{b}", "i") for b in (1, 2, 4, 8, 16, 32, 64)),
    *((n, "f") for n in (*SMALL_FLOATS, "bfloat16", "float16", "float32", "float64")),
    ("complex32", "c"),  # torch's ComplexHalf; ml_dtypes has it, jax does not promote it
    ("complex64", "c"),
    ("complex128", "c"),
)


def _bits(np_dtype: np.dtype, kind: str) -> int:
    if kind == "b":
        return 8
    if kind in "ui":
        return int(ml_dtypes.iinfo(np_dtype).bits)
    if kind == "c":
        return 8 * np_dtype.itemsize
    return int(ml_dtypes.finfo(np_dtype).bits)


for _name, _kind in _CANDIDATES:
    _np = _numpy_dtype(_name)
    if _np is not None:
        register(_name, short_name(_name), _kind, _bits(_np, _kind), _np)

# MAX graph dtypes with no numpy counterpart (seed 002): they trace, and lower as
# uint64 / uint64 / float32.
index = DType("index", "index", "u", 64, False, None)
address = DType("address", "addr", "u", 64, False, None)
tensor_float32 = DType("tensor_float32", "tf32", "f", 32, False, None)
for _d in (index, address, tensor_float32):
    _BY_NAME[_d.name] = _BY_NAME[_d.short] = _d
    ALL.append(_d)

weak_int = register("int", "i*", "i", None)
weak_float = register("float", "f*", "f", None)
weak_complex = register("complex", "c*", "c", None)
WEAK_KINDS: tuple[DType, ...] = (weak_int, weak_float, weak_complex)
WEAK_OF_KIND: dict[str, DType] = {"u": weak_int, "i": weak_int, "f": weak_float, "c": weak_complex}

_PYTHON_TYPES: dict[type, DType] = {int: weak_int, float: weak_float, complex: weak_complex}


# jax's float0: the tangent and cotangent dtype of integer and bool values (what
# jax.grad(allow_int=True) gives an integer argument): arrays of no data. Like the key
# dtypes it belongs to no lattice (kind "V", numpy's for void) and is not in ALL; values
# of it enter traces, are returned and passed to jax's transformations, and nothing
# computes with them (jax refuses them everywhere else).
float0 = DType("float0", "float0", "V", 0, False, np.dtype([("float0", np.void, 0)]))
_BY_NAME[float0.name] = float0
_BY_NUMPY[float0.numpy] = float0  # type: ignore[index]


def by_name(name: str) -> DType:
    """Look up a dtype by its name or short name (``"int8"``, ``"i8"``, ``"f*"``).

    >>> by_name("bf16").name
    'bfloat16'
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise InvalidDTypeError(
            f"unknown dtype name {name!r}. Use a name such as 'int8', 'bfloat16' or "
            f"'float' (the weak kind), or a short name such as 'i8', 'bf16' or 'f*'; known: "
            f"{', '.join(d.short for d in ALL)}"
        ) from None


def from_numpy(np_dtype: np.dtype) -> DType | None:
    """The registered DType of a numpy dtype (or of a jax PRNG key dtype), or None if
    weaktrace has none."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None and np_dtype.__class__ is not DType and not _native(np_dtype):
        found = _BY_NUMPY.get(np_dtype.newbyteorder("="))  # '>u4' holds uint32 values
    return found if found is not None else key_dtype(np_dtype)


def _native(dt: Any) -> bool:
    """False for a numpy dtype in non-native byte order (``'>u4'`` on little-endian)."""
    return not isinstance(dt, np.dtype) or dt.isnative


# -- PRNG key dtypes (``key<fry>``): jax's extended dtypes of typed key arrays. They
# enter traces and pass through shape operations and weaktrace.random, but belong to
# no promotion lattice: their kind "K" is none of KINDS, their `numpy` is jax's own
# dtype object (so an aval's ``.dtype`` is what jax's aval holds), and they are not
# in ALL (tables, lattices and literals never see them). Promoting one raises.
_KEYS: dict[Any, DType] = {}


def key_dtype(dt: Any) -> DType | None:
    """The DType of a jax PRNG key dtype (``jax.random.key(0).dtype``), else None."""
    found = _KEYS.get(dt)
    if found is not None or dt.__class__.__name__ != "KeyTy":
        return found
    import jax  # only reached for jax's extended dtypes

    if not jax.dtypes.issubdtype(dt, jax.dtypes.prng_key):
        return None
    name = str(dt)  # key<fry>, as jaxprs print it
    bits = 32 * int(np.prod(dt._impl.key_shape))
    found = _KEYS[dt] = DType(name, name, "K", bits, False, dt)
    _BY_NAME.setdefault(name, found)
    return found


def of(x: Any) -> DType:
    """The concrete DType of a dtype-like (a DType, numpy dtype, scalar type or name),
    read as numpy reads it (``int`` is int64 here, never the weak kind): what an
    abstract value holds.

    >>> of("float32") is by_name("f32"), of(np.dtype("bool")).kind
    (True, 'b')
    """
    if x.__class__ is DType:
        return x
    found = _BY_NUMPY.get(x) or key_dtype(x)
    if found is not None:
        return found
    if isinstance(x, str) and x in _BY_NAME and not _BY_NAME[x].weak:
        return _BY_NAME[x]
    try:
        np_dtype = np.dtype(x)
    except TypeError as err:
        raise InvalidDTypeError(
            f"cannot interpret {x!r} as a dtype ({err}). Pass a dtype, a scalar type "
            "such as numpy.int8, or a name such as 'int8'."
        ) from None
    found = from_numpy(np_dtype)
    if found is None:
        raise InvalidDTypeError(
            f"dtype {np_dtype} (from {x!r}) is not a dtype weaktrace knows: only bool, "
            "integer, floating and complex dtypes can be traced."
        )
    return found


def kind(x: Any) -> str:
    """'b', 'u', 'i', 'f' or 'c' of any dtype-like weaktrace knows (bfloat16 is 'f')."""
    return x.kind if x.__class__ is DType else of(x).kind


def to_numpy(d: DType) -> Any:
    """The numpy dtype of a DType; a dtype only some policies know stays a DType."""
    return d.numpy if d.numpy is not None else d


def as_dtype(x: Any) -> DType:
    """Convert a dtype specifier to a :class:`DType`, reading strings as numpy does.

    Accepts a DType, the Python types ``int``/``float``/``complex`` (the weak kinds,
    as in ``jnp.promote_types``), anything ``numpy.dtype`` accepts (so ``"i8"`` is
    int64 and ``"int"`` is int64, exactly as in JAX), and, for strings numpy
    rejects, weaktrace's own short names (``"bf16"``, ``"f*"``).

    >>> as_dtype(float) is by_name("f*"), as_dtype("float32").short, as_dtype("i8").short
    (True, 'f32', 'i64')
    """
    if isinstance(x, DType):
        return x
    weak = _PYTHON_TYPES.get(x) if isinstance(x, type) else None
    if weak is not None:
        return weak
    try:
        np_dtype = np.dtype(x)
    except TypeError as err:
        if isinstance(x, str) and x in _BY_NAME:
            return _BY_NAME[x]
        raise InvalidDTypeError(
            f"cannot interpret {x!r} as a dtype ({err}). Pass a dtype, a scalar type "
            "such as numpy.int8, or a name such as 'int8' or 'bf16'."
        ) from None
    found = from_numpy(np_dtype)
    if found is None:
        raise InvalidDTypeError(
            f"dtype {np_dtype} (from {x!r}) is not a dtype weaktrace knows: only "
            "bool, integer, floating and complex dtypes take part in promotion."
        )
    return found
