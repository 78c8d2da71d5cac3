"""The course's documentation site: Sphinx with MyST Markdown pages, the learners' notebooks rendered from
their stored outputs (MyST-NB, never executed), autodoc for course_lib, sphinx-argparse for the two
command lines. Built offline by `python3 course.py docs`, every warning an error: nothing is fetched at build
time (no intersphinx) and no page loads a remote font or script (tests/e2e/test_docs.py checks both)."""

from __future__ import annotations

import ast
import base64
import functools
import importlib.util
import inspect
import json
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # course.py's parser (the course_lib and course_grade packages are installed)

project = "The tool-call boundary"
author = "The course's authors"
copyright = "the course's authors, MIT licence"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinxarg.ext"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
suppress_warnings: list[str] = []

# MyST: `#anchor` links to headings up to level 3; fenced directives only.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# MyST-NB: the learners' notebooks (docs/learners/notebooks links to notebooks/) as they are stored.
nb_execution_mode = "off"
nb_ipywidgets_js: dict[str, dict[str, str]] = {}  # the widgets' scripts come from a CDN: none on the site
nb_merge_streams = True

# autodoc: every public name of course_lib, its docstring as written; values of module data left out.
autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "member-order": "bysource",
    "no-value": True,
    "ignore-module-all": True,  # each name where it is defined, not again where it is re-exported
}
autodoc_typehints = "description"
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = "The tool-call boundary"
html_copy_source = False  # the pages' sources are in the repository; nothing to fetch twice
html_show_sourcelink = False
html_last_updated_fmt = None


def attachments_as_data(app: Sphinx, doctree: nodes.document) -> None:
    """A notebook's markdown attachments (`![...](attachment:loop.svg)`) as data: URIs, which MyST-NB leaves
    as file paths that do not exist."""
    source = Path(app.env.doc2path(app.env.docname))
    if source.suffix != ".ipynb":
        return
    attached = {}
    for cell in json.loads(source.read_text(encoding="utf-8"))["cells"]:
        for name, bundle in cell.get("attachments", {}).items():
            kind, data = next(iter(bundle.items()))
            if kind == "image/svg+xml" and not isinstance(data, str):
                data = "".join(data)
            if kind == "image/svg+xml":
                data = base64.b64encode(data.encode("utf-8")).decode("ascii")
            attached[name] = f"data:{kind};base64,{data}"
    for image in doctree.findall(nodes.image):
        name = image["uri"].rpartition("attachment:")[2]
        if "attachment:" in image["uri"] and name in attached:
            image["uri"] = attached[name]


CODE = re.compile(r"(``.+?``|`[^`]+`)")


def docstring_as_written(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    """course_lib's docstrings are Markdown-like: `name` is code (RST's ``name``), and a `*` outside code is a
    star, not emphasis (`**options` would otherwise open bold text). Data without a doc comment of its own
    shows no docstring, rather than its type's (`dict() -> new empty dictionary`)."""
    if (
        what in ("data", "attribute")
        and "\n".join(lines).strip() == (inspect.getdoc(type(obj)) or "").strip()
    ):
        lines.clear()
    for number, line in enumerate(lines):
        parts = CODE.split(line)
        for index, part in enumerate(parts):
            if index % 2:
                parts[index] = part if part.startswith("``") else f"`{part}`"
            else:
                parts[index] = part.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")
        lines[number] = "".join(parts)


@functools.cache
def assigned_at_top(module: str) -> frozenset[str]:
    """The names a module's own source assigns at its top level (constants, type aliases, type variables)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return frozenset()
    names = set()
    for node in ast.parse(Path(spec.origin).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def undocumented_data(app: Sphinx, docname: str, source: list[str]) -> None:
    """After each `.. automodule::` of the library reference, an `.. autodata::` for each public name the module
    assigns without a doc comment: autodoc's `undoc-members` lists undocumented functions and classes but no
    such data, and the reference lists every public name (tests/e2e/test_docs.py checks it)."""
    if docname != "reference/api":
        return

    def add(match: re.Match[str]) -> str:
        module = match.group(1)
        documented = {name for _, name in ModuleAnalyzer.for_module(module).find_attr_docs()}
        names = sorted(n for n in assigned_at_top(module) - documented if not n.startswith("_"))
        return match.group(0) + "".join(f"\n.. autodata:: {module}.{name}\n   :no-value:\n" for name in names)

    source[0] = re.sub(r"^\.\. automodule:: (\S+)$", add, source[0], flags=re.MULTILINE)


def setup(app: Sphinx) -> None:
    app.connect("source-read", undocumented_data)
    app.connect("doctree-read", attachments_as_data, priority=100)  # before Sphinx collects the images
    app.connect("autodoc-process-docstring", docstring_as_written)


html_favicon = "favicon.svg"  # a page without one asks for /favicon.ico, a 404 in the console
