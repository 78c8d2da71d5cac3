"""What is wrong with a submitted assignment before it is graded, said so a learner understands.

Each submitted notebook is compared with the assignment's definition in the gradebook: missing, renamed,
empty or unreadable notebooks, edited, deleted or duplicated graded cells, a notebook from another
assignment. Each finding is a `Note` (`course_grade.notes`); the summary and the feedback show them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from course_grade.cells import Notebook, cell_grade_id, joined, visible
from course_grade.notebooks import MAX_NOTEBOOK_BYTES as MAX_NOTEBOOK_BYTES  # kept here for its importers
from course_grade.notebooks import parse
from course_grade.notes import Note, listing


@dataclass(frozen=True)
class NotebookDefinition:
    """What the gradebook knows about one notebook of an assignment."""

    name: str
    """The notebook's name, without .ipynb."""
    graded: Mapping[str, float] = field(default_factory=dict)
    """grade_id -> points of every graded cell."""
    locked: Mapping[str, str] = field(default_factory=dict)
    """grade_id -> source of every locked cell (tests and read-only cells), as the instructor wrote it."""
    ids: frozenset[str] = frozenset()
    """The grade_ids of the notebook's exercises: graded, solution and task cells."""


def inspect_submission(
    folder: Path, definitions: Iterable[NotebookDefinition], elsewhere: Mapping[str, frozenset[str]]
) -> tuple[list[Note], list[str]]:
    """The notes on a submitted assignment folder, and the notebooks in it nbgrader can grade.

    `elsewhere` maps "assignment/notebook" of every other notebook of the course to its grade_ids, to
    recognise a notebook submitted under the wrong assignment.
    """
    notes: list[Note] = []
    gradable: list[str] = []
    expected = {definition.name: definition for definition in definitions}
    present = sorted(p.stem for p in folder.glob("*.ipynb") if p.is_file())
    strangers = [name for name in present if name not in expected]
    for name, definition in expected.items():
        if name not in present:
            notes.append(_absent(name, strangers))
            continue
        problem, notebook = read_notebook(folder / f"{name}.ipynb")
        if problem is not None:
            notes.append(problem)
        else:
            assert notebook is not None
            found = compare_cells(notebook, definition, elsewhere)
            if not any(note.kind == "other-assignment" for note in found):
                gradable.append(name)  # another assignment's notebook is not run: nothing of it can count
            notes += found
    if strangers and all(name in present for name in expected):
        listed = ", ".join(f"{name}.ipynb" for name in strangers)
        notes.append(Note("renamed", f"{listed} is not a notebook of this assignment and was not graded."))
    return notes, gradable


def _absent(name: str, strangers: list[str]) -> Note:
    """The note for an expected notebook that is not in the submission."""
    if strangers:
        found = ", ".join(f"{other}.ipynb" for other in strangers)
        return Note(
            "renamed",
            f"{name}.ipynb was not submitted (found {found} instead): notebooks must keep their names, "
            "so it scored 0.",
        )
    return Note("missing", f"{name}.ipynb was not submitted, so it scored 0.")


def read_notebook(path: Path) -> tuple[Note | None, Notebook | None]:
    """The notebook at `path` as nbgrader would read it, or the note saying why it cannot be graded."""
    size = path.stat().st_size
    if size == 0:
        return Note("empty", f"{path.name} is an empty file, so it scored 0."), None
    if size > MAX_NOTEBOOK_BYTES:
        return Note(
            "too-large", f"{path.name} is larger than {MAX_NOTEBOOK_BYTES:,} bytes, so it scored 0."
        ), None
    try:
        text = path.read_text(encoding="utf-8")
        notebook = json.loads(text)
        if not (isinstance(notebook, dict) and isinstance(notebook.get("cells"), list)):
            notebook = dict(parse(text))  # an older format (nbgrader upgrades it too), or not a notebook
        return None, notebook
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text"
    except json.JSONDecodeError as error:
        reason = f"it is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
    except Exception as error:  # nbformat raises several types for JSON that is not a notebook
        reason = f"it is JSON but not a Jupyter notebook ({type(error).__name__}: {str(error)[:120]})"
    return Note("unreadable", f"{path.name} could not be read: {reason}, so it scored 0."), None


def compare_cells(
    notebook: Notebook, definition: NotebookDefinition, elsewhere: Mapping[str, frozenset[str]]
) -> list[Note]:
    """Notes on the graded cells of a readable notebook: edited, deleted, duplicated, or foreign."""
    name = f"{definition.name}.ipynb"
    cells = [cell for cell in notebook["cells"] if cell_grade_id(cell)]
    counts = Counter(cell_grade_id(cell) for cell in cells)
    notes: list[Note] = []
    owner = next((key for key, ids in sorted(elsewhere.items()) if set(counts) & ids), None)
    if owner and not set(counts) & definition.ids:
        return [
            Note(
                "other-assignment",
                f"{name} is not this assignment's notebook: it looks like {owner}.ipynb, so it was not run "
                "and scored 0. Submit this assignment's notebook under this name.",
            )
        ]
    duplicated = sorted(
        grade_id for grade_id, count in counts.items() if count > 1 and grade_id in definition.ids
    )
    if duplicated:
        notes.append(
            Note(
                "duplicated",
                f"{name} has several cells with the id {listing(duplicated)}; nbgrader graded only the last "
                "copy of each.",
            )
        )
    deleted = sorted(grade_id for grade_id in definition.graded if grade_id not in counts)
    if deleted:
        notes.append(
            Note("deleted", f"{name} was missing the graded cell {listing(deleted)}; nbgrader put it back.")
        )
    edited = sorted(
        {
            cell_grade_id(cell)
            for cell in cells
            if cell_grade_id(cell) in definition.locked and _changed(cell, definition)
        }
    )
    if edited:
        notes.append(
            Note(
                "edited",
                f"{name}: the read-only cell {listing(edited)} was edited; nbgrader ran the instructor's "
                "version instead.",
            )
        )
    return notes


def _changed(cell: Notebook, definition: NotebookDefinition) -> bool:
    """True if a locked cell's source or points differ from the instructor's."""
    grade_id = cell_grade_id(cell)
    points = cell["metadata"]["nbgrader"].get("points")
    expected_points = definition.graded.get(grade_id)
    changed_points = expected_points is not None and _as_float(points) != expected_points
    return bool(
        visible(joined(cell.get("source", ""))) != visible(definition.locked[grade_id]) or changed_points
    )


def _as_float(value: object) -> float | None:
    """A cell's points as a number, or None if it is not one."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
