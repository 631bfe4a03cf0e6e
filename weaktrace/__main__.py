"""Command line: ``python -m weaktrace [table | lattice | explain] ...``.

Bare ``python -m weaktrace`` runs the demo from the README.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import weaktrace as wt
from weaktrace.dtypes import DOC_DTYPES, registry


class CLIError(wt.WeaktraceError):
    """A command-line argument that cannot be used; the message says how to fix it."""


def demo() -> None:
    import numpy as np

    import weaktrace.numpy as wnp

    print("JAX's type promotion table (x64 on), as weaktrace computes it on its lattice.")
    print("Rows are the first operand; i*, f*, c* are weakly typed Python scalars.\n")
    print(wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES))
    print("\nWeak types at work (x64 on; the same answers as jax.numpy):")
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

    def layer(x, scale):
        return wnp.sin(x * scale) / 3

    x = np.arange(4, dtype=np.int8)
    print("\nA traced function (int8 activations scaled by a Python float):")
    print(wt.trace(layer).trace(x, 0.5))
    print("\nThe same function under JAX, NumPy and PyTorch promotion:")
    print(wt.compare(layer, x, 0.5, policies=["jax", "numpy", "torch"]))
    print("\nMore: python -m weaktrace --help")


def _policy(args: argparse.Namespace) -> wt.Policy:
    if args.policy != "jax":
        if args.strict or args.x64:
            raise CLIError("--strict and --x64 are options of the jax policy only")
        return wt.policy(args.policy)
    return wt.policy("jax", strict=bool(args.strict), x64=bool(args.x64))


def _table(args: argparse.Namespace) -> None:
    dtypes = DOC_DTYPES if args.doc else None
    print(wt.promotion_table(_policy(args), dtypes=dtypes, format=args.format))


def _lattice(args: argparse.Namespace) -> None:
    out = Path(args.out)
    if out.suffix.lower() not in (".svg", ".png"):
        raise CLIError(f"--out must end in .svg or .png, got {args.out!r}")
    lattice = _policy(args).lattice
    if lattice is None:
        raise CLIError(f"policy {args.policy!r} is not a lattice; draw jax or max")
    lattice.draw().savefig(out, dpi=110)
    print(f"wrote {out} ({len(lattice.nodes)} dtypes)")


_TYPE = re.compile(r"^(~?)([a-z][a-z0-9_]*\*?)\[([0-9,\s]*)\]$")


def parse_arg(text: str) -> Any:
    """``f32[3]``, ``~f32[]``, ``i8[2,3]`` (abstract arrays; ~ is weak) or a Python number.

    >>> parse_arg("~f32[]"), parse_arg("i8[2,3]"), parse_arg("2.0")
    (AbstractValue((), float32, weak_type=True), AbstractValue((2, 3), int8, weak_type=False), 2.0)
    """
    m = _TYPE.match(text.strip())
    if m:
        weak, name, dims = m.groups()
        try:
            dtype = registry.by_name(name)
        except wt.InvalidDTypeError as err:
            raise CLIError(f"bad type string {text!r}: {err}") from None
        shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
        return wt.AbstractValue(
            shape, dtype.numpy if dtype.numpy is not None else dtype, bool(weak)
        )
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = None
    if isinstance(value, bool | int | float | complex):
        return value
    raise CLIError(
        f"bad --arg {text!r}: expected an abstract array such as f32[3], ~f32[] (weak) or "
        "i8[2,3], or a Python number such as 2.0"
    )


def _load(target: str) -> Any:
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise CLIError(f"expected MODULE:FUNC (or path/to/file.py:FUNC), got {target!r}")
    try:
        if module_name.endswith(".py") or "/" in module_name:
            spec = importlib.util.spec_from_file_location("_weaktrace_cli_target", module_name)
            if spec is None or spec.loader is None:
                raise ImportError(module_name)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except (ImportError, FileNotFoundError) as err:
        raise CLIError(f"cannot import {module_name!r}: {err}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise CLIError(f"{module_name!r} has no attribute {attr!r}") from None


def _explain(args: argparse.Namespace) -> None:
    fn = _load(args.target)
    traced_fn = fn if isinstance(fn, wt.TracedFunction) else wt.trace(fn, policy=_policy(args))
    traced = traced_fn.trace(*[parse_arg(a) for a in args.arg])
    print(traced)
    print()
    print(traced.explain())


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m weaktrace",
        description="weaktrace: dtype promotion done right. With no command, runs the demo.",
    )
    sub = p.add_subparsers(dest="command")

    def policy_options(q: argparse.ArgumentParser) -> None:
        q.add_argument("--policy", default="jax", choices=["jax", "numpy", "torch", "max"],
                       help="promotion policy (default: jax)")  # fmt: skip
        q.add_argument("--strict", action="store_true", help="JAX strict promotion")
        q.add_argument("--x64", action="store_true", help="JAX with x64 on (default: off)")

    t = sub.add_parser("table", help="print a binary promotion table")
    policy_options(t)
    t.add_argument("--format", choices=["text", "md", "markdown"], default="text")
    t.add_argument("--doc", action="store_true", help="only the 18 dtypes of JAX's docs")
    t.set_defaults(run=_table)
    lat = sub.add_parser("lattice", help="draw a promotion lattice as a Hasse diagram")
    policy_options(lat)
    lat.add_argument("--out", required=True, help="output file, .svg or .png")
    lat.set_defaults(run=_lattice)
    e = sub.add_parser(
        "explain",
        help="trace MODULE:FUNC and list its implicit promotions",
        description="Example: python -m weaktrace explain mymodule:f --arg f32[3] --arg 2.0",
    )
    e.add_argument("target", help="MODULE:FUNC or path/to/file.py:FUNC")
    e.add_argument("--arg", action="append", default=[],
                   help="f32[3], ~f32[] (weak), i8[2,3], or a number like 2.0")  # fmt: skip
    policy_options(e)
    e.set_defaults(run=_explain)
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
