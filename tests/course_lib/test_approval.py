import json
from typing import Any

import pytest

from course_lib.approval import (
    DENIED,
    ApprovalQueue,
    ask,
    confirm_exactly,
    is_interactive,
    scripted_approver,
)
from course_lib.demo_tools import notes_of, weather_toolbox
from course_lib.loops import chat_tool_loop
from course_lib.standin import StandIn
from course_lib.tools import Toolbox, run_tool_call

NOT_PERFORMED = {"error": "a human did not confirm this action; it was NOT performed"}


def queued(*note_ids: int) -> ApprovalQueue:
    """A queue over a fresh weather toolbox holding one proposed delete_note per note id."""
    queue = ApprovalQueue(weather_toolbox())
    for note_id in note_ids:
        run_tool_call(
            queue.toolbox, "delete_note", json.dumps({"note_id": note_id}), ["delete_note"], queue.confirm
        )
    return queue


def recording_box(seen: list[dict[str, Any]]) -> Toolbox:
    box = Toolbox()
    box.tool("erase", "Erase.", {"id": {"type": "integer"}, "tags": {"type": "array"}}, destructive=True)(
        lambda **arguments: seen.append(arguments) or "erased"
    )
    return box


# ---- the confirm step inside the loop --------------------------------------------------------------------


@pytest.mark.timeout(60)  # a confirm that waited for a click would hang here
def test_confirm_never_blocks_even_when_interactive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COURSE_INTERACTIVE", "1")
    assert len(queued(1).pending) == 1


def test_confirm_records_and_says_not_performed() -> None:
    queue = ApprovalQueue(weather_toolbox())
    out = run_tool_call(queue.toolbox, "delete_note", '{"note_id": 2}', ["delete_note"], queue.confirm)
    assert json.loads(out) == NOT_PERFORMED and notes_of(queue.toolbox) == {1: "buy milk", 2: "call the bank"}
    assert [(call.name, call.arguments) for call in queue.pending] == [("delete_note", {"note_id": 2})]


def test_the_loop_finishes_with_a_queue_as_confirm(server: StandIn) -> None:
    server.reset([("calls", [("delete_note", '{"note_id": 1}')]), ("text", lambda results: results[0])])
    queue = ApprovalQueue(weather_toolbox())
    text, _ = chat_tool_loop(
        server.base, "Delete note 1", queue.toolbox, ["delete_note"], confirm=queue.confirm
    )
    assert json.loads(text) == NOT_PERFORMED and len(queue.pending) == 1


# ---- approving runs exactly what was recorded --------------------------------------------------------


def test_approved_arguments_are_exactly_the_ones_that_run() -> None:
    seen: list[dict[str, Any]] = []
    queue = ApprovalQueue(recording_box(seen))
    run_tool_call(queue.toolbox, "erase", '{"tags": ["a", 1.0], "id": 7}', ["erase"], queue.confirm)
    assert json.loads(queue.approve(queue.pending[0]).result) == {"result": "erased"}
    assert seen == [{"id": 7, "tags": ["a", 1.0]}] and type(seen[0]["tags"][1]) is float


def test_approving_one_call_runs_only_that_call() -> None:
    queue = queued(1, 2)
    queue.approve(queue.pending[1])
    assert notes_of(queue.toolbox) == {1: "buy milk"} and [call.number for call in queue.pending] == [1]


def test_a_call_cannot_be_approved_twice() -> None:
    queue = queued(2)
    call = queue.pending[0]
    queue.approve(call)
    with pytest.raises(ValueError, match="not pending"):
        queue.approve(call)


def test_a_recorded_call_cannot_be_edited() -> None:
    call = queued(2).pending[0]
    call.arguments["note_id"] = 1
    assert call.arguments == {"note_id": 2}
    with pytest.raises(AttributeError):
        call.arguments_json = '{"note_id": 1}'  # type: ignore[misc]


def test_deny_runs_nothing() -> None:
    queue = queued(1)
    verdict = queue.deny(queue.pending[0])
    assert json.loads(verdict.result) == {"error": DENIED} and len(notes_of(queue.toolbox)) == 2


# ---- confirm_exactly ----------------------------------------------------------------------------------


