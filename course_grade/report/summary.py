"""The table that ends a run: students, notebooks, the score distribution, and every problem with its reason.

Every learner-controlled string in it (ids, file names in notes, skipped entries) is `printable`: one line,
no control character that could move the cursor or erase another line.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from course_grade.notes import KINDS, Note
from course_grade.untrusted import printable

BANDS = ("0%", "1-49%", "50-89%", "90-99%", "100%")
"""Score bands, as shares of the maximum score."""


@dataclass(frozen=True)
class Outcome:
    """One graded submission, as the summary shows it."""

    student: str
    assignment: str
    score: float
    """After the late penalty, as grades.csv and the report show it."""
    max_score: float
    notes: tuple[Note, ...] = ()
    notebooks: int = 0
    """How many of its notebooks nbgrader autograded (the others scored 0)."""


def band(score: float, max_score: float) -> str:
    """The label of the band a score falls in."""
    share = score / max_score if max_score else 0.0
    if share <= 0:
        return "0%"
    if share >= 1:
        return "100%"
    return "1-49%" if share < 0.5 else "50-89%" if share < 0.9 else "90-99%"


UNSANDBOXED = (
    "WARNING: graded WITHOUT the OS sandbox: learners' code could read and change what this user can "
    "(classmates' notebooks, the course, other processes). See the README's guarantees."
)


UNTRUSTED = (
    "WARNING: graded WITHOUT the trusted checks (--no-trusted-checks): every score is nbgrader's alone, "
    "which a learner's code can fool from inside its own kernel."
)


def render_summary(
    outcomes: list[Outcome], skipped: Iterable[str] = (), sandboxed: bool = True, trusted: bool = True
) -> str:
    """The summary as plain text; a run without the sandbox or the trusted checks says so first and last."""
    warnings = ([] if sandboxed else [UNSANDBOXED]) + ([] if trusted else [UNTRUSTED])
    lines = [_headline(outcomes), *warnings, ""]
    lines += _per_assignment(outcomes)
    lines += ["", "score distribution (share of the maximum score)"]
    counts = dict.fromkeys(BANDS, 0)
    for outcome in outcomes:
        counts[band(outcome.score, outcome.max_score)] += 1
    width = max(counts.values(), default=0) or 1
    for label, count in counts.items():
        lines.append(f"  {label:>7}  {count:4}  {'#' * round(40 * count / width) if count else ''}".rstrip())
    flagged = [o for o in outcomes if any(note.kind == "possible-tampering" for note in o.notes)]
    if flagged:
        lines += [
            "",
            f"POSSIBLE TAMPERING in {_count(len(flagged), 'submission')}: points withheld, review by hand:",
        ]
        lines += [
            f"  - {printable(outcome.student)} ({printable(outcome.assignment)})" for outcome in flagged
        ]
    troubled = [outcome for outcome in outcomes if outcome.notes]
    lines += ["", f"problems: {len(troubled)} of {len(outcomes)} submissions" + (":" if troubled else "")]
    for outcome in troubled:
        score = f"{outcome.score:g}/{outcome.max_score:g}"
        lines.append(f"  {printable(outcome.student)}  [{printable(outcome.assignment)}]  {score}")
        lines += [
            f"      {printable(KINDS.get(note.kind, note.kind))}: {printable(note.text)}"
            for note in outcome.notes
        ]
    skipped = list(skipped)
    if skipped:
        lines += ["", f"{_count(len(skipped), 'entry', 'entries')} of the submissions folder not graded:"]
        lines += [f"  {printable(line)}" for line in skipped]
    if warnings:
        lines += ["", *warnings]
    return "\n".join(lines)


def _headline(outcomes: list[Outcome]) -> str:
    """Counts of students, submissions, assignments and notebooks."""
    students = len({outcome.student for outcome in outcomes})
    assignments = len({outcome.assignment for outcome in outcomes})
    notebooks = sum(outcome.notebooks for outcome in outcomes)
    return (
        f"summary: {_count(students, 'student')}, {_count(len(outcomes), 'submission')} of "
        f"{_count(assignments, 'assignment')}, {_count(notebooks, 'notebook')} autograded"
    )


def _count(number: int, noun: str, plural: str = "") -> str:
    """The number and the noun, plural unless the number is 1 (nouns add an s unless told otherwise)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def _per_assignment(outcomes: list[Outcome]) -> list[str]:
    """One row per assignment: submissions, max, mean, median, full and zero marks."""
    lines = [
        f"{'assignment':<20} {'submissions':>11} {'max':>6} {'mean':>6} {'median':>6} {'full':>5} {'zero':>5}"
    ]
    for name in sorted({outcome.assignment for outcome in outcomes}):
        chosen = [outcome for outcome in outcomes if outcome.assignment == name]
        values = [outcome.score for outcome in chosen]
        most = max(outcome.max_score for outcome in chosen)
        full = sum(1 for outcome in chosen if outcome.max_score and outcome.score >= outcome.max_score)
        zero = sum(1 for value in values if value <= 0)
        lines.append(
            f"{name:<20} {len(chosen):>11} {most:>6g} {statistics.mean(values):>6.1f} "
            f"{statistics.median(values):>6.1f} {full:>5} {zero:>5}"
        )
    return lines
