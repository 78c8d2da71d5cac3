"""What travels with a grading task: the assignment's course files and the submission, as bytes.

A Dask worker may run on another machine, with the course installed but no view of the instructor's
course directory. So the `course-grade` process reads, once per submission, the assignment's source
folder (the instructor's notebooks, which the trusted checks read, and the plain files nbgrader copies
next to the submission) and the submitted folder, and the task lays them out again in a scratch course of
its own on the worker. A symbolic link or a special file in the submission travels as what it is, so the
worker notes and leaves it out exactly as it would from the real folder.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from course_grade.course import Course

LINK = "link"
"""A symbolic link to a file, or one that leads nowhere: laid out as a link to nowhere."""
FOLDER_LINK = "folder-link"
"""A symbolic link to a folder: laid out as a link to an empty folder."""
SPECIAL = "special"
"""A pipe, socket or device: laid out as a named pipe."""


@dataclass(frozen=True)
class Payload:
    """One submission's files and its assignment's course files, by relative path."""

    source: Mapping[str, bytes] = field(default_factory=dict)
    """`source/<assignment>/` of the course: the instructor's notebooks and the plain files."""
    submitted: Mapping[str, bytes | str] = field(default_factory=dict)
    """`submitted/<student>/<assignment>/`: bytes of each regular file, or LINK, FOLDER_LINK or SPECIAL."""

    @property
    def size(self) -> int:
        """Bytes of file content carried."""
        return sum(len(data) for data in self.source.values()) + sum(
            len(data) for data in self.submitted.values() if isinstance(data, bytes)
        )


def source_files(course: Course, assignment: str) -> dict[str, bytes]:
    """The regular files under the assignment's source folder, read once for every task of the assignment."""
    folder = course.folder("source", assignment=assignment)
    return {
        str(Path(root, name).relative_to(folder)): Path(root, name).read_bytes()
        for root, _, names in os.walk(folder)
        for name in names
        if Path(root, name).is_file()
    }


def submitted_files(folder: Path) -> dict[str, bytes | str]:
    """Every entry of a submitted folder: a regular file's bytes, or what kind of other entry it is."""
    found: dict[str, bytes | str] = {}
    for root, folders, names in os.walk(folder):
        here = Path(root)
        for name in list(folders):
            if (here / name).is_symlink():
                folders.remove(name)
                found[str((here / name).relative_to(folder))] = FOLDER_LINK
        for name in names:
            path = here / name
            mode = path.lstat().st_mode
            relative = str(path.relative_to(folder))
            if stat.S_ISLNK(mode):
                found[relative] = LINK
            elif not stat.S_ISREG(mode):
                found[relative] = SPECIAL
            else:
                found[relative] = path.read_bytes()
    return found


def unpack_payload(payload: Payload, course: Course, root: Path, student: str, assignment: str) -> Course:
    """Write a payload as a copy of `course` at `root` holding only this assignment and this submission."""
    for relative, data in payload.source.items():
        target = root / "source" / assignment / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (root / "source" / assignment).mkdir(parents=True, exist_ok=True)
    submitted = root / "submitted" / student / assignment
    submitted.mkdir(parents=True, exist_ok=True)
    empty = root / "empty"
    empty.mkdir(exist_ok=True)
    for relative, entry in payload.submitted.items():
        target = submitted / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(entry, bytes):
            target.write_bytes(entry)
        elif entry == FOLDER_LINK:
            target.symlink_to(empty, target_is_directory=True)
        elif entry == SPECIAL:
            os.mkfifo(target)
        else:
            target.symlink_to(root / "nowhere")
    return dataclasses.replace(course, root=root)
