"""cube_grad, the exercise's reference answer (against autograd of x**3), and its self-check."""

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib import Cube, cube_grad
from lessons_lib.exercises import check_cube_grad


@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=30))
def test_cube_grad_is_three_x_squared(data):
    x = torch.tensor(data, dtype=torch.float64)
    torch.testing.assert_close(cube_grad(x), 3 * x**2)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4), (1, 2, 3, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cube_grad_keeps_shape_and_dtype(shape, dtype):
    x = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(0))
    g = cube_grad(x)
    assert g.shape == x.shape and g.dtype == dtype
    torch.testing.assert_close(g, 3 * x**2)


def test_cube_grad_leaves_a_leaf_that_requires_grad_alone():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    cube_grad(x)
    cube_grad(x)
    assert x.grad is None
    assert x.requires_grad and x.is_leaf


def test_cube_grad_leaves_a_plain_tensor_without_requires_grad():
    x = torch.tensor([1.0, -2.0])
    assert cube_grad(x).tolist() == [3.0, 12.0]
    assert not x.requires_grad and x.grad is None


def test_cube_grad_works_on_a_non_leaf_without_touching_its_graph():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = w * 2  # non-leaf: part of the caller's graph
    assert cube_grad(x).tolist() == [12.0, 48.0]
    assert w.grad is None
    x.sum().backward()  # the caller's graph still works afterwards
    assert w.grad.tolist() == [2.0, 2.0]


def test_cube_grad_works_inside_no_grad():
    with torch.no_grad():
        assert cube_grad(torch.tensor([2.0])).tolist() == [12.0]
    assert torch.is_grad_enabled()


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.bool])
def test_cube_grad_refuses_integer_tensors_with_a_clear_message(dtype):
    with pytest.raises(TypeError, match=r"floating-point tensor.*x\.float\(\)"):
        cube_grad(torch.tensor([1, 2], dtype=dtype))


def test_cube_grad_refuses_non_tensors():
    with pytest.raises(TypeError, match=r"needs a torch\.Tensor, got list"):
        cube_grad([1.0, 2.0])


# --- check_cube_grad: the exercise's self-check -------------------------------------

CASE_NAMES = [
    "1-d values",
    "a 0-d tensor (a single number)",
    "an empty tensor",
    "a 2-d tensor",
    "float32 stays float32",
    "float64 stays float64",
    "a tensor that requires grad is left alone",
    "a non-leaf (the result of other steps)",
    "an integer tensor is refused with a clear error",
]


def failed(check):
    return [c.name for c in check.cases if not c.passed]


def first_draft(x):
    """The classic first attempt: differentiate the caller's own tensor."""
    x.requires_grad_(True)
    Cube.apply(x).sum().backward()
    return x.grad


def on_a_copy(x):
    """Right numbers and no side effects, but integers fail deep inside torch."""
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).sum().backward()
    return leaf.grad


def test_the_reference_answer_passes_every_case():
    check = check_cube_grad(cube_grad)
    assert check.ok and [c.name for c in check.cases] == CASE_NAMES
    assert str(check).splitlines()[0] == "cube_grad: all 9 checks passed. Well done!"
    assert check.first_failure is None


def test_autograd_of_x_cubed_written_by_hand_also_passes():
    """An answer that never uses Cube but is right and careful passes: the check is about behaviour."""

    def by_autograd(x):
        if not x.is_floating_point():
            raise TypeError("need floats")
        leaf = x.detach().requires_grad_(True)
        (grad,) = torch.autograd.grad((leaf**3).sum(), leaf)
        return grad

    assert check_cube_grad(by_autograd).ok


def test_the_first_draft_is_told_to_work_on_a_copy():
    check = check_cube_grad(first_draft)
    assert not check.ok and failed(check) == CASE_NAMES
    first = check.first_failure
    assert first.name == "1-d values"
    assert (first.expected, first.got) == ("x.requires_grad stays False", "x.requires_grad = True")
    assert "x.detach().requires_grad_(True)" in first.fix


def test_a_copy_without_a_dtype_check_fails_only_the_integer_case():
    check = check_cube_grad(on_a_copy)
    assert failed(check) == ["an integer tensor is refused with a clear error"]
    first = check.first_failure
    assert first.got.startswith("it raised RuntimeError") and "is_floating_point" in first.fix


