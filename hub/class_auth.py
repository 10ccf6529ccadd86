"""Who may sign in to a class: learners with the class password, the teacher with their own.

Each new name gets a Unix user, created by the hub and written in its roster. A name
whose Unix account exists but is not in the roster (root, a system account, a colleague's
real account) is refused: the class password must never open someone else's account.
"""

import os
import re
from pathlib import Path

from jupyterhub.auth import LocalAuthenticator
from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
from traitlets import Unicode

# A name useradd accepts and a learner can type: lower-case letters and digits.
NAME = re.compile(r"[a-z][a-z0-9]{0,31}")


class ClassAuthenticator(SharedPasswordAuthenticator, LocalAuthenticator):
    """One class password for learners, the teacher's own; a Unix user for each new name."""

    roster = Unicode(help="The file listing the Unix users this hub created, one a line.").tag(
        config=True
    )

    def validate_username(self, username: str) -> bool:
        # An invalid name is one failed sign-in, not a failed useradd (a 500).
        return bool(NAME.fullmatch(username)) and super().validate_username(username)

    def created(self) -> set[str]:
        path = Path(self.roster)
        return set(path.read_text().split()) if path.exists() else set()

    def check_blocked_users(self, username: str, authentication: dict | None = None) -> bool:
        """False (blocked) for an existing account the hub did not create."""
        if self.system_user_exists(_User(username)) and username not in self.created():
            self.log.warning("Refused %r: a Unix account this hub did not create", username)
            return False
        return super().check_blocked_users(username, authentication)

    def add_system_user(self, user) -> None:
        super().add_system_user(user)
        with open(self.roster, "a") as roster:
            roster.write(user.name + "\n")
        os.chmod(self.roster, 0o600)


class _User:
    """What LocalAuthenticator.system_user_exists reads: a name."""

    def __init__(self, name: str) -> None:
        self.name = name
