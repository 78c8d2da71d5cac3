"""Helpers for the notebooks' autograder tests: is this the learner's own function?

A graded exercise asks for a function with the same name and contract as its `course_lib` reference.
Importing the reference (or wrapping it) must score nothing, so every hidden test starts with
`assert_own_work(parse_envelope, course_lib.envelope)`.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from typing import Any


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every code object nested in it (inner functions, comprehensions, lambdas)."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_objects(constant)


def _comes_from(value: object, module: types.ModuleType) -> bool:
    """True if `value` is `module`, a parent package of it, or something defined in it."""
    if isinstance(value, types.ModuleType):
        return value is module or module.__name__.startswith(value.__name__ + ".")
    return getattr(value, "__module__", None) == module.__name__


def assert_own_work(fn: Callable[..., Any], reference_module: types.ModuleType) -> None:
    """Fail with a clear message unless `fn` was written in the notebook without calling the reference module."""
    name = getattr(fn, "__name__", repr(fn))
    assert isinstance(fn, types.FunctionType), (
        f"{name} should be a function you define with def in this notebook"
    )
    assert fn.__module__ == "__main__", (
        f"{name} comes from {fn.__module__}: write your own in this notebook instead of importing the reference"
    )
    used = {name for code in _code_objects(fn.__code__) for name in code.co_names}
    for global_name in sorted(used):
        value = fn.__globals__.get(global_name)
        assert value is None or not _comes_from(value, reference_module), (
            f"{name} uses {global_name!r} from {reference_module.__name__}: the exercise is to write it yourself"
        )
