"""lazy: a package's names load their module on first use, and only then."""

import sys
import types

import pytest

from lessons_lib.lazy import lazy_names


def test_a_name_loads_its_module_on_first_use_then_stays(monkeypatch):
    package = types.ModuleType("a_package")
    monkeypatch.setitem(sys.modules, "a_package", package)
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    package.__getattr__, package.__dir__ = lazy_names("a_package", {"rgb_to_hsv": "colorsys"})
    assert "colorsys" not in sys.modules and "rgb_to_hsv" in package.__dir__()
    convert = package.rgb_to_hsv
    assert "colorsys" in sys.modules and vars(package)["rgb_to_hsv"] is convert
    with pytest.raises(AttributeError, match="'a_package' has no attribute 'hsv'"):
        package.__getattr__("hsv")
