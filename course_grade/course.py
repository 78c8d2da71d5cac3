"""The nbgrader course directory: where its folders are, which assignments it has, and its configuration."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from course_grade.notebooks import read

REPOSITORY_COURSE = Path(__file__).resolve().parent.parent / "grading"
"""The course directory of this repository, the default of `--course`."""

CONFIG_FILE = "nbgrader_config.py"


class CourseError(Exception):
    """The course directory cannot be used: the pipeline cannot run (the instructor's problem, not a learner's)."""


@dataclass(frozen=True)
class Course:
    """An nbgrader course directory, the gradebook it uses, and the grading limits for this run."""

    root: Path
    """The course directory (holds nbgrader_config.py, source/, submitted/, autograded/, feedback/)."""
    db_url: str
    """The gradebook: any SQLAlchemy URL nbgrader accepts."""
    course_id: str
    """nbgrader's course id, from the course's configuration."""
    timeout: int | None = None
    """Seconds a single cell may run while autograding; None keeps the course's `Execute.timeout`."""

    @classmethod
    def open(cls, root: Path, db_url: str | None = None, timeout: int | None = None) -> Course:
        """The course at `root`; `db_url` defaults to the one its nbgrader_config.py names (or a sqlite file)."""
        root = root.resolve()
        if not (root / "source").is_dir():
            raise CourseError(f"{root} is not an nbgrader course directory: it has no source/ folder")
        config = load_config(root)
        default_db = f"sqlite:///{root / 'gradebook.db'}"
        configured = config.CourseDirectory.get("db_url", default_db)
        course_id = str(config.CourseDirectory.get("course_id", "")) or "default_course"
        return cls(root, database_url(db_url or str(configured)), course_id, timeout)

    def assignments(self) -> list[str]:
        """Every assignment of the course, in order: a folder of source/ holding at least one notebook."""
        source = self.root / "source"
        return sorted(p.name for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))

    def select(self, names: list[str]) -> list[str]:
        """The assignments named (all of them if none), checked to exist."""
        known = self.assignments()
        if not known:
            raise CourseError(f"{self.root / 'source'} holds no assignment")
        unknown = [name for name in names if name not in known]
        if unknown:
            raise CourseError(f"no such assignment in {self.root / 'source'}: {', '.join(unknown)}")
        return names or known

    def notebooks(self, assignment: str) -> list[str]:
        """The names (without .ipynb) of an assignment's notebooks, from its source folder."""
        return sorted(p.stem for p in (self.root / "source" / assignment).glob("*.ipynb"))

    def folder(self, step: str, student: str = "", assignment: str = "") -> Path:
        """nbgrader's layout: `<root>/<step>/<student>/<assignment>` (source/release have no student)."""
        path = self.root / step
        for part in (student, assignment):
            if part:
                path = path / part
        return path

    def config(self, root: Path | None = None, db_url: str | None = None) -> Config:
        """The course's nbgrader configuration, pointed at `root` and `db_url` (default: this course's)."""
        config = load_config(self.root)
        config.CourseDirectory.root = str(root or self.root)
        config.CourseDirectory.db_url = db_url or self.db_url
        config.CourseDirectory.course_id = self.course_id
        config.CourseGradeOnly.allowed = (
            True  # course_grade.score.guard: nbgrader's autograde, run by course-grade
        )
        if self.timeout is not None:
            config.Execute.timeout = self.timeout
        return config

    def published_keys(self) -> list[str]:
        """The assignments whose keys the course publishes (`c.Edition.published_keys` in its configuration)."""
        return [str(name) for name in load_config(self.root).Edition.get("published_keys", [])]

    def exercise_ids(self) -> dict[str, frozenset[str]]:
        """Map "assignment/notebook" to the grade_ids of its exercises, for every source notebook."""
        found = {}
        for assignment in self.assignments():
            for path in sorted(self.folder("source", assignment=assignment).glob("*.ipynb")):
                marks = [cell.metadata.get("nbgrader", {}) for cell in read(path).cells]
                ids = {
                    mark.get("grade_id")
                    for mark in marks
                    if mark.get("grade") or mark.get("solution") or mark.get("task")
                }
                found[f"{assignment}/{path.stem}"] = frozenset(str(i) for i in ids if i)
        return found


POSTGRESQL_DRIVER = "postgresql+psycopg"
"""SQLAlchemy's dialect and driver for PostgreSQL gradebooks: psycopg 3, which the course installs."""


def database_url(url: str) -> str:
    """The gradebook URL, with `postgresql://` and `postgres://` pointed at psycopg 3 (`POSTGRESQL_DRIVER`).

    SQLAlchemy 2.0 reads a plain `postgresql://` as psycopg2 (not installed), 2.1 as psycopg, and rejects
    `postgres://`; a URL naming its driver (`postgresql+psycopg2://`) is kept as it is.
    """
    scheme, separator, rest = url.partition("://")
    if separator and scheme.lower() in ("postgresql", "postgres"):
        return f"{POSTGRESQL_DRIVER}://{rest}"
    return url


def load_config(root: Path) -> Config:
    """The course's nbgrader_config.py, loaded as nbgrader loads it (a missing file is an empty config)."""
    if not (root / CONFIG_FILE).exists():
        return Config()
    try:
        return PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()
    except Exception as error:  # the file is the instructor's code: any failure means we cannot run
        raise CourseError(f"{root / CONFIG_FILE} could not be loaded: {error}") from error


def use_this_environment() -> None:
    """Put this interpreter's bin folder first on PATH: nbgrader runs `alembic` (and kernels) from there."""
    bin_folder = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if not path.startswith(bin_folder + os.pathsep):
        os.environ["PATH"] = os.pathsep.join([bin_folder, path])
