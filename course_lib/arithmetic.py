"""Notebook 06: arithmetic from a model's argument, computed by walking a parsed tree, never by eval().

`ast.parse` only builds a tree of nodes; nothing in it runs. `safe_arithmetic` then computes the
value itself, node by node, allowing int/float literals, + - * / and unary +/-. Every other node or
operator is refused with a `ToolError` that names it, so the message is safe to hand back to the model.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from course_lib.calculator import MAX_EXPRESSION_CHARS, MAX_MAGNITUDE  # the contract's limits: infrastructure
from course_lib.errors import ToolError

__all__ = ["MAX_EXPRESSION_CHARS", "MAX_MAGNITUDE", "ToolError", "safe_arithmetic"]

Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def safe_arithmetic(expression: str) -> int | float:
    """Compute an expression of int/float literals, + - * / and unary +/-, or raise ToolError."""
    if type(expression) is not str:
        raise ToolError(f"expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression too long: {len(expression)} characters > {MAX_EXPRESSION_CHARS}")
    try:
        tree = ast.parse(expression.strip(), mode="eval")  # builds a tree; nothing is compiled or run
    except (SyntaxError, ValueError):  # ValueError: a NUL character, on some Python versions
        raise ToolError("not an arithmetic expression") from None
    except (RecursionError, MemoryError):
        raise ToolError("expression nested too deeply") from None
    try:
        return _evaluate(tree.body)
    except RecursionError:
        raise ToolError("expression nested too deeply") from None


def _evaluate(node: ast.expr) -> Number:
    """Compute one whitelisted node; refuse everything else by name."""
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int or type(value) is float:  # exact types: True is an int subclass
            return _bounded(value)
        raise ToolError(f"constant not allowed: {type(value).__name__}")
    if isinstance(node, ast.BinOp):
        binary = _BINARY.get(type(node.op))
        if binary is None:
            raise ToolError(f"operator not allowed: {type(node.op).__name__}")
        left, right = _evaluate(node.left), _evaluate(node.right)
        try:
            return _bounded(binary(left, right))
        except ZeroDivisionError:
            raise ToolError("division by zero") from None
        except OverflowError:
            raise ToolError("result too large") from None
    if isinstance(node, ast.UnaryOp):
        unary = _UNARY.get(type(node.op))
        if unary is None:
            raise ToolError(f"operator not allowed: {type(node.op).__name__}")
        return _bounded(unary(_evaluate(node.operand)))
    raise ToolError(f"not allowed in an expression: {type(node).__name__}")


def _bounded(value: Number) -> Number:
    """Return `value` unless it is too large (or infinite/NaN) to be a sensible result."""
    if abs(value) > MAX_MAGNITUDE or (type(value) is float and not math.isfinite(value)):
        raise ToolError("result too large")
    return value
