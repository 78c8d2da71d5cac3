"""Conversations (`/v1/conversations`): server-side item lists a response can belong to, bounded per server.

`POST /v1/conversations` creates one (with up to 20 initial items); a response created with
`conversation` sees its items before its own input, and its input and output are appended after it
completes. The item routes list, add, get and delete items; every body is the documented object.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from course_lib.errors import WireError
from course_lib.wire.common import Counters, require
from course_lib.wire.store import MAX_ITEMS, ResponseStore, item_list, not_found, with_id

MAX_CONVERSATIONS = 1_000
"""How many conversations one stand-in keeps before it evicts the oldest."""

MAX_ITEMS_AT_ONCE = 20
"""The documented limit on items added in one request."""

ITEM_TYPES = ("message", "function_call", "function_call_output", "reasoning")


@dataclass
class StoredConversation:
    """One conversation: its resource object and its items, oldest first."""

    resource: dict[str, Any]
    items: list[dict[str, Any]] = field(default_factory=list)


def conversation_id(body: Mapping[str, Any]) -> str | None:
    """The `conversation` a responses request names (an id, or an object with one), checked."""
    raw = body.get("conversation")
    if raw is None:
        return None
    require(body.get("previous_response_id") is None,
            "previous_response_id cannot be used in conjunction with conversation", "conversation")  # fmt: skip
    found = raw.get("id") if isinstance(raw, dict) else raw
    require(
        type(found) is str and found != "",
        "conversation must be an id or an object with an id",
        "conversation",
    )
    assert isinstance(found, str)
    return found


def _metadata(raw: object) -> dict[str, str]:
    if raw is None:
        return {}
    require(
        isinstance(raw, dict) and len(raw) <= 16, "metadata must be an object of at most 16 pairs", "metadata"
    )
    assert isinstance(raw, dict)
    for key, value in raw.items():
        require(len(key) <= 64 and type(value) is str and len(value) <= 512,
                "metadata keys are at most 64 characters and values strings of at most 512", "metadata")  # fmt: skip
    return dict(raw)


class ConversationStore:
    """Conversations by id, capped in count and in items; safe to use from many threads."""

    def __init__(self, max_conversations: int = MAX_CONVERSATIONS, max_items: int = MAX_ITEMS) -> None:
        self.max_conversations = max_conversations
        self.max_items = max_items
        self._conversations: OrderedDict[str, StoredConversation] = OrderedDict()
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._conversations)

    @property
    def item_count(self) -> int:
        """How many items all conversations hold together."""
        return sum(len(conversation.items) for conversation in self._conversations.values())

    def clear(self) -> None:
        """Forget every conversation."""
        with self._lock:
            self._conversations.clear()

    def get(self, conversation: str, param: str | None = None) -> StoredConversation:
        """The conversation with this id, or the documented 404."""
        with self._lock:
            found = self._conversations.get(conversation)
            if found is None:
                raise not_found("Conversation", conversation, param)
            return found

    def append(self, conversation: str, items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Add items (already with ids) to a conversation; past the caps the oldest conversations, then items, go."""
        with self._lock:
            found = self.get(conversation, "conversation")
            found.items.extend(items)
            del found.items[: max(0, len(found.items) - self.max_items)]
            while len(self._conversations) > 1 and self.item_count > self.max_items:
                self._conversations.popitem(last=False)
            return list(items)

    def route(
        self, method: str, parts: list[str], body: Any, query: Mapping[str, list[str]],
        counters: Counters, responses: ResponseStore,
    ) -> dict[str, Any]:  # fmt: skip
        """Answer one request under /v1/conversations (`parts` are the path segments after it)."""
        with self._lock:
            if not parts:
                _allow(method, "POST")
                return self._create(body, counters, responses)
            found = self.get(parts[0])
            if len(parts) == 1:
                _allow(method, "GET", "POST", "DELETE")
                if method == "DELETE":
                    del self._conversations[parts[0]]
                    return {"id": parts[0], "object": "conversation.deleted", "deleted": True}
                if method == "POST":
                    found.resource["metadata"] = _metadata(_object(body).get("metadata"))
                return copy.deepcopy(found.resource)
            if parts[1] != "items" or len(parts) > 3:
                raise WireError(f"Invalid URL ({method} /v1/conversations/{'/'.join(parts)[:200]})", status=404,
                                code="unknown_url")  # fmt: skip
            if len(parts) == 2:
                _allow(method, "GET", "POST")
                if method == "GET":
                    return item_list(found.items, query)
                added = self.append(parts[0], _new_items(_object(body).get("items"), counters, responses))
                return item_list(added, {"order": ["asc"], "limit": ["100"]})
            _allow(method, "GET", "DELETE")
            ids = [item["id"] for item in found.items]
            if parts[2] not in ids:
                raise not_found("Item", parts[2])
            if method == "GET":
                return copy.deepcopy(found.items[ids.index(parts[2])])
            del found.items[ids.index(parts[2])]
            return copy.deepcopy(found.resource)

    def _create(self, body: Any, counters: Counters, responses: ResponseStore) -> dict[str, Any]:
        body = _object(body)
        resource: dict[str, Any] = {"id": counters.next_id("conv"), "object": "conversation",
                    "metadata": _metadata(body.get("metadata")), "created_at": counters.now()}  # fmt: skip
        items = _new_items(body.get("items") or [], counters, responses)
        self._conversations[resource["id"]] = StoredConversation(resource)
        self.append(resource["id"], items)
        while len(self._conversations) > self.max_conversations:
            self._conversations.popitem(last=False)
        return copy.deepcopy(resource)


def _allow(method: str, *allowed: str) -> None:
    if method not in allowed:
        raise WireError(f"{method} is not allowed here; use {' or '.join(allowed)}", status=405,
                        code="method_not_allowed")  # fmt: skip


def _object(body: Any) -> dict[str, Any]:
    require(isinstance(body, dict), "The body of your request must be a JSON object.")
    assert isinstance(body, dict)
    return body


def _new_items(raw: object, counters: Counters, responses: ResponseStore) -> list[dict[str, Any]]:
    """Items to add: a list of at most 20 input items; references resolved against stored responses."""
    require(isinstance(raw, list) and len(raw) <= MAX_ITEMS_AT_ONCE,
            f"items must be an array of at most {MAX_ITEMS_AT_ONCE} items", "items")  # fmt: skip
    assert isinstance(raw, list)
    _, resolved = responses.history({}, raw)
    kept = []
    for i, item in enumerate(resolved):
        require(isinstance(item, dict) and item.get("type", "message") in ITEM_TYPES,
                f"items[{i}] must be an item of type {' or '.join(ITEM_TYPES)}", f"items[{i}]")  # fmt: skip
        kept.append(with_id(item, counters))
    return kept
