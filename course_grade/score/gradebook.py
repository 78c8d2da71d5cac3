"""The gradebook side: a template gradebook for the workers, and the one writer that records their grades.

Workers autograde in scratch course directories, each with its own copy of a template gradebook that
holds the course's assignment definitions (notebooks, graded cells, checksums, due dates) and no
students. nbgrader's own `autograde` fills that copy; `record` then copies the automatic results into the
real gradebook, applying the rules nbgrader's `SaveAutoGrades` applies, from one process only. So the
real gradebook has a single writer, whatever the database, and ends as a sequential `nbgrader
autograde` would leave it.

Several `course-grade` processes may share one PostgreSQL gradebook (two instructors grading two
assignments at once). nbgrader's `update_or_create_*` look a row up, then insert it if it is missing: two
processes recording the same new student both insert, and one fails on the unique key. So every
`course-grade` writer takes `writer_lock` first, a PostgreSQL advisory lock that serialises them.

It is longer than ~350 lines because it is the one place that touches nbgrader's gradebook tables: the
template the workers fill, the one writer (`record`, with `SaveAutoGrades`' rules), and the reads of what it
wrote (`scores`, `cell_scores`, `final_score`); a change to the schema's use is made here and nowhere else.
"""

from __future__ import annotations

import contextlib
import copy
import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

import nbformat
import sqlalchemy
from nbformat import NotebookNode
from nbformat.v4 import to_notebook_json
from nbgrader.api import (  # type: ignore[import-untyped]
    Base,
    Comment,
    Grade,
    Gradebook,
    MissingEntry,
    SubmittedAssignment,
    SubmittedNotebook,
)
from nbgrader.utils import determine_grade  # type: ignore[import-untyped]
from sqlalchemy.orm import joinedload, selectinload

from course_grade.cells import cell_grade_id
from course_grade.intake.checks import NotebookDefinition
from course_grade.score.submission_grades import NotebookGrades, SubmissionGrades

WRITER_LOCK = 0x636F_7572_7365_6762  # "coursegb"
"""The key of the PostgreSQL advisory lock every `course-grade` process takes before it writes."""


@contextlib.contextmanager
def writer_lock(engine: sqlalchemy.engine.Engine) -> Iterator[None]:
    """Hold the gradebook's writer lock while the block runs; a no-op on a database other than PostgreSQL.

    The lock is a session-level advisory lock on a connection of its own, not a transaction-level one:
    nbgrader commits inside `update_or_create_*`, which would release a transaction's lock halfway. If the
    process dies, its connection closes and the server releases the lock. Recording a submission takes
    milliseconds and grading it seconds, so the writers barely wait for each other.
    """
    if engine.dialect.name != "postgresql":
        yield  # sqlite locks the whole file for each writing transaction itself
        return
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text("SELECT pg_advisory_lock(:key)"), {"key": WRITER_LOCK})
        connection.commit()  # the lock outlives the transaction; the connection is not left idle in one
        try:
            yield
        finally:
            connection.execute(sqlalchemy.text("SELECT pg_advisory_unlock(:key)"), {"key": WRITER_LOCK})
            connection.commit()


@contextlib.contextmanager
def writing(url: str) -> Iterator[None]:
    """Hold the writer lock of the gradebook at `url` while the block runs (see `writer_lock`)."""
    engine = sqlalchemy.create_engine(url)
    try:
        with writer_lock(engine):
            yield
    finally:
        engine.dispose()


def prepare(url: str, course_id: str) -> None:
    """Create the gradebook's tables and course row, under the writer lock (nbgrader does it unlocked).

    nbgrader's `Gradebook()` creates the tables, the schema version and the course when they are missing;
    two processes doing it at once on a new PostgreSQL database collide. Once this has run, opening the
    gradebook writes nothing.
    """
    with writing(url):
        Gradebook(url, course_id).close()


DEFINITIONS = (
    "assignment",
    "notebook",
    "base_cell",
    "source_cell",
    "grade_cells",
    "solution_cells",
    "task_cells",
)
"""The gradebook's tables that define an assignment (parents first), as nbgrader's schema names them."""


