"""Every error weaktrace raises on purpose.

Each class says what kind of mistake it is; each message says what was received,
why it fails and what to do. Where JAX raises a ``TypeError`` for the same input,
ours also derives from ``TypeError`` so code written against JAX keeps working.
"""

from __future__ import annotations

from jax.dtypes import TypePromotionError as _JaxTypePromotionError
from jax.errors import ConcretizationTypeError as _JaxConcretizationTypeError
from jax.errors import NonConcreteBooleanIndexError as _JaxNonConcreteBooleanIndexError
from jax.errors import TracerArrayConversionError as _JaxTracerArrayConversionError
from jax.errors import TracerBoolConversionError as _JaxTracerBoolConversionError
from jax.errors import TracerIntegerConversionError as _JaxTracerIntegerConversionError


class WeaktraceError(Exception):
    """Base class of weaktrace's own errors."""


class TypePromotionError(WeaktraceError, _JaxTypePromotionError):
    """Two or more dtypes have no implicit promotion under the active policy.

    A ``jax.dtypes.TypePromotionError`` (so a ``ValueError``): code that catches jax's
    catches ours.
    """


class InvalidDTypeError(TypePromotionError, TypeError):
    """A value or dtype specifier that is not a valid array dtype for the policy.

    JAX raises ``TypeError`` for these inputs, so this is both a ``TypeError`` and
    a :class:`TypePromotionError`.
    """


class LatticeError(WeaktraceError, ValueError):
    """A promotion lattice (or table) is malformed or breaks a lattice law."""


class PolicyError(WeaktraceError, ValueError):
    """An unknown policy name or an invalid policy option."""


def listing(items: object) -> str:
    """``a, b and c``: the received inputs, in the order they were given."""
    names = [str(i) for i in items]  # type: ignore[attr-defined]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class ShapeError(WeaktraceError, ValueError, TypeError):
    """Shapes that do not fit an operation (JAX raises TypeError or ValueError here)."""


class AxisError(ShapeError, IndexError):
    """An axis out of bounds for the array's rank. jax raises ValueError for it in some
    functions (sum) and IndexError in others (mean, std); numpy's AxisError is both."""


class RankPromotionError(ShapeError):
    """Operands of different ranks under ``jax_numpy_rank_promotion='raise'`` (jax: ValueError)."""


class OperandTypeError(WeaktraceError, TypeError):
    """An operand whose dtype an operation does not accept (e.g. ``neg`` of bool)."""


class KernelDtypeError(OperandTypeError, NotImplementedError):
    """A dtype jax's kernels do not implement for an operation (float16 / bfloat16 linear
    algebra: jax raises NotImplementedError, 'Unsupported dtype')."""


class ComplexInputError(OperandTypeError, ValueError):
    """A complex operand a real-only function refuses where JAX raises ValueError
    (``jax.scipy.special.beta``, ``sici`` ...); a TypeError too, as weaktrace's other
    dtype refusals are."""


class ComplexNotImplementedError(OperandTypeError, NotImplementedError):
    """A complex operand a function refuses where JAX raises NotImplementedError
    (``jax.scipy.special.fresnel``)."""


class OperandValueError(WeaktraceError, ValueError):
    """An operand value an operation rejects where JAX raises ValueError (round of a
    bool, clip of a complex number)."""


class TypeCheckError(WeaktraceError, TypeError):
    """A Program whose recorded types do not follow from its equations."""


class InvalidInputError(WeaktraceError, TypeError, ValueError):
    """A value that cannot enter a trace or an operation (strings, None, objects), or an
    argument an operation refuses (a non-boolean ``where``, ``ddof`` with
    ``correction``). jax raises TypeError for some of these and ValueError for others,
    so it is both: code written against jax catches it either way."""


class TracerLeakError(WeaktraceError, RuntimeError):
    """A tracer used after the trace that made it has ended."""


class ConcretizationError(WeaktraceError, _JaxConcretizationTypeError):
    """A tracer used where Python needs a concrete value (``if x > 0:``, ``int(x)``).

    A ``jax.errors.ConcretizationTypeError`` (so a ``TypeError``): code that catches
    jax's catches ours.
    """

    def __init__(self, message: str = "") -> None:
        TypeError.__init__(self, message)  # jax's __init__ wants a jax tracer


class TracerBoolConversionError(ConcretizationError, _JaxTracerBoolConversionError):
    """``bool(tracer)``: Python control flow on a traced value (jax's class too)."""


class TracerIntegerConversionError(ConcretizationError, _JaxTracerIntegerConversionError):
    """A tracer used as a Python index (``__index__``), as jax's class of that name."""


class TracerArrayConversionError(ConcretizationError, _JaxTracerArrayConversionError):
    """A tracer converted to a numpy array (``np.asarray(tracer)``), as jax's class."""


class TracerAttributeError(WeaktraceError, AttributeError):
    """A ``jax.Array`` attribute a traced value does not have (``sharding``, ``device``):
    an AttributeError as jax's tracers raise, so ``hasattr`` and ``getattr(x, name,
    default)`` answer as under jax.jit."""


class WeakLiteralOverflowWarning(UserWarning):
    """A Python int that does not fit the dtype it joins; JAX wraps it silently."""


class ArgumentOverflowError(WeaktraceError, OverflowError):
    """A Python int argument too large for the dtype it must take (as jax raises)."""


class StaticArgumentError(WeaktraceError, ValueError):
    """A static argument that cannot be used as one (unhashable, or out of range)."""


class CarryTypeError(WeaktraceError, TypeError):
    """A loop carry or branch output whose type the body changes (JAX raises TypeError);
    the message names the carry's path, both types and the line that changed it."""


class IndexingError(WeaktraceError, IndexError):
    """An index that does not fit the array (too many indices, two ellipses, a mask
    of the wrong shape, an integer index into an axis of size 0) or that indexing
    does not accept (a traced slice bound, an unknown object). JAX raises IndexError."""


class InvalidIndexError(IndexingError, InvalidInputError):
    """An index of a type indexing does not accept: a float, a complex, a string, a
    sequence of those. NumPy raises IndexError, JAX TypeError: this is both."""


class NonConcreteBooleanIndexError(ConcretizationError, _JaxNonConcreteBooleanIndexError):
    """A boolean mask whose values are not known while tracing: the result's shape
    would depend on them. JAX raises ``NonConcreteBooleanIndexError`` (an IndexError)."""


class EmptyAxisGatherError(IndexingError, TypeError):
    """An integer-array index into an axis of size 0 that would select elements.
    JAX's gather raises TypeError here; it is an IndexError too."""


class SliceStepError(WeaktraceError, ValueError):
    """A slice with step 0 (Python and JAX raise ValueError)."""


class ForeignFunctionError(WeaktraceError, TypeError):
    """A numpy or jax function was handed a weaktrace value inside a trace; the
    message names the weaktrace mirror to call instead."""


class ClosureConversionError(WeaktraceError, NotImplementedError):
    """A function closure-converted inside a trace (``jax.closure_convert``) that closes
    over traced integer or boolean values (which jax does not hoist) was called on jax's
    values, where those values do not exist."""
