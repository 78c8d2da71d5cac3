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
import sys
import types
from collections.abc import Mapping
from pathlib import Path

import course_lib
from course_lib.checks import Report, own_work_report

_LIBRARY = Path(course_lib.__file__).parent


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


def static_report(name: str, cells: list[str], setup: Mapping[str, object]) -> Report:
    """own_work_report of `name` as the cells define it, with the instructor's setup namespace underneath."""
    bindings: dict[str, object] = {**setup, "__name__": "__main__"}
    definitions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for source in cells:
        try:
            tree = ast.parse(source)
            module = compile(source, "<learner>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
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


def _origin_of(value: object) -> dict[str, str]:
    if isinstance(value, types.ModuleType):
        return {"kind": "module", "module": value.__name__}
    module, name = str(getattr(value, "__module__", "")), str(getattr(value, "__name__", ""))
    return {"kind": "function", "module": module, "name": name}


def _targets(node: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [target.id for target in targets if isinstance(target, ast.Name)]
