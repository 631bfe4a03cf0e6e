"""Eager calls: weaktrace.numpy outside a trace vs the same jax.numpy calls.

    python -m benchmarks.bench_eager

Each case is one line of user code run on concrete jax arrays (no jit), timed as
written. Target (issue 13): weaktrace <= 1.1x jax.numpy's time per call.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import weaktrace.numpy as wnp
from benchmarks.common import paired

CASES = [
    "m.add(x, y)",
    "x * 2.0",
    "m.sin(x)",
    "m.sum(x)",
    "m.mean(x, axis=0)",
    "m.var(x)",
    "m.matmul(a, a)",
    "m.where(x > 0, x, 0.0)",
    "m.concatenate([x, y])",
    "m.maximum(x, i)",
    "m.exp(x) / m.sum(m.exp(x))",
    "x.astype(m.float16)",
    "a[1:, ::2]",
    "m.reshape(a, (-1,))",
    "m.clip(x, -1, 1)",
]


def main() -> None:
    x = jnp.asarray(np.linspace(-1, 1, 64, dtype=np.float32))
    y = jnp.asarray(np.ones(64, np.float32))
    i = jnp.asarray(np.arange(64, dtype=np.int8))
    a = jnp.asarray(np.ones((16, 16), np.float32))
    print(f"jax {jax.__version__}; eager per-call time, best of 15, alternating")
    print(f"{'case':32s} {'weaktrace':>11s} {'jax.numpy':>11s} {'ratio':>7s}")
    worst = 0.0
    for case in CASES:
        env = {"x": x, "y": y, "i": i, "a": a}
        ours_stmt, ours_env = case, {**env, "m": wnp}
        if case.startswith("x") or case.startswith("a["):
            # an operator or method on a jax array: both sides are jax's own
            ours_stmt = case.replace("x", "wx").replace("a[", "wa[")
            ours_env = {**env, "m": wnp, "wx": x, "wa": a}
        ours, ref = paired(ours_stmt, case, ours_env, {**env, "m": jnp})
        worst = max(worst, ours / ref)
        print(f"{case:32s} {ours * 1e6:9.2f}us {ref * 1e6:9.2f}us {ours / ref:6.2f}x")
    print(f"worst ratio {worst:.2f}x; target: <= 1.1x")


if __name__ == "__main__":
    main()
