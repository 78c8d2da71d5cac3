"""Helpers for the notebooks' autograder tests: is this the learner's own function?

A graded exercise asks for a function with the same name and contract as its `course_lib` reference.
Importing the reference (or wrapping it, directly or through a helper) must score nothing, so every
hidden test starts with `assert_own_work(parse_envelope, course_lib.envelope)`.

The check has two halves that can run in different processes: `own_work_report` looks at the function
(its globals, default arguments, closure cells and the notebook functions and classes it reaches) and
describes what it uses as plain data; `judge_own_work` reads such a report and fails on any use of the
reference module. The grader runs the first half in the learner's process and the second in its own.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any

Report = dict[str, Any]
"""What `own_work_report` returns: JSON-able data (str keys, lists, str and bool values)."""

DYNAMIC = frozenset(
    {"__import__", "import_module", "importlib", "globals", "vars", "eval", "exec", "modules"}
)
"""Names through which a function can reach any module at run time: a graded function uses none of them."""

_MOST = 2_000
"""The most uses a report lists (a function that reaches more is refused as too tangled to check)."""


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every code object nested in it (inner functions, comprehensions, lambdas)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def _unwrapped(value: object) -> object:
    """What a partial, a bound method, a static or class method, or a decorated function wraps."""
    for _ in range(20):
        if isinstance(value, functools.partial):
            value = value.func
        elif isinstance(value, types.MethodType | staticmethod | classmethod):
            value = value.__func__
        elif isinstance(value, types.FunctionType) and callable(getattr(value, "__wrapped__", None)):
            value = value.__wrapped__  # type: ignore[attr-defined]
        else:
            return value
    return value


def _origin(value: object) -> dict[str, Any]:
    """Where a value comes from, as data: a module, a function of a module, a class, or something else."""
    value = _unwrapped(value)
    if isinstance(value, types.ModuleType):
        return {"kind": "module", "module": value.__name__}
    if isinstance(value, types.FunctionType | types.BuiltinFunctionType):
        return {"kind": "function", "module": str(value.__module__), "name": value.__name__}
    if isinstance(value, type):
        return {"kind": "class", "module": str(value.__module__), "name": value.__name__}
    return {"kind": "other", "module": str(getattr(type(value), "__module__", ""))}


def _contained(value: object) -> list[object]:
    """A value, and the items of a tuple, list, set or dict it is (one level down: default arguments)."""
    if isinstance(value, tuple | list | set | frozenset):
        return [value, *value]
    if isinstance(value, dict):
        return [value, *value.values()]
    return [value]


def own_work_report(fn: object) -> Report:
    """What `fn` uses, as data: its globals, defaults, closure cells, dynamic lookups and string constants."""
    name = str(getattr(fn, "__name__", type(fn).__name__))
    fn = _unwrapped(fn) if isinstance(fn, functools.partial) else fn
    report: Report = {"name": name, "function": isinstance(fn, types.FunctionType), "uses": []}
    if not isinstance(fn, types.FunctionType):
        report["module"] = str(getattr(fn, "__module__", ""))
        return report
    report["module"] = str(fn.__module__)
    uses: list[Any] = report["uses"]
    seen: set[int] = {id(fn)}
    pending: list[types.FunctionType] = [fn]

    def use(where: str, label: str, value: object) -> None:
        if len(uses) >= _MOST:
            return
        uses.append([where, label, _origin(value)])
        value = _unwrapped(value)
        if isinstance(value, types.FunctionType) and value.__module__ == "__main__" and id(value) not in seen:
            seen.add(id(value))
            pending.append(value)
        elif isinstance(value, type) and value.__module__ == "__main__" and id(value) not in seen:
            seen.add(id(value))  # a notebook class: everything in its namespace counts
            for attribute, member in vars(value).items():
                use("class", f"{value.__name__}.{attribute}", member)

    while pending and len(uses) < _MOST:
        current = pending.pop()
        for code in _code_objects(current.__code__):
            for global_name in code.co_names:
                if global_name in DYNAMIC:
                    uses.append(["dynamic", global_name, {"kind": "dynamic"}])
                if global_name in current.__globals__:
                    use("global", global_name, current.__globals__[global_name])
            for constant in code.co_consts:
                if isinstance(constant, str) and "course_lib" in constant and constant != current.__doc__:
                    uses.append(["string", constant[:80], {"kind": "string"}])
        for value in current.__defaults__ or ():
            for item in _contained(value):
                use("default", current.__name__, item)
        for value in (current.__kwdefaults__ or {}).values():
            for item in _contained(value):
                use("default", current.__name__, item)
        for cell in current.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            for item in _contained(contents):
                use("closure", current.__name__, item)
    report["complete"] = len(uses) < _MOST
    return report


def _from(origin: Any, module: str) -> bool:
    """True if the origin is the module, a parent package of it, or a function defined in it (classes are fine)."""
    if type(origin) is not dict:
        return True
    found = str(origin.get("module", ""))
    if origin.get("kind") == "module":
        return found == module or module.startswith(found + ".")
    return origin.get("kind") == "function" and found == module


def judge_own_work(report: Report, module: str, allow: Iterable[str] = ()) -> None:
    """Fail unless the report describes a notebook function that does not use `module` (but for `allow`)."""
    name = str(report.get("name", "the function"))
    assert "error" not in report, f"{name} could not be inspected: {report.get('error')}"
    assert report.get("function") is True, f"{name} should be a function you define with def in this notebook"
    assert report.get("module") == "__main__", (
        f"{name} comes from {report.get('module')}: write your own in this notebook instead of importing the reference"
    )
    assert report.get("complete", True) is True, f"{name} reaches too many names to check"
    allowed = set(allow)
    for where, label, origin in report.get("uses") or []:
        if where == "dynamic":
            raise AssertionError(
                f"{name} uses {label!r}: a graded function imports and looks up nothing at run time"
            )
        if where == "string":
            raise AssertionError(f"{name} names {label!r}: the exercise is to write it yourself")
        if not _from(origin, module):
            continue
        if origin.get("kind") == "function" and origin.get("name") in allowed:
            continue
        how = {"default": "a default argument of", "closure": "a closure variable of", "class": "the class"}
        detail = f"{how[where]} {label}" if where in how else repr(label)
        raise AssertionError(f"{name} uses {detail} from {module}: the exercise is to write it yourself")


def assert_own_work(
    fn: Callable[..., Any], reference_module: types.ModuleType, allow: Iterable[str] = ()
) -> None:
    """Fail unless `fn` was written in the notebook without calling the reference module (but for `allow`)."""
    allowed = [getattr(reference_module, helper).__name__ for helper in allow]
    judge_own_work(own_work_report(fn), reference_module.__name__, allowed)
