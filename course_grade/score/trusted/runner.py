"""Trusted verdicts for one notebook: the instructor's tests run here, the learner's functions over there.

`check_notebook` reads the instructor's source notebook (setup cells and test cells, never the
submission's copies of them) and the submitted one (its solution cells and its other code), runs the
submission's code in a learner process, then runs the instructor's setup and each test cell in a namespace of
this process where every graded name is a proxy to the learner's process (functions) or its value as data.
A test cell passes when it raises nothing and writes nothing to stderr, as under nbgrader.
Only the graded names (those the instructor's solution cells define) come from the learner; every other
name is the instructor's, and a submitted solution cell that redefines one is flagged for review.

It is longer than ~350 lines because the plan of a notebook (which cells and names are the instructor's:
`split_cells`, `instructor_bindings`, `shadow_functions`) is read only by the run that follows it (`_Run`:
setup, the learner's process, each test cell, the own-work check); the process, the pipe and the static
checks it uses live in `session`, `pipe/` and `static`.
"""

from __future__ import annotations

import ast
import contextlib
import io
import tempfile
import time
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course_grade.cells import in_context, is_test
from course_grade.cells import nbgrader_metadata as _nbgrader
from course_grade.score.hidden import verdict_at
from course_grade.score.oracle import judge as oracle
from course_grade.score.trusted.coverage import unverified
from course_grade.score.trusted.pipe.objects import RemoteClass, RemoteInstance
from course_grade.score.trusted.pipe.rpc import PeerFailure, Remote
from course_grade.score.trusted.session import CALL_SECONDS, LearnerProcess, Loaded, Wrap, identity
from course_grade.score.trusted.static import parsed, static_class, static_report
from course_lib.checks import Report, judge_own_work, own_work_report
from course_lib.oracle import judging

Notebook = dict[str, Any]

CELL_SECONDS = 60.0
"""How long one test cell may take in all (nbgrader's default cell timeout is 30 s)."""

RESTARTS = 2
"""How many times a learner process that died or hung in a call is started again for the cells after it."""

LEARNER_CELL_SECONDS = 30.0
"""How long one of the learner's cells may run in its process before it is interrupted (nbgrader's default)."""


@dataclass(frozen=True)
class CellVerdict:
    """The trusted outcome of one test cell."""

    grade_id: str
    passed: bool | None
    """True or False; None when the cell could not be checked here (the reason says why)."""
    reason: str = ""
    """Why it failed or was not checked; empty when it passed. For the instructor: it may quote a hidden test."""
    hidden: str = ""
    """When a hidden test of the cell failed: the one line a learner may see ("hidden test 2 of 5 failed");
    empty otherwise."""


@dataclass(frozen=True)
class NotebookVerdict:
    """The trusted outcome of every test cell of one notebook, and what the run noticed."""

    name: str
    cells: tuple[CellVerdict, ...] = ()
    flags: tuple[str, ...] = ()
    """Things for manual review that do not change a score (a call of a reference function, say)."""
    seconds: float = 0.0


def _tags(cell: dict[str, Any]) -> list[str]:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    tags = meta.get("tags") if isinstance(meta, dict) else None
    return [str(tag) for tag in tags] if isinstance(tags, list) else []


def _source(cell: dict[str, Any]) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def _code_cells(notebook: Notebook) -> Iterator[dict[str, Any]]:
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            yield cell


def is_fixed(cell: dict[str, Any]) -> bool:
    """A read-only instructor cell that is not a test (setup, the harness pieces of 07)."""
    meta = _nbgrader(cell)
    return bool(meta.get("locked")) and not meta.get("grade") and not meta.get("solution")


@dataclass
class Plan:
    """What runs where, read from the two notebooks."""

    trusted_setup: list[str] = field(default_factory=list)
    """The instructor's fixed cells, run on the trusted side before the tests."""
    tests: list[tuple[str, str]] = field(default_factory=list)
    """(grade_id, source) of every test cell, in the instructor's order."""
    learner_cells: list[str] = field(default_factory=list)
    """What the learner's process runs: the submission's code with its fixed cells restored, tests left out."""
    names: list[str] = field(default_factory=list)
    """The graded names: those the instructor's solution cells define (the only names taken from the learner)."""
    shadowing: list[str] = field(default_factory=list)
    """Review flags: a submitted solution cell that defines one of the instructor's names (ignored here)."""
    before: dict[str, int] = field(default_factory=dict)
    """test grade_id -> how many learner cells come before it in the submission (they run before its test)."""
    examples: list[str] = field(default_factory=list)
    """The instructor's example cells that define a name a test uses, run on the trusted side after binding."""


