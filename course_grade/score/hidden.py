"""What a learner's feedback shows of the instructor's hidden tests: that one failed, and which, never its text.

The autograded notebook holds each test cell whole (nbgrader runs the hidden tests in the learner's kernel),
so its outputs can carry a hidden test's inputs and expected values (an assertion message, a traceback, an
exception raised by the learner's function on a hidden input) and, when the learner's code prints cell
sources, the hidden lines themselves. For the feedback, a test cell with hidden tests shows:

- nothing, when it passed (a line saying so when it wrote to stderr, which fails it);
- its visible part's failure (message and output), when the visible part failed;
- one line, "hidden test k of N failed", when a hidden test failed: the hidden region is split into its
  checks (every `assert`, and every call standing alone, such as `assert_own_work(...)`), numbered in order,
  and the failing line read from the cell's own frame in the traceback. The line names the rule that check
  holds the learner's code to, in the words of the contract: a comment `# rule: ...` right above the check in
  the hidden region, or else the first line of the cell's docstring (see `rule_at`). Never its input, its
  expected value or its source: tests/notebooks/test_hidden_rules.py fails on a hidden check without a rule
  and on a rule that quotes a literal of the hidden region.

Every output of every cell then loses the lines that repeat a line of a hidden test's source (a rule comment is
not one: it is written for the learner to read).
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from collections.abc import Iterable
from typing import Any

from course_grade.cells import visible

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
MIN_REPEAT = 6
"""A hidden line shorter than this (`]`, `else:`) is dropped from output only when a line equals it."""

STDERR = "[this cell wrote to stderr, which fails it; not shown, since its hidden tests ran]\n"

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FRAME = re.compile(r"(?:Cell In\[\d+\]|<ipython-input-[^>]*>|File <[^>]*>), line (\d+)")
_RULE = re.compile(r"^\s*#\s*rule:\s*(.*?)\s*$")
"""A comment naming the rule of the check right below it, in a hidden region."""
MAX_RULE = 300
"""A rule is cut to this many characters on a feedback page."""
_SAFE_ERRORS = frozenset({"DeadKernelError", "KernelStoppedError"})
"""Errors the grader itself writes into a cell (course_grade.run.hardened): their messages hold no test text."""


def has_hidden(source: str) -> bool:
    """True if a cell's source holds a hidden-test region."""
    return BEGIN in source


def regions(source: str) -> list[tuple[int, int]]:
    """The hidden regions of a cell as (first, last) line numbers, 1-based, markers excluded."""
    found, start = [], None
    for number, line in enumerate(source.split("\n"), 1):
        if BEGIN in line:
            start = number + 1
        elif END in line and start is not None:
            found.append((start, number - 1))
            start = None
    if start is not None:
        found.append((start, len(source.split("\n"))))
    return found


def hidden_lines(source: str) -> list[str]:
    """The stripped, non-empty lines of a cell's hidden regions, but for its rule comments (public by design)."""
    lines = source.split("\n")
    return [
        lines[n - 1].strip() for first, last in regions(source) for n in range(first, last + 1)
        if lines[n - 1].strip() and not _RULE.match(lines[n - 1])
    ]  # fmt: skip


def cell_rule(source: str) -> str:
    """The rule a test cell checks: the first line of its docstring ("" when it has none)."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return ""
    first = body[0].value if body and isinstance(body[0], ast.Expr) else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value.strip().split("\n")[0].strip()
    return ""


def rule_comments(source: str) -> dict[int, str]:
    """The `# rule: ...` comments of a cell's hidden regions: line number (1-based) -> the rule."""
    lines = source.split("\n")
    found = {}
    for first, last in regions(source):
        for number in range(first, last + 1):
            if (match := _RULE.match(lines[number - 1])) and match.group(1):
                found[number] = match.group(1)
    return found


def rule_at(source: str, line: int | None) -> str:
    """The rule of the hidden check that starts at `line`: the `# rule:` comment on the nearest non-blank line
    above it, else the cell's own rule (the first line of its docstring); "" when neither is declared."""
    comments = rule_comments(source)
    if line is not None:
        lines = source.split("\n")
        above = line - 1
        while above >= 1 and not lines[above - 1].strip():
            above -= 1
        if above in comments:
            return comments[above]
    return cell_rule(source)


def rules(source: str) -> list[str]:
    """The rule of each hidden check of a cell, in the order of `checks` ("" for a check with none)."""
    return [rule_at(source, first) for first, _ in checks(source)]


