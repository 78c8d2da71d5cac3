"""Taking submissions in: a folder in nbgrader's `submitted/` layout, or a folder of per-student zip files.

Either way they end up where nbgrader keeps them, `<course>/submitted/<student>/<assignment>/`, and the
result is the list of (student, assignment) pairs to grade. Zip files go through nbgrader's own
`zip_collect` (`<student>.zip` holding `<assignment>/<notebook>.ipynb`, at any depth).
"""

from __future__ import annotations

import contextlib
import functools
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from course_grade.course import Course, CourseError
from course_grade.intake.files import only_regular, replace
from course_grade.untrusted import FORMULA_START, id_problem

MAX_STUDENT_ID = 128
"""nbgrader's gradebook stores student ids in a column of this many characters."""

MAX_UNZIPPED_BYTES = 200_000_000
"""A zip file that would extract to more than this is not taken in (a zip bomb, or a folder of data)."""

MAX_ZIP_ENTRIES = 10_000
"""A zip file holding more entries than this is not taken in."""

UNREADABLE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
)
"""What reading a file that is not a sound zip file can raise (NotImplementedError: an unknown compression,
RuntimeError: an encrypted entry)."""

ARCHIVE_SUFFIXES = (".zip", ".gz")
"""nbgrader's zip_collect also extracts archives found inside an archive, without limits: refused."""


@dataclass(frozen=True)
class Intake:
    """The submissions found in a folder, and what was left out and why."""

    submissions: list[tuple[str, str]] = field(default_factory=list)
    """(student, assignment) pairs, now in the course's submitted/ folder."""
    skipped: list[str] = field(default_factory=list)
    """One line per entry that is not a submission: "name: why"."""


COURSE_FOLDERS = ("source", "release", "autograded", "feedback")
"""The course's own working folders, none of which holds submissions (submitted/ does)."""


def check_submissions_folder(course: Course, folder: Path) -> None:
    """Raise a CourseError unless `folder` can be a folder of submissions: not a course directory, nor one of
    a course's working folders (their folders would become students, the instructor's solution among them)."""
    if not folder.is_dir():
        raise CourseError(f"{folder} is not a folder of submissions")
    here = folder.resolve()
    what = None
    if (here / "nbgrader_config.py").is_file() or (here / "source").is_dir() and (here / "release").is_dir():
        what = "a course directory"
    for name in COURSE_FOLDERS:
        if here == (course.root / name).resolve() or (
            here.name == name and (here.parent / "source").is_dir()
        ):
            what = f"the course's {name}/ folder"
    if what is not None:
        raise CourseError(
            f"{folder} is {what}, not a folder of submissions: give the course's submitted/ folder (where "
            "`nbgrader collect` puts them), or a folder of <student>/<assignment>/ folders or <student>.zip files"
        )


def assignments_in(folder: Path, known: list[str]) -> list[str]:
    """The assignments of `known` that `folder` holds submissions of, in the order of `known`."""
    found: set[str] = set()
    for entry in folder.iterdir():
        if entry.suffix == ".zip" and entry.is_file() and not entry.is_symlink():
            with contextlib.suppress(*UNREADABLE), zipfile.ZipFile(entry) as archive:
                found.update(part for name in archive.namelist() for part in name.split("/")[:-1])
        elif entry.is_dir() and not entry.is_symlink():
            found.update(
                name for name in known if (entry / name).is_dir() and not (entry / name).is_symlink()
            )
    return [name for name in known if name in found]


def take_in(course: Course, folder: Path, assignments: list[str]) -> Intake:
    """Put the submissions of `folder` into the course's submitted/ folder and list them."""
    check_submissions_folder(course, folder)
    zips = sorted(p for p in folder.iterdir() if p.suffix == ".zip" and p.is_file())
    if zips:
        return _from_zips(course, zips, assignments)
    return _from_folders(course, folder, assignments)


def student_id_problem(name: str) -> str | None:
    """Why a folder or zip name cannot be a student id nbgrader records faithfully, or None if it can."""
    if name.startswith("."):
        return "hidden (its name starts with a dot)"
    if name != name.strip():
        return "nbgrader strips spaces around a student id, so this name would not match its own folder"
    if len(name) > MAX_STUDENT_ID:
        return f"longer than the {MAX_STUDENT_ID} characters the gradebook stores"
    if (problem := id_problem(name)) is not None:  # a name that reads as another, or moves the cursor
        return problem
    if name.startswith(FORMULA_START):
        return f"starts with {name[0]!r}, which a spreadsheet reads as a formula (grades.csv would run it)"
    return None


def zip_problem(path: Path) -> str | None:
    """Why nbgrader's zip_collect must not be given this file (it stops on the first bad one), or None."""
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
            if len(entries) > MAX_ZIP_ENTRIES:
                return f"holds {len(entries):,} entries, more than the {MAX_ZIP_ENTRIES:,} allowed"
            size = sum(entry.file_size for entry in entries)
            if size > MAX_UNZIPPED_BYTES:
                return (
                    f"would extract to {size / 1e6:,.0f} MB, more than the {MAX_UNZIPPED_BYTES / 1e6:,.0f} MB "
                    "allowed"
                )
            nested = [
                entry.filename for entry in entries if entry.filename.lower().endswith(ARCHIVE_SUFFIXES)
            ]
            if nested:
                return f"holds another archive ({nested[0]}): zip the notebooks themselves"
            damaged = archive.testzip()
            if damaged is not None:
                return f"is damaged ({damaged} does not match its checksum)"
    except UNREADABLE as error:
        return f"is not a readable zip file ({error})"
    return None


