"""The reference as oracle: every graded function or class has a differential test, each family quotes its
notebook, the notebooks hold the families' calls, and the judge compares, shrinks and reports as it promises."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import strategies as st

from course_grade.score.oracle import judge as judging
from course_grade.score.oracle.contract import Family, Part, call_outcome, shape
from course_grade.score.oracle.judge import Disagreement, OracleError, judge
from course_grade.score.oracle.registry import MODULES, UNJUDGED, parts
from course_lib import oracle
from grading import oracle_cells
from grading.build_notebooks import SOURCE, assignments
from tests.notebooks.test_contract_sentences import contracts


def graded_names(assignment: str) -> dict[str, str]:
    """Every function or class a solution cell of the instructor notebook defines -> that cell's grade_id."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)
    found = {}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef):
                    found[node.name] = meta["grade_id"]
    return found


@pytest.mark.parametrize("assignment", assignments())
def test_every_graded_function_or_class_has_a_differential_test(assignment: str) -> None:
    missing = [
        f"{assignment}.{name}"
        for name in graded_names(assignment)
        if name not in parts(assignment) and f"{assignment}.{name}" not in UNJUDGED
    ]
    assert not missing, f"graded names without a differential test (course_grade/score/oracle): {missing}"


@pytest.mark.parametrize("assignment", sorted(MODULES))
def test_every_family_quotes_a_bullet_of_its_part_and_names_a_test_cell_of_it(assignment: str) -> None:
    """A family's sentence is one or more verbatim fragments (joined by "; ") of its part's bullets."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)
    cells = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in notebook.cells}
    names = graded_names(assignment)
    bullets = contracts(assignment)
    for name, part in parts(assignment).items():
        assert part.families, f"{assignment}.{name} has no family"
        assert part.observables.strip(), f"{assignment}.{name} does not say what it compares"
        stated = bullets.get(names.get(name, ""), [])
        for key, family in part.families.items():
            for fragment in family.sentence.split("; "):
                assert fragment.strip() and any(fragment in bullet for bullet in stated), (
                    f"{assignment}.{name} family {key!r}: {fragment!r} is not part of a bullet of its part"
                )
            cell = cells.get(family.cell)
            assert cell is not None and cell.metadata["nbgrader"].get("grade"), (
                f"{assignment}.{name} family {key!r} names {family.cell!r}, not a test cell of the notebook"
            )


@pytest.mark.parametrize("assignment", sorted(MODULES))
def test_the_notebook_holds_every_familys_call_in_its_test_cell(assignment: str) -> None:
    assert not oracle_cells.stale(SOURCE / assignment / f"{assignment}.ipynb"), (
        f"{assignment}: run python3 course.py build {assignment} (grading/oracle_cells.py)"
    )


def test_the_oracle_lines_replace_an_old_block_and_keep_the_rest_of_the_hidden_region() -> None:
    cell = "assert f(1)\n### BEGIN HIDDEN TESTS\nassert f(2)\n### END HIDDEN TESTS"
    block = [oracle_cells.IMPORT, "# rule: be right", 'against_reference("01_envelope.f", "a", f)']
    once = oracle_cells.rewritten(cell, block)
    assert once.splitlines()[2:6] == ["assert f(2)", *block]
    assert oracle_cells.rewritten(once, block) == once
    assert oracle_cells.rewritten(once, []) == cell


def test_against_reference_does_nothing_where_no_judge_is_installed() -> None:
    oracle.against_reference("01_envelope.parse_envelope", "kind", lambda raw: "anything")


def test_the_innermost_judge_answers_and_leaves_when_its_block_ends() -> None:
    calls: list[str] = []
    with oracle.judging(lambda part, family, answer: calls.append(f"outer {family}")):
        with oracle.judging(lambda part, family, answer: calls.append(f"inner {family}")):
            oracle.against_reference("p", "a", None)
        oracle.against_reference("p", "b", None)
    oracle.against_reference("p", "c", None)
    assert calls == ["inner a", "outer b"]


def toy_part(reference: Any) -> Part:
    return Part(
        "01_envelope",
        "halve",
        lambda: reference,
        lambda answer, number: call_outcome(answer, number, refusals=(ValueError,), words=("odd",)),
        "the half, or a ValueError naming `odd`",
        {"all": Family("halve even numbers, refuse odd ones", "test_halve", st.integers(-1000, 1000), 50)},
    )


def reference_halve(number: int) -> int:
    if number % 2:
        raise ValueError(f"{number} is odd")
    return number // 2


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Part:
    part = toy_part(reference_halve)
    monkeypatch.setattr(
        judging, "find_part", lambda part_id: part if part_id == "01_envelope.halve" else None
    )
    return part


def test_an_answer_that_keeps_the_contract_passes_whatever_its_messages_say(toy: Part) -> None:
    def halve(number: int) -> int:
        if number & 1:
            raise ValueError("odd numbers have no half here")
        return number >> 1

    judge("01_envelope.halve", "all", halve)


def test_a_disagreement_names_the_sentence_and_the_shrunk_input(toy: Part) -> None:
    def halve(number: int) -> int:
        if number % 2:
            raise ValueError("odd")
        return number // 2 if number < 100 else 0  # wrong from 100 on

    with pytest.raises(Disagreement, match="halve even numbers, refuse odd ones") as caught:
        judge("01_envelope.halve", "all", halve)
    assert caught.value.example == 100
    assert isinstance(caught.value, AssertionError)


def test_a_refusal_whose_message_leaves_out_the_fixed_word_disagrees(toy: Part) -> None:
    def halve(number: int) -> int:
        if number % 2:
            raise ValueError("no")
        return number // 2

    with pytest.raises(Disagreement) as caught:
        judge("01_envelope.halve", "all", halve)
    assert caught.value.example in (-1, 1)


def test_the_same_examples_every_time(toy: Part) -> None:
    first = judging.examples(toy, "all")
    judging._drawn.clear()
    judging._observed.clear()
    assert judging.examples(toy, "all") == first and len(first) == 50


DIGEST_OF_DRAWS = """
import hashlib, importlib, pkgutil, sys
if sys.argv[1] == "after":  # a process that imported much local code first, as a grading worker or a test
    import course_lib, course_grade, grading.wrong_answers
    for package in (course_lib, course_grade, grading.wrong_answers):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not module.name.endswith("__main__"):
                try:
                    importlib.import_module(module.name)
                except Exception:
                    pass
