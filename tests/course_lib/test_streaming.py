"""`stream: true` on every route: the documented event sequences, accepted by the official SDKs' stream helpers."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any

import anthropic
import openai
import pytest
from openai import OpenAI

from course_lib.errors import ModelTurnError
from course_lib.standin import StandIn
from course_lib.streaming import assemble_chat_stream, assemble_responses_stream
from course_lib.wire.sse import Event, decode, fragments
from tests.support.http_helpers import CHAT_TOOLS, PARIS, RESPONSES_TOOLS, USER

TWO_CALLS = (
    "calls",
    [("get_weather", PARIS), ("get_weather", '{"city": "Oslo", "note": "a \\"quoted\\" word"}')],
)
SCRIPTS = {
    "two calls": TWO_CALLS,
    "text": ("text", "It is 15 \u00b0C in Paris \U0001f600."),
    "empty": ("calls", []),
    "cut arguments": ("calls", [("get_weather", '{"city": "Par')]),  # Messages answers max_tokens, no block
}
ROUTES = {
    "/chat/completions": {"model": "m", "messages": USER, "tools": CHAT_TOOLS},
    "/responses": {"model": "m", "input": USER, "tools": RESPONSES_TOOLS},
    "/messages": {"model": "m", "max_tokens": 64, "messages": USER,
                  "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}]},
}  # fmt: skip


def post(server: StandIn, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
    """One POST over http.client (which undoes the chunked encoding): status, content type, body bytes."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", "/v1" + path, json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def streamed(script: tuple[Any, ...], path: str, **extra: Any) -> list[Event]:
    with StandIn([script]) as server:
        status, kind, raw = post(server, path, {**ROUTES[path], "stream": True, **extra})
    assert (status, kind.split(";")[0]) == (200, "text/event-stream"), raw[:200]
    return decode(raw)


def plain(script: tuple[Any, ...], path: str, reasoning: bool = False, **extra: Any) -> dict[str, Any]:
    with StandIn([script], reasoning=reasoning) as server:
        answer = server.handle("POST", "/v1" + path, json.dumps({**ROUTES[path], **extra}).encode())
    return answer.payload


def without_parsed(value: Any) -> Any:
    """An SDK object's dict without the `parsed`/`parsed_arguments` fields its stream helper adds."""
    if isinstance(value, dict):
        return {k: without_parsed(v) for k, v in value.items() if k not in ("parsed", "parsed_arguments")}
    return [without_parsed(v) for v in value] if isinstance(value, list) else value


def strict_openai(server: StandIn) -> OpenAI:
    return OpenAI(base_url=server.base, api_key="stand-in", max_retries=0, _strict_response_validation=True)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_sdk_chat_stream_helper_assembles_the_unstreamed_message(name: str) -> None:
    with StandIn([SCRIPTS[name]]) as server:
        body = ROUTES["/chat/completions"]
        with strict_openai(server).chat.completions.stream(**body) as stream:
            final = stream.get_final_completion()
    want = plain(SCRIPTS[name], "/chat/completions")["choices"][0]
    got = final.choices[0].model_dump(include={"finish_reason": True, "message": {"content", "tool_calls"}})
    for call in got["message"].get("tool_calls") or []:
        call.pop("index"), call["function"].pop("parsed_arguments")
    assert got["finish_reason"] == want["finish_reason"]
    assert got["message"] == {
        "content": want["message"]["content"],
        "tool_calls": want["message"].get("tool_calls"),
    }


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_sdk_responses_stream_helper_assembles_the_unstreamed_output(name: str) -> None:
    with (
        StandIn([SCRIPTS[name]], reasoning=True) as server,
        strict_openai(server).responses.stream(**ROUTES["/responses"]) as stream,
    ):
        final = stream.get_final_response()
    want = plain(SCRIPTS[name], "/responses", reasoning=True)["output"]
    assert [without_parsed(item.to_dict()) for item in final.output] == want


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_sdk_anthropic_stream_helper_assembles_the_unstreamed_message(name: str) -> None:
    body = ROUTES["/messages"]
    with StandIn([SCRIPTS[name]]) as server:
        client = anthropic.Anthropic(base_url=server.root, api_key="stand-in", max_retries=0,
                                     _strict_response_validation=True)  # fmt: skip
        with client.messages.stream(**body) as stream:
            final = stream.get_final_message()
    want = plain(SCRIPTS[name], "/messages")
    assert final.model_dump(include={"content", "stop_reason", "usage"}, exclude_none=True) == {
        "content": want["content"], "stop_reason": want["stop_reason"], "usage": want["usage"]}  # fmt: skip


