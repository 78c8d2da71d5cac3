"""Trusted verdicts on the course's notebooks: solutions full, learners' versions zero, attacks gain nothing.

Every covered test cell runs here in the grader's process against the learner's functions in a process of
their own, so nothing the learner's code does to its own kernel (tags, input transformers, a rebound
`assert_own_work`) changes a verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from course_grade.score.submission_grades import NotebookGrades, SubmissionGrades
from course_grade.score.trusted.coverage import UNVERIFIED_CELLS, UNVERIFIED_NOTEBOOKS, unverified
from course_grade.score.trusted.grading import (
    NOTHING_TO_WITHHOLD,
    TAMPERING,
    apply_verdicts,
    reconcile,
    trusted_verdicts,
)
from course_grade.score.trusted.runner import NotebookVerdict, check_notebook
from course_grade.score.trusted.static import static_report
from course_lib.checks import judge_own_work
from grading.wrong_answers import published
from tests.course_grade.score.test_trusted_protocol import network_namespaces, private_network
from tests.support.notebook_runner import SOURCE, graded_results, instructor_notebook, with_cell_replaced

NAMES = sorted(path.name for path in SOURCE.iterdir() if path.is_dir())
COVERED = [name for name in NAMES if name not in UNVERIFIED_NOTEBOOKS]
LEARNERS = SOURCE.parent.parent / "notebooks"


def notebook(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def verdicts(name: str, submitted: dict[str, Any]) -> NotebookVerdict:
    return check_notebook(name, notebook(SOURCE / name / f"{name}.ipynb"), submitted)


def failed(verdict: NotebookVerdict) -> set[str]:
    return {cell.grade_id for cell in verdict.cells if cell.passed is False}


def with_solution(name: str, grade_id: str, code: str) -> dict[str, Any]:
    """The instructor's notebook with one solution cell replaced, as a submission."""
    return dict(json.loads(nbformat.writes(with_cell_replaced(instructor_notebook(name), grade_id, code))))


def learner_version(name: str) -> dict[str, Any]:
    return notebook(LEARNERS / f"{name}.ipynb")


@pytest.mark.parametrize("name", COVERED)
def test_the_solution_passes_every_trusted_check(name: str) -> None:
    verdict = verdicts(name, notebook(SOURCE / name / f"{name}.ipynb"))
    assert [cell for cell in verdict.cells if cell.passed is not True] == [] and not verdict.flags


@pytest.mark.parametrize("name", COVERED)
def test_the_learners_version_fails_every_trusted_check(name: str) -> None:
    verdict = verdicts(name, learner_version(name))
    assert [cell.grade_id for cell in verdict.cells if cell.passed is not False] == []


def test_a_notebook_without_trusted_checks_says_why_for_every_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(UNVERIFIED_NOTEBOOKS, "01_envelope", "a reason")
    verdict = verdicts("01_envelope", learner_version("01_envelope"))
    assert verdict.cells and all(
        cell.passed is None and "not checked" in cell.reason for cell in verdict.cells
    )


def test_a_cell_without_a_trusted_verdict_says_why_and_the_others_are_judged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    verdict = verdicts("01_envelope", learner_version("01_envelope"))
    first = verdict.cells[0].grade_id
    monkeypatch.setitem(UNVERIFIED_CELLS, "01_envelope", {first: "a reason"})
    cells = verdicts("01_envelope", learner_version("01_envelope")).cells
    assert (
        cells[0].passed is None
        and "a reason" in cells[0].reason
        and all(c.passed is False for c in cells[1:])
    )


@pytest.mark.parametrize("name", ["01_envelope", "05_failures"])
def test_wrong_answers_lose_the_same_cells_as_under_nbgrader(name: str, tmp_path: Path) -> None:
    """A differential sample (one wrong answer per notebook: a kernel run each is the cost)."""
    answer = published(name)[-1]
    changed = with_cell_replaced(instructor_notebook(name), answer.cell, answer.code)
    under_nbgrader = {cell for cell, passed in graded_results(changed, SOURCE / name).items() if not passed}
    assert failed(verdicts(name, dict(json.loads(nbformat.writes(changed))))) == under_nbgrader


@pytest.mark.parametrize("name", ["02_dispatcher", "06_security"])
def test_wrong_answers_lose_at_least_the_cells_they_name(name: str) -> None:
    for answer in published(name)[::5]:
        missed = set(answer.fails) - failed(verdicts(name, with_solution(name, answer.cell, answer.code)))
        assert not missed, f"{answer.why}: still passing under the trusted checks: {sorted(missed)}"


