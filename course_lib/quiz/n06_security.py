"""The checkpoint questions of notebook 06 (security), as the learner reads them.

The answers are a key: `course_lib.quiz_answers.n06_security`.
"""

from course_lib.quiz.question import Question

QUESTIONS = (
    Question(
        'The model calls `calculate` with `{"expression": "10 ** 10 ** 10"}`. What does the dispatcher send back?',
        "choice",
        (
            "A number with ten billion digits, after a long wait",
            '`{"error": "operator not allowed: Pow"}`, before either operand is computed',
            "An error about the size of the result, once it is computed",
            "`inf`",
        ),
    ),
    Question(
        "This request offered only `fetch_page`, but your registry also holds `delete_note`. The model calls "
        '`delete_note` with `{"note_id": 1}`. What does `run_tool_call` do?',
        "choice",
        (
            "Asks the human to confirm, then runs it",
            "Parses the arguments, then refuses",
            "Runs it: the registry has it",
            "Answers `unknown tool 'delete_note'` with `available_tools: [\"fetch_page\"]`, checking nothing else",
        ),
    ),
    Question(
        'A colleague\'s approver returns the string the person typed, `"no"`. What happens with '
        "`run_tool_call`?",
        "choice",
        (
            "The call is NOT performed; `if confirm(name, args):` would have run it",
            "The call runs: a non-empty string is true",
            "`run_tool_call` raises `TypeError`",
            "Both refuse it",
        ),
    ),
    Question(
        "Why does `ApprovalQueue.confirm` answer no at once instead of showing the dialog and waiting for "
        "the click?",
        "choice",
        (
            "Denying is always safer",
            "It is faster",
            "A kernel handles widget messages only when no cell runs: waiting inside the loop's cell would hang",
            "nbgrader forbids widgets",
        ),
    ),
    Question(
        'A person approved `delete_note({"note_id": 2})` in the dialog. Before `approve` runs it, could '
        "anything change the call to delete note 1?",
        "choice",
        (
            "Yes: the arguments are a dict anyone holding it can edit",
            "Yes: the model can send the call again",
            "Only the person who approved it",
            "No: the recorded call is frozen, and its one-shot confirm says yes only to those arguments, once",
        ),
    ),
    Question(
        "The fetched page in section 7 was labelled `UNTRUSTED_DATA_NOT_INSTRUCTIONS`, yet the note "
        "disappeared under the first policy. What do you change first?",
        "choice",
        (
            "Stop offering `delete_note` to a request that only summarises a page",
            "A louder label",
            "A lower temperature",
            "Strip the HTML from the page",
        ),
    ),
)
