"""A failed hidden test names the rule it checks, in the words of the contract, and nothing of the test itself.

Each graded test cell with a hidden region declares its rule: the first line of its docstring, or for a finer
rule a `# rule: ...` comment right above a check of the hidden region (course_grade.score.hidden). A rule is
shown to the learner, so it may quote no literal of the hidden region the learner cannot read anyway: no
hidden input, no expected value.
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import nbformat
import pytest

from course_grade.cells import cell_grade_id, is_test, visible
from course_grade.notebooks import read, write
from course_grade.score.hidden import checks, hidden_lines, regions, rule_comments, rules, verdict_at
from grading.build_notebooks import GRADING, LEARNERS, assignments
from grading.wrong_answers import published
from tests.support.grading_helpers import course_grade, fresh_course

MIN_LITERAL = 3
"""A shorter string literal ("a", "x") is a word of any sentence, not a leak."""


def test_cells() -> list[tuple[str, str, str]]:
    """(assignment, grade_id, source) of every graded test cell, in every notebook."""
    found = []
    for name in assignments():
        notebook = nbformat.read(GRADING / "source" / name / f"{name}.ipynb", as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code" and is_test(cell):
                found.append((name, cell_grade_id(cell), cell.source))
    return found


def hidden_test_cells() -> list[tuple[str, str, str]]:
    """(assignment, grade_id, source) of every graded test cell with a hidden region, in every notebook."""
    return [(name, grade_id, source) for name, grade_id, source in test_cells() if regions(source)]


def bare_visible_asserts(source: str) -> list[str]:
    """The asserts a learner sees in a test cell (outside its hidden regions) that carry no message."""
    inside = regions(source)
    return [
        ast.unparse(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assert)
        and node.msg is None
        and not any(first <= node.lineno <= last for first, last in inside)
    ]


def hidden_literals(source: str) -> set[str]:
    """The string and number literals written inside a cell's hidden regions, as text."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    inside = regions(source)
    names = {  # a differential check's part and family are names of the oracle, not inputs it hides
        id(argument)
        for call in ast.walk(tree)
        if isinstance(call, ast.Call) and ast.unparse(call.func).endswith("against_reference")
        for argument in call.args
    }
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or isinstance(node.value, bool) or node.value is None:
            continue
        if id(node) in names:
            continue
        if not any(
            first <= node.lineno and (node.end_lineno or node.lineno) <= last for first, last in inside
        ):
            continue
        if isinstance(node.value, str) and len(node.value.strip()) >= MIN_LITERAL:
            found.add(node.value.strip())
        elif isinstance(node.value, int | float) and len(repr(node.value)) >= 2:
            found.add(repr(node.value))
    return found


def public_text(name: str) -> str:
    """What a learner reads anyway: the learners' notebook, but for the rules of its test cells."""
    notebook = nbformat.read(LEARNERS / f"{name}.ipynb", as_version=4)
    texts = []
    for cell in notebook.cells:
        source = visible(cell.source)
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
            source = "\n".join(source.split("\n")[1:]) if source.startswith('"""') else source
        texts.append(source)
    return "\n".join(texts)


def leaks(rule: str, source: str, public: str) -> list[str]:
    """The literals of the hidden region a rule quotes that the learner could not read elsewhere."""
    return sorted(
        literal
        for literal in hidden_literals(source)
        if re.search(rf"(?<![\w.]){re.escape(literal)}(?![\w])", rule) and literal not in public
    )


CELLS = hidden_test_cells()
PUBLIC = {name: public_text(name) for name in assignments()}


VISIBLE = test_cells()


@pytest.mark.parametrize(("name", "grade_id", "source"), VISIBLE, ids=[f"{n}-{g}" for n, g, _ in VISIBLE])
def test_every_visible_check_names_what_it_checks(name: str, grade_id: str, source: str) -> None:
    """A cell that checks several bullets costs them all for one: its failure must say which one."""
    assert bare_visible_asserts(source) == [], f"{name} {grade_id}: an assert without a message"


def test_a_bare_visible_assert_is_found_and_a_hidden_one_is_the_rules_business() -> None:
    assert bare_visible_asserts('assert f(1) == 1, "one"\nassert f(2) == 2') == ["assert f(2) == 2"]
    assert bare_visible_asserts(SOURCE) == ["assert f('1') == 1"]  # the hidden ones have their `# rule:`