def test_responses_stream_carries_the_reasoning_item_before_the_calls() -> None:
    with (
        StandIn([TWO_CALLS], reasoning=True) as server,
        strict_openai(server).responses.stream(**ROUTES["/responses"]) as stream,
    ):
        final = stream.get_final_response()
    assert [item.type for item in final.output] == ["reasoning", "function_call", "function_call"]


def test_chat_stream_opens_each_call_by_index_then_sends_fragments_then_finishes() -> None:
    events = streamed(TWO_CALLS, "/chat/completions")
    assert events[-1].data == "[DONE]" and all(event.name is None for event in events)
    chunks = [event.data for event in events[:-1] if isinstance(event.data, dict)]
    deltas = [chunk["choices"][0]["delta"] for chunk in chunks]
    assert deltas[0]["role"] == "assistant" and deltas[-1] == {}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert all(chunk["choices"][0]["finish_reason"] is None for chunk in chunks[:-1])
    indexes = [part["index"] for delta in deltas for part in delta.get("tool_calls", [])]
    assert indexes == sorted(indexes) and set(indexes) == {0, 1}


def test_chat_stream_cuts_arguments_into_several_fragments_that_rejoin_exactly() -> None:
    chunks = [e.data for e in streamed(TWO_CALLS, "/chat/completions") if isinstance(e.data, dict)]
    pieces = [part["function"]["arguments"] for chunk in chunks for part in chunk["choices"][0]["delta"].get(
        "tool_calls", []) if part["index"] == 0 and "id" not in part]  # fmt: skip
    assert len(pieces) > 1 and "".join(pieces) == PARIS


def test_fragments_are_reproducible_and_lossless() -> None:
    text = '{"city": "Paris", "note": "\\u00e9\\\\"}'
    assert fragments(text, "seed") == fragments(text, "seed")
    assert "".join(fragments(text, "seed")) == text and fragments("", "seed") == [""]


def test_chat_stream_with_include_usage_ends_with_a_usage_chunk_and_nulls_before() -> None:
    events = streamed(TWO_CALLS, "/chat/completions", stream_options={"include_usage": True})
    chunks = [event.data for event in events[:-1] if isinstance(event.data, dict)]
    usage = plain(TWO_CALLS, "/chat/completions")["usage"]
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == usage
    assert all(chunk["usage"] is None for chunk in chunks[:-1])


def test_chat_stream_without_include_usage_carries_no_usage() -> None:
    events = streamed(TWO_CALLS, "/chat/completions")
    assert all("usage" not in event.data for event in events if isinstance(event.data, dict))


