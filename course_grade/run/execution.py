"""How an autograded notebook ran, as notes: timeouts, a dead kernel, exits, stderr, truncated output.

After nbgrader has run a submission, its autograded notebook holds each cell's outputs: the errors the
grader wrote into a cell (`course_grade.run.hardened`) and the kernel's own say what went wrong, for the summary
and the learner's feedback.
"""

from __future__ import annotations

import re

from course_grade.cells import Notebook, cell_grade_id, is_test, joined
from course_grade.notes import Note, listing

TRUNCATION_MARKERS = ("... Output truncated ...", "[output truncated by the grader:")


UNREACHABLE = re.compile(
    r"could not reach|Connection refused|Connection error|Remote end closed connection|Tunnel connection|ProxyError"
)
"""An error that means the kernel could not talk to its local stand-in (refused, or sent to a proxy)."""


def execution_notes(notebook: Notebook, name: str, timeout: int) -> list[Note]:
    """Notes on how an autograded notebook ran: timeouts, a dead kernel, exits, stderr, truncated output."""
    notes: list[Note] = []
    timed_out, exits, stderr, truncated = [], [], [], []
    unreachable: list[str] = []
    died = stopped = ""
    for index, cell in enumerate(notebook["cells"]):
        if cell.get("cell_type") != "code":
            continue
        label = cell_grade_id(cell) or f"code cell {index + 1}"
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "error" and output.get("ename") == "CellTimeoutError":
                timed_out.append(label)
            elif kind == "error" and output.get("ename") == "DeadKernelError" and not died:
                died = label
            elif kind == "error" and output.get("ename") == "KernelStoppedError" and not stopped:
                stopped = label
            elif kind == "error" and output.get("ename") == "SystemExit":
                exits.append(label)
            elif kind == "error" and UNREACHABLE.search(f"{output.get('ename')}: {output.get('evalue')}"):
                unreachable.append(label)
            elif kind == "stream" and output.get("name") == "stderr" and is_test(cell):
                stderr.append(label)
            if kind == "stream" and any(
                marker in joined(output.get("text", "")) for marker in TRUNCATION_MARKERS
            ):
                truncated.append(label)
    if timed_out:
        notes.append(
            Note(
                "timeout",
                f"{name}: {listing(_unique(timed_out))} ran longer than the {timeout} s limit per cell and "
                "was interrupted (an infinite loop?).",
            )
        )
    if died:
        notes.append(
            Note(
                "kernel-died",
                f"{name}: the kernel died while running `{died}` (os._exit, a crash or too much memory); "
                "the cells after it did not run and scored 0.",
            )
        )
    if stopped:
        notes.append(
            Note(
                "unstoppable",
                f"{name}: `{stopped}` went on running after it was interrupted at the time limit (does it "
                "ignore KeyboardInterrupt or SIGINT?), so its kernel was stopped; the cells after it did "
                "not run and scored 0.",
            )
        )
    if exits:
        notes.append(
            Note(
                "exit",
                f"{name}: {listing(_unique(exits))} called sys.exit() or raised SystemExit; "
                "the cell stopped there.",
            )
        )
    if stderr:
        notes.append(
            Note(
                "stderr",
                f"{name}: the test cell {listing(_unique(stderr))} wrote to stderr, and nbgrader gives 0 to a "
                "test that does (print to stdout, or not at all).",
            )
        )
    if unreachable:
        notes.append(
            Note(
                "unreachable",
                f"{name}: {listing(_unique(unreachable))} could not reach the notebook's local stand-in server "
                "(connection refused, or sent to a proxy). If the grading machine sets http_proxy, https_proxy "
                "or ALL_PROXY, add localhost,127.0.0.1,::1 to no_proxy and NO_PROXY and grade again.",
            )
        )
    if truncated:
        notes.append(
            Note("truncated", f"{name}: {listing(_unique(truncated))} printed too much; its output was cut.")
        )
    return notes


def _unique(labels: list[str]) -> list[str]:
    """The labels once each, in order."""
    return list(dict.fromkeys(labels))
