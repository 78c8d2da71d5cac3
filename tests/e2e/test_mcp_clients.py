"""The stand-in MCP servers as real processes over stdio: with the official SDK's client
(course_lib.mcp_session.launch) and with an agent framework that speaks MCP (openai-agents), which the stand-in
model drives offline."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import pytest
from mcp import MCPError

from course_lib.mcp_servers import NOTES
from course_lib.mcp_session import launch, stdio_parameters
from course_lib.standin import StandIn


def test_a_launched_server_sees_only_the_variables_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    with launch("flaky", env={"NOTES_DIR": "/tmp/notes"}) as session:
        names = session.call_tool("show_environment").structured_content
    assert names is not None
    # LC_CTYPE: Python's own locale coercion; no_proxy, NO_PROXY: course_lib sets them on import (loopback)
    own = {"LC_CTYPE", "no_proxy", "NO_PROXY"}
    assert set(names["names"]) <= {"NOTES_DIR", "PYTHONPATH", "PYTHONUTF8", *own}, names
    assert (
        "NOTES_DIR" in names["names"]
        and "OPENAI_API_KEY" not in names["names"]
        and "HOME" not in names["names"]
    )
    assert os.environ["OPENAI_API_KEY"] == "sk-must-not-leak"


def test_a_launched_server_answers_announces_its_rug_pull_and_dies_without_a_hang() -> None:
    with launch("weather", timeout=3.0) as session:
        before = session.list_tools()
        answer = session.call_tool("get_weather", {"city": "Lima"})
        announced = session.changed
        after = session.list_tools()
        with pytest.raises(MCPError) as hung:
            session.call_tool("get_weather", {"city": "Lima"}, timeout=0.0001)
    assert answer.content[0].text == "19 °C in Lima"  # type: ignore[union-attr]
    assert announced and before[0].description != after[0].description
    assert hung.value.error.code == types.REQUEST_TIMEOUT
    with launch("flaky") as session, pytest.raises(MCPError) as crashed:
        session.call_tool("export")
    assert crashed.value.error.code == types.CONNECTION_CLOSED


def test_an_unknown_scenario_is_refused_before_any_process_starts() -> None:
    with pytest.raises(ValueError, match="scenarios are"):
        stdio_parameters("nope")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """The stand-in model: it calls the notes server's `read_note`, then answers with what the tool said."""
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    steps: list[Any] = [
        ("calls", [("read_note", '{"note_id": "n1"}')]),
        ("text", lambda results: f"The note says: {results[0]}"),
    ]
    with StandIn(steps) as stand_in:
        yield stand_in


def test_openai_agents_runs_a_tool_of_a_stand_in_mcp_server(model: StandIn) -> None:
    agents = pytest.importorskip("agents", reason="openai-agents comes with the 'frameworks' extra")
    from agents.mcp import MCPServerStdio
    from openai import AsyncOpenAI

    agents.set_tracing_disabled(True)
    parameters = stdio_parameters("notes")
    server = MCPServerStdio(
        params={"command": parameters.command, "args": parameters.args, "cwd": str(parameters.cwd)},
        cache_tools_list=False,
        client_session_timeout_seconds=30,
    )
    client = AsyncOpenAI(base_url=model.base, api_key="stand-in", max_retries=0)

    async def run() -> Any:
        async with server:
            agent = agents.Agent(
                name="notes",
                model=agents.OpenAIChatCompletionsModel(model="gpt-5", openai_client=client),
                mcp_servers=[server],
            )
            return (await agents.Runner.run(agent, "What does note n1 say?")).final_output

    output = asyncio.run(run())
    assert output == f"The note says: {NOTES['n1']}"
    offered = [tool["function"]["name"] for tool in model.log[0].body["tools"]]
    assert offered == ["search_notes", "read_note", "delete_note"]
    assert model.remaining_steps == 0