def build_template(real_url: str, template: Path, course_id: str, assignments: list[str]) -> None:
    """Write a sqlite gradebook holding the definitions of `assignments` from the real one, and no students.

    The rows are copied as they are (ids included) in one transaction: nbgrader's `update_or_create_*`
    commit one row at a time, which took seconds before the first submission could be graded.
    """
    _stamp(real_url, template)
    Gradebook(f"sqlite:///{template}", course_id).close()  # the schema and the course row
    tables = Base.metadata.tables
    real, copy_ = sqlalchemy.create_engine(real_url), sqlalchemy.create_engine(f"sqlite:///{template}")
    try:
        with real.connect() as source, copy_.begin() as target:
            rows = _definition_rows(source, tables, course_id, assignments)
            for name in DEFINITIONS:
                if rows[name]:
                    target.execute(sqlalchemy.insert(tables[name]), rows[name])
    finally:
        real.dispose()
        copy_.dispose()


def _definition_rows(
    source: sqlalchemy.engine.Connection,
    tables: Mapping[str, sqlalchemy.Table],
    course_id: str,
    assignments: list[str],
) -> dict[str, list[dict[str, object]]]:
    """The rows of `DEFINITIONS` that define `assignments` of the course, table by table; MissingEntry when an
    assignment is not in the gradebook."""

    def rows(table: str, where: sqlalchemy.ColumnElement[bool]) -> list[dict[str, object]]:
        return [dict(row._mapping) for row in source.execute(sqlalchemy.select(tables[table]).where(where))]

    found: dict[str, list[dict[str, object]]] = {}
    assignment = tables["assignment"].c
    found["assignment"] = rows(
        "assignment", (assignment.course_id == course_id) & assignment.name.in_(assignments)
    )
    missing = set(assignments) - {str(row["name"]) for row in found["assignment"]}
    if missing:
        raise MissingEntry(f"no assignment {', '.join(sorted(missing))} in the gradebook")
    ids = [row["id"] for row in found["assignment"]]
    found["notebook"] = rows("notebook", tables["notebook"].c.assignment_id.in_(ids))
    notebooks = [row["id"] for row in found["notebook"]]
    found["base_cell"] = rows("base_cell", tables["base_cell"].c.notebook_id.in_(notebooks))
    found["source_cell"] = rows("source_cell", tables["source_cell"].c.notebook_id.in_(notebooks))
    cells = [row["id"] for row in found["base_cell"]]
    for kind in ("grade_cells", "solution_cells", "task_cells"):
        found[kind] = rows(kind, tables[kind].c.id.in_(cells))
    return found


def _stamp(real_url: str, template: Path) -> None:
    """Give a new sqlite gradebook the real one's schema version (else nbgrader runs `alembic` to find it)."""
    engine = sqlalchemy.create_engine(real_url)
    try:
        with engine.connect() as connection:
            version = connection.execute(sqlalchemy.text("SELECT version_num FROM alembic_version")).scalar()
    except sqlalchemy.exc.SQLAlchemyError:
        return  # nbgrader will stamp it itself
    finally:
        engine.dispose()
    database = sqlite3.connect(template)
    with database:  # commits
        database.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        database.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (version,))
    database.close()


def missing_assignments(url: str, course_id: str, assignments: list[str]) -> list[str]:
    """The assignments that are not in the gradebook yet (`course-grade release` puts them there)."""
    with Gradebook(url, course_id) as gradebook:
        known = {assignment.name for assignment in gradebook.assignments}
    return [name for name in assignments if name not in known]


def definitions(url: str, course_id: str, assignment: str) -> list[NotebookDefinition]:
    """What the gradebook knows about each notebook of an assignment, for checking submissions."""
    with Gradebook(url, course_id) as gradebook:
        result = []
        for notebook in gradebook.find_assignment(assignment).notebooks:
            graded = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
            locked = {cell.name: cell.source or "" for cell in notebook.source_cells if cell.locked}
            exercises = [*notebook.grade_cells, *notebook.solution_cells, *notebook.task_cells]
            ids = frozenset(cell.name for cell in exercises)
            result.append(NotebookDefinition(notebook.name, graded, locked, ids))
        return result


