"""Command line: ``python -m weaktrace [table ...]``.

Bare ``python -m weaktrace`` runs the demo from the README.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import weaktrace as wt
from weaktrace.dtypes import DOC_DTYPES


def demo() -> None:
    print("JAX's type promotion table (x64 on), as weaktrace computes it on its lattice.")
    print("Rows are the first operand; i*, f*, c* are weakly typed Python scalars.\n")
    print(wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES))
    print("\nWeak types at work (x64 on; the same answers as jax.numpy):")
    import numpy as np

    x64 = wt.policy("jax", x64=True)
    for args, text in [
        ((np.int8, int), "int8 array + Python int"),
        ((np.float16, float), "float16 array + Python float"),
        ((np.int32, np.float16), "int32 array + float16 array"),
        ((np.uint64, np.int64), "uint64 + int64"),
        ((2, 3.5), "Python int + Python float (weak result)"),
    ]:
        dt, weak = wt.result_type(*args, return_weak_type_flag=True, policy=x64)
        print(f"  {text:42s} -> {dt}{' (weak)' if weak else ''}")
    print("\nRun `python -m weaktrace table --help` for more tables.")


def _table(args: argparse.Namespace) -> None:
    policy = wt.policy(args.policy, **({"strict": True} if args.strict else {}), x64=args.x64)
    dtypes = DOC_DTYPES if args.doc else None
    print(wt.promotion_table(policy, dtypes=dtypes, format=args.format))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m weaktrace",
        description="weaktrace: dtype promotion done right. With no command, runs the demo.",
    )
    sub = p.add_subparsers(dest="command")
    t = sub.add_parser("table", help="print a binary promotion table")
    t.add_argument("--policy", default="jax", help="promotion policy (default: jax)")
    t.add_argument("--strict", action="store_true", help="JAX strict promotion")
    t.add_argument("--x64", action="store_true", help="x64 on (default: off, as in JAX)")
    t.add_argument("--format", choices=["text", "md", "markdown"], default="text")
    t.add_argument("--doc", action="store_true", help="only the 18 dtypes of JAX's docs")
    t.set_defaults(run=_table)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command is None:
        demo()
        return 0
    try:
        args.run(args)
    except wt.WeaktraceError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