def checks(source: str) -> list[tuple[int, int]]:
    """The hidden checks of a cell, in order, as (first, last) line numbers: asserts and lone calls."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    inside = regions(source)
    found = []
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.Assert | ast.Expr):
            continue
        if isinstance(statement, ast.Expr) and not isinstance(statement.value, ast.Call):
            continue  # a lone call (`assert_own_work(...)`) is a check; a lone name or constant is not
        first, last = statement.lineno, statement.end_lineno or statement.lineno
        if any(start <= first and last <= end for start, end in inside):
            found.append((first, last))
    return sorted(set(found))


def failing_line(error: dict[str, Any]) -> int | None:
    """The line of the test cell an error output was raised from: the outermost frame of its traceback."""
    for entry in error.get("traceback", []):
        match = _FRAME.search(_ANSI.sub("", str(entry)))
        if match:
            return int(match.group(1))
    return None


def verdict(source: str, error: dict[str, Any]) -> str | None:
    """The line a cell whose hidden test raised `error` shows ("hidden test k of N failed"); None when the
    error came from the visible part."""
    return verdict_at(source, failing_line(error), str(error.get("ename", "")))


def verdict_at(source: str, line: int | None, name: str) -> str | None:
    """The line a cell shows when `line` of its source raised an error of class `name` ("hidden test k of N
    failed"); None when that line is outside its hidden regions; "a hidden test failed" when the line is not
    known."""
    inside = regions(source)
    if line is not None and not any(first <= line <= last for first, last in inside):
        return None
    found = checks(source)
    if line is None or not found:
        return "a hidden test failed" + _naming(cell_rule(source))
    number = next((k for k, (_, last) in enumerate(found, 1) if line <= last), len(found))
    why = f" ({name})" if isinstance(getattr(builtins, name, None), type) else ""
    rule = rule_at(source, found[number - 1][0])
    return f"hidden test {number} of {len(found)} failed{why}" + _naming(rule)


def _naming(rule: str) -> str:
    """The end of a failure's line that names its rule ("" when there is none)."""
    rule = " ".join(rule.split())
    rule = rule if len(rule) <= MAX_RULE else rule[: MAX_RULE - 3] + "..."
    return f"; the rule it checks: {rule}" if rule else ""


def scrub(text: str, hidden: Iterable[str]) -> str:
    """`text` without the lines that repeat a hidden line (as written, or escaped as in a repr or JSON)."""
    patterns = set()
    for line in hidden:
        patterns |= {line, json.dumps(line)[1:-1], repr(line)[1:-1]}
    long = [p for p in patterns if len(p) >= MIN_REPEAT]
    kept = []
    for line in text.split("\n"):
        plain = _ANSI.sub("", line)
        if plain.strip() in patterns or any(p in plain for p in long):
            continue
        kept.append(line)
    return "\n".join(kept)


def _scrub_output(output: dict[str, Any], hidden: list[str]) -> dict[str, Any] | None:
    """One output with hidden lines removed; data outputs keep only their plain text; None if nothing is left."""
    kind = output.get("output_type")
    if kind == "stream":
        output["text"] = scrub(str(output.get("text", "")), hidden)
        return output if output["text"].strip() or output.get("name") == "stderr" else None
    if kind == "error":
        output["evalue"] = scrub(str(output.get("evalue", "")), hidden)
        output["traceback"] = [f"{output.get('ename', 'Error')}: {output['evalue']}"]
        return output
    if kind in ("execute_result", "display_data"):
        plain = scrub(str(output.get("data", {}).get("text/plain", "")), hidden)
        output["data"], output["metadata"] = {"text/plain": plain}, {}
        return output if plain.strip() else None
    return None


def _hidden_failure(message: str) -> dict[str, Any]:
    """The one error output a cell whose hidden test failed shows."""
    return {"output_type": "error", "ename": "HiddenTestFailed", "evalue": message,
            "traceback": [f"HiddenTestFailed: {message}"]}  # fmt: skip


def for_feedback(cells: list[Any], node: Any) -> None:
    """Rewrite `cells` (nbformat cells, in place) as the learner's feedback shows them; `node` makes outputs."""
    hidden = [line for cell in cells for line in hidden_lines(str(cell.get("source", "")))]
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = str(cell.get("source", ""))
        outputs = list(cell.get("outputs", []))
        if has_hidden(source):
            error = next((o for o in outputs if o.get("output_type") == "error"), None)
            if error is None:  # passed, or failed only by writing to stderr, which may echo a hidden input
                wrote = any(o.get("output_type") == "stream" and o.get("name") == "stderr" for o in outputs)
                outputs = [node(output_type="stream", name="stderr", text=STDERR)] if wrote else []
            elif error.get("ename") in _SAFE_ERRORS:
                outputs = [error]
            elif (message := verdict(source, error)) is not None:
                outputs = [node(**_hidden_failure(message))]
            cell.source = visible(source)
        cell.outputs = [kept for o in outputs if (kept := _scrub_output(o, hidden)) is not None]
