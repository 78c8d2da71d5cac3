"""Traffic to the local stand-in never goes through a proxy: loopback is added to `no_proxy` on import.

Universities and hubs often set `http_proxy`, `https_proxy` or `ALL_PROXY`. Python's `urllib` and the
`httpx` client under the `openai` and `anthropic` SDKs then send every request to that proxy, the
stand-in's `http://127.0.0.1:PORT` included, unless the host is listed in `no_proxy` (or `NO_PROXY`).
A proxy can never reach this machine's loopback server (on the proxy, 127.0.0.1 is the proxy itself), so
the request fails with a misleading "Connection refused" or a proxy's 502. Importing `course_lib` merges
the loopback names into both variables of this process, keeping whatever was there: every client the
kernel builds afterwards (the library's loops, the SDKs, a learner's own `urllib` code) goes direct to
loopback and through the proxy everywhere else, and the kernel's child processes inherit the same.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

__all__ = ["LOOPBACK", "bypass_proxies_for_loopback"]

LOOPBACK = ("localhost", "127.0.0.1", "::1")
"""The names of this machine that no proxy may carry (urllib and httpx match them exactly, not as a range)."""


def bypass_proxies_for_loopback(environ: MutableMapping[str, str] | None = None) -> None:
    """Add LOOPBACK to `no_proxy` and `NO_PROXY` in `environ` (default: this process), keeping their entries."""
    env = os.environ if environ is None else environ
    for name in ("no_proxy", "NO_PROXY"):
        entries = [entry.strip() for entry in env.get(name, "").split(",") if entry.strip()]
        if "*" in entries:
            continue  # already no proxy for any host
        missing = [host for host in LOOPBACK if host not in entries]
        if missing or name not in env:
            env[name] = ",".join([*entries, *missing])
