"""The trusted checks take the graded names from the learner and every other name from the instructor's cells."""

from __future__ import annotations

import json
from typing import Any

import pytest

from course_grade.score.trusted.runner import _code_cells, _nbgrader, is_fixed, split_cells
from course_lib.quiz import QUIZZES
from tests.course_grade.score.test_trusted_notebooks import (
    COVERED,
    SOURCE,
    failed,
    learner_version,
    notebook,
    verdicts,
)

SHADOWS_01 = """

def refusal(fn, raw):
    return "refused"


def load_fixture(name):
    return []


def post(path, body):
    return {}


server = None
"""
"""The issue's attack on notebook 01: a solution cell that also replaces the instructor's helpers."""

RETURNS_ITS_INPUT = "def parse_envelope(raw):\n    return raw\n"


def with_first_solution(submitted: dict[str, Any], source: str) -> dict[str, Any]:
    """The submission with its first solution cell's source replaced."""
    cell = next(c for c in _code_cells(submitted) if _nbgrader(c).get("solution"))
    cell["source"] = source
    return submitted


def first_solution(submitted: dict[str, Any]) -> str:
    cell = next(c for c in _code_cells(submitted) if _nbgrader(c).get("solution"))
    return "".join(cell["source"]) if isinstance(cell["source"], list) else str(cell["source"])


def setup_names(name: str) -> list[str]:
    """The names the instructor's read-only cells define with def or =."""
    from course_grade.score.trusted.runner import _defined

    source = notebook(SOURCE / name / f"{name}.ipynb")
    return sorted(
        {n for cell in _code_cells(source) if is_fixed(cell) for n in _defined("".join(cell["source"]))}
    )


def test_a_solution_cell_replacing_refusal_load_fixture_post_and_server_gains_nothing_and_is_flagged() -> (
    None
):
    sloppy = with_first_solution(learner_version("01_envelope"), RETURNS_ITS_INPUT)
    shadowed = with_first_solution(learner_version("01_envelope"), RETURNS_ITS_INPUT + SHADOWS_01)
    alone, attacked = verdicts("01_envelope", sloppy), verdicts("01_envelope", shadowed)
    assert failed(attacked) == failed(alone) and not alone.flags
    assert [flag for flag in attacked.flags if "`load_fixture`, `post`, `refusal`, `server`" in flag]


@pytest.mark.parametrize("name", COVERED)
def test_redefining_every_setup_name_in_a_solution_cell_earns_nothing(name: str) -> None:
    submitted = learner_version(name)
    names = setup_names(name)
    shadows = "".join(f"\n{n} = lambda *args, **kwargs: True\n" for n in names)
    verdict = verdicts(name, with_first_solution(submitted, first_solution(submitted) + shadows))
    assert failed(verdict) == {cell.grade_id for cell in verdict.cells}
    assert any(all(f"`{n}`" in flag for n in names) for flag in verdict.flags), verdict.flags


def test_the_graded_names_are_the_instructors_solution_names_only() -> None:
    source = notebook(SOURCE / "01_envelope" / "01_envelope.ipynb")
    submitted = with_first_solution(json.loads(json.dumps(source)), RETURNS_ITS_INPUT + SHADOWS_01)
    # the quiz's answers are graded names too: the trusted checks judge the learner's values, not the key's
    quiz = [f"q{number}" for number in range(1, len(QUIZZES["01_envelope"]) + 1)]
    assert split_cells(source, submitted).names == ["parse_envelope", "chat_message_to_envelopes", *quiz]


def test_imports_the_setup_also_makes_and_new_helpers_are_not_flagged() -> None:
    source = notebook(SOURCE / "01_envelope" / "01_envelope.ipynb")
    honest = (
        "import json\nfrom course_lib.errors import EnvelopeError\nimport unicodedata\n\n"
        "LIMIT = 64\n\ndef _walk(value):\n    return value\n\n" + RETURNS_ITS_INPUT
    )
    assert split_cells(source, with_first_solution(json.loads(json.dumps(source)), honest)).shadowing == []


def test_an_import_binding_an_instructors_name_to_something_else_is_flagged() -> None:
    source = notebook(SOURCE / "01_envelope" / "01_envelope.ipynb")
    sneaky = "from course_lib.envelope import parse_envelope as refusal\n\n" + RETURNS_ITS_INPUT
    flags = split_cells(source, with_first_solution(json.loads(json.dumps(source)), sneaky)).shadowing
    assert len(flags) == 1 and "`refusal`" in flags[0] and "`parse_envelope`" in flags[0]
