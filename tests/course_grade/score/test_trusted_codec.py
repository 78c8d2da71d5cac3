"""What a message from the learner may decode to on the trusted side, and objects that lie about their class."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from course_grade.score.trusted.pipe.codec import CHAIN_LISTS_PER_BYTE, CodecError, decode, encode
from course_grade.score.trusted.pipe.rpc import PeerFailure
from course_grade.score.trusted.session import LearnerProcess
from tests.support.trusted_fakes import NoRefs

BYTES_PER_BYTE = 200
"""The most memory (tracemalloc's peak) the strict decoder may take per byte of the wire it decodes."""


def chains(count: int, depth: int) -> dict[str, Any]:
    """A list of `count` chain nodes, each claiming `depth` nested lists (the issue's attack)."""
    top = {"k": "list", "v": [{"n": i + 1} for i in range(count)]}
    return {"v": {"n": 0}, "n": [top] + [{"k": "chain", "depth": depth, "v": []} for _ in range(count)]}


def peak_of_strict_decode(wire: dict[str, Any]) -> tuple[int, bool]:
    """tracemalloc's peak while the strict side decodes `wire` (value kept alive), and whether it refused."""
    tracemalloc.start()
    try:
        value = decode(wire, NoRefs(), strict=True)
        refused = False
    except CodecError:
        value, refused = None, True
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del value
    return peak, refused


def size(wire: dict[str, Any]) -> int:
    return len(json.dumps(wire, separators=(",", ":")))


def test_the_issues_chain_attack_is_refused_before_any_list_is_built() -> None:
    wire = chains(10, 500_000)
    assert size(wire) < 500
    peak, refused = peak_of_strict_decode(wire)
    assert refused and peak < 100_000


def test_a_chain_claiming_more_lists_than_its_bytes_pay_for_is_a_codec_error() -> None:
    with pytest.raises(CodecError, match="per byte"):
        decode(chains(1, 100_000), NoRefs(), strict=True)


def test_a_chain_its_bytes_pay_for_still_decodes() -> None:
    deep: list[object] = []
    for _ in range(40):
        deep = [deep]
    wire = encode(deep, NoRefs())[0]
    assert wire["n"][0]["k"] == "chain"
    assert decode(wire, NoRefs(), strict=True)[0] == deep


def test_the_learners_side_still_takes_the_graders_deep_inputs() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    back: Any = decode(encode(deep, NoRefs())[0], NoRefs(), strict=False)[0]
    depth = 0
    while back:
        back, depth = back[0], depth + 1
    assert depth == 100_000


HOSTILE = {
    "chains at the budget": chains(10, 40),
    "empty lists": {"v": {"n": 0}, "n": [{"k": "list", "v": [{"n": i} for i in range(1, 2000)]}]
    + [{"k": "list", "v": []} for _ in range(2000)]},
    "one shared list many times": {"v": {"n": 0}, "n": [{"k": "list", "v": [{"n": 1}] * 5000}, {"k": "list", "v": []}]},
    "tuples of tuples": {"v": {"n": 0}, "n": [{"k": "tuple", "v": [{"n": i + 1}]} for i in range(2999)]
    + [{"k": "tuple", "v": []}]},
    "bytes": {"v": {"n": 0}, "n": [{"k": "bytes", "v": "\u00ff" * 20_000}]},
    "a dict of small ints": {"v": {"n": 0}, "n": [{"k": "dict", "v": [[i, i] for i in range(5000)]}]},
    "complex numbers": {"v": {"n": 0}, "n": [{"k": "list", "v": [{"n": i} for i in range(1, 2000)]}]
    + [{"k": "complex", "v": [1.5, 2.5]} for _ in range(1999)]},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_what_a_learners_message_decodes_to_is_in_proportion_to_its_size(name: str) -> None:
    wire = HOSTILE[name]
    peak, _ = peak_of_strict_decode(wire)
    assert peak <= BYTES_PER_BYTE * size(wire), f"{name}: {peak} bytes from {size(wire)}"


def test_the_chain_budget_is_what_the_proportion_above_allows() -> None:
    """A list costs about 70 bytes, so the chain budget must leave room below BYTES_PER_BYTE."""
    assert CHAIN_LISTS_PER_BYTE * 80 <= BYTES_PER_BYTE


class Liar:
    """An object whose `__class__` claims `dict`."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return dict


def test_an_object_claiming_to_be_a_dict_is_encoded_by_its_real_class() -> None:
    wire = encode({"x": Liar()}, NoRefs())[0]
    assert [node["k"] for node in wire["n"]] == ["dict", "opaque"]


def test_an_object_whose_class_property_raises_is_a_codec_error_not_a_crash() -> None:
    class Broken:
        def __iter__(self) -> Any:
            raise ValueError("no")

    class Items(list[int]):
        def __iter__(self) -> Any:
            raise ValueError("no iterating me")

    with pytest.raises(CodecError, match="no iterating me"):
        encode(Items([1]), NoRefs())
    assert encode(Broken(), NoRefs())[0]["n"][0]["k"] == "opaque"


def loaded(process: LearnerProcess, source: str) -> Any:
    process.start(["f"], [], [])
    return process.load([source], 30).names["f"]


LIAR = "class Liar:\n    @property\n    def __class__(self):\n        return dict\n"


def test_a_learner_returning_an_object_that_claims_dict_keeps_its_process(tmp_path: Path) -> None:
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, LIAR + "def f(x):\n    return Liar() if x else 1\n")
        assert "Liar" in repr(f(True))
        assert f(False) == 1 and process.alive


def test_a_learner_returning_a_result_that_cannot_cross_gets_a_type_error(tmp_path: Path) -> None:
    source = "class Items(list):\n    def __iter__(self):\n        raise ValueError('no')\n"
    source += "def f():\n    return Items([1])\n"
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, source)
        with pytest.raises(TypeError, match="cannot cross"):
            f()
        assert process.alive


def test_a_learner_returning_lists_nested_400_000_deep_is_a_peer_failure(tmp_path: Path) -> None:
    source = "def f():\n    deep = []\n    for _ in range(400_000):\n        deep = [deep]\n    return [deep] * 10\n"
    with LearnerProcess(tmp_path) as process:
        f = loaded(process, source)
        with pytest.raises(PeerFailure, match="per byte"):
            f()
