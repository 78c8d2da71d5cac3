"""The report as one self-contained HTML page: inline CSS and SVG, no script, no link that needs a network;
its Content-Security-Policy forbids any script and any request (`course_grade.report.safe_html.POLICY`).

Stable hooks for a reader or a browser test: `<section id="assignment-<name>" class="assignment">` per
assignment, holding `<figure class="histogram">` (an inline `<svg>`), `<table class="questions">` (a row per
graded cell, a `<td>` class per statistic), `<table class="failures">`, `<table class="review">` and
`<table class="late">`; then `<section id="roster">` and `<section id="files">`. An empty list is a
`<p class="none">`. Undefined statistics read "n/a".
"""

from __future__ import annotations

import html
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from course_grade.report.analytics import CellStats, histogram, totals
from course_grade.report.class_grades import Assignment, ClassGrades, Submission
from course_grade.report.failures import FailureCount
from course_grade.report.plots import histogram_svg
from course_grade.report.roster import Matched
from course_grade.report.safe_html import POLICY_META
from course_grade.untrusted import printable

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 2px solid #4878a8; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0 1.2em; font-size: .9em; } caption { text-align: left; color: #555; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #eef2f7; } td.number { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 0 0 1em; } figure svg { max-width: 100%; height: auto; }
figcaption, .none, footer { color: #555; } code { font-size: .95em; }
"""

QUESTION_COLUMNS = (
    ("rank", "difficulty rank"), ("notebook", "notebook"), ("cell", "graded cell"), ("points", "points"),
    ("n", "n"), ("mean", "mean"), ("median", "median"), ("sd", "SD"), ("full", "% full marks"),
    ("zero", "% zero"), ("discrimination", "discrimination"),
)  # fmt: skip
"""The questions table's columns: (the `<td>` class, the header)."""


@dataclass(frozen=True)
class Report:
    """What the page shows."""

    course_id: str
    grades: ClassGrades
    stats: Sequence[CellStats]
    failures: Sequence[FailureCount]
    review: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(student, assignment) -> what to look at by hand (grades.csv's `review` column)."""
    roster: Matched | None = None
    files: Sequence[tuple[str, str]] = ()
    """(what, file name) of the files written beside the page."""


def number(value: float | None, digits: int = 2) -> str:
    """A statistic as shown: `digits` decimals, "n/a" for None."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def percent(share: float) -> str:
    """A share 0..1 as a whole percentage."""
    return f"{share * 100:.0f}%"


def duration(seconds: float) -> str:
    """A length of time as nbgrader records lateness (to the microsecond), shown in the units that fit.

    Under a minute, seconds to a tenth ("11.9 s"; "under 0.1 s" for a sliver); under an hour, minutes and
    whole seconds ("3 min 5 s"); under a day, hours and minutes ("2 h 5 min"); then days and hours ("1 d 3 h").
    Each part is rounded once, so 59.96 s reads "1 min 0 s", never "60.0 s".
    """
    if seconds <= 0:
        return "0 s"
    tenths = round(seconds * 10)
    if tenths < 600:
        return "under 0.1 s" if tenths == 0 else f"{tenths / 10:.1f} s"
    if (whole := round(seconds)) < 3600:
        return "{} min {} s".format(*divmod(whole, 60))
    if (minutes := round(seconds / 60)) < 24 * 60:
        return "{} h {} min".format(*divmod(minutes, 60))
    return "{} d {} h".format(*divmod(round(seconds / 3600), 24))


def anchor(name: str) -> str:
    """An HTML id fragment for a name: letters, digits, `_` and `-` kept, anything else `-`."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)


def _count(number: int, noun: str) -> str:
    """The number and the noun, with an s unless the number is 1."""
    return f"{number} {noun if number == 1 else noun + 's'}"


def _e(text: object) -> str:
    """Text escaped for HTML, its control and format characters shown as escapes (`\\u202e`)."""
    return html.escape(printable(text), quote=True)


def _table(kind: str, ident: str, caption: str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table with a caption; cells are already HTML (`<td>...</td>`), or a `<p class="none">` if no rows."""
    rows = list(rows)
    if not rows:
        return f'<p class="none {kind}" id="{ident}">{_e(caption)}: none.</p>'
    head = "".join(f"<th>{_e(text)}</th>" for text in header)
    body = "\n".join(f"<tr>{''.join(row)}</tr>" for row in rows)
    return (
        f'<table class="{kind}" id="{ident}"><caption>{_e(caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>"
    )


def _td(kind: str, text: object, numeric: bool = False) -> str:
    """One cell of a table, classed by what it holds."""
    classes = f"{kind} number" if numeric else kind
    return f'<td class="{classes}">{_e(text)}</td>'


def render_page(report: Report) -> str:
    """The whole page."""
    grades = report.grades
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="en"><head><meta charset="utf-8">{POLICY_META}',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Grading report: {_e(report.course_id)}</title><style>{STYLE}</style></head><body>",
        f'<header id="overview"><h1>Grading report: {_e(report.course_id)}</h1>',
        f"<p>{_count(len({s.student for s in grades.submissions}), 'student')}, "
        f"{_count(len(grades.submissions), 'submission')} of {_count(len(grades.assignments), 'assignment')}, "
        "from the gradebook.</p>",
        '<nav><ul id="contents">',
        *(f'<li><a href="#assignment-{anchor(a.name)}">{_e(a.name)}</a></li>' for a in grades.assignments),
        '<li><a href="#roster">students missing on either side</a></li><li><a href="#files">files</a></li>',
        "</ul></nav>",
        _overview(grades),
        "</header>",
        *(_assignment(report, assignment) for assignment in grades.assignments),
        _roster(report.roster),
        _files(report.files),
        _footer(),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _overview(grades: ClassGrades) -> str:
    """One row per assignment: submissions, maximum, mean, median, late submissions."""
    rows = []
    for assignment in grades.assignments:
        chosen = [s for s in grades.submissions if s.assignment == assignment.name]
        scores = [s.score for s in chosen]
        mean = statistics.fmean(scores) if scores else None
        median = statistics.median(scores) if scores else None
        rows.append([
            f'<td class="assignment"><a href="#assignment-{anchor(assignment.name)}">{_e(assignment.name)}</a></td>',
            _td("submissions", len(chosen), True), _td("max", f"{assignment.max_score:g}", True),
            _td("mean", number(mean), True), _td("median", number(median), True),
            _td("late", sum(1 for s in chosen if s.seconds_late > 0), True),
            _td("due", _date(assignment.duedate) if assignment.duedate else "none"),
        ])  # fmt: skip
    return _table(
        "assignments", "assignments", "Scores after late penalties",
        ["assignment", "submissions", "max", "mean", "median", "late", "due"], rows,
    )  # fmt: skip


def _date(value: object) -> str:
    """A date as the gradebook holds it (UTC), to the minute."""
    return f"{value:%Y-%m-%d %H:%M} UTC" if hasattr(value, "strftime") else str(value)


def _assignment(report: Report, assignment: Assignment) -> str:
    """The section of one assignment."""
    name, ident = assignment.name, anchor(assignment.name)
    cells = [c for c in report.grades.cells if c.assignment == name]
    raw = [total for (a, _), total in totals(cells).items() if a == name]
    submitted = {s.student for s in report.grades.submissions if s.assignment == name}
    raw += [0.0] * (len(submitted) - len(raw))  # a submission with no graded cell recorded
    bins = histogram(raw, assignment.max_score)
    svg = histogram_svg(bins, f"total points (of {assignment.max_score:g}), before late penalties", name)
    due = _date(assignment.duedate) if assignment.duedate else "no due date in the gradebook"
    counts = ", ".join(f"{low:g}-{high:g}: {count}" for low, high, count in bins)
    stats = sorted(
        (s for s in report.stats if s.assignment == name), key=lambda s: (s.rank, s.notebook, s.cell)
    )
    return "\n".join([
        f'<section id="assignment-{ident}" class="assignment" data-assignment="{_e(name)}">',
        f"<h2>{_e(name)}</h2>",
        f'<p class="due">Due: {_e(due)}; {len(submitted)} submissions; maximum {assignment.max_score:g} points.</p>',
        f'<figure class="histogram" id="histogram-{ident}">{svg}',
        f"<figcaption>Distribution of totals over {len(raw)} submissions ({_e(counts)}).</figcaption></figure>",
        _table("questions", f"questions-{ident}", "Graded cells, hardest first",
               [header for _, header in QUESTION_COLUMNS], (_question(s) for s in stats)),
        _table("failures", f"failures-{ident}", "Test cells most often failed, by where they failed "
               "(hidden tests first; the message is the most frequent one)",
               ["notebook", "test cell", "failed in hidden tests", "in visible tests", "other",
                "most frequent message"],
               (_failure(f) for f in report.failures if f.assignment == name)),
        _table("review", f"review-{ident}", "Flagged for review", ["student", "reasons"],
               ([_td("student", s), _td("reasons", text)] for (s, a), text in sorted(report.review.items())
                if a == name and text)),
        _table("late", f"late-{ident}", "Late submissions", ["student", "submitted", "due (with extension)",
               "extension", "late by", "penalty", "score after penalty"],
               (_late(s) for s in sorted(report.grades.submissions, key=lambda s: s.student)
                if s.assignment == name and s.seconds_late > 0)),
        "</section>",
    ])  # fmt: skip


def _question(stats: CellStats) -> list[str]:
    """A row of the questions table."""
    values = {
        "rank": stats.rank, "notebook": stats.notebook, "cell": stats.cell, "points": f"{stats.max_score:g}",
        "n": stats.n, "mean": number(stats.mean), "median": number(stats.median), "sd": number(stats.sd),
        "full": percent(stats.full), "zero": percent(stats.zero), "discrimination": number(stats.discrimination),
    }  # fmt: skip
    return [_td(kind, values[kind], kind not in ("notebook", "cell")) for kind, _ in QUESTION_COLUMNS]


def _failure(count: FailureCount) -> list[str]:
    """A row of the failures table."""
    return [
        _td("notebook", count.notebook), _td("cell", count.cell), _td("hidden", count.hidden, True),
        _td("visible", count.visible, True), _td("other", count.other, True), _td("message", count.message),
    ]  # fmt: skip


def _late(submission: Submission) -> list[str]:
    """A row of the late submissions table."""
    extension = submission.extension.total_seconds() if submission.extension else 0.0
    return [
        _td("student", submission.student), _td("submitted", _date(submission.timestamp)),
        _td("due", _date(submission.duedate)), _td("extension", duration(extension) if extension else "none"),
        _td("late-by", duration(submission.seconds_late), True), _td("penalty", f"{submission.penalty:g}", True),
        _td("score", f"{submission.score:g}", True),
    ]  # fmt: skip


def _roster(matched: Matched | None) -> str:
    """Students on one side only: rostered without a submission, graded without a roster entry."""
    if matched is None:
        body = '<p class="none" id="no-roster">No roster given (<code>--roster FILE</code>): no platform files.</p>'
    else:
        body = "\n".join([
            _table("missing", "not-in-gradebook", "On the roster, not in the gradebook (0 in the platform files)",
                   ["student id"], ([_td("student", s)] for s in matched.not_in_gradebook)),
            _table("missing", "not-on-roster", "In the gradebook, not on the roster (left out of the platform files)",
                   ["student id"], ([_td("student", s)] for s in matched.not_on_roster)),
        ])  # fmt: skip
    return f'<section id="roster"><h2>Students missing on either side</h2>\n{body}\n</section>'


def _files(files: Sequence[tuple[str, str]]) -> str:
    """Links to the files written beside the page."""
    items = "".join(f'<li><a href="{_e(name)}">{_e(name)}</a>: {_e(what)}</li>' for what, name in files)
    return f'<section id="files"><h2>Files</h2><ul>{items}</ul></section>'


def _footer() -> str:
    """What the statistics mean."""
    return (
        '<footer id="definitions"><h2>Definitions</h2><p>Per graded cell, over the submissions of its assignment: '
        "n; mean and median of its score; SD, the sample standard deviation (n/a under 2 submissions); "
        "% full marks and % zero; discrimination, Pearson's correlation of the cell's score with the rest of "
        "the total (the total minus that cell), n/a when either does not vary (SD 0) or under 2 submissions; "
        "difficulty rank, 1 for the lowest mean share of the cell's points (ties share a rank). Totals and "
        "cell statistics are before late penalties; the assignments table and the platform files are after. "
        "A failure is located in the autograded notebook: the test cell's failing line lies in its hidden "
        "tests, in its visible tests, or it lost its points without such a line (stderr, a timeout, the "
        "trusted checks).</p></footer>"
    )
