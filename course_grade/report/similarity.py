"""Copies flagged, never a grade change: the graded cells of a class compared with each other and the keys.

Each submission's solution cells are fingerprinted with copydetect (winnowed k-grams of the tokenized code,
identifiers and literals normalised, so renaming or inlining a constant changes little); the learners'
version of the notebook is the boilerplate (its stubs and signatures match everybody). Every pair of
classmates, every submission against the key (the reference source of the assignment's graded functions),
against the instructor's solution cells (the course's `source/<assignment>` notebooks, never a classmate)
and, optionally, against earlier submissions is scored; pairs at or above the threshold become review notes
(`similar to the reference (NN%)`, `similar to the instructor's solution (source/01_envelope) (NN%)`,
`similar to <student> (NN%)`) and rows of an HTML report.
"""

from __future__ import annotations

import ast
import html
import io
import itertools
import json
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import course_lib
from course_grade.cells import is_quiz
from course_grade.notebooks import MAX_NOTEBOOK_BYTES
from course_grade.report.safe_html import POLICY_META
from course_grade.untrusted import printable

THRESHOLD = 0.6
"""The share of one side's fingerprinted tokens found in the other from which a pair is flagged, for an
assignment `THRESHOLDS` does not name."""

THRESHOLDS: dict[str, float] = {
    "01_envelope": 0.69,  # honest <= 0.52, copies >= 0.87
    "02_dispatcher": 0.70,  # honest <= 0.52, copies >= 0.88
    "03_loop": 0.77,  # honest <= 0.75, copies >= 0.80
    "04_wire": 0.85,  # honest <= 0.79, copies >= 0.93
    "05_failures": 0.82,  # honest <= 0.72, copies >= 0.93
    "06_security": 0.75,  # honest <= 0.65, copies >= 0.87
    "07_capstone": 0.82,  # honest <= 0.78, copies >= 0.86
}
"""assignment -> its threshold, set from the measured distributions (benchmarks/flag_rates.py, which prints
them): the midpoint of the gap between the highest score of honest work (the instructor's solution, the
catalogue's correct variants, 3 independent answers; 60 in all, 7 to 12 an assignment) and the lowest of a
copy (of the reference, the instructor's solution or a classmate: verbatim, renamed, reformatted, reordered,
all three; 30 an assignment). Measured at 0.6 for all: 25 of 60 honest answers flagged. Contracts that dictate
structure (03's loops, 04's specs and streams, 06's policy table, 07's canonical and adapter) put honest work
close to the key; 03's gap is the narrowest (0.75 to 0.80).
tests/course_grade/report/test_flag_rates.py holds them to the data."""


def threshold_for(assignment: str) -> float:
    """The threshold a pair of an assignment is flagged from: measured (`THRESHOLDS`), else `THRESHOLD`."""
    return THRESHOLDS.get(assignment, THRESHOLD)


K = 25
"""copydetect's noise threshold: matches shorter than this many (filtered) characters are ignored."""

WINDOW = 1
"""copydetect's guarantee threshold minus the noise threshold, plus one: every k-gram is kept."""

REFERENCE = "the reference"
"""The name a key goes by in notes and the report."""


def instructors_solution(assignment: str) -> str:
    """The name the instructor's solution cells of an assignment go by in notes and the report."""
    return f"the instructor's solution (source/{assignment})"


@dataclass(frozen=True)
class Pair:
    """Two graded sources found alike: `student`'s, and `other`'s (a classmate, the reference, an earlier one)."""

    student: str
    other: str
    similarity: float
    """The larger of the two sides' overlap shares, 0..1."""


def solution_source(notebook: Mapping[str, Any]) -> str:
    """The source of a notebook's solution cells (nbgrader `solution: true`), one after the other; not a
    checkpoint quiz's answers (`q1 = "C"`: honest learners write the same few values)."""
    cells = notebook.get("cells")
    sources = []
    for cell in cells if isinstance(cells, list) else []:
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
        if (
            isinstance(meta, dict) and meta.get("solution") and cell.get("cell_type") == "code"
            and not is_quiz(str(meta.get("grade_id", "")))
        ):  # fmt: skip
            text = cell.get("source", "")
            sources.append("".join(text) if isinstance(text, list) else str(text))
    return "\n\n".join(sources) + "\n"


