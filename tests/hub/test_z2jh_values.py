"""hub/z2jh/values.yaml: valid for the Zero to JupyterHub chart it names, as Helm checks it.

Helm merges a values file onto the chart's defaults and validates the result against the
chart's values schema (JSON Schema draft-07). These tests do the same with the chart's own
two files, chart 4.4.0's jupyterhub/values.schema.yaml and values.yaml, read from the
folder ../shared/z2jh-4.4.0/ beside this checkout or from the folder Z2JH_CHART_DIR names
(hub/z2jh/README.md says how to get them). They also hold
the memory sizes to the measurement and margin that hub/z2jh/values.yaml states once.
"""

import copy
import math
import os
import re
import runpy
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml
from traitlets.config import Config

from tests.lab_server import ROOT
from tests.requirements_files import requirements

CHART_VERSION = "4.4.0"
CHART = Path(os.environ.get("Z2JH_CHART_DIR") or ROOT.parent / "shared" / f"z2jh-{CHART_VERSION}")
VALUES = ROOT / "hub" / "z2jh" / "values.yaml"
README = ROOT / "hub" / "z2jh" / "README.md"
COURSE_MAP = "notebooks/00-start-here.ipynb"
# Where the chart takes any key (the schema allows additional properties there).
FREE_FORM = {("custom",), ("hub", "config"), ("hub", "extraConfig"), ("singleuser", "extraEnv")}
UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}  # KubeSpawner's, in bytes

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(path: Path):
    return yaml.load(path.read_text(), Loader=Loader)  # CSafeLoader where libyaml is built in


@pytest.fixture(scope="module")
def chart() -> dict:
    """The chart's schema and default values; skipped where neither folder holds them."""
    if not (CHART / "values.schema.yaml").is_file():
        pytest.skip(
            f"the chart {CHART_VERSION} schema is not at {CHART}: copy it there "
            f"(hub/z2jh/README.md: helm pull jupyterhub/jupyterhub --version {CHART_VERSION} "
            "--untar), "
            "or set Z2JH_CHART_DIR to the folder that holds it"
        )
    return {"schema": load(CHART / "values.schema.yaml"), "defaults": load(CHART / "values.yaml")}


@pytest.fixture(scope="module")
def values() -> dict:
    return load(VALUES)


def merged(defaults: dict, override: dict) -> dict:
    """Helm's merge of a values file onto a chart's defaults: maps merge key by key, any
    other value replaces the default, and null removes the key."""
    result = copy.deepcopy(defaults)
    for key, value in override.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def errors(chart: dict, values: dict) -> list[str]:
    """What the chart's schema refuses in values, each with where it is; [] when valid."""
    schema = chart["schema"]
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    found = validator(schema).iter_errors(merged(chart["defaults"], values))
    return sorted(f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in found)


def mib(size: str | int) -> float:
    """A KubeSpawner byte size (an integer of bytes, or a number with K, M, G or T) in MiB."""
    if isinstance(size, int):
        return size / UNITS["M"]
    number, unit = re.fullmatch(r"([0-9.]+)([KMGT])", size).groups()
    return float(number) * UNITS[unit] / UNITS["M"]


