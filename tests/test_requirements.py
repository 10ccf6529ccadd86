"""Two pinned lists: requirements.txt, what a learner's environment (and Binder) holds, and
requirements-test.txt, which adds the test tools; they never disagree on a version."""

from collections import defaultdict

from tests.lab_server import ROOT
from tests.requirements_files import names, normalise, requirements

LEARNER = ROOT / "requirements.txt"
TESTS = ROOT / "requirements-test.txt"
BINDER = ROOT / "binder" / "requirements.txt"
# What only the test suite and its tools import or run: none of it belongs to a learner.
# (pytest and hypothesis do: lesson 2 has learners run a pytest file and a property test.)
TEST_TOOLS = {"nbval", "ruff", "playwright", "expecttest", "jupyter-repo2docker"}


def test_every_requirement_is_pinned_exactly():
    for pin in requirements(TESTS) + requirements(BINDER):
        assert pin.spec.startswith("==") and "*" not in pin.spec, pin


def test_the_test_list_holds_the_learners_list_and_the_test_tools():
    assert names(LEARNER) < names(TESTS)
    assert names(TESTS, follow=False) >= TEST_TOOLS


def test_the_two_lists_agree_on_every_shared_pin():
    versions = defaultdict(set)
    for pin in requirements(LEARNER) + requirements(TESTS):
        versions[pin.name].add(pin.spec)
    assert {name: specs for name, specs in versions.items() if len(specs) > 1} == {}


def test_the_learners_list_holds_no_test_tool():
    assert names(LEARNER) & (TEST_TOOLS | names(TESTS, follow=False)) == set()


def test_binders_list_with_its_includes_followed_holds_no_test_tool():
    binder = names(BINDER)
    assert {"torch", "jupyterlab", "ipykernel"} <= binder, "the include was not followed"
    assert binder & (TEST_TOOLS | names(TESTS, follow=False)) == set()


def test_names_are_compared_as_pip_compares_them():
    assert (
        normalise("Jupyter_Repo2Docker")
        == normalise("jupyter.repo2docker")
        == "jupyter-repo2docker"
    )