def _from_folders(course: Course, folder: Path, assignments: list[str]) -> Intake:
    """Copy `<folder>/<student>/<assignment>/` into the course (nothing to copy if it is the course's own)."""
    intake = Intake()
    for entry in sorted(folder.iterdir()):
        problem = student_id_problem(entry.name)
        if problem is None and (entry.is_symlink() or not entry.is_dir()):
            problem = "not a folder"
        if problem is not None:
            intake.skipped.append(f"{entry.name}: {problem}")
            continue
        found = [name for name in assignments if (entry / name).is_dir() and not (entry / name).is_symlink()]
        if not found:
            intake.skipped.append(
                f"{entry.name}: no folder named after an assignment ({', '.join(assignments)})"
            )
        for assignment in found:
            source, target = entry / assignment, course.folder("submitted", entry.name, assignment)
            try:  # one folder that cannot be copied (unreadable, a loop) is skipped, the class goes on
                if source.resolve() != target.resolve():
                    replace(target, functools.partial(_copy_folder, source))
            except (OSError, RuntimeError, shutil.Error) as error:
                intake.skipped.append(f"{entry.name}: {assignment} could not be copied ({error})"[:500])
                continue
            intake.submissions.append((entry.name, assignment))
    return intake


def _copy_folder(source: Path, target: Path) -> None:
    """Copy a submission folder as it is (symbolic links stay links: the worker leaves them out)."""
    shutil.copytree(source, target, symlinks=True, ignore=only_regular)


def _from_zips(course: Course, zips: list[Path], assignments: list[str]) -> Intake:
    """Collect per-student zip files with nbgrader's zip_collect, one assignment at a time."""
    intake = Intake()
    students = []
    for path in zips:
        problem = student_id_problem(path.stem) or zip_name_problem(path) or zip_problem(path)
        if problem is not None:
            intake.skipped.append(f"{path.name}: {problem}")
        else:
            students.append(path)
    for assignment in assignments:
        for path in students:
            replace(course.folder("submitted", path.stem, assignment), lambda destination: None)
        refused = _collect(course, assignment, students)
        for path, reason in refused.items():
            intake.skipped.append(f"{path.name}: nbgrader's zip_collect refuses it ({reason})")
            students.remove(path)
        intake.submissions.extend(
            (path.stem, assignment)
            for path in students
            if course.folder("submitted", path.stem, assignment).is_dir()
        )
    found = {student for student, _ in intake.submissions}
    intake.skipped.extend(
        f"{path.name}: holds no folder named after an assignment ({', '.join(assignments)})"
        for path in students
        if path.stem not in found
    )
    intake.submissions.sort()
    return intake


def zip_name_problem(path: Path) -> str | None:
    """Why nbgrader would take a zip in under another name than its stem (`x.tar.zip` becomes `x`), or None."""
    if path.stem.endswith(".tar"):
        return f"nbgrader would take it in as {path.stem[:-4]!r}, another name: rename it"
    return None


def _collect(course: Course, assignment: str, zips: list[Path]) -> dict[Path, str]:
    """zip_collect the zips for one assignment; return those nbgrader refuses, each with its reason.

    nbgrader's zip_collect stops on the first zip it cannot extract (a file and a folder of one name, say):
    then each zip is collected on its own, and only the refused ones are left out."""
    try:
        _zip_collect_these(course, assignment, zips)
        return {}
    except CourseError as error:
        if len(zips) == 1:
            return {zips[0]: _last_line(str(error))}
    refused = {}
    for path in zips:
        try:
            _zip_collect_these(course, assignment, [path])
        except CourseError as error:
            refused[path] = _last_line(str(error))
            replace(course.folder("submitted", path.stem, assignment), lambda destination: None)
    return refused


def _last_line(text: str) -> str:
    """The last line of an error's text (nbgrader's exception), cut short."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[-1] if lines else "no reason given")[:300]


def _zip_collect_these(course: Course, assignment: str, zips: list[Path]) -> None:
    """Put exactly these zips in the assignment's archive folder and zip_collect them."""
    archive = course.folder("downloaded", assignment) / "archive"
    replace(archive, lambda destination: destination.mkdir(parents=True))
    for path in zips:
        shutil.copyfile(path, archive / path.name)
    _zip_collect(course, assignment)


def _zip_collect(course: Course, assignment: str) -> None:
    """Run `nbgrader zip_collect` for one assignment: notebooks under `<assignment>/` in each zip."""
    extracted = re.escape(str(course.folder("downloaded", assignment) / "extracted"))
    pattern = (
        rf"^{extracted}/(?P<student_id>[^/]+)/(?:.*/)?{re.escape(assignment)}/(?P<file_id>[^/]+\.ipynb)$"
    )
    command = [
        sys.executable, "-m", "nbgrader", "zip_collect", assignment, "--force", "--log-level=ERROR",
        f"--CourseDirectory.root={course.root}", f"--CourseDirectory.db_url={course.db_url}",
        f"--FileNameCollectorPlugin.named_regexp={pattern}",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=course.root, capture_output=True, text=True)
    if done.returncode != 0:
        raise CourseError(f"nbgrader zip_collect {assignment} failed:\n{done.stderr[-2000:]}")
