"""Notebook 07: the support desk, one concept per module.

Infrastructure (what this package re-exports, and what a learners' edition holds):

- `data`: the data set, its four tools and their business rules (`CANARY`, `READ_TOOLS`, `WRITE_TOOLS`);
- `policy_tables`: the policies (auto, confirm, never) and what an approver is;
- `clock`: the `FakeClock` budgets are measured on in tests and in the pack;
- `log_safety`: what a log line must never hold, and `find_secrets`, the detector;
- `taint`: writes carrying values that came from tool output;
- `runs`: what a run returns (`DeskResult`), its statuses and defaults.

The exercises' references (keys, never imported here): `policy` (Parts A and B), `budget` (C), `audit`
(D and E); `harness` is the reference `run_desk` put together from them and `course_lib.adapters`.
`python -m course_lib.desk` runs the misbehaving-model pack (`course_lib.pack`) on it and prints its table.
"""

from course_lib.desk.clock import FakeClock
from course_lib.desk.data import (
    AUTO_REFUND_LIMIT_CENTS,
    CANARY,
    INJECTIONS,
    READ_TOOLS,
    SIGNED_IN,
    WRITE_TOOLS,
    desk_toolbox,
    over_auto_limit,
    refunds_of,
)
from course_lib.desk.log_safety import KEY_PATTERN, MAX_AUDIT_CHARS, REDACTED, SECRET_PIECE, find_secrets
from course_lib.desk.policy_tables import (
    APPROVER_TIMEOUT_SECONDS,
    DEFAULT_POLICY,
    OPEN_POLICY,
    POLICIES,
    READ_ONLY_POLICY,
    Approver,
    Policy,
)
from course_lib.desk.runs import DEFAULT_USER_TEXT, MAX_CALLS_PER_TURN, STATUSES, DeskResult
from course_lib.desk.taint import Taint

__all__ = [
    "APPROVER_TIMEOUT_SECONDS",
    "AUTO_REFUND_LIMIT_CENTS",
    "CANARY",
    "DEFAULT_POLICY",
    "DEFAULT_USER_TEXT",
    "INJECTIONS",
    "KEY_PATTERN",
    "MAX_AUDIT_CHARS",
    "MAX_CALLS_PER_TURN",
    "OPEN_POLICY",
    "POLICIES",
    "READ_ONLY_POLICY",
    "READ_TOOLS",
    "REDACTED",
    "SECRET_PIECE",
    "SIGNED_IN",
    "STATUSES",
    "WRITE_TOOLS",
    "Approver",
    "DeskResult",
    "FakeClock",
    "Policy",
    "Taint",
    "desk_toolbox",
    "find_secrets",
    "over_auto_limit",
    "refunds_of",
]
