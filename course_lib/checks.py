"""Helpers for the notebooks' autograder tests: is this the learner's own function?

A graded exercise asks for a function with the same name and contract as its `course_lib` reference.
Importing the reference (or wrapping it, directly or through a helper) must score nothing, so every
hidden test starts with `assert_own_work(parse_envelope, course_lib.envelope)`.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Iterator
from typing import Any


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every code object nested in it (inner functions, comprehensions, lambdas)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def _comes_from(value: object, module: types.ModuleType) -> bool:
    """True if `value` is `module`, a parent package of it, or a function defined in it (classes are fine)."""
    if isinstance(value, types.ModuleType):
        return value is module or module.__name__.startswith(value.__name__ + ".")
    return isinstance(value, types.FunctionType) and value.__module__ == module.__name__


def _globals_used(fn: types.FunctionType) -> Iterator[tuple[str, object]]:
    """Every global (name, value) `fn` uses, following the notebook's own functions it calls in turn."""
    seen, pending = {fn}, [fn]
    while pending:
        current = pending.pop()
        for code in _code_objects(current.__code__):
            for global_name in code.co_names:
                value = current.__globals__.get(global_name)
                yield global_name, value
                if (
                    isinstance(value, types.FunctionType)
                    and value.__module__ == "__main__"
                    and value not in seen
                ):
                    seen.add(value)
                    pending.append(value)


def assert_own_work(
    fn: Callable[..., Any], reference_module: types.ModuleType, allow: Iterable[str] = ()
) -> None:
    """Fail unless `fn` was written in the notebook without calling the reference module (but for `allow`)."""
    name = getattr(fn, "__name__", repr(fn))
    assert isinstance(fn, types.FunctionType), (
        f"{name} should be a function you define with def in this notebook"
    )
    assert fn.__module__ == "__main__", (
        f"{name} comes from {fn.__module__}: write your own in this notebook instead of importing the reference"
    )
    allowed = [getattr(reference_module, helper) for helper in allow]
    for global_name, value in _globals_used(fn):
        assert any(value is helper for helper in allowed) or not _comes_from(value, reference_module), (
            f"{name} uses {global_name!r} from {reference_module.__name__}: the exercise is to write it yourself"
        )
