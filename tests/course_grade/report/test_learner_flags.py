"""Review flags go to the instructor, not to the learner: a learner's feedback page shows a flag only when points
were withheld because of it (issue 32, item 3).

A hand-built gradebook (tests/course_grade/report/test_report.py's class of five), the notes grading would have
kept, and the feedback pages nbgrader would have written: no grading run.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from course_grade.notes import Note, save_notes
from course_grade.pipeline import Pipeline
from course_grade.report.feedback import finish
from tests.course_grade.report.test_report import build_class

SOLUTION = '''import re

SECRET = re.compile(r"sk-[A-Za-z0-9]{20,}")


def redact(text):
    """Every secret of the text replaced, the rest as it was."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return SECRET.sub("[redacted]", text)
'''
"""The honest answer both learners handed in (as if they had worked together, or from the same hint)."""

FLAGGED = Note(
    "flagged", "nb.ipynb: for manual review (the grade is not changed by this): `a` uses dynamic code."
)
REMARK = Note("review", "nb.ipynb: `redact` rebinds a name the tests use.")
WITHHELD = Note(
    "possible-tampering",
    "nb.ipynb, `q1`: nbgrader passed it but the grader's own check of your functions failed (AssertionError); "
    "its 2 point(s) are withheld until an instructor reviews it.",
)
PAGE = '<!DOCTYPE html>\n<html><head></head><body><div class="container"><h1>nb</h1></div></body></html>\n'


def _notebook(source: str) -> str:
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"nbgrader": {"solution": True, "grade": False, "grade_id": "a", "locked": False}},
        "outputs": [],
        "source": source,
    }
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_an_honest_learner_sees_no_review_flag_and_the_instructor_still_does(tmp_path: Path) -> None:
    course = build_class(tmp_path / "course")
    (course.root / "source" / "a1" / "nb.ipynb").write_text(_notebook("def redact(text):\n    ...\n"))
    for student in ("s1", "s2"):
        (course.root / "submitted" / student / "a1").mkdir(parents=True)
        (course.root / "submitted" / student / "a1" / "nb.ipynb").write_text(_notebook(SOLUTION))
    notes = {"s1": [FLAGGED, REMARK], "s2": [WITHHELD, FLAGGED]}
    with Pipeline(course, 1, 60, out=lambda _: None, sandbox="off") as pipeline:
        pages = {}
        for student, kept in notes.items():
            save_notes(pipeline.notes_file(student, "a1"), kept)
            folder = course.root / "feedback" / student / "a1"
            folder.mkdir(parents=True)
            (folder / "nb.html").write_text(PAGE, encoding="utf-8")
            finish(folder, [("nb", 6.0, 6.0)], kept)
            pages[student] = (folder / "nb.html").read_text(encoding="utf-8")
        pipeline.export(["a1"], tmp_path / "grades.csv")

    honest = pages["s1"]
    assert "dynamic code" not in honest and "rebinds" not in honest and "similar to" not in honest
    assert "Grading notes" not in honest and "<h1>nb</h1>" in honest
    withheld = pages["s2"]
    assert "withheld until an instructor reviews it" in withheld and "dynamic code" not in withheld

    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as handle:
        review = {row["student_id"]: row["review"] for row in csv.DictReader(handle)}
    assert "uses dynamic code" in review["s1"] and "rebinds a name" in review["s1"]
    assert "similar to s2 (100%)" in review["s1"] and "similar to s1 (100%)" in review["s2"]
    assert "withheld until an instructor reviews it" in review["s2"] and "uses dynamic code" in review["s2"]
