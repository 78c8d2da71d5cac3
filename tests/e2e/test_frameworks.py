"""Frameworks nobody here wrote run one tool turn against the stand-in: chat and responses, streamed and not.

They come with the optional extra: `pip install -e '.[test,frameworks]'`; without it these tests skip.
Each turn is: the model calls `get_weather`, the framework runs it and sends the result back, the model
answers with text built from that result. The stand-in is a reasoning model on the Responses route, so a
framework that drops the reasoning item (or its `encrypted_content`) fails the replay check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from course_lib.standin import StandIn

PARIS = '{"city": "Paris"}'
MODES = [(api, stream) for api in ("chat", "responses") for stream in (False, True)]


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"15 C in {city}"


def tool_turn() -> list[Any]:
    return [("calls", [("get_weather", PARIS)]), ("text", lambda results: f"The tool said {results[0]}")]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # frameworks build their own HTTP clients
    with StandIn(tool_turn(), reasoning=True) as stand_in:
        yield stand_in


def check_turn(server: StandIn, output: object, stream: bool) -> None:
    assert output == f"The tool said {get_weather('Paris')}"
    assert server.remaining_steps == 0 and [exchange.status for exchange in server.log] == [200, 200]
    assert [bool(exchange.body.get("stream")) for exchange in server.log] == [stream, stream]


def run_pydantic_ai(server: StandIn, api: str, stream: bool) -> object:
    pydantic_ai = pytest.importorskip("pydantic_ai", reason="pydantic-ai comes with the 'frameworks' extra")
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=server.base, api_key="stand-in")
    model_class = OpenAIChatModel if api == "chat" else OpenAIResponsesModel
    agent = pydantic_ai.Agent(model_class("gpt-5", provider=provider), tools=[get_weather])
    if not stream:
        return agent.run_sync("Weather in Paris?").output

    async def streamed() -> object:
        async with agent.run_stream("Weather in Paris?") as result:
            return await result.get_output()

    return asyncio.run(streamed())


def run_openai_agents(server: StandIn, api: str, stream: bool) -> object:
    agents = pytest.importorskip("agents", reason="openai-agents comes with the 'frameworks' extra")
    from openai import AsyncOpenAI

    agents.set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=server.base, api_key="stand-in", max_retries=0)
    model_class = agents.OpenAIChatCompletionsModel if api == "chat" else agents.OpenAIResponsesModel
    agent = agents.Agent(name="weather", model=model_class(model="gpt-5", openai_client=client),
                         tools=[agents.function_tool(get_weather)])  # fmt: skip

    async def run() -> object:
        if not stream:
            return (await agents.Runner.run(agent, "Weather in Paris?")).final_output
        result = agents.Runner.run_streamed(agent, "Weather in Paris?")
        async for _ in result.stream_events():
            pass
        return result.final_output

    return asyncio.run(run())


def run_langchain_openai(server: StandIn, api: str, stream: bool) -> object:
    langchain_openai = pytest.importorskip(
        "langchain_openai", reason="langchain-openai comes with the 'frameworks' extra"
    )
    from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
    from langchain_core.tools import tool

    weather = tool(get_weather)
    model = langchain_openai.ChatOpenAI(model="gpt-5", base_url=server.base, api_key="stand-in", max_retries=0,
                                        use_responses_api=api == "responses")  # fmt: skip
    bound = model.bind_tools([weather])

    def turn(history: list[BaseMessage]) -> Any:
        if not stream:
            return bound.invoke(history)
        chunks = list(bound.stream(history))
        whole = chunks[0]
        for chunk in chunks[1:]:
            whole = whole + chunk
        return whole

    history: list[BaseMessage] = [HumanMessage("Weather in Paris?")]
    asked = turn(history)
    history.append(asked)
    history += [
        ToolMessage(weather.invoke(call["args"]), tool_call_id=call["id"]) for call in asked.tool_calls
    ]
    return turn(history).text


FRAMEWORKS: dict[str, Callable[[StandIn, str, bool], object]] = {
    "pydantic-ai": run_pydantic_ai,
    "openai-agents": run_openai_agents,
    "langchain-openai": run_langchain_openai,
}


@pytest.mark.parametrize(
    ("api", "stream"), MODES, ids=[f"{a}-{'stream' if s else 'plain'}" for a, s in MODES]
)
@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_framework_completes_one_tool_turn(server: StandIn, framework: str, api: str, stream: bool) -> None:
    check_turn(server, FRAMEWORKS[framework](server, api, stream), stream)
