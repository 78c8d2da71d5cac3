"""The roster: a CSV file mapping each student id of the gradebook to the learning platform's ids and names.

Columns (a header row; only `student_id` is required, the others fill the platform's columns):
`student_id`, `name` (Canvas's "Student", "Last, First"), `canvas_id` (Canvas's "ID"), `sis_user_id`,
`sis_login_id`, `section`, `first_name`, `last_name`, `email`, `id_number` (Moodle's "ID number").
Students on either side only are listed, never dropped: `match` says who. A value holding a control or format
character (a bidi override, a zero-width space) is refused: it could read as another student's.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from course_grade.untrusted import id_problem, printable


class RosterError(Exception):
    """The roster file cannot be used (the instructor's file: missing, not CSV, no `student_id` column)."""


@dataclass(frozen=True)
class Entry:
    """One rostered student."""

    student_id: str
    name: str = ""
    canvas_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    id_number: str = ""


COLUMNS = tuple(field.name for field in fields(Entry))
"""The roster's columns, `student_id` first."""


@dataclass(frozen=True)
class Matched:
    """The roster against the gradebook's students: who is on both sides and who on one only."""

    entries: tuple[Entry, ...]
    """Every rostered student, in the roster's order (each gets a row in a platform's CSV)."""
    not_in_gradebook: tuple[str, ...]
    """Rostered student ids the gradebook does not know (no submission at all: 0 in the exports)."""
    not_on_roster: tuple[str, ...]
    """Student ids of the gradebook the roster lacks (left out of the platform's CSV, so listed)."""


def read_roster(path: Path) -> list[Entry]:
    """The roster's entries; RosterError for a missing file, a missing `student_id` column or a repeated id."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            rows = list(reader)
            header = [str(name) for name in reader.fieldnames or []]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise RosterError(f"the roster {path} cannot be read: {error}") from error
    if "student_id" not in header:
        raise RosterError(f"the roster {path} has no student_id column (its columns: {', '.join(header)})")
    entries, seen = [], set()
    for number, row in enumerate(rows, 2):
        values = {key: (row.get(key) or "").strip() for key in COLUMNS}
        for key, value in values.items():
            if (problem := id_problem(value)) is not None:  # a name a person could not tell from another
                raise RosterError(f"the roster {path}, line {number}: {key} {printable(value)!r} {problem}")
        if not values["student_id"]:
            raise RosterError(f"the roster {path}, line {number}: no student_id")
        if values["student_id"] in seen:
            raise RosterError(f"the roster {path}, line {number}: {values['student_id']!r} appears twice")
        seen.add(values["student_id"])
        entries.append(Entry(**values))
    return entries


def match(entries: Iterable[Entry], students: Iterable[str]) -> Matched:
    """The roster against the gradebook's student ids."""
    entries = tuple(entries)
    known = set(students)
    rostered = {entry.student_id for entry in entries}
    return Matched(
        entries,
        tuple(entry.student_id for entry in entries if entry.student_id not in known),
        tuple(sorted(known - rostered)),
    )
