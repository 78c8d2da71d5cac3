"""An OS sandbox for one learner's code: Linux namespaces and rlimits, from util-linux's `unshare` and `setpriv`.

`wrap(argv, writable, readable, hidden)` returns a command that runs `argv` so that:

- it has a PID namespace of its own: every process it starts dies when it ends, and it sees no other process;
- it has a network namespace of its own with loopback only: no host port, no classmate's kernel, no network;
  its connections take their local ports outside the range this machine's network hands out (`own_port_range`);
- it sees the filesystem with the folders where other people's files live (/tmp, /work, /home, /root, /run,
  /dev/shm, /mnt, /srv, /media, /var/tmp and every `hidden` path) replaced by empty private folders, except
  `writable` (read-write, owned by the sandbox user) and this Python, its environment, `course_lib` and
  `readable` (read-only); graded against a learners' library (`course_lib=False`), the instructor's packages
  and checkout are covered by empty folders wherever they are (`instructor_paths`);
- it runs as an unprivileged user of its own that no account has (or, when not started as root, as root of a
  user namespace) with no capabilities and no way to gain any, under limits on memory, processes, file size
  and open files.

`available()` says whether this machine can do it (Linux, util-linux, and root or user namespaces).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

HIDDEN = ("/tmp", "/var/tmp", "/dev/shm", "/run", "/work", "/home", "/root", "/mnt", "/srv", "/media")
"""Folders replaced by empty private ones: where other users, jobs and courses keep their files."""

USERS = (200_000, 100_000)
"""(first, how many): when root starts the sandbox, the command runs as a user and group of this range that
no account has, one per writable folder, so that two sandboxes share no process limit and cannot signal
each other."""

LIMITS = {
    "--as": 6 * 2**30,  # bytes of address space (a kernel with its threads maps about 1 GiB)
    "--nproc": 512,  # processes of the sandbox user, all sandboxes together
    "--fsize": 256 * 2**20,  # bytes of the largest file it may write
    "--nofile": 1024,
    "--core": 0,
}
"""prlimit's limits for the sandboxed command."""

LOOPBACK_UP = (
    "import fcntl,socket,struct;"
    "fcntl.ioctl(socket.socket(),0x8914,struct.pack('16sh',b'lo',0x41))"  # SIOCSIFFLAGS: IFF_UP|IFF_RUNNING
)
"""Python that brings the new network namespace's loopback up, where iproute2's `ip` is not installed (an
interpreter's start costs some 15 ms; `ip link set lo up`, about 1 ms, is used where it is)."""


PORT_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
"""Where Linux keeps a network namespace's range of ephemeral ports (IPv4 and IPv6), as seen by the reader."""

FEWEST_OWN_PORTS = 1024
"""The fewest ephemeral ports the sandbox's network is given (else it keeps Linux's default range)."""


def own_port_range(host: tuple[int, int] | None) -> tuple[int, int] | None:
    """The ephemeral ports of the sandbox's network: the widest range of unprivileged ports outside `host`, the
    range of the network `wrap` is called in; None when `host` is unknown or leaves too few ports outside.

    The trusted checks relay the grader's stand-ins into the sandbox (`course_grade.score.trusted.pipe.relay`): the
    learner's process listens on its own loopback at each stand-in's port number, which the grader's network
    chose from `host`. A connection inside the sandbox that held that number as its local port made the
    listener fail, and every request to that stand-in with it (a correct 07 lost its points about once in 25
    gradings). With the sandbox's connections taking ports outside `host`, the two never meet.
    """
    if host is None:
        return None
    low, high = host
    below, above = (1024, low - 1), (high + 1, 65535)
    widest = max(below, above, key=lambda span: span[1] - span[0])
    return widest if widest[1] - widest[0] + 1 >= FEWEST_OWN_PORTS else None


def host_port_range() -> tuple[int, int] | None:
    """This network namespace's ephemeral port range, or None where it cannot be read."""
    try:
        low, high = (int(part) for part in PORT_RANGE.read_text().split())
    except (OSError, ValueError):
        return None
    return (low, high) if 0 < low <= high <= 65535 else None


class SandboxUnavailable(RuntimeError):
    """This machine cannot run the sandbox (not Linux, no util-linux, or namespaces not allowed)."""


