"""Plausible wrong answers to notebook 06 and the tests that catch them.

Most are a correct answer with one mistake spliced in, so each one fails for exactly the reason in its `why`.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

SAFE = "safe_arithmetic"
POLICY = "policy"
ALL_SAFE_TESTS = (
    "test_safe_arithmetic_allowed",
    "test_safe_arithmetic_operators",
    "test_safe_arithmetic_unary_operators",
    "test_safe_arithmetic_no_code",
    "test_safe_arithmetic_never_eval",
    "test_safe_arithmetic_numbers_only",
    "test_safe_arithmetic_not_a_string",
    "test_safe_arithmetic_length",
    "test_safe_arithmetic_magnitude",
    "test_safe_arithmetic_division",
    "test_safe_arithmetic_messages",
    "test_safe_arithmetic_as_a_tool",
)

# The sentences of Part A's contract (bullets of its "Your function must" list) the wrong answers break.
S_OWN = "importing or wrapping `course_lib`'s version scores nothing"
S_NEVER_EVAL = "never `eval`, `exec` or `compile` anything"
S_RETURN = "return the value of an expression of `int` and `float` literals"
S_STR = "if `expression` is not exactly a `str`"
S_LONG = "raise a `ToolError` containing `expression too long`"
S_STRIP = "stripping leading and trailing whitespace first"
S_PARSE = "turn a `SyntaxError` or `ValueError` from parsing into"
S_DEEP = "while parsing or walking"
S_CONSTANT = "allowing an `ast.Constant` only if its value is exactly an `int` or a `float`"
S_BINOP = "allow an `ast.BinOp` only with `Add`, `Sub`, `Mult` or `Div`"
S_UNARY = "allow an `ast.UnaryOp` only with `UAdd` or `USub`"
S_NODE = "refuse any other node as"
S_ZERO = 'raise `ToolError("division by zero")`'
S_LARGE = 'raise `ToolError("result too large")`'

_SAFE_OK = '''
import ast
import math
import operator

OPERATORS = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
             "UAdd": operator.pos, "USub": operator.neg}


def safe_arithmetic(expression):
    """A correct answer, written differently from the notebook's."""
    if type(expression) is not str:
        raise ToolError(f"expression must be a string, got {type(expression).__name__}")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError("expression too long")
    try:
        root = ast.parse(expression.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        raise ToolError("not an arithmetic expression") from None
    except (RecursionError, MemoryError):
        raise ToolError("expression nested too deeply") from None

    def limit(number):
        if not math.isfinite(number) or abs(number) > MAX_MAGNITUDE:
            raise ToolError("result too large")
        return number

    def value(node):
        kind = type(node).__name__
        if kind == "Constant":
            if type(node.value) is int or type(node.value) is float:
                return limit(node.value)
            raise ToolError(f"constant not allowed: {type(node.value).__name__}")
        if kind in ("BinOp", "UnaryOp"):
            op = type(node.op).__name__
            if op not in OPERATORS or (kind == "BinOp") != (op not in ("UAdd", "USub")):
                raise ToolError(f"operator not allowed: {op}")
            operands = [value(node.left), value(node.right)] if kind == "BinOp" else [value(node.operand)]
            try:
                return limit(OPERATORS[op](*operands))
            except ZeroDivisionError:
                raise ToolError("division by zero") from None
            except OverflowError:
                raise ToolError("result too large") from None
        raise ToolError(f"not allowed in an expression: {kind}")

    try:
        return value(root)
    except RecursionError:
        raise ToolError("expression nested too deeply") from None
'''

# In _SAFE_OK, the check of an operator and then the computing of its operands (one wrong answer swaps them).
_OPERATOR_CHECK = (
    '            if op not in OPERATORS or (kind == "BinOp") != (op not in ("UAdd", "USub")):\n'
    '                raise ToolError(f"operator not allowed: {op}")\n'
)
_OPERANDS = (
    "            operands = [value(node.left), value(node.right)]"
    ' if kind == "BinOp" else [value(node.operand)]\n'
)

# The sentences of Part B's contract (bullets of its "Your dictionary must" list) the wrong answers break.
P_DICT = "be a plain `dict`"
P_KEYS = "keys are exactly the five tool names above"
P_STR = "a plain `str` value"
P_LOWER = "in lower case"
P_AUTO = 'give `"auto"` to each tool that only reads'
P_CONFIRM = 'give `"confirm"` to each tool whose effect cannot be undone'
P_NEVER = 'give `"never"` to each tool that no customer request needs'

_RULES = {
    "search_orders": "auto",
    "get_my_profile": "auto",
    "refund_order": "confirm",
    "send_email": "confirm",
    "drop_table": "never",
}


def _policy(rules: dict[str, str]) -> str:
    """A solution cell assigning these rules to POLICY."""
    return "POLICY = {\n" + "".join(f"    {name!r}: {rule!r},\n" for name, rule in rules.items()) + "}\n"


# A correct Part B written apart from the instructor's: the wrong answers below change one rule of it.
_POLICY_OK = _policy(dict(sorted(_RULES.items())))

WRONG_ANSWERS = [
    WrongAnswer(
        SAFE,
        "parses the expression unstripped: a leading space is an unexpected indent, so ' 1 + 2' is refused",
        splice(
            _SAFE_OK, ('ast.parse(expression.strip(), mode="eval")', 'ast.parse(expression, mode="eval")')
        ),
        ("test_safe_arithmetic_allowed",),
        breaks=S_STRIP,
    ),
    WrongAnswer(
        SAFE,
        "imports the library's safe_arithmetic instead of writing one",
        "from course_lib.arithmetic import safe_arithmetic\n",
        ALL_SAFE_TESTS,
        breaks=S_OWN,
    ),
    WrongAnswer(
        SAFE,
        "wraps the library's safe_arithmetic in a function of its own",
        "import course_lib.arithmetic as lib\n\n\n"
        "def safe_arithmetic(expression):\n    return lib.safe_arithmetic(expression)\n",
        ALL_SAFE_TESTS,
        breaks=S_OWN,
    ),
    WrongAnswer(
        SAFE,
        "eval after a character whitelist: ** gets through, and so does a ZeroDivisionError",
        "import re\n\n\n"
        "def safe_arithmetic(expression):\n"
        "    if type(expression) is not str or len(expression) > MAX_EXPRESSION_CHARS:\n"
        '        raise ToolError("expression too long")\n'
        '    if not re.fullmatch(r"[0-9+\\-*/(). ]+", expression):\n'
        '        raise ToolError("not allowed in an expression")\n'
        '    return eval(expression, {"__builtins__": {}})\n',
        (
            "test_safe_arithmetic_operators",
            "test_safe_arithmetic_never_eval",
            "test_safe_arithmetic_division",
            "test_safe_arithmetic_as_a_tool",
            "test_safe_arithmetic_allowed",
            "test_safe_arithmetic_messages",
        ),
        breaks=S_NEVER_EVAL,
    ),
    WrongAnswer(
        SAFE,
        "checks every node of the tree against a whitelist, then compiles and evals the checked tree",
        splice(
            _SAFE_OK,
            (
                "    try:\n        return value(root)\n",
                "    value(root)\n"
                "    try:\n"
                '        return eval(compile(ast.Expression(root), "<expression>", "eval"), {"__builtins__": {}})\n'
                "    except ZeroDivisionError:\n"
                '        raise ToolError("division by zero") from None\n',
            ),
        ),
        ("test_safe_arithmetic_never_eval",),
        breaks=S_NEVER_EVAL,
    ),
    WrongAnswer(
        SAFE,
        "plain eval, its errors turned into ToolError: the expression still runs, side effects and all",
        "def safe_arithmetic(expression):\n"
        "    if type(expression) is not str or len(expression) > MAX_EXPRESSION_CHARS:\n"
        '        raise ToolError("expression too long")\n'
        "    try:\n"
        "        value = eval(expression)\n"
        "    except ZeroDivisionError:\n"
        '        raise ToolError("division by zero") from None\n'
        "    except Exception as error:\n"
        '        raise ToolError(f"not allowed in an expression: {type(error).__name__}") from None\n'
        "    if type(value) not in (int, float):\n"
        '        raise ToolError(f"constant not allowed: {type(value).__name__}")\n'
        "    return value\n",
        (
            "test_safe_arithmetic_never_eval",
            "test_safe_arithmetic_operators",
            "test_safe_arithmetic_no_code",
            "test_safe_arithmetic_numbers_only",
            "test_safe_arithmetic_magnitude",
            "test_safe_arithmetic_messages",
            "test_safe_arithmetic_as_a_tool",
        ),
        breaks=S_NEVER_EVAL,
    ),
    WrongAnswer(
        SAFE,
        "allows ** (Pow) as a fifth operator",
        splice(_SAFE_OK, ('"Div": operator.truediv,', '"Div": operator.truediv, "Pow": operator.pow,')),
        ("test_safe_arithmetic_operators", "test_safe_arithmetic_messages", "test_safe_arithmetic_as_a_tool"),
        breaks=S_BINOP,
    ),
    WrongAnswer(
        SAFE,
        "also allows floor division and modulo, as a 'calculator' would",
        splice(
            _SAFE_OK,
            (
                '"Div": operator.truediv,',
                '"Div": operator.truediv, "FloorDiv": operator.floordiv, "Mod": operator.mod,',
            ),
        ),
        ("test_safe_arithmetic_operators", "test_safe_arithmetic_messages"),
        breaks=S_BINOP,
    ),
    WrongAnswer(
        SAFE,
        "helpfully allows the names pi and e and calls to math functions",
        splice(
            _SAFE_OK,
            (
                '        raise ToolError(f"not allowed in an expression: {kind}")\n',
                '        if kind == "Name" and node.id in ("pi", "e"):\n'
                "            return getattr(math, node.id)\n"
                '        if kind == "Call" and type(node.func).__name__ == "Name":\n'
                "            return getattr(math, node.func.id)(*[value(arg) for arg in node.args])\n"
                '        raise ToolError(f"not allowed in an expression: {kind}")\n',
            ),
        ),
        ("test_safe_arithmetic_no_code", "test_safe_arithmetic_messages"),
        breaks=S_NODE,
    ),
    WrongAnswer(
        SAFE,
        "isinstance(value, (int, float)) for constants: True and False count as numbers",
        splice(
            _SAFE_OK,
            (
                "if type(node.value) is int or type(node.value) is float:",
                "if isinstance(node.value, (int, float)):",
            ),
        ),
        (
            "test_safe_arithmetic_numbers_only",
            "test_safe_arithmetic_messages",
            "test_safe_arithmetic_as_a_tool",
        ),
        breaks=S_CONSTANT,
    ),
    WrongAnswer(
        SAFE,
        "no length limit: any input is parsed, however long",
        splice(
            _SAFE_OK,
            (
                '    if len(expression) > MAX_EXPRESSION_CHARS:\n        raise ToolError("expression too long")\n',
                "",
            ),
        ),
        ("test_safe_arithmetic_length", "test_safe_arithmetic_messages", "test_safe_arithmetic_as_a_tool"),
        breaks=S_LONG,
    ),
    WrongAnswer(
        SAFE,
        "off by one: refuses an expression of exactly 100 characters",
        splice(
            _SAFE_OK,
            ("if len(expression) > MAX_EXPRESSION_CHARS:", "if len(expression) >= MAX_EXPRESSION_CHARS:"),
        ),
        ("test_safe_arithmetic_length", "test_safe_arithmetic_allowed"),
        breaks=S_LONG,
    ),
    WrongAnswer(
        SAFE,
        "no magnitude check: 1e999 and 1e200 * 1e200 come back as inf",
        splice(_SAFE_OK, ("if not math.isfinite(number) or abs(number) > MAX_MAGNITUDE:", "if False:")),
        ("test_safe_arithmetic_magnitude", "test_safe_arithmetic_messages"),
        breaks=S_LARGE,
    ),
    WrongAnswer(
        SAFE,
        "lets ZeroDivisionError escape instead of raising ToolError",
        splice(
            _SAFE_OK,
            (
                "            except ZeroDivisionError:\n"
                '                raise ToolError("division by zero") from None\n',
                "",
            ),
        ),
        ("test_safe_arithmetic_division", "test_safe_arithmetic_messages"),
        breaks=S_ZERO,
    ),
    WrongAnswer(
        SAFE,
        "does not check the input type: len(42) escapes as a TypeError",
        splice(
            _SAFE_OK,
            (
                "    if type(expression) is not str:\n"
                '        raise ToolError(f"expression must be a string, got {type(expression).__name__}")\n',
                "",
            ),
        ),
        ("test_safe_arithmetic_not_a_string",),
        breaks=S_STR,
    ),
    WrongAnswer(
        POLICY,
        "drop_table merely needs a confirmation",
        _policy({**_RULES, "drop_table": "confirm"}),
        ("test_policy_drop_table",),
        breaks=P_NEVER,
    ),
    WrongAnswer(
        POLICY,
        "everything needs a human, the reads too",
        _policy(dict.fromkeys(_RULES, "confirm")),
        ("test_policy_reads", "test_policy_drop_table"),
        breaks=P_AUTO,
    ),
    WrongAnswer(
        POLICY,
        "a refund on the customer's own order runs automatically",
        _policy({**_RULES, "refund_order": "auto"}),
        ("test_policy_side_effects",),
        breaks=P_CONFIRM,
    ),
    WrongAnswer(
        POLICY,
        "an email to the customer's own address runs automatically",
        _policy({**_RULES, "send_email": "auto"}),
        ("test_policy_side_effects",),
        breaks=P_CONFIRM,
    ),
    WrongAnswer(
        POLICY,
        "refunds and emails are never offered, so the assistant cannot help",
        _policy({**_RULES, "refund_order": "never", "send_email": "never"}),
        ("test_policy_side_effects",),
        breaks=P_CONFIRM,
    ),
    WrongAnswer(
        POLICY,
        "capitalised values: 'Auto', 'Confirm', 'Never'",
        _policy({name: rule.capitalize() for name, rule in _RULES.items()}),
        ("test_policy_shape", "test_policy_reads", "test_policy_side_effects", "test_policy_drop_table"),
        breaks=P_LOWER,
    ),
    WrongAnswer(
        POLICY,
        "names drop_table with a space, 'drop table'",
        _policy({("drop table" if name == "drop_table" else name): rule for name, rule in _RULES.items()}),
        ("test_policy_shape", "test_policy_drop_table"),
        breaks=P_KEYS,
    ),
    WrongAnswer(
        POLICY,
        "adds a sixth tool the table does not list",
        _policy({**_RULES, "delete_account": "never"}),
        ("test_policy_shape",),
        breaks=P_KEYS,
    ),
    WrongAnswer(
        POLICY,
        "a read-only MappingProxyType instead of a dict",
        "from types import MappingProxyType\n\n"
        + _POLICY_OK.replace("POLICY = {", "POLICY = MappingProxyType({").rstrip()
        + ")\n",
        ("test_policy_shape",),
        breaks=P_DICT,
    ),
    WrongAnswer(
        POLICY,
        "an OrderedDict instead of a plain dict",
        "from collections import OrderedDict\n\n"
        + _POLICY_OK.replace("POLICY = {", "POLICY = OrderedDict({").rstrip()
        + ")\n",
        ("test_policy_shape",),
        breaks=P_DICT,
    ),
    WrongAnswer(
        POLICY,
        "the values are members of a str Enum, equal to the strings but not plain str",
        'from enum import Enum\n\n\nclass Rule(str, Enum):\n    AUTO = "auto"\n    CONFIRM = "confirm"\n'
        '    NEVER = "never"\n\n\n'
        + "\n".join(
            line.replace('"auto"', "Rule.AUTO")
            .replace('"confirm"', "Rule.CONFIRM")
            .replace('"never"', "Rule.NEVER")
            .replace("'auto'", "Rule.AUTO")
            .replace("'confirm'", "Rule.CONFIRM")
            .replace("'never'", "Rule.NEVER")
            for line in _POLICY_OK.splitlines()
        )
        + "\n",
        ("test_policy_shape",),
        breaks=P_STR,
    ),
    WrongAnswer(
        POLICY,
        "the customer's profile needs a confirmation, a read like the order search",
        _policy({**_RULES, "get_my_profile": "confirm"}),
        ("test_policy_reads",),
        breaks=P_AUTO,
    ),
    WrongAnswer(
        SAFE,
        "refuses every expression: each test of Part A also has one it must compute, so it scores nothing",
        'def safe_arithmetic(expression):\n    raise ToolError("refused")\n',
        ALL_SAFE_TESTS,
        breaks=S_RETURN,
    ),
    WrongAnswer(
        SAFE,
        "returns its input unchanged, as text: each test of Part A also has a value it must compute",
        "def safe_arithmetic(expression):\n    return expression\n",
        ALL_SAFE_TESTS,
        breaks=S_RETURN,
    ),
    WrongAnswer(
        POLICY,
        "refuses every tool, the reads too",
        'POLICY = {name: "never" for name in ["search_orders", "get_my_profile", "refund_order", '
        '"send_email", "drop_table"]}\n',
        ("test_policy_reads", "test_policy_side_effects", "test_policy_drop_table"),
        breaks=P_AUTO,
    ),
    WrongAnswer(
        SAFE,
        "reports a syntax error in Python's words instead of 'not an arithmetic expression'",
        splice(
            _SAFE_OK,
            (
                '        raise ToolError("not an arithmetic expression") from None',
                '        raise ToolError("invalid syntax") from None',
            ),
        ),
        ("test_safe_arithmetic_messages",),
        breaks=S_PARSE,
    ),
    WrongAnswer(
        SAFE,
        "allows every unary operator the operator module has: ~ (Invert) and not pass",
        splice(
            _SAFE_OK,
            (
                '"UAdd": operator.pos, "USub": operator.neg}',
                '"UAdd": operator.pos, "USub": operator.neg,\n'
                '             "Invert": operator.invert, "Not": operator.not_}',
            ),
            ('op not in ("UAdd", "USub")', 'op not in ("UAdd", "USub", "Invert", "Not")'),
        ),
        ("test_safe_arithmetic_unary_operators",),
        breaks=S_UNARY,
    ),
    # ---- Part A at its boundaries (issue 35) -------------------------------------------------------------------
    WrongAnswer(
        SAFE,
        "isinstance(expression, str): a str subclass, whose strip() or len() may say anything, is taken as text",
        splice(_SAFE_OK, ("if type(expression) is not str:", "if not isinstance(expression, str):")),
        ("test_safe_arithmetic_not_a_string",),
        breaks=S_STR,
    ),
    WrongAnswer(
        SAFE,
        "counts the length after strip(): 1 followed by 100 spaces is not too long",
        splice(
            _SAFE_OK,
            (
                "if len(expression) > MAX_EXPRESSION_CHARS:",
                "if len(expression.strip()) > MAX_EXPRESSION_CHARS:",
            ),
        ),
        ("test_safe_arithmetic_length",),
        breaks=S_LONG,
    ),
    WrongAnswer(
        SAFE,
        "counts the length in UTF-8 bytes, not characters: a 100-character expression with accents is refused",
        splice(
            _SAFE_OK,
            (
                "if len(expression) > MAX_EXPRESSION_CHARS:",
                'if len(expression.encode("utf-8")) > MAX_EXPRESSION_CHARS:',
            ),
        ),
        ("test_safe_arithmetic_length",),
        breaks=S_LONG,
    ),
    WrongAnswer(
        SAFE,
        "parses first and checks the length after: 101 brackets are a syntax error, not too long",
        splice(
            _SAFE_OK,
            (
                '    if len(expression) > MAX_EXPRESSION_CHARS:\n        raise ToolError("expression too long")\n',
                "",
            ),
            (
                '        root = ast.parse(expression.strip(), mode="eval").body\n',
                '        root = ast.parse(expression.strip(), mode="eval").body\n'
                "        if len(expression) > MAX_EXPRESSION_CHARS:\n"
                '            raise ToolError("expression too long")\n',
            ),
        ),
        ("test_safe_arithmetic_length",),
        breaks=S_LONG,
    ),
    WrongAnswer(
        SAFE,
        "bounds only the final result: 1e300 * 10 / 100 passes through 1e301 and gives 1e299",
        splice(
            _SAFE_OK,
            (
                "                return limit(OPERATORS[op](*operands))",
                "                return OPERATORS[op](*operands)",
            ),
            ("                return limit(node.value)", "                return node.value"),
            ("        return value(root)\n", "        return limit(value(root))\n"),
        ),
        ("test_safe_arithmetic_magnitude",),
        breaks=S_LARGE,
    ),
    WrongAnswer(
        SAFE,
        "bounds the results of operators but not literals: 1e999 is returned as inf",
        splice(_SAFE_OK, ("                return limit(node.value)", "                return node.value")),
        ("test_safe_arithmetic_magnitude",),
        breaks=S_LARGE,
    ),
    WrongAnswer(
        SAFE,
        "computes the operands before looking at the operator: (1 / 0) ** 2 is a division by zero, not a refused Pow",
        splice(
            _SAFE_OK,
            (_OPERATOR_CHECK + _OPERANDS, _OPERANDS + _OPERATOR_CHECK),
        ),
        ("test_safe_arithmetic_operators",),
        breaks=S_BINOP,
    ),
    WrongAnswer(
        SAFE,
        "catches a RecursionError only around ast.parse: one from walking the tree escapes",
        splice(
            _SAFE_OK,
            (
                "    try:\n        return value(root)\n    except RecursionError:\n"
                '        raise ToolError("expression nested too deeply") from None\n',
                "    return value(root)\n",
            ),
        ),
        ("test_safe_arithmetic_messages",),
        breaks=S_DEEP,
    ),
    WrongAnswer(
        SAFE,
        "turns every literal into a float: 2 + 3 * 4 gives 14.0, not 14",
        splice(
            _SAFE_OK,
            ("                return limit(node.value)", "                return limit(float(node.value))"),
        ),
        ("test_safe_arithmetic_allowed",),
        breaks=S_RETURN,
    ),
    # ---- held-out wrong answers of a red-team check (issue 35), each caught by a hidden check added with it ----
    WrongAnswer(
        SAFE,
        "strips only spaces, tabs and newlines: a no-break space around the expression is a syntax error",
        splice(_SAFE_OK, ("expression.strip()", 'expression.strip(" \\t\\n")')),
        ("test_safe_arithmetic_allowed",),
        breaks=S_STRIP,
    ),
    WrongAnswer(
        SAFE,
        "turns only a SyntaxError from parsing into a ToolError: a lone surrogate's UnicodeEncodeError escapes",
        splice(_SAFE_OK, ("except (SyntaxError, ValueError):", "except SyntaxError:")),
        ("test_safe_arithmetic_messages",),
        breaks=S_PARSE,
    ),
    WrongAnswer(
        SAFE,
        "names a refused binary operator with ast.dump: 'operator not allowed: Pow()'",
        splice(
            _SAFE_OK,
            (
                'raise ToolError(f"operator not allowed: {op}")',
                "raise ToolError(f\"operator not allowed: {ast.dump(node.op) if kind == 'BinOp' else op}\")",
            ),
        ),
        ("test_safe_arithmetic_operators",),
        breaks=S_BINOP,
    ),
    # ---- a second red-team round (issue 35): held-out wrong answers, each caught by a hidden check added with it ----
    WrongAnswer(
        SAFE,
        "parses in exec mode and keeps one expression statement: '2 + 2;' is computed",
        splice(
            _SAFE_OK,
            (
                '        root = ast.parse(expression.strip(), mode="eval").body\n',
                "        statements = ast.parse(expression.strip()).body\n"
                '        if len(statements) != 1 or type(statements[0]).__name__ != "Expr":\n'
                '            raise SyntaxError("not one expression")\n'
                "        root = statements[0].value\n",
            ),
        ),
        ("test_safe_arithmetic_messages",),
        breaks='parse it with `ast.parse(expression.strip(), mode="eval")`',
    ),
    WrongAnswer(
        SAFE,
        "raises ToolError(str(error)) for a division by zero: '1.5 / 0' says 'float division by zero'",
        splice(
            _SAFE_OK,
            (
                "            except ZeroDivisionError:\n"
                '                raise ToolError("division by zero") from None\n',
                "            except ZeroDivisionError as error:\n"
                "                raise ToolError(str(error)) from None\n",
            ),
        ),
        ("test_safe_arithmetic_division",),
        breaks=S_ZERO,
    ),
    WrongAnswer(
        SAFE,
        "checks the length before the type: a list of 101 items is refused as too long, not as a list",
        splice(
            _SAFE_OK,
            (
                "    if type(expression) is not str:\n"
                '        raise ToolError(f"expression must be a string, got {type(expression).__name__}")\n'
                "    if len(expression) > MAX_EXPRESSION_CHARS:\n"
                '        raise ToolError("expression too long")\n',
                '    if hasattr(expression, "__len__") and len(expression) > MAX_EXPRESSION_CHARS:\n'
                '        raise ToolError("expression too long")\n'
                "    if type(expression) is not str:\n"
                '        raise ToolError(f"expression must be a string, got {type(expression).__name__}")\n',
            ),
        ),
        ("test_safe_arithmetic_not_a_string",),
        breaks=S_STR,
    ),
]
