"""Mutation testing of the instructor's solutions: do the test cells of each graded part kill mutmut's mutants?

    python3 course.py mutants                          # every part of every assignment (tens of minutes)
    python3 course.py mutants 06_security              # one assignment
    python3 course.py mutants 06_security policy       # one part (a solution cell's grade_id)
    python3 course.py mutants 01_envelope --sample 20  # 20 mutants per part, the same 20 every time

A part is a solution cell and the graded test cells after it, up to the next solution cell. Its mutants are
what mutmut's operators (`mutmut.mutation.file_mutation.create_mutations`: numbers, strings, names, operators,
call arguments, ...) make of the cell's source, one change each; unlike `mutmut run`, which only swaps
functions, module-level statements are mutated too (02's `max_euros`, 06's `POLICY`).

The notebook runs as tests/support/forked_cells.py runs it, in one IPython shell without a kernel: the setup cell and
every code cell before the solution (graded test cells left out) once; then, for each mutant, a forked child
runs the mutated solution cell, the cells between it and the part's last test cell, and the test cells,
judged by nbgrader's rule (a test cell fails if it raised or wrote to stderr). A mutant is killed when any
test cell of its part fails, or when the child outlives the timeout (an infinite loop). One that survives runs
again with the rest of the notebook: a later part may build on this one (02's Part B calls Part A's parser), and
a test cell of it that fails costs the learner points too (the `later` column). The stand-ins the setup cell
started are paused in the parent before the forks and served again by a thread in each child.

Survivors are killed by a new hidden test, or listed in grading/equivalent_mutants.toml with a one-line reason
(behaviour no sentence of the contract fixes: the wording of an error message beyond what the contract asks,
a change no input can observe). A mutant is named by a hash of its part, the line it changes and that line's
new text (`mutant_id`), not by its position, so adding code does not rename the others. The score of a part
is killed / (mutants - listed equivalents); the target is 90 % for every part. The exit status is 1 when a
part misses it, when a listed equivalent is killed (the list is stale), or when the instructor's own solution
fails a test.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import gc
import hashlib
import io
import json
import os
import select
import signal
import sys
import threading
import time
import tomllib
import warnings
from pathlib import Path
from typing import Any, NamedTuple

import nbformat

GRADING = Path(__file__).resolve().parent
ROOT = GRADING.parent
SOURCE = GRADING / "source"
EQUIVALENTS = GRADING / "equivalent_mutants.toml"
TARGET_PERCENT = 90.0


class Part(NamedTuple):
    """One graded part of a notebook: its solution cell and the cells that judge it."""

    assignment: str
    grade_id: str
    """The solution cell's grade_id."""
    before: list[str]
    """Sources of the code cells before the solution (graded test cells left out), in order."""
    solution: str
    after: list[tuple[str | None, str]]
    """(grade_id of a graded test cell of this part, or None for any other cell, source), up to the last test."""
    later: list[tuple[str | None, str]]
    """The same for the rest of the notebook: later parts build on this one (02's Part B calls Part A's parser)."""


class Mutant(NamedTuple):
    """One mutation of a solution cell."""

    id: str
    line: int
    """1-based line of the solution cell that changes (its first, if several)."""
    change: str
    """`old text -> new text` of the changed lines, stripped, for people."""
    source: str


def _nbgrader(cell: nbformat.NotebookNode) -> dict[str, Any]:
    return dict(cell.metadata.get("nbgrader", {}))


def assignments() -> list[str]:
    """Every assignment in the course, in order."""
    return sorted(p.name for p in SOURCE.iterdir() if (p / f"{p.name}.ipynb").exists())