def split_cells(source: Notebook, submitted: Notebook) -> Plan:
    """Split the two notebooks into the trusted side's cells and the learner's.

    The graded names come from the instructor's solution cells, never from the submission's: a submitted
    solution cell that also defines one of the instructor's names (`refusal`, `load_fixture`, `server`)
    changes nothing the checks see, and is flagged for review. A test cell the learner moved above cells it
    follows in the instructor's notebook counts from after them, as the learner's kernel runs it
    (`course_grade.cells.in_context`)."""
    result = Plan()
    cells = submitted.get("cells") if isinstance(submitted, dict) else None
    ours = source.get("cells") if isinstance(source, dict) else None
    if isinstance(cells, list) and isinstance(ours, list):
        submitted = {**submitted, "cells": list(cells)}
        in_context(submitted["cells"], ours)
    fixed: dict[str, str] = {}
    for cell in _code_cells(source):
        grade_id = str(_nbgrader(cell).get("grade_id", ""))
        if is_test(cell):
            result.tests.append((grade_id, _source(cell)))
        elif is_fixed(cell):
            fixed[grade_id] = _source(cell)
            result.trusted_setup.append(_source(cell))
        elif _nbgrader(cell).get("solution"):
            result.names += _defined(_source(cell))
    demos = {_source(cell) for cell in _code_cells(source) if "demo" in _tags(cell)}
    restored: set[str] = set()
    learner: list[str] = []
    solutions: list[tuple[str, str]] = []
    tests = {grade_id for grade_id, _ in result.tests}
    seen_at: dict[str, int] = {}
    for cell in _code_cells(submitted):
        grade_id = str(_nbgrader(cell).get("grade_id", ""))
        if grade_id in tests or is_test(cell):
            seen_at.setdefault(grade_id, len(learner))
            continue
        if grade_id in fixed:
            if grade_id not in restored:
                learner.append(fixed[grade_id])
                restored.add(grade_id)
            continue
        if not _nbgrader(cell) and _source(cell) in demos:
            continue  # an instructor's worked example, unchanged: no test depends on it
        learner.append(_source(cell))
        if _nbgrader(cell).get("solution"):
            solutions.append((grade_id, _source(cell)))
    used = _used(text for _, text in result.tests)
    for cell in _code_cells(source):
        if not _nbgrader(cell) and set(_defined(_source(cell))) & used:
            result.examples.append(_source(cell))
    missing = [text for grade_id, text in fixed.items() if grade_id not in restored]
    result.learner_cells = missing + learner
    result.before = {
        grade_id: len(missing) + seen_at.get(grade_id, len(learner)) for grade_id, _ in result.tests
    }
    result.names = list(dict.fromkeys(result.names))
    result.shadowing = _shadowing(solutions, instructor_bindings(source, used), set(result.names))
    return result


def instructor_bindings(source: Notebook, used: set[str]) -> dict[str, set[str]]:
    """The names the checks take from the instructor's cells, and how those cells bind them.

    Every name a read-only (setup) cell binds, and those of its worked examples that a test reads. An import
    is noted by what it imports (`course_lib.fixtures.load_fixture`), anything else as "defined"."""
    found: dict[str, set[str]] = {}
    for cell in _code_cells(source):
        if not is_fixed(cell) and _nbgrader(cell):
            continue
        for name, how in _bindings(_source(cell)):
            if is_fixed(cell) or name in used:
                found.setdefault(name, set()).add(how)
    return found


def _shadowing(
    solutions: list[tuple[str, str]], instructor: dict[str, set[str]], graded: set[str]
) -> list[str]:
    """A flag per submitted solution cell binding an instructor's name other than as the instructor does."""
    flags = []
    for grade_id, text in solutions:
        names = sorted(
            {
                name
                for name, how in _bindings(text)
                if name in instructor
                and name not in graded
                and (how == "defined" or how not in instructor[name])
            }
        )
        if names:
            listed = ", ".join(f"`{name}`" for name in names)
            flags.append(
                f"the solution cell `{grade_id}` also defines the instructor's {listed}; the trusted checks "
                "ignore it and use the instructor's"
            )
    return flags