def with_tests_tagged_skip(submitted: dict[str, Any]) -> dict[str, Any]:
    for cell in submitted["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            cell["metadata"]["tags"] = ["skip-execution"]
    return submitted


def test_skip_execution_tags_on_an_empty_notebook_gain_nothing() -> None:
    verdict = verdicts("01_envelope", with_tests_tagged_skip(learner_version("01_envelope")))
    assert failed(verdict) == {cell.grade_id for cell in verdict.cells}


def test_an_input_transformer_gains_nothing() -> None:
    submitted = learner_version("01_envelope")
    hook = "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])\n"
    submitted["cells"].insert(2, nbformat.v4.new_code_cell(hook))
    verdict = verdicts("01_envelope", submitted)
    assert failed(verdict) == {cell.grade_id for cell in verdict.cells}


BYPASSES = {
    "a default argument": "def parse_envelope(raw, _impl=envelope_lib.parse_envelope):\n    return _impl(raw)\n",
    "a closure": (
        "def _make():\n    impl = envelope_lib.parse_envelope\n    def parse_envelope(raw):\n        return impl(raw)\n"
        "    return parse_envelope\nparse_envelope = _make()\n"
    ),
    "__import__ in the body": (
        "def parse_envelope(raw):\n    return __import__('course_lib.envelope').envelope.parse_envelope(raw)\n"
    ),
    "a rebound assert_own_work": (
        "assert_own_work = lambda *args, **kwargs: None\n"
        "def parse_envelope(raw):\n    return envelope_lib.parse_envelope(raw)\n"
    ),
}


@pytest.mark.parametrize("how", sorted(BYPASSES))
def test_an_own_work_bypass_fails_every_hidden_test(how: str) -> None:
    verdict = verdicts("01_envelope", with_solution("01_envelope", "parse_envelope", BYPASSES[how]))
    hidden = {cell.grade_id for cell in verdict.cells if cell.grade_id.startswith("test_parse_envelope")}
    assert hidden <= failed(verdict)


def test_a_call_of_the_reference_is_flagged_for_review() -> None:
    source = "import course_lib.envelope as e\ndef parse_envelope(raw):\n    return e.parse_envelope(raw)\n"
    verdict = verdicts("01_envelope", with_solution("01_envelope", "parse_envelope", source))
    assert any("course_lib.envelope.parse_envelope" in flag for flag in verdict.flags)


def test_a_cell_nbgrader_passed_and_the_trusted_check_failed_scores_zero_and_is_flagged() -> None:
    verdict = verdicts("01_envelope", with_tests_tagged_skip(learner_version("01_envelope")))
    full = NotebookGrades("01_envelope", {cell.grade_id: 2.0 for cell in verdict.cells}, {})
    applied, notes = reconcile(full, verdict)
    assert set(applied.scores.values()) == {0.0} and len(notes) == len(verdict.cells)
    assert {note.kind for note in notes} == {TAMPERING}


def test_a_cell_without_a_trusted_verdict_keeps_nbgraders_score(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(UNVERIFIED_NOTEBOOKS, "01_envelope", "a reason")
    verdict = verdicts("01_envelope", learner_version("01_envelope"))
    full = NotebookGrades("01_envelope", {cell.grade_id: 1.0 for cell in verdict.cells}, {})
    assert reconcile(full, verdict) == (full, []) and unverified("01_envelope", verdict.cells[0].grade_id)


def test_a_notebook_nbgrader_gave_no_point_starts_no_learner_process(tmp_path: Path) -> None:
    started: list[list[str]] = []
    ids = [cell.grade_id for cell in verdicts("01_envelope", learner_version("01_envelope")).cells]
    submitted = {"01_envelope": (LEARNERS / "01_envelope.ipynb").read_bytes()}

    def judged(scores: dict[str, float | None]) -> tuple[SubmissionGrades, tuple[NotebookVerdict, ...]]:
        grades = SubmissionGrades("s", "01_envelope", notebooks=(NotebookGrades("01_envelope", scores, {}),))
        wrap = lambda argv: started.append(argv) or argv  # noqa: E731
        return grades, trusted_verdicts(grades, SOURCE / "01_envelope", submitted, wrap, tmp_path)

    nothing, (verdict,) = judged(dict.fromkeys(ids, 0.0) | {ids[0]: None})
    assert not started and {cell.reason for cell in verdict.cells} == {NOTHING_TO_WITHHOLD}
    assert apply_verdicts(nothing, (verdict,)) == (nothing, [])
    one_point = NotebookGrades("01_envelope", dict.fromkeys(ids, 0.0) | {ids[-1]: 1.0}, {})
    kept, notes = reconcile(one_point, verdict)  # a point found after all is withheld, not kept unchecked
    assert kept.scores[ids[-1]] == 0.0 and [note.kind for note in notes] == [TAMPERING]
    judged(dict.fromkeys(ids, 0.0) | {ids[-1]: 1.0})
    assert started  # with a point to keep, the learner's process runs


CAPSTONE_SAMPLE = ("budget", "chat_adapter", "ask_approver")
"""07 cells whose first wrong answer is sampled: a class the harness holds, the adapter, a threaded approver."""


def with_solutions(name: str, replaced: dict[str, str]) -> dict[str, Any]:
    """The instructor's notebook with several solution cells replaced (one trusted run judges them all)."""
    changed = instructor_notebook(name)
    for grade_id, code in replaced.items():
        changed = with_cell_replaced(changed, grade_id, code)
    return dict(json.loads(nbformat.writes(changed)))


def test_capstone_wrong_answers_lose_the_cells_they_name() -> None:
    answers = [next(a for a in published("07_capstone") if a.cell == cell) for cell in CAPSTONE_SAMPLE]
    verdict = verdicts("07_capstone", with_solutions("07_capstone", {a.cell: a.code for a in answers}))
    missed = {cell for a in answers for cell in a.fails} - failed(verdict)
    assert not missed, f"still passing under the trusted checks: {sorted(missed)}"


BORROWED = {
    "budget": "import course_lib.desk.budget\n\n\nclass Budget(course_lib.desk.budget.Budget):\n    pass\n",
    "chat_adapter": (
        "import course_lib.adapters\n\n\n"
        "class ChatAdapter:\n    api = 'chat'\n    def __init__(self, base, tools, *, model=MODEL):\n"
        "        self._inner = course_lib.adapters.ChatAdapter(base, tools, model=model)\n"
        "    def start(self, user_text, *, timeout):\n        return self._inner.start(user_text, timeout=timeout)\n"
        "    def reply(self, results, *, timeout):\n        return self._inner.reply(results, timeout=timeout)\n"
        "    @property\n    def requests(self):\n        return self._inner.requests\n"
        "    def close(self):\n        pass\n"
    ),
}
"""Classes that work because they are the reference: a subclass of it, and a wrapper around it."""


def test_a_class_that_borrows_the_reference_fails_its_own_class_check() -> None:
    reasons = {
        c.grade_id: c.reason for c in verdicts("07_capstone", with_solutions("07_capstone", BORROWED)).cells
    }
    assert "inherits from" in reasons["test_budget_steps"], reasons["test_budget_steps"]
    assert "write it yourself" in reasons["test_chat_adapter_round_trip"], reasons[
        "test_chat_adapter_round_trip"
    ]


@pytest.mark.skipif(not network_namespaces(), reason="this kernel gives no network namespaces")
@pytest.mark.parametrize("name", ["03_loop", "04_wire"])
def test_the_loop_exercises_pass_from_a_private_network_through_the_relay(name: str) -> None:
    source = notebook(SOURCE / name / f"{name}.ipynb")
    verdict = check_notebook(name, source, source, wrap=private_network)
    assert verdict.cells and all(cell.passed is True for cell in verdict.cells)


FORGED = (
    "import course_lib.checks as _checks\n"
    "_checks._origin = lambda value: {'kind': 'other', 'module': ''}  # the learner's process now reports nothing\n"
    "import course_lib.envelope as _ref\n\n"
    "def parse_envelope(raw):\n    return _ref.parse_envelope(raw)\n"
)


def test_an_own_work_report_forged_in_the_learners_process_is_caught_from_the_source() -> None:
    verdict = verdicts("01_envelope", with_solution("01_envelope", "parse_envelope", FORGED))
    own_work = [cell for cell in verdict.cells if cell.grade_id.startswith("test_parse_envelope")]
    assert own_work and all(cell.passed is False and "_ref" in cell.reason for cell in own_work)


@pytest.mark.parametrize(
    ("source", "own"),
    [
        ("def f(raw):\n    return {'kind': 'final', 'text': raw}", True),
        ("import course_lib.envelope as e\ndef f(raw):\n    return e.parse_envelope(raw)", False),
        (
            "import functools, course_lib.envelope as e\nh = functools.partial(e.parse_envelope)\n"
            "def f(raw):\n    return h(raw)",
            False,
        ),
        (
            "from course_lib.envelope import parse_envelope as p\ndef f(raw, impl=p):\n    return impl(raw)",
            False,
        ),
        ("def g(raw):\n    return raw\nf = g", False),
    ],
    ids=["own", "module", "assigned-partial", "default", "not-a-def"],
)
def test_the_source_own_work_check(source: str, own: bool) -> None:
    try:
        judge_own_work(static_report("f", [source], {}), "course_lib.envelope")
    except AssertionError:
        assert not own
    else:
        assert own
