"""course-grade says so when a kernel could not reach its local stand-in (a proxy on the grading machine)."""

from __future__ import annotations

from typing import Any

from course_grade.run.execution import execution_notes


def graded(grade_id: str, ename: str, evalue: str) -> dict[str, Any]:
    marks = {"grade": True, "solution": False, "grade_id": grade_id, "points": 1}
    error = {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": []}
    return {"cell_type": "code", "metadata": {"nbgrader": marks}, "source": "", "outputs": [error]}


def test_a_refused_or_proxied_stand_in_gets_one_note_naming_the_cells() -> None:
    cells = [graded("test_a", "ModelHTTPError", "could not reach http://127.0.0.1:4567/v1: refused"),
             graded("test_b", "URLError", "<urlopen error Tunnel connection failed: 502 Bad Gateway>")]  # fmt: skip
    notes = execution_notes({"cells": cells}, "03_loop.ipynb", 60)
    assert [note.kind for note in notes] == ["unreachable"]
    assert "`test_a`" in notes[0].text and "`test_b`" in notes[0].text and "no_proxy" in notes[0].text


def test_an_ordinary_failed_assertion_gets_no_note() -> None:
    notes = execution_notes(
        {"cells": [graded("test_a", "AssertionError", "expected 2 requests, got 3")]}, "x", 60
    )
    assert notes == []
