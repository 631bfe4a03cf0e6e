"""weaktrace.numpy mirrors every public name of jax.numpy, listed at test time.

A name weaktrace lacks must be listed with its reason: in `EXCLUDED` (never mirrored)
or in ``tests/data/jnp_pending.txt`` (not mirrored yet; the list only shrinks).
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp

import weaktrace.numpy as wnp

# Names jax.numpy offers that weaktrace.numpy will not mirror, with the reason.
EXCLUDED: dict[str, str] = {}

PENDING = set((Path(__file__).parent / "data" / "jnp_pending.txt").read_text().split())


def public_names() -> list[str]:
    return sorted(n for n in dir(jnp) if not n.startswith("_"))


def test_every_jax_numpy_name_is_mirrored_or_listed():
    missing = [n for n in public_names() if not hasattr(wnp, n)]
    unlisted = [n for n in missing if n not in EXCLUDED and n not in PENDING]
    assert not unlisted, f"weaktrace.numpy lacks {unlisted}: mirror them or list them"


def test_listed_names_are_really_missing():
    """A name that is mirrored now must leave the pending list (it only shrinks)."""
    done = sorted(n for n in PENDING | set(EXCLUDED) if hasattr(wnp, n))
    assert not done, f"remove {done} from tests/data/jnp_pending.txt / EXCLUDED"
    gone = sorted(n for n in PENDING if not hasattr(jnp, n))
    assert not gone, f"jax.numpy no longer has {gone}; drop them from the pending list"


def test_all_lists_exactly_the_mirrors():
    assert sorted(wnp.__all__) == sorted(set(wnp.__all__))
    assert all(
        callable(getattr(wnp, n)) or not callable(getattr(jnp, n, None)) for n in wnp.__all__
    )