def test_an_answer_that_accepts_integers_fails_the_integer_case():
    def floats_anything(x):
        return cube_grad(x.double() if not x.is_floating_point() else x)

    check = check_cube_grad(floats_anything)
    assert failed(check) == ["an integer tensor is refused with a clear error"]
    assert check.first_failure.got.startswith("no error; it returned tensor([ 3., 12., 27.]")


def test_a_wrong_derivative_names_expected_and_got_values():
    check = check_cube_grad(lambda x: cube_grad(x) / 3)  # forgot the 3 of 3x^2
    assert failed(check) == CASE_NAMES[:2] + CASE_NAMES[3:-1]  # empty tensors cannot tell
    first = check.first_failure
    assert first.expected == "tensor([12.0000, 3.0000, 0.0000, 0.7500, 27.0000])"
    assert first.got == "tensor([4.0000, 1.0000, 0.0000, 0.2500, 9.0000])"
    assert "3 * x**2" in first.fix


def test_a_changed_dtype_is_caught_with_the_dtype_in_got():
    check = check_cube_grad(lambda x: cube_grad(x).double())
    assert failed(check) == [n for n in CASE_NAMES if n != "float64 stays float64"][:-1]
    assert "dtype=torch.float64" in check.first_failure.got
    assert "Keep the dtype of x (torch.float32)" in check.first_failure.fix


def test_a_summed_gradient_is_caught_as_a_shape_problem():
    check = check_cube_grad(lambda x: cube_grad(x).sum())
    assert "a 0-d tensor (a single number)" not in failed(check)
    assert "its shape is x's shape (5,)" in check.first_failure.fix


def test_none_from_a_non_leaf_explains_that_only_leaves_get_grad():
    def grad_of_caller(x):
        if not x.is_floating_point():
            raise TypeError("need floats")
        if not x.requires_grad:
            return cube_grad(x)
        Cube.apply(x).sum().backward()  # a non-leaf's .grad stays None; w.grad fills instead
        return x.grad if x.is_leaf else None

    check = check_cube_grad(grad_of_caller)
    assert failed(check) == CASE_NAMES[6:8]
    leaf, non_leaf = (c for c in check.cases if not c.passed)
    assert leaf.got.startswith("x.grad = tensor([ 3., 12.])")
    assert non_leaf.got == "None" and "fills .grad only for leaf tensors" in non_leaf.fix


def test_in_place_changes_to_the_callers_tensor_are_caught():
    def squares_in_place(x):
        grad = cube_grad(x)
        if not x.requires_grad:
            x.mul_(2)
        return grad

    first = check_cube_grad(squares_in_place).first_failure
    assert first.expected.startswith("x keeps its values") and "in place" in first.fix


def test_errors_and_non_functions_never_escape_the_check():
    def unfinished(x):
        raise NotImplementedError

    check = check_cube_grad(unfinished)
    assert failed(check) == CASE_NAMES  # NotImplementedError is no refusal of integers
    assert check.first_failure.got == "it raised NotImplementedError: (no message)"
    assert "still raises NotImplementedError" in check.first_failure.fix

    called = check_cube_grad(cube_grad(torch.tensor([1.0])))
    assert not called.ok and "check_cube_grad(cube_grad)" in called.first_failure.fix

    class BadRepr:
        def __repr__(self):
            raise ValueError("no")

    assert "a BadRepr" in check_cube_grad(lambda x: BadRepr()).first_failure.got


def test_a_candidate_that_switches_grad_mode_off_does_not_leak_into_later_cases():
    def switches_off(x):
        torch.set_grad_enabled(False)
        return cube_grad(x)

    assert check_cube_grad(switches_off).ok
    assert torch.is_grad_enabled()


def test_the_html_view_shows_the_first_problem_escaped():
    check = check_cube_grad(first_draft)
    page = check._repr_html_()
    assert "First problem: 1-d values" in page and "✗" in page
    assert "x.detach().requires_grad_(True)" in page
    assert "<b" in page and "&lt;" not in check_cube_grad(cube_grad)._repr_html_()
    assert "&lt;lambda&gt;" in check_cube_grad(lambda x: x)._repr_html_()
