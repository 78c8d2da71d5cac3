"""JupyterHub's configuration for a class of this course on one machine: the tests' hub and `course.py hub`'s.

It reads the hub's settings from the `hub.json` that `course_grade.hub.layout.lay_out_hub` wrote (the path in
$COURSE_HUB_SETTINGS, default: hub.json in the working folder). Loopback only; each user's server is a local
process started as that Unix user (LocalProcessSpawner) in their role's environment: learners get the
learners' edition and the Assignments tab, the instructor the whole course and the formgrader.
Logins use JupyterHub's own SharedPasswordAuthenticator: one password for the learners, another (an admin
password) for the instructor, so no learner can log in as the instructor. Fine for a demo and the tests; a
real class uses its institution's authenticator (see docs/instructors/hub.md).
"""

import json
import os
from pathlib import Path

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (JupyterHub injects get_config)

settings = json.loads(Path(os.environ.get("COURSE_HUB_SETTINGS", "hub.json")).read_text())
root = Path(settings["root"])

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = settings["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['api_port']}"
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.JupyterHub.db_url = f"sqlite:///{root / 'state' / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(root / "state" / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(root / "state" / "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True

c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = settings["user_password"]
c.SharedPasswordAuthenticator.admin_password = settings["admin_password"]
c.Authenticator.admin_users = {settings["instructor"]}
c.Authenticator.allowed_users = {settings["instructor"], *settings["learners"]}

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120  # a busy 2-core machine starts JupyterLab in 4-8 s; give it room
c.Spawner.http_timeout = 120
c.Spawner.env_keep = ["LANG", "LC_ALL"]  # nothing of root's PATH or Python settings reaches a user's server


def role_environment(spawner):  # type: ignore[no-untyped-def]
    """Start a user's server from their role's environment, with their role's Jupyter config."""
    role = "instructor" if spawner.user.name == settings["instructor"] else "learner"
    python = Path(settings["python"][role])
    spawner.cmd = [str(python), "-m", "jupyterhub.singleuser"]
    spawner.environment.update(
        {
            "PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin",
            "JUPYTER_CONFIG_PATH": settings["config_path"][role],
            "PYTHONNOUSERSITE": "1",
        }
    )


c.Spawner.pre_spawn_hook = role_environment