def test_responses_stream_events_are_named_by_type_and_numbered_in_order() -> None:
    events = streamed(TWO_CALLS, "/responses")
    assert all(isinstance(e.data, dict) and e.name == e.data["type"] for e in events)
    assert [e.data["sequence_number"] for e in events if isinstance(e.data, dict)] == list(range(len(events)))
    names = [event.name for event in events]
    assert names[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert names[-1] == "response.completed" and names.count("response.function_call_arguments.done") == 2


def test_anthropic_stream_follows_the_documented_event_order() -> None:
    names = [event.name for event in streamed(TWO_CALLS, "/messages")]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == names.count("content_block_stop") == 2


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_the_same_script_streams_the_same_bytes(path: str) -> None:
    assert streamed(TWO_CALLS, path) == streamed(TWO_CALLS, path)


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_a_streamed_request_takes_exactly_one_step(path: str) -> None:
    with StandIn([TWO_CALLS, ("text", "next")]) as server:
        post(server, path, {**ROUTES[path], "stream": True})
        assert server.remaining_steps == 1


@pytest.mark.parametrize(
    "extra", [{"stream": "yes"}, {"stream": False, "stream_options": {"include_usage": True}},
              {"stream": True, "stream_options": {"include_usage": 1}}],
)  # fmt: skip
def test_a_rejected_stream_request_is_a_json_400_and_takes_no_step(extra: dict[str, Any]) -> None:
    with StandIn([TWO_CALLS]) as server:
        status, kind, raw = post(server, "/chat/completions", {**ROUTES["/chat/completions"], **extra})
        assert (status, kind, server.remaining_steps) == (400, "application/json", 1)
        assert json.loads(raw)["error"]["param"].startswith("stream")


@pytest.mark.parametrize("path", sorted(ROUTES))
def test_a_scripted_error_on_a_stream_stays_a_json_error_envelope(path: str) -> None:
    with StandIn([("error", 429, "slow down")]) as server:
        status, kind, raw = post(server, path, {**ROUTES[path], "stream": True})
    assert (status, kind) == (429, "application/json") and "slow down" in raw.decode()


def test_a_client_hanging_up_mid_stream_leaves_the_server_serving() -> None:
    long_text = ("text", "word " * 20_000)
    with StandIn([long_text, ("text", "still here")]) as server:
        body = json.dumps({**ROUTES["/chat/completions"], "stream": True}).encode()
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(head.encode() + body)
            assert sock.recv(64).startswith(b"HTTP/1.1 200")
        status, _, raw = post(server, "/chat/completions", ROUTES["/chat/completions"])
    assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"] == "still here"


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_assemble_chat_stream_gives_the_unstreamed_message(name: str) -> None:
    message = plain(SCRIPTS[name], "/chat/completions")["choices"][0]["message"]
    got = assemble_chat_stream(e.data for e in streamed(SCRIPTS[name], "/chat/completions"))
    assert got == {key: message[key] for key in ("role", "content", "tool_calls") if key in message}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_assemble_responses_stream_gives_the_unstreamed_output(name: str) -> None:
    events = [e.data for e in streamed(SCRIPTS[name], "/responses") if isinstance(e.data, dict)]
    assert assemble_responses_stream(events) == plain(SCRIPTS[name], "/responses")["output"]


def test_assemble_chat_stream_refuses_a_stream_without_finish_reason() -> None:
    chunks = [e.data for e in streamed(TWO_CALLS, "/chat/completions") if isinstance(e.data, dict)]
    with pytest.raises(ModelTurnError, match="finish_reason"):
        assemble_chat_stream(chunks[:-1])


def test_assemble_chat_stream_refuses_a_turn_cut_at_length() -> None:
    chunks = [e.data for e in streamed(TWO_CALLS, "/chat/completions") if isinstance(e.data, dict)]
    chunks[-1]["choices"][0]["finish_reason"] = "length"
    with pytest.raises(ModelTurnError, match="cut short"):
        assemble_chat_stream(chunks)


def test_assemble_responses_stream_refuses_a_stream_cut_before_completed() -> None:
    events = [e.data for e in streamed(TWO_CALLS, "/responses") if isinstance(e.data, dict)]
    with pytest.raises(ModelTurnError, match="response.completed"):
        assemble_responses_stream(events[:-1])


def test_an_sdk_stream_meets_a_scripted_error_as_its_exception_not_an_empty_stream() -> None:
    with StandIn([("error", 429, "slow down")]) as server:
        stream = strict_openai(server).chat.completions.stream(**ROUTES["/chat/completions"])
        with pytest.raises(openai.RateLimitError, match="slow down"), stream:
            pass
