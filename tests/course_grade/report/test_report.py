"""The instructor's report and exports on a hand-built gradebook: numbers against an independent computation.

A class of five on one assignment (three graded cells) is written with nbgrader's own Gradebook API into a
temporary sqlite file; the expected statistics are computed here with `statistics` from the same table,
never by the report's functions.
"""

from __future__ import annotations

import csv
import datetime
import json
import shutil
import statistics
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from nbgrader.api import Gradebook
from nbgrader.plugins import LateSubmissionPlugin
from traitlets.config import Config

from course_grade.cli import main
from course_grade.course import Course, use_this_environment
from course_grade.report.build import write_report
from course_grade.report.class_grades import Assignment, ClassGrades, Submission, read_grades
from course_grade.report.failures import locate
from course_grade.report.page import Report, duration, render_page
from course_grade.report.roster import RosterError, read_roster
from course_grade.score.late import assign_late_penalties, late_plugin
from tests.support.report_helpers import parse

if TYPE_CHECKING:
    from tests.support.browser import Browser

DUE = datetime.datetime(2026, 11, 1, 12, 0)
POINTS = {"q1": 2.0, "q2": 1.0, "q3": 3.0}
SCORES = {
    "s1": {"q1": 2.0, "q2": 1.0, "q3": 3.0},
    "s2": {"q1": 1.0, "q2": 1.0, "q3": 0.0},
    "s3": {"q1": 0.0, "q2": 1.0, "q3": 3.0},
    "s4": {"q1": 2.0, "q2": 1.0, "q3": 1.5},
    "s5": {"q1": 2.0, "q2": 1.0, "q3": 0.0},
}
"""The class: q2 is the same for everyone (SD 0, so no discrimination)."""
SUBMITTED = {
    "s1": DUE - datetime.timedelta(hours=1),
    "s2": DUE,
    "s3": DUE - datetime.timedelta(days=2),
    "s4": DUE + datetime.timedelta(hours=20),  # late, but inside a one-day extension
    "s5": DUE + datetime.timedelta(hours=3),  # late
}
ROSTER = (
    "student_id,name,canvas_id,sis_user_id,sis_login_id,section,first_name,last_name,email,id_number\n"
    's1,"One, Sam",11,S1,sam1,A,Sam,One,s1@example.org,N1\n'
    's2,"Two, Kim",12,S2,kim2,A,Kim,Two,s2@example.org,N2\n'
    's3,"Three, Lee",13,S3,lee3,B,Lee,Three,s3@example.org,N3\n'
    's4,"Four, Ada",14,S4,ada4,B,Ada,Four,s4@example.org,N4\n'
    's9,"Nine, Max",19,S9,max9,B,Max,Nine,s9@example.org,N9\n'
)
"""s5 is graded but not rostered; s9 is rostered but never submitted."""


class HalfOff(LateSubmissionPlugin):  # type: ignore[misc]
    """A course's own plugin: half the notebook's score off when late."""

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        return score / 2


def build_class(folder: Path) -> Course:
    """A course directory with one assignment and its gradebook holding SCORES (seconds: nbgrader runs alembic)."""
    use_this_environment()  # nbgrader runs `alembic` from PATH to create a gradebook
    (folder / "source" / "a1").mkdir(parents=True)
    (folder / "source" / "a1" / "nb.ipynb").write_text(
        json.dumps({"cells": [], "metadata": {}, "nbformat": 4})
    )
    course = Course(folder, f"sqlite:///{folder / 'gradebook.db'}", "default_course")
    with Gradebook(course.db_url) as gradebook:
        gradebook.add_assignment("a1", duedate=DUE)
        gradebook.add_notebook("nb", "a1")
        for cell, points in POINTS.items():
            gradebook.add_grade_cell(cell, "nb", "a1", max_score=points, cell_type="code")
        for student, scores in SCORES.items():
            gradebook.add_student(student, first_name=student.upper(), last_name="Test")
            extension = datetime.timedelta(days=1) if student == "s4" else None
            gradebook.add_submission("a1", student, timestamp=SUBMITTED[student], extension=extension)
            for cell, score in scores.items():
                grade = gradebook.find_grade(cell, "nb", "a1", student)
                grade.auto_score, grade.needs_manual_grade = score, False
            gradebook.db.commit()
    return course


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Course:
    return build_class(tmp_path_factory.mktemp("built") / "course")


