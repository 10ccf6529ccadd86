"""binder/ builds the same environment as requirements.txt, with CPU-only torch."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pins(path: Path) -> dict[str, str]:
    """name -> exact version for every `name==version` line of a requirements file."""
    found = re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", path.read_text(), flags=re.M)
    return {name.lower(): version for name, version in found}


def test_binder_takes_cpu_torch_of_the_pinned_version_from_the_cpu_index():
    binder = (ROOT / "binder" / "requirements.txt").read_text()
    torch_version = pins(ROOT / "requirements.txt")["torch"]
    assert pins(ROOT / "binder" / "requirements.txt") == {"torch": f"{torch_version}+cpu"}
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in binder


def test_binder_includes_every_other_pin_of_requirements_txt():
    assert "-r ../requirements.txt" in (ROOT / "binder" / "requirements.txt").read_text().split(
        "\n"
    )


def test_binder_python_matches_the_course_floor():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
    assert 'requires-python = ">=3.11"' in (ROOT / "pyproject.toml").read_text()


def test_binder_installs_lessons_lib():
    assert "pip install" in (ROOT / "binder" / "postBuild").read_text()
    assert "-e ." in (ROOT / "binder" / "postBuild").read_text()


def test_binder_kernels_load_the_plain_english_hints_as_make_does():
    config = "binder/ipython_kernel_config.py"
    assert f'cp {config} "$config_dir/"' in (ROOT / "binder" / "postBuild").read_text()
    assert f"cp {config} $(VENV)/etc/ipython/" in (ROOT / "Makefile").read_text()
