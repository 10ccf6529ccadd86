"""hub/z2jh/values.yaml: valid for the Zero to JupyterHub chart it names, as Helm checks it.

Helm merges a values file onto the chart's defaults and validates the result against the
chart's values schema (JSON Schema draft-07). These tests do the same with the chart's own
two files, chart 4.4.0's jupyterhub/values.schema.yaml and values.yaml, read from the
folder ../shared/z2jh-4.4.0/ beside this checkout or from the folder Z2JH_CHART_DIR names
(hub/z2jh/README.md says how to get them). They also hold the memory and CPU sizes and
the readme's sizing table to the figures hub/z2jh/values.yaml states once, and the
course the landing page pulls to the commit the image is built from.
"""

import copy
import hashlib
import math
import os
import re
import runpy
import subprocess
from fractions import Fraction
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
import yaml
from traitlets.config import Config

from tests.lab_server import ROOT
from tests.requirements_files import requirements
from tools import links

CHART_VERSION = "4.4.0"
CHART = Path(os.environ.get("Z2JH_CHART_DIR") or ROOT.parent / "shared" / f"z2jh-{CHART_VERSION}")
VALUES = ROOT / "hub" / "z2jh" / "values.yaml"
SECRETS = ROOT / "hub" / "z2jh" / "secrets.example.yaml"
INGRESS = ROOT / "hub" / "z2jh" / "ingress.yaml"
README = ROOT / "hub" / "z2jh" / "README.md"
COURSE_MAP = "notebooks/00-start-here.ipynb"
# Where the chart takes any key (the schema allows additional properties there).
FREE_FORM = {
    ("custom",),
    ("hub", "config"),
    ("hub", "extraConfig"),
    ("singleuser", "extraEnv"),
    ("ingress", "annotations"),
}
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


@pytest.fixture(scope="module")
def secrets() -> dict:
    return load(SECRETS)


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


def layered(defaults: dict, *files: dict) -> dict:
    """The values Helm renders with: defaults, then each --values file in turn."""
    for values in files:
        defaults = merged(defaults, values)
    return defaults


def errors(chart: dict, *files: dict) -> list[str]:
    """What the chart's schema refuses in the values files, each with where; [] when valid."""
    schema = chart["schema"]
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    found = validator(schema).iter_errors(layered(chart["defaults"], *files))
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


def test_the_values_file_is_valid_for_the_chart_with_its_secrets(chart, values, secrets):
    assert errors(chart, values, secrets) == []
    # Without secrets.yaml, only the pull secret's credentials are missing.
    missing = [e.split(":")[0] for e in errors(chart, values)]
    assert missing == ["imagePullSecret.password", "imagePullSecret.username"]


def test_https_by_an_ingress_is_valid_and_turns_the_charts_own_https_off(chart, values, secrets):
    ingress = load(INGRESS)
    assert errors(chart, values, ingress, secrets) == []
    rendered = layered(chart["defaults"], values, ingress, secrets)
    assert rendered["proxy"]["https"]["enabled"] is False
    assert rendered["proxy"]["service"]["type"] == "ClusterIP"
    hosts = values["proxy"]["https"]["hosts"]
    assert rendered["ingress"]["hosts"] == hosts
    assert [tls["hosts"] for tls in rendered["ingress"]["tls"]] == [hosts]


def largest_notebook_bytes() -> int:
    return max(path.stat().st_size for path in (ROOT / "notebooks").glob("**/*.ipynb"))


def test_the_ingress_takes_a_notebook_saved_with_its_outputs():
    """ingress-nginx refuses a body over 1 MiB unless told; a save sends the whole notebook."""
    size = load(INGRESS)["ingress"]["annotations"]["nginx.ingress.kubernetes.io/proxy-body-size"]
    assert mib(size.upper().removesuffix("B")) * UNITS["M"] >= 10 * largest_notebook_bytes()


def test_the_chart_files_are_the_ones_the_readme_names(chart):
    """Git's blob ids of the two files, as the readme gives them for tag 4.4.0."""
    readme = " ".join(README.read_text().split())
    for name in ("values.schema.yaml", "values.yaml"):
        data = (CHART / name).read_bytes()
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        assert f"`jupyterhub/{name}` (blob {blob})" in readme


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
    found = errors(chart, wrong, load(SECRETS))
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


