"""Message threads on /v1/messages: `thread` create and continue, `thread_not_found`, the SDK's tool runner."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from anthropic import beta_tool

from course_lib.standin import StandIn

TOOLS = [{"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object"}}]
PARIS = '{"city": "Paris"}'


@beta_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"15 C in {city}"


def two_tool_turns() -> list[Any]:
    return [("calls", [("get_weather", PARIS)]), ("calls", [("get_weather", '{"city": "Rome"}')]),
            ("text", lambda results: f"The tool said {results[0]}")]  # fmt: skip


def post(server: StandIn, body: dict[str, Any]) -> Any:
    full = {"model": "m", "max_tokens": 100, **body}
    return server.handle("POST", "/v1/messages", json.dumps(full).encode())


def run_tool_runner(server: StandIn, stream: bool) -> str:
    client = anthropic.Anthropic(base_url=server.root, api_key="stand-in", max_retries=0,
                                 _strict_response_validation=True)  # fmt: skip
    runner = client.beta.messages.tool_runner(model="m", max_tokens=100, tools=[get_weather], stream=stream,
                                              messages=[{"role": "user", "content": "Weather?"}])  # fmt: skip
    if stream:
        for message_stream in runner:
            for _ in message_stream:
                pass
    final = runner.until_done()
    assert final.content[0].type == "text"
    return final.content[0].text


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_sdk_tool_runner_finishes_on_its_defaults_through_a_thread(stream: bool) -> None:
    with StandIn(two_tool_turns()) as server:
        text = run_tool_runner(server, stream)
    assert text == "The tool said 15 C in Rome"
    threads = [exchange.body["thread"] for exchange in server.log]
    assert threads == [{"type": "create"}, {"type": "continue", "previous_message_id": "msg_1"},
                       {"type": "continue", "previous_message_id": "msg_2"}]  # fmt: skip
    assert [len(exchange.body["messages"]) for exchange in server.log] == [1, 1, 1]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_the_sdk_tool_runner_replays_the_history_when_the_thread_is_lost(stream: bool) -> None:
    with StandIn(two_tool_turns(), store=False) as server:
        text = run_tool_runner(server, stream)
    assert text == "The tool said 15 C in Rome"
    assert [exchange.status for exchange in server.log] == [200, 404, 200, 404, 200]
    assert server.remaining_steps == 0


def test_a_continue_sees_the_held_conversation_and_tools() -> None:
    with StandIn([("calls", [("get_weather", PARIS)]), ("text", lambda results: f"got {results}")]) as server:
        asked = post(server, {"messages": [{"role": "user", "content": "Weather?"}], "tools": TOOLS,
                              "thread": {"type": "create"}}).payload  # fmt: skip
        result = {"type": "tool_result", "tool_use_id": asked["content"][0]["id"], "content": "15 C"}
        answered = post(server, {"messages": [{"role": "user", "content": [result]}],
                                 "thread": {"type": "continue", "previous_message_id": asked["id"]}})  # fmt: skip
    assert answered.status == 200 and answered.payload["content"][0]["text"] == "got ['15 C']"


def test_an_unknown_thread_is_the_documented_thread_not_found() -> None:
    with StandIn([("text", "unused")]) as server:
        client = anthropic.Anthropic(base_url=server.root, api_key="stand-in", max_retries=0)
        with pytest.raises(anthropic.NotFoundError) as raised:
            client.beta.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}],
                thread={"type": "continue", "previous_message_id": "msg_404"},
                betas=["message-threads-2026-08-12"],
            )  # fmt: skip
    assert raised.value.error_code == "thread_not_found"
    assert raised.value.body["error"]["type"] == "not_found_error"  # type: ignore[index]
    assert server.remaining_steps == 1 and len(server.threads) == 0


def test_a_continue_that_repeats_tools_is_refused_and_consumes_nothing() -> None:
    with StandIn([("text", "one"), ("text", "unused")]) as server:
        first = post(server, {"messages": [{"role": "user", "content": "hi"}], "thread": {"type": "create"}})
        thread = {"type": "continue", "previous_message_id": first.payload["id"]}
        repeated = post(
            server, {"messages": [{"role": "user", "content": "again"}], "tools": TOOLS, "thread": thread}
        )
    assert (repeated.status, repeated.payload["error"]["type"]) == (400, "invalid_request_error")
    assert server.remaining_steps == 1 and len(server.threads) == 1


def test_a_request_without_thread_holds_nothing_and_reset_clears_threads() -> None:
    with StandIn([("text", "one"), ("text", "two")]) as server:
        post(server, {"messages": [{"role": "user", "content": "hi"}]})
        assert len(server.threads) == 0
        post(server, {"messages": [{"role": "user", "content": "hi"}], "thread": {"type": "create"}})
        assert len(server.threads) == 1
        server.reset()
        assert len(server.threads) == 0


def test_threads_are_capped_with_the_oldest_evicted() -> None:
    with StandIn(model=lambda conversation: ("text", "ok")) as server:
        server.threads.max_threads = 10
        ids = [post(server, {"messages": [{"role": "user", "content": f"q{i}"}], "thread": {"type": "create"}})
               .payload["id"] for i in range(50)]  # fmt: skip
        lost = post(server, {"messages": [{"role": "user", "content": "q"}],
                             "thread": {"type": "continue", "previous_message_id": ids[0]}})  # fmt: skip
        kept = post(server, {"messages": [{"role": "user", "content": "q"}],
                             "thread": {"type": "continue", "previous_message_id": ids[-1]}})  # fmt: skip
    assert (len(server.threads), lost.status, kept.status) == (10, 404, 200)
