"""Command line: ``python -m weaktrace [table | lattice | explain | lint] ...``.

Bare ``python -m weaktrace`` runs the demo. A user mistake never shows a Python
traceback: it ends in one line, ``error: <what went wrong>. <what to do>``, and exit
status 2 (argparse's own usage errors use 2 as well). ``--traceback`` shows the
traceback of an error raised inside the user's function, for debugging it.
"""

from __future__ import annotations

import argparse
import ast
import csv
import importlib
import importlib.util
import inspect
import io
import json
import linecache
import os
import re
import shutil
import sys
import sysconfig
import textwrap
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import weaktrace as wt
from weaktrace.dtypes import DOC_DTYPES, jax_lattice, registry
from weaktrace.dtypes import table as tables
from weaktrace.lint import cli as lint_cli

EXIT_ERROR = 2  # a user mistake: argparse uses 2 for its usage errors too
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


class CLIError(wt.WeaktraceError):
    """A command-line mistake; the message says what went wrong and what to do."""


def _need(module: str, extra: str, purpose: str) -> None:
    """Fail with the extra to install when an optional dependency is missing."""
    try:
        importlib.import_module(module)
    except ImportError:
        raise CLIError(
            f"{purpose} needs {module}, which is not installed. "
            f'Install it with: pip install "weaktrace[{extra}]"'
        ) from None


# ---------------------------------------------------------------------------- demo


def _x64_now() -> bool:
    import jax

    return bool(jax.config.read("jax_enable_x64"))  # its context managers included


def demo() -> None:
    import numpy as np

    import weaktrace.numpy as wnp

    print("JAX's type promotion table with x64 on (jax_enable_x64=True), as weaktrace")
    print("computes it on its lattice. Rows are the first operand; i*, f*, c* are weakly")
    print("typed Python scalars.\n")
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
    mode = "x64 on" if _x64_now() else "x64 off, JAX's default; JAX_ENABLE_X64=1 turns it on"
    print(f"\nTracing follows jax's config, here {mode}.")
    print("A traced function (int8 activations scaled by a Python float):")
    print(wt.trace(layer).trace(x, 0.5))
    print("\nThe same function under JAX, NumPy and PyTorch promotion:")
    print(wt.compare(layer, x, 0.5, policies=["jax", "numpy", "torch"]))
    print("\nMore: python -m weaktrace --help")


def _policy(args: argparse.Namespace) -> wt.Policy:
    name = args.policy or "jax"
    if name != "jax":
        if args.strict or args.x64:
            raise CLIError(
                f"--strict and --x64 are options of the jax policy, not of {name!r}. "
                "Drop them, or use --policy jax"
            )
        return wt.policy(name)
    return wt.policy("jax", strict=bool(args.strict), x64=bool(args.x64))


# --------------------------------------------------------------------------- table

# The default subset keeps the dtypes a reader looks for first. A policy's own dtypes
# (MAX's index, address, tf32; torch's complex32) come right after the first five:
# they are why one looks at that policy. The narrow and float8 types go first.
_FIRST = ("bool", "int32", "float32", "int", "float")
_THEN = (
    "int8", "uint8", "float16", "bfloat16", "int64", "float64", "complex64", "complex",
    "int16", "uint16", "uint32", "uint64", "complex128",
)  # fmt: skip
_JAX_NAMES = frozenset(jax_lattice(x64=True).nodes)


def _rank(d: registry.DType) -> tuple[int, int]:
    if d.name in _FIRST:
        return 0, _FIRST.index(d.name)
    if d.name not in _JAX_NAMES:
        return 1, registry.ALL.index(d)
    if d.name in _THEN:
        return 2, _THEN.index(d.name)
    return 3, registry.ALL.index(d)


def _parse_dtypes(text: str, every: Sequence[registry.DType]) -> list[registry.DType]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise CLIError("--dtypes is empty: give names separated by commas, e.g. bool,i8,f32,f*")
    chosen = []
    for n in names:
        try:
            d = registry.by_name(n)
        except wt.InvalidDTypeError as err:
            raise CLIError(f"bad --dtypes entry {n!r}: {err}") from None
        if d not in every:
            raise CLIError(
                f"--dtypes entry {n!r} is not in this policy's table; it has: "
                f"{','.join(x.short for x in every)}"
            )
        chosen.append(d)
    return chosen


