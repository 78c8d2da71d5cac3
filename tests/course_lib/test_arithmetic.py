import ast
import builtins
import contextlib
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import arithmetic
from course_lib.arithmetic import MAX_EXPRESSION_CHARS, ToolError, safe_arithmetic
from course_lib.fixtures import load_fixture

CASES = load_fixture("arithmetic_cases")


@pytest.mark.parametrize("case", CASES["allowed"], ids=[case["expression"][:30] for case in CASES["allowed"]])
def test_allowed_fixture(case: dict[str, Any]) -> None:
    result = safe_arithmetic(case["expression"])
    assert result == case["value"] and type(result) is type(case["value"])


@pytest.mark.parametrize("case", CASES["refused"], ids=[case["why"] for case in CASES["refused"]])
def test_refused_fixture(case: dict[str, Any]) -> None:
    with pytest.raises(ToolError, match=case["match"]):
        safe_arithmetic(case["expression"])


def test_the_seed_expressions_are_in_the_fixture() -> None:
    seed = ["2 + 3 * 4", "-(7 - 10) / 2", "__import__('os').system('echo pwned')", "9 ** 9 ** 9", "1 / 0"]
    expressions = [case["expression"] for case in CASES["allowed"] + CASES["refused"]]
    assert set(seed) <= set(expressions)


def test_non_str_expression_is_rejected() -> None:
    with pytest.raises(ToolError, match="expression must be a string, got int"):
        safe_arithmetic(42)  # type: ignore[arg-type]


def test_100_characters_is_the_limit() -> None:
    assert safe_arithmetic("1" * MAX_EXPRESSION_CHARS) == int("1" * MAX_EXPRESSION_CHARS)
    with pytest.raises(ToolError, match="expression too long"):
        safe_arithmetic("1" * (MAX_EXPRESSION_CHARS + 1))


def test_true_is_not_a_number_even_though_it_is_an_int() -> None:
    with pytest.raises(ToolError, match="constant not allowed: bool"):
        safe_arithmetic("True")


def test_nul_character_is_not_an_arithmetic_expression() -> None:
    with pytest.raises(ToolError, match="not an arithmetic expression"):
        safe_arithmetic("1\x00")


@pytest.mark.parametrize("expression", ["-" * 99 + "1", "(" * 50, "(" * 99 + "1", "+-" * 49 + "1"])
def test_deep_nesting_never_escapes_as_recursion_error(expression: str) -> None:
    with contextlib.suppress(ToolError):
        assert math.isfinite(safe_arithmetic(expression))


def test_pow_is_refused_before_anything_is_computed() -> None:
    """'9 ** 9 ** 9' would take minutes to compute; refusing the operator first makes this instant."""
    with pytest.raises(ToolError, match="operator not allowed: Pow"):
        safe_arithmetic("9 ** 9 ** 9")


def test_never_eval_creates_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for expression in ["open('pwned', 'w')", "__import__('os').system('touch pwned')"]:
        with pytest.raises(ToolError, match="Call"):
            safe_arithmetic(expression)
    assert list(tmp_path.iterdir()) == []


def test_never_eval_sets_no_global() -> None:
    for expression in ["globals().update(PWNED=1)", "__import__('builtins').__setattr__('PWNED', 1)"]:
        with pytest.raises(ToolError, match="Call"):
            safe_arithmetic(expression)
    assert "PWNED" not in vars(arithmetic) and not hasattr(builtins, "PWNED")


def test_nothing_is_ever_compiled_to_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """ast.parse uses compile() only to build a tree; any other use of eval, exec or compile fails here."""
    real_compile, modes = builtins.compile, []

    def tree_only(source: Any, filename: Any, mode: str, flags: int = 0, *args: Any, **kwargs: Any) -> Any:
        assert flags & ast.PyCF_ONLY_AST, "compile() asked for code, not a tree"
        modes.append(mode)
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", tree_only)
    monkeypatch.setattr(builtins, "eval", None)
    monkeypatch.setattr(builtins, "exec", None)
    assert safe_arithmetic("2 + 3 * 4") == 14
    assert modes == ["eval"]


@settings(max_examples=300)
@given(st.text(alphabet="0123456789+-*/(). e_jx", max_size=MAX_EXPRESSION_CHARS) | st.text(max_size=100))
def test_any_short_text_gives_a_number_or_a_tool_error(expression: str) -> None:
    try:
        result = safe_arithmetic(expression)
    except ToolError:
        return
    assert type(result) in (int, float) and abs(result) <= arithmetic.MAX_MAGNITUDE


def test_surrounding_whitespace_is_ignored() -> None:
    assert safe_arithmetic("  1 + 2\n") == 3
