"""Notebook 06's calculator infrastructure: the published record answers as the reference does."""

from __future__ import annotations

from typing import Any

import pytest

from course_grade.release.bundle import LIBRARY
from course_grade.release.imports import closure, graph, modules
from course_grade.release.keys import KEYS
from course_lib.arithmetic import safe_arithmetic
from course_lib.calculator import recorded_arithmetic
from course_lib.errors import ToolError
from course_lib.fixtures import load_fixture

CASES = load_fixture("arithmetic_cases")


@pytest.mark.parametrize("case", CASES["allowed"], ids=[case["expression"][:30] for case in CASES["allowed"]])
def test_a_recorded_value_is_the_references_value_and_type(case: dict[str, Any]) -> None:
    recorded, computed = recorded_arithmetic(case["expression"]), safe_arithmetic(case["expression"])
    assert recorded == computed and type(recorded) is type(computed)


@pytest.mark.parametrize("case", CASES["refused"], ids=[case["why"] for case in CASES["refused"]])
def test_a_recorded_refusal_is_a_tool_error_whose_text_the_references_message_contains(
    case: dict[str, Any],
) -> None:
    with pytest.raises(ToolError) as recorded:
        recorded_arithmetic(case["expression"])
    with pytest.raises(ToolError) as computed:
        safe_arithmetic(case["expression"])
    assert str(recorded.value) and str(recorded.value) in str(computed.value)


@pytest.mark.parametrize("expression", ["2 + 2", "2 +  3 * 4", " 2 + 3 * 4", 14, None, ["2 + 3 * 4"]])
def test_an_expression_not_in_the_record_is_a_tool_error_saying_so(expression: object) -> None:
    """Even one a space away from a recorded expression: the record is looked up, never computed."""
    with pytest.raises(ToolError, match="no recorded answer for .*arithmetic_cases"):
        recorded_arithmetic(expression)  # type: ignore[arg-type]


def test_the_calculator_reaches_no_key() -> None:
    """The learners' edition of 06 holds it while 06's key stays out."""
    every_key = {module for modules in KEYS.values() for module in modules}
    assert closure("course_lib.calculator", graph(modules(LIBRARY))) & every_key == set()
