"""File operations that hold up against what a learner's notebook may leave behind."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path


def remove_tree(path: Path) -> None:
    """Delete a folder even if files or folders in it were made read-only (nbgrader does, so can a learner)."""

    def retry(function: Callable[..., object], name: str, _: object) -> None:
        for writable in (Path(name).parent, Path(name)):
            if writable.exists() and not writable.is_symlink():
                writable.chmod(0o755)
        function(name)

    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path, onerror=retry)


def replace(target: Path, make: Callable[[Path], object]) -> None:
    """Remove whatever is at `target` and let `make(target)` create it afresh (or not at all)."""
    remove_tree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    make(target)


def copy_regular_files(source: Path, target: Path) -> list[str]:
    """Copy a folder's regular files and folders; return the symbolic links left out (as relative paths)."""
    skipped: list[str] = []
    target.mkdir(parents=True, exist_ok=True)
    for root, folders, files in os.walk(source):
        here = Path(root)
        for name in list(folders):
            if (here / name).is_symlink():
                folders.remove(name)
                skipped.append(str((here / name).relative_to(source)))
        for name in files:
            path = here / name
            relative = path.relative_to(source)
            if path.is_symlink() or not path.is_file():
                skipped.append(str(relative))
                continue
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / relative)
    return sorted(skipped)


def fingerprint(folder: Path, skip: Path | None = None) -> dict[str, str]:
    """relative path -> content hash of every file under `folder` (except under `skip`)."""
    found: dict[str, str] = {}
    for root, folders, files in os.walk(folder):
        here = Path(root)
        if skip is not None and (here == skip or skip in here.parents):
            folders.clear()
            continue
        for name in files:
            path = here / name
            if path.is_symlink() or not path.is_file():  # never open a pipe or a device: it may block
                digest = "link" if path.is_symlink() else "special"
            else:
                try:
                    digest = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    digest = "unreadable"
            found[str(path.relative_to(folder))] = digest
    return found


def only_regular(folder: str, names: list[str]) -> set[str]:
    """A `shutil.copytree` ignore: leave out pipes, sockets and devices (links and folders are kept)."""
    here = Path(folder)
    return {
        name
        for name in names
        if not ((here / name).is_symlink() or (here / name).is_dir() or (here / name).is_file())
    }


def changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The files added, removed or modified between two fingerprints."""
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


def files_under(folder: Path) -> set[str]:
    """Relative paths of every file under a folder (empty if it does not exist)."""
    if not folder.is_dir():
        return set()
    return {str(Path(root, name).relative_to(folder)) for root, _, names in os.walk(folder) for name in names}
