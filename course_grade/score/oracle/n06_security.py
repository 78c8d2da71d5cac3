"""Notebook 06's graded code part: `safe_arithmetic` against `course_lib.arithmetic` (the policy table is a value
part, compared as today).

The expressions are generated as trees whose value is computed beside their text (`arithmetic` below), so that a
valid expression never divides by zero or leaves `MAX_MAGNITUDE` by accident; a family then puts exactly one fault
into such an expression (a refused constant, operator or node, a division by zero, a value past the limit, a
syntax error), because the prose does not say which refusal wins when two faults meet, except that a refused
binary operator is refused before its operands are computed (its operands may hold any fault). Every message
the prose writes out is compared whole, except `expression too long`, which a message need only contain.

A `RecursionError` is judged as the visible test judges it: the expression is run again with only a few frames
of recursion to spare, and the answer must then give the same as with room to spare, or
`ToolError("expression nested too deeply")`.
"""

from __future__ import annotations

import ast
import operator
import sys
from collections import UserString
from collections.abc import Callable
from typing import Any, NamedTuple

from hypothesis import strategies as st

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import Family, Part, shape

ASSIGNMENT = "06_security"
LIMIT = 100
"""MAX_EXPRESSION_CHARS (course_lib.calculator), written out so this module imports nothing of the key."""
MAGNITUDE = 1e300
"""MAX_MAGNITUDE."""
TOO_LONG = "expression too long"
NESTED = "expression nested too deeply"

WHITESPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680",
              "\u2000", "\u2003", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]  # fmt: skip
"""Every kind of character `str.strip()` removes."""


class Tagged(str):
    """A `str` subclass: refused like any other type."""


class Expr(NamedTuple):
    """An input of `safe_arithmetic`; with `headroom`, it is also run with that few frames of recursion to spare."""

    expression: Any
    headroom: int = 0


# -- valid arithmetic, its text and its value -----------------------------------------------------------------

SPELLED = ["0", "1", "2", "7", "10", "0.5", "0.0", "1.", ".5", "2E3", "1e-3", "1e300", "1e-320", "1e-400", "0x1F",
           "0o17", "0b101", "1_000", "1_0.5e1", "3.14159", "00", "0.1", "4", "1e150", "123456789012345678901234567890",
           "9" * 40, "1e299", "5e299", "1.7976931348623157e-308"]  # fmt: skip


@st.composite
def literal(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        spelled = draw(st.sampled_from(SPELLED))
    elif kind == 1:
        spelled = str(draw(st.integers(0, 10**6) | st.integers(0, 10**45)))
    elif kind == 2:
        spelled = repr(
            draw(st.floats(min_value=0, max_value=MAGNITUDE, allow_nan=False, allow_infinity=False))
        )
    else:
        spelled = draw(st.sampled_from(["3", "2", "1", "0.25", "8"]))
    return spelled, ast.literal_eval(spelled)


def bounded(value: Any) -> bool:
    return bool(value == value and abs(value) <= MAGNITUDE)


class Tree(NamedTuple):
    """An expression's text, its value, and whether it is atomic (a literal, bracketed or a unary operation)."""

    text: str
    value: Any
    atomic: bool = True


def operand(tree: Tree) -> str:
    return tree.text if tree.atomic else f"({tree.text})"


BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
}  # fmt: skip


@st.composite
def arithmetic(draw: st.DrawFn, depth: int = 3) -> Tree:
    """A valid expression (every step within MAX_MAGNITUDE, no division by zero) and its value."""
    kind = draw(st.integers(0, 5)) if depth > 0 else 0
    if kind <= 1:
        spelled, value = draw(literal())
        return Tree(spelled, value)
    if kind == 2:
        inner = draw(arithmetic(depth - 1))
        sign = draw(st.sampled_from(["-", "+", "- ", "-+", "--"]))
        value = inner.value
        for char in sign.replace(" ", "")[::-1]:
            value = -value if char == "-" else +value
        return Tree(sign + operand(inner), value)
    if kind == 3:
        inner = draw(arithmetic(depth - 1))
        return Tree(f"({inner.text})", inner.value)
    left, right = draw(arithmetic(depth - 1)), draw(arithmetic(depth - 1))
    symbol = draw(st.sampled_from(sorted(BINARY)))
    try:
        value = BINARY[symbol](left.value, right.value)
    except (ZeroDivisionError, OverflowError):
        return left
    if not bounded(value):
        return left
    space = draw(st.sampled_from([" ", "", " "]))
    text = f"{operand(left)}{space}{symbol}{space}{operand(right)}"
    if len(text) > 80:
        return left
    return Tree(text, value, atomic=False)


