"""Notebook 06's calculator without its key: the limits `safe_arithmetic`'s contract states, and the
reference's answers as the course publishes them.

The reference (`course_lib.arithmetic`, 06's key) stays out of the learners' edition until its key is
published, so what notebook 06 shows of it before Part A comes from here: `recorded_arithmetic` answers each
expression of the published fixture `arithmetic_cases` as the reference does, with the recorded value or a
`ToolError` carrying the text the reference's message contains (tests/course_lib/test_calculator.py keeps the record
equal to the reference). It knows no other expression.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from course_lib.errors import ToolError
from course_lib.fixtures import load_fixture

__all__ = ["MAX_EXPRESSION_CHARS", "MAX_MAGNITUDE", "recorded_arithmetic"]

MAX_EXPRESSION_CHARS = 100
"""The longest expression accepted; this also bounds how deeply it can nest."""

MAX_MAGNITUDE = 1e300
"""The largest absolute value a literal or an intermediate result may have."""


@functools.cache
def _record() -> tuple[Mapping[str, int | float], Mapping[str, str]]:
    """The recorded values of the allowed expressions, and the text each refused one's message contains."""
    cases = load_fixture("arithmetic_cases")
    values = {case["expression"]: case["value"] for case in cases["allowed"]}
    refusals = {case["expression"]: case["match"] for case in cases["refused"]}
    return MappingProxyType(values), MappingProxyType(refusals)


def recorded_arithmetic(expression: str) -> int | float:
    """The reference's recorded answer: the value of `expression`, or a ToolError with its documented text."""
    values, refusals = _record()
    if type(expression) is str and expression in values:
        return values[expression]
    if type(expression) is str and expression in refusals:
        raise ToolError(refusals[expression])
    raise ToolError(
        f"no recorded answer for {expression!r:.60}: the record holds only arithmetic_cases' expressions"
    )
