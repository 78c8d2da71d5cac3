"""Calls across the pipe, both ways: a call may call back, and the callback may call again, to any depth.

Each side holds an `Endpoint`. `call(ident, args, kwargs)` sends the arguments as data (callables as
references the other side calls back), then serves whatever arrives until the answer: nested calls run
here and answer in turn. The callee sends back the result, with references to the caller's own objects where
it returns what it was given, and the final state of the mutable arguments (a function that fills a list it
was passed fills the caller's list). Exceptions cross by class: the strict (trusted) side rebuilds only the
classes of an allow-list and turns any other into a `LearnerError`.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib
import operator
import threading
import time
from collections.abc import Callable
from typing import Any

from course_grade.trusted import protocol
from course_grade.trusted.codec import CodecError, decode, encode

MAX_MESSAGES_PER_CALL = 100_000
"""How many messages (callbacks included) one call may exchange before it is refused."""

ALLOWED_ERRORS = {
    f"builtins.{name}": getattr(builtins, name)
    for name in (
        "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError", "KeyError",
        "LookupError", "NameError", "NotImplementedError", "OverflowError", "RecursionError", "RuntimeError",
        "StopIteration", "TypeError", "UnicodeError", "ValueError", "ZeroDivisionError", "TimeoutError",
        "OSError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
    )
}  # fmt: skip
"""The exception classes the trusted side rebuilds by name (course_lib.errors' classes are added below)."""


def _course_errors() -> dict[str, type[BaseException]]:
    from course_lib import errors

    return {
        f"course_lib.errors.{name}": value
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == errors.__name__
    }


ALLOWED_ERRORS.update(_course_errors())


class LearnerError(Exception):
    """An exception of the learner's code whose class the trusted side does not rebuild."""


class PeerFailure(BaseException):
    """The other side broke the protocol, went silent past its deadline, or died: no answer will come.

    A BaseException, so that a test's `except Exception` cannot take a dead learner for a refusal."""


class Remote:
    """A callable that lives on the other side: calling it is a call across the pipe."""

    def __init__(self, endpoint: Endpoint, ident: int, name: str = "function") -> None:
        self._endpoint, self._ident = endpoint, ident
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._endpoint.call(self._ident, args, kwargs)

    def __repr__(self) -> str:
        return f"<learner's {self.__name__}>"


@dataclasses.dataclass
class Endpoint:
    """One side of the pipe: its exported callables, its limits, and how strictly it reads the other side."""

    read_fd: int
    write_fd: int
    strict: bool
    """True on the trusted side: read everything as hostile data."""
    timeout: float | None = None
    """Seconds to wait for each message from the other side (None: forever, the learner side)."""
    deadline: float | None = None
    """A `time.monotonic()` time past which no message is waited for (the cell's limit), or None."""
    limit: int = protocol.MAX_MESSAGE_BYTES
    handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = dataclasses.field(default_factory=dict)
    """Other operations this side answers (op name -> handler of the message, returning the reply)."""
    on_call: Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], Any] | None = None
    """How a call from the other side is run (the learner side traces it); None: plainly."""
    exports: dict[int, object] = dataclasses.field(default_factory=dict)
    _by_object: dict[int, int] = dataclasses.field(default_factory=dict)
    broken: str | None = None
    """Why the pipe can no longer be used, once it cannot."""
    lock: threading.RLock = dataclasses.field(default_factory=threading.RLock)
    """Held for each message sent, and for a whole relayed exchange (the relay's threads share the pipe)."""
    owner: int = dataclasses.field(default_factory=threading.get_ident)
    """The one thread that may use the pipe: a call from another thread would interleave messages."""

    @property
    def keeps_iterators(self) -> bool:
        """The learner's side sends an iterator as an opaque value; the trusted side drains its own."""
        return not self.strict

    # ---- the codec's view of references ----------------------------------------------------------------
    def export(self, value: object) -> int:
        """An id for one of this side's callables (the same id for the same object)."""
        if id(value) not in self._by_object:
            ident = len(self.exports) + 1
            self.exports[ident], self._by_object[id(value)] = value, ident
        return self._by_object[id(value)]

    def remote_id(self, value: object) -> int | None:
        """The other side's id for a proxy of this endpoint."""
        return value._ident if isinstance(value, Remote) and value._endpoint is self else None

    def resolve(self, mine: bool, ident: int) -> object:
        """This side's object, or a proxy for the other side's."""
        if mine:
            if ident not in self.exports:
                raise CodecError(f"a reference to an object this side never sent ({ident})")
            return self.exports[ident]
        return Remote(self, ident)

    # ---- messages ----------------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        """Send one message (a failure breaks the endpoint)."""
        self._usable()
        try:
            with self.lock:
                protocol.send(self.write_fd, message, self.limit)
        except protocol.ProtocolError as error:
            self.broken = str(error)
            raise PeerFailure(self.broken) from None

    def receive(self) -> dict[str, Any]:
        """Receive one message within the timeout (a failure breaks the endpoint)."""
        self._usable()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        if self.deadline is not None:
            deadline = self.deadline if deadline is None else min(deadline, self.deadline)
        try:
            message = protocol.receive(self.read_fd, deadline, self.limit)
        except protocol.ProtocolError as error:
            self.broken = str(error)
            raise PeerFailure(self.broken) from None
        if type(message) is not dict or type(message.get("op")) is not str:
            self.broken = "a message without an op"
            raise PeerFailure(self.broken)
        return message

    def _usable(self) -> None:
        if self.broken is not None:
            raise PeerFailure(self.broken)

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message and serve the other side's calls until its reply (return or raise) arrives."""
        self.send(message)
        for _ in range(MAX_MESSAGES_PER_CALL):
            reply = self.receive()
            if reply["op"] in ("return", "raise"):
                return reply
            self.answer(reply)
        self.broken = f"more than {MAX_MESSAGES_PER_CALL} messages in one call"
        raise PeerFailure(self.broken)

    def call(self, ident: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Call the other side's callable `ident`; return its result or raise its exception."""
        if threading.get_ident() != self.owner:
            raise RuntimeError("only the main thread can call across to the grader")
        try:
            wire, nodes = encode([list(args), dict(kwargs)], self)
        except (CodecError, RecursionError) as error:
            raise TypeError(f"an argument cannot be sent to the other side: {error}") from None
        reply = self.request({"op": "call", "id": ident, "args": wire})
        try:
            if reply["op"] == "raise":
                raise self._rebuild(reply.get("error"))
            value, _ = decode(reply.get("value"), self, self.strict, nodes)
            if reply.get("sync") is not None:
                _apply_sync(nodes, decode(reply["sync"], self, self.strict, nodes)[0])
        except CodecError as error:
            self.broken = str(error)
            raise PeerFailure(self.broken) from None
        return value

    def answer(self, message: dict[str, Any]) -> None:
        """Answer one message of the other side: a call, or an operation of `handlers`."""
        op = message["op"]
        if op != "call":
            handler = self.handlers.get(op)
            if handler is None:
                self.broken = f"an unknown operation {op[:20]!r}"
                raise PeerFailure(self.broken)
            self.send(handler(message))
            return
        try:
            target = self.resolve(True, message.get("id"))  # type: ignore[arg-type]
            decoded, nodes = decode(message.get("args"), self, self.strict)
            if type(decoded) is not list or len(decoded) != 2:
                raise CodecError("a call whose arguments are not [args, kwargs]")
            args, kwargs = decoded
            if not callable(target) or type(args) is not list or type(kwargs) is not dict:
                raise CodecError("a call of something that is not callable")
        except CodecError as error:
            self.broken = str(error)
            raise PeerFailure(self.broken) from None
        before = _snapshot(nodes)
        try:
            call = self.on_call or (lambda fn, positional, named: fn(*positional, **named))
            result = call(target, tuple(args), kwargs)
        except PeerFailure:
            raise
        except BaseException as error:  # the callee's exception is the caller's business
            self.send({"op": "raise", "error": self.describe_error(error)})
            return
        origin = {id(node): index for index, node in enumerate(nodes)}
        try:
            value, _ = encode(result, self, origin)
            sync, _ = encode(_sync_state(nodes, _changed(nodes, before)), self, origin)
        except (CodecError, RecursionError) as error:
            self.send(
                {
                    "op": "raise",
                    "error": self.describe_error(TypeError(f"a result that cannot cross: {error}")),
                }
            )
            return
        self.send({"op": "return", "value": value, "sync": sync})

    def describe_error(self, error: BaseException) -> dict[str, Any]:
        """An exception as data: its classes (most derived first), message, args and simple attributes."""
        classes = [f"{cls.__module__}.{cls.__qualname__}" for cls in type(error).__mro__]
        try:
            message = str(error)[:20_000]
        except Exception:
            message = f"<{type(error).__name__}>"
        try:
            args, _ = encode(list(error.args), self)
            attributes, _ = encode(
                {k: v for k, v in vars(error).items() if type(k) is str and not k.startswith("_")}, self
            )
        except Exception:
            args, attributes = None, None
        return {"classes": classes[:30], "message": message, "args": args, "attributes": attributes}

    def _rebuild(self, error: Any) -> BaseException:
        """The exception the other side raised, as a class this side accepts."""
        if type(error) is not dict or type(error.get("classes")) is not list:
            return LearnerError("an exception that could not be read")
        message = str(error.get("message"))[:20_000]
        for path in error["classes"]:
            cls = self._error_class(str(path))
            if cls is None:
                continue
            try:
                args = (
                    decode(error["args"], self, self.strict)[0]
                    if error.get("args") is not None
                    else [message]
                )
                attributes = (
                    decode(error["attributes"], self, self.strict)[0] if error.get("attributes") else {}
                )
            except CodecError:
                args, attributes = [message], {}
            rebuilt = cls.__new__(cls)
            BaseException.__init__(rebuilt, *(args if type(args) is list else [message]))
            for name, value in (attributes if type(attributes) is dict else {}).items():
                with contextlib.suppress(Exception):
                    setattr(rebuilt, str(name), value)
            if str(rebuilt) != message and not self.strict:
                BaseException.__init__(rebuilt, message)
            return rebuilt
        return LearnerError(f"{str(error['classes'][0])[:100]}: {message}")

    def _error_class(self, path: str) -> type[BaseException] | None:
        if self.strict:
            return ALLOWED_ERRORS.get(path)
        module, _, name = path.rpartition(".")
        try:
            found = getattr(importlib.import_module(module), name)
        except Exception:
            return None
        return found if isinstance(found, type) and issubclass(found, BaseException) else None


def _contents(node: object) -> tuple[object, ...] | None:
    """The very objects a mutable container holds (keys, then values, for a dict), or None for others."""
    if type(node) is list:
        return tuple(node)
    if type(node) is dict:
        return (*node, None, *node.values())
    if type(node) is set:
        return tuple(node)
    if _mutable_record(node):
        return tuple(getattr(node, f.name) for f in dataclasses.fields(node))  # type: ignore[arg-type]
    return None


def _snapshot(nodes: list[object]) -> list[tuple[int, tuple[object, ...]]]:
    """What each mutable argument container holds before the call."""
    return [(index, found) for index, node in enumerate(nodes) if (found := _contents(node)) is not None]


def _changed(nodes: list[object], before: list[tuple[int, tuple[object, ...]]]) -> list[int]:
    """The containers that no longer hold the very same objects."""
    changed = []
    for index, old in before:
        new = _contents(nodes[index])
        if new is None or len(new) != len(old) or not all(map(operator.is_, old, new)):
            changed.append(index)
    return changed


def _sync_state(nodes: list[object], indices: list[int]) -> list[list[Any]]:
    """[index, contents] of the given argument containers, as they are after the call."""
    state: list[list[Any]] = []
    for index in indices:
        node = nodes[index]
        if type(node) is list or type(node) is set:
            state.append([index, list(node)])
        elif type(node) is dict:
            state.append([index, [list(pair) for pair in node.items()]])
        elif _mutable_record(node):
            state.append([index, {f.name: getattr(node, f.name) for f in dataclasses.fields(node)}])  # type: ignore[arg-type]
    return state


def _mutable_record(value: object) -> bool:
    """A dataclass instance that is not frozen."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return False
    return not type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]


def _apply_sync(nodes: list[object], state: object) -> None:
    """Bring the caller's containers to the state the callee left its copies in (only those that changed)."""
    if type(state) is not list:
        raise CodecError("a sync that is not a list")
    for entry in state:
        if (
            type(entry) is not list
            or len(entry) != 2
            or type(entry[0]) is not int
            or not 0 <= entry[0] < len(nodes)
        ):
            raise CodecError("a sync entry out of range")
        target, contents = nodes[entry[0]], entry[1]
        if type(target) is list and type(contents) is list:
            if len(target) != len(contents) or any(
                a is not b and a != b for a, b in zip(target, contents, strict=True)
            ):
                target[:] = contents
        elif type(target) is dict and type(contents) is list:
            pairs = [tuple(pair) for pair in contents if type(pair) is list and len(pair) == 2]
            if list(target.items()) != pairs or any(
                a[1] is not b[1] for a, b in zip(target.items(), pairs, strict=False)
            ):
                target.clear()
                target.update(pairs)
        elif type(target) is set and type(contents) is list:
            if target != set(contents):
                target.clear()
                target.update(contents)
        elif dataclasses.is_dataclass(target) and type(contents) is dict:
            known = {f.name for f in dataclasses.fields(target)}
            for name, value in contents.items():
                if name in known and getattr(target, name) is not value:
                    object.__setattr__(target, name, value)
