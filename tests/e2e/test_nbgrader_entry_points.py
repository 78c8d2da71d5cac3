"""nbgrader's own commands in this course (and so the formgrader's buttons, which call the same converters):
autograde refuses and names course-grade; generate_feedback hides the hidden tests."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from nbformat.v4 import new_markdown_cell

from course_grade.notebooks import read, write
from course_grade.score.hidden import hidden_lines
from grading.build_notebooks import nbgrader_command, nbgrader_environment
from tests.support.grading_helpers import fresh_course

ASSIGNMENT = "01_envelope"
PAYLOAD = (
    '<img src=x onerror="document.title=1"> <script>document.title=2</script> <a href="javascript:go()">x</a>'
)
"""Markup a learner writes in a markdown cell of their own."""


def plain_nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """nbgrader as the instructor types it (or the formgrader calls it): the course's config, nothing lifted."""
    command = [sys.executable, "-m", "nbgrader", *args]
    return subprocess.run(command, cwd=course, env=nbgrader_environment(), capture_output=True, text=True)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course with 01 generated and the instructor's own notebook submitted by `ada`."""
    course = fresh_course(tmp_path_factory.mktemp("entry"))
    subprocess.run(nbgrader_command(course, "generate_assignment", ASSIGNMENT, "--force"), cwd=course,
                   env=nbgrader_environment(), check=True)  # fmt: skip
    submitted = course / "submitted" / "ada" / ASSIGNMENT
    submitted.mkdir(parents=True)
    notebook = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    notebook.cells.append(new_markdown_cell(PAYLOAD))
    write(notebook, submitted / f"{ASSIGNMENT}.ipynb")
    return course


def test_nbgrader_autograde_refuses_before_any_learner_code_runs_and_names_course_grade(course: Path) -> None:
    done = plain_nbgrader(course, "autograde", ASSIGNMENT)
    assert done.returncode != 0
    assert f"course-grade autograde submitted {ASSIGNMENT}" in done.stdout + done.stderr
    assert not list((course / "autograded").rglob("*.ipynb")), "nbgrader's autograde wrote a graded notebook"


def test_nbgrader_generate_feedback_shows_no_hidden_test(course: Path) -> None:
    lifted = nbgrader_command(course, "autograde", ASSIGNMENT, "--force")  # the baseline, knowingly
    subprocess.run(lifted, cwd=course, env=nbgrader_environment(), check=True, capture_output=True)
    done = plain_nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    assert done.returncode == 0, done.stderr[-3000:]
    page = (course / "feedback" / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    source = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    released = read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").cells
    own = [cell for cell in source.cells if cell.metadata.get("nbgrader", {}).get("solution")]  # ada's code
    public = "\n".join(cell.source for cell in [*released, *own])
    hidden = {line for cell in source.cells for line in hidden_lines(cell.source) if len(line) > 12}
    hidden -= {line for line in hidden if line in public}  # shown anyway: the learners' version, ada's code
    assert hidden and not [line for line in hidden if line in text]
    assert re.search(r"Score:\s*24(\.0)?\s*/\s*24", text), "the instructor's own answers score full marks"
    assert "Content-Security-Policy" in page
    assert "onerror=" not in page and "<script" not in page.lower() and 'href="javascript:' not in page
