"""The official Node SDKs (`openai`, `@anthropic-ai/sdk`) run one tool turn against the stand-in, plain and streamed.

They are installed from tests/e2e/node/package-lock.json by course.py's ensure_environment when npm exists.
Each scenario is in tests/e2e/node/clients.mjs: a hand-written loop per route, the Responses loop once with
item references (store left at its default) and once chained by previous_response_id, and the SDKs' own
tool-runner helpers on their defaults (`chat.completions.runTools`, `ResponsesToolRunner`,
`beta.messages.toolRunner`, which sends the beta `thread` field).
The stand-in is a reasoning model, so a dropped reasoning item fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from course_lib.standin import StandIn

NODE_CLIENTS = Path(__file__).parent / "node"
SCENARIOS = ["chat", "runTools", "responses", "chained", "responsesRunner", "messages", "toolRunner"]
PARIS = '{"city": "Paris"}'

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def run_node(server: StandIn, scenario: str, stream: bool) -> Any:
    installed = (NODE_CLIENTS / "node_modules" / "openai").is_dir()
    assert installed, (
        "the Node SDKs are not installed: course.py's ensure_environment runs npm ci in tests/e2e/node"
    )
    done = subprocess.run(
        ["node", str(NODE_CLIENTS / "clients.mjs"), scenario, "stream" if stream else "plain", server.root],
        capture_output=True, text=True, timeout=60, cwd=NODE_CLIENTS,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_node_sdk_completes_one_tool_turn(scenario: str, stream: bool) -> None:
    steps = [("calls", [("get_weather", PARIS)]), ("text", lambda results: f"The tool said {results[0]}")]
    with StandIn(steps, reasoning=True) as server:
        text = run_node(server, scenario, stream)
    assert text == "The tool said 15 C in Paris"
    assert [exchange.status for exchange in server.log] == [200, 200] and server.remaining_steps == 0
    assert all(bool(exchange.body.get("stream")) is stream for exchange in server.log)
    if scenario == "toolRunner":
        assert [exchange.body["thread"]["type"] for exchange in server.log] == ["create", "continue"]
    if scenario == "chained":
        assert "previous_response_id" in server.log[1].body


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_the_node_tool_runner_replays_the_history_when_the_thread_is_lost(stream: bool) -> None:
    steps = [("calls", [("get_weather", PARIS)]), ("text", lambda results: f"The tool said {results[0]}")]
    with StandIn(steps, reasoning=True, store=False) as server:
        text = run_node(server, "toolRunner", stream)
    assert text == "The tool said 15 C in Paris"
    assert [exchange.status for exchange in server.log] == [200, 404, 200]
