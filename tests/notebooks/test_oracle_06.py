"""Notebook 06's differential families (course_grade.score.oracle.n06_security): each sentence-level misreading
below, a small change to the instructor's safe_arithmetic, is caught by some family; the instructor's solution
and every independent answer agree with the reference on every family.

Not drawn here (open questions of the prose): two faults in one expression (which refusal wins is stated only
for a refused binary operator, refused before its operands), and the order in which the two operands are walked.
"""

# ruff: noqa: E501 - each misreading reads best as one edit on one line

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

import pytest

from course_grade.score.oracle import judge as judging
from course_grade.score.oracle.judge import Disagreement, judge
from course_grade.score.oracle.registry import parts
from grading.differential import _cells_before, answer
from grading.independent_answers import independent

ASSIGNMENT = "06_security"
NAMES = ("safe_arithmetic",)


def solution(name: str) -> str:
    """The instructor's solution cell of `name`."""
    return _cells_before(ASSIGNMENT, name)[1]


def edited(name: str, *edits: tuple[str, str]) -> str:
    """The instructor's solution of `name` with each (old, new) replaced once (old must be there)."""
    source = solution(name)
    for old, new in edits:
        assert old in source, f"{name}: {old!r} is not in the solution"
        source = source.replace(old, new, 1)
    return source


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Catching is what these tests measure: the first input found is reported as it is."""
    monkeypatch.setattr(judging, "_shrunk", lambda family, differs, found: found)
    yield


@pytest.fixture(scope="module")
def notebook() -> Iterator[dict[str, dict[str, Any]]]:
    """Each part's namespace as the notebook gives it (its earlier cells run once), to define answers in."""
    with contextlib.ExitStack() as stack:
        yield {name: stack.enter_context(answer(ASSIGNMENT, name)) for name in NAMES}


def caught_by(notebook: dict[str, dict[str, Any]], name: str, source: str) -> str | None:
    """The first family of `name` that tells `source` from the reference, or None."""
    namespace = dict(notebook[name])
    exec(compile(source, f"<{name}>", "exec"), namespace)
    with contextlib.redirect_stdout(io.StringIO()):
        for key in parts(ASSIGNMENT)[name].families:
            try:
                judge(f"{ASSIGNMENT}.{name}", key, namespace[name])
            except Disagreement:
                return key
    return None


S = "safe_arithmetic"
BOUNDED = "if value != value or abs(value) > MAX_MAGNITUDE:"
BINARY = "binary = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}"
UNARY = "unary = {ast.UAdd: operator.pos, ast.USub: operator.neg}"
BIN_CHECK = """            if type(node.op) not in binary:
                raise ToolError(f"operator not allowed: {type(node.op).__name__}")
            left, right = walk(node.left), walk(node.right)"""
PARSE = 'tree = ast.parse(expression.strip(), mode="eval")'
TOO_LONG = 'raise ToolError(f"expression too long: {len(expression)} characters, the limit is {MAX_EXPRESSION_CHARS}")'
WALK = """    try:
        return walk(tree.body)
    except RecursionError:
        raise ToolError("expression nested too deeply") from None"""

