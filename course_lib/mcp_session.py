"""A synchronous MCP client session for notebook cells, on the official SDK's `ClientSession`.

A notebook cell runs inside an event loop, where `anyio.run` and `asyncio.run` refuse to start another; an
`McpSession` runs the SDK's session on a private loop in a thread of its own and answers plain calls:
`list_tools()`, `call_tool(name, arguments)`. `connect(server)` talks to a stand-in server in this process (the
SDK's in-memory streams); `launch(name)` starts one as a real process over stdio, with an environment of its own
that holds none of this process's variables (no key leaks into a server).

Every request has a deadline (`timeout`, 5 s unless given): a server that hangs raises `MCPError` with the code
`REQUEST_TIMEOUT`, one that dies `CONNECTION_CLOSED`; nothing waits for ever. `changed` tells whether the server
announced `notifications/tools/list_changed` since the last `list_tools()`. The SDK's own log is silenced: a
server's traceback must not reach a cell's stderr.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import IO, Any, TypeVar

import anyio
import mcp.types as types
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.session import MessageHandlerFnT
from mcp.shared.memory import create_client_server_memory_streams

from course_lib.mcp_servers import SCENARIOS, StandInServer

__all__ = ["McpSession", "connect", "launch", "stdio_parameters"]

logging.getLogger("mcp").setLevel(logging.CRITICAL)

DEFAULT_TIMEOUT = 5.0
"""Seconds a request may take before it fails with `REQUEST_TIMEOUT`."""

START_TIMEOUT = 30.0
"""Seconds a server may take to answer `initialize` (a process imports the SDK first: about a second)."""

T = TypeVar("T")

Opener = Callable[[MessageHandlerFnT], AbstractAsyncContextManager[ClientSession]]


class McpSession:
    """One client session with one MCP server, usable from plain (synchronous) code."""

    def __init__(self, name: str, opener: Opener, timeout: float, errors: IO[str] | None = None) -> None:
        self.name = name
        """The server's name, as the application knows it."""
        self.timeout = timeout
        self._changed = threading.Event()
        self._errors = errors
        self._portal_context = start_blocking_portal(backend="asyncio")
        self._portal = self._portal_context.__enter__()
        try:
            self._session_context = self._portal.wrap_async_context_manager(opener(self._on_message))
            self._session = self._session_context.__enter__()
        except BaseException as error:
            self._portal_context.__exit__(None, None, None)
            raise _first(error) from None
        self._closed = False

    async def _on_message(self, message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ToolListChangedNotification):
            self._changed.set()

    @property
    def changed(self) -> bool:
        """True when the server announced a change of its tools since the last `list_tools()`."""
        return self._changed.is_set()

    def list_tools(self) -> list[types.Tool]:
        """The tools the server lists now (every page)."""
        self._changed.clear()
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = self._request(
                functools.partial(
                    self._session.send_request,
                    types.ListToolsRequest(params=params),
                    types.ListToolsResult,
                    request_read_timeout_seconds=self.timeout,
                )
            )
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> types.CallToolResult:
        """The server's result of one `tools/call`; `MCPError` when the server refuses, times out or dies."""
        limit = self.timeout if timeout is None else timeout
        return self._request(
            lambda: self._session.call_tool(name, dict(arguments or {}), read_timeout_seconds=limit)
        )

    def server_log(self) -> str:
        """What a launched server wrote to its stderr so far ("" for a server in this process)."""
        if self._errors is None or self._errors.closed:
            return ""
        self._errors.flush()
        self._errors.seek(0)
        text = self._errors.read()
        self._errors.seek(0, os.SEEK_END)
        return text

    def _request(self, request: Callable[[], Awaitable[T]]) -> T:
        if self._closed:
            raise MCPError(types.CONNECTION_CLOSED, f"the session with {self.name} is closed")
        return self._portal.call(request)

    def close(self) -> None:
        """End the session (and stop a launched server); closing twice does nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            self._session_context.__exit__(None, None, None)
        except BaseException as error:  # a server that died: the session is over all the same
            if not isinstance(
                _first(error), MCPError | anyio.ClosedResourceError | anyio.BrokenResourceError
            ):
                raise
        finally:
            self._portal_context.__exit__(None, None, None)
            if self._errors is not None:
                self._errors.close()

    def __enter__(self) -> McpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<McpSession with {self.name}{' (closed)' if self._closed else ''}>"


def _first(error: BaseException) -> BaseException:
    """The first leaf of an exception group (the SDK's task groups wrap what escapes a session)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def connect(server: StandInServer, *, timeout: float = DEFAULT_TIMEOUT) -> McpSession:
    """A session with a stand-in server running in this process (no process, no socket)."""

    @contextlib.asynccontextmanager
    async def opened(on_message: MessageHandlerFnT) -> AsyncIterator[ClientSession]:
        async with create_client_server_memory_streams() as ((client_read, client_write), (read, write)):

            async def close_streams() -> None:  # a crash: the server's end of the connection goes away
                await write.aclose()
                await read.aclose()

            server.on_crash(close_streams)
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(server.serve, read, write)
                async with ClientSession(
                    client_read, client_write, read_timeout_seconds=START_TIMEOUT, message_handler=on_message
                ) as session:
                    await session.initialize()
                    yield session
                tasks.cancel_scope.cancel()

    return McpSession(server.name, opened, timeout)


LIBRARY = Path(__file__).resolve().parent.parent
"""The folder holding `course_lib`, which a launched server imports it from."""


def stdio_parameters(name: str, env: Mapping[str, str] | None = None) -> StdioServerParameters:
    """How to start the stand-in server `name` as a process over stdio (for the SDK's `stdio_client`, or an
    agent framework's stdio server): through `env -i`, so that its environment is `env` and the two variables
    it needs to import this library, nothing more."""
    if name not in SCENARIOS:
        raise ValueError(f"no stand-in MCP server {name!r}: the scenarios are {', '.join(SCENARIOS)}")
    variables = {"PYTHONPATH": str(LIBRARY), "PYTHONUTF8": "1", **(env or {})}
    assignments = [f"{key}={value}" for key, value in variables.items()]
    module = [sys.executable, "-m", "course_lib.mcp_servers", name]
    return StdioServerParameters(command="/usr/bin/env", args=["-i", *assignments, *module], cwd=str(LIBRARY))


def launch(
    name: str, *, timeout: float = DEFAULT_TIMEOUT, env: Mapping[str, str] | None = None
) -> McpSession:
    """A session with the stand-in server `name` (see `course_lib.mcp_servers.SCENARIOS`) started as a process
    over stdio (`stdio_parameters`: its environment is `env` and the two variables it needs to import this
    library; `env -i` clears what the SDK would pass on, HOME, PATH and the like). What the server writes to its
    stderr is kept for `server_log()`, away from the cell's."""
    parameters = stdio_parameters(name, env)
    errors = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - the session closes it

    @contextlib.asynccontextmanager
    async def opened(on_message: MessageHandlerFnT) -> AsyncIterator[ClientSession]:
        try:
            async with (
                stdio_client(parameters, errlog=errors) as (read, write),
                ClientSession(
                    read, write, read_timeout_seconds=START_TIMEOUT, message_handler=on_message
                ) as session,
            ):
                await session.initialize()
                yield session
        finally:
            errors.flush()

    return McpSession(name, opened, timeout, errors)
