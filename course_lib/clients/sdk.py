"""What the three SDK adapters share: their client, a body an SDK can encode, and an SDK's errors as every
model failure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from course_lib.clients.base import GivenAdapter
from course_lib.errors import ModelHTTPError
from course_lib.loops import MODEL
from course_lib.tools import Tool

if TYPE_CHECKING:  # the SDKs are imported only when an SDK adapter is used: each import costs seconds
    import anthropic
    import openai

_SURROGATE = re.compile("[\ud800-\udfff]")


class Client(Protocol):
    """An official SDK's client (`openai.OpenAI`, `anthropic.Anthropic`; each adapter declares which)."""

    def close(self) -> None: ...


def sendable(value: Any) -> Any:
    """A copy with every lone surrogate replaced by U+FFFD: an SDK encodes bodies as UTF-8 and cannot send one."""
    if isinstance(value, dict):
        return {sendable(key): sendable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [sendable(item) for item in value]
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    return value


def sdk_error(sdk: Any, error: openai.APIError | anthropic.APIError) -> ModelHTTPError:
    """An error of the SDK `sdk` (the `openai` or `anthropic` module) as the harness sees every model failure."""
    if isinstance(error, sdk.APIStatusError):
        return ModelHTTPError(error.status_code, error.message)
    return ModelHTTPError(0, f"{type(error).__name__}: {error.message}")


class SDKAdapter(GivenAdapter):
    """A given adapter over an official SDK's client, which `close` closes."""

    def __init__(self, client: Client, tools: Sequence[Tool], *, model: str = MODEL) -> None:
        super().__init__(tools, model)
        self.client = client

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self.client.close()
