"""Stand-ins for what Google Colab gives a kernel, to run the notebooks' first cell here."""

import json
import subprocess
import sys
import textwrap
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from tools.notebooks import FIRST_CELL


class Colab:
    """Stand-ins for what Colab gives a kernel, in a folder put first on a Python's path."""

    def __init__(
        self, folder: Path, sessions: list[dict], torch_version="2.13.0", pip_fails="", pip=True
    ):
        """torch_version=None and pip=False leave the Python's own torch and pip in place."""
        self.folder, self.calls = folder, folder / "calls.txt"
        files = {
            "google/__init__.py": "",
            "google/colab/__init__.py": "",
            "google/colab/output.py": f"def enable_custom_widget_manager():\n"
            f"    open({str(self.calls)!r}, 'a').write('widget manager\\n')\n",
            # pip: records its arguments, then fails as asked or "installs" lessons_lib.
            "pip/__main__.py": textwrap.dedent(f"""
                import sys, pathlib
                open({str(self.calls)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')
                if {pip_fails!r}:
                    sys.exit(print({pip_fails!r}, file=sys.stderr) or 1)
                pathlib.Path({str(folder)!r}, 'lessons_lib').mkdir(exist_ok=True)
                pathlib.Path({str(folder)!r}, 'lessons_lib', '__init__.py').write_text('')
            """),
            "pip/__init__.py": "",
        }
        if not pip:
            files = {name: text for name, text in files.items() if not name.startswith("pip/")}
        if torch_version:
            files["torch/__init__.py"] = f"__version__ = {torch_version!r}\n"
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        self.server = HTTPServer(("127.0.0.1", 0), self.handler(json.dumps(sessions).encode()))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def handler(body: bytes):
        class Sessions(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200 if self.path == "/api/sessions" else 404)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Sessions

    def run(self, in_colab=True, python=sys.executable, env=None) -> tuple[str, list[str]]:
        """What the cell prints (a refusal: its one line), and what the stand-ins saw."""
        script = (
            ("import google.colab\n" if in_colab else "")
            + f"cell = open({str(FIRST_CELL)!r}).read()\n"
            + "try:\n    exec(cell, {})\n"
            + "except Exception as e:\n    print(*e._render_traceback_())\n"
        )
        env = {
            **(env or {"PATH": "/usr/bin:/bin"}),
            "PYTHONPATH": str(self.folder),
            "COLAB_JUPYTER_IP": "127.0.0.1",
            "COLAB_JUPYTER_PORT": str(self.server.server_port),
        }
        # -S: no site-packages, so neither lessons_lib nor torch, unless a real python is given.
        done = subprocess.run(
            [python, *(["-S"] if python == sys.executable else []), "-c", script],
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        self.server.shutdown()
        assert done.stderr == "", done.stderr
        calls = self.calls.read_text().splitlines() if self.calls.exists() else []
        return done.stdout, calls
