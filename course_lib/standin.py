"""A local stand-in for the model API: documented wire shapes on 127.0.0.1, a scripted model behind them.

    with StandIn([("calls", [("get_weather", '{"city": "Paris", "unit": "celsius"}')]), ("text", "15 C")]) as server:
        client = OpenAI(base_url=server.base, api_key="stand-in")

Routes: POST /v1/chat/completions, POST /v1/responses and (Anthropic) POST /v1/messages; each answers
`stream: true` with `text/event-stream`, the same answer cut into the route's documented events.
Stored state, per server and bounded: stored responses (`previous_response_id`, `item_reference`,
GET/DELETE /v1/responses/{id}, its input_items), /v1/conversations, and message threads on /v1/messages.
Rejected requests answer with the documented error envelope and never consume a script step; every
error carries `x-should-retry: false` so an SDK's automatic retries cannot eat scripted turns. Ids count
up per server and timestamps come from a fixed clock, so the same script gives byte-identical bodies.

It is longer than ~350 lines because it is one server: `StandIn` (the routes, the stored state, the script)
and the HTTP layer serving it (`_Server`, `_Handler`) share `Answer` and the error envelope; what each route
reads and writes is already apart (`course_lib.wire`: the formats, the stores, SSE; `course_lib.scripted`).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import selectors
import socket
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

from course_lib.errors import ScriptError, WireError
from course_lib.scripted import Decision, FunctionModel, Model, ScriptedModel, Step, echo
from course_lib.wire import chat, conversations, messages, responses, strict_json, threads
from course_lib.wire.common import Conversation, Counters, StreamRequest, error_envelope, read_stream
from course_lib.wire.sse import Event, encode
from course_lib.wire.store import MAX_RESPONSES, ResponseStore, item_list, with_id

MAX_BODY_BYTES = 1_000_000
"""Bodies larger than this are refused from their Content-Length, before a byte of them is read."""

READ_TIMEOUT_SECONDS = 10.0
"""A client that stops sending mid-body is cut off after this long, so no handler thread waits forever."""

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "invalid_request_error", 405: "invalid_request_error", 411: "invalid_request_error",
               413: "invalid_request_error", 429: "rate_limit_error"}  # fmt: skip


class Exchange(NamedTuple):
    """One request the stand-in received: its path, its JSON body (None if it was not JSON) and the status sent."""

    path: str
    body: Any
    status: int


class Answer(NamedTuple):
    """What the stand-in sends back: a status, a JSON payload and, for a stream, the events that carry it."""

    status: int
    payload: dict[str, Any]
    close: bool = False
    events: list[Event] | None = None
    """For `stream: true`: the payload cut into server-sent events (the payload is what they assemble to)."""


def error_answer(status: int, message: str, param: str | None = None, code: str | None = None) -> Answer:
    """An answer carrying the documented error envelope for this status."""
    kind = ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return Answer(status, error_envelope(message, kind=kind, param=param, code=code))


ROUTES = {"/v1/chat/completions": chat, "/v1/responses": responses, "/v1/messages": messages}


def in_route_format(path: str, answer: Answer) -> Answer:
    """An error answer in the error envelope its route documents (Anthropic's differs from OpenAI's)."""
    if not path.startswith("/v1/messages") or answer.status < 400 or "type" in answer.payload:
        return answer
    return answer._replace(payload=messages.error_envelope(answer.status, answer.payload["error"]["message"]))


class StandIn:
    """An HTTP server on 127.0.0.1 (port chosen by the OS) that answers like the model API, from a script."""

    def __init__(
        self,
        script: Iterable[Step] = (),
        *,
        model: Callable[[Conversation], Step] | None = None,
        reasoning: bool = False,
        port: int = 0,
        max_body_bytes: int = MAX_BODY_BYTES,
        store: bool = True,
        max_stored: int = MAX_RESPONSES,
    ) -> None:
        self.log: list[Exchange] = []
        """Every request that reached a route, in order."""
        self.server_errors: list[str] = []
        """Details of script failures, kept here rather than sent to the client in full."""
        self.reasoning = reasoning
        """Act like a reasoning model: a reasoning item precedes function calls and must be replayed."""
        self.max_body_bytes = max_body_bytes
        self.store_enabled = store
        """Keep responses sent with `store` true (the default); off, nothing is kept and every id is unknown."""
        self.stored = ResponseStore(max_responses=max_stored)
        """The stored responses (`previous_response_id`, `item_reference`, `GET /v1/responses/{id}`).

        It, the conversations and the threads each keep at most `max_stored` entries, evicting the oldest."""
        self.conversations = conversations.ConversationStore(max_conversations=max_stored)
        """The conversations (`/v1/conversations`, `conversation` on a responses request)."""
        self.threads = threads.ThreadStore(max_threads=max_stored)
        """The message threads (`thread` on /v1/messages): the conversation held under each reply's id."""
        self._lock = threading.Lock()
        self._function = model
        self._reset_state(script)
        self._httpd = _Server(("127.0.0.1", port), _handler_for(self))
        self.port: int = self._httpd.server_address[1]
        self.root = f"http://127.0.0.1:{self.port}"
        """The server's root URL: what `anthropic.Anthropic(base_url=...)` takes."""
        self.base = f"{self.root}/v1"
        """The base URL to give an OpenAI client: it ends in /v1."""
        self._thread = threading.Thread(target=self._httpd.serve_until_stopped, name="stand-in", daemon=True)
        self._thread.start()

    def _reset_state(self, script: Iterable[Step]) -> None:
        self.model: Model = FunctionModel(self._function) if self._function else ScriptedModel(script)
        self.counters = Counters()
        self.reasoning_for: dict[str, str] = {}
        self.sealed: set[str] = set()
        self.stored.clear()
        self.conversations.clear()
        self.threads.clear()
        self.log.clear()
        self.server_errors.clear()

    def reset(self, script: Iterable[Step] = ()) -> None:
        """Start over with a new script: empty log and store, ids and clock back to the start."""
        with self._lock:
            self._reset_state(script)

    def close(self) -> None:
        """Stop serving and release the port (at once: no poll interval to wait out)."""
        self._httpd.stop()
        self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def remaining_steps(self) -> int:
        """Script steps not yet taken (0 for a function model)."""
        return len(self.model.steps) if isinstance(self.model, ScriptedModel) else 0

    def handle(self, method: str, path: str, raw: bytes) -> Answer:
        """Answer one request; pure of sockets, so tests can call it directly."""
        path, _, query = path.partition("?")
        if path.startswith("/v1/responses/"):
            return self._stored_route(method, path, query)
        if path == "/v1/conversations" or path.startswith("/v1/conversations/"):
            return self._conversation_route(method, path, query, raw)
        route = ROUTES.get(path)
        if route is None:
            return error_answer(404, f"Invalid URL ({method} {path[:200]})", code="unknown_url")
        if method != "POST":
            return error_answer(
                405, f"{method} is not allowed on {path}; use POST", code="method_not_allowed"
            )
        body = _parse_json(raw)
        with self._lock:
            answer = body if isinstance(body, Answer) else self._answer(route, body)
            self.log.append(Exchange(path, None if isinstance(body, Answer) else body, answer.status))
        return in_route_format(path, answer)

    def _stored_route(self, method: str, path: str, query: str) -> Answer:
        """GET or DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items."""
        response_id, _, rest = path.removeprefix("/v1/responses/").partition("/")
        allowed = {"": ("GET", "DELETE"), "input_items": ("GET",)}.get(rest)
        with self._lock:
            answer = self._stored_answer(method, response_id, rest, query, allowed)
            self.log.append(Exchange(path, None, answer.status))
        return answer

    def _stored_answer(
        self, method: str, response_id: str, rest: str, query: str, allowed: tuple[str, ...] | None
    ) -> Answer:
        if allowed is None or response_id == "":
            return error_answer(404, f"Invalid URL ({method} /v1/responses/{response_id}/{rest[:100]})",
                                code="unknown_url")  # fmt: skip
        if method not in allowed:
            return error_answer(405, f"{method} is not allowed here; use {' or '.join(allowed)}",
                                code="method_not_allowed")  # fmt: skip
        try:
            stored = self.stored.get(response_id)
            if rest == "input_items":
                return Answer(200, item_list(stored.input, urllib.parse.parse_qs(query)))
            if method == "DELETE":
                self.stored.delete(response_id)
                return Answer(200, {"id": response_id, "object": "response", "deleted": True})
        except WireError as error:
            return error_answer(error.status, error.message, error.param, error.code)
        return Answer(200, copy.deepcopy(stored.payload))

    def _conversation_route(self, method: str, path: str, query: str, raw: bytes) -> Answer:
        """Everything under /v1/conversations."""
        body = _parse_json(raw) if method == "POST" else None
        with self._lock:
            if isinstance(body, Answer):
                answer = body
            elif not self.store_enabled:
                answer = error_answer(
                    400, "this stand-in keeps no state (StandIn(store=False))", code="store_disabled"
                )
            else:
                parts = [part for part in path.removeprefix("/v1/conversations").split("/") if part]
                try:
                    answer = Answer(200, self.conversations.route(method, parts, body, urllib.parse.parse_qs(query),
                                                                  self.counters, self.stored))  # fmt: skip
                except WireError as error:
                    answer = error_answer(error.status, error.message, error.param, error.code)
            self.log.append(Exchange(path, None if isinstance(body, Answer) else body, answer.status))
        return answer

    def _answer(self, route: Any, body: dict[str, Any]) -> Answer:
        prior: list[Any] = []
        new_items: list[Any] = []
        conversation_id: str | None = None
        thread: dict[str, Any] | None = None
        try:
            if route is responses:
                conversation_id = conversations.conversation_id(body)
                prior, new_items = self.stored.history(body, responses.input_items(body))
                if conversation_id is not None:
                    prior = list(self._conversation(conversation_id).items)
                conversation = responses.read_request(
                    body, self.reasoning_for, self.sealed, history=prior + new_items
                )
            elif route is messages:
                thread = threads.read_thread(body)
                body = self.threads.effective_body(body, thread)
                conversation = messages.read_request(body)
            else:
                conversation = route.read_request(body)
            stream = read_stream(body, options=route is chat)
        except threads.ThreadNotFound as error:
            return Answer(404, threads.not_found_envelope(error.message))
        except WireError as error:
            return error_answer(error.status, error.message, error.param, error.code)
        try:
            decision = self.model.decide(conversation)
        except ScriptError as error:
            self.server_errors.append(str(error))
            return error_answer(500, f"stand-in {error}", code="script_error")
        except Exception as error:  # the script's own function raised: a 500, never a dropped connection
            self.server_errors.append(f"{type(error).__name__}: {error}")
            return error_answer(500, f"stand-in script step raised {type(error).__name__}: {error}"[:500],
                                code="script_error")  # fmt: skip
        answer = self._render(route, body, decision)
        if route is responses and answer.status == 200:
            self._keep(answer.payload, prior, new_items, conversation_id, responses.read_store(body))
        if thread is not None and answer.status == 200 and self.store_enabled:
            self.threads.hold(body, answer.payload)
        return _streamed(route, answer, stream) if stream.stream and answer.status == 200 else answer

    def _conversation(self, conversation_id: str) -> conversations.StoredConversation:
        if not self.store_enabled:
            raise WireError(f"Conversation with id {conversation_id[:120]!r} not found.", status=404,
                            param="conversation")  # fmt: skip
        return self.conversations.get(conversation_id, "conversation")

    def _keep(
        self, payload: dict[str, Any], prior: list[Any], new_items: list[Any], conversation_id: str | None,
        store: bool,
    ) -> None:  # fmt: skip
        """Store a completed response (when asked and allowed) and append its items to its conversation."""
        if conversation_id is not None:
            payload["conversation"] = {"id": conversation_id}
            new_items = [with_id(item, self.counters) for item in new_items]
            self.conversations.append(conversation_id, [*new_items, *copy.deepcopy(payload["output"])])
        if self.store_enabled and store:
            self.stored.put(payload, prior, new_items, self.counters)

    def _render(self, route: Any, body: dict[str, Any], decision: Decision) -> Answer:
        if decision.kind == "error":
            return error_answer(decision.status, decision.text, code="scripted_error")
        if decision.kind == "text":
            return Answer(200, route.answer_with_text(body, decision.text, self.counters))
        if route is not responses:
            return Answer(200, route.answer_with_calls(body, decision.calls, self.counters))
        reasoning_for = self.reasoning_for if self.reasoning else None
        return Answer(
            200, responses.answer_with_calls(body, decision.calls, self.counters, reasoning_for, self.sealed)
        )


