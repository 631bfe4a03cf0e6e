"""Pages computed when the site is built, so that they cannot go stale.

- ``api/``: one page per public module, from its ``__all__`` (see `API_MODULES`).
- ``cli.md``: the argparse ``--help`` of every command, and a sample table.
- ``lattice.svg`` and the promotion table of JAX's documentation, from weaktrace.
- ``porting_table.md``: what JAX, NumPy and PyTorch give, computed from each library.
- copies of the notebooks (rendered with their stored outputs) and benchmark results.

Everything is written below ``<docs>/_gen/``; `generate` is called from ``conf.py``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import os
import re
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

# The API reference: (module, title). A module that does not exist yet is skipped, so
# adding one is one line here, and the listed ones appear as soon as they land.
API_MODULES: list[tuple[str, str]] = [
    ("weaktrace", "weaktrace: tracing, promotion, policies, errors"),
    ("weaktrace.numpy", "weaktrace.numpy: the jax.numpy mirror"),
    ("weaktrace.numpy.linalg", "weaktrace.numpy.linalg"),
    ("weaktrace.numpy.fft", "weaktrace.numpy.fft"),
    ("weaktrace.lax", "weaktrace.lax: the jax.lax mirror"),
    ("weaktrace.lax.linalg", "weaktrace.lax.linalg: the jax.lax.linalg mirror"),
    ("weaktrace.nn", "weaktrace.nn: the jax.nn mirror"),
    ("weaktrace.random", "weaktrace.random: the jax.random mirror"),
    ("weaktrace.ops", "weaktrace.ops: the jax.ops mirror"),
    ("weaktrace.scipy.special", "weaktrace.scipy.special: the jax.scipy.special mirror"),
    ("weaktrace.scipy.linalg", "weaktrace.scipy.linalg: the jax.scipy.linalg mirror"),
    ("weaktrace.dtypes", "weaktrace.dtypes: dtypes, lattices, tables"),
    ("weaktrace.dtypes.policies", "weaktrace.dtypes.policies: promotion policies"),
    # weaktrace.lint is both a package and the function weaktrace exports under that
    # name: its names (lint, Finding, LintReport) are documented on the weaktrace page.
]


def generate(gen: Path, root: Path) -> None:
    """Write every generated page below `gen`; `root` is the repository.

    A file is rewritten only when its content changed, and files no longer generated
    are removed, so a second builder on the same doctrees (html, then doctest) reads
    nothing again.
    """
    files: dict[str, str | bytes] = {f"api/{k}": v for k, v in api_pages().items()}
    files["fragments/cli.md"] = cli_reference()
    files.update(lattice_pictures())
    files["fragments/doc_table.md"] = doc_table()
    files["fragments/porting_table.md"] = porting_table()
    results = (root / "benchmarks" / "RESULTS.md").read_text()
    files["fragments/benchmarks.md"] = re.sub(r"\A# .*\n", "", results)  # the page has its title
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        files[f"notebooks/{nb.name}"] = nb.read_bytes()
    for old in gen.rglob("*") if gen.exists() else []:
        if old.is_file() and old.relative_to(gen).as_posix() not in files:
            old.unlink()
    for name, content in files.items():
        path = gen / name
        data = content.encode() if isinstance(content, str) else content
        if not path.exists() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


# ------------------------------------------------------------------------------ API


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package does not exist either
        return False


def _public(module: Any) -> list[str]:
    """``__all__``; for a module without one, what it defines and does not hide."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return sorted(
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__
    )


def _directive(obj: Any) -> str:
    if inspect.isclass(obj):
        return "autoexception" if issubclass(obj, BaseException) else "autoclass"
    if callable(obj):
        return "autofunction"
    return "autodata"


