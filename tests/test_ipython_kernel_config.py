"""binder/ipython_kernel_config.py: every course kernel loads the hints, and at exit skips
collecting its garbage once more."""

import atexit
import gc
import runpy

from traitlets.config import Config

from tests.lab_server import ROOT


def test_every_kernel_loads_the_hints_and_freezes_its_objects_at_exit(monkeypatch):
    registered = []
    monkeypatch.setattr(atexit, "register", registered.append)
    c = Config()
    runpy.run_path(str(ROOT / "binder" / "ipython_kernel_config.py"), {"c": c})
    assert c.InteractiveShellApp.extensions == ["lessons_lib.friendly"]
    assert registered == [gc.freeze]
