"""`make class-remove`: remove the Unix accounts a class's hub created, with their homes.

    python -m tools.class_accounts [--prefix /srv/lessons-class] [--state PREFIX/state] [--yes]

The hub writes each account it creates in its roster (STATE/created-users, by
hub/class_auth.py); only those are removed, and only when the hub's database lists the
user too and the account is a person's (a uid from UID_MIN to UID_MAX): never an account
the hub did not create (root, nobody, a system account, a colleague's). It names every account and home and
asks for `yes` first (--yes: already confirmed, for scripts). For each: their remaining
processes are stopped, `userdel --remove` deletes the account and its home, and the hub's
database forgets the user (or the next `make class` would create the account again).
Refused while the class's hub runs.
"""

import argparse
import os
import pwd
import sqlite3
import subprocess
import sys
from pathlib import Path

from tools import class_env, class_hub

LOGIN_DEFS = Path("/etc/login.defs")


def people_uids() -> range:
    """The uids useradd gives people (UID_MIN to UID_MAX in /etc/login.defs): not root, not a
    system account, not nobody (65534)."""
    found = {"UID_MIN": 1000, "UID_MAX": 60000}
    if LOGIN_DEFS.exists():
        for line in LOGIN_DEFS.read_text().splitlines():
            if line.split()[:1] in (["UID_MIN"], ["UID_MAX"]):
                found[line.split()[0]] = int(line.split()[1])
    return range(found["UID_MIN"], found["UID_MAX"] + 1)


def roster(state: Path) -> list[str]:
    """The names the hub created, in the order it created them, each once."""
    names = (state / "created-users").read_text().split()
    return list(dict.fromkeys(names))


def known(database: Path) -> set[str]:
    """The users in the hub's database."""
    if not database.exists():
        return set()
    with sqlite3.connect(database) as db:
        return {name for (name,) in db.execute("SELECT name FROM users")}


def forget(database: Path, names: list[str]) -> int:
    """Delete these users from the hub's database (their servers, tokens, roles cascade)."""
    if not database.exists() or not names:
        return 0
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA foreign_keys = ON")  # JupyterHub's tables cascade on a user's delete
        marks = ",".join("?" * len(names))
        return db.execute(f"DELETE FROM users WHERE name IN ({marks})", names).rowcount


def remove(state: Path, confirmed: bool, ask=input) -> list[str]:
    """Remove the roster's accounts after `yes`; return the names removed."""
    names, users, people = roster(state), known(state / "jupyterhub.sqlite"), people_uids()
    accounts, gone = [], []
    for name in names:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            gone.append(name)
            continue
        # Both the roster and the hub's database name it, and it is a person's account.
        if name not in users:
            print(f"Not removed: {name} is not a user in the hub's database.")
        elif entry.pw_uid not in people:
            print(
                f"Not removed: {name} is not a person's account (uid {entry.pw_uid}, outside "
                f"{people.start}-{people.stop - 1})."
            )
        else:
            accounts.append(entry)
    if gone:
        print(f"Already gone (the hub's database forgets them too): {', '.join(gone)}")
    if not accounts:
        print("No account of this class's is left to remove.")
        forget(state / "jupyterhub.sqlite", gone)
        return []
    print(
        f"{len(accounts)} Unix accounts this class's hub created ({state / 'created-users'}),"
        " each removed with its home and everything in it:"
    )
    width = max(len(e.pw_name) for e in accounts)
    for entry in accounts:
        print(f"  {entry.pw_name:<{width}}  {entry.pw_dir}")
    if not confirmed:
        answer = ask(f"Remove these {len(accounts)} accounts and their homes? Type yes: ")
        if answer.strip() != "yes":
            print("Nothing removed.")
            return []
    removed = []
    for entry in accounts:
        subprocess.run(["pkill", "-KILL", "-u", entry.pw_name], check=False)
        done = subprocess.run(
            ["userdel", "--remove", entry.pw_name], capture_output=True, text=True, check=False
        )
        if done.returncode in (0, 12):  # 12: the account is gone, its home not wholly
            removed.append(entry.pw_name)
        if done.returncode != 0:
            print(f"userdel {entry.pw_name}: {done.stderr.strip()}")
    forget(state / "jupyterhub.sqlite", removed + gone)
    left = [n for n in names if n not in removed and n not in gone]
    (state / "created-users").write_text("".join(f"{n}\n" for n in left))
    print(f"Removed {len(removed)} accounts and their homes: {', '.join(removed)}")
    return removed


def main(argv: list[str] | None = None) -> list[str]:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--prefix", type=Path, default=class_env.PREFIX, help="the class's folder")
    ask.add_argument("--state", type=Path, help="the hub's state folder (PREFIX/state)")
    ask.add_argument("--yes", action="store_true", help="confirmed already: do not ask")
    args = ask.parse_args(argv)
    state = args.state or args.prefix / "state"
    if os.geteuid() != 0:
        sys.exit("removing Unix accounts needs root: sudo make class-remove")
    if not (state / "created-users").exists():
        sys.exit(
            f"no roster in {state}: {state / 'created-users'} lists the accounts a class's hub "
            "creates; choose the class with --prefix (or --state)"
        )
    if (running := class_hub.holder(args.prefix)) is not None:
        pid = running.split()[0]
        sys.exit(
            f"the class's hub is running on {args.prefix} (process {pid}): stop it first "
            "(Ctrl-C where it runs), then remove its accounts"
        )
    if not args.yes and not sys.stdin.isatty():
        sys.exit("confirm by typing yes at a terminal, or pass --yes")
    return remove(state, args.yes)


if __name__ == "__main__":
    main()
