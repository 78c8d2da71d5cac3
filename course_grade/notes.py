"""A note: one thing that went wrong with a submission, in a sentence addressed to the learner.

Every flow adds notes (intake's checks, the run, the trusted checks) and the report shows them (the summary,
the learner's feedback, grades.csv's `review` column). They are kept beside the course's other grading
records as JSON (`save_notes`, `load_notes`), so that `feedback` and the summary find them in a later run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

KINDS = {
    "missing": "notebook missing",
    "renamed": "notebook renamed",
    "empty": "empty file",
    "unreadable": "not a notebook",
    "too-large": "notebook too large",
    "other-assignment": "notebook of another assignment",
    "edited": "graded cell edited",
    "deleted": "graded cell deleted",
    "duplicated": "graded cell duplicated",
    "symlink": "symbolic link",
    "timeout": "cell timed out",
    "kernel-died": "kernel died",
    "unstoppable": "cell ignored the interrupt",
    "exit": "exit called",
    "stderr": "output on stderr",
    "truncated": "output truncated",
    "wrote-files": "wrote files",
    "tampered": "modified the course",
    "grading-failed": "could not be graded",
    "possible-tampering": "possible tampering",
    "differs": "differs from the reference",
    "review": "for manual review",
    "cleaned": "execution tags removed",
    "flagged": "flagged for review",
    "unreachable": "stand-in unreachable",
}
"""Every kind of note, with the short label the summary table shows."""


REVIEW = ("flagged", "possible-tampering", "review")
"""Kinds of notes an instructor should look at by hand: grades.csv lists them in its `review` column."""

REVIEW_ONLY = ("flagged", "review")
"""Kinds of notes that withhold no point (a static flag, what the trusted checks noticed): they go to the
instructor's `review` column only, never on the learner's feedback page, which shows a flag only when points
were withheld because of it (`possible-tampering`). The similarity review writes no note: its pairs go to the
`review` column and the instructor's similarity page only."""


@dataclass(frozen=True)
class Note:
    """One thing that went wrong with a submission, in a sentence addressed to the learner."""

    kind: str
    """One of KINDS."""
    text: str
    """What happened and what it cost, e.g. "cell `x` ran past the 60 s limit and was interrupted"."""


def for_learner(notes: Iterable[Note]) -> list[Note]:
    """The notes a learner's feedback page shows: every one but the review-only kinds (`REVIEW_ONLY`)."""
    return [note for note in notes if note.kind not in REVIEW_ONLY]


def listing(names: list[str]) -> str:
    """`a`, `b` and `c`, for a sentence."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def save_notes(path: Path, notes: Iterable[Note]) -> None:
    """Keep a submission's notes next to the course's other grading records (for `feedback` and the summary)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{"kind": n.kind, "text": n.text} for n in notes], indent=1), encoding="utf-8")


def load_notes(path: Path) -> list[Note]:
    """The notes saved for a submission (none if it has no file)."""
    if not path.is_file():
        return []
    return [
        Note(str(item["kind"]), str(item["text"])) for item in json.loads(path.read_text(encoding="utf-8"))
    ]