def embed(draw: st.DrawFn, fault: str) -> str:
    """`fault` alone, or as one operand somewhere inside a valid expression (bracketed)."""
    where = draw(st.sampled_from(["alone", "alone", "left", "right", "unary", "deeper"]))
    if where == "alone":
        return fault
    other = draw(arithmetic(1))
    if where == "left":
        symbol = draw(st.sampled_from(sorted(BINARY) if other.value != 0 else ["+", "-", "*"]))
        return f"({fault}) {symbol} {operand(other)}"
    if where == "right":
        symbol = draw(st.sampled_from(["+", "-", "*"]))
        return f"{operand(other)} {symbol} ({fault})"
    if where == "unary":
        return f"{draw(st.sampled_from(['-', '+', '--']))}({fault})"
    more = draw(arithmetic(1))
    return f"{operand(more)} + ({operand(other)} * ({fault}))"


def short(text: str, fallback: str) -> str:
    return text if len(text) <= LIMIT else fallback


# -- the families' inputs -------------------------------------------------------------------------------------


@st.composite
def allowed(draw: st.DrawFn) -> Expr:
    tree = draw(arithmetic())
    return Expr(tree.text)


@st.composite
def stripped(draw: st.DrawFn) -> Expr:
    """A valid expression with white space of every kind `str.strip()` removes around it (within the limit)."""
    tree = draw(arithmetic(2))
    before = "".join(draw(st.lists(st.sampled_from(WHITESPACE), max_size=4)))
    after = "".join(draw(st.lists(st.sampled_from(WHITESPACE), max_size=4)))
    if draw(st.integers(0, 3)) == 0:
        before = draw(st.sampled_from([" ", "\t", "\n", "  "]))
    return Expr(short(before + tree.text + after, before[:2] + tree.text[:90]))


NOT_STRINGS: list[Any] = [42, 1.5, None, True, False, b"1 + 1", bytearray(b"2"), ["1"], ("1",), {"expression": "1"},
                          0, 10**120, 2j, b"1" * 101, [0] * 101, tuple("1" * 101)]  # fmt: skip


@st.composite
def not_strings(draw: st.DrawFn) -> Expr:
    text = draw(st.sampled_from(["1 + 1", "2", "__import__('os')", "1" * 101, " ", "", "x"]))
    kind = draw(st.sampled_from(["value", "value", "tagged", "user", "str"]))
    if kind == "tagged":
        return Expr(Tagged(text))
    if kind == "user":
        return Expr(UserString(text))
    if kind == "str":
        return Expr(draw(arithmetic(2)).text)
    return Expr(draw(st.sampled_from(NOT_STRINGS)))