@pytest.mark.parametrize(("name", "grade_id", "source"), CELLS, ids=[f"{n}-{g}" for n, g, _ in CELLS])
def test_every_hidden_check_declares_its_rule(name: str, grade_id: str, source: str) -> None:
    assert checks(source), f"{name} {grade_id}: a hidden region without a check"
    missing = [k for k, rule in enumerate(rules(source), 1) if not rule]
    assert missing == [], f"{name} {grade_id}: hidden checks {missing} have no rule (docstring or # rule:)"


@pytest.mark.parametrize(("name", "grade_id", "source"), CELLS, ids=[f"{n}-{g}" for n, g, _ in CELLS])
def test_no_rule_quotes_a_hidden_literal(name: str, grade_id: str, source: str) -> None:
    found = {
        rule: leaks(rule, source, PUBLIC[name])
        for rule in set(rules(source)) | set(rule_comments(source).values())
    }
    assert {rule: quoted for rule, quoted in found.items() if quoted} == {}


SOURCE = '''"""Count the length as given, before any strip()."""
assert f("1") == 1
### BEGIN HIDDEN TESTS
assert f(" 12 ") == 2
# rule: refuse a request longer than the limit
assert f("s3cret" * 9) is None
### END HIDDEN TESTS'''


def test_a_failure_names_the_rule_of_its_check() -> None:
    assert verdict_at(SOURCE, 4, "AssertionError") == (
        "hidden test 1 of 2 failed (AssertionError); the rule it checks: Count the length as given, before any strip()."
    )
    assert verdict_at(SOURCE, 6, "AssertionError") == (
        "hidden test 2 of 2 failed (AssertionError); the rule it checks: refuse a request longer than the limit"
    )
    assert verdict_at(SOURCE, 2, "AssertionError") is None  # a visible failure is the kernel's to show


def test_a_check_without_a_rule_and_a_leaking_rule_are_caught() -> None:
    bare = SOURCE.split("\n", 1)[1]
    assert rules(bare) == ["", "refuse a request longer than the limit"]
    leaking = SOURCE.replace("before any strip()", "so 3 * 9 is 27")
    assert leaks(rules(leaking)[0], leaking, public="") == []  # no literal of the hidden region
    leaking = SOURCE.replace("before any strip()", "so the answer for s3cret is None")
    assert leaks(rules(leaking)[0], leaking, public="") == ["s3cret"]
    assert leaks(rules(SOURCE)[0], SOURCE, public="") == []
    assert leaks("refuse s3cret", SOURCE, public="") == ["s3cret"]
    assert leaks("refuse s3cret", SOURCE, public="the example s3cret") == []
    judged = SOURCE.replace(
        "### END", '# rule: refuse a binary operator\nagainst_reference("06.f", "binary", f)\n### END'
    )
    assert leaks("refuse a binary operator", judged, public="") == []  # the family's name is no hidden input


# End to end: `course-grade run` on 06, one learner whose safe_arithmetic counts the length after stripping.

ASSIGNMENT = "06_security"
STRIPPED = "counts the length after strip()"
"""The published wrong answer this learner starts from. Its `strip()` fails the visible test ("'1' and 100
spaces"), so this learner strips the leading whitespace only: the visible tests pass, a hidden one fails."""


@pytest.mark.timeout(600)
def test_a_wrong_06_answers_feedback_names_the_rule_and_no_hidden_input(tmp_path: Path) -> None:
    code = next(answer.code for answer in published(ASSIGNMENT) if answer.why.startswith(STRIPPED))
    code = code.replace("len(expression.strip())", "len(expression.lstrip())")
    notebook = read(GRADING / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    for cell in notebook.cells:
        if cell_grade_id(cell) == "safe_arithmetic":
            cell.source = code
    target = tmp_path / "submitted" / "stripper" / ASSIGNMENT
    target.mkdir(parents=True)
    write(notebook, target / f"{ASSIGNMENT}.ipynb")
    course = fresh_course(tmp_path)
    run = course_grade(
        course, "run", str(tmp_path / "submitted"), ASSIGNMENT, "--jobs", "1", "--timeout", "60"
    )
    assert run.returncode == 0, run.stderr
    page = (course / "feedback" / "stripper" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    length = next(source for name, grade_id, source in CELLS if grade_id == "test_safe_arithmetic_length")
    assert re.search(r"hidden test \d+ of \d+ failed \(AssertionError\); the rule it checks: ", text), text[
        -3000:
    ]
    named = [rule for rule in rules(length) if " ".join(rule.split()) in " ".join(text.split())]
    assert named and all("as given" in rule for rule in named), named  # the length cell's, whichever check
    shown = [line for line in hidden_lines(length) if len(line) > 8 and line in text]
    assert shown == [] and "before parsing: got" not in text and "characters, as given" not in text
