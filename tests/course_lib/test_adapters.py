"""The ModelClient adapters: wire calls become envelopes or BadCalls, every API speaks the same turns."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from course_lib.adapters import ChatAdapter
from course_lib.clients import make_client
from course_lib.desk import desk_toolbox
from course_lib.errors import EnvelopeError, ModelHTTPError, ModelTurnError
from course_lib.standin import StandIn
from course_lib.turns import (
    APIS,
    MAX_ARGUMENT_CHARS,
    BadCall,
    ToolResult,
    call_item,
    final_turn,
    parse_arguments,
    tools_field,
)

ORDER = ("get_order", '{"order_id": "A-1001"}')
TOOLS = [desk_toolbox()[name] for name in ("get_order", "issue_refund")]


def conversation(api: str, script: list[Any], **options: Any) -> tuple[list[Any], StandIn]:
    """Start a conversation on `api` and return the first turn (and the closed server, for its log)."""
    with StandIn(script, **options) as server:
        client = make_client(api, server, TOOLS, chat=ChatAdapter)
        try:
            return client.start("Where is A-1001?", timeout=5), server
        finally:
            client.close()


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"a": 1, "a": 2}', "repeat the key"),
        ('{"a": NaN}', "NaN"),
        ('{"a": -Infinity}', "Infinity"),
        ('["a"]', "JSON object"),
        ('{"a": "b', "not valid JSON"),
        ("[" * 100_000, "too long"),
        ("[" * 5_000 + "]" * 5_000, "nested too deeply"),
    ],
)
def test_malformed_arguments_raise_an_envelope_error(raw: str, problem: str) -> None:
    with pytest.raises(EnvelopeError, match=problem):
        parse_arguments(raw)


def test_a_good_call_becomes_an_envelope() -> None:
    item = call_item("call_1", *ORDER)
    assert item == {"kind": "call", "id": "call_1", "name": "get_order", "arguments": {"order_id": "A-1001"}}


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        ("get_order ", "{}", "name"),
        ("get_\u043erder", "{}", "name"),
        ("get_order", '{"q": "\ud800"}', "lone surrogate"),
        ("get_order", {"deep": json.loads("[" * 80 + "]" * 80)}, "nested deeper"),
        ("get_order", {"note": "x" * MAX_ARGUMENT_CHARS}, "longer than"),
    ],
)
def test_a_call_that_breaks_the_envelope_is_a_bad_call(name: str, arguments: object, problem: str) -> None:
    item = call_item("call_1", name, arguments)
    assert isinstance(item, BadCall) and item.id == "call_1" and problem in item.problem


def test_an_anthropic_style_object_input_is_accepted() -> None:
    assert call_item("toolu_1", "get_order", {"order_id": "A-1001"})["arguments"] == {"order_id": "A-1001"}


def test_no_text_at_all_is_a_model_turn_error() -> None:
    with pytest.raises(ModelTurnError, match="neither text nor tool calls"):
        final_turn(None)


def test_make_client_refuses_chat_without_the_class_to_build() -> None:
    with (
        StandIn([]) as server,
        pytest.raises(ValueError, match=r'api "chat" needs a Chat Completions adapter'),
    ):
        make_client("chat", server, TOOLS)


def test_tools_field_follows_each_documented_shape() -> None:
    chat, responses, anthropic = (tools_field(api, TOOLS)[0] for api in ("chat", "responses", "anthropic"))
    assert chat["function"]["name"] == "get_order" and chat["function"]["strict"] is True
    assert responses["name"] == "get_order" and "function" not in responses and responses["strict"] is True
    assert set(anthropic) == {"name", "description", "input_schema"}


def test_tools_field_refuses_an_unknown_api() -> None:
    with pytest.raises(ValueError, match="unknown api"):
        tools_field("gemini", TOOLS)


@pytest.mark.parametrize("api", APIS)
def test_every_adapter_turns_a_round_trip_into_envelopes(api: str) -> None:
    with StandIn([("calls", [ORDER]), ("text", lambda results: f"got {len(results)}")]) as server:
        client = make_client(api, server, TOOLS, chat=ChatAdapter)
        first = client.start("Where is A-1001?", timeout=5)
        final = client.reply([ToolResult(first[0]["id"], '{"result": 1}')], timeout=5)
    assert first[0]["name"] == "get_order" and final == [{"kind": "final", "text": "got 1"}]
    assert client.requests == len(server.log) == 2


@pytest.mark.parametrize("api", APIS)
def test_every_adapter_reports_an_http_error_with_its_status(api: str) -> None:
    with pytest.raises(ModelHTTPError) as error:
        conversation(api, [("error", 500, "upstream exploded")])
    assert error.value.status == 500


@pytest.mark.parametrize("api", APIS)
def test_every_adapter_reports_a_turn_with_nothing_in_it(api: str) -> None:
    with pytest.raises(ModelTurnError, match="neither text nor tool calls"):
        conversation(api, [("calls", [])])


@pytest.mark.parametrize("api", APIS)
def test_every_adapter_gives_up_at_its_timeout(api: str) -> None:
    release = threading.Event()  # the model answers once the request has given up (or after 10 s)
    with StandIn([("text", lambda results: release.wait(10.0) and "late")]) as server:
        try:
            with pytest.raises(ModelHTTPError) as error:
                make_client(api, server, TOOLS, chat=ChatAdapter).start("hi", timeout=0.2)
        finally:
            release.set()
    assert error.value.status == 0


def test_anthropic_truncated_arguments_end_the_turn() -> None:
    """Anthropic cannot carry broken argument JSON as a call: the stand-in cuts the turn at max_tokens."""
    with pytest.raises(ModelTurnError, match="max_tokens"):
        conversation("anthropic", [("calls", [("get_order", '{"order_id": "A-10')])])


def test_anthropic_results_are_tool_result_blocks_with_is_error() -> None:
    with StandIn([("calls", [ORDER]), ("text", "ok")]) as server:
        client = make_client("anthropic", server, TOOLS, chat=ChatAdapter)
        first = client.start("hi", timeout=5)
        client.reply([ToolResult(first[0]["id"], '{"error": "no"}', is_error=True)], timeout=5)
    block = server.log[1].body["messages"][-1]["content"][0]
    assert block == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": '{"error": "no"}',
        "is_error": True,
    }


@pytest.mark.parametrize("api", ["openai-sdk-chat", "openai-sdk-responses", "anthropic"])
def test_sdk_clients_validate_strictly_and_never_retry(api: str) -> None:
    with StandIn() as server:
        client: Any = make_client(api, server, TOOLS, chat=ChatAdapter)
        assert client.client._strict_response_validation is True and client.client.max_retries == 0


@pytest.mark.parametrize("api", ["responses", "openai-sdk-responses"])
def test_responses_adapters_replay_a_reasoning_models_items(api: str) -> None:
    with StandIn([("calls", [ORDER]), ("text", "done")], reasoning=True) as server:
        client = make_client(api, server, TOOLS, chat=ChatAdapter)
        first = client.start("hi", timeout=5)
        assert client.reply([ToolResult(first[0]["id"], "{}")], timeout=5)[0]["text"] == "done"


@pytest.mark.parametrize("api", ["openai-sdk-chat", "openai-sdk-responses", "anthropic"])
def test_sdk_adapters_can_replay_a_lone_surrogate_the_model_sent(api: str) -> None:
    """An SDK encodes UTF-8 and would crash on a lone surrogate; the adapter replays U+FFFD instead."""
    with StandIn([("calls", [("get_order\ud800", "{}")]), ("text", "ok")]) as server:
        client = make_client(api, server, TOOLS, chat=ChatAdapter)
        bad = client.start("hi", timeout=5)[0]
        assert isinstance(bad, BadCall) and client.reply([ToolResult(bad.id, "{}", True)], timeout=5)
