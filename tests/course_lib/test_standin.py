"""The stand-in server: routes, documented rules, limits, determinism and robustness."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from typing import Any

import pytest

from course_lib.standin import StandIn, load_script
from tests.support.http_helpers import CHAT_TOOLS, PARIS, RESPONSES_TOOLS, USER, call, raw_exchange


def chat_body(**extra: object) -> dict[str, object]:
    return {"model": "m", "messages": USER, "tools": CHAT_TOOLS, **extra}


def test_base_url_is_loopback_and_ends_in_v1(server: StandIn) -> None:
    assert server.base.startswith("http://127.0.0.1:") and server.base.endswith("/v1")


def test_unknown_route_is_404_with_error_envelope(server: StandIn) -> None:
    status, body, _ = call(server, "/embeddings", {"model": "m"})
    assert status == 404
    assert set(body["error"]) == {"message", "type", "param", "code"}


def test_get_on_a_route_is_405(server: StandIn) -> None:
    status, body, _ = call(server, "/chat/completions", None, method="GET")
    assert status == 405 and "POST" in body["error"]["message"]


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b"\xff\xfe", b"{" * 5000, b'{"model": NaN}'])
def test_a_body_that_is_not_a_json_object_is_400(server: StandIn, raw: bytes) -> None:
    status, body, _ = call(server, "/chat/completions", raw)
    assert status == 400 and "JSON" in body["error"]["message"]


def test_missing_model_is_400_naming_model(server: StandIn) -> None:
    status, body, _ = call(server, "/chat/completions", {"messages": USER})
    assert status == 400 and body["error"]["param"] == "model"


@pytest.mark.parametrize(("path", "field"), [("/chat/completions", "messages"), ("/responses", "input")])
def test_missing_history_is_400(server: StandIn, path: str, field: str) -> None:
    status, body, _ = call(server, path, {"model": "m"})
    assert status == 400 and body["error"]["param"] == field


def test_unanswered_chat_tool_call_is_400(server: StandIn) -> None:
    turn = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_9", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}  # fmt: skip
    status, body, _ = call(server, "/chat/completions", chat_body(messages=[*USER, turn]))
    assert status == 400 and "call_9" in body["error"]["message"]


def test_tool_result_without_its_assistant_turn_is_400(server: StandIn) -> None:
    messages = [*USER, {"role": "tool", "tool_call_id": "call_1", "content": "15"}]
    status, body, _ = call(server, "/chat/completions", chat_body(messages=messages))
    assert status == 400 and "call_1" in body["error"]["message"]


def test_responses_output_for_unknown_call_id_is_400(server: StandIn) -> None:
    items = [*USER, {"type": "function_call_output", "call_id": "call_7", "output": "x"}]
    status, body, _ = call(server, "/responses", {"model": "m", "input": items})
    assert status == 400 and "call_7" in body["error"]["message"]


def test_responses_call_never_answered_is_400(server: StandIn) -> None:
    items = [*USER, {"type": "function_call", "call_id": "call_3", "name": "get_weather", "arguments": "{}"}]
    status, body, _ = call(server, "/responses", {"model": "m", "input": items})
    assert status == 400 and "call_3" in body["error"]["message"]


@pytest.mark.parametrize("name", ["get weather", "get.weather", "x" * 65, "", "get_weather\n", 7])
def test_declared_tool_name_outside_the_documented_rule_is_400(server: StandIn, name: object) -> None:
    tools = [{"type": "function", "function": {"name": name}}]
    status, body, _ = call(server, "/chat/completions", chat_body(tools=tools))
    assert status == 400 and body["error"]["param"] == "tools[0].function.name"


def test_nested_function_object_in_responses_tools_is_400(server: StandIn) -> None:
    status, body, _ = call(server, "/responses", {"model": "m", "input": "hi", "tools": CHAT_TOOLS})
    assert status == 400 and "flat" in body["error"]["message"]


def test_tool_choice_without_tools_is_400(server: StandIn) -> None:
    status, body, _ = call(
        server, "/chat/completions", {"model": "m", "messages": USER, "tool_choice": "required"}
    )
    assert status == 400 and body["error"]["param"] == "tool_choice"


def test_forcing_a_tool_that_was_not_declared_is_400(server: StandIn) -> None:
    choice = {"type": "function", "function": {"name": "delete_note"}}
    status, _, _ = call(server, "/chat/completions", chat_body(tool_choice=choice))
    assert status == 400


def test_a_rejected_request_consumes_no_script_step(server: StandIn) -> None:
    server.reset([("text", "the only step")])
    call(server, "/chat/completions", {"messages": USER})
    status, body, _ = call(server, "/chat/completions", chat_body())
    assert status == 200 and body["choices"][0]["message"]["content"] == "the only step"


def test_every_error_says_do_not_retry(server: StandIn) -> None:
    _, _, headers = call(server, "/chat/completions", {"messages": USER})
    assert headers["x-should-retry"] == "false"


def test_a_script_function_that_raises_becomes_a_500(server: StandIn) -> None:
    server.reset([("text", lambda results: results[5])])
    status, body, _ = call(server, "/chat/completions", chat_body())
    assert status == 500 and "IndexError" in body["error"]["message"]
    assert body["error"]["type"] == "server_error"


def test_an_exhausted_script_answers_a_readable_500(server: StandIn) -> None:
    server.reset([("text", "one")])
    call(server, "/chat/completions", chat_body())
    status, body, _ = call(server, "/chat/completions", chat_body())
    assert status == 500 and "script exhausted" in body["error"]["message"]


def test_a_malformed_step_is_a_500_naming_the_step(server: StandIn) -> None:
    server.reset([("calls", ["get_weather"])])
    status, body, _ = call(server, "/chat/completions", chat_body())
    assert status == 500 and "calls step" in body["error"]["message"]


@pytest.mark.parametrize("status", [400, 429, 500, 503])
def test_an_error_step_answers_with_its_status(server: StandIn, status: int) -> None:
    server.reset([("error", status, "scripted failure")])
    answered, body, _ = call(server, "/chat/completions", chat_body())
    assert answered == status and body["error"]["message"] == "scripted failure"


def test_ids_count_up_per_server_and_reset_starts_over(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS), ("get_weather", PARIS)])])
    _, body, _ = call(server, "/chat/completions", chat_body())
    assert [c["id"] for c in body["choices"][0]["message"]["tool_calls"]] == ["call_1", "call_2"]
    server.reset([("calls", [("get_weather", PARIS)])])
    _, body, _ = call(server, "/chat/completions", chat_body())
    assert body["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"


def test_the_same_script_gives_byte_identical_answers_in_two_servers() -> None:
    answers = []
    for _ in range(2):
        with StandIn([("calls", [("get_weather", PARIS)]), ("text", "done")]) as stand_in:
            request = b'{"model": "m", "input": "hi", "tools": ' + json.dumps(RESPONSES_TOOLS).encode() + b"}"
            answers.append(stand_in.handle("POST", "/v1/responses", request).payload)
    assert json.dumps(answers[0]) == json.dumps(answers[1])


def test_tool_choice_none_answers_text_without_taking_a_step(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)])])
    _, body, _ = call(server, "/chat/completions", chat_body(tool_choice="none"))
    assert "none" in body["choices"][0]["message"]["content"] and server.remaining_steps == 1


@pytest.mark.parametrize(
    ("path", "choice", "tools"),
    [
        ("/chat/completions", {"type": "function", "function": {"name": "get_weather"}}, CHAT_TOOLS),
        ("/responses", {"type": "function", "name": "get_weather"}, RESPONSES_TOOLS),
    ],
)
def test_a_forced_tool_choice_makes_the_model_call_it(
    server: StandIn, path: str, choice: object, tools: object
) -> None:
    server.reset([("text", "I would rather chat")])
    history = {"messages": USER} if "chat" in path else {"input": USER}
    _, body, _ = call(server, path, {"model": "m", **history, "tools": tools, "tool_choice": choice})
    assert "get_weather" in json.dumps(body["choices"][0]["message"] if "chat" in path else body["output"])


def test_required_tool_choice_turns_a_text_step_into_a_call(server: StandIn) -> None:
    server.reset([("text", "no tools today")])
    _, body, _ = call(server, "/chat/completions", chat_body(tool_choice="required"))
    assert body["choices"][0]["finish_reason"] == "tool_calls"


def test_parallel_tool_calls_false_gives_at_most_one_call(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)] * 3)])
    _, body, _ = call(server, "/chat/completions", chat_body(parallel_tool_calls=False))
    assert len(body["choices"][0]["message"]["tool_calls"]) == 1


def test_a_reasoning_model_requires_its_reasoning_item_back() -> None:
    with StandIn([("calls", [("get_weather", PARIS)]), ("text", "15 C")], reasoning=True) as stand_in:
        _, first, _ = call(stand_in, "/responses", {"model": "m", "input": USER, "tools": RESPONSES_TOOLS})
        reasoning, function_call = first["output"]
        answer = {"type": "function_call_output", "call_id": function_call["call_id"], "output": "15"}
        body = {"model": "m", "tools": RESPONSES_TOOLS}
        dropped, error, _ = call(stand_in, "/responses", {**body, "input": [*USER, function_call, answer]})
        kept, _, _ = call(
            stand_in, "/responses", {**body, "input": [*USER, reasoning, function_call, answer]}
        )
    assert (dropped, kept) == (400, 200) and "reasoning" in error["error"]["message"]


def test_a_body_over_the_limit_is_refused_from_its_content_length(server: StandIn) -> None:
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n"
    answer = raw_exchange(server, head, shut_write=False)
    assert answer.startswith(b"HTTP/1.1 413") and b"too large" in answer


def test_a_body_without_content_length_is_411(server: StandIn) -> None:
    answer = raw_exchange(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 411")


def test_a_body_that_ends_early_is_400_not_a_hang(server: StandIn) -> None:
    answer = raw_exchange(server, b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400") and b"ended early" in answer


def test_garbage_on_the_socket_leaves_the_server_serving(server: StandIn) -> None:
    raw_exchange(server, b"\x00\x01 garbage \r\n\r\n")
    server.reset([("text", "still here")])
    status, body, _ = call(server, "/chat/completions", chat_body())
    assert status == 200 and body["choices"][0]["message"]["content"] == "still here"


def test_dozens_of_concurrent_clients_all_get_answers() -> None:
    def model(conversation: object) -> tuple[str, str]:
        return ("text", "ok")

    with StandIn(model=model) as stand_in:
        statuses: list[int] = []

        def client() -> None:
            statuses.append(call(stand_in, "/chat/completions", {"model": "m", "messages": USER})[0])
            statuses.append(call(stand_in, "/chat/completions", b"{broken")[0])

        threads = [threading.Thread(target=client) for _ in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert sorted(statuses) == [200] * 40 + [400] * 40


def test_the_log_records_path_body_and_status(server: StandIn) -> None:
    server.reset([("text", "hi")])
    call(server, "/chat/completions", chat_body())
    assert server.log[0].path == "/v1/chat/completions" and server.log[0].body["model"] == "m"
    assert server.log[0].status == 200


def test_a_json_script_loads_into_steps() -> None:
    steps = load_script([{"calls": [["get_weather", PARIS]]}, {"text": "done"}, {"error": [503, "busy"]}])
    assert steps == [("calls", [("get_weather", PARIS)]), ("text", "done"), ("error", 503, "busy")]


def test_a_malformed_json_script_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="step 0"):
        load_script([{"shout": "hi"}])


def test_the_command_line_server_answers_curl_style_requests(tmp_path: object) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "course_lib.standin", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        base = line.split()[3]
        stand_in = type("Target", (), {"base": base})()
        status, body, _ = call(stand_in, "/chat/completions", {"model": "m", "messages": USER})  # type: ignore[arg-type]
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert status == 200 and "Weather in Paris?" in body["choices"][0]["message"]["content"]


def test_close_ends_the_serving_thread_and_frees_the_port() -> None:
    """close() wakes the idle server itself rather than waiting for a poll interval; a second close is harmless."""
    stand_in = StandIn([])
    port = stand_in.port
    stand_in.close()
    stand_in.close()
    assert not stand_in._thread.is_alive()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_replies_go_out_without_nagle_delay(server: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    """Headers and body are separate writes: with Nagle on, each keep-alive reply waits for a delayed ACK."""
    handler = server._httpd.RequestHandlerClass
    nodelay: list[int] = []

    def setup(self: Any) -> None:
        original_setup(self)
        nodelay.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    original_setup = handler.setup
    monkeypatch.setattr(handler, "setup", setup)
    status, _, _ = call(server, "/embeddings", {"model": "m"})
    assert status == 404 and nodelay and all(nodelay)
