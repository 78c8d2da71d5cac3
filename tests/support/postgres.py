"""A real PostgreSQL server for the gradebook tests: Debian's binaries, a temporary cluster, a loopback port.

`PostgresServer` runs `initdb` into a temporary folder and starts the server on 127.0.0.1 and a free port
only (its Unix socket in that folder too), as the unprivileged user `nobody` when the tests run as root
(PostgreSQL refuses to run as root). It waits for the server with a timeout and always stops it with
`pg_ctl stop -m immediate`. The binaries come from Debian's `postgresql` package, which `course.py`'s
`ensure_environment` installs as root on Debian; without them the tests skip, except under CI, where they fail.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

UNPRIVILEGED = "nobody"
"""The user the server runs as when the tests run as root."""

START_TIMEOUT = 60.0
"""Seconds the server may take to accept connections."""


def binaries() -> Path | None:
    """The newest PostgreSQL server's bin folder (/usr/lib/postgresql/<version>/bin), or None if absent."""
    found = sorted(
        (Path(path).parent for path in glob.glob("/usr/lib/postgresql/*/bin/initdb")),
        key=lambda folder: int(folder.parent.name) if folder.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1]
    initdb = shutil.which("initdb")  # another layout (a source build, Homebrew): initdb on PATH
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PostgresServer:
    """A PostgreSQL server of its own, in a temporary folder, reachable on 127.0.0.1 only."""

    def __init__(self, bin_folder: Path) -> None:
        self.bin = bin_folder
        self.root = Path(tempfile.mkdtemp(prefix="course-pg-"))  # under /tmp: `nobody` can reach it
        self.data, self.sockets, self.log = (
            self.root / "data",
            self.root / "sockets",
            self.root / "server.log",
        )
        self.port = free_port()
        self.user = "course"
        self.password = secrets.token_hex(12)
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:
            account = pwd.getpwnam(UNPRIVILEGED)
            self._as = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
            os.chown(self.root, account.pw_uid, account.pw_gid)
        self.sockets.mkdir()
        if self._as:
            os.chown(self.sockets, self._as["user"], self._as["group"])
        self._started = False

    def _run(self, tool: str, *args: str, timeout: float = 60.0) -> None:
        """Run one of the server's tools as the server's user; fail with its output if it fails."""
        done = subprocess.run(
            [str(self.bin / tool), *args], capture_output=True, text=True, timeout=timeout, cwd=self.root,
            env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}, **self._as,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(
                f"{tool} failed ({done.returncode}): {done.stdout[-1500:]}{done.stderr[-1500:]}"
            )

    def start(self) -> PostgresServer:
        """initdb, then start the server and wait until it accepts a password login on its port."""
        secret = self.root / "password"
        secret.write_text(self.password + "\n")
        if self._as:
            os.chown(secret, self._as["user"], self._as["group"])
        self._run(
            "initdb", "-D", str(self.data), "-U", self.user, f"--pwfile={secret}", "-E", "UTF8",
            "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
        )  # fmt: skip
        secret.unlink()
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.sockets} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=40"
        )
        self._started = True  # from here on, stop() runs pg_ctl stop
        self._run(
            "pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-o", options,
            "-w", "-t", str(int(START_TIMEOUT)), timeout=START_TIMEOUT + 10,
        )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with psycopg.connect(self.dsn("postgres"), connect_timeout=5):
                    return self
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"PostgreSQL did not accept connections: {self.server_log()}"
                    ) from None
                time.sleep(0.2)

    def dsn(self, database: str) -> str:
        """A libpq connection string for a database of this server, over TCP on 127.0.0.1."""
        return f"host=127.0.0.1 port={self.port} user={self.user} password={self.password} dbname={database}"

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of a database of this server, as an instructor would pass it to `--db`."""
        return f"postgresql://{self.user}:{self.password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database and return its URL."""
        with psycopg.connect(self.dsn("postgres"), autocommit=True, connect_timeout=5) as connection:
            connection.execute(f'CREATE DATABASE "{name}"'.encode())
        return self.url(name)

    def server_log(self) -> str:
        """The end of the server's log, for error messages."""
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else "(no log)"

    def stop(self) -> None:
        """Stop the server at once (nothing to keep) and remove its folder."""
        if self._started:
            self._started = False
            try:
                self._run(
                    "pg_ctl", "stop", "-D", str(self.data), "-m", "immediate", "-w", "-t", "30", timeout=40
                )
            except (RuntimeError, subprocess.TimeoutExpired):
                self._kill()
        shutil.rmtree(self.root, ignore_errors=True)

    def _kill(self) -> None:
        """The last resort when pg_ctl could not stop the server: SIGKILL the postmaster named in its pid file."""
        pid_file = self.data / "postmaster.pid"
        if pid_file.exists():
            with contextlib.suppress(ValueError, ProcessLookupError, IndexError):
                os.kill(int(pid_file.read_text().split()[0]), 9)


def postgres_server() -> Iterator[PostgresServer]:
    """A started server, stopped afterwards; skip (fail under CI) when PostgreSQL is not installed."""
    folder = binaries()
    if folder is None:
        reason = (
            "PostgreSQL's server binaries are not installed (Debian: apt-get install postgresql; "
            "`python3 course.py test` does it as root)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the PostgreSQL tests: {reason}", pytrace=False)
        pytest.skip(reason)
    server = PostgresServer(folder)
    try:
        yield server.start()
    finally:
        server.stop()
