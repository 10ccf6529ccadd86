"""PyTorch's errors learners meet most get one plain-English sentence; any other gets none."""

import linecache
import warnings

import pytest
import torch

import lessons_lib
from lessons_lib import Cube
from lessons_lib.running.explain import plain_english


def _raised(action) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            action()
        except Exception as error:
            return error
    raise AssertionError("nothing was raised")


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (lambda: torch.tensor([1, 2], requires_grad=True), "only to tensors of floating-point"),
        (lambda: torch.tensor([1.0, 2.0]).sum().backward(), "no tensor with requires_grad=True"),
        (
            lambda: torch.ones(3, requires_grad=True).mul(2).backward(),
            "needs an output of one number",
        ),
        (lambda: bool(torch.ones(2) > 0), "a tensor of several numbers for one True or False"),
        (lambda: Cube(torch.ones(1)) - Cube(torch.ones(1)), "Run it with Cube.apply(...)"),
    ],
    ids=["integers", "no-grad", "not-scalar", "bool", "no-apply"],
)
def test_each_explained_error_gets_its_sentence(action, says):
    assert says in plain_english(_raised(action))


def test_an_error_the_course_cannot_explain_gets_no_sentence():
    assert plain_english(ZeroDivisionError("division by zero")) == ""
    assert plain_english(TypeError("unsupported operand type(s) for -: 'str' and 'int'")) == ""


CHECKS = ("check_nudge", "check_edge_test", "check_my_checks", "check_cube_grad")


def _run_cell(source: str) -> BaseException:
    """Run source as a notebook cell runs (its lines readable through linecache); its error."""
    filename = f"<cell-{abs(hash(source))}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        checks = {name: getattr(lessons_lib, name) for name in CHECKS}
        exec(compile(source, filename, "exec"), {"torch": torch, **checks})
    except Exception as error:
        return error
    raise AssertionError("nothing was raised")


@pytest.mark.parametrize(
    ("check", "learner"),
    [
        ("check_nudge", "my_nudge"),
        ("check_edge_test", "my_edge_test"),
        ("check_my_checks", "my_checks"),
        ("check_cube_grad", "cube_grad"),
    ],
)
def test_a_function_called_inside_a_check_is_named_with_that_check(check, learner):
    """The example names the check and the function of the line that raised, not another
    exercise's."""
    error = _run_cell(f"def {learner}(a):\n    return a\n\n{check}({learner}())\n")
    sentence = plain_english(error)
    assert f"write its name without brackets: {check}({learner}), not {check}({learner}())." in (
        sentence
    )
    others = set(CHECKS) - {check}
    assert not any(other in sentence for other in others)


def test_a_function_called_alone_with_too_few_values_gets_no_example_of_a_check():
    sentence = plain_english(_run_cell("def my_nudge(f, x, h):\n    return x\n\nmy_nudge(1)\n"))
    assert sentence.startswith("A function was called with fewer values than its def line")
    assert "check_" not in sentence and "brackets" not in sentence
