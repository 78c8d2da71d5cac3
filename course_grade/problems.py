"""What went wrong with a submission, found before and after nbgrader grades it, said so a learner understands.

Before grading, each submitted notebook is compared with the assignment's definition in the gradebook:
missing, renamed, empty or unreadable notebooks, edited, deleted or duplicated graded cells, a notebook
from another assignment. After grading, the autograded notebook shows timeouts, a dead kernel, exits,
output on stderr and truncated output. Each finding is a `Note`; the summary and the feedback show them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course_grade.notebooks import parse

Notebook = dict[str, Any]
"""A notebook as its JSON: plain dicts and lists (reading it through nbformat costs a schema validation)."""

MAX_NOTEBOOK_BYTES = 50_000_000
"""A submitted notebook larger than this is not graded (stored outputs are cleared anyway)."""

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
    "review": "for manual review",
    "cleaned": "execution tags removed",
    "flagged": "flagged for review",
    "unreachable": "stand-in unreachable",
}
"""Every kind of note, with the short label the summary table shows."""

REVIEW = ("flagged", "possible-tampering", "review")
"""Kinds of notes an instructor should look at by hand: grades.csv lists them in its `review` column."""

TRUNCATION_MARKERS = ("... Output truncated ...", "[output truncated by the grader:")

UNREACHABLE = re.compile(
    r"could not reach|Connection refused|Connection error|Remote end closed connection|Tunnel connection|ProxyError"
)
"""An error that means the kernel could not talk to its local stand-in (refused, or sent to a proxy)."""


@dataclass(frozen=True)
class Note:
    """One thing that went wrong with a submission, in a sentence addressed to the learner."""

    kind: str
    """One of KINDS."""
    text: str
    """What happened and what it cost, e.g. "cell `x` ran past the 60 s limit and was interrupted"."""


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
            gradable.append(name)
            notes += compare_cells(notebook, definition, elsewhere)
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
                f"{name} is not this assignment's notebook: it looks like {owner}.ipynb. The tests of this "
                "assignment were put back and run against it, and nothing else of it counts.",
            )
        ]
    duplicated = sorted(
        grade_id for grade_id, count in counts.items() if count > 1 and grade_id in definition.ids
    )
    if duplicated:
        notes.append(
            Note(
                "duplicated",
                f"{name} has several cells with the id {_listing(duplicated)}; nbgrader graded only the last "
                "copy of each.",
            )
        )
    deleted = sorted(grade_id for grade_id in definition.graded if grade_id not in counts)
    if deleted:
        notes.append(
            Note("deleted", f"{name} was missing the graded cell {_listing(deleted)}; nbgrader put it back.")
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
                f"{name}: the read-only cell {_listing(edited)} was edited; nbgrader ran the instructor's "
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
        visible(_joined(cell.get("source", ""))) != visible(definition.locked[grade_id]) or changed_points
    )


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


def _as_float(value: object) -> float | None:
    """A cell's points as a number, or None if it is not one."""
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def cell_grade_id(cell: Any) -> str:
    """The nbgrader grade_id of a cell, or "" if it has none."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = nbgrader.get("grade_id", "") if isinstance(nbgrader, dict) else ""
    return grade_id if isinstance(grade_id, str) else ""


def _joined(text: str | list[str]) -> str:
    """A source or output text as one string (notebook files may store it as a list of lines)."""
    return "".join(text) if isinstance(text, list) else text


def _listing(names: list[str]) -> str:
    """`a`, `b` and `c`, for a sentence."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def execution_notes(notebook: Notebook, name: str, timeout: int) -> list[Note]:
    """Notes on how an autograded notebook ran: timeouts, a dead kernel, exits, stderr, truncated output."""
    notes: list[Note] = []
    timed_out, exits, stderr, truncated = [], [], [], []
    unreachable: list[str] = []
    died = stopped = ""
    for index, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") != "code":
            continue
        label = cell_grade_id(cell) or f"code cell {index + 1}"
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "error" and output.get("ename") == "CellTimeoutError":
                timed_out.append(label)
            elif kind == "error" and output.get("ename") == "DeadKernelError" and not died:
                died = label
            elif kind == "error" and output.get("ename") == "KernelStoppedError" and not stopped:
                stopped = label
            elif kind == "error" and output.get("ename") == "SystemExit":
                exits.append(label)
            elif kind == "error" and UNREACHABLE.search(f"{output.get('ename')}: {output.get('evalue')}"):
                unreachable.append(label)
            elif kind == "stream" and output.get("name") == "stderr" and is_test(cell):
                stderr.append(label)
            if kind == "stream" and any(
                marker in _joined(output.get("text", "")) for marker in TRUNCATION_MARKERS
            ):
                truncated.append(label)
    if timed_out:
        notes.append(
            Note(
                "timeout",
                f"{name}: {_listing(_unique(timed_out))} ran longer than the {timeout} s limit per cell and "
                "was interrupted (an infinite loop?).",
            )
        )
    if died:
        notes.append(
            Note(
                "kernel-died",
                f"{name}: the kernel died while running `{died}` (os._exit, a crash or too much memory); "
                "the cells after it did not run and scored 0.",
            )
        )
    if stopped:
        notes.append(
            Note(
                "unstoppable",
                f"{name}: `{stopped}` went on running after it was interrupted at the time limit (does it "
                "ignore KeyboardInterrupt or SIGINT?), so its kernel was stopped; the cells after it did "
                "not run and scored 0.",
            )
        )
    if exits:
        notes.append(
            Note(
                "exit",
                f"{name}: {_listing(_unique(exits))} called sys.exit() or raised SystemExit; "
                "the cell stopped there.",
            )
        )
    if stderr:
        notes.append(
            Note(
                "stderr",
                f"{name}: the test cell {_listing(_unique(stderr))} wrote to stderr, and nbgrader gives 0 to a "
                "test that does (print to stdout, or not at all).",
            )
        )
    if unreachable:
        notes.append(
            Note(
                "unreachable",
                f"{name}: {_listing(_unique(unreachable))} could not reach the notebook's local stand-in server "
                "(connection refused, or sent to a proxy). If the grading machine sets http_proxy, https_proxy "
                "or ALL_PROXY, add localhost,127.0.0.1,::1 to no_proxy and NO_PROXY and grade again.",
            )
        )
    if truncated:
        notes.append(
            Note("truncated", f"{name}: {_listing(_unique(truncated))} printed too much; its output was cut.")
        )
    return notes


def is_test(cell: Any) -> bool:
    """True for an autograded test cell."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return bool(nbgrader.get("grade")) and not nbgrader.get("solution")


def _unique(labels: list[str]) -> list[str]:
    """The labels once each, in order."""
    return list(dict.fromkeys(labels))


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