@st.composite
def lengths(draw: st.DrawFn) -> Expr:
    """Expressions of 95 to 105 characters as given (white space counted), and some far longer; valid or not."""
    tree = draw(arithmetic(2))
    target = draw(
        st.sampled_from([LIMIT - 1, LIMIT, LIMIT, LIMIT + 1, LIMIT + 1, LIMIT + 2, LIMIT + 50, 10_000])
    )
    kind = draw(st.sampled_from(["spaces", "sum", "brackets", "broken", "digits", "comment"]))
    if kind == "spaces":
        pad = draw(st.sampled_from(WHITESPACE))
        room = max(target - len(tree.text), 0)
        cut = draw(st.integers(0, room))
        return Expr(pad * cut + tree.text + pad * (room - cut))
    if kind == "sum":
        text = "1" + " + 1" * ((target - 1) // 4)
        return Expr(text + " " * (target - len(text)))
    if kind == "brackets":
        half = (target - 1) // 2
        text = "(" * half + "1" + ")" * half
        return Expr(text + " " * (target - len(text)))
    if kind == "broken":
        return Expr(draw(st.sampled_from(["(", ")", "*", "+", "x"])) * target)
    if kind == "digits":
        return Expr("9" * min(target, 400))
    return Expr("1 # " + "é" * (target - 4))


CONSTANTS = ["True", "False", "None", "'a'", '"2"', "b'1'", "2j", "1j", "...", "'1' '2'", "u'x'", "0j"]


@st.composite
def constants(draw: st.DrawFn) -> Expr:
    if draw(st.integers(0, 4)) == 0:
        return Expr(draw(arithmetic(2)).text)
    return Expr(short(embed(draw, draw(st.sampled_from(CONSTANTS))), draw(st.sampled_from(CONSTANTS))))


REFUSED_BINARY = ["**", "//", "%", "<<", ">>", "&", "|", "^", "@"]
ANY_FAULT = [
    "1 / 0",
    "1e200 * 1e200",
    "1e999",
    "x",
    "True",
    "abs(1)",
    "~1",
    "2 ** 2",
    "'a'",
    "1 // 0",
    "(1).real",
]


@st.composite
def binary(draw: st.DrawFn) -> Expr:
    """A refused binary operator whose operands are valid, or hold a fault of their own (the operator is refused
    first); or the four allowed ones."""
    if draw(st.integers(0, 4)) == 0:
        return Expr(draw(arithmetic()).text)
    symbol = draw(st.sampled_from(REFUSED_BINARY))

    def side() -> str:
        if draw(st.booleans()):
            return f"({draw(st.sampled_from(ANY_FAULT))})"
        return operand(draw(arithmetic(1)))

    fault = f"{side()} {symbol} {side()}"
    return Expr(short(embed(draw, fault), f"2 {symbol} 3"))


@st.composite
def unary(draw: st.DrawFn) -> Expr:
    if draw(st.integers(0, 4)) == 0:
        return Expr(draw(arithmetic()).text)
    inner = operand(draw(arithmetic(1)))
    fault = draw(st.sampled_from([f"~{inner}", f"not {inner}", f"~-{inner}", f"-~{inner}", f"not -{inner}"]))
    return Expr(short(embed(draw, fault), "~1"))


NODES = ["x", "pi", "abs(1)", "(1).real", "[1]", "(1, 2)", "{1: 2}", "{1}", "lambda: 1", "1 if 1 else 2", "1 < 2",
         "1 and 2", "[i for i in ()]", "(x := 1)", "f'{1}'", "__import__('os')", "x[0]", "await x", "(yield)",
         "1.5.hex()", "print", "__builtins__", "sqrt(4)", "inf", "nan", "not_a_name", "[1, 2][0]", "{**{}}",
         "1 is 1", "1 or 0", "(2)(3)",
         "(1,)", "2,", "(-3.5,)", "float('inf')", "max(1, 2)", "()", "[]", "a.b.c", "-x", "+abs(-1)"]  # fmt: skip


@st.composite
def nodes(draw: st.DrawFn) -> Expr:
    if draw(st.integers(0, 5)) == 0:
        return Expr(draw(arithmetic()).text)
    return Expr(short(embed(draw, draw(st.sampled_from(NODES))), "x"))


@st.composite
def divisions(draw: st.DrawFn) -> Expr:
    """A division by a zero (an int, a float, negative zero, a difference that is zero) inside valid arithmetic,
    or by a number that is not zero."""
    top = operand(draw(arithmetic(1)))
    zero = draw(
        st.sampled_from(["0", "0.0", "-0.0", "-0", "(2 - 2)", "(0.5 - 0.5)", "0e5", "(0 * 7)", "+0", "00"])
    )
    if draw(st.integers(0, 4)) == 0:
        zero = draw(st.sampled_from(["1", "0.5", "1e-300", "-2", "(1 - 0.5)", "1e-320"]))
    return Expr(short(embed(draw, f"{top} / {zero}"), f"1 / {zero}"))


TOO_LARGE = ["1e301", "1e999", "2e300", "1.0000000000000002e300", "1e308 * 10", "1e200 * 1e200", "1e300 + 1e300",
             "1e300 * 10 / 100", "-(1e300 * 2)", "1e300 / 1e-10", "1e999 - 1e999", "0 * 1e999",
             "1e300 * 1.0000000000000002", "9" * 60 + " * 1e250", "1e150 * 1e150 * 10", "-1e301",
             "1e300 - -1e300", "1e-300 / 1e-300 * 1e301", "1e160 * -1e160", "1.5e300 / 2"]  # fmt: skip
WITHIN = ["1e300", "-1e300", "1e300 * 1", "1e150 * 1e150", "-1e300 + 1e300", "1e300 - 1", "1e299 * 10",
          "5e299 + 5e299", "1e300 / 1", "9" * 99, "1e-300 / 1e-300", "1e150 * 1e150 / 1e10", "2e300 / 2"]  # fmt: skip


@st.composite
def magnitudes(draw: st.DrawFn) -> Expr:
    """A literal or an intermediate result past MAX_MAGNITUDE (an infinite one too) inside valid arithmetic whose
    final value would be small; or values at the limit."""
    if draw(st.integers(0, 3)) == 0:
        return Expr(draw(st.sampled_from(WITHIN)))
    fault = draw(st.sampled_from(TOO_LARGE))
    tail = draw(st.sampled_from(["", " * 0", " / 1e300", " - 1e300", " * -1"]))
    return Expr(short(embed(draw, f"({fault}){tail}" if tail else fault), fault))


SYNTAX = ["", " ", "\t\n", "1 +", "(1", "1)", "2 3", "1;", "1; 2", "2 + 2;", "(3);", "x = 1", "1 = 1", "def f(): 1",
          "\x00", "1 + \ud800", "\udfff", "import os", "if 1: 2", "lambda", "*", "1 +* 2", "1\n+ 2", "1 +\n2",
          "()()", "1 2 3", "[1", "'", "1 // # c", "1..2", "0x", "1e", "1_", "01", "1 + (2", "\ufeff1", "\u00a01 +",
          "1 \u00a0+ 2", "1 +\u2003 2", "@", "1 !", "$1", "1 + + ", "return 1", "pass", "yield", "*a, b", "a: int",
          "1 if 1", "f(", "\\"]  # fmt: skip


@st.composite
def syntax(draw: st.DrawFn) -> Expr:
    if draw(st.integers(0, 4)) == 0:
        return Expr(draw(arithmetic()).text)
    bad = draw(st.sampled_from(SYNTAX))
    kind = draw(st.integers(0, 5))
    if kind == 0:  # a character UTF-8 cannot encode: a ValueError from parsing
        surrogate = draw(st.sampled_from(["\ud800", "\udfff", "\udc80"]))
        text = draw(arithmetic(1)).text
        cut = draw(st.integers(0, len(text)))
        return Expr(text[:cut] + surrogate + text[cut:])
    if kind == 1:  # more than one expression: a statement's semicolon
        text = draw(arithmetic(1)).text
        return Expr(
            draw(st.sampled_from([f"{text};", f"{text} ;", f"({text});", f"{text}; {text}", f"{text};\n"]))
        )
    if draw(st.booleans()) and bad.strip():
        other = operand(draw(arithmetic(1)))
        bad = draw(st.sampled_from([f"{other} + {bad}", f"{bad} {other}", f"({other}) {bad}"]))
    return Expr(short(bad, "1 +"))


@st.composite
def nested(draw: st.DrawFn) -> Expr:
    """Expressions nested deep enough (within 100 characters) to exhaust a few frames of recursion."""
    count = draw(st.integers(10, 99))
    kind = draw(st.sampled_from(["minus", "plus", "signs", "brackets", "chain", "mixed", "deep fault"]))
    if kind == "minus":
        text = "-" * count + "1"
    elif kind == "plus":
        text = "+" * count + "2.5"
    elif kind == "signs":
        text = "+-" * (count // 2) + "3"
    elif kind == "brackets":
        half = min(count, 98) // 2
        text = "(" * half + "-" * min(9, 99 - 2 * half) + "1" + ")" * half
    elif kind == "chain":
        text = "1" + " + 1" * (count // 4)
    elif kind == "mixed":
        text = "-(" * (count // 3) + "2" + ")" * (count // 3)
    else:
        text = "-" * (count - 4) + draw(st.sampled_from(["x", "~1", "2j", "1/0"]))
    return Expr(text[:LIMIT], headroom=draw(st.integers(12, 60)))


# -- observing ------------------------------------------------------------------------------------------------


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    return depth + 1


def _outcome(answer: Callable[[Any], Any], expression: Any, spare: int) -> tuple[Any, ...]:
    """The value (exact type), the ToolError's message (`expression too long` when it starts so), or any other
    exception by type: the call runs with `spare` frames of recursion above the caller."""
    from course_lib.errors import ToolError  # noqa: PLC0415

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + spare)
    try:
        value = answer(expression)
    except ToolError as error:
        message = str(error)
        return ("refused", TOO_LONG if TOO_LONG in message else message)
    except Exception as error:
        if isinstance(error, contract.ABORTING):
            raise
        return ("raised", type(error).__name__)
    finally:
        sys.setrecursionlimit(limit)
    return ("returned", shape(value))


def observe_arithmetic(answer: Any, example: Expr) -> Any:
    """What the answer gives with 1,000 frames to spare; with `headroom`, also whether it gives the same, or
    ToolError("expression nested too deeply"), with only that many frames to spare."""
    roomy = _outcome(answer, example.expression, 1000)
    if not example.headroom:
        return roomy
    tight = _outcome(answer, example.expression, example.headroom)
    return roomy, tight in (roomy, ("refused", NESTED))


def _reference() -> Any:
    from course_lib.arithmetic import safe_arithmetic  # noqa: PLC0415

    return safe_arithmetic


SAFE_ARITHMETIC = Part(
    ASSIGNMENT,
    "safe_arithmetic",
    _reference,
    observe_arithmetic,
    "the value (exact type), or the ToolError's message (whole, except that a too-long refusal need only contain "
    "'expression too long'), or any other exception by type; for deep nesting, also whether the answer with few "
    "frames of recursion to spare gives the same or ToolError('expression nested too deeply').",
    {
        "allowed": Family(
            "return the value of an expression of `int` and `float` literals, brackets, `+ - * /` and unary `+ -`, "
            "computed as Python computes it (an `int` or a `float`)",
            "test_safe_arithmetic_allowed",
            allowed(),
            examples=80,
        ),
        "not_str": Family(
            'raise `ToolError("expression must be a string, got <type name>")` if `expression` is not exactly a '
            "`str` (an instance of a `str` subclass is refused too)",
            "test_safe_arithmetic_not_a_string",
            not_strings(),
            examples=40,
        ),
        "length": Family(
            "raise a `ToolError` containing `expression too long` if it is longer than `MAX_EXPRESSION_CHARS` "
            "characters, counted on `expression` as given (whitespace included, before any `strip()`), **before** "
            "parsing",
            "test_safe_arithmetic_length",
            lengths(),
        ),
        "strip": Family(
            'parse it with `ast.parse(expression.strip(), mode="eval")`, stripping leading and trailing whitespace '
            "first",
            "test_safe_arithmetic_allowed",
            stripped(),
        ),
        "syntax": Family(
            'turn a `SyntaxError` or `ValueError` from parsing into `ToolError("not an arithmetic expression")`',
            "test_safe_arithmetic_messages",
            syntax(),
            examples=80,
        ),
        "nested": Family(
            'a `RecursionError` or `MemoryError`, while parsing or walking, into `ToolError("expression nested '
            'too deeply")`',
            "test_safe_arithmetic_messages",
            nested(),
            examples=40,
        ),
        "constants": Family(
            "allowing an `ast.Constant` only if its value is exactly an `int` or a `float`",
            "test_safe_arithmetic_numbers_only",
            constants(),
        ),
        "binary": Family(
            "allow an `ast.BinOp` only with `Add`, `Sub`, `Mult` or `Div`, and refuse any other operator as "
            "`operator not allowed: <operator name>` **before** its operands are computed",
            "test_safe_arithmetic_operators",
            binary(),
            examples=80,
        ),
        "unary": Family(
            "allow an `ast.UnaryOp` only with `UAdd` or `USub`, and refuse any other as `operator not allowed: "
            "<operator name>`",
            "test_safe_arithmetic_unary_operators",
            unary(),
        ),
        "nodes": Family(
            "refuse any other node as `not allowed in an expression: <node type name>`",
            "test_safe_arithmetic_no_code",
            nodes(),
            examples=80,
        ),
        "division": Family(
            'raise `ToolError("division by zero")` for a division by zero: no `ZeroDivisionError` may escape',
            "test_safe_arithmetic_division",
            divisions(),
        ),
        "magnitude": Family(
            'raise `ToolError("result too large")` for a literal or any intermediate result whose absolute value '
            "is larger than `MAX_MAGNITUDE` (an infinite one, such as `1e999`, included), even when the final "
            "result would be small",
            "test_safe_arithmetic_magnitude",
            magnitudes(),
        ),
    },
)

PARTS = {part.name: part for part in (SAFE_ARITHMETIC,)}