from course_grade.score.oracle.judge import examples
from course_grade.score.oracle.registry import find_part
for part_id, key in [("07_capstone.mode_for", "never"), ("01_envelope.parse_envelope", "keys"),
                     ("05_failures.check_args", "types")]:
    print(part_id, key, hashlib.sha256(repr(examples(find_part(part_id), key)).encode()).hexdigest())
"""


def test_a_familys_examples_do_not_depend_on_what_the_process_imported_before() -> None:
    """Hypothesis mixes constants of the local modules a process has loaded into its draws: a grading worker
    that graded other notebooks first would draw other examples, and could grade differently."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    root = Path(__file__).resolve().parents[3]
    digests = [
        subprocess.run(
            [sys.executable, "-c", DIGEST_OF_DRAWS, history], cwd=root, capture_output=True, text=True, timeout=300,
            check=True,
        ).stdout
        for history in ("fresh", "after")
    ]  # fmt: skip
    assert digests[0].count("\n") == 3 and digests[0] == digests[1], digests


def test_a_part_or_family_the_registry_lacks_is_the_authors_error() -> None:
    with pytest.raises(OracleError, match="no differential part"):
        judge("01_envelope.nothing", "x", print)
    with pytest.raises(OracleError, match="has no family"):
        judge("01_envelope.parse_envelope", "nothing", print)


def test_shape_keeps_exact_types_and_counts_nan_equal() -> None:
    assert shape(1) != shape(True) and shape(1) != shape(1.0)
    assert shape({"a": [float("nan")]}) == shape({"a": [float("nan")]})
    assert shape({"a": 1, "b": 2}) == shape({"b": 2, "a": 1})
    assert shape(("x",)) != shape(["x"])


