"""The hand-written loops against the stand-in: the seed's scenarios, with their exact request counts."""

from __future__ import annotations

import json

import pytest

from course_lib.chained import chained_responses_loop
from course_lib.demo_tools import weather_toolbox
from course_lib.errors import MaxStepsExceeded, ModelHTTPError
from course_lib.loops import LOOPS, chat_tool_loop, post_json, responses_tool_loop
from course_lib.scenarios import PARIS, SCENARIOS, run_scenario
from course_lib.specs import tool_specs
from course_lib.standin import StandIn

REQUESTS = {
    "single_chat": 2, "single_responses": 2, "parallel": 2, "one_per_turn": 4, "dependent": 3,
    "tool_error": 2, "unexpected": 2, "recovers": 4, "hallucinated": 3, "never_stops": 4,
    "choice_none": 1, "forced_chat": 2, "forced_responses": 2, "sticky_forced": 3,
}  # fmt: skip


@pytest.mark.parametrize("key", sorted(REQUESTS))
def test_each_seed_scenario_sends_its_documented_number_of_requests(server: StandIn, key: str) -> None:
    assert run_scenario(server, SCENARIOS[key], LOOPS).requests == REQUESTS[key]


def test_every_scenario_has_a_pinned_request_count() -> None:
    assert set(SCENARIOS) == set(REQUESTS)


def test_three_calls_in_one_turn_are_all_answered_by_id(server: StandIn) -> None:
    outcome = run_scenario(server, SCENARIOS["parallel"], LOOPS)
    answers = [m["tool_call_id"] for m in server.log[1].body["messages"] if m["role"] == "tool"]
    assert answers == ["call_1", "call_2", "call_3"] and outcome.text == "Temps: 15, 18, 3"


def test_the_chat_loop_replays_the_assistant_turn_exactly_as_returned(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)]), ("text", "done")])
    chat_tool_loop(server.base, "Weather in Paris?", weather_toolbox(), ["get_weather"])
    first_answer = server.log[1].body["messages"][1]
    assert first_answer["tool_calls"][0]["id"] == "call_1" and first_answer["refusal"] is None


def test_the_responses_loop_replays_reasoning_items_of_a_reasoning_model() -> None:
    with StandIn([("calls", [("get_weather", PARIS)]), ("text", "15 C")], reasoning=True) as stand_in:
        text, _ = responses_tool_loop(stand_in.base, "Weather?", weather_toolbox(), ["get_weather"])
        kinds = [item.get("type", "message") for item in stand_in.log[1].body["input"]]
    assert text == "15 C" and kinds == ["message", "reasoning", "function_call", "function_call_output"]


def test_the_dependent_call_uses_the_first_result(server: StandIn) -> None:
    outcome = run_scenario(server, SCENARIOS["dependent"], LOOPS)
    assert (
        json.loads(outcome.trace[1].arguments)["city"] == "Oslo"
        and outcome.text == "u1 lives where it is 3 C."
    )


def test_an_unexpected_exception_reaches_the_model_as_a_short_message_only(server: StandIn) -> None:
    toolbox = weather_toolbox()
    outcome = run_scenario(server, SCENARIOS["unexpected"], LOOPS, toolbox)
    assert outcome.text == "Sorry: tool 'average' failed with ZeroDivisionError"
    assert "division by zero" in toolbox.server_log[0] and "division by zero" not in json.dumps(
        server.log[1].body
    )


def test_max_steps_exceeded_carries_the_trace(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)])] * 3)
    with pytest.raises(MaxStepsExceeded, match="after 2 model calls") as stop:
        chat_tool_loop(server.base, "Weather?", weather_toolbox(), ["get_weather"], max_steps=2)
    assert [entry.step for entry in stop.value.trace] == [1, 2]


@pytest.mark.parametrize("loop", [chat_tool_loop, responses_tool_loop])
def test_a_forced_tool_choice_is_sent_on_the_first_request_only(server: StandIn, loop: object) -> None:
    server.reset([("calls", [("get_weather", PARIS)]), ("text", "ok")])
    choice = "required"
    loop(server.base, "Hi", weather_toolbox(), ["get_weather"], tool_choice=choice)  # type: ignore[operator]
    assert [exchange.body.get("tool_choice") for exchange in server.log] == ["required", None]


def test_an_http_error_from_the_model_raises_model_http_error(server: StandIn) -> None:
    server.reset([("error", 503, "overloaded")])
    with pytest.raises(ModelHTTPError, match="HTTP 503: overloaded") as error:
        chat_tool_loop(server.base, "Hi", weather_toolbox(), ["get_weather"])
    assert error.value.status == 503 and b"overloaded" in error.value.body


