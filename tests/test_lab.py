"""The README's first command opens JupyterLab on the learners' notebooks, without nbgrader's instructor tools."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


INSTRUCTOR_PLUGINS = ("formgrader", "create-assignment", "course-list")


def formgrader_status(port: int, token: str) -> int:
    try:
        with urllib.request.urlopen(
            f"http://127.0.0.1:{port}/formgrader?token={token}", timeout=10
        ) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_course_py_lab_serves_the_learners_notebooks_in_order_without_instructor_tools() -> None:
    port, token = free_port(), "course-test"
    command = [sys.executable, str(ROOT / "course.py"), "lab", "--no-browser", f"--ServerApp.port={port}",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        listing = None
        deadline = time.monotonic() + 90
        while listing is None and time.monotonic() < deadline and server.poll() is None:
            try:
                url = f"http://127.0.0.1:{port}/api/contents?token={token}"
                with urllib.request.urlopen(url, timeout=5) as answer:
                    listing = json.load(answer)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        lab_page = urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=10).read()
        formgrader = formgrader_status(port, token)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert listing is not None, "JupyterLab did not start"
    names = sorted(item["name"] for item in listing["content"] if item["type"] == "notebook")
    assert names == sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb")) and len(names) >= 6
    assert b"JupyterLab" in lab_page
    found = re.search(
        rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>', lab_page, re.S
    )
    disabled = json.loads(found.group(1))["disabledExtensions"] if found else []
    assert all(f"@jupyter/nbgrader:{plugin}" in disabled for plugin in INSTRUCTOR_PLUGINS), disabled
    assert formgrader == 404, "nbgrader's formgrader is served to learners"
