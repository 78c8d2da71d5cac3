"""Calls across the pipe, both ways: a call may call back, and the callback may call again, to any depth.

Each side holds an `Endpoint`. `call(ident, args, kwargs)` sends the arguments as data (callables as
references the other side calls back), then serves whatever arrives until the answer: nested calls run
here and answer in turn. The callee sends back the result, with references to the caller's own objects where
it returns what it was given, and the final state of the mutable arguments (a function that fills a list it
was passed fills the caller's list). Exceptions cross by class: the strict (trusted) side rebuilds only the
classes of an allow-list and turns any other into a `LearnerError`. Any thread of either side may call:
messages carry their conversation, and one reader thread per side hands each to the thread waiting for it
(see `Endpoint`). The learner's classes and their instances cross as references (`objects`).

It is longer than ~350 lines because `Endpoint` is one state machine: one reader thread, conversations,
calls nested to any depth, the arguments' state sent back, errors crossing by class; its methods share its
lock and queues. What crosses is apart: values in `codec`, the learner's classes and objects in `objects`.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib
import itertools
import operator
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from course_grade.score.trusted.pipe import objects, protocol
from course_grade.score.trusted.pipe.codec import CodecError, decode, encode

MAX_MESSAGES_PER_CALL = 100_000
"""How many messages (callbacks included) one call may exchange before it is refused."""

ALLOWED_ERRORS = {
    f"builtins.{name}": getattr(builtins, name)
    for name in (
        "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError", "KeyError",
        "LookupError", "NameError", "NotImplementedError", "OverflowError", "RecursionError", "RuntimeError",
        "StopIteration", "TypeError", "UnicodeError", "ValueError", "ZeroDivisionError", "TimeoutError",
        "OSError", "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError",
        "KeyboardInterrupt", "SystemExit",
    )
}  # fmt: skip
"""The exception classes the trusted side rebuilds by name (course_lib.errors' classes are added below).
`KeyboardInterrupt` and `SystemExit` are among them because 05 grades that they pass through `run_tool_call`;
the trusted runner catches every `BaseException` a learner's call raises (`runner._Run`), so a rebuilt one ends
a test cell, never the grader."""


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


IDLE_THREADS = 16
"""How many serving threads wait idle for the other side's next conversation; more end when they finish."""

MAX_CONVERSATIONS = 128
"""How many calls the learner may have open at once from threads of its own (the trusted side serves each on a
thread); the learner's side serves the trusted side's threads without a limit (a pack may run many)."""


@dataclasses.dataclass
class Endpoint:
    """One side of the pipe: its exported callables, its limits, and how strictly it reads the other side.

    Any thread may call across. Every message belongs to a conversation: a top-level call from one thread
    and the callbacks nested in it, which run in the threads already in that conversation, one at a time.
    One reader thread (`start`) takes every message off the pipe and hands it to the thread waiting in its
    conversation; a new conversation of the other side's main thread goes to `main_queue` (the learner's
    main thread serves it), one of any other thread gets a thread of its own here.
    """

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
    """Held for each message sent (one message at a time on the pipe) and for the tables below."""
    owner: int = dataclasses.field(default_factory=threading.get_ident)
    """The main thread: its new conversations are served by the other side's main thread."""
    main_queue: queue.SimpleQueue[dict[str, Any] | None] = dataclasses.field(
        default_factory=queue.SimpleQueue
    )
    """New conversations of the other side's main thread, for this side's main thread (None: the pipe broke)."""
    _waiting: dict[str, queue.SimpleQueue[dict[str, Any] | None]] = dataclasses.field(default_factory=dict)
    _depth: dict[str, int] = dataclasses.field(default_factory=dict)
    _local: threading.local = dataclasses.field(default_factory=threading.local)
    _count: itertools.count[int] = dataclasses.field(default_factory=itertools.count)
    _served: int = 0
    _idle: list[queue.SimpleQueue[dict[str, Any] | None]] = dataclasses.field(default_factory=list)
    """The inboxes of the serving threads waiting for a new conversation."""
    _reader: threading.Thread | None = None
    _proxies: dict[tuple[str, int], object] = dataclasses.field(default_factory=dict)

    @property
    def keeps_iterators(self) -> bool:
        """The learner's side sends an iterator as an opaque value; the trusted side drains its own."""
        return not self.strict

    # ---- the codec's view of references ----------------------------------------------------------------
    def export(self, value: object) -> int:
        """An id for one of this side's callables (the same id for the same object)."""
        with self.lock:
            if id(value) not in self._by_object:
                ident = len(self.exports) + 1
                self.exports[ident], self._by_object[id(value)] = value, ident
            return self._by_object[id(value)]

    @property
    def shares_objects(self) -> bool:
        """The learner's side keeps its classes and their instances, and sends references to them."""
        return not self.strict

    def remote_id(self, value: object) -> int | None:
        """The other side's id for a proxy of this endpoint."""
        if type(value) is Remote:  # the real class: a learner's object may fake `__class__`
            return value._ident if value._endpoint is self else None
        return objects.remote_ident(value, self)

    def remote_class(self, ident: int, name: str, methods: list[str]) -> object:
        """The one class proxy of the learner's class `ident`."""
        with self.lock:
            if ("class", ident) not in self._proxies:
                self._proxies["class", ident] = objects.remote_class(self, ident, name, methods)
            return self._proxies["class", ident]

    def remote_instance(self, ident: int, cls: object) -> object:
        """The one proxy of the learner's object `ident`."""
        with self.lock:
            if ("instance", ident) not in self._proxies:
                self._proxies["instance", ident] = objects.remote_instance(self, ident, cls)
            return self._proxies["instance", ident]

    def resolve(self, mine: bool, ident: int) -> object:
        """This side's object, or a proxy for the other side's."""
        if mine:
            if ident not in self.exports:
                raise CodecError(f"a reference to an object this side never sent ({ident})")
            return self.exports[ident]
        return Remote(self, ident)

    # ---- messages ----------------------------------------------------------------------------------------
    def start(self) -> Endpoint:
        """Start the reader thread (once)."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read, name="pipe-reader", daemon=True)
            self._reader.start()
        return self

    def _read(self) -> None:
        """Take every message off the pipe and hand it on, until the pipe breaks."""
        while self.broken is None:
            try:
                message = protocol.receive(self.read_fd, None, self.limit)
                conversation = message.get("c") if type(message) is dict else None
                if (
                    type(conversation) is not str
                    or len(conversation) > 40
                    or type(message.get("op")) is not str
                ):
                    raise protocol.ProtocolError("a message without an op or a conversation")
            except protocol.ProtocolError as error:
                self._break(str(error))
                return
            with self.lock:
                waiting = self._waiting.get(conversation)
                if waiting is None and message.get("r"):
                    continue  # the answer of a conversation given up on: nobody wants it any more
                if waiting is None:
                    waiting = self._enter(conversation)
                    if self.strict or not message.get("m"):  # the trusted side's main thread serves no queue
                        if self.strict and self._served >= MAX_CONVERSATIONS:
                            self._break(
                                f"more than {MAX_CONVERSATIONS} calls open at once from other threads"
                            )
                            return
                        self._served += 1
                        self._hand_over(message)
                        continue
                    self.main_queue.put(message)
                    continue
            waiting.put(message)

    def _break(self, reason: str) -> None:
        """Mark the pipe unusable and wake every thread waiting on it."""
        with self.lock:
            if self.broken is None:
                self.broken = reason
            for waiting in [*self._waiting.values(), *self._idle]:
                waiting.put(None)
            self._idle.clear()
            self.main_queue.put(None)

    def _hand_over(self, message: dict[str, Any]) -> None:
        """Serve a new conversation on an idle serving thread, or a new one (call with the lock held)."""
        if self._idle:
            self._idle.pop().put(message)
        else:
            threading.Thread(target=self._serving, args=(message,), name="serving", daemon=True).start()

    def _serving(self, message: dict[str, Any] | None) -> None:
        """A serving thread: serve a conversation, then wait idle for the next one (starting a thread costs
        more than a round trip, and a pack of many threads opens a conversation for each of its calls)."""
        inbox: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        while message is not None:
            self._serve(message)
            with self.lock:
                if self.broken is not None or len(self._idle) >= IDLE_THREADS:
                    return
                self._idle.append(inbox)
            message = inbox.get()

    def _enter(self, conversation: str) -> queue.SimpleQueue[dict[str, Any] | None]:
        """Take part in a conversation (its queue made on entry; call with the lock held)."""
        self._depth[conversation] = self._depth.get(conversation, 0) + 1
        return self._waiting.setdefault(conversation, queue.SimpleQueue())

    def _leave(self, conversation: str) -> None:
        with self.lock:
            self._depth[conversation] -= 1
            if not self._depth[conversation]:
                del self._depth[conversation], self._waiting[conversation]

    def _stack(self) -> list[str]:
        stack: list[str] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def _serve(self, message: dict[str, Any]) -> None:
        """Serve a new conversation of the other side in this thread (its queue already made)."""
        conversation = str(message["c"])
        self._stack().append(conversation)
        try:
            self.answer(message)
        except BaseException as error:  # a broken pipe: nothing more to say
            if not isinstance(error, PeerFailure):
                self._break(f"{type(error).__name__} while answering")
        finally:
            self._stack().pop()
            self._leave(conversation)
            if not message.get("m"):
                with self.lock:
                    self._served -= 1

    def serve_main(self) -> None:
        """Serve the other side's main thread in this thread (the learner's main loop), until the pipe breaks."""
        while True:
            message = self.main_queue.get()
            if message is None or self.broken is not None:
                return
            self._serve(message)

    def send(self, message: dict[str, Any]) -> None:
        """Send one message in this thread's conversation (a failure breaks the endpoint)."""
        self._usable()
        stack = self._stack()
        if stack and "c" not in message:
            message = {**message, "c": stack[-1]}
        try:
            with self.lock:
                protocol.send(self.write_fd, message, self.limit)
        except protocol.ProtocolError as error:
            self._break(str(error))
            raise PeerFailure(str(error)) from None

    def _usable(self) -> None:
        if self.broken is not None:
            raise PeerFailure(self.broken)

    def _next(self, waiting: queue.SimpleQueue[dict[str, Any] | None]) -> dict[str, Any]:
        """The next message of this thread's conversation, within the timeout and the deadline."""
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        if self.deadline is not None:
            deadline = self.deadline if deadline is None else min(deadline, self.deadline)
        try:
            message = waiting.get(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self._break("no answer before the deadline")
            raise PeerFailure("no answer before the deadline") from None
        if message is None:
            raise PeerFailure(self.broken or "the pipe broke")
        return message

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message and serve the other side's calls until its reply (return or raise) arrives."""
        self._usable()
        if self._reader is None:
            self.start()
        stack = self._stack()
        if stack:
            conversation = stack[-1]
        else:
            conversation = f"{'t' if self.strict else 'l'}{next(self._count)}"
            message = {**message, "m": threading.get_ident() == self.owner}
        with self.lock:
            waiting = self._enter(conversation)
        stack.append(conversation)
        try:
            self.send({**message, "c": conversation})
            for _ in range(MAX_MESSAGES_PER_CALL):
                reply = self._next(waiting)
                if reply.get("r"):
                    return reply
                self.answer(reply)
            self._break(f"more than {MAX_MESSAGES_PER_CALL} messages in one call")
            raise PeerFailure(str(self.broken))
        finally:
            stack.pop()
            self._leave(conversation)

    def call(
        self,
        ident: int,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        attr: str | None = None,
        how: str = "call",
    ) -> Any:
        """Call the other side's callable `ident` (or its method `attr`, or get or set that attribute)."""
        try:
            wire, nodes = encode([list(args), dict(kwargs)], self)
        except (CodecError, RecursionError) as error:
            raise TypeError(f"an argument cannot be sent to the other side: {error}") from None
        message: dict[str, Any] = {"op": "call", "id": ident, "args": wire}
        if attr is not None:
            message.update(attr=attr, how=how)
        reply = self.request(message)
        try:
            if reply["op"] == "raise":
                raise self._rebuild(reply.get("error"))
            value, _ = decode(reply.get("value"), self, self.strict, nodes)
            if reply.get("sync") is not None:
                _apply_sync(nodes, decode(reply["sync"], self, self.strict, nodes)[0])
        except CodecError as error:
            self._break(str(error))
            raise PeerFailure(str(self.broken)) from None
        return value

    def answer(self, message: dict[str, Any]) -> None:
        """Answer one message of the other side: a call, or an operation of `handlers`."""
        op = message["op"]
        if op != "call":
            handler = self.handlers.get(op)
            if handler is None:
                self._break(f"an unknown operation {op[:20]!r}")
                raise PeerFailure(str(self.broken))
            self.send({**handler(message), "r": True})
            return
        try:
            target = self.resolve(True, message.get("id"))  # type: ignore[arg-type]
            decoded, nodes = decode(message.get("args"), self, self.strict)
            if type(decoded) is not list or len(decoded) != 2:
                raise CodecError("a call whose arguments are not [args, kwargs]")
            args, kwargs = decoded
            attr, how = message.get("attr"), message.get("how", "call")
            if attr is not None and (
                self.strict or type(attr) is not str or how not in ("call", "get", "set")
            ):
                raise CodecError("an attribute of an object of the grader's asked for")
            if type(args) is not list or type(kwargs) is not dict:
                raise CodecError("a call whose arguments are not [args, kwargs]")
            if attr is None and not callable(target):
                raise CodecError("a call of something that is not callable")
        except CodecError as error:
            self._break(str(error))
            raise PeerFailure(str(self.broken)) from None
        before = _snapshot(nodes)
        try:
            call = self.on_call or (lambda fn, positional, named: fn(*positional, **named))
            result: Any = None
            if attr is None:
                result = call(target, tuple(args), kwargs)  # type: ignore[arg-type]
            elif how == "get":
                result = getattr(target, attr)
            elif how == "set":
                setattr(target, attr, *args[:1])
            else:
                result = call(getattr(target, attr), tuple(args), kwargs)
        except PeerFailure:
            raise
        except BaseException as error:  # the callee's exception is the caller's business
            self.send({"op": "raise", "error": self.describe_error(error), "r": True})
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
                    "r": True,
                }
            )
            return
        self.send({"op": "return", "value": value, "sync": sync, "r": True})

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