def test_an_unreachable_model_raises_model_http_error() -> None:
    with StandIn() as stand_in:
        base = stand_in.base
    with pytest.raises(ModelHTTPError, match="could not reach"):
        post_json(base, "/chat/completions", {"model": "m"}, timeout=2)


def test_forgetting_the_assistant_turn_gets_http_400(server: StandIn) -> None:
    """The seed's find-the-bug practice: a tool message with no assistant turn before it."""
    server.reset([("calls", [("get_weather", PARIS)])])
    tools = tool_specs(weather_toolbox(), ["get_weather"], "chat")
    user = {"role": "user", "content": "Weather in Paris?"}
    first = post_json(server.base, "/chat/completions", {"model": "m", "tools": tools, "messages": [user]})
    call = first["choices"][0]["message"]["tool_calls"][0]
    buggy = [user, {"role": "tool", "tool_call_id": call["id"], "content": "{}"}]
    with pytest.raises(ModelHTTPError, match="HTTP 400"):
        post_json(server.base, "/chat/completions", {"model": "m", "tools": tools, "messages": buggy})


def two_tool_turns() -> list[object]:
    return [("calls", [("get_weather", PARIS), ("get_user_city", '{"user_id": "u1"}')]),
            ("calls", [("get_weather", '{"city": "Oslo", "unit": "celsius"}')]),
            ("text", lambda results: f"Done: {results[0]}")]  # fmt: skip


@pytest.mark.parametrize("reasoning", [False, True], ids=["plain", "reasoning"])
def test_the_chained_loop_sends_only_the_new_items_after_the_first_request(reasoning: bool) -> None:
    names = ["get_weather", "get_user_city"]
    with StandIn(two_tool_turns(), reasoning=reasoning) as stand_in:
        want = responses_tool_loop(stand_in.base, "Weather?", weather_toolbox(), names)
        stand_in.reset(two_tool_turns())
        got = chained_responses_loop(stand_in.base, "Weather?", weather_toolbox(), names)
        bodies = [exchange.body for exchange in stand_in.log]
    assert got == want
    assert [body.get("previous_response_id") for body in bodies] == [None, "resp_1", "resp_2"]
    sent = [[item.get("call_id", item.get("role")) for item in body["input"]] for body in bodies]
    assert sent == [["user"], ["call_1", "call_2"], ["call_3"]]


def test_the_chained_loop_cannot_continue_a_response_sent_with_store_false(server: StandIn) -> None:
    """What store: false costs: nothing is kept, so the second request names an unknown response."""
    server.reset(two_tool_turns())
    with pytest.raises(ModelHTTPError, match="HTTP 404: Response with id 'resp_1' not found"):
        chained_responses_loop(server.base, "Weather?", weather_toolbox(), ["get_weather"], store=False)


def test_the_chained_loop_stops_after_max_steps_with_its_trace(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)])] * 3)
    with pytest.raises(MaxStepsExceeded, match="after 2 model calls") as stop:
        chained_responses_loop(server.base, "Weather?", weather_toolbox(), ["get_weather"], max_steps=2)
    assert [entry.step for entry in stop.value.trace] == [1, 2] and len(server.log) == 2


def test_the_five_loops_follow_the_loop_protocol() -> None:
    """03's two loops, 04's chained one and the two SDK loops take the positional and keyword-only parameters
    of `model_api.Loop` with its defaults (each may add options after them) and return what it returns."""
    import inspect

    from course_lib.model_api import Loop
    from course_lib.sdk_loop import sdk_chat_tool_loop, sdk_responses_tool_loop

    shared = list(inspect.signature(Loop.__call__).parameters.values())[1:]  # without self
    positional = [p for p in shared if p.kind is p.POSITIONAL_ONLY]
    keywords = {p.name: p.default for p in shared if p.kind is p.KEYWORD_ONLY}
    loops = [
        chat_tool_loop,
        responses_tool_loop,
        chained_responses_loop,
        sdk_chat_tool_loop,
        sdk_responses_tool_loop,
    ]
    for loop in loops:
        parameters = inspect.signature(loop).parameters.values()
        leading = [p for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert [p.annotation for p in leading[1:]] == [p.annotation for p in positional[1:]], loop.__name__
        assert len(leading) == len(positional), loop.__name__
        assert {p.name: p.default for p in parameters if p.name in keywords} == keywords, loop.__name__
        assert all(p.kind is p.KEYWORD_ONLY for p in parameters if p.name in keywords), loop.__name__
        assert inspect.signature(loop).return_annotation == "tuple[str, list[TraceEntry]]", loop.__name__