def _text_width(t: tables.PromotionTable) -> int:
    return max(len(line) for line in str(t).splitlines())


def _fit(policy: wt.Policy, every: Sequence[registry.DType], width: int) -> tables.PromotionTable:
    """The widest table whose text fits in `width` columns: every dtype when they fit,
    else the longest prefix of the ranking (shown in the registry's order)."""
    ranked = sorted(every, key=_rank)
    for k in range(len(ranked), 1, -1):
        keep = set(ranked[:k])
        t = tables.table(policy, [d for d in every if d in keep])
        if _text_width(t) <= width:
            return t
    return tables.table(policy, [d for d in every if d in set(ranked[:2])])


def _as_csv(t: tables.PromotionTable) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["", *(d.name for d in t.dtypes)])
    for a in t.dtypes:
        w.writerow([a.name, *(_full(t.cells[a, b]) for b in t.dtypes)])
    return out.getvalue().rstrip("\n")


def _as_json(t: tables.PromotionTable) -> str:
    """``{"policy", "dtypes", "weak", "table": {row: {column: result or null}}}``."""
    rows = {a.name: {b.name: _full(t.cells[a, b]) or None for b in t.dtypes} for a in t.dtypes}
    weak = [d.name for d in t.dtypes if d.weak]
    return json.dumps(
        {"policy": t.name, "dtypes": [d.name for d in t.dtypes], "weak": weak, "table": rows},
        indent=1,
    )


def _full(cell: registry.DType | None) -> str:
    return "" if cell is None else cell.name


def _choose(args: argparse.Namespace, policy: wt.Policy) -> tuple[tables.PromotionTable, str]:
    """The table to print, and a note for stderr when dtypes were left out to fit."""
    every = list(tables.table(policy).dtypes)
    text = args.format == "text"
    if args.width is not None and (not text or args.width < 1):
        raise CLIError("--width N (N >= 1) applies to --format text only")
    if args.dtypes is not None:
        return tables.table(policy, _parse_dtypes(args.dtypes, every)), ""
    if args.doc:
        return tables.table(policy, DOC_DTYPES), ""
    if args.all or not text:
        return tables.table(policy), ""
    width = args.width or shutil.get_terminal_size((100, 24)).columns
    t = _fit(policy, every, width)
    left = [d.short for d in every if d not in t.dtypes]
    if not left:
        return t, ""
    note = (
        f"showing {len(t.dtypes)} of {len(every)} dtypes to fit {width} columns; left out: "
        f"{' '.join(left)}. See all: --all (or --format md|csv|json); choose: --dtypes "
        "bool,i8,f32,f*"
    )
    return t, textwrap.fill(note, max(width, 40), break_on_hyphens=False)


def _table(args: argparse.Namespace) -> None:
    t, note = _choose(args, _policy(args))
    render: dict[str, Callable[[tables.PromotionTable], str]] = {
        "text": str, "md": tables.PromotionTable.to_markdown, "csv": _as_csv, "json": _as_json,
    }  # fmt: skip
    print(render[args.format](t), flush=True)
    if note:  # after the table, so that it is the last thing a reader sees
        print(note, file=sys.stderr)


# ------------------------------------------------------------------------- lattice


def _lattice(args: argparse.Namespace) -> None:
    out = Path(args.out)
    if out.suffix.lower() not in (".svg", ".png"):
        raise CLIError(f"--out must end in .svg or .png, got {args.out!r}")
    if out.is_dir():
        raise CLIError(f"cannot write {args.out!r}: it is a directory. Choose a writable --out")
    if not out.parent.is_dir():
        raise CLIError(
            f"cannot write {args.out!r}: directory {str(out.parent)!r} does not exist. "
            "Create it first, or choose another --out"
        )
    lattice = _policy(args).lattice
    if lattice is None:
        raise CLIError(
            f"policy {args.policy!r} is not a lattice, so it has no Hasse diagram. "
            "Draw --policy jax or --policy max"
        )
    _need("matplotlib", "draw", "drawing a lattice")
    figure = lattice.draw()
    try:
        figure.savefig(out, dpi=110)
    except OSError as err:
        raise CLIError(
            f"cannot write {args.out!r}: {err.strerror or err}. Choose a writable --out"
        ) from None
    print(f"wrote {out} ({len(lattice.nodes)} dtypes)")


