"""Message threads (the `thread` beta on `/v1/messages`): the server holds a conversation under a reply's id.

`{"type": "create"}` asks the server to keep the conversation (its messages, `system` and `tools`) under
the reply's `id`; `{"type": "continue", "previous_message_id": id}` sends only the new messages, and the
server prepends what it holds (a continue must not repeat `system` or `tools`). An unknown or evicted id
is a 404 whose `error.details.error_code` is `thread_not_found`: the SDKs then replay the whole history.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from course_lib.errors import WireError
from course_lib.wire.common import require

MAX_THREADS = 1_000
"""How many thread states one stand-in keeps before it evicts the oldest."""

CREATE_ONLY_FIELDS = ("system", "tools")
"""Fields a `continue` takes from the thread and must not repeat."""


class ThreadNotFound(WireError):
    """No thread state is held for `previous_message_id` (never created, or evicted)."""

    def __init__(self, previous_message_id: str) -> None:
        super().__init__(
            f"No thread found for previous_message_id {previous_message_id[:120]!r}: "
            "replay the whole conversation with thread {'type': 'create'}",
            status=404,
            param="thread.previous_message_id",
            code="thread_not_found",
        )


def not_found_envelope(message: str) -> dict[str, Any]:
    """The documented 404 for a lost thread: a not_found_error with `details.error_code` thread_not_found."""
    return {"type": "error", "error": {"type": "not_found_error", "message": message,
                                       "details": {"error_code": "thread_not_found"}}}  # fmt: skip


@dataclass(frozen=True)
class HeldThread:
    """What the server holds for one reply: the fields the thread was created with, and every message so far."""

    fields: dict[str, Any]
    messages: list[Any]


def read_thread(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The request's `thread` field, checked: None, {"type": "create"} or {"type": "continue", ...}."""
    thread = body.get("thread")
    if thread is None:
        return None
    require(isinstance(thread, dict), "thread: Input should be an object", "thread")
    assert isinstance(thread, dict)
    kind = thread.get("type")
    require(
        kind in ("create", "continue"), "thread.type: Input should be 'create' or 'continue'", "thread.type"
    )
    if kind == "continue":
        previous = thread.get("previous_message_id")
        require(type(previous) is str and previous != "", "thread.previous_message_id: Field required",
                "thread.previous_message_id")  # fmt: skip
        for name in CREATE_ONLY_FIELDS:
            require(name not in body, f"{name}: not allowed with thread 'continue': the thread keeps its own",
                    name)  # fmt: skip
    return thread


class ThreadStore:
    """Thread states by reply id, capped in count with the oldest evicted; safe to use from many threads."""

    def __init__(self, max_threads: int = MAX_THREADS) -> None:
        self.max_threads = max_threads
        self._threads: OrderedDict[str, HeldThread] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._threads)

    def clear(self) -> None:
        """Forget every thread."""
        with self._lock:
            self._threads.clear()

    def effective_body(self, body: dict[str, Any], thread: Mapping[str, Any] | None) -> dict[str, Any]:
        """The request as the model sees it: on a `continue`, the held fields and messages come first."""
        if thread is None or thread["type"] == "create":
            return body
        with self._lock:
            held = self._threads.get(thread["previous_message_id"])
        if held is None:
            raise ThreadNotFound(thread["previous_message_id"])
        messages = body.get("messages", [])
        require(isinstance(messages, list), "messages: Input should be a valid list", "messages")
        return {**body, **held.fields, "messages": [*held.messages, *messages]}

    def hold(self, effective: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        """Keep the conversation, the reply included, under the reply's id."""
        fields = {name: copy.deepcopy(effective[name]) for name in CREATE_ONLY_FIELDS if name in effective}
        answer = {"role": "assistant", "content": copy.deepcopy(reply["content"])}
        held = HeldThread(fields, [*copy.deepcopy(effective["messages"]), answer])
        with self._lock:
            self._threads[reply["id"]] = held
            while len(self._threads) > self.max_threads:
                self._threads.popitem(last=False)