def _tools() -> dict[str, str] | None:
    """Paths of the util-linux tools the sandbox needs, or None if one is missing."""
    found = {name: shutil.which(name) for name in ("unshare", "setpriv", "prlimit", "mount", "sh")}
    return None if None in found.values() else {k: str(v) for k, v in found.items()}


def _as_root() -> bool:
    """True if this process runs as root (the sandbox user is then `nobody`, without a user namespace)."""
    return os.geteuid() == 0


@functools.cache
def available() -> bool:
    """True if this machine can run commands in the sandbox (checked once, by trying it)."""
    if not sys.platform.startswith("linux") or _tools() is None:
        return False
    try:
        done = subprocess.run(
            wrap([sys.executable, "-I", "-S", "-c", "pass"], writable=[]),
            capture_output=True, timeout=60, cwd="/",
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def why_unavailable() -> str:
    """One sentence on why `available()` is False (for the summary and `--sandbox on`)."""
    if not sys.platform.startswith("linux"):
        return f"it needs Linux namespaces, and this is {sys.platform}"
    if _tools() is None:
        return "it needs util-linux's unshare, setpriv and prlimit, and one of them is missing"
    mode = "" if _as_root() else " (not root: user namespaces must be allowed)"
    return f"this kernel refused to create the namespaces{mode}"


def environment_paths(course_lib: bool = True) -> list[Path]:
    """What a Python of this environment needs to read: its prefixes and, if `course_lib`, the installed
    `course_lib` (not the rest of sys.path, which may hold the repository or the course)."""
    paths = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
    paths.append(str(Path(sys.executable).resolve().parent))
    spec = importlib.util.find_spec("course_lib") if course_lib else None
    if spec is not None and spec.submodule_search_locations:
        paths += list(spec.submodule_search_locations)
    return [Path(p) for p in paths if p and Path(p).is_dir()]


def instructor_paths() -> list[Path]:
    """Where the instructor's code lives as this environment imports it: the packages `course_lib` (the keys),
    `course_grade` (the grader) and, in a checkout, its `grading/` (solutions, hidden tests), `tests/` and `.git`,
    wherever they are installed (site-packages, or an editable checkout outside the hidden folders)."""
    found: list[Path] = []
    for name in ("course_lib", "course_grade"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found += [Path(location) for location in spec.submodule_search_locations]
    checkouts = {path.parent for path in found if (path.parent / "grading").is_dir()}
    found += [checkout / part for checkout in sorted(checkouts) for part in ("grading", "tests", ".git")]
    return [path.resolve() for path in found if path.exists()]


def _outermost(paths: Sequence[Path]) -> list[Path]:
    """The paths, resolved, without any that lies inside another one of them."""
    resolved = sorted({path.resolve() for path in paths}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in resolved:
        if not any(path == outer or outer in path.parents for outer in kept):
            kept.append(path)
    return kept


def wrap(
    argv: Sequence[str],
    writable: Sequence[Path],
    readable: Sequence[Path] = (),
    hidden: Sequence[Path] = (),
    cwd: Path | None = None,
    course_lib: bool = True,
    concealed: Sequence[Path] | None = None,
) -> list[str]:
    """The command running `argv` in the sandbox: only `writable` writable, `readable` and Python read-only.

    `hidden` adds folders to hide (the course directory, the run's scratch folder); a writable or readable
    folder inside a hidden one is still reachable. The command starts in `cwd` (default: the first writable
    folder, else /). The caller's environment variables pass through; HOME and TMPDIR are a private /tmp.
    Without `course_lib`, the installed (instructor's) library is not shown: the command is graded against
    a learners' library passed in `readable`, and each of `concealed` (default: `instructor_paths()`) that
    would still be in view, say a course installed in site-packages or checked out in /opt, is covered by
    an empty read-only folder.
    """
    tools = _tools()
    if tools is None:
        raise SandboxUnavailable(why_unavailable())
    write = [Path(p).resolve() for p in writable]
    read = [p for p in _outermost([*environment_paths(course_lib), *readable]) if p not in write]
    cover = [p for p in _outermost([*map(Path, HIDDEN), *hidden]) if p.is_dir()]
    start = Path(cwd).resolve() if cwd is not None else (write[0] if write else Path("/"))
    user = USERS[0] + zlib.crc32(str(write[0] if write else start).encode()) % USERS[1]
    shown = [(path, "ro") for path in read] + [(path, "rw") for path in write]
    shown.sort(key=lambda item: len(item[0].parts))  # a folder before what lies inside it
    lines = ["set -e", "mount --make-rprivate /", *_mounts(shown, cover, user)]
    if not course_lib:
        covered = instructor_paths() if concealed is None else [Path(p).resolve() for p in concealed]
        lines += _concealments(covered, {path for path, _ in shown})
    lines += [
        *_network(),
        f"cd {shlex.quote(str(start))}",
        "export HOME=/tmp TMPDIR=/tmp",
        _drop_privileges(tools, user),
    ]
    return [tools["unshare"], *_namespaces(), "--", tools["sh"], "-c", "\n".join(lines), "sandbox", *argv]


def _mounts(shown: Sequence[tuple[Path, str]], cover: Sequence[Path], user: int) -> list[str]:
    """Shell lines: the hidden folders covered by empty ones, then each shown folder bound read-only or
    writable at its own path (opened before anything is covered, so a folder inside a hidden one stays in view)."""
    lines = [f"exec {number}<{shlex.quote(str(path))}" for number, (path, _) in enumerate(shown, start=3)]
    for folder in cover:
        lines.append(f"mount -t tmpfs -o mode=0755,size=256m,nosuid,nodev tmpfs {shlex.quote(str(folder))}")
    shared = [folder for folder in ("/tmp", "/dev/shm", "/var/tmp") if Path(folder) in cover]
    if shared:
        lines.append(f"chmod 1777 {' '.join(shared)}")
    for number, (path, mode) in enumerate(shown, start=3):
        target = shlex.quote(str(path))
        lines.append(f"mkdir -p {target}")
        lines.append(f"mount -c --rbind /proc/self/fd/{number} {target}")
        if mode == "ro":
            lines.append(f"mount -c -o remount,bind,ro,nosuid,nodev {target}")
        elif _as_root():
            lines.append(f"chown -R {user}:{user} {target}")
        lines.append(f"exec {number}<&-")
    return lines


def _concealments(covered: Sequence[Path], shown: set[Path]) -> list[str]:
    """Shell lines covering each instructor folder still in view (none inside a shown one) by an empty one."""
    lines = []
    for path in covered:
        if not any(path == inner or path in inner.parents for inner in shown):
            target = shlex.quote(str(path))
            empty = "tmpfs -o ro,mode=0555,size=4k,nosuid,nodev tmpfs"
            lines.append(f"if [ -d {target} ]; then mount -t {empty} {target}; fi")
    return lines


def _network() -> list[str]:
    """Shell lines: the sandbox's own loopback up, its ephemeral ports outside the host's range."""
    ip = shutil.which("ip")
    if ip is not None:
        lines = [f"{shlex.quote(ip)} link set lo up"]
    else:
        lines = [f"{shlex.quote(sys.executable)} -I -S -c {shlex.quote(LOOPBACK_UP)}"]
    ports = own_port_range(host_port_range())
    if ports is not None:  # best effort: a /proc/sys mounted read-only leaves Linux's default range
        lines.append(f'{{ echo "{ports[0]} {ports[1]}" > {PORT_RANGE}; }} 2>/dev/null || true')
    return lines


def _drop_privileges(tools: dict[str, str], user: int) -> str:
    """The shell line that runs the command under the limits, with no capability (as `user` when root)."""
    limits = [f"{name}={value}" for name, value in LIMITS.items()]
    privileges = ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    if _as_root():
        privileges = [f"--reuid={user}", f"--regid={user}", "--clear-groups", *privileges]
    return f'exec {tools["prlimit"]} {" ".join(limits)} -- {tools["setpriv"]} {" ".join(privileges)} -- "$@"'


def _namespaces() -> list[str]:
    """unshare's namespaces: a user namespace of its own unless root."""
    namespaces = [
        "--pid",
        "--fork",
        "--kill-child=SIGKILL",
        "--mount-proc",
        "--net",
        "--mount",
        "--ipc",
        "--uts",
    ]
    if not _as_root():
        namespaces = ["--user", "--map-root-user", *namespaces]
    return namespaces
