"""`make class`: JupyterHub for a class on this machine, on 127.0.0.1 (hub/jupyterhub_config.py).

    python -m tools.class_hub [--port 8000] [--teacher teacher] [--cull-timeout 3600] ...

Checks first, each failing with one line: root (learners are Unix users; else --demo), the
port free, configurable-http-proxy installed (`npm ci --prefix hub`, which `make class`
runs), no other hub running on the same --prefix (its environment, course repository and
database are this hub's: PREFIX/hub.lock, locked for the hub's lifetime). Then it builds the class's environment (tools/class_env.py), publishes this
checkout's HEAD for nbgitpuller as a bare repository learners can read, prints the teacher's
and the learners' links, and becomes the hub (exec): stopping it stops the proxy, the
culler and every learner's server.
"""

import argparse
import fcntl
import os
import secrets
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tools import class_env
from tools.links import COURSE_MAP, nbgitpuller_path

ROOT = class_env.ROOT
HUB = ROOT / "hub"
PROXY = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
BRANCH = "course"


def port_taken(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hold(prefix: Path, port: int) -> int:
    """Lock PREFIX/hub.lock for as long as this process runs (the hub, after exec); its fd.

    Or exit naming the hub that holds it: a second hub on one prefix would rebuild the
    first one's environment under it, push its course and share its database.
    """
    prefix.mkdir(parents=True, exist_ok=True)
    lock = prefix / "hub.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        sys.exit(already_running(prefix, lock.read_text()))
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()} {port}\n".encode())
    os.set_inheritable(fd, True)  # kept across exec: the hub holds it; its children do not
    return fd


def holder(prefix: Path) -> str | None:
    """What PREFIX/hub.lock says ("pid port") while a hub holds it; None when none runs."""
    lock = prefix / "hub.lock"
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return lock.read_text()
    finally:
        os.close(fd)  # releases a lock it took
    return None


def already_running(prefix: Path, holder: str) -> str:
    """The one line that names the hub holding PREFIX (its lock file says "pid port")."""
    pid, _, port = holder.strip().partition(" ")
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        command = command.strip()[:200]
    except (OSError, ValueError):
        command = "its command unknown"
    return (
        f"a class's hub is already running on {prefix}: process {pid} ({command}), port {port}. "
        f"Stop it first (Ctrl-C where it runs, or kill {pid}), or give this class its own "
        f"prefix: make class CLASS_ARGS='--prefix {prefix}-2'"
    )


