"""Notebook 04's instructor solutions of Parts D and E against course_lib.streaming, over generated streams.

The streams keep to the shapes the parts' prose promises (documented chunk and event shapes) and vary everything
the prose rules on: interleaved and reordered indexes, repeated names, text beside calls, empty arguments,
several content parts, reasoning items whose done event differs from the added one, cut streams, bad endings.
Both functions must give the same result or raise the same exception type, and leave the stream unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib import streaming
from tests.support.instructor_solutions import instructor_solution

Stream = list[Any]
SETTINGS = settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
NAMES = ("get_weather", "get_time")
piece = st.text(alphabet='{}":, abc°\\', max_size=6)


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """Both instructor solutions: the namespace up to Part E's solution also holds Part D's."""
    with instructor_solution("04_wire", "assemble_responses_stream") as namespace:
        yield namespace


def outcome(fn: Callable[[Stream], Any], stream: Stream) -> tuple[str, Any]:
    """What `fn` makes of a copy of `stream`: ("ok", result) or ("raised", exception type name)."""
    mine = copy.deepcopy(stream)
    try:
        result: tuple[str, Any] = ("ok", fn(iter(mine)))
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        result = ("raised", type(error).__name__)
    assert mine == stream, f"{fn.__module__}.{fn.__name__} modified the stream it was given"
    return result


def merge(draw: st.DrawFn, queues: list[list[Any]]) -> list[Any]:
    """The queues' items interleaved in an order drawn at random, each queue's own order kept."""
    queues = [list(queue) for queue in queues if queue]
    merged = []
    while queues:
        queue = queues[draw(st.integers(0, len(queues) - 1))]
        merged.append(queue.pop(0))
        queues = [queue for queue in queues if queue]
    return merged


def chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {
        "object": "chat.completion.chunk",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


@st.composite
def chat_streams(draw: st.DrawFn) -> Stream:
    """A chat stream: text and calls interleaved, maybe cut, maybe badly finished or opened."""
    queues: list[list[Any]] = []
    text = draw(st.none() | st.lists(st.text(max_size=4), max_size=4))
    if text is not None:
        queues.append([chunk({"content": part}) for part in text])
    for number, index in enumerate(draw(st.lists(st.integers(0, 5), unique=True, max_size=3))):
        fragments = draw(st.lists(piece, min_size=1, max_size=4))
        repeat = draw(st.booleans())
        opening: dict[str, Any] = {"index": index, "id": f"call_{number}", "type": "function"}
        opening["function"] = {"name": draw(st.sampled_from(NAMES)), "arguments": fragments[0]}
        for key in draw(st.sampled_from([(), (), ("id",), ("name",)])):
            (opening if key == "id" else opening["function"]).pop(key)
        parts = [opening] + [
            {"index": index, **({"id": opening.get("id")} if repeat else {}),
             "function": {"arguments": fragment, **({"name": "x"} if repeat else {})}}
            for fragment in fragments[1:]
        ]  # fmt: skip
        queues.append([chunk({"tool_calls": [part]}) for part in parts])
    if draw(st.booleans()):
        queues.append([chunk({"content": "other"}, index=1)])
    stream: Stream = [chunk({"role": "assistant", "content": draw(st.sampled_from([None, ""]))})]
    stream += merge(draw, queues)
    finish = draw(st.sampled_from([None, "stop", "tool_calls", "length", "content_filter"]))
    if finish is not None:
        stream.append(chunk({}, finish))
    if draw(st.booleans()):
        stream.append({"object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 1}})
    if draw(st.booleans()):
        stream.append("[DONE]")
        if draw(st.booleans()):
            stream.append(chunk({"content": "late"}, "length"))
    if draw(st.booleans()):
        stream = stream[: draw(st.integers(0, len(stream)))]
    return stream


def item_events(draw: st.DrawFn, index: int, number: int) -> list[dict[str, Any]]:
    """The events of one output item at `index`: added, its deltas, done (done last)."""
    at = {"output_index": index}
    kind = draw(st.sampled_from(["function_call", "message", "reasoning"]))
    if kind == "function_call":
        fragments = draw(st.lists(piece, max_size=4))
        arguments = "".join(fragments)
        item = {
            "type": kind,
            "id": f"fc_{number}",
            "call_id": f"call_{number}",
            "name": draw(st.sampled_from(NAMES)),
        }
        added = {**item, "arguments": draw(st.sampled_from(["", arguments])), "status": "in_progress"}
        said = arguments if draw(st.integers(0, 9)) else arguments + "}"
        return [
            {"type": "response.output_item.added", **at, "item": added},
            *({"type": "response.function_call_arguments.delta", **at, "delta": f} for f in fragments),
            {"type": "response.function_call_arguments.done", **at, "arguments": said},
            {
                "type": "response.output_item.done",
                **at,
                "item": {**item, "arguments": said, "status": "completed"},
            },
        ]
    if kind == "message":
        texts = draw(st.lists(st.lists(st.text(max_size=4), max_size=3), min_size=1, max_size=3))
        part = {"type": "output_text", "text": "", "annotations": []}
        item = {"type": kind, "id": f"msg_{number}", "role": "assistant"}
        opened = [
            {"type": "response.content_part.added", **at, "content_index": i, "part": part}
            for i in range(len(texts))
        ]
        deltas = [
            [{"type": "response.output_text.delta", **at, "content_index": i, "delta": d} for d in text]
            for i, text in enumerate(texts)
        ]
        content = [{**part, "text": "".join(text)} for text in texts]
        return [
            {
                "type": "response.output_item.added",
                **at,
                "item": {**item, "status": "in_progress", "content": []},
            },
            *opened,
            *merge(draw, deltas),
            {"type": "response.output_text.done", **at, "content_index": 0, "text": content[0]["text"]},
            {
                "type": "response.output_item.done",
                **at,
                "item": {**item, "status": "completed", "content": content},
            },
        ]
    thought = {"type": kind, "id": f"rs_{number}", "summary": []}
    said = draw(st.sampled_from([thought, {**thought, "summary": [{"type": "summary_text", "text": "t"}]}]))
    return [
        {"type": "response.output_item.added", **at, "item": thought},
        {"type": "response.output_item.done", **at, "item": {**said, "encrypted_content": "sealed"}},
    ]


@st.composite
def responses_streams(draw: st.DrawFn) -> Stream:
    """A Responses stream: items added in any order and interleaved, maybe cut, badly ended or stray."""
    count = draw(st.integers(0, 3))
    order = draw(st.permutations(range(count)))
    queues = [item_events(draw, index, number) for number, index in enumerate(order)]
    stream: Stream = [{"type": "response.created"}, {"type": "response.in_progress"}, *merge(draw, queues)]
    if draw(st.integers(0, 5)) == 0:
        position = draw(st.integers(0, len(stream)))
        stray = {"type": "response.function_call_arguments.delta", "output_index": count + 3, "delta": "{"}
        stream.insert(position, stray)
    ending = draw(
        st.sampled_from(["response.completed"] * 3 + ["response.incomplete", "response.failed", "error"])
    )
    stream.append({"type": ending})
    if draw(st.booleans()):
        stream.append(
            draw(
                st.sampled_from(
                    [
                        {"type": "error"},
                        {
                            "type": "response.output_item.added",
                            "output_index": 9,
                            "item": {"type": "reasoning"},
                        },
                    ]
                )
            )
        )
    if draw(st.integers(0, 3)) == 0:
        stream = stream[: draw(st.integers(0, len(stream)))]
    return stream


@SETTINGS
@given(chat_streams())
def test_the_chat_solution_assembles_every_stream_as_the_reference_does(
    solutions: dict[str, Any], stream: Stream
) -> None:
    reference = outcome(streaming.assemble_chat_stream, stream)
    assert outcome(solutions["assemble_chat_stream"], stream) == reference


@SETTINGS
@given(responses_streams())
def test_the_responses_solution_assembles_every_stream_as_the_reference_does(
    solutions: dict[str, Any], stream: Stream
) -> None:
    reference = outcome(streaming.assemble_responses_stream, stream)
    assert outcome(solutions["assemble_responses_stream"], stream) == reference
