"""The learner's process: run the notebook's code, then answer the trusted side's calls over stdin/stdout.

Started as `python -I -m course_grade.score.trusted.pipe.learner` (by `course_grade.score.trusted.session`),
in a scratch folder, with a clean environment, possibly inside the sandbox. It keeps its stdin and stdout
for the protocol and points the standard streams at /dev/null, so nothing the learner prints reaches the pipe.
The first message loads the code cells; after that it answers calls of the graded names, own-work reports
of them, and callbacks, until the pipe closes. Nothing here is trusted: the trusted side reads its answers
as hostile data.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import signal
import sys
import types
from collections.abc import Callable
from typing import Any

from course_grade.score.trusted.pipe import relay
from course_grade.score.trusted.pipe.codec import encode
from course_grade.score.trusted.pipe.rpc import Endpoint


def _pipes() -> tuple[int, int]:
    """Keep stdin and stdout for the protocol; the standard streams go to /dev/null."""
    read_fd, write_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    return read_fd, write_fd


class Learner:
    """The notebook's namespace, the graded names it defines, and what the reference modules' calls were."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
        self.references: dict[types.CodeType, str] = {}
        self.graded: list[str] = []
        self.called: set[str] = set()
        from course_lib.checks import own_work_report

        self.report = own_work_report  # bound before any learner code runs

    def start(self, message: dict[str, Any]) -> dict[str, Any]:
        """Take the graded names, the reference functions to watch and the stand-ins' ports to relay."""
        self.graded = [str(name) for name in message.get("names") or []]
        ports = [port for port in message.get("relay") or [] if type(port) is int and 0 < port < 65536]
        self.relays = relay.listen(ports, self.exchange)
        self._trace_references([str(name) for name in message.get("references") or []])
        return self._names([])

    def relay(self, message: dict[str, Any]) -> dict[str, Any]:
        """Relay more of the trusted side's stand-ins (one a test cell started after this process did)."""
        ports = [port for port in message.get("ports") or [] if type(port) is int and 0 < port < 65536]
        self.relays += relay.listen(ports, self.exchange)
        return {"op": "return", "value": None}

    def load(self, message: dict[str, Any]) -> dict[str, Any]:
        """Run the cells, each interrupted once it has used the CPU seconds given (this process's, all its
        threads') or run the wall-clock seconds given; describe the graded names afterwards."""
        errors = []
        limit, wall = _seconds(message.get("seconds"), 30.0), _seconds(message.get("wall"), 0.0)
        for index, source in enumerate(message.get("cells") or []):
            previous = [signal.signal(number, _interrupt) for number in (signal.SIGPROF, signal.SIGALRM)]
            signal.setitimer(signal.ITIMER_PROF, limit)
            signal.setitimer(signal.ITIMER_REAL, max(wall, limit))
            try:
                code = compile(_plain_python(str(source)), f"<cell {index}>", "exec")
                exec(code, self.namespace)
            except BaseException as error:  # a failing cell is the learner's; later cells still run
                errors.append([index, type(error).__name__, str(error)[:200]])
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGPROF, previous[0])
                signal.signal(signal.SIGALRM, previous[1])
        self._trace_references(self.graded)
        return self._names(errors)

    def _names(self, errors: list[list[Any]]) -> dict[str, Any]:
        """The reply describing every graded name the namespace holds."""
        names: dict[str, Any] = {}
        for name in self.graded:
            if name not in self.namespace:
                continue
            value = self.namespace[name]
            if callable(value) and not isinstance(value, type):
                names[name] = {"kind": "callable", "id": self.endpoint.export(value)}
            else:
                try:
                    names[name] = {"kind": "value", "value": encode(value, self.endpoint)[0]}
                except Exception as error:
                    names[name] = {"kind": "error", "error": f"{type(error).__name__}: {error}"[:200]}
        return {"op": "return", "value": None, "names": names, "errors": errors[:50]}

    def _trace_references(self, graded: list[str]) -> None:
        """Note the code of each reference function named like a graded name (course_lib's own)."""
        for name, module in list(sys.modules.items()):
            if not name.startswith("course_lib.") or module is None:
                continue
            for attribute in graded:
                value = getattr(module, attribute, None)
                if isinstance(value, types.FunctionType) and value.__module__ == name:
                    self.references[value.__code__] = f"{name}.{attribute}"

    def exchange(self, request: dict[str, Any]) -> dict[str, Any]:
        """One relayed HTTP request over the pipe, and its answer (a relay thread calls this)."""
        try:
            reply = self.endpoint.request(request)
        except Exception:
            return {"status": 502, "body": "no answer"}
        return reply if reply.get("op") == "http-reply" else {"status": 502, "body": "no answer"}

    def own_work(self, message: dict[str, Any]) -> dict[str, Any]:
        """The own-work report of one exported callable."""
        target = self.endpoint.exports.get(message.get("id"))  # type: ignore[arg-type]
        attr = message.get("attr")
        if isinstance(target, type) and type(attr) is str:  # a method, as the class body defined it
            found = next((vars(base)[attr] for base in target.__mro__ if attr in vars(base)), None)
            target = getattr(found, "__func__", found)
        try:
            report = self.report(target)
        except Exception as error:
            report = {"error": f"{type(error).__name__}: {error}"[:200]}
        return {"op": "return", "value": report}

    def traced(self) -> dict[str, Any]:
        """The reference functions the graded code called since the last question, then forget them."""
        called, self.called = sorted(self.called), set()
        return {"op": "return", "value": called}

    def run_call(self, target: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run one call from the trusted side, noting the reference functions it reaches."""
        references, called = self.references, self.called

        def profile(frame: types.FrameType, event: str, arg: object) -> None:
            if event == "call" and frame.f_code in references:
                called.add(references[frame.f_code])

        previous = sys.getprofile()
        sys.setprofile(profile if references else previous)
        try:
            return target(*args, **kwargs)
        finally:
            sys.setprofile(previous)


class CellTimeout(BaseException):
    """A cell ran past its time limit and was interrupted."""


def _seconds(value: object, default: float) -> float:
    """A positive number of seconds from the trusted side's message, or the default."""
    return float(value) if isinstance(value, int | float) and value > 0 else default


def _interrupt(signum: int, frame: object) -> None:
    raise CellTimeout("the cell ran past its time limit and was interrupted")


def _plain_python(source: str) -> str:
    """The cell as Python: IPython's magics and shell escapes become calls (which fail here, harmlessly)."""
    try:
        compile(source, "<cell>", "exec")
        return source
    except SyntaxError:
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return str(TransformerManager().transform_cell(source))  # type: ignore[no-untyped-call]
    except Exception:
        return source


def main() -> None:
    """Serve the trusted side until it closes the pipe."""
    read_fd, write_fd = _pipes()
    endpoint = Endpoint(read_fd, write_fd, strict=False)
    learner = Learner(endpoint)
    endpoint.on_call = learner.run_call
    endpoint.handlers.update(
        start=learner.start,
        load=learner.load,
        relay=learner.relay,
        own_work=learner.own_work,
        traced=lambda message: learner.traced(),
    )
    with contextlib.suppress(BaseException):  # the pipe closed or broke: the trusted side is done with us
        endpoint.start().serve_main()
    os._exit(0)


if __name__ == "__main__":
    main()
