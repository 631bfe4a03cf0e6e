"""``python -m weaktrace lint MODULE:FUNC --arg f32[3] --arg 2.0``: lint from the shell.

Exit status: 1 when there are findings, 0 when the function is clean, 2 on a usage
error (one ``error: ...`` line, never a traceback).
"""

from __future__ import annotations

import argparse
import ast
import re
import traceback
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax._src import source_info_util

from weaktrace.dtypes import registry
from weaktrace.errors import WeaktraceError
from weaktrace.lint.importer import _PACKAGE_DIR
from weaktrace.lint.report import KINDS
from weaktrace.lint.run import lint

EXIT_FINDINGS = 1

_TYPE = re.compile(r"^(~?)([a-z][a-z0-9_]*)\[([0-9,\s]*)\]$")


class LintUsageError(WeaktraceError):
    """A mistake on the lint command line (exit status 2)."""


def parse_arg(text: str) -> Any:
    """``f32[3]``, ``i8[2,3]``, ``bf16[]`` (``~f32[]`` weak) as a jax.ShapeDtypeStruct,
    or a Python literal: ``2.0``, ``3``, ``True``; a string, tuple or None (``'sum'``,
    ``(2, 3)``) for the static arguments of a function jitted with static_argnums.

    >>> parse_arg("i8[2,3]")
    ShapeDtypeStruct(shape=(2, 3), dtype=int8)
    >>> parse_arg("True"), parse_arg("2.0"), parse_arg("'sum'")
    (True, 2.0, 'sum')
    """
    m = _TYPE.match(text.strip())
    if m:
        weak, name, dims = m.groups()
        try:
            dtype = registry.by_name(name)
        except WeaktraceError as err:
            raise LintUsageError(f"bad --arg {text!r}: {err}") from None
        if dtype.numpy is None:
            raise LintUsageError(f"bad --arg {text!r}: jax has no dtype {name!r}")
        shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
        return jax.ShapeDtypeStruct(shape, np.dtype(dtype.numpy), weak_type=bool(weak))
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = None
    if isinstance(value, bool | int | float | complex | str | tuple) or value is None:
        return value
    raise LintUsageError(
        f"bad --arg {text!r}: expected an array type such as f32[3], i8[2,3], bf16[] "
        "(~f32[] is weak) or a Python literal such as 2.0, 3, True, or 'sum' (quoted) for a "
        "static argument"
    )


def _user_error(target: str, err: BaseException) -> LintUsageError:
    """One line for an exception raised while jax traced the user's function: what, and
    the innermost line of the user's code it came from."""
    where = ""
    for fr in reversed(traceback.extract_tb(err.__traceback__)):
        if source_info_util.is_user_filename(fr.filename) and not fr.filename.startswith(
            _PACKAGE_DIR
        ):
            where = f" (at {fr.filename}:{fr.lineno} in {fr.name}: {(fr.line or '').strip()})"
            break
    first = (str(err).strip().splitlines() or [""])[0]
    return LintUsageError(
        f"linting {target} failed: {type(err).__name__}: {first}{where}. Check the --arg "
        "types against what the function expects, or add --traceback"
    )


def add_parser(sub: Any, load: Callable[[str], Any]) -> None:
    """Register the ``lint`` command (`load` resolves MODULE:FUNC)."""
    p = sub.add_parser(
        "lint",
        help="find dtype problems in unmodified JAX code (exit 1 when found)",
        description="Trace MODULE:FUNC with jax and report implicit promotions, x64 "
        "truncation, weak flips of state, loop-carry and branch changes and wrapping int "
        "literals, each at its file and line. Exit status: 1 when there are findings, 0 "
        "when clean, 2 on usage errors. Kinds: " + ", ".join(KINDS) + ".",
        epilog="Example: python -m weaktrace lint mymodule:step --arg f32[3] --arg 2.0 "
        "--state-argnums 0 --format sarif > lint.sarif",
    )
    p.add_argument("target", help="MODULE:FUNC or path/to/file.py:FUNC")
    p.add_argument("--arg", action="append", default=[],
                   help="one per positional parameter: f32[3], i8[2,3], bf16[], ~f32[] "
                        "(weak), or a Python literal such as 2.0, 3, True; a static "
                        "argument of a jitted function may be a quoted string, a tuple or "
                        "None")  # fmt: skip
    p.add_argument("--state-argnums", default="", metavar="I,J,...",
                   help="arguments that are state fed back into the next call "
                        "(checked for weak flips)")  # fmt: skip
    p.add_argument("--format", choices=["text", "json", "sarif"], default="text",
                   help="text (file:line: kind: message; default), json or sarif")  # fmt: skip
    p.add_argument("--traceback", action="store_true",
                   help="on an error in your function, also show the Python traceback")  # fmt: skip

    def run(args: argparse.Namespace) -> int:
        fn = load(args.target)
        values = [parse_arg(a) for a in args.arg]
        try:
            argnums = tuple(int(s) for s in args.state_argnums.split(",") if s.strip())
        except ValueError:
            raise LintUsageError(
                f"bad --state-argnums {args.state_argnums!r}: expected integers such as 0 or 0,1"
            ) from None
        bad = [i for i in argnums if not 0 <= i < len(values)]
        if bad:
            raise LintUsageError(
                f"--state-argnums {bad[0]} names no argument: {len(values)} --arg given"
            )
        try:
            report = lint(fn, *values, state_argnums=argnums)
        except Exception as err:
            raise _user_error(args.target, err) from err
        if args.format == "json":
            print(report.to_json())
        elif args.format == "sarif":
            print(report.to_sarif())
        elif report:
            print(report)
        return EXIT_FINDINGS if report else 0

    p.set_defaults(run=run)
