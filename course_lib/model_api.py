"""Infrastructure for notebooks 03-07: talking to the model's HTTP API with the standard library only.

`post_json` sends one JSON request and decodes the answer (HTTP errors raise `ModelHTTPError`); `MODEL` is
the model name every request sends; `TraceEntry` is one executed tool call, as every loop records it; `Loop`
is the signature every tool loop follows.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from course_lib.errors import ModelHTTPError

if TYPE_CHECKING:
    from course_lib.toolbox import Confirm, Toolbox

__all__ = ["MODEL", "REQUEST_TIMEOUT_SECONDS", "Loop", "TraceEntry", "post_json"]

MODEL = os.environ.get("OPENAI_MODEL", "stand-in-model")
"""The model name sent with every request: configuration, never a constant buried in a loop."""

REQUEST_TIMEOUT_SECONDS = 10.0


class TraceEntry(NamedTuple):
    """One executed tool call: the model request it came from, its name, raw arguments and result string."""

    step: int
    name: str
    arguments: str
    result: str


Connection = TypeVar("Connection", contravariant=True)


class Loop(Protocol[Connection]):
    """A tool loop: the five (03's `chat_tool_loop` and `responses_tool_loop`, 04's `chained_responses_loop`,
    `sdk_loop`'s two) share this signature and contract; they differ in the connection (`Loop[str]`: the base
    URL of a hand-written loop; `Loop[OpenAI]`: an SDK client) and in the options they add after these
    (03's `tool_choice`, `sticky` and `**extra`; 04's `**extra`).

    Send `user_text` offering `names` from `toolbox`, run each call the model asks for with `toolbox.run`
    (destructive ones only if `confirm` says yes), and return (the final text, the trace of every call run),
    or raise `MaxStepsExceeded` (carrying that trace) after `max_steps` model requests.
    """

    def __call__(
        self,
        connection: Connection,
        user_text: str,
        toolbox: Toolbox,
        names: Sequence[str],
        /,
        *,
        max_steps: int = 5,
        confirm: Confirm | None = None,
        model: str | None = None,
    ) -> tuple[str, list[TraceEntry]]: ...


def post_json(
    base: str, path: str, payload: Mapping[str, Any], timeout: float = REQUEST_TIMEOUT_SECONDS
) -> Any:
    """POST `payload` as JSON to base + path and return the decoded answer; HTTP errors raise ModelHTTPError."""
    request = urllib.request.Request(
        base + path,
        data=json.dumps(payload).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": "Bearer not-a-real-key"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        body = error.read()
        raise ModelHTTPError(error.code, _error_message(body), body) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
        raise ModelHTTPError(0, f"could not reach {base}: {getattr(error, 'reason', error)}") from None
    try:
        return json.loads(raw)
    except ValueError:
        raise ModelHTTPError(200, "the answer is not JSON", raw) from None


def _error_message(body: bytes) -> str:
    """The message of a documented error envelope, or the start of the raw body."""
    try:
        return str(json.loads(body)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return body[:200].decode("utf-8", "replace")
