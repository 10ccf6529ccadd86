# @title Course set-up: run this cell, then carry on { display-mode: "form" }
# Where lessons_lib is installed (make lab, Binder, the class hub) this cell does nothing.
# Opened in Google Colab, it installs lessons_lib from the GitHub repository and branch this
# notebook came from, so a fork installs the fork. (tools/first_cell.py; README, Open in Colab)
def _set_up_course(minimum_torch=(2, 13)):
    import importlib.util
    import re
    import subprocess
    import sys

    class CourseSetupError(Exception):
        def _render_traceback_(self):  # IPython shows this one line instead of a traceback
            return [str(self)]

    # A folder an uninstall left behind (pip leaves caches Python wrote in it) imports as an
    # empty namespace package, with no origin: that is not the course.
    installed = importlib.util.find_spec("lessons_lib")
    if installed is None or installed.origin is None:
        try:
            import torch
        except ImportError:
            raise CourseSetupError(
                "This course needs PyTorch: run `%pip install torch`, then this cell again."
            ) from None
        if tuple(map(int, re.findall(r"\d+", torch.__version__)[:2])) < minimum_torch:
            need = ".".join(map(str, minimum_torch))
            raise CourseSetupError(
                f"This course needs torch {need} or newer; this runtime has {torch.__version__}. Run "
                f"`%pip install -q 'torch>={need}'`, restart the session, then run this cell again."
            )
        owner, repo, branch = _course_on_github(CourseSetupError)
        print(
            f"Installing lessons_lib from github.com/{owner}/{repo}, branch {branch} ...",
            end=" ",
            flush=True,
        )
        spec = f"lessons_lib @ git+https://github.com/{owner}/{repo}@{branch}"
        pip = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", spec], capture_output=True, text=True
        )
        if pip.returncode != 0:
            lines = [line.strip() for line in pip.stderr.strip().splitlines()] or [
                "pip printed nothing"
            ]
            said = next(
                (line for line in lines if line.startswith(("fatal:", "ERROR:"))), lines[-1]
            )
            if re.search(
                r"resolve host|unable to access|connect|unreachable|timed out", pip.stderr, re.I
            ):
                raise CourseSetupError(
                    f"not installed: GitHub cannot be reached from this runtime. Check its internet connection, then run this cell again. ({said})"
                )
            raise CourseSetupError(
                f"not installed. Is the repository public, and the branch pushed to it? ({said})"
            )
        importlib.invalidate_caches()
        print("done.")
    if "google.colab" in sys.modules:
        # The explorers are anywidgets: Colab draws widgets beyond ipywidgets' own only with its
        # custom widget manager (anywidget's README, "Google Colab"; colabtools issue #498).
        from google.colab import output

        output.enable_custom_widget_manager()
    if (ipython := sys.modules.get("IPython")) and (shell := ipython.get_ipython()):
        shell.extension_manager.load_extension("lessons_lib.friendly")  # out-of-order hints


def _course_on_github(error):
    """(owner, repo, branch) of the notebook Colab opened from GitHub, from Colab's sessions API."""
    import json
    import os
    import socket
    import sys
    import urllib.request

    install = 'install the course with `%pip install "lessons_lib @ git+https://github.com/OWNER/REPO"` (its repository), then run this cell again'
    if "google.colab" not in sys.modules:
        raise error(
            f"lessons_lib is not installed in this kernel: {install}. From a clone of the course, `make lab` does it all."
        )
    try:
        host = os.environ.get("COLAB_JUPYTER_IP") or socket.gethostbyname(socket.gethostname())
        port = os.environ.get("COLAB_JUPYTER_PORT", "9000")
        with urllib.request.urlopen(f"http://{host}:{port}/api/sessions", timeout=10) as reply:
            paths = [session.get("path", "") for session in json.load(reply)]
    except (OSError, ValueError) as failed:
        raise error(
            f"Colab did not say where this notebook came from ({failed}): {install}."
        ) from None
    for path in paths:
        if found := _github_notebook(path):
            return found
    raise error(
        "This notebook was not opened from GitHub (a copy saved to Drive?), so which course to install is "
        f"unknown: open it from the course's GitHub page (File > Open notebook > GitHub), or {install}."
    )


def _github_notebook(address):
    """(owner, repo, branch) of a course notebook's address on GitHub or Colab, else None.

    Colab names a notebook opened from GitHub fileId=https%3A%2F%2Fgithub.com%2FOWNER%2FREPO%2Fblob%2F
    BRANCH%2Fnotebooks%2F...; its own address is colab.research.google.com/github/OWNER/REPO/blob/...
    """
    import re
    import urllib.parse

    found = re.search(
        r"(?:github\.com|google\.com/github)/([\w.-]+)/([\w.-]+)/blob/(.+)/notebooks/",
        urllib.parse.unquote(address),
    )
    return found.groups() if found else None


_set_up_course()
