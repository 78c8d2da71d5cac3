"""Stored responses on /v1/responses: `store`, `previous_response_id`, `item_reference`, GET, DELETE, input_items."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai
import pytest
from openai import OpenAI
from openai.types.responses import Response

from course_lib.standin import StandIn
from course_lib.wire.store import MAX_RESPONSES
from tests.course_lib.test_openapi_schemas import check
from tests.support.http_helpers import RESPONSES_TOOLS, call

PARIS = '{"city": "Paris"}'
MODES = [(reasoning, stream) for reasoning in (False, True) for stream in (False, True)]
MODE_IDS = [f"{'reasoning' if r else 'plain'}-{'stream' if s else 'json'}" for r, s in MODES]


def tool_turn_then_follow_up() -> list[Any]:
    return [("calls", [("get_weather", PARIS)]), ("text", lambda results: f"The tool said {results[0]}"),
            ("text", lambda results: f"Follow-up, results {results}")]  # fmt: skip


def strict_client(server: StandIn) -> OpenAI:
    return OpenAI(base_url=server.base, api_key="stand-in", _strict_response_validation=True, max_retries=0)


def create(client: OpenAI, stream: bool, **params: Any) -> Response:
    if not stream:
        return client.responses.create(model="m", tools=RESPONSES_TOOLS, **params)  # type: ignore[arg-type]
    with client.responses.stream(model="m", tools=RESPONSES_TOOLS, **params) as events:  # type: ignore[arg-type]
        for _ in events:
            pass
        return events.get_final_response()


def post(server: StandIn, body: dict[str, Any]) -> Any:
    return server.handle("POST", "/v1/responses", json.dumps({"model": "m", **body}).encode())


def calls_of(response: Response) -> list[Any]:
    return [item for item in response.output if item.type == "function_call"]


@pytest.mark.parametrize(("reasoning", "stream"), MODES, ids=MODE_IDS)
def test_a_follow_up_after_a_tool_turn_works_with_item_references(reasoning: bool, stream: bool) -> None:
    with StandIn(tool_turn_then_follow_up(), reasoning=reasoning) as server:
        client = strict_client(server)
        asked = create(client, stream, input="Weather in Paris?")
        references = [{"type": "item_reference", "id": item.id} for item in asked.output]
        (call_item,) = calls_of(asked)
        history = [{"role": "user", "content": "Weather in Paris?"}, *references,
                   {"type": "function_call_output", "call_id": call_item.call_id, "output": "15 C"}]  # fmt: skip
        answered = create(client, stream, input=history)
        follow_up = create(client, stream, input=[*history, {"type": "item_reference", "id": answered.output[0].id},
                                                  {"role": "user", "content": "And tomorrow?"}])  # fmt: skip
    assert (answered.output_text, follow_up.output_text) == ("The tool said 15 C", "Follow-up, results []")
    assert [exchange.status for exchange in server.log] == [200, 200, 200]


@pytest.mark.parametrize(("reasoning", "stream"), MODES, ids=MODE_IDS)
def test_previous_response_id_sends_only_the_new_items(reasoning: bool, stream: bool) -> None:
    with StandIn(tool_turn_then_follow_up(), reasoning=reasoning) as server:
        client = strict_client(server)
        asked = create(client, stream, input="Weather in Paris?")
        output = [{"type": "function_call_output", "call_id": calls_of(asked)[0].call_id, "output": "15 C"}]
        answered = create(client, stream, input=output, previous_response_id=asked.id)
        follow_up = create(client, stream, input="And tomorrow?", previous_response_id=answered.id)
        listed = [item.type for item in client.responses.input_items.list(follow_up.id, order="asc")]
    assert (answered.output_text, follow_up.output_text) == ("The tool said 15 C", "Follow-up, results []")
    assert listed == ["message"] + ["reasoning"] * reasoning + ["function_call", "function_call_output",
                                                                "message", "message"]  # fmt: skip


def test_previous_response_id_is_checked_as_a_replayed_history() -> None:
    with StandIn(tool_turn_then_follow_up()) as server:
        asked = post(server, {"input": "Weather?", "tools": RESPONSES_TOOLS})
        rejected = post(server, {"input": "Never mind", "previous_response_id": asked.payload["id"]})
        assert rejected.status == 400 and "No tool output found" in rejected.payload["error"]["message"]
        assert server.remaining_steps == 2 and len(server.stored) == 1


def test_resending_what_the_previous_response_holds_is_the_documented_duplicate_400() -> None:
    """The whole history sent again with previous_response_id: its items come twice, as on the real API."""
    with StandIn(tool_turn_then_follow_up()) as server:
        asked = post(server, {"input": "Weather?", "tools": RESPONSES_TOOLS}).payload
        (function_call,) = asked["output"]
        output = {"type": "function_call_output", "call_id": function_call["call_id"], "output": "15 C"}
        rejected = post(server, {"input": [{"role": "user", "content": "Weather?"}, function_call, output],
                                 "previous_response_id": asked["id"], "tools": RESPONSES_TOOLS})  # fmt: skip
    error = rejected.payload["error"]
    assert rejected.status == 400 and error["param"] == "input"
    assert error["message"].startswith(f"Duplicate item found with id {function_call['id']}.")
    assert server.remaining_steps == 2 and len(server.stored) == 1


def test_a_reasoning_call_referenced_without_its_reasoning_item_is_refused() -> None:
    with StandIn(tool_turn_then_follow_up(), reasoning=True) as server:
        asked = post(server, {"input": "Weather?", "tools": RESPONSES_TOOLS}).payload
        _, function_call = asked["output"]
        rejected = post(server, {"input": [{"role": "user", "content": "Weather?"},
                                           {"type": "item_reference", "id": function_call["id"]},
                                           {"type": "function_call_output", "call_id": function_call["call_id"],
                                            "output": "15 C"}], "tools": RESPONSES_TOOLS})  # fmt: skip
    assert rejected.status == 400 and "required reasoning item" in rejected.payload["error"]["message"]


def test_get_returns_the_stored_response_and_input_items_page_as_documented() -> None:
    with StandIn([("text", "one"), ("text", "two")]) as server:
        first = post(server, {"input": [{"role": "user", "content": f"q{i}"} for i in range(3)]}).payload
        second = post(server, {"input": "q3", "previous_response_id": first["id"]}).payload
        status, got, _ = call(server, f"/responses/{second['id']}", None, method="GET")
        pages = [call(server, f"/responses/{second['id']}/input_items?limit=2&order=asc{after}", None, "GET")[1]
                 for after in ("", "&after=msg_in_2")]  # fmt: skip
        newest = call(server, f"/responses/{second['id']}/input_items", None, method="GET")[1]
    assert status == 200 and got == second
    check("Response", got)
    for page in [*pages, newest]:
        check("ResponseItemList", page)
    assert [[item["id"] for item in page["data"]] for page in pages] == [["msg_in_1", "msg_in_2"],
                                                                        ["msg_in_3", "msg_1"]]  # fmt: skip
    assert [page["has_more"] for page in pages] == [True, True]
    assert (newest["first_id"], newest["last_id"], newest["has_more"]) == ("msg_in_4", "msg_in_1", False)


def test_delete_forgets_the_response_and_later_references_are_the_documented_404() -> None:
    with StandIn([("text", "one"), ("text", "unused")]) as server:
        first = post(server, {"input": "q"}).payload
        status, deleted, _ = call(server, f"/responses/{first['id']}", None, method="DELETE")
        again = [
            call(server, f"/responses/{first['id']}{rest}", None, method="GET")
            for rest in ("", "/input_items")
        ]
        chained = call(
            server, "/responses", {"model": "m", "input": "q", "previous_response_id": first["id"]}
        )
        referenced = call(
            server, "/responses", {"model": "m", "input": [{"type": "item_reference", "id": "msg_1"}]}
        )
    assert (status, deleted) == (200, {"id": first["id"], "object": "response", "deleted": True})
    for status, body, headers in [*again, chained, referenced]:
        assert (
            status == 404 and headers["x-should-retry"] == "false" and "not found" in body["error"]["message"]
        )
        check("ErrorResponse", body)
    assert (chained[1]["error"]["param"], referenced[1]["error"]["param"]) == (
        "previous_response_id",
        "input[0].id",
    )
    assert server.remaining_steps == 1


def test_the_sdk_raises_not_found_for_an_unknown_previous_response() -> None:
    with StandIn([("text", "unused")]) as server, pytest.raises(openai.NotFoundError, match="resp_404"):
        strict_client(server).responses.create(model="m", input="q", previous_response_id="resp_404")
    assert server.remaining_steps == 1


def test_store_false_keeps_nothing() -> None:
    with StandIn([("text", "one"), ("text", "unused")]) as server:
        first = post(server, {"input": "q", "store": False}).payload
        later = post(server, {"input": "q", "previous_response_id": first["id"]})
    assert (later.status, len(server.stored), server.remaining_steps) == (404, 0, 1)


def test_a_stand_in_with_store_off_keeps_nothing_even_when_asked() -> None:
    with StandIn([("text", "one")], store=False) as server:
        first = post(server, {"input": "q", "store": True}).payload
        status, _, _ = call(server, f"/responses/{first['id']}", None, method="GET")
    assert (status, len(server.stored)) == (404, 0)


def test_store_must_be_a_boolean() -> None:
    with StandIn([("text", "unused")]) as server:
        rejected = post(server, {"input": "q", "store": "yes"})
    assert (rejected.status, rejected.payload["error"]["param"], len(server.stored)) == (400, "store", 0)


def test_reset_clears_the_store() -> None:
    with StandIn([("text", "one")]) as server:
        first = post(server, {"input": "q"}).payload
        server.reset([("text", "two")])
        later = post(server, {"input": "q", "previous_response_id": first["id"]})
    assert later.status == 404 and len(server.stored) == 0


def test_the_wrong_methods_and_paths_under_a_stored_response_are_refused() -> None:
    with StandIn([("text", "one")]) as server:
        first = post(server, {"input": "q"}).payload
        answers = [server.handle(method, f"/v1/responses/{first['id']}{rest}", b"")
                   for method, rest in [("POST", ""), ("DELETE", "/input_items"), ("GET", "/nowhere")]]  # fmt: skip
    assert [answer.status for answer in answers] == [405, 405, 404]


def test_ten_thousand_stored_responses_keep_the_store_at_its_default_cap() -> None:
    with StandIn(model=lambda conversation: ("text", "ok")) as server:
        ids = [post(server, {"input": f"question {i}"}).payload["id"] for i in range(10_000)]
        assert len(server.stored) == MAX_RESPONSES and server.stored.item_count == 2 * MAX_RESPONSES
        assert post(server, {"input": "q", "previous_response_id": ids[-1]}).status == 200
        assert post(server, {"input": "q", "previous_response_id": ids[0]}).status == 404


def test_a_long_chain_is_bounded_by_the_item_cap() -> None:
    with StandIn(model=lambda conversation: ("text", "ok"), max_stored=50) as server:
        server.stored.max_items = 500
        previous = post(server, {"input": "start"}).payload["id"]
        for i in range(200):
            previous = post(server, {"input": f"q{i}", "previous_response_id": previous}).payload["id"]
        assert server.stored.item_count <= 500 and len(server.stored) < 50


def test_conversations_keep_at_most_max_items() -> None:
    with StandIn(model=lambda conversation: ("text", "ok")) as server:
        server.conversations.max_items = 30
        conversation = call(server, "/conversations", {})[1]["id"]
        for i in range(40):
            assert post(server, {"input": f"q{i}", "conversation": conversation}).status == 200
        assert server.conversations.item_count == 30


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_conversation_holds_a_tool_turn_and_its_follow_up(stream: bool) -> None:
    with StandIn(tool_turn_then_follow_up(), reasoning=True) as server:
        client = strict_client(server)
        conversation = client.conversations.create(items=[{"role": "user", "content": "Hello"}])
        asked = create(client, stream, conversation=conversation.id, input="Weather in Paris?")
        output = [{"type": "function_call_output", "call_id": calls_of(asked)[0].call_id, "output": "15 C"}]
        answered = create(client, stream, conversation={"id": conversation.id}, input=output)
        follow_up = create(client, stream, conversation=conversation.id, input="And tomorrow?")
        items = client.conversations.items.list(conversation.id, order="asc")
    assert (answered.output_text, follow_up.output_text) == ("The tool said 15 C", "Follow-up, results []")
    assert follow_up.conversation is not None and follow_up.conversation.id == conversation.id
    assert [item.type for item in items.data] == ["message", "message", "reasoning", "function_call",
                                                   "function_call_output", "message", "message", "message"]  # fmt: skip


def test_conversation_bodies_validate_against_the_published_schemas() -> None:
    with StandIn([("calls", [("get_weather", PARIS)])]) as server:
        status, created, _ = call(server, "/conversations", {"metadata": {"topic": "weather"}, "items": []})
        conversation = created["id"]
        response = post(
            server, {"input": "Weather?", "tools": RESPONSES_TOOLS, "conversation": conversation}
        ).payload
        listed = call(server, f"/conversations/{conversation}/items?limit=1", None, "GET")[1]
        added = call(
            server, f"/conversations/{conversation}/items", {"items": [{"role": "user", "content": "x"}]}
        )[1]
        item = call(server, f"/conversations/{conversation}/items/{listed['data'][0]['id']}", None, "GET")[1]
        updated = call(server, f"/conversations/{conversation}", {"metadata": {"topic": "rain"}})[1]
        deleted = call(server, f"/conversations/{conversation}", None, "DELETE")[1]
        gone = call(server, f"/conversations/{conversation}", None, "GET")
    assert status == 200 and updated["metadata"] == {"topic": "rain"} and listed["has_more"] is True
    for schema, body in [("ConversationResource", created), ("Response", response), ("ConversationItemList", listed),
                         ("ConversationItemList", added), ("ConversationItem", item),
                         ("ConversationResource", updated), ("DeletedConversationResource", deleted),
                         ("ErrorResponse", gone[1])]:  # fmt: skip
        check(schema, body)
    assert gone[0] == 404 and response["conversation"] == {"id": conversation}


def test_a_conversation_cannot_be_combined_with_previous_response_id_or_be_unknown() -> None:
    with StandIn([("text", "one"), ("text", "unused")]) as server:
        first = post(server, {"input": "q"}).payload
        both = post(server, {"input": "q", "conversation": "conv_1", "previous_response_id": first["id"]})
        unknown = post(server, {"input": "q", "conversation": "conv_404"})
    assert (both.status, both.payload["error"]["param"]) == (400, "conversation")
    assert (unknown.status, unknown.payload["error"]["param"], server.remaining_steps) == (
        404,
        "conversation",
        1,
    )


def test_a_stand_in_with_store_off_refuses_conversations() -> None:
    with StandIn(store=False) as server:
        status, body, _ = call(server, "/conversations", {})
    assert status == 400 and "keeps no state" in body["error"]["message"]


def test_concurrent_clients_each_find_their_own_stored_responses() -> None:
    with StandIn(model=lambda conversation: ("text", conversation.user_text)) as server:

        def chain(worker: int) -> list[str]:
            client = strict_client(server)
            first = client.responses.create(model="m", input=f"w{worker}")
            second = client.responses.create(
                model="m", input=f"again w{worker}", previous_response_id=first.id
            )
            return [item.type for item in client.responses.input_items.list(second.id)]

        with ThreadPoolExecutor(max_workers=8) as pool:
            listed = list(pool.map(chain, range(16)))
    assert listed == [["message", "message", "message"]] * 16 and len(server.stored) == 32