def _bindings(source: str) -> list[tuple[str, str]]:
    """(name, how) of each top-level binding of a cell: an import's full path, or "defined"."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            found += [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]
        elif isinstance(node, ast.Import):
            found += [
                (a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0])
                for a in node.names
            ]
        else:
            found += [(name, "defined") for name in _defined_by(node)]
    return found


def _used(sources: Iterator[str]) -> set[str]:
    """Every name the cells read."""
    names: set[str] = set()
    for source in sources:
        try:
            names |= {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
        except (SyntaxError, ValueError):
            continue
    return names


def _defined(source: str) -> list[str]:
    """The top-level names a cell defines (functions, classes, assignments), if it parses."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [
        name
        for node in tree.body
        if not isinstance(node, ast.Import | ast.ImportFrom)
        for name in _defined_by(node)
    ]


def shadow_functions(cells: list[str]) -> dict[str, types.FunctionType]:
    """Functions compiled here from the learner's cells, never called: what a test may read of their code.

    A name gets one only if its last top-level binding is a `def`; the shadows' globals hold each other,
    so a test that follows the notebook's own functions (06's never-eval check) reads the submitted code.
    """
    last: dict[str, tuple[int, ast.stmt]] = {}
    for index, source in enumerate(cells):
        found = parsed(source)
        if found is None:
            continue
        for node in found[0].body:
            for name in _defined_by(node):
                last[name] = (index, node)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for name, (index, node) in last.items():
        if not isinstance(node, ast.FunctionDef):
            continue
        module = parsed(cells[index])[1]  # type: ignore[index]  # it parsed above
        for constant in module.co_consts:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if isinstance(constant, types.CodeType) and (constant.co_name, constant.co_firstlineno) == (
                name,
                first,
            ):
                namespace[name] = types.FunctionType(constant, namespace, name)
    return {name: value for name, value in namespace.items() if isinstance(value, types.FunctionType)}