WRITTEN: list[tuple[Any, ...]] = [
    (
        S,
        "every result as a float",
        ("return walk(tree.body)", "return float(walk(tree.body))"),
    ),
    (
        S,
        "an int division stays an int when exact",
        (
            "ast.Div: operator.truediv}",
            "ast.Div: lambda a, b: a // b if type(a) is int and type(b) is int and b and a % b == 0 else a / b}",
        ),
    ),
    (
        S,
        "a float that is whole comes back as an int",
        (
            "return walk(tree.body)",
            "value = walk(tree.body)\n        return int(value) if type(value) is float and value.is_integer() else value",
        ),
    ),
    (
        S,
        "a str subclass is a str",
        ("if type(expression) is not str:", "if not isinstance(expression, str):"),
    ),
    (
        S,
        "anything is turned into text first",
        (
            "if type(expression) is not str:\n",
            "if type(expression) in (int, float):\n        expression = str(expression)\n    if type(expression) is not str:\n",
        ),
    ),
    (
        S,
        "the type's refusal names the value, not its type",
        ('got {type(expression).__name__}")', 'got {expression!r}")'),
    ),
    (
        S,
        "the length counted after stripping",
        ("if len(expression) > MAX_EXPRESSION_CHARS:", "if len(expression.strip()) > MAX_EXPRESSION_CHARS:"),
    ),
    (
        S,
        "an exclusive length limit",
        ("if len(expression) > MAX_EXPRESSION_CHARS:", "if len(expression) >= MAX_EXPRESSION_CHARS:"),
    ),
    (
        S,
        "the length checked after parsing",
        ("    if len(expression) > MAX_EXPRESSION_CHARS:\n        " + TOO_LONG + "\n", ""),
        (
            WALK,
            WALK.replace(
                "    try:\n        return walk",
                "    if len(expression) > MAX_EXPRESSION_CHARS:\n        raise ToolError('expression too long')\n    try:\n        return walk",
            ),
        ),
    ),
    (
        S,
        "only spaces stripped",
        (PARSE, 'tree = ast.parse(expression.strip(" "), mode="eval")'),
    ),
    (
        S,
        "only leading white space stripped",
        (PARSE, 'tree = ast.parse(expression.lstrip(), mode="eval")'),
    ),
    (
        S,
        "ASCII white space stripped",
        (PARSE, 'tree = ast.parse(expression.strip(" \\t\\n\\r\\x0b\\x0c"), mode="eval")'),
    ),
    (
        S,
        "parsed in exec mode, one expression statement kept",
        (
            PARSE,
            'module = ast.parse(expression.strip())\n        if len(module.body) != 1 or not isinstance(module.body[0], ast.Expr):\n            raise SyntaxError("not one expression")\n        tree = ast.Expression(module.body[0].value)',
        ),
    ),
    (
        S,
        "only a SyntaxError from parsing is refused",
        (
            '    except (SyntaxError, ValueError):\n        raise ToolError("not an arithmetic expression")',
            '    except SyntaxError:\n        raise ToolError("not an arithmetic expression")',
        ),
    ),
    (
        S,
        "a syntax error's own message passed on",
        (
            'raise ToolError("not an arithmetic expression") from None',
            'raise ToolError(f"not an arithmetic expression: {expression.strip()[:20]}") from None',
        ),
    ),
    (
        S,
        "a RecursionError caught while parsing only",
        (WALK, "    return walk(tree.body)"),
    ),
    (
        S,
        "deep nesting refused as a syntax error",
        (
            'raise ToolError("expression nested too deeply") from None\n    ### END',
            'raise ToolError("not an arithmetic expression") from None\n    ### END',
        ),
    ),
    (
        S,
        "a bool is a number",
        ("if type(node.value) not in (int, float):", "if not isinstance(node.value, (int, float)):"),
    ),
    (
        S,
        "a complex number is a number",
        ("if type(node.value) not in (int, float):", "if type(node.value) not in (int, float, complex):"),
    ),
    (
        S,
        "a constant's refusal names its value",
        (
            'raise ToolError(f"constant not allowed: {type(node.value).__name__}")',
            'raise ToolError(f"constant not allowed: {node.value!r}")',
        ),
    ),
    (
        S,
        "Pow allowed",
        (BINARY, BINARY[:-1] + ", ast.Pow: operator.pow}"),
    ),
    (
        S,
        "FloorDiv allowed",
        (BINARY, BINARY[:-1] + ", ast.FloorDiv: operator.floordiv}"),
    ),
    (
        S,
        "the operands computed before the operator is checked",
        (
            BIN_CHECK,
            """            left, right = walk(node.left), walk(node.right)
            if type(node.op) not in binary:
                raise ToolError(f"operator not allowed: {type(node.op).__name__}")""",
        ),
    ),
    (
        S,
        "an operator's refusal names its symbol",
        (
            'raise ToolError(f"operator not allowed: {type(node.op).__name__}")\n            left',
            'raise ToolError(f"operator not allowed: {ast.unparse(node)[:10]}")\n            left',
        ),
    ),
    (
        S,
        "Invert allowed",
        (UNARY, UNARY[:-1] + ", ast.Invert: operator.invert}"),
    ),
    (
        S,
        "not allowed",
        (UNARY, UNARY[:-1] + ", ast.Not: operator.not_}"),
    ),
    (
        S,
        "a unary operator refused as a node",
        (
            'raise ToolError(f"operator not allowed: {type(node.op).__name__}")\n            return bounded(unary',
            'raise ToolError(f"not allowed in an expression: UnaryOp")\n            return bounded(unary',
        ),
    ),
    (
        S,
        "math's names allowed",
        (
            'raise ToolError(f"not allowed in an expression: {type(node).__name__}")',
            'import math\n        if isinstance(node, ast.Name) and node.id in ("pi", "e", "inf", "tau"):\n            return bounded(getattr(math, node.id))\n        raise ToolError(f"not allowed in an expression: {type(node).__name__}")',
        ),
    ),
    (
        S,
        "a node refused under a general message",
        (
            'raise ToolError(f"not allowed in an expression: {type(node).__name__}")',
            'raise ToolError("not allowed in an expression")',
        ),
    ),
    (
        S,
        "a tuple of numbers is computed item by item",
        (
            'raise ToolError(f"not allowed in an expression: {type(node).__name__}")',
            'if isinstance(node, ast.Tuple) and len(node.elts) == 1:\n            return walk(node.elts[0])\n        raise ToolError(f"not allowed in an expression: {type(node).__name__}")',
        ),
    ),
    (
        S,
        "a float division by zero is infinite",
        (
            '            except ZeroDivisionError:\n                raise ToolError("division by zero") from None',
            '            except ZeroDivisionError:\n                if type(left) is float or type(right) is float:\n                    raise ToolError("result too large") from None\n                raise ToolError("division by zero") from None',
        ),
    ),
    (
        S,
        "division by zero said in Python's words",
        (
            'raise ToolError("division by zero") from None',
            'raise ToolError("float division by zero" if type(right) is float else "division by zero") from None',
        ),
    ),
    (
        S,
        "only the final result bounded",
        (BOUNDED, "if False:"),
        ("return walk(tree.body)", "return bounded(walk(tree.body)) if True else None"),
        (
            "                return bounded(binary[type(node.op)](left, right))",
            "                return binary[type(node.op)](left, right)",
        ),
    ),
    (
        S,
        "the limit itself refused",
        (BOUNDED, "if value != value or abs(value) >= MAX_MAGNITUDE:"),
    ),
    (
        S,
        "literals not bounded",
        ("            return bounded(node.value)", "            return node.value"),
    ),
]