def oracle_only_notebooks() -> tuple[dict[str, Any], dict[str, Any]]:
    """A one-part notebook whose only test is the oracle's, and a submission that accepts "Final"."""

    def code(source: str, **nbgrader: Any) -> dict[str, Any]:
        meta = {"nbgrader": {"schema_version": 3, "locked": True, **nbgrader}} if nbgrader else {}
        return {
            "cell_type": "code",
            "source": source,
            "metadata": meta,
            "outputs": [],
            "execution_count": None,
        }

    setup = code(
        "from course_lib.errors import EnvelopeError\n", grade_id="setup", grade=False, solution=False
    )
    solution = (
        "from course_lib.envelope import parse_envelope as _p\ndef parse_envelope(raw):\n    return _p(raw)\n"
    )
    sentence = parts("01_envelope")["parse_envelope"].families["kind"].sentence
    test = (
        '"""The kind."""\n### BEGIN HIDDEN TESTS\n'
        f"{oracle_cells.IMPORT}\n# rule: {sentence}\n"
        'against_reference("01_envelope.parse_envelope", "kind", parse_envelope)\n### END HIDDEN TESTS\n'
    )
    cells = [setup, code(solution, grade_id="parse_envelope", solution=True, grade=False, locked=False),
             code(test, grade_id="test_kind", grade=True, solution=False, points=1)]  # fmt: skip
    source = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    wrong = json.loads(json.dumps(source))
    wrong["cells"][1]["source"] = (
        "from course_lib.errors import EnvelopeError as _E\n"
        "def parse_envelope(raw):\n"
        "    if type(raw) is not dict or type(raw.get('kind')) is not str:\n"
        "        raise _E('kind: wrong')\n"
        "    if raw['kind'].lower() not in ('final', 'call'):\n"
        "        raise _E('kind: wrong')\n"
        "    return dict(raw, kind=raw['kind'].lower())\n"
    )
    return source, wrong


def test_the_trusted_checks_run_the_oracle_and_the_learner_reads_the_rule_never_the_input(
    tmp_path: Path,
) -> None:
    from course_grade.score.submission_grades import NotebookGrades
    from course_grade.score.trusted.grading import DIFFERENT, reconcile
    from course_grade.score.trusted.runner import check_notebook

    source, wrong = oracle_only_notebooks()
    verdict = check_notebook("01_envelope", source, wrong, folder=tmp_path)
    (cell,) = verdict.cells
    sentence = parts("01_envelope")["parse_envelope"].families["kind"].sentence
    assert cell.passed is False and "differs from the reference" in cell.reason
    assert sentence in cell.hidden and "hidden test 1 of 1 failed" in cell.hidden
    assert "Final" not in cell.hidden and "FINAL" not in cell.hidden and "'kind'" not in cell.hidden
    grades = NotebookGrades("01_envelope", {"test_kind": 1.0}, {})
    applied, (note,) = reconcile(grades, verdict)
    assert applied.scores["test_kind"] == 0.0 and note.kind == DIFFERENT and sentence in note.text
    assert "Final" not in note.text and "tampering" not in note.text


def test_every_local_family_named_exists_and_says_why() -> None:
    from course_grade.score.oracle.registry import LOCAL

    for part_id, families in LOCAL.items():
        assignment, _, name = part_id.partition(".")
        part = parts(assignment)[name]
        for key, why in families.items():
            assert key in part.families and part.families[key].local == why and why, f"{part_id} {key}"


def test_the_trusted_checks_skip_a_local_family_and_judge_the_others(
    toy: Part, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    monkeypatch.setitem(toy.families, "all", dataclasses.replace(toy.families["all"], local="a reason"))  # type: ignore[arg-type]
    judging.remote_judge("01_envelope.halve", "all", lambda number: "wrong")
    with pytest.raises(Disagreement):
        judge("01_envelope.halve", "all", lambda number: "wrong")
