"""Sphinx configuration: autodoc for the API, myst-nb for pages and notebooks.

Build the site (the docs extra installs what it needs):

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The notebooks are rendered with the outputs committed with them; they are not run
here (tests/test_notebooks.py runs them). Pages under _gen/ are computed at build time
by _ext/weaktrace_docs.py.
"""

from __future__ import annotations

import operator
import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("WEAKTRACE_REPO", DOCS.parent))  # set when docs/ is copied
sys.path.insert(0, str(DOCS / "_ext"))

import weaktrace_docs  # noqa: E402

import weaktrace  # noqa: E402

weaktrace_docs.generate(DOCS / "_gen", ROOT)

project = "weaktrace"
author = "the weaktrace authors"
copyright = "the weaktrace authors, Apache-2.0"
release = version = weaktrace.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.napoleon",
    "myst_nb",
]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "_gen/fragments", "**.ipynb_checkpoints", "_ext"]
root_doc = "index"

# Notebooks: show what was committed; never execute at build time.
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: signatures as written, members in source order, no generated stubs.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autosummary_generate = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Doctests: the examples in the pages' {doctest} blocks. Docstring examples are run by
# tests/test_docs.py with their module's globals, which this builder does not have.
doctest_test_doctest_blocks = ""
doctest_global_setup = """
import jax
jax.config.update("jax_enable_x64", False)
"""

html_theme = "furo"
html_title = f"weaktrace {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
pygments_style = "friendly"


# Docstrings Python writes for us say nothing to a reader: NamedTuple fields ("Alias
# for field number 0"), itemgetter properties. The field names and types still show.
_GENERATED = re.compile(r"Alias for field number \d+")


def _drop_generated_docstrings(app, what, name, obj, options, lines):
    text = "\n".join(lines).strip()
    if _GENERATED.fullmatch(text) or text == (operator.itemgetter.__doc__ or "").strip():
        lines.clear()


def _drop_object_base(app, name, obj, options, bases):
    bases[:] = [b for b in bases if b is not object]


def _readable_defaults(app, what, name, obj, options, signature, return_annotation):
    # A dataclass field(default_factory=...) shows as <factory>, which is not Python:
    # Sphinx then prints the whole signature raw, qualified names and all.
    if signature and "<factory>" in signature:
        signature = signature.replace("<factory>", "...")
    return signature, return_annotation


def setup(app):
    app.connect("autodoc-process-signature", _readable_defaults)
    app.connect("autodoc-process-docstring", _drop_generated_docstrings)
    app.connect("autodoc-process-bases", _drop_object_base)