# ------------------------------------------------------------------------- explain

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


def _import(module_name: str) -> types.ModuleType:
    """A module by dotted name, or a file by path, found as ``python FILE`` would."""
    if module_name.endswith(".py") or os.sep in module_name or "/" in module_name:
        path = Path(module_name)
        if not path.is_file():
            raise CLIError(f"cannot import {module_name!r}: no such file")
        dotted = _package_name(path)
        if dotted is not None:  # a file of a package: imported as one (relative imports)
            sys.path.insert(0, str(dotted[0]))
            try:
                module = importlib.import_module(dotted[1])
            except ModuleNotFoundError as err:
                if not (err.name and dotted[1].startswith(err.name)):
                    raise
            else:  # not another package of that name, imported before
                if Path(getattr(module, "__file__", "") or "").resolve() == path.resolve():
                    return module
        sys.path.insert(0, str(path.resolve().parent))  # its siblings import, as for a script
        spec = importlib.util.spec_from_file_location("_weaktrace_cli_target", path)
        assert spec is not None and spec.loader is not None, f"no loader for {path}"
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickling look their module up
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:  # the `weaktrace` script
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and module_name.startswith(err.name):
            raise CLIError(
                f"cannot import {module_name!r}: no module named {err.name!r}. Run from the "
                "directory that holds it, or give its path: path/to/file.py:FUNC"
            ) from None
        raise


def _package_name(path: Path) -> tuple[Path, str] | None:
    """For a file inside a package (its directory has an ``__init__.py``): the directory
    above the package's top and the file's dotted module name, as pytest imports a test
    file; None for a plain script."""
    path = path.resolve()
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.append(folder.name)
        folder = folder.parent
    if len(parts) == 1 or not all(p.isidentifier() for p in parts):
        return None
    return folder, ".".join(reversed(parts))


def _load(target: str) -> Any:
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise CLIError(f"expected MODULE:FUNC (or path/to/file.py:FUNC), got {target!r}")
    try:
        module = _import(module_name)
    except CLIError:
        raise
    except Exception as err:  # the user's module raised while it was imported
        raise _user_error(f"importing {module_name!r} failed", err, "the module") from err
    fn = module
    for part in attr.split("."):  # MODULE:Class.method works too
        try:
            fn = getattr(fn, part)
        except AttributeError:
            public = [n for n in dir(module) if callable(getattr(module, n)) and n[0] != "_"]
            raise CLIError(
                f"{module_name!r} has no attribute {attr!r}; its functions: "
                f"{', '.join(public[:20]) or 'none'}"
            ) from None
    if not callable(fn):
        raise CLIError(
            f"{target!r} is an object of type {type(fn).__name__}, not a function; name a function"
        )
    return fn


def _check_arity(target: str, fn: Callable[..., Any], values: list[Any]) -> None:
    """Too few or too many --arg: say what the function takes, before tracing it."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: let the trace say
        return
    keyword_only = [p.name for p in sig.parameters.values()
                    if p.kind is p.KEYWORD_ONLY and p.default is p.empty]  # fmt: skip
    if keyword_only:
        raise CLIError(
            f"{target} has required keyword-only parameters ({', '.join(keyword_only)}), and "
            "--arg passes positional arguments only. Give them defaults, or explain a wrapper "
            "that fills them in"
        )
    try:
        sig.bind(*values)
    except TypeError as err:
        params = [p.name for p in sig.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # fmt: skip
        raise CLIError(
            f"{target} takes ({', '.join(params)}) but got {len(values)} --arg ({err}). "
            "Pass one --arg per positional parameter, e.g. --arg f32[3] --arg 2.0"
        ) from None


def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths["stdlib"], paths["purelib"], paths["platlib"], str(Path(wt.__file__).parent)}
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs)


def _user_frame(err: BaseException) -> types.FrameType | None:
    """The innermost traceback frame in the user's code (not Python's, weaktrace's or a
    library's): the line to point at."""
    libs = _library_dirs()
    found = None
    tb = err.__traceback__
    while tb is not None:
        name = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if not name.startswith(libs) and not tb.tb_frame.f_code.co_filename.startswith("<"):
            found = tb.tb_frame
        tb = tb.tb_next
    return found


