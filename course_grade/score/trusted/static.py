"""The own-work check read from the learner's source on the trusted side, where nothing can forge it.

The learner's process describes its function at run time (`course_lib.checks.own_work_report`), but that
process is the learner's: its description could be forged. This module builds the same report from the
submitted cells alone: each top-level `def` is compiled here (never called) into a function whose globals
are what the cells bind, by name, in order: the instructor's setup namespace, imports as placeholders
naming their modules, and assignments or classes that mention the reference as that reference. A graded
name whose last top-level binding is not a `def` is not the learner's own function.
"""

from __future__ import annotations

import ast
import functools
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import course_lib
from course_lib.checks import Report, own_work_report

_LIBRARY = Path(course_lib.__file__).parent


@functools.lru_cache(maxsize=1024)
def parsed(source: str) -> tuple[ast.Module, types.CodeType] | None:
    """A learner's cell parsed and compiled (never run), or None if it does not compile; cached by its text."""
    try:
        return ast.parse(source), compile(source, "<learner>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None


def _stand_in_function(module: str, name: str) -> types.FunctionType:
    """A function object that only says where it comes from."""
    function = types.FunctionType((lambda: None).__code__, {}, name)
    function.__module__ = module
    return function


def _is_library_module(dotted: str) -> bool:
    """True if `dotted` names a module or package of course_lib (read from the files, nothing imported)."""
    parts = dotted.split(".")
    if parts[0] != "course_lib":
        return False
    path = _LIBRARY.joinpath(*parts[1:])
    return len(parts) == 1 or path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _from_library(value: object) -> bool:
    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] == "course_lib"
    return isinstance(value, types.FunctionType) and str(value.__module__).startswith("course_lib")


def _bind_import(node: ast.Import | ast.ImportFrom, bindings: dict[str, object]) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                bindings[alias.asname] = types.ModuleType(alias.name)
            else:
                bindings[alias.name.split(".")[0]] = types.ModuleType(alias.name.split(".")[0])
        return
    module = node.module or ""
    for alias in node.names:
        bound = alias.asname or alias.name
        if node.level or not module.startswith("course_lib"):
            bindings[bound] = object()
        elif _is_library_module(f"{module}.{alias.name}"):
            bindings[bound] = types.ModuleType(f"{module}.{alias.name}")
        elif module in sys.modules and hasattr(sys.modules[module], alias.name):
            bindings[bound] = getattr(
                sys.modules[module], alias.name
            )  # loaded here already: what it really is
        else:
            bindings[bound] = _stand_in_function(module, alias.name)


def _suspect(tree: ast.AST, bindings: Mapping[str, object]) -> object:
    """The first library module or function the code mentions by name, else a neutral object."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and _from_library(bindings.get(node.id)):
            return bindings[node.id]
    return object()


@dataclass
class _Bindings:
    """What the cells bind at the top level, in order, as the trusted side reads them (nothing run)."""

    names: dict[str, object]
    definitions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: dict[str, tuple[ast.ClassDef, types.CodeType | None]] = field(default_factory=dict)
    """class name -> its last top-level `class` statement and the code of its body."""


@dataclass(frozen=True)
class ShadowClass:
    """A notebook class read from the source: its library bases (by module) and its methods, compiled, never run."""

    library_bases: tuple[tuple[str, str], ...]
    """(module, name) of each base that comes from course_lib."""
    methods: dict[str, types.FunctionType]


def static_class(name: str, cells: list[str], setup: Mapping[str, object]) -> ShadowClass | None:
    """The class `name` as the cells last define it with `class`, or None if its last binding is something else."""
    bound = _bind_cells(cells, setup)
    if name not in bound.classes:
        return None
    node, body = bound.classes[name]
    bases = []
    for base in node.bases:
        found = bound.names.get(base.id) if isinstance(base, ast.Name) else None
        if isinstance(found, type) and str(found.__module__).startswith("course_lib"):
            bases.append((str(found.__module__), found.__name__))
        elif _from_library(used := _suspect(base, bound.names)):
            bases.append((str(getattr(used, "__name__", "course_lib")), ast.unparse(base)[:100]))
    methods: dict[str, types.FunctionType] = {}
    codes = [c for c in (body.co_consts if body is not None else ()) if isinstance(c, types.CodeType)]
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([item.lineno, *(d.lineno for d in item.decorator_list)])
            code = next((c for c in codes if (c.co_name, c.co_firstlineno) == (item.name, first)), None)
            if code is not None:  # super() makes a __class__ cell: empty here, the method is never run
                empty = tuple(types.CellType() for _ in code.co_freevars)
                methods[item.name] = types.FunctionType(code, bound.names, item.name, None, empty)
    return ShadowClass(tuple(bases), methods)


def static_report(name: str, cells: list[str], setup: Mapping[str, object]) -> Report:
    """own_work_report of `name` as the cells define it, with the instructor's setup namespace underneath."""
    bound = _bind_cells(cells, setup)
    bindings, definitions = bound.names, bound.definitions
    function = bindings.get(name)
    if name not in definitions or not isinstance(function, types.FunctionType):
        return {"name": name, "function": False, "uses": []}
    report = own_work_report(function)
    arguments = definitions[name].args
    for default in [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]:
        used = _suspect(default, bindings)
        if _from_library(used):
            report["uses"].append(["default", name, _origin_of(used)])
    return report


def _bind_cells(cells: list[str], setup: Mapping[str, object]) -> _Bindings:
    """Walk the cells' top-level statements in order, binding names as `static_report` describes."""
    bindings: dict[str, object] = {**setup, "__name__": "__main__"}
    bound = _Bindings(bindings)
    definitions = bound.definitions
    for source in cells:
        found = parsed(source)
        if found is None:
            continue
        tree, module = found
        codes = [c for c in module.co_consts if isinstance(c, types.CodeType)]
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                _bind_import(node, bindings)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                code = next((c for c in codes if (c.co_name, c.co_firstlineno) == (node.name, first)), None)
                decorated = any(_from_library(_suspect(d, bindings)) for d in node.decorator_list)
                if code is None or decorated:
                    bindings[node.name] = _suspect(node, bindings)
                    continue
                bindings[node.name] = types.FunctionType(code, bindings, node.name)
                definitions[node.name] = node
            elif isinstance(node, ast.ClassDef | ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = [node.name] if isinstance(node, ast.ClassDef) else _targets(node)
                for target in targets:
                    bindings[target] = _suspect(node, bindings)
                    definitions.pop(target, None)
                    bound.classes.pop(target, None)
                if isinstance(node, ast.ClassDef):
                    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                    body = next(
                        (c for c in codes if (c.co_name, c.co_firstlineno) == (node.name, first)), None
                    )
                    bound.classes[node.name] = (node, body)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Import | ast.ImportFrom):
                for target in _bound_by(node):
                    bound.classes.pop(target, None)
    return bound


def _bound_by(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.name]
    return [(alias.asname or alias.name).split(".")[0] for alias in node.names]


def _origin_of(value: object) -> dict[str, str]:
    if isinstance(value, types.ModuleType):
        return {"kind": "module", "module": value.__name__}
    module, name = str(getattr(value, "__module__", "")), str(getattr(value, "__name__", ""))
    return {"kind": "function", "module": module, "name": name}


def _targets(node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [target.id for target in targets if isinstance(target, ast.Name)]