def _streamed(route: Any, answer: Answer, stream: StreamRequest) -> Answer:
    """The same answer, carried by the route's documented stream of events."""
    if route is chat:
        return answer._replace(events=chat.stream_events(answer.payload, stream.include_usage))
    return answer._replace(events=route.stream_events(answer.payload))


class _Server(ThreadingHTTPServer):
    """A threading server with room for dozens of clients connecting at once, which stops without delay.

    `serve_forever` notices a shutdown only when its poll interval runs out (50 ms a server, which a pack
    of hundreds of short runs pays each time); here a wake-up socket ends the wait the moment `stop` is called.
    """

    request_queue_size = 128
    daemon_threads = True

    def server_activate(self) -> None:
        super().server_activate()
        self._stopping = False
        self._wake_reader, self._wake_writer = socket.socketpair()

    def serve_until_stopped(self) -> None:
        """Accept and dispatch connections until `stop` is called."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_reader, selectors.EVENT_READ)
            while not self._stopping:
                for key, _ in selector.select():
                    if key.fileobj is self and not self._stopping:
                        self._accept_one()

    def _accept_one(self) -> None:
        """Accept one waiting connection and hand it to a handler thread (what serve_forever does per wake-up)."""
        try:
            request, address = self.get_request()
        except OSError:  # the client left before we accepted
            return
        try:
            self.process_request(request, address)
        except Exception:
            self.handle_error(request, address)
            self.shutdown_request(request)

    def stop(self) -> None:
        """End `serve_until_stopped` now (safe from any thread, and more than once)."""
        self._stopping = True
        with contextlib.suppress(OSError):
            self._wake_writer.send(b"x")

    def server_close(self) -> None:
        super().server_close()
        self._wake_reader.close()
        self._wake_writer.close()


def _parse_json(raw: bytes) -> dict[str, Any] | Answer:
    """The request body as a JSON object, or the 400 answer saying why it is not one."""
    try:
        body = strict_json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return error_answer(400, "We could not parse the JSON body of your request: it is not UTF-8.")
    except (ValueError, RecursionError) as error:
        reason = "it is nested too deeply" if isinstance(error, RecursionError) else str(error)[:200]
        return error_answer(400, f"We could not parse the JSON body of your request: {reason}.")
    if not isinstance(body, dict):
        return error_answer(400, "The body of your request must be a JSON object.")
    return body


class _Handler(BaseHTTPRequestHandler):
    """One HTTP exchange with the StandIn `stand_in`: read the body, let the stand-in answer, send it back."""

    stand_in: StandIn  # set by `_handler_for` on a subclass bound to one StandIn
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT_SECONDS
    disable_nagle_algorithm = True  # headers, then body: no 40 ms delayed-ACK stall between them

    def log_message(self, format: str, *args: Any) -> None:  # quiet: never print ports or times
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except ConnectionError:  # the client gave up (say, on its own timeout): nobody to answer
            self.close_connection = True

    def _send_events(self, events: list[Event]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-request-id", f"req_{len(self.stand_in.log)}")
        self.end_headers()
        for event in events:  # one HTTP chunk per event; a client that hangs up ends the loop here
            data = encode(event)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _send(self, answer: Answer) -> None:
        if answer.events is not None:
            self._send_events(answer.events)
            return
        data = json.dumps(answer.payload).encode("utf-8")
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{len(self.stand_in.log)}")
        if answer.status >= 400:
            self.send_header("x-should-retry", "false")
        if answer.close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> bytes | Answer:
        length = self.headers.get("Content-Length")
        if length is None:
            kind = (
                "chunked bodies are not supported"
                if self.headers.get("Transfer-Encoding")
                else "it is missing"
            )
            return error_answer(411, f"Content-Length is required ({kind}).")._replace(close=True)
        if not length.strip().isdigit():
            return error_answer(400, "Content-Length is not a whole number.")._replace(close=True)
        size = int(length)
        if size > self.stand_in.max_body_bytes:
            message = (
                f"Request body too large: {size} bytes; the limit is {self.stand_in.max_body_bytes} bytes."
            )
            return error_answer(413, message, code="request_too_large")._replace(close=True)
        data = self.rfile.read(size)
        if len(data) < size:
            return error_answer(400, "The request body ended early.")._replace(close=True)
        return data

    def _serve(self, method: str) -> None:
        try:
            raw = self._read_body() if method == "POST" else b""
            answer = raw if isinstance(raw, Answer) else self.stand_in.handle(method, self.path, raw)
        except TimeoutError:
            self.close_connection = True
            return
        except Exception as error:  # a bug in the stand-in itself: still an answer, never a dead thread
            answer = error_answer(500, f"stand-in failed: {type(error).__name__}", code="internal_error")
        self._send(in_route_format(self.path.split("?", 1)[0], answer))

    def do_POST(self) -> None:
        self._serve("POST")

    def do_GET(self) -> None:
        self._serve("GET")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_DELETE(self) -> None:
        self._serve("DELETE")


def _handler_for(server: StandIn) -> type[BaseHTTPRequestHandler]:
    """A request-handler class bound to one StandIn."""
    return type("Handler", (_Handler,), {"stand_in": server})


def load_script(steps: object) -> list[Step]:
    """Turn a JSON script ([{"calls": [[name, args], ...]} | {"text": str} | {"error": [status, msg]}]) into steps."""
    if not isinstance(steps, list):
        raise ValueError("a JSON script is a list of steps")
    script: list[Step] = []
    for i, step in enumerate(steps):
        if not isinstance(step, Mapping) or len(step) != 1:
            raise ValueError(f"step {i}: expected one of {{'calls': ...}}, {{'text': ...}}, {{'error': ...}}")
        ((kind, value),) = step.items()
        if kind == "calls" and isinstance(value, list):
            script.append(("calls", [tuple(call) for call in value]))
        elif kind == "text":
            script.append(("text", value))
        elif kind == "error" and isinstance(value, list) and len(value) == 2:
            script.append(("error", value[0], value[1]))
        else:
            raise ValueError(f"step {i}: unknown or malformed step {kind!r}")
    return script


def main(argv: list[str] | None = None) -> None:
    """Run a stand-in until interrupted: `python -m course_lib.standin --port 8765 --script steps.json`."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.standin", description=main.__doc__)
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: let the OS choose)")
    parser.add_argument("--script", help="a JSON file of steps; without it the model echoes the user")
    parser.add_argument("--reasoning", action="store_true", help="act like a reasoning model")
    args = parser.parse_args(argv)
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            server = StandIn(load_script(json.load(handle)), port=args.port, reasoning=args.reasoning)
    else:
        server = StandIn(model=echo, port=args.port, reasoning=args.reasoning)
    print(f"stand-in listening on {server.base} (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