def _where(frame: types.FrameType | None) -> str:
    if frame is None:
        return ""
    file, line = frame.f_code.co_filename, frame.f_lineno
    text = linecache.getline(file, line).strip()
    return f" (at {_show_path(file)}:{line} in {frame.f_code.co_name}: {text})"


def _show_path(file: str) -> str:
    """Relative to the working directory when below it, else absolute."""
    rel = os.path.relpath(file)
    return file if rel.startswith("..") else rel


# jax module -> its weaktrace mirror (DESIGN.md section 5)
_MIRRORS = {
    "jax.numpy": "weaktrace.numpy",
    "jax.lax": "weaktrace.lax",
    "jax.nn": "weaktrace.nn",
    "jax.random": "weaktrace.random",
    "jax.scipy.special": "weaktrace.scipy.special",
}


def _jax_names(frame: types.FrameType) -> list[str]:
    """The jax modules that the frame's line uses (``jnp.sin`` -> ``jax.numpy``)."""
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    found = []
    for ident in dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", text)):
        head, *rest = ident.split(".")
        obj = frame.f_locals.get(head, frame.f_globals.get(head))
        module = getattr(obj, "__module__", None)  # a function imported by name
        for part in [*rest, ""]:  # the last module on the dotted path names the API
            if not isinstance(obj, types.ModuleType):
                break
            module, obj = obj.__name__, getattr(obj, part, None)
        if isinstance(module, str) and module.split(".")[0] == "jax":
            found.append(module.replace("jax._src.", "jax."))
    return found


def _mirror_hint(modules: list[str]) -> str:
    for mod in modules:
        for jax_mod, mirror in _MIRRORS.items():
            if mod == jax_mod or mod.startswith(jax_mod + "."):
                if importlib.util.find_spec(mirror) is None:
                    return f"weaktrace has no mirror of {jax_mod} yet; use weaktrace.numpy"
                return f"use weaktrace's mirror: import {mirror} in place of {jax_mod}"
    return "use weaktrace's mirrors (weaktrace.numpy in place of jax.numpy, ...)"


def _user_error(what: str, err: BaseException, fix: str = "the function") -> CLIError:
    """One line for an exception raised in the user's code, pointing at its line."""
    frame = _user_frame(err)
    if isinstance(err, wt.WeaktraceError):
        return CLIError(f"{err}{_where(frame)}")
    if isinstance(err, SyntaxError):
        at = f"{_show_path(err.filename or '?')}:{err.lineno}: {(err.text or '').strip()}"
        return CLIError(f"{what}: SyntaxError: {err.msg} (at {at}). Fix {fix}")
    jax_modules = _jax_names(frame) if frame is not None else []
    if isinstance(err, TypeError | ValueError) and (jax_modules or "weaktrace" in str(err)):
        return CLIError(
            f"{what}: a jax function was given a weaktrace value{_where(frame)}. "
            f"jax cannot trace weaktrace's values; {_mirror_hint(jax_modules)}"
        )
    return CLIError(
        f"{what}: {type(err).__name__}: {err}{_where(frame)}. Fix {fix}, or add "
        "--traceback to see where it failed"
    )