def graded_class(built: Course, folder: Path, plugin: object) -> Course:
    """A copy of the built class with its late penalties assigned by `plugin`."""
    shutil.copytree(built.root, folder)
    course = Course(folder, f"sqlite:///{folder / 'gradebook.db'}", built.course_id)
    with Gradebook(course.db_url) as gradebook:
        for student in SCORES:
            assign_late_penalties(gradebook, "a1", student, plugin)
    return course


def zero_if_late() -> object:
    """nbgrader's own plugin, configured as a course would: a late submission scores 0."""
    config = Config()
    config.LateSubmissionPlugin.penalty_method = "zero"
    return late_plugin(config)


@pytest.fixture(scope="module")
def report(built: Course, tmp_path_factory: pytest.TempPathFactory) -> tuple[Course, Path]:
    tmp_path = tmp_path_factory.mktemp("report")
    course = graded_class(built, tmp_path / "course", zero_if_late())
    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    write_report(
        course, ["a1"], tmp_path / "out", {("s3", "a1"): "possible tampering"}, roster, ("canvas", "moodle")
    )
    return course, tmp_path / "out"


def questions(out: Path) -> dict[str, dict[str, str]]:
    rows = parse(out / "report.html").tables["questions-a1"]
    return {row["cell"]: row for row in rows if row}


def test_each_cells_mean_median_and_sd_equal_an_independent_computation(report: tuple[Course, Path]) -> None:
    rows = questions(report[1])
    for cell in POINTS:
        scores = [SCORES[student][cell] for student in SCORES]
        assert rows[cell]["n"] == "5"
        assert rows[cell]["mean"] == f"{statistics.mean(scores):.2f}"
        assert rows[cell]["median"] == f"{statistics.median(scores):.2f}"
        assert rows[cell]["sd"] == f"{statistics.stdev(scores):.2f}"


def test_full_and_zero_marks_are_shares_of_the_class(report: tuple[Course, Path]) -> None:
    rows = questions(report[1])
    assert (rows["q1"]["full"], rows["q1"]["zero"]) == ("60%", "20%")  # 3 of 5 have 2, 1 of 5 has 0
    assert (rows["q3"]["full"], rows["q3"]["zero"]) == ("40%", "40%")
    assert (rows["q2"]["full"], rows["q2"]["zero"]) == ("100%", "0%")


def test_discrimination_is_the_correlation_with_the_rest_of_the_total(report: tuple[Course, Path]) -> None:
    rows = questions(report[1])
    for cell in ("q1", "q3"):
        scores = [SCORES[student][cell] for student in SCORES]
        rest = [sum(SCORES[student].values()) - SCORES[student][cell] for student in SCORES]
        assert rows[cell]["discrimination"] == f"{statistics.correlation(scores, rest):.2f}"


def test_a_cell_everyone_scored_the_same_on_has_no_discrimination(report: tuple[Course, Path]) -> None:
    """SD 0: the correlation is undefined, and the page says n/a rather than 0."""
    assert questions(report[1])["q2"]["discrimination"] == "n/a"


def test_cells_are_ranked_hardest_first_by_mean_share_of_their_points(report: tuple[Course, Path]) -> None:
    # mean shares: q3 1.5/3 = 0.5, q1 1.4/2 = 0.7, q2 1/1 = 1
    rows = parse(report[1] / "report.html").tables["questions-a1"]
    assert [(row["rank"], row["cell"]) for row in rows if row] == [("1", "q3"), ("2", "q1"), ("3", "q2")]


def test_the_histogram_is_inline_svg_counting_every_submission(report: tuple[Course, Path]) -> None:
    page = (report[1] / "report.html").read_text()
    figure = page[page.index('<figure class="histogram" id="histogram-a1">') :]
    assert figure.index("<svg") < figure.index("</figure>")
    assert "over 5 submissions" in figure  # totals 6, 2, 4, 4.5, 3: one per submission
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").split("<svg")[0]


def test_the_page_loads_nothing_from_elsewhere(report: tuple[Course, Path]) -> None:
    page = (report[1] / "report.html").read_text()
    assert "<script" not in page and "<link" not in page and "src=" not in page


