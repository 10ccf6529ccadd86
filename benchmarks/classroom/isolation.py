"""Every learner tries the next one's server and home, and the hub with a server's token.

Through the hub with its own session and its own API token; from its kernel, the next
learner's home and, with the server's own hub token (read from /proc, as a learner could),
the hub's user list and the next learner's server: each attempt must be refused. A
kernel's environment is searched for the hub's tokens. The teacher (an admin) opens a
learner's server, as they may.
"""

import json

from benchmarks.classroom.hub import Hub
from benchmarks.classroom.learners import Kernel, Learner, Room, api, together, wake

PROBE = """
import json, os, pwd, urllib.request
home = pwd.getpwnam({other!r}).pw_dir
try:
    os.listdir(home)
    home_result = "read"
except PermissionError as error:
    home_result = type(error).__name__
tokens = sorted(k for k in os.environ if "TOKEN" in k or "SECRET" in k)
# The strongest token a kernel can reach: its server's, read from /proc (same Unix user).
environ = open(f"/proc/{{os.getppid()}}/environ", "rb").read().split(b"\\0")
server_token = dict(e.decode().split("=", 1) for e in environ if b"=" in e)["JUPYTERHUB_API_TOKEN"]
def status(url):
    request = urllib.request.Request(url, headers={{"Authorization": "token " + server_token}})
    try:
        return urllib.request.urlopen(request, timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code
print(json.dumps({{"home": home_result, "tokens": tokens,
    "users": status({base!r} + "/hub/api/users"),
    "other_server": status({base!r} + "/user/{other}/api/contents")}}))
"""


def isolation(hub: Hub, learner: Learner, other: Learner) -> None:
    """learner tries other's server (its session, its token) and home; notes each answer."""
    got = learner.session.get(f"{hub.base}/user/{other.name}/lab", allow_redirects=True, timeout=60)
    mine = f"/user/{learner.name}/" in got.url
    learner.refusals.append(
        ("server via hub, signed-in session", got.status_code == 403 or mine,
         f"{got.status_code} at {got.url.removeprefix(hub.base).split('?')[0]}")
    )  # fmt: skip
    by_token = api(learner, "GET", f"{hub.base}/user/{other.name}/api/contents")
    learner.refusals.append(
        ("server via hub, own API token", by_token.status_code == 403, str(by_token.status_code))
    )
    kernel = Kernel(hub, learner, "probe.ipynb")
    try:
        text, error = kernel.run(PROBE.format(other=other.name, base=hub.base))
    finally:
        kernel.close()
    if error:
        raise RuntimeError(f"{learner.name}'s probe raised {error}")
    found = json.loads(text.strip().splitlines()[-1])
    learner.kernel_env_tokens = found["tokens"]
    learner.refusals += [
        ("other's home from kernel", found["home"] == "PermissionError", found["home"]),
        ("hub user list with server's token", found["users"] == 403, str(found["users"])),
        ("other's server with server's token", found["other_server"] == 403, str(found["other_server"])),
    ]  # fmt: skip


def teacher_opens(hub: Hub, teacher: Learner, learner: Learner) -> bool:
    """The admin lists the learner's files through the learner's own server."""
    reply = api(teacher, "GET", f"{hub.base}/user/{learner.name}/api/contents/course")
    return reply.status_code == 200 and reply.json()["type"] == "directory"


def attempts(room: Room) -> None:
    """Each ready learner against the next one, all at once (refusals noted on each)."""
    if len(room.ready) < 2:
        return
    wake(room)  # a refusal is only one from a server that is there
    pairs = list(zip(room.ready, room.ready[1:] + room.ready[:1], strict=True))
    others = dict(pairs)
    together(lambda x: isolation(room.hub, x, others[x]), [a for a, _ in pairs])