def _explain(args: argparse.Namespace) -> None:
    fn = _load(args.target)
    values = [parse_arg(a) for a in args.arg]
    inner = fn.fun if isinstance(fn, wt.TracedFunction) else fn
    _check_arity(args.target, inner, values)
    if isinstance(fn, wt.TracedFunction) and args.policy is None and not (args.strict or args.x64):
        traced_fn = fn  # its own policy, from the decorator
    else:
        static = fn.static_argnums if isinstance(fn, wt.TracedFunction) else None
        traced_fn = wt.trace(inner, policy=_policy(args), static_argnums=static)
    try:
        traced = traced_fn.trace(*values)
    except Exception as err:
        raise _user_error(f"tracing {args.target} failed", err) from err
    print(traced)
    print()
    print(traced.explain())


# -------------------------------------------------------------------------- parser


def _version() -> str:
    from importlib.metadata import version

    return f"weaktrace {wt.__version__} (jax {version('jax')}, numpy {version('numpy')})"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m weaktrace",
        description="weaktrace: dtype promotion done right. With no command, runs the demo.",
        epilog="Errors print one line, 'error: ...', and exit with status 2.",
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="{table,lattice,explain,lint}")

    def policy_options(q: argparse.ArgumentParser, default: str | None = "jax") -> None:
        q.add_argument("--policy", default=default, choices=["jax", "numpy", "torch", "max"],
                       help="promotion policy (default: jax)")  # fmt: skip
        q.add_argument("--strict", action="store_true", help="JAX strict promotion")
        q.add_argument("--x64", action="store_true", help="JAX with x64 on (default: off)")

    t = sub.add_parser(
        "table",
        help="print a binary promotion table",
        description="Print a binary promotion table: rows are the first operand, '-' marks "
        "pairs that do not promote, i*, f*, c* are weak Python scalars. As text it fits the "
        "terminal: when every dtype does not fit, a subset does, and stderr says which "
        "dtypes were left out.",
    )
    policy_options(t)
    t.add_argument("--format", choices=["text", "md", "markdown", "csv", "json"],
                   default="text", help="text (default), markdown, csv or json")  # fmt: skip
    which = t.add_mutually_exclusive_group()
    which.add_argument("--dtypes", metavar="A,B,...",
                       help="only these dtypes, by name or short name: bool,i8,f32,f*")  # fmt: skip
    which.add_argument("--doc", action="store_true", help="only the 18 dtypes of JAX's docs")
    which.add_argument("--all", action="store_true", help="every dtype, however wide")
    t.add_argument("--width", type=int, metavar="N",
                   help="columns to fit as text (default: the terminal's width)")  # fmt: skip
    t.set_defaults(run=_table)
    lat = sub.add_parser(
        "lattice",
        help="draw a promotion lattice as a Hasse diagram (needs weaktrace[draw])",
        description='Draw a Hasse diagram with matplotlib: pip install "weaktrace[draw]".',
    )
    policy_options(lat)
    lat.add_argument("--out", required=True, help="output file, .svg or .png")
    lat.set_defaults(run=_lattice)
    e = sub.add_parser(
        "explain",
        help="trace MODULE:FUNC and list its implicit promotions",
        description="Trace a function with abstract arguments, print its program and every "
        "implicit promotion. Example: python -m weaktrace explain mymodule:f --arg f32[3] "
        "--arg 2.0",
    )
    e.add_argument("target", help="MODULE:FUNC or path/to/file.py:FUNC")
    e.add_argument("--arg", action="append", default=[],
                   help="one per parameter: f32[3], ~f32[] (weak), i8[2,3], or a number "
                        "like 2.0")  # fmt: skip
    policy_options(e, default=None)
    e.add_argument("--traceback", action="store_true",
                   help="on an error in your function, also show the Python traceback")  # fmt: skip
    e.set_defaults(run=_explain)
    lint_cli.add_parser(sub, _load)  # its exit status: 1 when it finds problems
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "format", None) == "markdown":  # the old spelling still works
        args.format = "md"
    try:
        status = None
        if args.command is None:
            demo()
        else:
            status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except wt.WeaktraceError as err:
        if getattr(args, "traceback", False):
            traceback.print_exception(err.__cause__ or err)
        print(f"error: {err}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # `| head` closed the pipe: stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
