"""Timing helpers: best-of-N per-call times, reported as ratios against JAX in one run."""

from __future__ import annotations

import time
import timeit
from collections.abc import Callable
from typing import Any


def per_call(
    stmt: str | Callable[[], Any],
    env: dict[str, Any] | None = None,
    *,
    number: int = 20_000,
    repeat: int = 7,
) -> float:
    """Best per-call time in seconds (the minimum is the least noisy estimate).

    A statement string is timed as written, with no wrapper call around it, so
    the cost measured is the cost a user's line of code pays.
    """
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(1)  # warm caches on both sides: we compare steady-state costs
    return min(timer.repeat(number=number, repeat=repeat)) / number


def paired(
    ours: str | Callable[[], Any],
    ref: str | Callable[[], Any],
    env_ours: dict[str, Any] | None = None,
    env_ref: dict[str, Any] | None = None,
    *,
    number: int = 2_000,
    repeat: int = 15,
) -> tuple[float, float]:
    """Best per-call times of two statements, timed in alternation so that a change of
    the machine's load during the run touches both sides alike. The clock is the
    process's CPU time (all its threads): on the shared machine wall time also counts
    the time other processes hold the CPU, which moved identical statements' ratio by
    up to ±15% (CPU time: ±2%)."""
    a = timeit.Timer(ours, globals=env_ours, timer=time.process_time)
    b = timeit.Timer(ref, globals=env_ref, timer=time.process_time)
    a.timeit(1), b.timeit(1)
    best_a = best_b = float("inf")
    for _ in range(repeat):
        best_a = min(best_a, a.timeit(number))
        best_b = min(best_b, b.timeit(number))
    return best_a / number, best_b / number


def report(rows: list[tuple[str, float, float]], target: str) -> str:
    """A table of (case, ours, jax) with the speed-up of ours over jax."""
    lines = [f"{'case':44s} {'weaktrace':>11s} {'jax':>11s} {'speed-up':>9s}"]
    for name, ours, ref in rows:
        lines.append(f"{name:44s} {ours * 1e9:9.0f}ns {ref * 1e9:9.0f}ns {ref / ours:8.1f}x")
    lines.append(f"target: {target}")
    return "\n".join(lines)