@pytest.mark.parametrize("path", [VALUES, SECRETS, INGRESS], ids=lambda path: path.name)
def test_every_key_set_is_one_the_charts_defaults_have(chart, path):
    known = set(paths(chart["defaults"]))
    assert [".".join(key) for key in paths(load(path)) if key not in known] == []


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
    folder = query["repo"].rstrip("/").removesuffix(".git").rsplit("/", 1)[-1]  # nbgitpuller's
    assert query["urlpath"] == f"lab/tree/{folder}/{COURSE_MAP}"
    assert (ROOT / COURSE_MAP).is_file()


def test_the_landing_page_pulls_the_images_own_commit(values):
    """Notebooks and lessons_lib come from one commit: the image's copy, not a moving branch.

    The link is the one tools/links.py prints; the image is built at the tag's commit with
    the course in the folder the link pulls from, and that commit named as its branch.
    """
    assert values["singleuser"]["defaultUrl"] == "/" + links.image_course_path()
    readme = README.read_text()
    tag = values["singleuser"]["image"]["tag"]
    course = links.IMAGE_COURSE.removeprefix("file://")
    assert f"--ref {tag} " in readme and f"{values['singleuser']['image']['name']}:{tag} " in readme
    assert f"--target-repo-dir {course}" in readme
    [appendix] = set(re.findall(r"--appendix '([^']*)'", readme))
    assert f"git -C {course} update-ref refs/heads/{links.IMAGE_BRANCH} HEAD" in appendix
    assert f"--appendix '{appendix}'" in VALUES.read_text()
    assert f"repo={links.IMAGE_COURSE.replace(':', '%3A')}&branch={links.IMAGE_BRANCH}" in readme


def test_the_images_git_step_names_the_built_commit_as_the_branch_nbgitpuller_pulls(tmp_path):
    """The appendix's git command, run on a clone checked out at a commit (as repo2docker's
    --ref leaves it), makes the branch the link names, at that commit."""
    [appendix] = set(re.findall(r"--appendix 'RUN (git [^&']*?)\s*(?:&&|')", README.read_text()))
    clone = tmp_path / "lessons"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", clone, "checkout", "-q", "--detach", "HEAD"], check=True)
    course = links.IMAGE_COURSE.removeprefix("file://")
    subprocess.run(appendix.replace(course, str(clone)).split(), check=True)

    def git(*args: str) -> list[str]:
        return subprocess.run(["git", *args], capture_output=True, text=True).stdout.split()

    [head] = git("-C", clone, "rev-parse", "HEAD")
    # nbgitpuller checks the branch with ls-remote --heads before it clones.
    listed = git("ls-remote", "--heads", f"file://{clone}")
    heads = dict(zip(listed[1::2], listed[::2], strict=True))
    assert heads[f"refs/heads/{links.IMAGE_BRANCH}"] == head


def test_the_cpu_is_the_measured_share_with_a_one_core_limit(values):
    stated = values["custom"]["courseCpu"]
    share = Fraction(stated["measuredCores"], stated["measuredLearners"])
    assert Fraction(str(stated["guarantee"])) == share
    assert stated["limit"] >= stated["guarantee"]
    cpu = values["singleuser"]["cpu"]
    assert cpu == {"guarantee": stated["guarantee"], "limit": stated["limit"]}


def gib(quantity: str) -> Fraction:
    """A Kubernetes storage quantity (Mi, Gi or Ti) in GiB."""
    number, unit = re.fullmatch(r"([0-9]+)([MGT]i)", quantity).groups()
    return Fraction(int(number)) * {"Mi": Fraction(1, 1024), "Gi": 1, "Ti": 1024}[unit]


