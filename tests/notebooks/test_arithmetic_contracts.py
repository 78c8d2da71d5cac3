"""Notebook 06's instructor safe_arithmetic (Part A) against course_lib.arithmetic, over generated expressions.

The expressions are built from the pieces every rule of Part A decides on: int and float literals (zero, huge,
past the limit), bools, strings, complex numbers and None as constants, the four allowed operators and the
refused ones (binary and unary), names, calls, brackets (some unbalanced), surrounding spaces, lengths on both
sides of the limit; and values that are not strings at all (a `str` subclass among them). Both functions must
return the same value of the same type, or raise ToolError with the same message (for a long expression: starting
with the same words).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib import arithmetic
from course_lib.errors import ToolError
from tests.support.instructor_solutions import instructor_solution

LITERALS = [
    "0",
    "1",
    "2",
    "7",
    "0.5",
    "0.0",
    "1e200",
    "1e300",
    "1e301",
    "1e999",
    "True",
    "'a'",
    "2j",
    "None",
    "x",
]
BINARY = [
    " + ",
    " - ",
    " * ",
    " / ",
    "+",
    "/",
    " / 0 * ",
    " / 0.0 - ",
    " ** ",
    " // ",
    " % ",
    " << ",
    " & ",
    " < ",
    " and ",
]
UNARY = ["-", "+", "- ", "~", "not "]
TOO_LONG = "expression too long"


class Text(str):
    """A str subclass: not exactly a str, so refused like any other type."""


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    """An expression of literals, operators and brackets, sometimes a call or an attribute."""
    kind = draw(st.integers(0, 5)) if depth < 3 else 0
    if kind <= 1:
        return draw(st.sampled_from(LITERALS))
    if kind == 2:
        return draw(st.sampled_from(UNARY)) + draw(expressions(depth + 1))
    if kind == 3:
        return f"({draw(expressions(depth + 1))})"
    if kind == 4 and not draw(st.integers(0, 3)):
        return draw(st.sampled_from(["abs({})", "sqrt({})", "({}).real", "[{}][0]", "({}, 1)"])).format(
            draw(expressions(depth + 1))
        )
    return draw(expressions(depth + 1)) + draw(st.sampled_from(BINARY)) + draw(expressions(depth + 1))


@st.composite
def inputs(draw: st.DrawFn) -> Any:
    """An expression with spaces around it, repeated past the limit or cut, or a value that is not a string."""
    if not draw(st.integers(0, 9)):
        return draw(st.sampled_from([42, 1.5, None, b"1 + 1", ["1"], Text("1 + 1"), Text(" " * 101)]))
    text = (
        draw(st.sampled_from(["", " ", "  "])) + draw(expressions()) + draw(st.sampled_from(["", " ", "\n"]))
    )
    if not draw(st.integers(0, 5)):
        text = text + " + 1" * draw(st.integers(20, 30))
    if not draw(st.integers(0, 7)):
        text = text[: draw(st.integers(0, len(text)))]
    if not draw(st.integers(0, 5)):
        text = text.ljust(draw(st.sampled_from([99, 100, 101])))  # spaces up to either side of the limit
    return text


@pytest.fixture(scope="module")
def solution() -> Iterator[Callable[[Any], Any]]:
    with instructor_solution("06_security", "safe_arithmetic") as namespace:
        yield namespace["safe_arithmetic"]


def outcome(fn: Callable[[Any], Any], expression: Any) -> tuple[str, str]:
    """What `fn` makes of `expression`: the value's type and repr, or the ToolError's message."""
    try:
        value = fn(expression)
    except ToolError as error:
        message = str(error)
        return "ToolError", TOO_LONG if message.startswith(TOO_LONG) else message
    return type(value).__name__, repr(value)


@settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_the_instructor_computes_or_refuses_as_the_reference_does(
    solution: Callable[[Any], Any], expression: Any
) -> None:
    assert outcome(solution, expression) == outcome(arithmetic.safe_arithmetic, expression)
