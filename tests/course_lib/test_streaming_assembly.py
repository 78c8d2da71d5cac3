"""course_lib.streaming on hand-written streams: what it refuses, and fragments of any text."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_lib.errors import ModelTurnError
from course_lib.streaming import assemble_chat_stream, assemble_responses_stream
from course_lib.wire.sse import MAX_FRAGMENT, Event, decode, encode, fragments


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


@given(st.text(), st.text(max_size=20))
def test_fragments_rejoin_to_the_text_in_short_pieces(text: str, seed: str) -> None:
    pieces = fragments(text, seed)
    assert "".join(pieces) == text and all(0 < len(p) <= MAX_FRAGMENT for p in pieces if text)


@given(st.text(), st.sampled_from([None, "response.created"]))
def test_an_event_survives_encoding_and_decoding(text: str, name: str | None) -> None:
    event = Event(name, {"delta": text})
    assert decode(encode(event) + encode(Event(None, "[DONE]"))) == [event, Event(None, "[DONE]")]


def test_arguments_for_a_call_never_opened_are_refused() -> None:
    stream = [chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), chunk({}, "tool_calls")]
    with pytest.raises(ModelTurnError, match="before its id and name"):
        assemble_chat_stream(stream)


def test_a_chunk_that_is_not_an_object_is_refused() -> None:
    with pytest.raises(ModelTurnError, match="not an object"):
        assemble_chat_stream([chunk({"content": "hi"}), 42, chunk({}, "stop")])  # type: ignore[list-item]


def test_events_after_done_are_ignored() -> None:
    got = assemble_chat_stream([chunk({"content": "hi"}, "stop"), "[DONE]", chunk({"content": "late"})])
    assert got == {"role": "assistant", "content": "hi"}


def test_a_delta_for_an_item_never_added_is_refused() -> None:
    stream = [{"type": "response.function_call_arguments.delta", "output_index": 3, "delta": "{"}]
    with pytest.raises(ModelTurnError, match="before its item was added"):
        assemble_responses_stream(stream)


@pytest.mark.parametrize("kind", ["response.failed", "response.incomplete", "error"])
def test_a_responses_stream_that_ends_badly_is_refused(kind: str) -> None:
    with pytest.raises(ModelTurnError, match=kind):
        assemble_responses_stream([{"type": "response.created"}, {"type": kind}])
