"""Trusted verdicts applied to nbgrader's scores: a cell keeps its points only when both agree.

`trusted_verdicts` runs the trusted checks of every autograded notebook of a submission (in the worker);
`apply_verdicts` applies them to the scores the parent recomputed from the returned notebooks, with the notes
to show. A cell nbgrader passed and the trusted check failed scores 0 and
is noted "possible tampering" for manual review (the trusted verdict wins); a cell nbgrader failed keeps its
0 whatever the trusted check says, so a notebook nbgrader gave no point is not checked at all. Cells without a
trusted verdict (see `coverage`) keep nbgrader's score.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from course_grade.notes import Note
from course_grade.score.oracle.judge import DIFFERS
from course_grade.score.submission_grades import NotebookGrades, SubmissionGrades
from course_grade.score.trusted.coverage import unverified
from course_grade.score.trusted.runner import (
    LEARNER_CELL_SECONDS,
    CellVerdict,
    NotebookVerdict,
    check_notebook,
)
from course_grade.score.trusted.session import Wrap, identity

TAMPERING = "possible-tampering"
"""The note kind of a cell nbgrader passed and the trusted check failed."""

REVIEW = "review"
"""The note kind of what the trusted checks noticed without changing a score."""

DIFFERENT = "differs"
"""The note kind of a cell whose differential hidden test (the reference as oracle) failed only on the trusted
side: the learner's function disagreed with the reference on a generated input. The note names the rule, never
the input."""


def reconcile(grades: NotebookGrades, verdict: NotebookVerdict) -> tuple[NotebookGrades, list[Note]]:
    """nbgrader's scores of one notebook with the trusted verdicts applied, and the notes on disagreements."""
    scores = dict(grades.scores)
    notes: list[Note] = []
    for cell in verdict.cells:
        score = scores.get(cell.grade_id)
        if cell.passed is not False or unverified(verdict.name, cell.grade_id) or not score:
            continue
        scores[cell.grade_id] = 0.0
        if cell.reason.startswith(
            f"Disagreement: {DIFFERS}"
        ):  # a wrong answer the oracle caught: no tampering
            rule = cell.hidden or "a hidden test comparing your function with the reference failed"
            notes.append(
                Note(
                    DIFFERENT,
                    f"{verdict.name}.ipynb, `{cell.grade_id}`: {rule}; its {score:g} point(s) are not given.",
                )
            )
            continue
        notes.append(
            Note(
                TAMPERING,
                f"{verdict.name}.ipynb, `{cell.grade_id}`: nbgrader passed it but the grader's own check of your "
                f"functions failed ({cell.reason}); its {score:g} point(s) are withheld until an instructor "
                "reviews it.",
            )
        )
    notes += [Note(REVIEW, f"{verdict.name}.ipynb: {flag}.") for flag in verdict.flags]
    return dataclasses.replace(grades, scores=scores), notes


def trusted_verdicts(
    grades: SubmissionGrades,
    source: Path,
    submitted: Mapping[str, bytes],
    wrap: Wrap = identity,
    scratch: Path | None = None,
    cell_seconds: float = LEARNER_CELL_SECONDS,
    path: Sequence[str] = (),
) -> tuple[NotebookVerdict, ...]:
    """Run the trusted checks of each graded notebook: the instructor's in `source`, the learner's as submitted.

    `submitted` maps notebook name -> the submitted file's bytes, read before nbgrader ran the learner's code;
    `cell_seconds` is how long one of the learner's cells may run (the course's nbgrader timeout); `path`, when
    given, is the learner process's whole module search path (a learners' library: `release.library`).
    A notebook nbgrader gave no point is not run (`nothing_to_withhold`).
    """
    verdicts = []
    for graded in grades.notebooks:
        if not any(graded.scores.values()):
            verdicts.append(nothing_to_withhold(graded))
            continue
        try:
            instructor = json.loads((source / f"{graded.name}.ipynb").read_text(encoding="utf-8"))
            learner = json.loads(submitted[graded.name].decode("utf-8"))
            folder = None if scratch is None else scratch / "trusted" / "learner" / graded.name / "work"
            verdict = check_notebook(
                graded.name, instructor, learner, wrap, folder, learner_cell_seconds=cell_seconds, path=path
            )
        except Exception as error:  # fail closed: nothing the trusted side could not check keeps its points
            verdict = NotebookVerdict(
                graded.name,
                tuple(
                    CellVerdict(
                        grade_id,
                        False,
                        f"the trusted checks could not run: {type(error).__name__}: {error}"[:300],
                    )
                    for grade_id in graded.scores
                ),
            )
        verdicts.append(verdict)
    return tuple(verdicts)


NOTHING_TO_WITHHOLD = (
    "not run: nbgrader gave this notebook no point, and the trusted checks only withhold points"
)


def nothing_to_withhold(graded: NotebookGrades) -> NotebookVerdict:
    """The verdict of a notebook nbgrader gave no point (an untouched or empty submission, say): its trusted
    checks could only take points away, so no learner process is started for it. Every cell is failed, so
    that a point the parent finds in the returned notebook after all (which `rescore` recomputes) is
    withheld for review rather than kept unchecked."""
    return NotebookVerdict(
        graded.name, tuple(CellVerdict(grade_id, False, NOTHING_TO_WITHHOLD) for grade_id in graded.scores)
    )


def apply_verdicts(
    grades: SubmissionGrades, verdicts: tuple[NotebookVerdict, ...]
) -> tuple[SubmissionGrades, list[Note]]:
    """The scores to record (nbgrader's, with the verdicts applied) and the notes on every disagreement."""
    by_name = {verdict.name: verdict for verdict in verdicts}
    notebooks, notes = [], []
    for graded in grades.notebooks:
        verdict = by_name.get(graded.name)
        if verdict is None:
            notebooks.append(graded)
            continue
        applied, found = reconcile(graded, verdict)
        notebooks.append(applied)
        notes += found
    return dataclasses.replace(grades, notebooks=tuple(notebooks)), notes
