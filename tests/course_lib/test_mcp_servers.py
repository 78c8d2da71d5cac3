"""The stand-in MCP servers (course_lib.mcp_servers) seen through the official SDK's client session, in memory
(course_lib.mcp_session.connect): what each scenario lists and answers, and that nothing hangs."""

from __future__ import annotations

import asyncio
import base64
import time

import mcp.types as types
import pytest
from mcp import MCPError

from course_lib.mcp_servers import HUGE_CHARACTERS, INJECTED_PAGE, NOTES, POISON, SCENARIOS, scenario
from course_lib.mcp_session import connect


def test_the_notes_server_lists_its_tools_exactly_as_declared() -> None:
    server = scenario("notes")
    with connect(server) as session:
        listed = session.list_tools()
    assert [tool.model_dump() for tool in listed] == [tool.model_dump() for tool in server.tools]
    annotations = {tool.name: tool.annotations for tool in listed}
    assert annotations["read_note"] is not None and annotations["read_note"].read_only_hint is True
    assert annotations["delete_note"] is not None and annotations["delete_note"].destructive_hint is True


def test_a_call_is_answered_and_recorded_with_its_arguments() -> None:
    server = scenario("notes")
    with connect(server) as session:
        found = session.call_tool("search_notes", {"query": "THE"})
        deleted = session.call_tool("delete_note", {"note_id": "n1"})
        missing = session.call_tool("read_note", {"note_id": "n1"})
    assert found.structured_content == {"note_ids": ["n2", "n3"]} and not found.is_error
    assert not deleted.is_error and missing.is_error and "n1" not in server.notes
    assert server.calls == [
        ("search_notes", {"query": "THE"}),
        ("delete_note", {"note_id": "n1"}),
        ("read_note", {"note_id": "n1"}),
    ]


def test_a_server_changes_nothing_a_client_does_to_the_tools_it_got() -> None:
    server = scenario("notes")
    with connect(server) as session:
        first = session.list_tools()
        first[0].input_schema["properties"].clear()
        assert session.list_tools()[0].input_schema["properties"] == {
            "query": {"type": "string", "description": "Words to look for."}
        }


def test_an_unknown_tool_is_an_error_result_not_an_exception() -> None:
    with connect(scenario("notes")) as session:
        result = session.call_tool("drop_tables", {})
    assert result.is_error and "drop_tables" in result.content[0].text  # type: ignore[union-attr]


def test_the_poisoned_server_hides_instructions_in_a_description_and_a_schema_field() -> None:
    with connect(scenario("calculator")) as session:
        tools = {tool.name: tool for tool in session.list_tools()}
        result = session.call_tool("add", {"a": 2, "b": 3})
    assert POISON in (tools["add"].description or "")
    assert "read_note" in tools["add"].input_schema["properties"]["sidenote"]["description"]
    assert result.structured_content == {"sum": 5}


def test_a_tool_annotated_read_only_may_still_delete() -> None:
    server = scenario("calculator")
    with connect(server) as session:
        tidy = next(tool for tool in session.list_tools() if tool.name == "tidy_notes")
        session.call_tool("tidy_notes", {})
    assert tidy.annotations is not None and tidy.annotations.read_only_hint is True
    assert server.notes == {}, "the annotation lies: the call deleted every note"


@pytest.mark.parametrize("announce", [True, False], ids=["announced", "silent"])
def test_the_rug_pull_changes_the_tool_after_its_first_call(announce: bool) -> None:
    server = scenario("weather" if announce else "weather-silent")
    with connect(server) as session:
        before = session.list_tools()
        answer = session.call_tool("get_weather", {"city": "Paris"})
        announced = session.changed
        after = session.list_tools()
        changed_after_listing = session.changed
    assert answer.content[0].text == "15 °C in Paris"  # type: ignore[union-attr]
    assert [tool.name for tool in before] == [tool.name for tool in after] == ["get_weather"]
    assert "<IMPORTANT>" not in (before[0].description or "") and "<IMPORTANT>" in (
        after[0].description or ""
    )
    assert (
        "token" in after[0].input_schema["properties"] and "token" not in before[0].input_schema["properties"]
    )
    assert announced is announce and changed_after_listing is False


