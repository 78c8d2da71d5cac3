"""Which test cells failed, and where: in their hidden tests, their visible tests, or with no line to show.

The gradebook keeps only a score per graded cell. The autograded notebook (`autograded/<student>/
<assignment>/<notebook>.ipynb`) holds each test cell as the instructor wrote it, hidden tests included,
with the error it raised: the traceback's frame `Cell In[<execution count>], line N` is the failing line,
and a line after `### BEGIN HIDDEN TESTS` (before its END) is a hidden test. A cell that lost its points
with no such frame (output on stderr, a timeout, the trusted checks withholding it, no notebook) is
counted as "other". This is for the instructor: hidden tests and their messages are shown as they are.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course_grade.report.class_grades import CellScore

BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
FRAME = re.compile(r"In ?\[(\d+)\], line (\d+)")
MESSAGE_CHARACTERS = 160
"""A failure's message is cut to this many characters."""


@dataclass(frozen=True)
class Failure:
    """One student's failed test cell: where it failed and what it said."""

    student: str
    assignment: str
    notebook: str
    cell: str
    where: str
    """"hidden", "visible" or "other"."""
    message: str = ""
    """The error's name and the first line of its message, e.g. "AssertionError: the name ... was accepted"."""


@dataclass(frozen=True)
class FailureCount:
    """How often one test cell failed across the class, by where, with its most frequent message."""

    assignment: str
    notebook: str
    cell: str
    hidden: int
    visible: int
    other: int
    message: str
    """The most frequent message of its hidden failures (else of any failure)."""

    @property
    def failed(self) -> int:
        """Submissions that lost points on this cell."""
        return self.hidden + self.visible + self.other


def locate(cell: Mapping[str, Any]) -> tuple[str, str]:
    """Where a failed test cell failed ("hidden", "visible" or "other") and its message, from its outputs."""
    source = cell.get("source", "")
    lines = ("".join(source) if isinstance(source, list) else str(source)).splitlines()
    for output in cell.get("outputs", []):
        if output.get("output_type") != "error":
            continue
        message = _message(output)
        line = _failing_line(output.get("traceback", []), cell.get("execution_count"))
        if line is None or not 1 <= line <= len(lines):
            return "other", message
        return ("hidden" if _in_hidden(lines, line) else "visible"), message
    return "other", ""


def _message(output: Mapping[str, Any]) -> str:
    """The error's name and the first line of its value, cut to MESSAGE_CHARACTERS."""
    value = ANSI.sub("", str(output.get("evalue", ""))).strip()
    first = value.splitlines()[0] if value else ""
    text = f"{output.get('ename', 'Error')}: {first}" if first else str(output.get("ename", "Error"))
    return text if len(text) <= MESSAGE_CHARACTERS else text[: MESSAGE_CHARACTERS - 1] + "…"


def _failing_line(traceback: Iterable[str], execution_count: object) -> int | None:
    """The line of the test cell itself that raised: its own frame, else the first cell frame."""
    frames = [FRAME.search(ANSI.sub("", str(entry))) for entry in traceback]
    found = [(int(match.group(1)), int(match.group(2))) for match in frames if match]
    own = [line for count, line in found if count == execution_count]
    if own:
        return own[0]
    return found[0][1] if found else None


def _in_hidden(lines: list[str], line: int) -> bool:
    """Whether 1-based `line` lies between a BEGIN and an END HIDDEN TESTS marker (or after an unclosed BEGIN)."""
    hidden = False
    for number, text in enumerate(lines, 1):
        if text.strip() == BEGIN_HIDDEN:
            hidden = True
        elif text.strip() == END_HIDDEN:
            hidden = False
        if number == line:
            return hidden
    return False


def find_failures(autograded: Path, cells: Iterable[CellScore]) -> list[Failure]:
    """Every cell that lost points, located in the student's autograded notebook under `autograded`."""
    failing: dict[tuple[str, str, str], list[CellScore]] = defaultdict(list)
    for cell in cells:
        if cell.score < cell.max_score:
            failing[(cell.student, cell.assignment, cell.notebook)].append(cell)
    found = []
    for (student, assignment, notebook), lost in failing.items():
        by_id = _test_cells(autograded / student / assignment / f"{notebook}.ipynb")
        for cell in lost:
            where, message = locate(by_id[cell.cell]) if cell.cell in by_id else ("other", "")
            found.append(Failure(student, assignment, notebook, cell.cell, where, message))
    return found


def _test_cells(path: Path) -> dict[str, Mapping[str, Any]]:
    """grade_id -> the last cell carrying it in an autograded notebook; empty if the file cannot be read."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found: dict[str, Mapping[str, Any]] = {}
    for cell in notebook.get("cells", []) if isinstance(notebook, dict) else []:
        marks = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
        if isinstance(marks, dict) and marks.get("grade_id"):
            found[str(marks["grade_id"])] = cell
    return found


def count_failures(failures: Iterable[Failure]) -> list[FailureCount]:
    """Per test cell that failed at least once: counts by where, most hidden failures first."""
    groups: dict[tuple[str, str, str], list[Failure]] = defaultdict(list)
    for failure in failures:
        groups[(failure.assignment, failure.notebook, failure.cell)].append(failure)
    counted = []
    for (assignment, notebook, cell), group in groups.items():
        where = Counter(failure.where for failure in group)
        hidden = [failure.message for failure in group if failure.where == "hidden" and failure.message]
        messages = Counter(hidden or [failure.message for failure in group if failure.message])
        message = messages.most_common(1)[0][0] if messages else ""
        counted.append(
            FailureCount(
                assignment, notebook, cell, where["hidden"], where["visible"], where["other"], message
            )
        )
    return sorted(counted, key=lambda c: (c.assignment, -c.hidden, -c.failed, c.notebook, c.cell))