def publish(prefix: Path) -> Path:
    """This checkout's HEAD as branch `course` of PREFIX/course.git, readable by learners.

    Learners' git refuses a repository another user owns ("dubious ownership") unless their
    system config says it is safe: PREFIX/gitconfig, which their servers read
    (GIT_CONFIG_SYSTEM).
    """
    repo = prefix / "course.git"
    if not (repo / "HEAD").exists():
        subprocess.run(["git", "init", "--quiet", "--bare", repo], check=True)
    subprocess.run(
        [
            "git",
            "-c",
            f"safe.directory={ROOT}",
            "push",
            "--quiet",
            "--force",
            repo,
            f"HEAD:refs/heads/{BRANCH}",
        ],
        cwd=ROOT,
        check=True,
    )
    subprocess.run(["git", "-C", repo, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}"], check=True)
    subprocess.run(["chmod", "-R", "a+rX", repo], check=True)
    (prefix / "gitconfig").write_text(f"[safe]\n\tdirectory = {repo}\n")
    return repo


def pull_path(repo: Path) -> str:
    """The server-relative nbgitpuller path: pull the course, open the course map."""
    query = {
        "repo": f"file://{repo}",
        "branch": BRANCH,
        "targetpath": repo.stem,  # the folder in the learner's home: course/
        "urlpath": f"lab/tree/{repo.stem}/{COURSE_MAP}",
    }
    return nbgitpuller_path(query)


def main(argv: list[str] | None = None) -> None:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--port", type=int, default=8000)
    ask.add_argument(
        "--prefix",
        type=Path,
        default=class_env.PREFIX,
        help="the class's folder: its environment, course repository and state; one hub each",
    )
    ask.add_argument("--state", type=Path, help="the hub's database and secrets (PREFIX/state)")
    ask.add_argument("--teacher", default="teacher")
    ask.add_argument(
        "--password", help="the learners' class password (8+ characters; else made up)"
    )
    ask.add_argument("--teacher-password", help="the teacher's (32+ characters; else made up)")
    ask.add_argument("--auth", choices=("shared", "pam"), default="shared")
    ask.add_argument("--cull-timeout", type=int, default=3600, help="seconds idle before culling")
    ask.add_argument("--cull-every", type=int, default=300)
    ask.add_argument("--activity-interval", type=int, default=60)
    ask.add_argument(
        "--mem-limit",
        help="each learner's memory, e.g. 2G (default: hub/z2jh/values.yaml's, 2048M)",
    )
    ask.add_argument("--demo", action="store_true", help="not root: every learner runs as you")
    args = ask.parse_args(argv)

    demo = args.demo
    if os.geteuid() != 0 and not demo:
        sys.exit(
            "make class needs root: each learner's server runs as their own Unix user, which "
            "the hub creates. Run `sudo make class`, or `make class DEMO=1` for a single-user "
            "demo (every learner runs as you; never for a class)."
        )
    if port_taken(args.port):
        sys.exit(
            f"port {args.port} on 127.0.0.1 is taken: choose another, e.g. make class PORT={args.port + 10}"
        )
    if not PROXY.exists():
        sys.exit("configurable-http-proxy is missing: run `npm ci --prefix hub` (make class does)")
    prefix = args.prefix
    if demo and not os.access(prefix.parent, os.W_OK):
        prefix = Path.home() / ".lessons-class"  # no /srv for a demo without root
    hold(prefix, args.port)
    env = class_env.build(prefix)
    repo = publish(prefix)
    state = args.state or prefix / "state"
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    password = args.password or secrets.token_urlsafe(9)
    teacher_password = args.teacher_password or secrets.token_urlsafe(32)
    base = f"http://127.0.0.1:{args.port}"
    settings = {
        "CLASS_ENV": str(env),
        "CLASS_STATE": str(state),
        "CLASS_PORT": str(args.port),
        "CLASS_HUB_PORT": str(free_port()),
        "CLASS_PROXY_API_PORT": str(free_port()),
        "CLASS_TEACHER": args.teacher,
        "CLASS_PASSWORD": password,
        "CLASS_TEACHER_PASSWORD": teacher_password,
        "CLASS_AUTH": args.auth,
        "CLASS_CULL_TIMEOUT": str(args.cull_timeout),
        "CLASS_CULL_EVERY": str(args.cull_every),
        "CLASS_ACTIVITY_INTERVAL": str(args.activity_interval),
        "CLASS_MEM_LIMIT": args.mem_limit or "",
        "CLASS_DEFAULT_URL": "/" + pull_path(repo),
        "CLASS_DEMO": "1" if demo else "0",
        "GIT_CONFIG_SYSTEM": str(prefix / "gitconfig"),  # learners' servers inherit it
    }
    if demo:
        print(
            "DEMO MODE: every learner's server runs as this one user, homes in /tmp. Never for a class."
        )
    print(
        f"Teacher's link: {base}/hub/admin  (sign in as {args.teacher}, password {teacher_password})"
    )
    print(f"Progress (the teacher's page): {base}/services/progress/")
    print(f"Learners' link: {base}/hub/user-redirect/{pull_path(repo)}")
    print(f"Learners sign in with a new name (a-z, 0-9) and the class password: {password}")
    print("Stop the class with Ctrl-C: every learner's server stops; their files stay.", flush=True)
    os.chdir(state)
    # Started in the background by a script (`make class &`), this process ignores Ctrl-C's
    # SIGINT, and the idle culler, which the hub starts before it sets its own handler,
    # would inherit that: the hub's SIGINT to it at Ctrl-C is then lost, and stopping waits
    # 30 s for it (JupyterHub's interrupt_timeout). Every process of the class heeds SIGINT.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    hub = env / "bin" / "jupyterhub"
    os.execve(hub, [str(hub), "-f", str(HUB / "jupyterhub_config.py")], {**os.environ, **settings})


if __name__ == "__main__":
    main()
