"""Behind a proxy (usual at universities and on hubs), every client of the stand-in still goes direct to loopback."""

from __future__ import annotations

import os
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from course_lib.adapters import ChatAdapter
from course_lib.clients import make_client
from course_lib.demo_tools import weather_toolbox
from course_lib.loopback import LOOPBACK, bypass_proxies_for_loopback
from course_lib.loops import chat_tool_loop, post_json, responses_tool_loop
from course_lib.standin import StandIn
from course_lib.turns import APIS
from tests.support.notebook_runner import graded_results, instructor_notebook

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
SOURCE = Path(__file__).resolve().parents[2] / "grading" / "source"


class FakeProxy:
    """A local socket that records every connection made to it and closes it: any count means the proxy was used."""

    def __init__(self) -> None:
        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.sock.accept()
            except OSError:  # closed
                return
            self.connections += 1
            connection.close()


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProxy]:
    """Every proxy variable points at a FakeProxy; no_proxy holds an unrelated host, as a hub's might."""
    fake = FakeProxy()
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, fake.url)
    monkeypatch.setenv("no_proxy", "internal.example")
    monkeypatch.delenv("NO_PROXY", raising=False)
    yield fake
    fake.sock.close()


def test_the_fake_proxy_gets_loopback_traffic_without_the_bypass(proxy: FakeProxy) -> None:
    """The control: without loopback in no_proxy, urllib sends a stand-in request to the proxy.

    A fresh opener, since `urlopen`'s global one keeps the proxies of the environment it first saw."""
    with StandIn([("text", "hi")]) as server, pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.build_opener().open(server.root + "/v1/models", timeout=5)
    assert proxy.connections == 1


def test_loopback_is_merged_into_both_variables_keeping_what_was_there(proxy: FakeProxy) -> None:
    bypass_proxies_for_loopback()
    assert os.environ["no_proxy"] == "internal.example," + ",".join(LOOPBACK)
    assert os.environ["NO_PROXY"] == ",".join(LOOPBACK)


def test_the_bypass_changes_nothing_twice_or_when_no_proxy_is_a_star() -> None:
    env = {"no_proxy": "*", "NO_PROXY": "a.example,localhost,127.0.0.1,::1"}
    bypass_proxies_for_loopback(env)
    bypass_proxies_for_loopback(env)
    assert env == {"no_proxy": "*", "NO_PROXY": "a.example,localhost,127.0.0.1,::1"}


def test_the_urllib_loops_go_direct_behind_a_proxy(proxy: FakeProxy) -> None:
    bypass_proxies_for_loopback()
    paris = [("calls", [("get_weather", '{"city": "Paris", "unit": "celsius"}')]), ("text", "15 C")]
    with StandIn() as server:
        for loop in (chat_tool_loop, responses_tool_loop):
            server.reset(paris)
            assert loop(server.base, "Weather?", weather_toolbox(), ["get_weather"])[0] == "15 C"
        server.reset([("text", "hi")])
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        assert post_json(server.base, "/chat/completions", body)["choices"][0]["message"]["content"] == "hi"
    assert proxy.connections == 0


@pytest.mark.parametrize("api", APIS)
def test_every_adapter_and_sdk_client_goes_direct_behind_a_proxy(proxy: FakeProxy, api: str) -> None:
    bypass_proxies_for_loopback()
    with StandIn([("text", "hi")]) as server:
        client = make_client(api, server, [], chat=ChatAdapter)
        try:
            assert client.start("hi", timeout=10) == [{"kind": "final", "text": "hi"}]
        finally:
            client.close()
    assert proxy.connections == 0


@pytest.mark.timeout(300)
def test_a_learners_own_urllib_loop_in_03_passes_every_test_behind_a_proxy(proxy: FakeProxy) -> None:
    """The kernel inherits the proxy; importing course_lib in the setup cell is what lets its urllib go direct."""
    results = graded_results(instructor_notebook("03_loop"), SOURCE / "03_loop")
    assert results and all(results.values()) and proxy.connections == 0, results
