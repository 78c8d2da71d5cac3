"""A notebook's cells as nbgrader marks them: a cell's grade_id, whether it is a test, what learners see of it.

A notebook is read as its JSON (plain dicts and lists): reading it through nbformat costs a schema validation.
"""

from __future__ import annotations

import re
from typing import Any

Notebook = dict[str, Any]
"""A notebook as its JSON: plain dicts and lists (reading it through nbformat costs a schema validation)."""


def cell_grade_id(cell: Any) -> str:
    """The nbgrader grade_id of a cell, or "" if it has none (or the JSON is not shaped as nbformat's)."""
    grade_id = nbgrader_metadata(cell).get("grade_id", "")
    return grade_id if isinstance(grade_id, str) else ""


def nbgrader_metadata(cell: Any) -> dict[str, Any]:
    """A cell's nbgrader metadata, or {} if it has none (or the cell or its metadata is not a mapping)."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    found = meta.get("nbgrader") if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def is_test(cell: Any) -> bool:
    """True for an autograded test cell (nbgrader: grade, not solution)."""
    nbgrader = nbgrader_metadata(cell)
    return bool(nbgrader.get("grade")) and not nbgrader.get("solution")


def quiz_id(assignment: str) -> str:
    """The grade_id of `assignment`'s checkpoint quiz answer cell, `quiz_01`; its tests are `quiz_01_q1`, ...

    The notebook's number is in it: nbgrader matches cells by grade_id, so a notebook of another assignment
    submitted in its place must match none of them (grading/quiz_cells.py writes the cells).
    """
    return "quiz_" + assignment[:2]


def is_quiz_answer(grade_id: str) -> bool:
    """True for a checkpoint quiz's answer cell (`quiz_01`)."""
    return re.fullmatch(r"quiz_[0-9]{2}", grade_id) is not None


def is_quiz(grade_id: str) -> bool:
    """True for a checkpoint quiz's answer cell or one of its test cells: values, not code anyone writes alike by
    chance (left out of the similarity review)."""
    return re.fullmatch(r"quiz_[0-9]{2}(_q[0-9]+)?", grade_id) is not None


def visible(source: str) -> str:
    """A cell's source as learners receive it: nbgrader's ClearHiddenTests removes hidden-test regions."""
    kept, hidden = [], False
    for line in source.split("\n"):
        if "BEGIN HIDDEN TESTS" in line:
            hidden = True
        elif "END HIDDEN TESTS" in line:
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def joined(text: str | list[str]) -> str:
    """A source or output text as one string (notebook files may store it as a list of lines)."""
    return "".join(text) if isinstance(text, list) else text


def _text(cell: dict[str, Any]) -> str:
    """A cell's source as one string ("" when it is not text)."""
    source = cell.get("source", "")
    return (
        "".join(map(str, source)) if isinstance(source, list) else source if isinstance(source, str) else ""
    )


def in_context(cells: list[Any], instructor: list[Any]) -> list[str]:
    """Move each test cell of `cells` (a submission's, in place) that sits before a code cell preceding it in
    the `instructor`'s notebook to just after the last such cell; return the grade_ids of the tests moved.

    nbgrader puts a deleted test back after the previous cell it tracks (the solution), ahead of the untracked
    worked examples between them that the test relies on, and leaves a test the learner moved up where it is;
    moved here, either runs after those examples, as in the instructor's notebook. A submitted code cell is
    the instructor's code cell with its grade_id, else the one with its cell id, else the first one with the
    same source (each instructor cell matched once). A test already after all of them stays where it is
    (below the learner's own cells, say). Any JSON is taken: a cell not shaped as nbformat's matches nothing.
    """

    def code(cell: Any) -> bool:
        return isinstance(cell, dict) and cell.get("cell_type") == "code"

    def cell_id(cell: dict[str, Any]) -> str:
        found = cell.get("id")
        return found if isinstance(found, str) else ""

    ours = [(index, cell) for index, cell in enumerate(instructor) if code(cell)]
    by_grade_id = {cell_grade_id(cell): index for index, cell in ours if cell_grade_id(cell)}
    by_id = {cell_id(cell): index for index, cell in ours if cell_id(cell)}
    by_source: dict[str, list[int]] = {}
    for index, cell in ours:
        if not cell_grade_id(cell) and _text(cell).strip():
            by_source.setdefault(_text(cell), []).append(index)
    place: dict[int, int] = {}
    """id() of a submitted code cell -> the index of its instructor cell."""
    for cell in filter(code, cells):
        found = by_grade_id.get(cell_grade_id(cell))
        if found is None and cell_id(cell) in by_id and by_id[cell_id(cell)] not in place.values():
            found = by_id[cell_id(cell)]
        while found is None and (same := by_source.get(_text(cell))):
            found = same.pop(0)
            found = None if found in place.values() else found
        if found is not None:
            place[id(cell)] = found
    moved = []
    tests = [cell for cell in cells if id(cell) in place and is_test(cell)]
    for test in sorted(tests, key=lambda cell: place[id(cell)]):
        before = [
            at for at, cell in enumerate(cells) if place.get(id(cell), len(instructor)) < place[id(test)]
        ]
        here = next(at for at, cell in enumerate(cells) if cell is test)
        if before and here < max(before):
            cells.insert(max(before), cells.pop(here))  # after the pop, max(before) is just after that cell
            moved.append(cell_grade_id(test))
    return moved
