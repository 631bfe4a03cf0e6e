"""The documentation site builds with no warnings, its doctests pass, and its generated
pages hold what they promise: every public name, every command's help, the notebooks
with their stored outputs, the comparison table computed from the libraries."""

from __future__ import annotations

import html
import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
import weaktrace_docs  # noqa: E402  (needs no Sphinx: the generators are plain Python)

DOCS_EXTRA = ("sphinx", "myst_nb", "furo", "matplotlib", "torch")
MISSING = [m for m in DOCS_EXTRA if importlib.util.find_spec(m) is None]
needs_docs_extra = pytest.mark.skipif(
    bool(MISSING),
    reason=f"the docs extra is not installed (missing {', '.join(MISSING)}): "
    'pip install -e ".[docs]"',
)


def _sphinx(builder: str, src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WEAKTRACE_REPO": str(ROOT), "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder,
         "-d", str(out / "doctrees"), str(src), str(out / builder)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built once (html, then doctest on the same doctrees) from a copy of docs/,
    so that the build writes nothing into the repository."""
    if MISSING:
        pytest.skip("the docs extra is not installed")
    tmp = tmp_path_factory.mktemp("site")
    src = tmp / "src"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns("_gen", "_build"))
    built = _sphinx("html", src, tmp)
    assert built.returncode == 0, f"html build failed (warnings are errors):\n{built.stderr}"
    tested = _sphinx("doctest", src, tmp)
    assert tested.returncode == 0, f"doctests failed:\n{tested.stdout}\n{tested.stderr}"
    summary = (tmp / "doctest" / "output.txt").read_text()
    return tmp / "html", summary


@needs_docs_extra
def test_site_builds_without_warnings_and_its_doctests_pass(site):
    pages, summary = site
    ran = re.search(r"(\d+) tests\n\s+0 failures in tests", summary)
    assert ran and int(ran.group(1)) >= 20, summary
    for page in ("index", "promotion", "porting", "lint", "cli", "benchmarks",
                 "_gen/api/index", "_gen/notebooks/01_quickstart"):  # fmt: skip
        assert (pages / f"{page}.html").is_file(), page


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', page.read_text()))


@needs_docs_extra
def test_api_reference_documents_every_public_name(site):
    pages, _ = site
    documented: dict[int, str] = {}
    for name, _title in weaktrace_docs.API_MODULES:
        if not weaktrace_docs._exists(name):
            assert not (pages / "_gen" / "api" / f"{name}.html").exists()
            continue
        module = importlib.import_module(name)
        page = pages / "_gen" / "api" / f"{name}.html"
        ids, text = _ids(page), html.unescape(page.read_text())
        for attr in weaktrace_docs._public(module):
            obj = getattr(module, attr)
            if id(obj) in documented or isinstance(obj, type(os)) or weaktrace_docs._foreign(obj):
                assert f"{name}.{attr}" in text, f"{name}.{attr} is not listed"
            else:
                assert f"{name}.{attr}" in ids, f"{name}.{attr} has no entry"
                documented[id(obj)] = f"{name}.{attr}"
    assert "weaktrace.trace" in documented.values()
    assert "weaktrace.numpy.add" in documented.values()


@needs_docs_extra
def test_cli_reference_is_the_programs_help(site, capsys):
    from weaktrace.__main__ import main

    text = html.unescape(re.sub(r"<[^>]+>", "", (site[0] / "cli.html").read_text()))
    for command in ("table", "lattice", "explain", "lint"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        first = capsys.readouterr().out.splitlines()[0].split()[0:3]  # usage: python -m
        assert f"python -m weaktrace {command} --help" in text
        assert " ".join(first) in text
    assert "--dtypes A,B,..." in text and "--traceback" in text


@needs_docs_extra
def test_notebooks_are_rendered_with_their_stored_outputs(site):
    import nbformat

    for nb_path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = (site[0] / "_gen" / "notebooks" / f"{nb_path.stem}.html").read_text()
        nb = nbformat.read(nb_path, as_version=4)
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
        assert outputs, f"{nb_path.name} has no stored outputs"
        for o in outputs:
            if o.output_type == "stream":
                line = next(ln for ln in o.text.splitlines() if ln.strip())
                assert html.escape(line.strip(), quote=False) in page, (nb_path.name, line)
        images = sum("image/png" in o.get("data", {}) for o in outputs)
        assert page.count("<img") >= images


def _html_rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", text, re.S):
        cells = [html.unescape(c) for c in re.findall(r"<td><p>(.*?)</p></td>", tr, re.S)]
        if cells:
            rows[cells[0]] = cells[1:]
    return rows


@needs_docs_extra
def test_porting_table_is_what_the_libraries_give(site):
    import jax
    import jax.numpy as jnp
    import numpy as np
    import torch

    rows = _html_rows((site[0] / "porting.html").read_text())
    assert set(rows) == set(weaktrace_docs.PORTING_ROWS)
    with jax.enable_x64(False):  # the page says: JAX with x64 off
        x = jnp.ones(2, jnp.int8) * 0.5
        assert rows["int8 array * 0.5"][0] == f"{x.dtype} (weak)" if x.weak_type else x.dtype
        x = jnp.ones(2, jnp.int32) / jnp.ones(2, jnp.int32)
        assert rows["int32 array / int32 array"][0] == str(x.dtype)
    assert rows["int32 array / int32 array"][1] == str(
        (np.ones(2, np.int32) / np.ones(2, np.int32)).dtype
    )
    with pytest.raises(OverflowError):
        np.ones(2, np.uint8) + 300
    assert rows["uint8 array + 300"][1] == "error (OverflowError)"
    t = torch.ones(2, dtype=torch.float16) + torch.ones((), dtype=torch.float32)
    assert rows["float16 array + 0-d float32 array"][2] == str(t.dtype).removeprefix("torch.")


def test_api_generator_skips_modules_that_do_not_exist_yet():
    pages = weaktrace_docs.api_pages(
        [
            ("weaktrace.dtypes", "dtypes"),
            ("weaktrace.not_written_yet", "later"),
            ("weaktrace.not_a_package.special", "later"),
        ]
    )
    assert set(pages) == {"weaktrace.dtypes.rst", "index.rst"}
    assert "weaktrace.dtypes\n" in pages["index.rst"] and "not_written" not in pages["index.rst"]
    rst = pages["weaktrace.dtypes.rst"]
    import weaktrace.dtypes

    for attr in weaktrace.dtypes.__all__:
        assert re.search(rf"(^|\s){re.escape(attr)}$|weaktrace\.dtypes\.{attr}\b", rst, re.M), attr


def test_lint_page_matches_whether_lint_exists():
    text = (DOCS / "lint.md").read_text()
    if importlib.util.find_spec("weaktrace.lint") is None:
        assert "not available yet" in text
    else:
        from weaktrace.lint.report import KINDS

        assert "not available yet" not in text
        assert all(f"`{kind}`" in text for kind in KINDS)
        assert "python -m weaktrace lint" in text and "sarif" in text


def test_readme_links_the_docs_and_says_how_to_build_them():
    readme = (ROOT / "README.md").read_text()
    assert "docs/" in readme
    assert 'pip install -e ".[docs]" && python -m sphinx -W -b html docs docs/_build/html' in readme
