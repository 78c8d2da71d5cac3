"""Notebook 07: the model clients the capstone gives, one module per API, each a `ModelClient` speaking the
envelope of `course_lib.turns` (their shared base): `responses` (Responses by hand), `openai_sdk` (Chat
Completions and Responses through the openai SDK), `anthropic_sdk` (Anthropic Messages through its SDK);
`base` holds what all four share (`GivenAdapter`: the request count, the tools field, the history and
`start`), `sdk` what the three SDK adapters add. This package re-exports them and builds one with `make_client`.

The fifth, Chat Completions by hand, is Part F's exercise (`course_lib.adapters.ChatAdapter`, the
reference, 07's key: a module of its own, outside this package, so a learners' edition can leave it out);
`make_client` takes the Chat Completions class to use. Anthropic sends a call's `input` as an object, so its
truncated arguments cannot arrive as a call: the turn ends at `stop_reason: "max_tokens"` instead, which is
a `ModelTurnError` (nothing in a cut-off turn runs; the run ends).
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Callable, Sequence
from typing import Any

from course_lib.clients.anthropic_sdk import ANTHROPIC_MAX_TOKENS, ANTHROPIC_MODEL, AnthropicAdapter
from course_lib.clients.openai_sdk import OpenAIChatAdapter, OpenAIResponsesAdapter
from course_lib.clients.responses import ResponsesAdapter
from course_lib.standin import StandIn
from course_lib.tools import Tool
from course_lib.turns import APIS, STAND_IN_KEY, ModelClient

__all__ = [
    "ANTHROPIC_MAX_TOKENS",
    "ANTHROPIC_MODEL",
    "AnthropicAdapter",
    "ChatClass",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "ResponsesAdapter",
    "make_client",
]

ChatClass = Callable[[str, Sequence[Tool]], ModelClient]
"""A Chat Completions adapter class: `ChatClass(base, tools)` is a ModelClient."""


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One default TLS context (the system's trusted roots) shared by every SDK client this module builds.

    Each SDK client would otherwise load the whole CA bundle again (~20 ms of CPU a client: most of what a
    pack run over an SDK costs). A context is safe to share between clients and threads once configured.
    """
    return ssl.create_default_context()


def make_client(
    api: str, server: StandIn, tools: Sequence[Tool], *, chat: ChatClass | None = None
) -> ModelClient:
    """The adapter for `api`, pointed at a stand-in; SDK clients validate strictly and never retry.

    `chat` is the Chat Completions adapter class to use for api "chat" (Part F's exercise: the learner's,
    or `course_lib.adapters.ChatAdapter`); without it, "chat" is refused.
    """
    if api == "chat":
        if chat is None:
            raise ValueError('api "chat" needs a Chat Completions adapter class: make_client(..., chat=...)')
        return chat(server.base, tools)
    if api == "responses":
        return ResponsesAdapter(server.base, tools)
    if api in ("openai-sdk-chat", "openai-sdk-responses"):
        import openai

        client = openai.OpenAI(**_strict(openai, server.base))
        return (
            OpenAIChatAdapter(client, tools)
            if api == "openai-sdk-chat"
            else OpenAIResponsesAdapter(client, tools)
        )
    if api == "anthropic":
        import anthropic

        return AnthropicAdapter(anthropic.Anthropic(**_strict(anthropic, server.root)), tools)
    raise ValueError(f"unknown api {api!r}; expected one of {', '.join(APIS)}")


def _strict(sdk: Any, base_url: str) -> dict[str, Any]:
    """An official SDK client's settings for the stand-in: strict validation of every answer, no retry."""
    return {
        "base_url": base_url,
        "api_key": STAND_IN_KEY,
        "_strict_response_validation": True,
        "max_retries": 0,
        "http_client": sdk.DefaultHttpxClient(verify=_tls_context()),
    }