def test_the_schema_is_the_charts_draft_7_schema(chart):
    assert chart["schema"]["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert chart["schema"]["additionalProperties"] is False


def test_the_values_file_is_valid_for_the_chart(chart, values):
    assert errors(chart, values) == []


def test_the_values_file_names_the_chart_version_its_schema_comes_from(values):
    assert f"chart jupyterhub {CHART_VERSION}" in VALUES.read_text().splitlines()[0]
    assert f"--version={CHART_VERSION}" in VALUES.read_text()
    assert f"z2jh-{CHART_VERSION}" in README.read_text()


@pytest.mark.parametrize(
    ("path", "value", "refused"),
    [
        (("singeluser",), {"image": {"name": "x", "tag": "y"}}, "singeluser"),  # top level
        (("singleuser", "memory", "limt"), "2G", "limt"),  # a misspelt key inside
        (("cull", "timeout"), "1h", "cull.timeout"),  # seconds, an integer
        (("singleuser", "image", "pullPolicy"), "always", "pullPolicy"),  # not one of its enum
    ],
)
def test_a_wrong_value_is_refused(chart, values, path, value, refused):
    wrong = copy.deepcopy(values)
    *parents, last = path
    node = wrong
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    found = errors(chart, wrong)
    assert len(found) == 1 and refused in found[0], found


def paths(tree: dict, prefix: tuple = ()) -> list[tuple]:
    """Every key path of a values tree, not looking inside the chart's free-form maps."""
    found = []
    for key, value in tree.items():
        path = (*prefix, key)
        found.append(path)
        if isinstance(value, dict) and path not in FREE_FORM:
            found += paths(value, path)
    return found


def test_every_key_set_is_one_the_charts_defaults_have(chart, values):
    known = set(paths(chart["defaults"]))
    assert [".".join(path) for path in paths(values) if path not in known] == []


def test_memory_is_the_measured_peak_with_the_stated_margins(values):
    stated = values["custom"]["courseMemory"]
    peak, step = stated["measuredPeakMiB"], stated["roundUpToMiB"]

    def size(margin_percent: int) -> int:
        return math.ceil(peak * (100 + margin_percent) / 100 / step) * step

    assert mib(stated["guarantee"]) == size(stated["guaranteeMarginPercent"]) >= peak
    assert mib(stated["limit"]) == size(stated["limitMarginPercent"]) > mib(stated["guarantee"])
    memory = values["singleuser"]["memory"]
    assert memory == {"guarantee": stated["guarantee"], "limit": stated["limit"]}


def test_the_memory_limit_turns_on_the_courses_two_kernel_cap(values):
    """KubeSpawner puts the limit in MEM_LIMIT as bytes; the course's server settings read it."""
    config = runpy.run_path(str(ROOT / "binder" / "jupyter_server_config.py"), {"c": Config()})
    mem_limit = round(mib(values["singleuser"]["memory"]["limit"]) * UNITS["M"])
    assert config["kernels_allowed"]({"MEM_LIMIT": str(mem_limit)}) == 2


def test_the_default_url_pulls_the_course_and_opens_the_course_map(values):
    url = urlsplit(values["singleuser"]["defaultUrl"])
    query = {key: value for key, [value] in parse_qs(url.query, strict_parsing=True).items()}
    assert url.path == "/git-pull" and set(query) == {"repo", "branch", "urlpath"}
    repo = urlsplit(query["repo"])
    assert repo.scheme == "https" and repo.netloc == "github.com"
    folder = repo.path.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1]  # nbgitpuller's
    assert query["urlpath"] == f"lab/tree/{folder}/{COURSE_MAP}"
    assert (ROOT / COURSE_MAP).is_file()


def test_idle_servers_are_culled_and_learners_kept(values):
    cull = values["cull"]
    assert cull["enabled"] is True and cull["users"] is False
    assert 0 < cull["every"] < cull["timeout"]


def test_the_image_is_built_as_the_readme_says(values):
    """The readme's build command makes the image the values name, home kept for the volume."""
    readme = README.read_text()
    image = values["singleuser"]["image"]
    assert f"--image-name {image['name']}:{image['tag']}" in readme
    assert f"docker push {image['name']}:{image['tag']}" in readme
    assert "--user-name jovyan --user-id 1000" in readme  # the chart's singleuser.uid
    # repo2docker's default puts the repository in the home that the volume covers.
    assert "--target-repo-dir /srv/lessons" in readme
    assert values["hub"]["config"]["KubeSpawner"]["working_dir"] == "/home/jovyan"


def test_the_images_nbgitpuller_is_the_version_the_course_pins_elsewhere():
    """One nbgitpuller for the class on one machine and on Kubernetes, where both pin it."""
    [built] = re.findall(r"nbgitpuller==(\S+?)'", README.read_text())
    pinned = {
        pin.spec.removeprefix("==")
        for path in sorted(ROOT.glob("requirements*.txt"))
        for pin in requirements(path)
        if pin.name == "nbgitpuller"
    }
    assert pinned <= {built}
    assert f"nbgitpuller=={built}" in VALUES.read_text()