def parts(assignment: str) -> list[Part]:
    """The graded parts of an instructor notebook, in notebook order."""
    notebook = nbformat.read(SOURCE / assignment / f"{assignment}.ipynb", as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    solutions = [i for i, cell in enumerate(code) if _nbgrader(cell).get("solution")]
    found = []
    for number, start in enumerate(solutions):
        end = solutions[number + 1] if number + 1 < len(solutions) else len(code)
        tests = [i for i in range(start + 1, end) if _nbgrader(code[i]).get("grade")]
        if not tests:
            continue
        before = [cell.source for cell in code[:start] if not _nbgrader(cell).get("grade")]
        after = [
            (_nbgrader(code[i]).get("grade_id") if i in tests else None, code[i].source)
            for i in range(start + 1, tests[-1] + 1)
        ]
        later = [
            (_nbgrader(cell).get("grade_id") if _nbgrader(cell).get("grade") else None, cell.source)
            for cell in code[tests[-1] + 1 :]
        ]
        found.append(
            Part(assignment, _nbgrader(code[start])["grade_id"], before, code[start].source, after, later)
        )
    return found


def mutant_id(grade_id: str, old: str, new: str) -> str:
    """A stable name for a mutant: its part, the changed line and its new text (not its position)."""
    return hashlib.sha256(f"{grade_id}\0{old}\0{new}".encode()).hexdigest()[:12]


def mutants(part: Part) -> list[Mutant]:
    """mutmut's mutants of the part's solution cell, each with a stable id, in source order."""
    from mutmut.mutation.file_mutation import create_mutations

    with contextlib.chdir(ROOT):  # mutmut reads its configuration, pyproject.toml's [tool.mutmut], from here
        module, mutations, _, _ = create_mutations(f"{part.grade_id}.py", part.solution)
    original = module.code.splitlines()
    found: list[Mutant] = []
    seen: dict[str, int] = {}
    for mutation in mutations:
        source = module.deep_replace(mutation.original_node, mutation.mutated_node).code
        changed = source.splitlines()
        matcher = difflib.SequenceMatcher(a=original, b=changed, autojunk=False)
        old_lines, new_lines, first = [], [], 0
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                first = first or i1 + 1
                old_lines += [line.strip() for line in original[i1:i2]]
                new_lines += [line.strip() for line in changed[j1:j2]]
        old, new = " / ".join(old_lines), " / ".join(new_lines)
        name = mutant_id(part.grade_id, old, new)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:  # the same change of the same line text elsewhere in the cell
            name = f"{name}-{seen[name]}"
        found.append(Mutant(name, first, f"{old} -> {new}", source))
    return found


def sample(found: list[Mutant], size: int | None) -> list[Mutant]:
    """`size` mutants chosen by id (a hash: spread over the cell, and the same ones every run); all if None."""
    if size is None or size >= len(found):
        return found
    chosen = {m.id for m in sorted(found, key=lambda m: m.id)[:size]}
    return [m for m in found if m.id in chosen]


def equivalents() -> dict[str, dict[str, dict[str, str]]]:
    """grading/equivalent_mutants.toml: {assignment: {grade_id: {mutant id: reason}}}."""
    data = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8")) if EQUIVALENTS.exists() else {}
    return {
        assignment: {
            part: {entry["id"]: entry["reason"] for entry in entries} for part, entries in by_part.items()
        }
        for assignment, by_part in data.items()
    }


# ---------------------------------------------------------------- running the cells (in forked processes)


def run_cell(shell: Any, source: str) -> bool:
    """Run one cell; True if it passed by nbgrader's rule (did not raise, wrote nothing to stderr).

    tests/support/forked_cells.py judges cells with it too."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        outcome = shell.run_cell(source, store_history=False)
    return bool(outcome.success) and not err.getvalue()


def _stand_ins() -> list[Any]:
    from course_lib.standin import StandIn

    return [obj for obj in gc.get_objects() if isinstance(obj, StandIn)]


def _pause_stand_ins() -> list[Any]:
    """Stop the stand-ins' serving threads (their sockets stay open), so no fork shares a server with us."""
    paused = []
    for stand_in in _stand_ins():
        if not stand_in._thread.is_alive():
            continue
        stand_in._httpd.stop()
        stand_in._thread.join(timeout=5)
        stand_in._httpd._wake_reader.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            while stand_in._httpd._wake_reader.recv(4096):  # the wake-up byte `stop` sent
                pass
        paused.append(stand_in)
    return paused


def _serve(stand_ins: list[Any]) -> None:
    """Serve the paused stand-ins again from this process (a forked child, or the parent at the end)."""
    for stand_in in stand_ins:
        stand_in._httpd._stopping = False
        stand_in._thread = threading.Thread(target=stand_in._httpd.serve_until_stopped, daemon=True)
        stand_in._thread.start()


def in_child(seconds: float, work: Any, *, keep_stderr: bool = False) -> dict[str, Any]:
    """Run `work()` (returning a JSON-able dict) in a forked child; {"timeout": True} if it outlives `seconds`,
    {"error": ...} if it raised or ended without an answer. Its stdin and stdout are /dev/null, its stderr too
    unless `keep_stderr`. tests/support/forked_cells.py runs its notebooks with it too."""
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the child: never returns
        os.close(reader)
        status = 0
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            if not keep_stderr:
                os.dup2(null, 2)
            answer = work()
        except BaseException as error:  # noqa: BLE001  (anything at all goes back as the answer)
            answer, status = {"error": repr(error)}, 1
        with open(writer, "w", encoding="utf-8") as pipe:
            pipe.write(json.dumps(answer))
        os._exit(status)
    os.close(writer)
    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    with open(reader, "rb", buffering=0) as pipe:
        while (left := deadline - time.monotonic()) > 0 and select.select([pipe], [], [], left)[0]:
            chunk = pipe.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
        else:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            return {"timeout": True}
    os.waitpid(child, 0)
    text = b"".join(chunks).decode("utf-8")
    return dict(json.loads(text)) if text else {"error": "the child ended without an answer"}


def _judge(
    shell: Any, part: Part, stand_ins: list[Any], solution: str, later: bool = False
) -> dict[str, Any]:
    """In a forked child: the solution (or a mutant of it), then the part's cells (and, if `later`, the rest of
    the notebook's); the failing test cells."""
    _serve(stand_ins)
    run_cell(shell, solution)
    cells = part.after + part.later if later else part.after
    failed = [grade_id for grade_id, source in cells if not run_cell(shell, source) and grade_id]
    return {"failed": failed}


def run_part(part: Part, chosen: list[Mutant], timeout: float | None) -> dict[str, Any]:
    """In a process of its own (forked by `check`): run the part's cells once, then every mutant in a fork.

    A mutant that passes the part's own test cells runs again with the rest of the notebook: a learner whose
    answer breaks a later part loses points too (in `later`, not in `killed`).
    Returns {"baseline": failing test cells of the instructor's solution, "seconds": its time, "killed":
    {mutant id: the first failing test cell, or "timeout"}, "later": the same for the rest of the notebook}.
    """
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    folder = SOURCE / part.assignment
    os.chdir(folder)
    sys.path[0] = str(folder)  # as a kernel started in the notebook's folder has it
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    for source in part.before:
        run_cell(shell, source)
    from course_grade.score.oracle.judge import judge, prepare
    from course_lib.oracle import install

    install(judge)  # the differential hidden tests judge each mutant, as the trusted checks judge a learner
    prepare(source for _, source in part.after + part.later)  # drawn once here, shared by every fork
    stand_ins = _pause_stand_ins()
    warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
    started = time.monotonic()
    baseline = in_child(600, lambda: _judge(shell, part, stand_ins, part.solution))
    seconds = time.monotonic() - started
    started = time.monotonic()
    whole = in_child(1200, lambda: _judge(shell, part, stand_ins, part.solution, later=True))
    rest = time.monotonic() - started
    if "failed" not in baseline or baseline["failed"] or "failed" not in whole or whole["failed"]:
        failed = (baseline.get("failed") or []) + (whole.get("failed") or []) or [str(baseline), str(whole)]
        return {"baseline": failed, "seconds": seconds, "killed": {}, "later": {}}

    def verdict(mutant: Mutant, later: bool, seconds: float) -> str | None:
        limit = timeout if timeout is not None else max(10.0, 5 * seconds)
        answer = in_child(limit, lambda: _judge(shell, part, stand_ins, mutant.source, later))
        if answer.get("timeout"):
            return "timeout"
        if answer.get("failed"):
            return str(answer["failed"][0])
        return f"crashed: {answer['error']:.80}" if "error" in answer else None

    killed: dict[str, str] = {}
    killed_later: dict[str, str] = {}
    for mutant in chosen:
        if how := verdict(mutant, False, seconds):
            killed[mutant.id] = how
        elif part.later and (how := verdict(mutant, True, rest)):
            killed_later[mutant.id] = how
    _serve(stand_ins)
    for stand_in in stand_ins:
        stand_in.close()
    return {"baseline": [], "seconds": seconds, "killed": killed, "later": killed_later}


class Score(NamedTuple):
    """What the mutants of one part did."""

    assignment: str
    grade_id: str
    mutants: int
    killed: int
    """By the part's own test cells (timeouts included)."""
    timeouts: int
    later: list[Mutant]
    """Survivors of the part's own test cells that a later part's test cells kill."""
    equivalent: list[Mutant]
    """Survivors listed in grading/equivalent_mutants.toml."""
    survived: list[Mutant]
    """Survivors not listed: a test is missing, or a reason is."""
    stale: list[str]
    """Listed equivalents that were killed (so not equivalent)."""
    baseline: list[str]
    """Test cells the instructor's own solution fails (must be empty)."""
    seconds: float

    @property
    def percent(self) -> float:
        counted = self.mutants - len(self.equivalent)
        return 100.0 * (self.killed + len(self.later)) / counted if counted else 100.0

    @property
    def ok(self) -> bool:
        return self.percent >= TARGET_PERCENT and not self.stale and not self.baseline


def check(
    part: Part, size: int | None = None, timeout: float | None = None, only: list[str] | None = None
) -> Score:
    """Run the (sampled, or `only` the named) mutants of one part in a forked process and score them."""
    chosen = sample([m for m in mutants(part) if only is None or m.id in only], size)
    answer = in_child(3600, lambda: run_part(part, chosen, timeout))
    if "killed" not in answer:
        answer = {"baseline": [f"the run failed: {answer}"], "seconds": 0.0, "killed": {}, "later": {}}
    listed = equivalents().get(part.assignment, {}).get(part.grade_id, {})
    killed, later = answer["killed"], answer["later"]
    survivors = (
        [m for m in chosen if m.id not in killed and m.id not in later] if not answer["baseline"] else []
    )
    return Score(
        part.assignment, part.grade_id, len(chosen), len(killed),
        sum(1 for how in killed.values() if how == "timeout"), [m for m in chosen if m.id in later],
        [m for m in survivors if m.id in listed], [m for m in survivors if m.id not in listed],
        sorted(set(listed) & (set(killed) | set(later))), answer["baseline"], answer["seconds"],
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("assignment", nargs="?", help="e.g. 06_security (default: every assignment)")
    parser.add_argument("part", nargs="?", help="a solution cell's grade_id (default: every graded part)")
    parser.add_argument(
        "--sample", type=int, metavar="N", help="N mutants per part, chosen by id (deterministic)"
    )
    parser.add_argument(
        "--timeout", type=float, metavar="S", help="seconds per mutant (default: 5x the solution's)"
    )
    parser.add_argument("--mutant", action="append", metavar="ID", help="only this mutant (repeatable)")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON line per part instead of the table"
    )
    args = parser.parse_args(argv)
    names = [args.assignment] if args.assignment else assignments()
    scores: list[Score] = []
    if not args.json:
        print(f"{'part':40} mutants killed timeout later survived equiv   score")
    for name in names:
        for part in parts(name):
            if args.part and part.grade_id != args.part:
                continue
            score = check(part, args.sample, args.timeout, args.mutant)
            scores.append(score)
            if args.json:
                print(json.dumps({
                    "assignment": name, "part": part.grade_id, "mutants": score.mutants, "percent": score.percent,
                    "survived": [m.id for m in score.survived], "equivalent": [m.id for m in score.equivalent],
                    "later": [m.id for m in score.later], "stale": score.stale, "baseline": score.baseline,
                }), flush=True)  # fmt: skip
                continue
            print(
                f"{name + ' ' + part.grade_id:40} {score.mutants:7} {score.killed:6} {score.timeouts:7} "
                f"{len(score.later):5} {len(score.survived):8} {len(score.equivalent):5} {score.percent:6.1f}%"
                f"{'' if score.ok else '  < ' + str(TARGET_PERCENT)}  ({score.seconds:.1f} s a run)",
                flush=True,
            )
            for failed in score.baseline:
                print(f"    the instructor's solution fails {failed}")
            for stale in score.stale:
                print(f"    listed as equivalent but killed: {stale}")
            for mutant in score.survived:
                print(f"    survived {mutant.id} line {mutant.line}: {mutant.change:.160}")
    if not scores:
        print(f"no graded part {args.part!r} in {args.assignment}", file=sys.stderr)
        return 2
    return 0 if all(score.ok for score in scores) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