def graded_names(instructor: Mapping[str, Any]) -> list[str]:
    """The top-level functions and classes the instructor's solution cells define."""
    try:
        tree = ast.parse(solution_source(instructor))
    except SyntaxError:
        return []
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    return [node.name for node in tree.body if isinstance(node, kinds)]


def key_source(names: Iterable[str]) -> str:
    """The reference source of the named functions and classes: every course_lib module defining one of them
    at top level, whole (a pasted key brings its helpers and constants along).

    The one lookup of a key: an integrator may point it at the keys' own layer."""
    wanted, found = set(names), []
    for path in sorted(Path(course_lib.__file__).parent.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        kinds = ast.FunctionDef | ast.ClassDef
        if any(isinstance(node, kinds) and node.name in wanted for node in ast.parse(text).body):
            found.append(text)
    return "\n\n".join(found)


def _fingerprint(name: str, code: str, boilerplate: list[int] | None = None) -> Any:
    from copydetect import CodeFingerprint  # type: ignore[import-untyped]  # loaded only when a review runs

    return CodeFingerprint(f"{name}.py", K, WINDOW, boilerplate or [], fp=io.StringIO(code))


def _similarity(one: Any, two: Any) -> float:
    from copydetect import compare_files

    if not len(one.hashes) or not len(two.hashes):
        return 0.0
    _, (first, second), _ = compare_files(one, two)
    return float(max(first, second))


def similar_pairs(
    sources: Mapping[str, str],
    reference: str,
    boilerplate: str,
    earlier: Mapping[str, str] | None = None,
    threshold: float = THRESHOLD,
    solutions: Mapping[str, str] | None = None,
) -> list[Pair]:
    """Every pair of classmates, every submission with the reference, with the instructor's `solutions` (name
    -> solution cells) and with each earlier one, at or above the threshold, most similar first."""
    common = [int(h) for h in _fingerprint("boilerplate", boilerplate).hashes]
    prints = {student: _fingerprint(student, code, common) for student, code in sorted(sources.items())}
    others = {REFERENCE: _fingerprint("reference", reference, common)} | {
        name: _fingerprint(name, code, common)
        for name, code in [*sorted((solutions or {}).items()), *sorted((earlier or {}).items())]
    }
    pairs = [
        Pair(one, two, score)
        for one, two in itertools.combinations(prints, 2)
        if (score := _similarity(prints[one], prints[two])) >= threshold
    ]
    pairs += [
        Pair(student, other, score)
        for student, mine in prints.items()
        for other, theirs in others.items()
        if (score := _similarity(mine, theirs)) >= threshold
    ]
    return sorted(pairs, key=lambda pair: (-pair.similarity, pair.student, pair.other))


def review_notes(pairs: Iterable[Pair], classmates: Iterable[str]) -> dict[str, list[str]]:
    """student -> what the `review` column says of them: `similar to the reference (NN%)`, `similar to x (NN%)`."""
    students = set(classmates)
    notes: dict[str, list[str]] = {}
    for pair in pairs:
        percent = f"{round(pair.similarity * 100)}%"
        notes.setdefault(pair.student, []).append(f"similar to {pair.other} ({percent})")
        if pair.other in students:
            notes.setdefault(pair.other, []).append(f"similar to {pair.student} ({percent})")
    return notes


def _e(text: str) -> str:
    """Text escaped for HTML, its control and format characters shown as escapes (`\\u202e`)."""
    return html.escape(printable(text))


def html_report(assignment: str, pairs: Iterable[Pair], threshold: float = THRESHOLD) -> str:
    """A self-contained HTML page listing the flagged pairs of one assignment."""
    rows = "\n".join(
        f"<tr><td>{_e(p.student)}</td><td>{_e(p.other)}</td><td>{round(p.similarity * 100)}%</td></tr>"
        for p in pairs
    )
    return (
        f"<!doctype html>\n<meta charset='utf-8'>\n{POLICY_META}\n"
        f"<title>Similar submissions: {html.escape(assignment)}</title>\n"
        f"<h1>Similar submissions: {html.escape(assignment)}</h1>\n"
        f"<p>Solution cells compared with copydetect; pairs at or above {round(threshold * 100)}% are listed for "
        "review. No score was changed.</p>\n"
        f"<table>\n<tr><th>submission</th><th>similar to</th><th>similarity</th></tr>\n{rows}\n</table>\n"
    )


def review_notebook(path: Path) -> tuple[dict[str, Any], str | None]:
    """A notebook as the review reads it, only where grading reads it too: a regular file (never a link, a
    pipe or a device, which could block) under the size cap, whose JSON parses and whose solution cells read;
    else an empty notebook and why (any error, a RecursionError from JSON nested too deep among them)."""
    empty: dict[str, Any] = {"cells": []}
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return empty, None  # not submitted: grading says so
    except OSError as error:
        return empty, "is a symbolic link" if path.is_symlink() else f"cannot be opened ({error.strerror})"
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            return empty, "is not a regular file"
        if info.st_size > MAX_NOTEBOOK_BYTES:
            return empty, f"is larger than {MAX_NOTEBOOK_BYTES:,} bytes"
        with os.fdopen(handle, "rb", closefd=False) as stream:
            data = stream.read(MAX_NOTEBOOK_BYTES + 1)
        found = json.loads(data.decode("utf-8"))
        if not isinstance(found, dict):
            return empty, "is not a notebook"
        solution_source(found)  # every cell the review reads, read once here
    except Exception as error:  # noqa: BLE001 - whatever the learner's file makes fail, the class goes on
        return empty, f"could not be read ({type(error).__name__})"
    finally:
        os.close(handle)
    return found, None


def _solutions(folder: Path, names: Iterable[str] | None = None, problems: list[str] | None = None) -> str:
    """The solution cells of the notebooks `names` (as grading reads them: no other file; default: every
    notebook of the folder) in a folder, in name order; what could not be read is added to `problems`."""
    sources = []
    if names is None:
        names = [path.stem for path in folder.glob("*.ipynb")]
    for name in sorted(names):
        notebook, problem = review_notebook(folder / f"{name}.ipynb")
        if problem is not None and problems is not None:
            problems.append(f"{name}.ipynb left out of the similarity review: it {problem}")
        sources.append(solution_source(notebook))
    return "".join(sources)


def review_class(
    root: Path,
    assignment: str,
    students: Iterable[str],
    earlier: Path | None = None,
    threshold: float | None = None,
) -> tuple[list[Pair], dict[str, list[str]], Path]:
    """Compare one assignment's submissions in an nbgrader course at `root`; write the HTML report.

    Returns the pairs, the review notes by student and where the report is. `earlier` holds submissions of
    earlier years in the submitted layout (`<earlier>/<name>/<assignment>/*.ipynb`); `threshold` defaults to
    the assignment's (`threshold_for`)."""
    if threshold is None:
        threshold = threshold_for(assignment)
    notebooks = sorted(path.stem for path in (root / "source" / assignment).glob("*.ipynb"))
    instructor = [review_notebook(root / "source" / assignment / f"{name}.ipynb")[0] for name in notebooks]
    names = [name for notebook in instructor for name in graded_names(notebook)]
    learners = root / "release" / assignment
    boilerplate = _solutions(learners if learners.is_dir() else root / "source" / assignment, notebooks)
    classmates = sorted(students)
    unread: dict[str, list[str]] = {student: [] for student in classmates}
    sources = {
        student: _solutions(root / "submitted" / student / assignment, notebooks, unread[student])
        for student in classmates
    }
    old = {}
    if earlier is not None:
        old = {
            f"{folder.name} (earlier)": _solutions(folder / assignment, notebooks)
            for folder in sorted(earlier.iterdir())
            if (folder / assignment).is_dir()
        }
    solutions = {instructors_solution(assignment): _solutions(root / "source" / assignment)}
    pairs = similar_pairs(sources, key_source(names), boilerplate, old, threshold, solutions)
    report = root / "similarity" / f"{assignment}.html"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(html_report(assignment, pairs, threshold), encoding="utf-8")
    notes = review_notes(pairs, classmates)
    for student, problems in unread.items():
        if problems:
            notes[student] = [*problems, *notes.get(student, [])]
    return pairs, notes, report