def _defined_by(node: ast.stmt) -> list[str]:
    """The names one top-level statement binds."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [target.id for target in targets if isinstance(target, ast.Name)]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return []


def check_notebook(
    name: str,
    source: Notebook,
    submitted: Notebook,
    wrap: Wrap = identity,
    folder: Path | None = None,
    cell_seconds: float = CELL_SECONDS,
    call_seconds: float = CALL_SECONDS,
    learner_cell_seconds: float = LEARNER_CELL_SECONDS,
    path: Sequence[str] = (),
) -> NotebookVerdict:
    """Trusted verdicts of every test cell of the notebook `name` for one submission (`path`: the learner
    process's module search path when it is graded against a learners' library)."""
    start = time.perf_counter()
    steps = split_cells(source, submitted)
    with contextlib.ExitStack() as stack:
        stack.enter_context(
            judging(oracle.remote_judge)
        )  # the differential hidden tests: the reference as oracle
        stack.enter_context(oracle.aborting(PeerFailure))  # a lost learner process ends a cell, as elsewhere
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="learner-")))
        learner = stack.enter_context(LearnerProcess(folder, wrap, call_seconds, path=path))
        run = _Run(name, steps, learner, cell_seconds, learner_cell_seconds)
        cells = run.all()
    return NotebookVerdict(name, tuple(cells), tuple(run.flags), time.perf_counter() - start)


class _Run:
    """One pass over the test cells, restarting the learner's process when it dies."""

    def __init__(
        self,
        name: str,
        steps: Plan,
        learner: LearnerProcess,
        cell_seconds: float,
        learner_cell_seconds: float,
    ) -> None:
        self.name, self.steps, self.learner, self.cell_seconds = name, steps, learner, cell_seconds
        self.learner_cell_seconds = learner_cell_seconds
        self.flags: list[str] = list(steps.shadowing)
        self.namespace: dict[str, Any] = {}
        self.starts = 0
        self.loaded = 0
        """How many learner cells the running process has been given."""
        self.dropped: set[int] = set()
        """Learner cells that hung past every interrupt or killed their process: they are not run again."""
        self.examples_ran = False
        self.methods: dict[int, tuple[int, str, types.FunctionType]] = {}
        """id of a shadow method -> (the learner's class id, the method's name, the shadow)."""
        self.references = sorted(set(self.steps.names))

    def all(self) -> list[CellVerdict]:
        reasons = [unverified(self.name, grade_id) for grade_id, _ in self.steps.tests]
        if all(reasons):
            return [
                CellVerdict(g, None, f"not checked here: {r}")
                for (g, _), r in zip(self.steps.tests, reasons, strict=True)
            ]
        try:
            self._setup()
        except BaseException as error:  # the instructor's setup failing here is the grader's problem
            reason = f"the trusted setup failed: {type(error).__name__}: {error}"[:300]
            return [CellVerdict(grade_id, None, reason) for grade_id, _ in self.steps.tests]
        try:
            return [self._cell(grade_id, text) for grade_id, text in self.steps.tests]
        finally:
            for value in list(self.namespace.values()):
                if type(value).__name__ == "StandIn":
                    with contextlib.suppress(Exception):
                        value.close()

    def _setup(self) -> None:
        self.namespace = {"__name__": "__main__"}
        with _quiet():
            for text in self.steps.trusted_setup:
                exec(compile(text, "<setup>", "exec"), self.namespace)
        self.fixed = dict(self.namespace)

    def _start(self) -> None:
        """(Re)start the learner's process, with the trusted side's stand-ins relayed to it."""
        self.starts += 1
        ports = [value.port for value in self.namespace.values() if type(value).__name__ == "StandIn"]
        self.loaded = 0
        self._bind(self.learner.start(self.references, self.references, ports))

    def _load(self, upto: int) -> None:
        """Give the learner's process its cells up to `upto`, one at a time, dropping one that hangs or kills it."""
        while self.loaded < upto:
            index = self.loaded
            self.loaded += 1
            if index in self.dropped:
                continue
            try:
                self._bind(self.learner.load([self.steps.learner_cells[index]], self.learner_cell_seconds))
            except PeerFailure:
                self.dropped.add(index)
                self.learner.stop()
                if self.starts > RESTARTS + len(self.dropped):
                    raise
                self._start()

    @contextlib.contextmanager
    def _relaying_new_stand_ins(self) -> Iterator[None]:
        """While a test cell runs, every stand-in it starts (a StandIn subclass of its own, say) is relayed."""
        from course_lib.standin import StandIn

        started = StandIn.__init__
        learner = self.learner

        def relayed(server: StandIn, *args: Any, **kwargs: Any) -> None:
            started(server, *args, **kwargs)
            learner.relay_more(server.port)

        StandIn.__init__ = relayed  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            StandIn.__init__ = started  # type: ignore[method-assign]

    def _bind(self, loaded: Loaded) -> None:
        """Bind the learner's graded names in the trusted namespace (as they are after its latest cells)."""
        shadows = shadow_functions(
            [self.steps.learner_cells[i] for i in range(self.loaded) if i not in self.dropped]
        )
        for name in self.references:
            if name not in self.fixed or name in loaded.names:
                self.namespace.pop(name, None)
            if name in self.fixed and name not in loaded.names:
                self.namespace[name] = self.fixed[name]
        for name, value in loaded.names.items():
            if name in self.fixed and not isinstance(value, Remote) and name not in self.steps.names:
                continue
            if isinstance(value, Remote) and name in shadows:
                value.__code__ = shadows[name].__code__  # type: ignore[attr-defined]
                value.__globals__ = shadows[name].__globals__  # type: ignore[attr-defined]
            if isinstance(value, RemoteClass):
                self._shadow_class(name, value)
            self.namespace[name] = value
        self.namespace["assert_own_work"] = self._assert_own_work

    def _learner_cells(self) -> list[str]:
        """The learner's cells the running process has been given (the dropped ones left out)."""
        return [
            text
            for index, text in enumerate(self.steps.learner_cells[: self.loaded])
            if index not in self.dropped
        ]

    def _shadow_class(self, name: str, cls: RemoteClass) -> None:
        """What a test may read of a learner's class, from the source: its library bases and its methods.

        The methods, compiled here and never called, sit in the class's namespace under names no attribute
        lookup reaches (every use of the class or its instances asks the learner's process)."""
        shadow = static_class(name, self._learner_cells(), self.fixed)
        if shadow is None:  # the name is not bound by a `class` statement of the notebook
            type.__setattr__(cls, "__module__", "not defined with class in this notebook")
            return
        bases = tuple(type(label, (), {"__module__": module}) for module, label in shadow.library_bases)
        type.__setattr__(cls, "__bases__", (RemoteInstance, *bases))
        for stale in [key for key in vars(cls) if key.startswith("_remote_shadow_")]:
            type.__delattr__(cls, stale)
        for method, function in shadow.methods.items():
            type.__setattr__(cls, f"_remote_shadow_{method}", function)
            self.methods[id(function)] = (type.__getattribute__(cls, "_remote_ident"), method, function)

    def _examples(self) -> None:
        """The instructor's example cells that define names the tests use, once, with the learner bound."""
        if self.examples_ran:
            return
        self.examples_ran = True
        for text in self.steps.examples:
            try:
                with _quiet():
                    exec(compile(text, "<example>", "exec"), self.namespace)
            except PeerFailure:
                raise
            except BaseException:  # a learner's KeyboardInterrupt or SystemExit, rebuilt here, included
                continue

    def _assert_own_work(self, fn: object, reference_module: Any, allow: tuple[str, ...] = ()) -> None:
        """assert_own_work: the learner's process describes the function, this side judges it, and the source too."""
        allowed = [getattr(reference_module, helper).__name__ for helper in allow]
        method = self.methods.get(id(fn))
        if method is not None and method[2] is fn:  # a method of a learner's class, as its source reads
            ident, name, shadow = method
            report: Report = self.learner.ask("own_work", id=ident, attr=name)
            if type(report) is not dict:
                raise AssertionError(f"{name} could not be inspected")
            judge_own_work(report, reference_module.__name__, allowed)
            judge_own_work(own_work_report(shadow), reference_module.__name__, allowed)
            return
        if not isinstance(fn, Remote):
            raise AssertionError(
                f"{getattr(fn, '__name__', 'it')} should be a function you define with def in this notebook"
            )
        report = self.learner.ask("own_work", id=fn._ident)
        if type(report) is not dict:
            raise AssertionError(f"{fn.__name__} could not be inspected")
        judge_own_work(report, reference_module.__name__, allowed)
        judge_own_work(
            static_report(fn.__name__, self._learner_cells(), self.fixed), reference_module.__name__, allowed
        )

    def _cell(self, grade_id: str, text: str) -> CellVerdict:
        reason = unverified(self.name, grade_id)
        if reason is not None:
            return CellVerdict(grade_id, None, f"not checked here: {reason}")
        try:
            if not self.learner.alive:
                if self.starts > RESTARTS + len(self.dropped):
                    return CellVerdict(
                        grade_id, False, "the learner's process kept failing; this cell was not run"
                    )
                self._start()
            self._load(max(self.loaded, self.steps.before.get(grade_id, len(self.steps.learner_cells))))
            self._examples()
            oracle.prepare([text], remote=True)  # draw the cell's examples before its deadline starts
        except PeerFailure as error:
            self.learner.stop()
            return CellVerdict(grade_id, False, f"the learner's code could not be loaded: {error}"[:300])
        assert self.learner.endpoint is not None
        self.learner.endpoint.deadline = time.monotonic() + self.cell_seconds
        errors = io.StringIO()
        try:
            with _quiet(errors), self._relaying_new_stand_ins():
                exec(compile(text, f"<{grade_id}>", "exec"), self.namespace)
        except PeerFailure as error:
            reason = self.learner.why_not() if not self.learner.alive else str(error)
            self.learner.stop()
            return CellVerdict(grade_id, False, reason[:300], _hidden_failure(grade_id, text, error))
        except BaseException as error:  # a failing test is a verdict, whatever it raised
            reason = f"{type(error).__name__}: {error}"[:300]
            return CellVerdict(grade_id, False, reason, _hidden_failure(grade_id, text, error))
        finally:
            if self.learner.endpoint is not None:
                self.learner.endpoint.deadline = None
            self._collect_trace()
        if errors.getvalue():
            return CellVerdict(grade_id, False, "the cell wrote to stderr")
        return CellVerdict(grade_id, True)

    def _collect_trace(self) -> None:
        """Flag the reference functions the learner's code called during the cell."""
        if not self.learner.alive:
            return
        try:
            called = self.learner.ask("traced")
        except PeerFailure:
            return
        for item in called if type(called) is list else []:
            flag = f"the learner's code called the reference {str(item)[:80]} during the trusted checks"
            if flag not in self.flags:
                self.flags.append(flag)


def _hidden_failure(grade_id: str, text: str, error: BaseException) -> str:
    """What a learner may read of a test cell's failure: "hidden test k of N failed" when the line of the cell
    that raised lies in a hidden region, else "" (a visible test's failure is the kernel's to show)."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == f"<{grade_id}>":
            line = trace.tb_lineno
            break  # the outermost frame of the cell: the test's own line
        trace = trace.tb_next
    found = verdict_at(text, line, type(error).__name__)
    return "" if found is None else found


@contextlib.contextmanager
def _quiet(errors: io.StringIO | None = None) -> Iterator[None]:
    """Discard what trusted code prints; keep what it writes to stderr in `errors`."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(errors or io.StringIO()):
        yield