MISREADINGS: list[tuple[str, str, tuple[tuple[str, str], ...]]] = [
    (name, why, tuple(edits)) for name, why, *edits in WRITTEN
]
"""(name, why, its edits): each written above as the name, why, then its (old, new) edits."""


@pytest.mark.parametrize(("name", "why", "edits"), MISREADINGS, ids=[why for _, why, _ in MISREADINGS])
def test_each_misreading_is_caught(
    notebook: dict[str, dict[str, Any]], name: str, why: str, edits: tuple[tuple[str, str], ...]
) -> None:
    assert caught_by(notebook, name, edited(name, *edits)) is not None, f"{name}: no family catches {why!r}"


def honest_answers() -> list[tuple[str, str, str]]:
    """(name, who, source) for the instructor's solution and every independent answer."""
    return [(S, "instructor", solution(S))] + [
        (S, one.author, one.cells[S]) for one in independent(ASSIGNMENT)
    ]


@pytest.mark.parametrize(("name", "who", "source"), honest_answers(), ids=[w for _, w, _ in honest_answers()])
def test_the_instructor_and_every_independent_answer_agree_with_the_reference(
    notebook: dict[str, dict[str, Any]], name: str, who: str, source: str
) -> None:
    assert caught_by(notebook, name, source) is None, f"{who}'s {name} differs from the reference"
