"""Stored responses: what `store: true` keeps on the Responses route, bounded, for one stand-in.

A stored response keeps the whole input the model saw (earlier responses' items included, item
references resolved) and its output, so `previous_response_id` can prepend them, `item_reference` can
name any stored item, and `GET /v1/responses/{id}/input_items` can list them. The store holds at most
`max_responses` responses and `max_items` items; the oldest response goes first when either is exceeded.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from course_lib.errors import WireError
from course_lib.wire.common import Counters, require

MAX_RESPONSES = 1_000
"""How many responses one stand-in keeps before it evicts the oldest."""

MAX_ITEMS = 100_000
"""How many items (input and output, counted per response) one stand-in keeps before it evicts the oldest."""

INPUT_ID_PREFIXES = {"message": "msg_in", "function_call_output": "fco", "function_call": "fc_in",
                     "reasoning": "rs_in"}  # fmt: skip
"""Prefixes for the ids the store gives input items sent without one (never the output's own prefixes)."""


@dataclass
class StoredResponse:
    """One stored response: the payload as sent, the whole input the model saw, and the items it added."""

    payload: dict[str, Any]
    input: list[dict[str, Any]]
    own_items: list[str]
    """Ids of the items this response brought into the store (its new input and its output)."""
    size: int


def not_found(kind: str, item_id: object, param: str | None = None) -> WireError:
    """The documented 404 for an id the store does not hold (never stored, deleted, or evicted)."""
    return WireError(f"{kind} with id {str(item_id)[:120]!r} not found.", status=404, param=param)


class ResponseStore:
    """Stored responses by id, and their items by id, capped in count; safe to use from many threads."""

    def __init__(self, max_responses: int = MAX_RESPONSES, max_items: int = MAX_ITEMS) -> None:
        self.max_responses = max_responses
        self.max_items = max_items
        self._responses: OrderedDict[str, StoredResponse] = OrderedDict()
        self._items: dict[str, dict[str, Any]] = {}
        self._size = 0
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self._responses)

    @property
    def item_count(self) -> int:
        """How many items the store holds, counted once per response that holds them."""
        return self._size

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._responses.clear()
            self._items.clear()
            self._size = 0

    def get(self, response_id: object, param: str | None = None) -> StoredResponse:
        """The stored response with this id, or the documented 404."""
        with self._lock:
            stored = self._responses.get(response_id) if type(response_id) is str else None
            if stored is None:
                raise not_found("Response", response_id, param)
            return stored

    def item(self, item_id: object, param: str) -> dict[str, Any]:
        """The stored item with this id (for an `item_reference`), or the documented 404."""
        with self._lock:
            found = self._items.get(item_id) if type(item_id) is str else None
            if found is None:
                raise not_found("Item", item_id, param)
            return found

    def holds_item(self, item_id: str) -> bool:
        """Whether an item with this id is stored (a stored reasoning item may come back by id alone)."""
        with self._lock:
            return item_id in self._items

    def history(self, body: Mapping[str, Any], new_items: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """The previous response's input and output, and `new_items` with their item references resolved."""
        previous = body.get("previous_response_id")
        prior: list[Any] = []
        if previous is not None:
            require(type(previous) is str, "previous_response_id must be a string", "previous_response_id")
            stored = self.get(previous, "previous_response_id")
            prior = [*stored.input, *stored.payload["output"]]
        resolved = []
        for i, item in enumerate(new_items):
            if isinstance(item, dict) and item.get("type") == "item_reference":
                resolved.append(self.item(item.get("id"), f"input[{i}].id"))
            else:
                resolved.append(item)
        return prior, resolved

    def put(
        self,
        payload: dict[str, Any],
        prior: Sequence[dict[str, Any]],
        new_items: Sequence[Any],
        counters: Counters,
    ) -> None:
        """Keep a response: `prior` are the items it inherited, `new_items` its input (ids are given where missing)."""
        with self._lock:
            fresh = [item if self._holds(item) else with_id(item, counters) for item in new_items]
            output = [copy.deepcopy(item) for item in payload["output"]]
            stored = StoredResponse(copy.deepcopy(payload), [*prior, *fresh], [], 0)
            stored.payload["output"] = output
            for item in [*fresh, *output]:
                if item["id"] not in self._items:
                    self._items[item["id"]] = item
                    stored.own_items.append(item["id"])
            stored.size = len(stored.input) + len(output)
            self._responses[payload["id"]] = stored
            self._size += stored.size
            while len(self._responses) > self.max_responses or (
                self._size > self.max_items and len(self._responses) > 1
            ):
                self._evict(next(iter(self._responses)))

    def _holds(self, item: Any) -> bool:
        """Whether `item` is a stored item itself (a resolved reference), not a copy."""
        return isinstance(item, dict) and type(item.get("id")) is str and self._items.get(item["id"]) is item

    def delete(self, response_id: str) -> None:
        """Forget one response (and the items it brought), or raise the documented 404."""
        with self._lock:
            self.get(response_id)
            self._evict(response_id)

    def _evict(self, response_id: str) -> None:
        stored = self._responses.pop(response_id)
        self._size -= stored.size
        for item_id in stored.own_items:
            self._items.pop(item_id, None)


def with_id(item: Any, counters: Counters) -> dict[str, Any]:
    """A copy of an input item as the API keeps and lists it: with an id and a status, content as parts."""
    kept: dict[str, Any] = copy.deepcopy(item)
    kind = kept.get("type", "message")
    if type(kept.get("id")) is not str:
        kept = {"id": counters.next_id(INPUT_ID_PREFIXES.get(kind, "item")), **kept}
    if kind == "message":
        kept["type"] = "message"
        kept.setdefault("status", "completed")
        if type(kept.get("content")) is str:
            part = "output_text" if kept.get("role") == "assistant" else "input_text"
            text = {"type": part, "text": kept["content"]}
            kept["content"] = [{**text, "annotations": []} if part == "output_text" else text]
    elif kind == "function_call_output":
        kept.setdefault("status", "completed")
    return kept


def item_list(items: Sequence[Mapping[str, Any]], query: Mapping[str, list[str]]) -> dict[str, Any]:
    """A page of items as the documented list object: `limit` (1-100, default 20), `order` (default desc), `after`."""
    limit_raw = query.get("limit", ["20"])[-1]
    require(
        limit_raw.isdigit() and 1 <= int(limit_raw) <= 100, "limit must be an integer from 1 to 100", "limit"
    )
    order = query.get("order", ["desc"])[-1]
    require(order in ("asc", "desc"), "order must be 'asc' or 'desc'", "order")
    ordered = list(items) if order == "asc" else list(reversed(items))
    after = query.get("after", [None])[-1]
    if after is not None:
        ids = [item.get("id") for item in ordered]
        if after not in ids:
            raise not_found("Item", after, "after")
        ordered = ordered[ids.index(after) + 1 :]
    page = [copy.deepcopy(dict(item)) for item in ordered[: int(limit_raw)]]
    return {
        "object": "list",
        "data": page,
        "has_more": len(ordered) > len(page),
        "first_id": page[0]["id"] if page else "",
        "last_id": page[-1]["id"] if page else "",
    }
