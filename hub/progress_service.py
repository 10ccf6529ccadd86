"""The teacher's progress page: a JupyterHub service at /services/progress/, admins only.

The hub starts it (hub/jupyterhub_config.py) as root on 127.0.0.1, behind its proxy. A
browser signs in through the hub's OAuth: the hub hands a token only to a user who holds
the scope `access:services!service=progress`, which JupyterHub's admin role has and its
user role has not, so a learner gets the hub's 403 and never reaches this page; the page
checks the admin flag of whoever it is shown to as well. It lists learners x the course's
self-checks, each column named by its notebook and part, with each one's latest verdict
(tools/class_progress.py reads the hub's database and each learner's
~/.lessons/progress.jsonl; `make class-progress` prints the same table). Never any code:
the files hold none.

It stops cleanly on SIGINT, which the hub sends its services as it stops (Ctrl-C on `make
class`), and on SIGTERM: it closes its port and exits 0, with no traceback.
"""

import asyncio
import os
import signal
import sys
from datetime import datetime
from pathlib import Path
from urllib.parse import urlparse

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from tornado import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout, for tools/
from tools import class_progress

STATE = Path(os.environ.get("CLASS_STATE", "/srv/lessons-class/state"))
DEMO = os.environ.get("CLASS_DEMO") == "1"
REFRESH_S = 30  # the page reloads itself while the teacher watches
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="{refresh}">
<title>Class progress</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
th, td {{ border: 1px solid #bbb; padding: 0.3em 0.6em; text-align: left; white-space: nowrap; }}
thead th {{ vertical-align: bottom; white-space: normal; }}
th code {{ font-weight: normal; color: #555; }}
td.passed {{ background: #dff0d8; }}
td.not-yet {{ background: #fcf0d5; }}
</style></head><body>
<h1>Class progress</h1>
<p>Each learner's latest run of each self-check, as of {now} (reloads every {refresh} s).
A column is a self-check: its notebook and part, then its name as the learner calls it.</p>
{table}
</body></html>
"""


class ProgressPage(HubOAuthenticated, web.RequestHandler):
    @web.authenticated
    def get(self) -> None:
        if not self.current_user.get("admin"):
            raise web.HTTPError(403, "the progress page is for the class's teacher (an admin)")
        found = class_progress.learners(STATE / "jupyterhub.sqlite", DEMO)
        now = datetime.now().astimezone()
        self.set_header("Cache-Control", "no-store")
        table = class_progress.as_html(found, now)
        self.write(PAGE.format(refresh=REFRESH_S, now=now.strftime("%H:%M:%S"), table=table))


async def serve(app: web.Application, host: str, port: int) -> None:
    """Serve `app` until SIGINT or SIGTERM, then close the port and return."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)  # instead of a KeyboardInterrupt mid-select
    server = app.listen(port, host)
    await stop.wait()
    server.stop()


def main() -> None:
    prefix = os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    callback = urlparse(os.environ["JUPYTERHUB_OAUTH_CALLBACK_URL"]).path
    app = web.Application(
        [(f"{prefix}?", ProgressPage), (callback, HubOAuthCallbackHandler)],
        cookie_secret=os.urandom(32),
    )
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    asyncio.run(serve(app, url.hostname, url.port))


if __name__ == "__main__":
    main()