def test_late_submissions_are_listed_with_their_penalty_and_an_extension_is_honoured(
    report: tuple[Course, Path],
) -> None:
    late = parse(report[1] / "report.html").tables["late-a1"]
    assert [(row["student"], row["penalty"], row["score"]) for row in late if row] == [("s5", "3", "0")]


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0.04, "under 0.1 s"), (0.4, "0.4 s"), (11.9, "11.9 s"), (59.94, "59.9 s"), (59.96, "1 min 0 s"),
        (185, "3 min 5 s"), (3599.6, "1 h 0 min"), (2 * 3600 + 5 * 60 + 20, "2 h 5 min"),
        (86399.9, "1 d 0 h"), (27 * 3600 + 40, "1 d 3 h"), (10 * 86400, "10 d 0 h"),
    ],
)  # fmt: skip
def test_lateness_is_shown_in_seconds_minutes_hours_or_days_as_fits(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


def test_the_report_shows_a_submission_seconds_late_to_the_tenth_of_a_second(tmp_path: Path) -> None:
    due = datetime.datetime(2026, 11, 1, 12, 0)
    late = {"quick": 11.9, "sliver": 0.4, "slow": 3 * 3600 + 65}
    submissions = tuple(
        Submission(student, "a1", 1.0, 2.0, 0.0, due + datetime.timedelta(seconds=seconds), due)
        for student, seconds in late.items()
    )
    grades = ClassGrades((Assignment("a1", 2.0, due, ()),), (), submissions, ())
    (tmp_path / "report.html").write_text(render_page(Report("c", grades, (), ())))
    rows = parse(tmp_path / "report.html").tables["late-a1"]
    shown = {row["student"]: row["late-by"] for row in rows if row}
    assert shown == {"quick": "11.9 s", "sliver": "0.4 s", "slow": "3 h 1 min"}


def test_nbgraders_zero_penalty_zeroes_only_the_late_submission_in_the_gradebook(
    built: Course, tmp_path: Path
) -> None:
    course = graded_class(built, tmp_path / "course", zero_if_late())
    with Gradebook(course.db_url) as gradebook:
        penalties = {s: gradebook.find_submission("a1", s).late_submission_penalty for s in SCORES}
    assert penalties == {"s1": 0, "s2": 0, "s3": 0, "s4": 0, "s5": sum(SCORES["s5"].values())}


def test_a_courses_own_late_plugin_from_its_config_is_used(built: Course, tmp_path: Path) -> None:
    config = Config()
    config.AssignLatePenalties.plugin_class = "tests.course_grade.report.test_report.HalfOff"
    course = graded_class(built, tmp_path / "course", late_plugin(config))
    with Gradebook(course.db_url) as gradebook:
        assert gradebook.find_submission("a1", "s5").late_submission_penalty == sum(SCORES["s5"].values()) / 2


def test_an_extension_without_a_due_date_is_never_late(built: Course, tmp_path: Path) -> None:
    """nbgrader's own `duedate` adds the extension to None and raises; here there is simply no deadline."""
    course = graded_class(built, tmp_path / "course", zero_if_late())
    with Gradebook(course.db_url) as gradebook:
        gradebook.find_assignment("a1").duedate = None
        gradebook.db.commit()
        assert assign_late_penalties(gradebook, "a1", "s4", zero_if_late()) == 0.0
    submissions = read_grades(course.db_url, course.course_id, ["a1"]).submissions
    assert [s.seconds_late for s in submissions if s.student == "s4"] == [0.0]


def rows_of(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_the_canvas_csv_has_canvas_columns_points_possible_and_a_row_per_rostered_student(
    report: tuple[Course, Path],
) -> None:
    rows = rows_of(report[1] / "canvas.csv")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "a1"]
    assert rows[1] == ["Points Possible", "", "", "", "", "6"]
    assert [row[1] for row in rows[2:]] == ["11", "12", "13", "14", "19"]
    assert rows[2] == ["One, Sam", "11", "S1", "sam1", "A", "6"]
    assert rows[-1][-1] == "0"  # s9 never submitted


def test_the_moodle_csv_has_moodle_columns_and_a_row_per_rostered_student(
    report: tuple[Course, Path],
) -> None:
    rows = rows_of(report[1] / "moodle.csv")
    assert rows[0] == ["First name", "Last name", "ID number", "Email address", "a1"]
    assert [row[2] for row in rows[1:]] == ["N1", "N2", "N3", "N4", "N9"]
    assert rows[4] == ["Ada", "Four", "N4", "s4@example.org", "4.5"]  # late, within the extension: no penalty


def test_students_on_one_side_only_are_listed_in_the_report(report: tuple[Course, Path]) -> None:
    tables = parse(report[1] / "report.html").tables
    assert [row["student"] for row in tables["not-on-roster"] if row] == ["s5"]
    assert [row["student"] for row in tables["not-in-gradebook"] if row] == ["s9"]


def test_the_per_question_csv_has_a_row_per_submission_and_cell(report: tuple[Course, Path]) -> None:
    rows = rows_of(report[1] / "per_question.csv")
    assert rows[0] == ["student_id", "assignment", "notebook", "cell", "score", "max_score"]
    found = {(row[0], row[3]): float(row[4]) for row in rows[1:]}
    assert found == {(s, c): score for s, scores in SCORES.items() for c, score in scores.items()}


def test_the_review_column_reaches_the_report(report: tuple[Course, Path]) -> None:
    review = parse(report[1] / "report.html").tables["review-a1"]
    assert [(row["student"], row["reasons"]) for row in review if row] == [("s3", "possible tampering")]


def test_every_assignment_has_its_section(report: tuple[Course, Path]) -> None:
    assert {"assignment-a1", "histogram-a1", "questions-a1", "roster", "files"} <= parse(
        report[1] / "report.html"
    ).ids


HIDDEN_CELL = {
    "execution_count": 7,
    "source": "assert f(1) == 1\nassert f(2) == 2\n### BEGIN HIDDEN TESTS\nassert f(3) == 3\n### END HIDDEN TESTS\n",
}


def failed_at(line: int) -> dict[str, object]:
    traceback = [
        "\x1b[0;31mAssertionError\x1b[0m  Traceback",
        f"Cell \x1b[0;32mIn[7], line {line}\x1b[0m\n---> x",
    ]
    error = {
        "output_type": "error",
        "ename": "AssertionError",
        "evalue": "f(3) is 4\nmore",
        "traceback": traceback,
    }
    return {**HIDDEN_CELL, "outputs": [error]}


def test_a_failure_on_a_line_between_the_hidden_markers_is_a_hidden_test() -> None:
    assert locate(failed_at(4)) == ("hidden", "AssertionError: f(3) is 4")


def test_a_failure_before_the_hidden_markers_is_a_visible_test() -> None:
    assert locate(failed_at(2))[0] == "visible"


def test_a_cell_that_lost_its_points_without_an_error_is_other() -> None:
    """Output on stderr or the trusted checks take the points with no traceback to place."""
    assert locate({**HIDDEN_CELL, "outputs": [{"output_type": "stream", "name": "stderr", "text": "x"}]}) == (
        "other",
        "",
    )


def test_a_roster_without_student_id_is_refused(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text("id,name\n1,x\n")
    with pytest.raises(RosterError, match="no student_id column"):
        read_roster(tmp_path / "roster.csv")


def test_a_roster_naming_a_student_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "roster.csv").write_text("student_id\ns1\ns1\n")
    with pytest.raises(RosterError, match="appears twice"):
        read_roster(tmp_path / "roster.csv")


def test_the_report_command_writes_the_page_and_prints_who_is_missing(
    built: Course, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    course = graded_class(built, tmp_path / "course", zero_if_late())
    (tmp_path / "roster.csv").write_text(ROSTER)
    status = main([
        "report", "a1", "--course", str(course.root), "--db", course.db_url, "--to", str(tmp_path / "out"),
        "--roster", str(tmp_path / "roster.csv"), "--lms", "canvas", "--sandbox", "off",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0 and f"report: {tmp_path / 'out' / 'report.html'}" in out
    assert "not on the roster (left out of the platform files): s5" in out
    assert (tmp_path / "out" / "canvas.csv").exists() and not (tmp_path / "out" / "moodle.csv").exists()


def test_lms_without_a_roster_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["report", "--lms", "canvas"])
    assert stopped.value.code == 2 and "--lms needs --roster" in capsys.readouterr().err


def test_the_report_opens_from_disk_in_a_browser_with_every_plot_and_table_visible(
    report: tuple[Course, Path], browser: Browser
) -> None:
    """What the instructor sees: the page from disk, no server, each histogram and table drawn, no browser error."""
    from playwright.sync_api import expect

    page = browser.page
    page.goto((report[1] / "report.html").as_uri())
    figures, tables = page.locator("figure.histogram svg"), page.locator("table")
    expect(figures.first).to_be_visible()
    assert (
        figures.count() == 1 and tables.count() >= 5
    )  # one assignment: its histogram, its tables, the summary
    for index in range(tables.count()):
        table = tables.nth(index)
        table.scroll_into_view_if_needed()
        expect(table).to_be_visible()
    for index in range(figures.count()):
        box = figures.nth(index).bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 100, (
            f"histogram {index} drawn at {box}"
        )
    page.evaluate("window.scrollTo(0, 0)")
    browser.screenshot("report")
    browser.assert_no_errors()