def read_results(
    url: str, course_id: str, assignment: str, student: str, graded: list[str]
) -> SubmissionGrades:
    """The automatic results nbgrader stored for one submission, for the notebooks it graded."""
    with Gradebook(url, course_id) as gradebook:
        submission = gradebook.find_submission(assignment, student)
        notebooks = tuple(
            NotebookGrades(
                notebook.name,
                {grade.name: grade.auto_score for grade in notebook.grades},
                {comment.name: comment.auto_comment for comment in notebook.comments},
                notebook.late_submission_penalty,
            )
            for notebook in submission.notebooks
            if notebook.name in graded
        )
        return SubmissionGrades(student, assignment, submission.timestamp, notebooks)


def rescore(
    grades: SubmissionGrades, notebooks: Mapping[str, bytes], known: list[NotebookDefinition]
) -> SubmissionGrades:
    """The grades recomputed from the autograded notebooks, as nbgrader scores them, with the real points.

    The worker's scratch gradebook was within reach of the learner's code (a SQLite trigger there could
    write any score); the notebook nbgrader wrote holds what each test cell printed and raised, which is
    all nbgrader's own scoring reads. A notebook absent here scores 0; a late penalty is never negative.
    """
    by_name = {definition.name: definition for definition in known}
    reported = {notebook.name: notebook for notebook in grades.notebooks}
    rescored = []
    for name, data in notebooks.items():
        definition = by_name.get(name)
        if definition is None:
            continue
        old = reported.get(name, NotebookGrades(name, {}, {}))
        penalty = None if old.late_penalty is None else max(0.0, float(old.late_penalty))
        scores = notebook_scores(graded_cells(data, definition), definition)
        rescored.append(NotebookGrades(name, scores, old.comments, penalty))
    return SubmissionGrades(grades.student, grades.assignment, grades.timestamp, tuple(rescored))


def graded_cells(data: bytes, definition: NotebookDefinition) -> NotebookNode:
    """The notebook in `data` as `nbformat.reads` reads it, keeping only the cells `definition` grades.

    A version 4 notebook (what nbgrader writes) has its graded cells picked from the JSON before they become
    a `NotebookNode`, and only they are converted as `nbformat.reads` would convert them (lines joined,
    transient fields dropped). The whole notebook is not converted nor validated against the schema, which
    cost the one writer about 40 ms a notebook (`nbformat.reads` only logs what is invalid, and the scores
    read nothing else). Any other notebook is read whole by `nbformat.reads`.
    """
    text = data.decode("utf-8")
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        found = None
    cells = found.get("cells") if isinstance(found, dict) and found.get("nbformat") == 4 else None
    if not isinstance(cells, list):
        return nbformat.reads(text, as_version=4)  # type: ignore[no-untyped-call,no-any-return]
    graded = [cell for cell in cells if isinstance(cell, dict) and cell_grade_id(cell) in definition.graded]
    picked = {
        "nbformat": 4,
        "nbformat_minor": found.get("nbformat_minor", 0),
        "metadata": {},
        "cells": graded,
    }
    return to_notebook_json(picked)  # type: ignore[no-untyped-call,no-any-return]


def notebook_scores(notebook: NotebookNode, definition: NotebookDefinition) -> dict[str, float | None]:
    """grade_id -> nbgrader's automatic score of every graded cell, with the gradebook's points (0 if absent)."""
    found: dict[str, float | None] = dict.fromkeys(definition.graded, 0.0)
    for cell in notebook.cells:
        grade_id = cell_grade_id(cell)
        if grade_id not in definition.graded:
            continue
        cell = copy.deepcopy(cell)
        cell.metadata.nbgrader.update(grade=True, points=definition.graded[grade_id])
        found[grade_id] = determine_grade(cell)[0]  # the last copy counts, as in nbgrader
    return found


def record(gradebook: Gradebook, result: SubmissionGrades) -> None:
    """Record one submission's automatic results as nbgrader's autograde would; absent notebooks score 0."""
    with writer_lock(gradebook.engine):
        _record(gradebook, result)