def _heading(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n"


def api_pages(modules: list[tuple[str, str]] | None = None) -> dict[str, str]:
    """One page per module of `API_MODULES` that exists, and an index listing them."""
    home: dict[int, str] = {}  # id(object) -> where it is documented in full
    pages = {}
    for name, title in API_MODULES if modules is None else modules:
        if _exists(name):
            pages[f"{name}.rst"] = _module_page(importlib.import_module(name), title, home)
    toc = "\n".join(f"   {p.removesuffix('.rst')}" for p in pages)
    pages["index.rst"] = (
        _heading("API reference", "=")
        + "\nEvery public name of each module (its ``__all__``), with its signature and "
        "docstring. A name exported by several modules is documented once, where it first "
        "appears below, and linked from the others.\n\n"
        f".. toctree::\n   :maxdepth: 1\n\n{toc}\n"
    )
    return pages


def _module_page(module: Any, title: str, home: dict[int, str]) -> str:
    name = module.__name__
    full, seen = [], []
    for attr in _public(module):
        obj = getattr(module, attr)
        if inspect.ismodule(obj) or id(obj) in home or _foreign(obj):
            seen.append((attr, obj))
        else:
            home[id(obj)] = f"{name}.{attr}"
            full.append((attr, obj))
    parts = [_heading(title, "="), f".. automodule:: {name}\n"]
    if full:
        rows = "\n".join(f"   {a}" for a, _ in full)  # relative to the automodule
        parts.append(f".. rubric:: Summary\n\n.. autosummary::\n   :nosignatures:\n\n{rows}\n")
    if seen:
        parts.append(".. rubric:: Also exported here\n")
        parts += [f"- ``{name}.{a}``: {_link(obj, home)}" for a, obj in seen]
        parts.append("")
    for attr, obj in full:
        parts.append(_entry(name, attr, obj))
    return "\n".join(parts)


def _foreign(obj: Any) -> bool:
    """An object another library defines (``numpy.dtype``, ``numpy.can_cast``, numpy's
    abstract scalar classes), re-exported as jax.numpy re-exports it: linked, since its
    docstring is written in that library's markup."""
    module = getattr(obj, "__module__", None) if callable(obj) else None
    return module is not None and module.split(".")[0] not in ("weaktrace", "builtins")


def _link(obj: Any, home: dict[int, str]) -> str:
    if _foreign(obj) and id(obj) not in home:
        return f"the same object as ``{obj.__module__}.{obj.__name__}``"
    if inspect.ismodule(obj):
        return f"the module :mod:`{obj.__name__}`"
    role = "class" if inspect.isclass(obj) else "func" if callable(obj) else "data"
    return f"the same object as :{role}:`{home[id(obj)]}`"


def _entry(module: str, attr: str, obj: Any) -> str:
    directive = _directive(obj)
    options = {
        "autoclass": ["members", "show-inheritance"],
        "autoexception": ["show-inheritance"],
        "autofunction": [],
        "autodata": ["no-value"] if not isinstance(obj, int | float | str) else [],
    }[directive]
    lines = [f".. {directive}:: {module}.{attr}", *(f"   :{o}:" for o in options)]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ CLI


def cli_reference() -> str:
    """``--help`` of the program and of each command, as argparse prints it."""
    from weaktrace.__main__ import main, parser

    commands = parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    blocks = [("python -m weaktrace --help", _capture(main, ["--help"])[0])]
    blocks += [
        (f"python -m weaktrace {c} --help", _capture(main, [c, "--help"])[0]) for c in commands
    ]
    out, err = _capture(main, ["table", "--width", "80"])
    blocks.append((f"python -m weaktrace table --width 80\n{out}{err}".rstrip(), ""))
    parts = []
    for command, text in blocks:
        title = command.split("\n")[0].replace("python -m weaktrace", "").strip() or "overview"
        parts.append(_heading(f"``{title}``", "-"))
        body = f"$ {command}\n{text}".rstrip()
        parts.append(f"````text\n{body}\n````\n")
    return "\n".join(parts)


def _capture(main: Callable[[list[str]], int], argv: list[str]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "88"  # argparse wraps help to the terminal: fix the width
    try:
        with redirect_stdout(out), redirect_stderr(err), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ promotion page


def lattice_pictures() -> dict[str, bytes]:
    """JAX's lattice (x64 on) twice: on the 18 dtypes of JAX's documentation, which
    reads at page width, and whole, with the narrow ints and floats."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "weaktrace"  # the same SVG every build
    import matplotlib.pyplot as plt

    from weaktrace.dtypes import DOC_DTYPES, Lattice, jax_lattice

    full = jax_lattice(x64=True)
    # The order induced on the documented dtypes: their joins are documented dtypes too,
    # so it is a lattice; Lattice closes the edges and draws only the covers.
    doc = Lattice(
        {a: [b for b in DOC_DTYPES if b != a and full.leq(a, b)] for a in DOC_DTYPES},
        name="JAX's lattice (x64 on), documented dtypes",
    )
    assert doc.check().ok, doc.check()
    pictures = {}
    for lattice, name, title, size in [
        (doc, "jax_lattice.svg", None, (5.5, 9.0)),
        (
            full,
            "jax_lattice_full.svg",
            f"JAX's lattice (x64 on): all {len(full.nodes)} dtypes",
            None,
        ),
    ]:
        fig = lattice.draw(title=title, figsize=size)
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
        pictures[name] = buf.getvalue()
    return pictures


def doc_table() -> str:
    import weaktrace as wt
    from weaktrace.dtypes import DOC_DTYPES

    return wt.promotion_table(wt.policy("jax", x64=True), dtypes=DOC_DTYPES, format="md") + "\n"


# -------------------------------------------------------------------- porting page

# Each row is one expression written once against an array module `m` (jax.numpy,
# numpy, torch or weaktrace.numpy inside a trace); the cell is the dtype it gives.
PORTING_ROWS: dict[str, Callable[[Any], Any]] = {
    "int8 array * 0.5": lambda m: m.ones(2, "int8") * 0.5,
    "int32 array / int32 array": lambda m: m.ones(2, "int32") / m.ones(2, "int32"),
    "uint8 array + 300": lambda m: m.ones(2, "uint8") + 300,
    "int32 array + float16 array": lambda m: m.ones(2, "int32") + m.ones(2, "float16"),
    "int32 array + uint32 array": lambda m: m.ones(2, "int32") + m.ones(2, "uint32"),
    "int64 array + uint64 array": lambda m: m.ones(2, "int64") + m.ones(2, "uint64"),
    "bfloat16 array + float16 array": lambda m: m.ones(2, "bfloat16") + m.ones(2, "float16"),
    "float16 array + 0-d float32 array": lambda m: m.ones(2, "float16") + m.ones((), "float32"),
    "int8 array + 0-d int64 array": lambda m: m.ones(2, "int8") + m.ones((), "int64"),
    "float32 array + Python complex": lambda m: m.ones(2, "float32") + 1j,
    "bool array + Python int": lambda m: m.ones(2, "bool") + 3,
    "bool array + bool array": lambda m: m.ones(2, "bool") + m.ones(2, "bool"),
    "sum of an int8 array": lambda m: m.ones(2, "int8").sum(),
}


class _Lib:
    """One array module behind the same ``ones(shape, dtype_name)``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def ones(self, shape: Any, dtype: str) -> Any:
        if self.name == "torch":
            import torch

            return torch.ones(shape, dtype=getattr(torch, dtype))
        if self.name == "weaktrace":
            import weaktrace.numpy as wnp

            return wnp.ones(shape, dtype=_np_dtype(dtype))
        module = importlib.import_module("jax.numpy" if self.name == "jax" else "numpy")
        return module.ones(shape, dtype=_np_dtype(dtype))


def _np_dtype(name: str) -> Any:
    import jax.numpy as jnp

    return jnp.dtype(name)  # knows bfloat16, numpy's own names otherwise


def _describe(value: Any) -> str:
    name = str(value.dtype).replace("torch.", "")
    return name + (" (weak)" if getattr(value, "weak_type", False) else "")


def _library_cell(lib: str, fn: Callable[[Any], Any]) -> str:
    import jax

    with warnings.catch_warnings(), jax.enable_x64(False):
        warnings.simplefilter("ignore")
        try:
            return _describe(fn(_Lib(lib)))
        except Exception as err:  # the table shows which error the library raises
            return f"error ({type(err).__name__})"


def _policy_cell(policy: str, fn: Callable[[Any], Any]) -> str:
    import jax

    import weaktrace as wt

    with warnings.catch_warnings(), jax.enable_x64(False):
        warnings.simplefilter("ignore")
        try:
            aval = wt.trace(lambda: fn(_Lib("weaktrace")), policy=policy).trace().out_avals
        except (wt.WeaktraceError, OverflowError) as err:
            return "error" if not isinstance(err, OverflowError) else "error (OverflowError)"
    return str(aval.dtype) + (" (weak)" if aval.weak_type else "")


def porting_table() -> str:
    """The libraries' answers, and where weaktrace's policy for each disagrees."""
    import jax
    import numpy as np
    import torch

    header = (
        f"| operation | JAX {jax.__version__} (x64 off) | NumPy {np.__version__} | "
        f"PyTorch {torch.__version__.split('+')[0]} |\n|---|---|---|---|"
    )
    rows, disagreements = [], []
    for text, fn in PORTING_ROWS.items():
        cells = [_library_cell(lib, fn) for lib in ("jax", "numpy", "torch")]
        rows.append(f"| {text} | " + " | ".join(cells) + " |")
        for policy, expected in zip(("jax", "numpy", "torch"), cells, strict=True):
            ours = _policy_cell(policy, fn)
            if not _same(ours, expected):
                disagreements.append(f"- {text}: `policy({policy!r})` gives {ours}")
    verdict = (
        '`weaktrace.policy("jax" | "numpy" | "torch")` gives the library\'s answer in '
        "every cell (checked when this page was built)."
        if not disagreements
        else "Where weaktrace's policies differ from the library (found when this page was "
        "built):\n\n" + "\n".join(disagreements)
    )
    return f"{header}\n" + "\n".join(rows) + f"\n\n{verdict}\n"


def _same(ours: str, theirs: str) -> bool:
    """torch's errors are RuntimeErrors; our policies raise their own named errors."""
    if theirs.startswith("error"):
        return ours.startswith("error")
    return ours == theirs
