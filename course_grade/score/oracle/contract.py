"""What a differential hidden test is made of: a part (the graded name, its reference, what its contract fixes)
and its strategy families (generated inputs, each carrying the notebook sentence it exercises).

A part's `observe(answer, example)` runs one answer on one generated example and returns what the contract fixes
as plain data (`shape` turns values into it): a return value's type and value, an exception's type and the
fragments of its message the prose fixes, what became of the inputs. Whatever the contract leaves open is left
out of it, so two answers that both keep the contract observe equal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class Family:
    """One family of generated inputs and the sentence of the notebook it exercises."""

    sentence: str
    """The rule, in the words of the learners' notebook (shown to a learner whose answer it catches)."""
    cell: str
    """The grade_id of the test cell whose hidden region calls it."""
    inputs: st.SearchStrategy[Any]
    """The examples: each is passed whole to the part's `observe`."""
    examples: int = 60
    """How many examples are drawn (a fixed budget: the same ones on every run and machine)."""
    local: str = ""
    """Non-empty when the family can be observed only where the answer runs in the judging process (the forked
    shells, the mutation runs), not across the trusted checks' pipe: why (identity, the call stack's depth,
    a callback's own objects). The trusted checks skip it; the enumerated checks of its cell still run there."""
    observe: Callable[[Any, Any], Any] | None = None
    """What this family compares, when it is less than its part's `observe`: a rule another family states (a
    copy's independence, say) must not cost this family's cell too. None: the part's."""


@dataclass(frozen=True)
class Part:
    """A graded name, its reference, and what its contract fixes."""

    assignment: str
    name: str
    """The graded name a learner defines (a function or a class)."""
    reference: Callable[[], Any]
    """Returns the reference (the key), loaded only where the grader judges."""
    observe: Callable[[Any, Any], Any]
    """(answer, example) -> what the contract fixes, as plain comparable data."""
    observables: str
    """What `observe` compares, in one or two sentences (and so what it leaves open)."""
    families: Mapping[str, Family] = field(default_factory=dict)


def shape(value: Any, depth: int = 0) -> Any:
    """`value` as comparable data: exact types kept, NaN equal to NaN, dict keys in any order, cycles cut."""
    if depth > 200:
        return ("deep",)
    kind = type(value)
    if kind is float:
        return ("float", "nan" if math.isnan(value) else value)
    if kind in (bool, int, str, bytes, type(None)):
        return (kind.__name__, value)
    if kind is dict:
        items = [(shape(key, depth + 1), shape(item, depth + 1)) for key, item in value.items()]
        return ("dict", tuple(sorted(items, key=repr)))
    if kind in (list, tuple):
        return (kind.__name__, tuple(shape(item, depth + 1) for item in value))
    if kind in (set, frozenset):
        return (kind.__name__, tuple(sorted((shape(item, depth + 1) for item in value), key=repr)))
    if isinstance(value, BaseException):
        return ("raised", kind.__name__)
    return (kind.__qualname__, repr(value)[:200])


def words_in(message: str, words: tuple[str, ...]) -> tuple[str, ...]:
    """The fixed words of `words` a message names (as whole words), in `words`' order."""
    import re  # noqa: PLC0415 - only a refusal needs it

    return tuple(word for word in words if re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", message))


ABORTING: tuple[type[BaseException], ...] = ()
"""Exceptions that end a judging rather than being observed (set by `judge.aborting`: the learner's process lost)."""


def call_outcome(
    answer: Callable[..., Any],
    *args: Any,
    refusals: tuple[type[BaseException], ...] = (),
    words: tuple[str, ...] = (),
) -> tuple[Any, ...]:
    """What one call gives, as the contract fixes it: ("returned", shape) or ("refused", error type, the fixed
    `words` its message names) for a stated refusal, or ("raised", type name) for any other exception."""
    try:
        result = answer(*args)
    except refusals as error:
        return ("refused", type(error).__name__, words_in(str(error), words))
    except Exception as error:
        if isinstance(error, ABORTING):
            raise
        return ("raised", type(error).__name__)
    return ("returned", shape(result))


def focused(
    call: Callable[[Any, Any], Any],
    view: Callable[[Any], Any] | None = None,
    refusals: tuple[type[BaseException], ...] = (),
) -> Callable[[Any, Any], Any]:
    """An observation for one family's rule: `call(answer, example)` returned, refused (a `refusals` type) or
    raised (by type), and what `view` keeps of a returned value (None: nothing). The rest of the value is
    other families' rules, so a mistake against one of them costs this family's cell nothing."""

    def observe(answer: Any, example: Any) -> Any:
        try:
            result = call(answer, example)
        except refusals as error:
            return ("refused", type(error).__name__)
        except Exception as error:
            if isinstance(error, ABORTING):
                raise
            return ("raised", type(error).__name__)
        if view is None:
            return ("returned",)
        try:
            return ("returned", view(result))
        except Exception as error:  # a value of another shape than the contract's: itself, as data
            return ("returned", "not of the contract's shape", type(error).__name__, shape(result))

    return observe


def containers(value: Any) -> list[Any]:
    """Every dict and list inside `value`, `value` included (to check that a result shares none with an input)."""
    found, stack, seen = [], [value], set()
    while stack:
        item = stack.pop()
        if type(item) in (dict, list) and id(item) not in seen:
            seen.add(id(item))
            found.append(item)
            stack.extend(item.values() if type(item) is dict else item)
    return found


def shares_a_container(result: Any, given: Any) -> bool:
    """True when `result` holds (or is) a dict or list that is also inside `given`."""
    return bool({id(item) for item in containers(result)} & {id(item) for item in containers(given)})
