"""promote_types / result_type per call, weaktrace vs jax.numpy, same process.

    python -m benchmarks.bench_promotion

Target (issue 2): at least 10x faster than jax.numpy for both, cached. Each side is
timed as the statement a user writes (``wt.promote_types(a, b)`` against
``jnp.promote_types(a, b)``), with the same arguments.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import weaktrace as wt
from benchmarks.common import per_call, report

CASES = [
    ("promote_types", "i8_type, f32_type"),
    ("promote_types", "u8, i8"),
    ("promote_types", "'bfloat16', float"),
    ("promote_types", "u32, i8"),  # the one x64-dependent family of pairs
    ("result_type", "x, 2, 3.0"),
    ("result_type", "x_i8, 2"),
    ("result_type", "a_i16, i8_type"),
    ("result_type", "2, 3.0"),
]


def main() -> None:
    env = {
        "wt": wt, "jnp": jnp, "np": np,
        "u8": np.dtype("uint8"), "i8": np.dtype("int8"), "u32": np.dtype("uint32"),
        "i8_type": np.int8, "f32_type": np.float32,
        "x": jnp.ones(3, jnp.float32), "x_i8": jnp.ones(3, jnp.int8),
        "a_i16": np.ones(3, np.int16),
    }  # fmt: skip
    rows = []
    for fn, args in CASES:
        ours, ref = f"wt.{fn}({args})", f"jnp.{fn}({args})"
        assert eval(ours, env) == eval(ref, env), ours  # same answer before timing it
        rows.append((f"{fn}({args})", per_call(ours, env), per_call(ref, env, number=5000)))
    print(f"jax {jax.__version__}, x64={jax.config.jax_enable_x64}")
    print(report(rows, ">= 10x faster than jax.numpy for promote_types and result_type"))


if __name__ == "__main__":
    main()
