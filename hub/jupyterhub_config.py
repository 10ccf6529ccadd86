# JupyterHub for a class on one machine: `make class` (tools/class_hub.py) starts it as
#     jupyterhub -f hub/jupyterhub_config.py
# with its settings in CLASS_* environment variables (tools/class_hub.py names each).
#
# - Loopback only: the proxy on 127.0.0.1:CLASS_PORT, the hub and the proxy's API on
#   127.0.0.1 too. Put a TLS reverse proxy in front to open it to a room.
# - Each learner's server runs as their own Unix user (LocalProcessSpawner) with a private
#   home (mode 0700), created by the hub (it runs as root) the first time they sign in.
# - The authenticator is the teacher's choice (CLASS_AUTH):
#     shared (default): one class password for learners (CLASS_PASSWORD), the teacher's own
#       (CLASS_TEACHER_PASSWORD, 32+ characters); each name signed in gets a Unix user.
#     pam: the machine's existing Unix accounts and their passwords; nobody is created.
#   Any other authenticator (GitHub, your university's OAuth) goes here in the same way;
#   make it a LocalAuthenticator with create_system_users so learners get Unix users.
# - The teacher (CLASS_TEACHER) is an admin: the admin page lists learners' servers, and
#   /user/<learner>/ opens one to help (admins hold access:servers).
# - A server opens at the nbgitpuller link: the course is pulled into the learner's home
#   (their edits kept) and JupyterLab opens at the course map.
# - Limits per learner, from hub/z2jh/values.yaml (hub/class_limits.py), the Kubernetes
#   values' own: memory (CLASS_MEM_LIMIT overrides it) and, where set, CPU. Each server, and
#   everything it starts, runs in a control group of the learner's (hub/class_cgroups.py,
#   hub/class_spawner.py): past the memory limit the machine stops that learner's biggest
#   process (a kernel), never a neighbour's, and learners share the CPU equally. Where the
#   machine cannot give the hub control groups, its first line says so and why.
# - MEM_LIMIT is set for every server, so the course's server settings run at most two
#   kernels at once (binder/jupyter_server_config.py).
# - jupyterhub-idle-culler stops servers idle for CLASS_CULL_TIMEOUT seconds; files stay.
# - The server's API token can act only for that learner's own server (JupyterHub's
#   'server' role); kernels and terminals do not even get it (tools/class_env.py).
# CLASS_DEMO=1 (not root): every learner runs as you, in /tmp/<name>: a demo, never a class.
import atexit
import os
import sys

from jupyterhub.auth import PAMAuthenticator
from jupyterhub.utils import random_port

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Beside this file; hub/ is not a package.
from class_auth import ClassAuthenticator
from class_cgroups import Controller, controller
from class_limits import from_values, in_bytes, start_line
from class_spawner import ClassSpawner

setting = os.environ.get
ENV = setting("CLASS_ENV", "/srv/lessons-class/env")
STATE = setting("CLASS_STATE", "/srv/lessons-class/state")
TEACHER = setting("CLASS_TEACHER", "teacher")
DEMO = setting("CLASS_DEMO") == "1"
HERE = os.path.dirname(os.path.abspath(__file__))