def _record(gradebook: Gradebook, result: SubmissionGrades) -> None:
    """`record`, once the writer lock is held."""
    gradebook.update_or_create_student(result.student)
    if result.timestamp is not None:
        submission = gradebook.update_or_create_submission(
            result.assignment, result.student, timestamp=result.timestamp
        )
    else:
        submission = gradebook.update_or_create_submission(result.assignment, result.student)
    by_name = {notebook.name: notebook for notebook in result.notebooks}
    submitted_notebooks = _submitted_notebooks(gradebook, submission.id)
    for notebook in gradebook.find_assignment(result.assignment).notebooks:
        submitted = submitted_notebooks.get(notebook.name)
        if submitted is None:  # as `find_submission_notebook` says it
            raise MissingEntry()
        graded = by_name.get(notebook.name)
        for grade in submitted.grades:
            if graded is None:  # nbgrader's rule for a notebook that was not submitted
                grade.auto_score, grade.needs_manual_grade = 0, False
                continue
            score = _bounded(graded.scores.get(grade.name), float(grade.max_score))
            grade.auto_score = score
            grade.needs_manual_grade = grade.manual_score is not None or score is None
        if graded is not None:
            for comment in submitted.comments:
                comment.auto_comment = graded.comments.get(comment.name)
            submitted.late_submission_penalty = graded.late_penalty
    gradebook.db.commit()


def _submitted_notebooks(gradebook: Gradebook, submission_id: str) -> dict[str, SubmittedNotebook]:
    """A submission's notebooks by name, each with its grades and comments, their cells and maximum scores
    loaded in four queries (nbgrader's objects load each lazily: two queries a graded cell)."""
    rows = (
        gradebook.db.query(SubmittedNotebook)
        .filter(SubmittedNotebook.assignment_id == submission_id)
        .options(
            joinedload(SubmittedNotebook.notebook),
            selectinload(SubmittedNotebook.grades).joinedload(Grade.cell),
            selectinload(SubmittedNotebook.grades).undefer(Grade.max_score),
            selectinload(SubmittedNotebook.comments).joinedload(Comment.cell),
        )
        .all()
    )
    return {row.notebook.name: row for row in rows}


def _bounded(score: float | None, most: float) -> float | None:
    """A score clamped to [0, most]: a worker's scratch gradebook is within reach of the learner's code."""
    return None if score is None else min(max(float(score), 0.0), most)


def scores(url: str, course_id: str, assignment: str, students: list[str]) -> dict[str, tuple[float, float]]:
    """student -> (score, max score) of their submission, for the students who have one."""
    found: dict[str, tuple[float, float]] = {}
    with Gradebook(url, course_id) as gradebook:
        for student in students:
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            found[student] = (float(submission.score), float(submission.max_score))
    return found


def final_score(submission: SubmittedAssignment) -> float:
    """A submission's score after its late penalty, never below 0: the one number every output shows (nbgrader's
    CSV export computes it so)."""
    return max(0.0, float(submission.score) - float(submission.late_submission_penalty or 0.0))


def submission_auto_scores(
    gradebook: Gradebook, assignment: str, student: str
) -> list[tuple[str, str, float | None]]:
    """(notebook, grade_id, auto_score) of every grade of one submission, in order: what autograding wrote."""
    submission = gradebook.find_submission(assignment, student)
    return sorted(
        (notebook.name, grade.name, grade.auto_score)
        for notebook in submission.notebooks
        for grade in notebook.grades
    )


def cell_scores(url: str, course_id: str = "default_course") -> dict[tuple[str, str, str, str], float | None]:
    """(assignment, student, notebook, grade_id) -> auto_score of every grade in the gradebook."""
    table: dict[tuple[str, str, str, str], float | None] = {}
    with Gradebook(url, course_id) as gradebook:
        for assignment in gradebook.assignments:
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        key = (assignment.name, submission.student.id, notebook.name, grade.name)
                        table[key] = grade.auto_score
    return table
