"""Independent answers to notebook 06, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

PLAIN_SAFE = """
import ast
import math
import operator

BINARY = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv}
UNARY = {"UAdd": operator.pos, "USub": operator.neg}


def _bounded(number):
    if math.isinf(number) or abs(number) > MAX_MAGNITUDE:
        raise ToolError("result too large")
    return number


def _value(node):
    if isinstance(node, ast.Constant):
        if type(node.value) in (int, float):
            return _bounded(node.value)
        raise ToolError(f"constant not allowed: {type(node.value).__name__}")
    if isinstance(node, ast.BinOp):
        op = type(node.op).__name__
        if op not in BINARY:
            raise ToolError(f"operator not allowed: {op}")
        left, right = _value(node.left), _value(node.right)
        if op == "Div" and right == 0:
            raise ToolError("division by zero")
        return _bounded(BINARY[op](left, right))
    if isinstance(node, ast.UnaryOp):
        op = type(node.op).__name__
        if op not in UNARY:
            raise ToolError(f"operator not allowed: {op}")
        return _bounded(UNARY[op](_value(node.operand)))
    raise ToolError(f"not allowed in an expression: {type(node).__name__}")


def safe_arithmetic(expression):
    if type(expression) is not str:
        raise ToolError(f"expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression too long: more than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        return _value(tree.body)
    except (SyntaxError, ValueError) as error:
        if isinstance(error, ToolError):
            raise
        raise ToolError("not an arithmetic expression") from None
    except (RecursionError, MemoryError):
        raise ToolError("expression nested too deeply") from None
"""

VISITOR_SAFE = """
import ast
import operator


class _Calculator(ast.NodeVisitor):
    operators = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
    signs = {ast.UAdd: operator.pos, ast.USub: operator.neg}

    @staticmethod
    def check(result):
        if not abs(result) <= MAX_MAGNITUDE:  # inf and nan fail this too
            raise ToolError("result too large")
        return result

    def visit_Constant(self, node):
        kind = type(node.value)
        if kind is not int and kind is not float:
            raise ToolError("constant not allowed: " + kind.__name__)
        return self.check(node.value)

    def visit_BinOp(self, node):
        function = self.operators.get(type(node.op))
        if function is None:
            raise ToolError("operator not allowed: " + type(node.op).__name__)
        a = self.visit(node.left)
        b = self.visit(node.right)
        try:
            return self.check(function(a, b))
        except ZeroDivisionError:
            raise ToolError("division by zero") from None

    def visit_UnaryOp(self, node):
        function = self.signs.get(type(node.op))
        if function is None:
            raise ToolError("operator not allowed: " + type(node.op).__name__)
        return self.check(function(self.visit(node.operand)))

    def generic_visit(self, node):
        raise ToolError("not allowed in an expression: " + type(node).__name__)


def safe_arithmetic(expression):
    if type(expression) is not str:
        raise ToolError("expression must be a string, got " + type(expression).__name__)
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError("expression too long")
    try:
        try:
            parsed = ast.parse(expression.strip(), mode="eval")
        except (SyntaxError, ValueError):
            raise ToolError("not an arithmetic expression") from None
        return _Calculator().visit(parsed.body)
    except (RecursionError, MemoryError):
        raise ToolError("expression nested too deeply") from None
"""

TERSE_SAFE = """
import ast
import operator


def safe_arithmetic(expression):
    if type(expression) is not str:
        raise ToolError(f"expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError("expression too long")
    ops = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
           "UAdd": operator.pos, "USub": operator.neg}

    def big(x):
        if x != x or abs(x) > MAX_MAGNITUDE:
            raise ToolError("result too large")
        return x

    def ev(n):
        t = type(n).__name__
        if t == "Constant":
            if type(n.value) not in (int, float):
                raise ToolError(f"constant not allowed: {type(n.value).__name__}")
            return big(n.value)
        if t not in ("BinOp", "UnaryOp"):
            raise ToolError(f"not allowed in an expression: {t}")
        o = type(n.op).__name__
        if o not in ops or (t == "BinOp") == (o in ("UAdd", "USub")):
            raise ToolError(f"operator not allowed: {o}")
        if t == "UnaryOp":
            return big(ops[o](ev(n.operand)))
        a, b = ev(n.left), ev(n.right)
        if o == "Div" and b == 0:
            raise ToolError("division by zero")
        return big(ops[o](a, b))

    try:
        body = ast.parse(expression.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        raise ToolError("not an arithmetic expression")
    except (RecursionError, MemoryError):
        raise ToolError("expression nested too deeply")
    try:
        return ev(body)
    except (RecursionError, MemoryError):
        raise ToolError("expression nested too deeply")
"""

POLICY_A = """
POLICY = {
    "search_orders": "auto",
    "refund_order": "confirm",
    "send_email": "confirm",
    "drop_table": "never",
    "get_my_profile": "auto",
}
"""

POLICY_B = """
# reads of the customer's own data run at once; money and mail cannot be taken back; no customer drops a table
POLICY = dict(get_my_profile="auto", search_orders="auto", refund_order="confirm", send_email="confirm",
              drop_table="never")
"""

POLICY_C = """
READS = ["search_orders", "get_my_profile"]
IRREVERSIBLE = ["refund_order", "send_email"]
POLICY = {name: "auto" for name in READS}
POLICY.update({name: "confirm" for name in IRREVERSIBLE})
POLICY["drop_table"] = "never"
"""

ANSWERS = [
    IndependentAnswer("plain", {"safe_arithmetic": PLAIN_SAFE, "policy": POLICY_A}),
    IndependentAnswer("visitor", {"safe_arithmetic": VISITOR_SAFE, "policy": POLICY_B}),
    IndependentAnswer("terse", {"safe_arithmetic": TERSE_SAFE, "policy": POLICY_C}),
]