def sizing_table(values: dict) -> str:
    """The readme's sizing block, computed from the figures values.yaml states once."""
    custom = values["custom"]
    nodes = custom["courseNodes"]
    cores = Fraction(str(custom["courseCpu"]["guarantee"]))
    memory = Fraction(round(mib(custom["courseMemory"]["guarantee"])), 1024)
    home = gib(values["singleuser"]["storage"]["capacity"])
    free_cores = Fraction(str(nodes["cores"])) - Fraction(str(nodes["reservedCores"]))
    free_memory = Fraction(str(nodes["memoryGiB"])) - Fraction(str(nodes["reservedMemoryGiB"]))
    per_node = min(math.floor(free_cores / cores), math.floor(free_memory / memory))

    def n(x: Fraction) -> str:
        return f"{float(x):g}"

    def of_cores(x) -> str:
        return f"{n(Fraction(str(x)))} core{'' if x == 1 else 's'}"

    lines = [
        f"Per learner {of_cores(cores)} and {n(memory)} GiB guaranteed, a home of {n(home)} GiB."
        f" Nodes of {of_cores(nodes['cores'])} and {nodes['memoryGiB']} GiB, less"
        f" {of_cores(nodes['reservedCores'])} and {nodes['reservedMemoryGiB']} GiB for"
        f" Kubernetes' own and the chart's pods: {per_node} learners a node.",
        "",
        "| learners | cores guaranteed | memory guaranteed | homes | nodes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for learners in nodes["classSizes"]:
        lines.append(
            f"| {learners} | {n(learners * cores)} | {n(learners * memory)} GiB"
            f" | {n(learners * home)} GiB | {math.ceil(learners / per_node)} |"
        )
    return "\n".join(lines)


def test_the_sizing_table_follows_from_the_values(values):
    block = re.search(r"<!-- sizing table[^>]*-->\n(.*?)\n<!-- end", README.read_text(), re.S)
    expected = sizing_table(values)
    assert block and block[1] == expected, f"paste into hub/z2jh/README.md:\n{expected}"
    assert values["custom"]["courseNodes"]["classSizes"] == [30, 100]


def pulled_course_mib(tmp_path: Path) -> float:
    """A learner's copy of the course: nbgitpuller's clone of depth 1, git history and all."""
    clone = tmp_path / "lessons"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(clone)], check=True)
    return sum(f.stat().st_size for f in clone.rglob("*") if f.is_file()) / UNITS["M"]


def test_each_home_holds_the_course_many_times_over_and_the_readme_says_its_size(values, tmp_path):
    course = pulled_course_mib(tmp_path)
    storage = values["singleuser"]["storage"]
    assert storage["type"] == "dynamic" and gib(storage["capacity"]) * 1024 >= 50 * course
    for text in (README.read_text(), VALUES.read_text()):
        [stated] = re.findall(r"takes about (\d+) MiB", " ".join(text.replace("#", "").split()))
        assert course / 2 <= int(stated) <= course * 2, (stated, course)


PLACEHOLDER = re.compile(r"\b[A-Z][A-Z0-9_]{2,}(?:\.[A-Z0-9_]+)*\b")


def strings(tree) -> list[str]:
    if isinstance(tree, dict):
        return [s for key, value in tree.items() for s in strings(key) + strings(value)]
    if isinstance(tree, list):
        return [s for item in tree for s in strings(item)]
    return [tree] if isinstance(tree, str) else []


def test_every_placeholder_is_listed_in_the_readme():
    listed = " ".join(
        README.read_text().split("Placeholders are in capitals:")[1].split("\n\n")[0].split()
    )
    used = {
        found
        for path in (VALUES, SECRETS, INGRESS)
        for text in strings(load(path))
        for found in PLACEHOLDER.findall(text)
    }
    assert used >= {"COMMIT", "REGISTRY_HOST", "HUB.EXAMPLE.ORG", "ADMIN_EMAIL", "TEACHER"}
    assert sorted(word for word in used if word not in listed) == []


def test_idle_servers_are_culled_and_learners_kept(values):
    cull = values["cull"]
    assert cull["enabled"] is True and cull["users"] is False
    assert 0 < cull["every"] < cull["timeout"]


def test_the_image_is_built_as_the_readme_says(values):
    """The readme's build command makes the image the values name, home kept for the volume."""
    readme = README.read_text()
    image = values["singleuser"]["image"]
    assert f"--image-name {image['name']}:{image['tag']} " in readme
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