def test_a_changed_argument_is_not_approved() -> None:
    confirm = confirm_exactly("delete_note", {"note_id": 2})
    assert not confirm("delete_note", {"note_id": 1}) and not confirm("delete_note", {"note_id": 2, "x": 0})
    assert not confirm("delete_notes", {"note_id": 2}) and confirm("delete_note", {"note_id": 2})


def test_true_and_one_and_one_point_oh_are_different_arguments() -> None:
    for other in (True, 1.0, "1"):
        assert not confirm_exactly("f", {"x": 1})("f", {"x": other})


def test_confirm_exactly_says_yes_only_once() -> None:
    confirm = confirm_exactly("delete_note", {"note_id": 2})
    assert confirm("delete_note", {"note_id": 2}) and not confirm("delete_note", {"note_id": 2})


# ---- the approver contract ----------------------------------------------------------------------------


def test_raising_approver_means_no() -> None:
    def broken(name: str, arguments: dict[str, Any]) -> bool:
        raise RuntimeError("the dialog crashed")

    assert ask(broken, "delete_note", {"note_id": 1}) is False


@pytest.mark.parametrize("answer", [1, "yes", "True", [True], None, object()])
def test_only_an_explicit_true_means_yes(answer: object) -> None:
    assert ask(lambda name, arguments: answer, "delete_note", {"note_id": 1}) is False


def test_approver_cannot_change_the_arguments() -> None:
    queue = queued(2)
    queue.decide(lambda name, arguments: arguments.update(note_id=1) is None)
    assert notes_of(queue.toolbox) == {1: "buy milk"}


def test_scripted_approver_answers_in_order_then_no() -> None:
    approver = scripted_approver([True, False])
    assert [approver("f", {}) for _ in range(3)] == [True, False, False]


def test_decide_applies_the_scripted_verdicts() -> None:
    queue = queued(1, 2)
    verdicts = queue.decide(scripted_approver([False, True]))
    assert [v.approved for v in verdicts] == [False, True] and notes_of(queue.toolbox) == {1: "buy milk"}


# ---- headless or interactive --------------------------------------------------------------------------


def test_nbgrader_execution_is_always_headless() -> None:
    env = {"NBGRADER_EXECUTION": "autograde", "COURSE_INTERACTIVE": "1", "JPY_SESSION_NAME": "06.ipynb"}
    assert is_interactive(env) is False


def test_course_interactive_decides_when_set() -> None:
    assert is_interactive({"COURSE_INTERACTIVE": "1"}) is True
    assert is_interactive({"COURSE_INTERACTIVE": "0", "JPY_SESSION_NAME": "06.ipynb"}) is False


def test_a_session_name_outside_a_kernel_is_headless() -> None:
    """pytest is not a kernel: a leaked JPY_SESSION_NAME alone does not make it interactive."""
    assert is_interactive({"JPY_SESSION_NAME": "06.ipynb"}) is False and is_interactive({}) is False


def test_headless_review_prints_the_scripted_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    queue = queued(1, 2)
    queue.review(scripted_approver([False, True]), interactive=False)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "headless: a scripted approver decides 2 pending call(s)"
    assert lines[2].startswith('  #2 delete_note({"note_id": 2}): approved -> {"result"')


def test_headless_review_without_an_approver_denies_everything(capsys: pytest.CaptureFixture[str]) -> None:
    queue = queued(1)
    queue.review(interactive=False)
    assert "denied" in capsys.readouterr().out and len(notes_of(queue.toolbox)) == 2


def test_dialog_approve_button_runs_the_call_once() -> None:
    queue = queued(2)
    box = queue.dialog(queue.pending[0])
    approve, deny = box.children[1].children
    approve.click(), deny.click()
    assert notes_of(queue.toolbox) == {1: "buy milk"} and [v.approved for v in queue.verdicts] == [True]


def test_dialog_escapes_what_the_model_wrote() -> None:
    queue = ApprovalQueue(recording_box([]))
    run_tool_call(queue.toolbox, "erase", '{"id": 1, "tags": ["<img src=x>"]}', ["erase"], queue.confirm)
    assert "<img" not in queue.dialog(queue.pending[0]).children[0].value
