"""weaktrace.lint's gaps closed in session 7: the warnings machinery stays the user's,
jax.numpy's own inexact conversions are not promotions while strong operands of two
dtypes are (whatever function joins them), and a loop or cond jax refuses is reported
at the body's line. jax is the oracle: expected dtypes and verdicts are computed here
from ``jnp.result_type``, never pasted.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
from jax import ShapeDtypeStruct as S

import weaktrace as wt
from tests.lint_programs import planted

f32 = jnp.float32

# ------------------------------------------------------------ the user's warnings state


def _warns(x):
    warnings.warn("weaktrace-lint-gaps: the user's own warning", UserWarning, stacklevel=1)
    return x.astype(jnp.float64)  # a requested 64-bit dtype: jax warns, lint records it


def _warn_here():
    warnings.warn("weaktrace-lint-gaps: once per location", UserWarning, stacklevel=1)


def test_lint_leaves_the_warning_filters_and_registries_as_they_were():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # shown once per location
        _warn_here()
        filters, before = warnings.filters, list(warnings.filters)
        report = wt.lint(planted.requested_f64, S((3,), f32))
        assert warnings.filters is filters and warnings.filters == before
        _warn_here()  # lint did not reset the registry: still shown once only
    assert report.kinds() == ["x64-truncation"]
    assert [str(w.message) for w in seen] == ["weaktrace-lint-gaps: once per location"]


def test_the_users_filters_hold_during_lint_and_x64_is_found_under_any_of_them():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore")
        report = wt.lint(_warns, S((3,), f32))
    assert not seen  # ignored by the user: lint shows nothing
    assert report.kinds() == ["x64-truncation"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            wt.lint(_warns, S((3,), f32))
        except UserWarning as err:  # the user's "error" filter holds for their warning
            assert "the user's own warning" in str(err)
        else:
            raise AssertionError("the user's warning was not raised under their filter")
        # jax's requested-dtype warning is lint's to record, not an error
        assert wt.lint(planted.requested_f64, S((3,), f32)).kinds() == ["x64-truncation"]
