"""Whether a person can click a widget now, or the notebook runs headless (nbclient, nbval, nbgrader, CI).

The rule: never a person while nbgrader executes (NBGRADER_EXECUTION is set); else COURSE_INTERACTIVE=1 or =0,
if set; else a person only in an IPython kernel that Jupyter Server started for a notebook (it sets
JPY_SESSION_NAME) with ipywidgets installed. nbclient, nbval and nbgrader start kernels without
JPY_SESSION_NAME, so they always run headless. Notebook 06's approval dialog and every notebook's quiz use it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping

__all__ = ["is_interactive"]


def _in_kernel() -> bool:
    """True inside an IPython kernel (not a plain interpreter or terminal IPython)."""
    if "ipykernel" not in sys.modules:
        return False
    shell = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    return getattr(shell, "kernel", None) is not None


def is_interactive(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a person can click a widget now (the rule is in the module docstring); else headless."""
    env = os.environ if environ is None else environ
    if env.get("NBGRADER_EXECUTION"):
        return False
    if "COURSE_INTERACTIVE" in env:
        return env["COURSE_INTERACTIVE"] == "1"
    has_widgets = importlib.util.find_spec("ipywidgets") is not None
    return bool(env.get("JPY_SESSION_NAME")) and has_widgets and _in_kernel()
