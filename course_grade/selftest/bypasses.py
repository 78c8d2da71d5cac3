"""The hostile pack's own-work cases: a first exercise answered by the reference through a hidden route.

Each returns the first solution cell's whole source for an assignment whose first graded function has a
reference of the same name in `course_lib`. `course_grade.selftest.hostile` adds one student per route.
"""

from __future__ import annotations

import ast
from pathlib import Path

import course_lib

ROUTES = {
    "own-work-default": ("calls the reference through a default argument", "default"),
    "own-work-closure": ("calls the reference through a closure", "closure"),
    "own-work-import": ("calls the reference through __import__ in its body", "import"),
    "own-work-rebound": ("rebinds assert_own_work to a no-op and calls the reference", "rebound"),
}
"""student -> (what the submission does, which route)."""


def reference_module(function: str) -> str | None:
    """The course_lib module defining a top-level function of that name, found by reading the sources."""
    root = Path(course_lib.__file__).parent
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.FunctionDef) and node.name == function for node in tree.body):
            parts = path.relative_to(root.parent).with_suffix("").parts
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return None


def bypass(route: str, function: str, module: str) -> str:
    """The source of a solution cell that answers `function` with the reference in `module`."""
    call = f"{function}(*args, **kwargs)"
    if route == "default":
        return (
            f"import {module} as _ref\n\n"
            f"def {function}(*args, _impl=_ref.{function}, **kwargs):\n    return _impl(*args, **kwargs)\n"
        )
    if route == "closure":
        return (
            f"import {module} as _ref\n\ndef _wrap(impl):\n    def {function}(*args, **kwargs):\n"
            f"        return impl(*args, **kwargs)\n    return {function}\n\n{function} = _wrap(_ref.{function})\n"
        )
    if route == "import":
        return (
            f"def {function}(*args, **kwargs):\n"
            f"    return getattr(__import__({module!r}, fromlist=['_']), {function!r})(*args, **kwargs)\n"
        )
    return (
        f"import {module} as _ref\nassert_own_work = lambda *args, **kwargs: None\n\n"
        f"def {function}(*args, **kwargs):\n    return _ref.{call}\n"
    )