c = get_config()  # noqa: F821 (JupyterHub's config loader defines it)

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = int(setting("CLASS_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(setting("CLASS_HUB_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{setting('CLASS_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.command = [
    os.path.join(HERE, "node_modules", ".bin", "configurable-http-proxy")
]
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{STATE}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "cookie_secret")
c.JupyterHub.pid_file = os.path.join(STATE, "hub.pid")

# Authentication: the teacher's choice (see above).
auth = setting("CLASS_AUTH", "shared")
c.Authenticator.admin_users = {TEACHER}
if DEMO:
    c.JupyterHub.authenticator_class = "shared-password"
elif auth == "pam":
    c.JupyterHub.authenticator_class = PAMAuthenticator
    c.Authenticator.allow_existing_users = True
else:
    c.JupyterHub.authenticator_class = ClassAuthenticator
    # Never an account the hub did not create (root, a colleague's): hub/class_auth.py.
    c.ClassAuthenticator.roster = os.path.join(STATE, "created-users")
    c.LocalAuthenticator.create_system_users = True
    # A private home (0700): no other learner can read it.
    c.LocalAuthenticator.add_user_cmd = [
        "useradd",
        "--create-home",
        "--shell",
        "/bin/bash",
        "-K",
        "HOME_MODE=0700",
    ]
if auth != "pam" or DEMO:
    c.SharedPasswordAuthenticator.user_password = setting("CLASS_PASSWORD")
    c.SharedPasswordAuthenticator.admin_password = setting("CLASS_TEACHER_PASSWORD")
    c.Authenticator.allow_all = True

# Each learner's own JupyterLab from the class's environment, at the course.
if DEMO:
    c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
    c.SimpleLocalProcessSpawner.home_dir_template = "/tmp/lessons-demo-{username}"
else:
    c.JupyterHub.spawner_class = ClassSpawner
c.Spawner.cmd = [os.path.join(ENV, "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = setting("CLASS_DEFAULT_URL", "/lab")
c.Spawner.env_keep = ["LANG", "LC_ALL"]  # not root's PATH or virtualenv
c.Spawner.environment = {
    "PATH": f"{ENV}/bin:/usr/local/bin:/usr/bin:/bin",
    # Marks the course's bare repository (owned by root) safe for learners' git.
    "GIT_CONFIG_SYSTEM": setting("GIT_CONFIG_SYSTEM", "/etc/gitconfig"),
    # How often a server tells the hub it is in use (the culler reads it); default 300 s.
    "JUPYTERHUB_ACTIVITY_INTERVAL": setting("CLASS_ACTIVITY_INTERVAL", "60"),
}
c.Spawner.args = [
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--LabApp.extension_manager=readonly",
]
MEMORY, CPUS = from_values()
if setting("CLASS_MEM_LIMIT"):
    MEMORY = in_bytes(setting("CLASS_MEM_LIMIT"))
c.Spawner.mem_limit = MEMORY  # also sets MEM_LIMIT: two kernels at most
c.Spawner.cpu_limit = CPUS
if DEMO:
    limits = "a demo runs every learner as you, without root"
else:
    limits = controller(f"lessons-class-{c.JupyterHub.port}")
if isinstance(limits, Controller):
    ClassSpawner.controller = limits
    atexit.register(limits.remove)  # once the hub has stopped every server
    print(start_line(MEMORY, CPUS, limits.describe(), None), flush=True)
else:
    print(start_line(MEMORY, CPUS, None, limits), flush=True)
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 90
c.JupyterHub.concurrent_spawn_limit = 0  # a class signs in at once
c.JupyterHub.init_spawners_timeout = 1

# Idle servers are stopped; a learner's files stay in their home.
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            os.path.join(ENV, "bin", "python"),
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={setting('CLASS_CULL_TIMEOUT', '3600')}",
            f"--cull-every={setting('CLASS_CULL_EVERY', '300')}",
        ],
    }
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]

# The teacher's progress page, /services/progress/ (hub/progress_service.py): learners x
# the course's self-checks, each one's latest verdict. As root (it reads each learner's
# ~/.lessons/progress.jsonl), on 127.0.0.1. Only admins may open it: the hub gives its OAuth
# token only to holders of access:services!service=progress (the admin role's, not a
# learner's). oauth_no_confirm: the teacher is not asked to authorize the course's own page.
c.JupyterHub.services.append(
    {
        "name": "progress",
        "url": f"http://127.0.0.1:{random_port()}",  # a free port, as the hub picks its own
        "command": [os.path.join(ENV, "bin", "python"), os.path.join(HERE, "progress_service.py")],
        "environment": {"CLASS_STATE": STATE, "CLASS_DEMO": "1" if DEMO else "0"},
        "oauth_no_confirm": True,
    }
)
# No periodic health check of the services: JupyterHub's (every 60 s) only logs a warning,
# and its Ctrl-C shutdown leaves it scheduled while cleanup deletes each service's server
# record, so a check falling in those seconds printed an AttributeError traceback
# (check_services_health reads service.orm.server, then None: JupyterHub 6.1.1's app.py).
# A service whose process exits is still restarted (its spawner's poll, services/service.py).
c.JupyterHub.service_check_interval = 0
c.JupyterHub.last_activity_interval = int(setting("CLASS_ACTIVITY_INTERVAL", "60"))
if sys.platform != "linux":
    raise SystemExit("make class runs learners as Unix users: Linux only")
