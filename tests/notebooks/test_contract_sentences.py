"""Traceability: each sentence of a part's contract has a published wrong answer that breaks it, and back.

A part states its contract as a bullet list under the line "Your function must:" (or "Your class must:",
"Your dictionary must:") in its
markdown (see
grading/AUTHORING.md); each `WrongAnswer.breaks` quotes, verbatim, part of exactly one bullet of its part.
"""

from __future__ import annotations

import importlib

import nbformat
import pytest

from grading.build_notebooks import GRADING, assignments
from grading.wrong_answers import WrongAnswer, published
from tests.support.forked_cells import ForkedCells
from tests.support.notebook_runner import ending_at, instructor_notebook, with_cell_replaced, without_demos

MUST = ("Your function must:", "Your functions must:", "Your class must:", "Your dictionary must:")


def must_bullets(markdown: str) -> list[str]:
    """The bullets of the "Your function must:" list in one markdown cell (none if it has no such list)."""
    lines = markdown.splitlines()
    starts = [number for number, line in enumerate(lines) if line in MUST]
    if not starts:
        return []
    bullets: list[str] = []
    for line in lines[starts[0] + 1 :]:
        if line.startswith("- "):
            bullets.append(line[2:])
        elif bullets or line.strip():
            break
    return bullets


def contracts(assignment: str) -> dict[str, list[str]]:
    """Each solution cell's grade_id mapped to the contract bullets stated before it (since the last heading)."""
    notebook = nbformat.read(GRADING / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    found: dict[str, list[str]] = {}
    bullets: list[str] = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            if cell.source.startswith("## "):
                bullets = []
            bullets = bullets + must_bullets(cell.source)
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution") and bullets:
            found[meta["grade_id"]] = bullets
            bullets = []  # a list belongs to the first solution cell after it
    return found


CONTRACTS = {name: contracts(name) for name in assignments()}
BULLETS = [
    (name, cell, bullet)
    for name, parts in CONTRACTS.items()
    for cell, bullets in parts.items()
    for bullet in bullets
]
QUOTING = [
    (name, answer)
    for name in CONTRACTS
    for answer in published(name)
    if answer.breaks or answer.cell in CONTRACTS[name]
]


def test_the_audited_parts_state_their_contracts() -> None:
    """The parser finds the lists it is meant to check: every audited part below states one."""
    audited = [
        ("04_wire", "tool_specs"),
        ("04_wire", "is_strict_compatible"),
        ("04_wire", "second_request_messages"),
        ("04_wire", "assemble_chat_stream"),
        ("04_wire", "assemble_responses_stream"),
        ("04_wire", "chained_responses_loop"),
        ("07_capstone", "chat_adapter"),
        ("07_capstone", "policy"),
        ("07_capstone", "ask_approver"),
        ("07_capstone", "canonical"),
        ("07_capstone", "budget"),
        ("07_capstone", "audit_entry"),
        ("07_capstone", "redact"),
        ("05_failures", "check_args"),
        ("05_failures", "run_tool_call"),
        ("03_loop", "chat_tool_loop"),
        ("03_loop", "responses_tool_loop"),
        ("06_security", "safe_arithmetic"),
        ("06_security", "policy"),
        ("02_dispatcher", "dispatch"),
        ("02_dispatcher", "dispatch_with"),
        ("01_envelope", "parse_envelope"),
        ("01_envelope", "chat_message_to_envelopes"),
    ]
    assert all(len(CONTRACTS[name].get(cell, [])) >= 5 for name, cell in audited)
    assert len(CONTRACTS["05_failures"].get("tighten_average", [])) >= 3


def test_a_list_ends_at_its_first_line_that_is_not_a_bullet() -> None:
    markdown = f"Intro.\n\n{MUST[1]}\n\n- one;\n- two.\n\nAfter.\n- not a rule\n"
    assert must_bullets(markdown) == ["one;", "two."]


@pytest.mark.parametrize(
    ("name", "cell", "bullet"), BULLETS, ids=[f"{n}-{c}-{i}" for i, (n, c, _) in enumerate(BULLETS)]
)
def test_every_contract_sentence_has_a_wrong_answer_that_breaks_it(name: str, cell: str, bullet: str) -> None:
    quoting = [
        answer.why
        for answer in published(name)
        if answer.cell == cell and answer.breaks and answer.breaks in bullet
    ]
    assert quoting, f"{name} {cell}: no published wrong answer breaks the sentence {bullet!r}"


@pytest.mark.parametrize(
    ("name", "answer"), QUOTING, ids=[f"{n}-{a.cell}-{i}" for i, (n, a) in enumerate(QUOTING)]
)
def test_every_wrong_answer_quotes_one_sentence_of_its_part(name: str, answer: WrongAnswer) -> None:
    bullets = CONTRACTS[name].get(answer.cell, [])
    quoted = [bullet for bullet in bullets if answer.breaks and answer.breaks in bullet]
    assert len(quoted) == 1, f"{answer.why!r}: breaks {answer.breaks!r} quotes {len(quoted)} of {bullets!r}"


TEMPLATES = [
    ("04_wire", "_SPECS_OK", "tool_specs"),
    ("04_wire", "_STRICT_OK", "is_strict_compatible"),
    ("04_wire", "_SECOND_OK", "second_request_messages"),
    ("04_wire", "_CHAT_STREAM_OK", "assemble_chat_stream"),
    ("04_wire", "_RESPONSES_STREAM_OK", "assemble_responses_stream"),
    ("04_wire", "_CHAINED_OK", "chained_responses_loop"),
    ("07_capstone", "_ADAPTER_OK", "chat_adapter"),
    ("07_capstone", "_POLICY_OK", "policy"),
    ("07_capstone", "_APPROVER_OK", "ask_approver"),
    ("07_capstone", "_CANONICAL_OK", "canonical"),
    ("07_capstone", "_BUDGET_OK", "budget"),
    ("07_capstone", "_AUDIT_OK", "audit_entry"),
    ("07_capstone", "_REDACT_OK", "redact"),
    ("05_failures", "_CHECK_OK", "check_args"),
    ("05_failures", "_RUN_OK", "run_tool_call"),
    ("03_loop", "_CHAT_OK", "chat_tool_loop"),
    ("03_loop", "_RESPONSES_OK", "responses_tool_loop"),
    ("06_security", "_SAFE_OK", "safe_arithmetic"),
    ("06_security", "_POLICY_OK", "policy"),
    ("02_dispatcher", "_PARSE_AND_DISPATCH_OK", "dispatch"),
    ("02_dispatcher", "_DISPATCH_WITH_OK", "dispatch_with"),
    ("01_envelope", "_PARSE_OK", "parse_envelope"),
    ("01_envelope", "_ADAPTER_OK", "chat_message_to_envelopes"),
]


@pytest.mark.parametrize(("name", "template", "cell"), TEMPLATES, ids=[t[1] for t in TEMPLATES])
def test_the_correct_answer_the_wrong_ones_are_spliced_from_passes_its_tests(
    name: str, template: str, cell: str, forked: ForkedCells
) -> None:
    """A second correct answer, written apart from the instructor's solution, passes every test of its part."""
    code = getattr(importlib.import_module(f"grading.wrong_answers.{name}"), template)
    tests = tuple({test for answer in published(name) if answer.cell == cell for test in answer.fails})
    notebook = ending_at(with_cell_replaced(without_demos(instructor_notebook(name)), cell, code), tests)
    results = forked.results(notebook, GRADING / "source" / name)
    assert [test for test in tests if not results.get(test)] == []


# ---- refusing everything, or returning the input, scores nothing --------------------------------------------

SCORES_NOTHING = {
    "refuses every": "an answer that refuses (or raises on) every input",
    "returns its input unchanged": "an answer that hands back what it was given",
}
"""The two degenerate answers every audited part publishes, by the first words of their `why`."""
DEGENERATE_AUDITED = [
    ("01_envelope", "parse_envelope"),
    ("01_envelope", "chat_message_to_envelopes"),
    ("02_dispatcher", "dispatch"),
    ("02_dispatcher", "dispatch_with"),
    ("03_loop", "chat_tool_loop"),
    ("03_loop", "responses_tool_loop"),
    ("05_failures", "check_args"),
    ("05_failures", "run_tool_call"),
    ("06_security", "safe_arithmetic"),
    ("07_capstone", "policy"),
    ("07_capstone", "ask_approver"),
    ("07_capstone", "canonical"),
    ("07_capstone", "budget"),
    ("07_capstone", "redact"),
    ("07_capstone", "audit_entry"),
    ("07_capstone", "chat_adapter"),
]
"""The parts whose every test cell also holds an accepted case (grading/AUTHORING.md, "Refusing cannot pass")."""


def graded_cells_of_part(notebook: nbformat.NotebookNode, cell: str) -> list[str]:
    """The graded test cells after solution cell `cell`, up to the next solution cell."""
    found: list[str] = []
    inside = False
    for meta in (c.metadata.get("nbgrader", {}) for c in notebook.cells if c.cell_type == "code"):
        if meta.get("solution"):
            inside = meta["grade_id"] == cell
        elif inside and meta.get("grade"):
            found.append(meta["grade_id"])
    return found


@pytest.mark.parametrize(
    ("name", "cell"), DEGENERATE_AUDITED, ids=[f"{n}-{c}" for n, c in DEGENERATE_AUDITED]
)
@pytest.mark.parametrize("start", list(SCORES_NOTHING))
def test_refusing_everything_or_returning_the_input_scores_nothing(name: str, cell: str, start: str) -> None:
    """Each such answer is published and names every test cell of its part, so (tests/notebooks/test_notebooks.py
    runs it) it loses all of that part's points: every test cell that checks refusals also holds an accepted case."""
    tests = graded_cells_of_part(
        nbformat.read(GRADING / "source" / name / f"{name}.ipynb", as_version=4), cell
    )
    answers = [answer for answer in published(name) if answer.cell == cell and answer.why.startswith(start)]
    assert tests and answers, f"{name} {cell}: no published wrong answer is {SCORES_NOTHING[start]}"
    for answer in answers:
        assert [test for test in tests if test not in answer.fails] == [], (
            f"{answer.why!r} keeps these points"
        )
