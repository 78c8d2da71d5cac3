"""course_grade.run.sandbox on its own: what a command run by `wrap` can see, write, reach and leave behind."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from course_grade.cli import main, parser
from course_grade.report.summary import UNSANDBOXED, UNTRUSTED, Outcome, render_summary
from course_grade.run import sandbox

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the sandbox is made of Linux namespaces"
)


def _run(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run Python `code` in the sandbox with `tmp_path/work` writable."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    command = sandbox.wrap([sys.executable, "-c", code], writable=[work])
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_this_machine_can_run_the_sandbox() -> None:
    assert sandbox.available(), sandbox.why_unavailable()


def test_the_writable_folder_is_the_only_folder_of_tmp_in_view(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("a classmate's notebook")
    done = _run(tmp_path, "import os; print(sorted(os.listdir('..')), os.path.exists('../secret.txt'))")
    assert done.stdout.split() == ["['work']", "False"], done.stderr


def test_the_writable_folder_is_writable_and_python_is_not(tmp_path: Path) -> None:
    code = f"open('mine.txt', 'w').write('ok')\ntry:\n    open({sys.prefix!r} + '/x', 'w')\nexcept OSError as e:\n"
    done = _run(tmp_path, code + "    print(type(e).__name__)")
    assert done.stdout.strip() in ("PermissionError", "OSError") and (tmp_path / "work" / "mine.txt").exists()


def test_a_concealed_folder_in_view_is_empty_and_the_rest_of_its_parent_readable(tmp_path: Path) -> None:
    """As a course installed in site-packages, or checked out outside the hidden folders, would be."""
    (tmp_path / "shown" / "course_lib").mkdir(parents=True)
    (tmp_path / "shown" / "course_lib" / "envelope.py").write_text("THE KEY")
    (tmp_path / "shown" / "library.py").write_text("infrastructure")
    (tmp_path / "work").mkdir()
    code = "import os; print(os.listdir('../shown/course_lib'), open('../shown/library.py').read())"
    command = sandbox.wrap(
        [sys.executable, "-c", code], writable=[tmp_path / "work"], readable=[tmp_path / "shown"],
        course_lib=False, concealed=[tmp_path / "shown" / "course_lib"],
    )  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["[]", "infrastructure"], done.stderr


def test_the_instructors_packages_and_checkout_are_what_is_concealed() -> None:
    import course_grade
    import course_lib

    found = sandbox.instructor_paths()
    checkout = Path(course_grade.__file__).resolve().parent.parent
    assert Path(course_lib.__file__).resolve().parent in found and checkout / "course_grade" in found
    assert checkout / "grading" in found and checkout / "tests" in found and checkout not in found


def test_every_process_dies_with_the_command(tmp_path: Path) -> None:
    marker = "600.0713"
    start = f"subprocess.Popen(['sleep', '{marker}'], start_new_session=True)"
    code = f"import subprocess\nfor _ in range(50):\n    {start}"
    assert _run(tmp_path, code).returncode == 0
    survivors = [p for p in psutil.process_iter(["cmdline"]) if marker in " ".join(p.info["cmdline"] or [])]
    assert survivors == []


@pytest.mark.parametrize("iproute2", [True, False], ids=["with ip", "without ip"])
def test_a_host_port_on_loopback_is_out_of_reach_and_its_own_loopback_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, iproute2: bool
) -> None:
    """The sandbox brings its own loopback up with iproute2's `ip` where installed, else with Python."""
    if not iproute2:
        which = sandbox.shutil.which
        monkeypatch.setattr(sandbox.shutil, "which", lambda name: None if name == "ip" else which(name))
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = (
            "import socket\ns = socket.create_server(('127.0.0.1', 0))\n"
            "socket.create_connection(s.getsockname()).close()\nprint('own loopback works')\n"
            f"socket.create_connection(('127.0.0.1', {port}), timeout=2)"
        )
        done = _run(tmp_path, code)
    assert "own loopback works" in done.stdout and "ConnectionRefusedError" in done.stderr


def test_the_sandboxs_connections_never_take_a_port_this_machines_network_hands_out(tmp_path: Path) -> None:
    """A stand-in of the grader gets a port from this network's range, and the trusted checks' relay listens
    at that number inside the sandbox: no connection made there may hold it."""
    host = sandbox.host_port_range()
    assert host is not None
    code = (
        "import json, socket\nserver = socket.create_server(('127.0.0.1', 0))\nports = [server.getsockname()[1]]\n"
        "for _ in range(300):\n    client = socket.create_connection(server.getsockname())\n"
        "    ports.append(client.getsockname()[1])\n    server.accept()[0].close()\n    client.close()\n"
        "print(json.dumps(ports))"
    )
    done = _run(tmp_path, code)
    ports = json.loads(done.stdout)
    assert len(set(ports)) > 100 and not [port for port in ports if host[0] <= port <= host[1]]


@pytest.mark.parametrize(
    "host, own",
    [((32768, 60999), (1024, 32767)), ((1024, 61000), (61001, 65535)), ((1024, 65000), None), (None, None)],
)
def test_the_sandboxs_port_range_is_the_widest_outside_the_hosts(
    host: tuple[int, int] | None, own: tuple[int, int] | None
) -> None:
    assert sandbox.own_port_range(host) == own


def test_the_command_has_no_capability_and_cannot_see_other_processes(tmp_path: Path) -> None:
    code = "import os\nprint(os.getuid() != 0, open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
    done = _run(tmp_path, code + "print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    lines = done.stdout.splitlines()
    assert lines[:1] == ["True 0000000000000000"] and lines[1] == "[1]", done.stderr


def test_a_file_larger_than_the_limit_cannot_be_written(tmp_path: Path) -> None:
    chunks = sandbox.LIMITS["--fsize"] // 2**20 + 1
    done = _run(tmp_path, f"big = open('big', 'wb')\nfor _ in range({chunks}):\n    big.write(bytes(2**20))")
    assert "File too large" in done.stderr


def test_sandbox_on_stops_with_the_reason_where_it_is_unavailable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sandbox, "available", lambda: False)
    assert main(["export", "--sandbox", "on"]) == 1
    assert "the OS sandbox is not available here" in capsys.readouterr().err


def test_a_summary_of_a_run_without_the_sandbox_says_so_first_and_last() -> None:
    lines = render_summary([Outcome("ann", "a1", 1.0, 2.0)], sandboxed=False).splitlines()
    assert lines[1] == lines[-1] == UNSANDBOXED


def test_a_summary_of_a_run_without_the_trusted_checks_says_so_first_and_last() -> None:
    lines = render_summary([Outcome("ann", "a1", 1.0, 2.0)], trusted=False).splitlines()
    assert lines[1] == lines[-1] == UNTRUSTED


def test_the_trusted_checks_are_on_unless_switched_off() -> None:
    assert getattr(parser().parse_args(["export"]), "trusted_checks", True) is True
    assert parser().parse_args(["export", "--no-trusted-checks"]).trusted_checks is False
