"""Notebook 07: the support-desk harness, one concept per module.

- `data`: the data set, its four tools and their business rules (`CANARY`, `READ_TOOLS`, `WRITE_TOOLS`);
- `policy`: the policy table (auto, confirm, never) and the approver;
- `budget`: requests, wall-clock seconds (on an injectable clock) and identical repeated calls;
- `audit`: one entry per proposed call, secrets redacted;
- `taint`: writes carrying values that came from tool output;
- `harness`: `run_desk`, the loop that puts them together.

`python -m course_lib.desk` runs the misbehaving-model pack (`course_lib.pack`) and prints its table.
"""

from course_lib.desk.audit import REDACTED, audit_entry, audit_lines, clean, find_secrets, redact, write_audit
from course_lib.desk.budget import Budget, FakeClock, canonical
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
from course_lib.desk.harness import (
    DEFAULT_USER_TEXT,
    MAX_CALLS_PER_TURN,
    STATUSES,
    DeskResult,
    declarations,
    run_desk,
)
from course_lib.desk.policy import (
    APPROVER_TIMEOUT_SECONDS,
    DEFAULT_POLICY,
    OPEN_POLICY,
    POLICIES,
    READ_ONLY_POLICY,
    Approver,
    Policy,
    ask_approver,
    effective_mode,
    mode_for,
    offered_tools,
)
from course_lib.desk.taint import Taint

__all__ = [
    "APPROVER_TIMEOUT_SECONDS",
    "AUTO_REFUND_LIMIT_CENTS",
    "CANARY",
    "DEFAULT_POLICY",
    "DEFAULT_USER_TEXT",
    "INJECTIONS",
    "MAX_CALLS_PER_TURN",
    "OPEN_POLICY",
    "POLICIES",
    "READ_ONLY_POLICY",
    "READ_TOOLS",
    "REDACTED",
    "SIGNED_IN",
    "STATUSES",
    "WRITE_TOOLS",
    "Approver",
    "Budget",
    "DeskResult",
    "FakeClock",
    "Policy",
    "Taint",
    "ask_approver",
    "audit_entry",
    "audit_lines",
    "canonical",
    "clean",
    "declarations",
    "effective_mode",
    "desk_toolbox",
    "find_secrets",
    "mode_for",
    "offered_tools",
    "over_auto_limit",
    "redact",
    "refunds_of",
    "run_desk",
    "write_audit",
]