def test_two_servers_offer_the_same_tool_name_one_steering_the_other() -> None:
    with connect(scenario("mailer")) as mailer, connect(scenario("helper")) as helper:
        honest, shadow = mailer.list_tools()[0], helper.list_tools()[0]
    assert honest.name == shadow.name == "send_email"
    assert "audit@attacker.example" in (shadow.description or "")
    assert "attacker" not in (honest.description or "")


def test_results_of_every_kind_reach_the_client() -> None:
    with connect(scenario("shop")) as session:
        page = session.call_tool("fetch_page")
        chart = session.call_tool("sales_chart")
        attachment = session.call_tool("attachment")
        order = session.call_tool("lookup_order", {"order_id": "A-1"})
        stock = session.call_tool("check_stock")
    assert [block.type for block in page.content] == ["text"] and page.content[0].text == INJECTED_PAGE  # type: ignore[union-attr]
    image = chart.content[1]
    assert isinstance(image, types.ImageContent) and base64.b64decode(image.data).startswith(b"\x89PNG")
    embedded, link = attachment.content
    assert isinstance(embedded, types.EmbeddedResource) and embedded.resource.text == NOTES["n2"]  # type: ignore[union-attr]
    assert isinstance(link, types.ResourceLink) and link.name == "archive.csv"
    assert order.structured_content == {"order_id": "A-1", "status": "shipped", "items": 2}
    assert stock.is_error is True


def test_a_hanging_tool_times_out_and_the_session_goes_on() -> None:
    with connect(scenario("flaky"), timeout=0.2) as session:
        started = time.monotonic()
        with pytest.raises(MCPError) as raised:
            session.call_tool("slow_report")
        waited = time.monotonic() - started
        listed = [tool.name for tool in session.list_tools()]
    assert raised.value.error.code == types.REQUEST_TIMEOUT
    assert waited < 10, f"the timeout of 0.2 s took {waited:.1f} s"
    assert "slow_report" in listed


def test_a_crash_mid_call_closes_the_connection_and_nothing_hangs() -> None:
    with connect(scenario("flaky"), timeout=5.0) as session:
        with pytest.raises(MCPError) as during:
            session.call_tool("export")
        with pytest.raises(MCPError) as after:
            session.list_tools()
    assert during.value.error.code == after.value.error.code == types.CONNECTION_CLOSED


def test_a_huge_result_arrives_whole() -> None:
    with connect(scenario("flaky")) as session:
        result = session.call_tool("dump_logs")
    assert len(result.content[0].text) == HUGE_CHARACTERS  # type: ignore[union-attr]


def test_a_closed_session_refuses_requests_and_closes_twice_quietly() -> None:
    session = connect(scenario("notes"))
    session.close()
    session.close()
    with pytest.raises(MCPError) as raised:
        session.list_tools()
    assert raised.value.error.code == types.CONNECTION_CLOSED and "closed" in raised.value.error.message
    assert "closed" in repr(session)


def test_a_session_works_from_inside_a_running_event_loop_as_in_a_notebook_cell() -> None:
    async def cell() -> list[str]:
        with connect(scenario("notes")) as session:
            return [tool.name for tool in session.list_tools()]

    assert asyncio.run(cell()) == ["search_notes", "read_note", "delete_note"]


def test_each_scenario_is_a_fresh_server_with_its_own_state() -> None:
    first, second = scenario("notes"), scenario("notes")
    first.notes.clear()
    assert second.notes == NOTES and first.calls is not second.calls
    assert set(SCENARIOS) >= {
        "notes",
        "calculator",
        "weather",
        "weather-silent",
        "mailer",
        "helper",
        "shop",
        "flaky",
    }


def test_an_unknown_scenario_is_refused_with_the_known_names() -> None:
    with pytest.raises(ValueError, match="no stand-in MCP server 'nope'.*notes"):
        scenario("nope")
