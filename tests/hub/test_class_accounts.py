"""`make class-remove` removes the accounts a class's hub created, and only those, after a
`yes` to a list that names them (tools/class_accounts.py), on a throwaway class folder."""

import os
import pwd
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tools import class_accounts, class_hub

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="creates Unix accounts: run as root")

# The hub's users table and one that cascades from it, as JupyterHub's database has them.
SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, name VARCHAR(255) UNIQUE);
CREATE TABLE spawners (id INTEGER PRIMARY KEY,
    user_id INTEGER REFERENCES users (id) ON DELETE CASCADE);
"""


@pytest.fixture
def state(tmp_path):
    """A class's state: two learners the hub created, one gone since, a colleague it did not."""
    tag = uuid.uuid4().hex[:6]
    learners = [f"cr{tag}a", f"cr{tag}b"]
    colleague = f"cr{tag}staff"
    for name in [*learners, colleague]:
        subprocess.run(["useradd", "--create-home", name], check=True)
    roster = [*learners, f"cr{tag}gone"]  # one whose account has gone since
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "created-users").write_text("".join(f"{n}\n" for n in roster))
    with sqlite3.connect(folder / "jupyterhub.sqlite") as db:
        db.executescript(SCHEMA)
        for i, name in enumerate([*learners, f"cr{tag}gone", colleague], start=1):
            db.execute("INSERT INTO users VALUES (?, ?)", (i, name))
            db.execute("INSERT INTO spawners VALUES (?, ?)", (i, i))
    yield folder, learners, colleague
    for name in [*learners, colleague]:
        subprocess.run(["userdel", "--remove", name], capture_output=True, check=False)


def exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def test_no_removes_nothing_after_naming_every_account_and_home(state, capsys):
    folder, learners, colleague = state
    # Names no roster may bring to removal (an edited one, say): a colleague the hub's
    # database does not list, and root and nobody even where it does. Answered "no": a
    # failing check here removes nothing.
    with (folder / "created-users").open("a") as roster:
        roster.write(f"{colleague}\nroot\nnobody\n")
    with sqlite3.connect(folder / "jupyterhub.sqlite") as db:
        db.execute("DELETE FROM users WHERE name = ?", (colleague,))
        db.executemany("INSERT INTO users (name) VALUES (?)", [("root",), ("nobody",)])
    asked = []
    removed = class_accounts.remove(folder, False, ask=lambda q: asked.append(q) or "no")
    said = capsys.readouterr().out
    assert removed == []
    assert asked == ["Remove these 2 accounts and their homes? Type yes: "]
    for name in learners:
        assert f"  {name}  /home/{name}\n" in said
    assert f"Not removed: {colleague} is not a user in the hub's database." in said
    assert "Not removed: root is not a person's account (uid 0, outside 1000-60000)." in said
    assert "Not removed: nobody is not a person's account (uid 65534, outside 1000-60000)." in said
    assert "Nothing removed." in said
    assert all(exists(n) for n in [*learners, colleague])


def test_yes_removes_the_hubs_accounts_homes_and_database_rows_and_nothing_else(state, capsys):
    folder, learners, colleague = state
    removed = class_accounts.remove(folder, False, ask=lambda q: "yes")
    assert removed == learners
    assert not any(exists(n) for n in learners)
    assert not any(Path(f"/home/{n}").exists() for n in learners)
    assert exists(colleague) and exists("root") and exists("nobody")
    with sqlite3.connect(folder / "jupyterhub.sqlite") as db:
        assert [n for (n,) in db.execute("SELECT name FROM users")] == [colleague]
        assert db.execute("SELECT COUNT(*) FROM spawners").fetchone() == (1,)
    assert (folder / "created-users").read_text() == ""
    said = capsys.readouterr().out
    assert f"Removed 2 accounts and their homes: {', '.join(learners)}" in said


def test_it_is_refused_while_the_class_hub_runs(state, monkeypatch):
    folder, _, _ = state
    prefix = folder.parent
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(prefix)], cwd=class_hub.ROOT, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout.readline() == b"held\n"
        with pytest.raises(SystemExit) as stopped:
            class_accounts.main([f"--prefix={prefix}", "--yes"])
    finally:
        holder.kill()
        holder.wait()
    assert str(stopped.value.code) == (
        f"the class's hub is running on {prefix} (process {holder.pid}): stop it first "
        "(Ctrl-C where it runs), then remove its accounts"
    )


HOLD = """
import sys, time
from pathlib import Path
from tools import class_hub
class_hub.hold(Path(sys.argv[1]), 8123)
print("held", flush=True)
time.sleep(60)
"""


def test_a_folder_without_a_roster_says_what_to_choose(tmp_path):
    with pytest.raises(SystemExit) as stopped:
        class_accounts.main([f"--prefix={tmp_path}", "--yes"])
    said = str(stopped.value.code)
    assert said.startswith(f"no roster in {tmp_path / 'state'}: ") and "--prefix" in said
