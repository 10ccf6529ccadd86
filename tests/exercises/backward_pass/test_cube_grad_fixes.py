"""The fix check_cube_grad gives for each wrong value, wrong result, None and error learners'
cube_grads produce: one test per wrong answer learners write."""

import functools

import pytest
import torch

from lessons_lib import Cube, cube_grad
from lessons_lib.exercises.backward_pass.cube_grad import check_cube_grad
from tests.exercises.backward_pass.learners import (
    CASE_NAMES,
    FLOATS_ONLY,
    NO_GRAD,
    failed,
    learner,
    problem,
)

NUMERIC = [n for n in CASE_NAMES if "Cube" not in n and "integer" not in n]


def test_a_wrong_derivative_is_compared_with_the_course_answer():
    check = check_cube_grad(lambda x: cube_grad(x) / 3)  # forgot the 3 of 3x^2
    assert failed(check) == [n for n in NUMERIC if n != "an empty tensor"]
    first = check.first_failure
    assert (
        first.expected
        == "tensor([12.0000, 3.0000, 0.0000, 0.7500, 27.0000]) (the course's cube_grad)"
    )
    assert first.got == "tensor([4.0000, 1.0000, 0.0000, 0.2500, 9.0000])"
    assert "3 * x**2" in first.fix
    assert first.read == "Lesson 1 developer track, “Mistake 3: a wrong derivative that runs fine”"


def test_returning_the_forward_value_is_named():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    return Cube.apply(leaf).detach()
"""
    )
    assert first.fix.startswith("cube_grad returned Cube's output, x**3, not its gradient")


WRONG_DTYPE = """
def cube_grad(x):
    if not x.is_floating_point():
        raise TypeError("floats only")
    leaf = x.detach().float().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""


def test_a_changed_dtype_names_the_dtype_to_keep():
    check = check_cube_grad(learner(WRONG_DTYPE))
    assert failed(check) == ["a float64 tensor", NO_GRAD]
    assert "dtype" not in check.first_failure.got  # float32 is torch's default: no dtype shown
    assert "Keep the dtype of x (torch.float64)" in check.first_failure.fix
    assert ".float()" in check.first_failure.fix


def test_a_summed_gradient_is_caught_as_a_shape_problem():
    check = check_cube_grad(lambda x: cube_grad(x).sum())
    assert "a 0-d tensor (a single number)" not in failed(check)
    assert "its shape is x's shape (5,)" in check.first_failure.fix


FORGOT_REQUIRES_GRAD = [
    """
def cube_grad(x):
    leaf = x.detach()
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
""",
    """
def cube_grad(x):
    leaf = x.detach()
    Cube.apply(leaf).sum().backward()
    return leaf.grad
""",
]


@pytest.mark.parametrize("source", FORGOT_REQUIRES_GRAD, ids=["autograd.grad", "backward"])
def test_forgetting_requires_grad_names_it_and_where_to_set_it(source):
    first = problem(source)
    assert first.got == (
        "it raised RuntimeError: element 0 of tensors does not require grad and does not have "
        "a grad_fn"
    )
    assert "requires_grad switched on before the call" in first.fix
    assert "x.detach().requires_grad_(True), then Cube.apply(copy)" in first.fix
    assert "Read the error" not in first.fix


def test_returning_the_callers_x_grad_says_the_gradient_went_to_the_copy():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).sum().backward()
    return x.grad
"""
    )
    assert first.got == "None"
    assert first.fix.startswith("cube_grad returned x.grad, the caller's own .grad, which is None")


def test_filling_the_callers_grad_through_a_clone_says_so():
    check = check_cube_grad(
        learner(
            """
def cube_grad(x):
    copy = x.clone().requires_grad_(True)
    Cube.apply(copy).sum().backward()
    return copy.grad
"""
        )
    )
    assert failed(check)[:2] == [
        "a tensor that requires grad is left alone",
        "a non-leaf (the result of other steps)",
    ]
    leaf, non_leaf = [c for c in check.cases if not c.passed][:2]
    assert leaf.got == "None"
    assert "the gradient went into the caller's x.grad instead" in leaf.fix
    assert "x.clone() stays connected" in leaf.fix and "x.detach()" in leaf.fix
    assert "the gradient went into the caller's w.grad instead" in non_leaf.fix


def test_a_missing_return_line_is_named():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).sum().backward()
    leaf.grad
"""
    )
    assert first.got == "None" and first.fix.startswith("cube_grad has no return line")


def test_none_from_a_non_leaf_explains_that_only_leaves_get_grad():
    def grad_of_caller(x):
        if not x.is_floating_point():
            raise TypeError("need floats")
        if not x.requires_grad:
            return cube_grad(x)
        Cube.apply(x).sum().backward()  # a non-leaf's .grad stays None; w.grad fills instead
        return x.grad

    check = check_cube_grad(grad_of_caller)
    assert failed(check) == CASE_NAMES[8:10]
    leaf, non_leaf = (c for c in check.cases if not c.passed)
    assert leaf.got.startswith("x.grad = tensor([ 3., 12.])")
    assert non_leaf.got == "None" and "fills .grad only for leaf tensors" in non_leaf.fix


@pytest.mark.parametrize(
    ("differentiate", "says"),
    [
        ("Cube.apply(leaf).backward()", ".backward() without an argument needs a single number"),
        (
            "torch.autograd.grad(Cube.apply(leaf), leaf)",
            "torch.autograd.grad(outputs, inputs) without grad_outputs needs outputs to be a single number",
        ),
    ],
    ids=["backward", "autograd.grad"],
)
def test_differentiating_without_sum_names_the_call_and_the_fix(differentiate, says):
    check = check_cube_grad(
        learner(
            f"""
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    result = {differentiate}
    return leaf.grad if result is None else result[0]
"""
        )
    )
    assert "a 0-d tensor (a single number)" not in failed(check)  # one number needs no .sum()
    first = check.first_failure
    assert (
        first.got
        == "it raised RuntimeError: grad can be implicitly created only for scalar outputs"
    )
    assert first.fix.startswith(says) and ".sum()" in first.fix


def test_changing_the_callers_tensor_in_place_is_caught_both_ways():
    check = check_cube_grad(
        learner(
            """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return x.copy_(grad)
"""
        )
    )
    first = check.first_failure
    assert first.expected == "x keeps its values tensor([-2.0000, -1.0000, 0.0000, 0.5000, 3.0000])"
    assert "changed the caller's x in place" in first.fix
    leaf = next(c for c in check.cases if c.name == "a tensor that requires grad is left alone")
    assert "leaf Variable that requires grad" in leaf.got
    assert leaf.fix.startswith("An in-place operation") and "x * 3, not x.mul_(3)" in leaf.fix


def test_changing_a_saved_tensor_in_place_points_to_the_version_check():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    copy = leaf * 1
    total = Cube.apply(copy).sum()
    copy.mul_(2)
    (grad,) = torch.autograd.grad(total, leaf)
    return grad
"""
    )
    assert "modified by an inplace operation" in first.got
    assert first.fix.startswith("A tensor Cube saved for backward was changed in place")
    assert (
        first.read
        == "Lesson 1 developer track, “Why save_for_backward: the version-counter safety net”"
    )


@pytest.mark.parametrize(
    ("step", "says"),
    [
        ("torch.from_numpy(Cube.apply(leaf).numpy())", ".numpy() leaves PyTorch"),
        ("torch.from_numpy(Cube.apply(leaf).detach().numpy())", "cut the chain"),
    ],
    ids=["numpy", "detach-numpy"],
)
def test_numpy_in_the_path_is_named(step, says):
    first = problem(
        f"""
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    total = {step}.sum()
    (grad,) = torch.autograd.grad(total, leaf)
    return grad
"""
    )
    assert says in first.fix and "Keep every step from Cube.apply(...) to .sum()" in first.fix


def test_returning_a_python_float_is_named_on_one_number_and_on_many():
    check = check_cube_grad(
        learner(
            """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad.item()
"""
        )
    )
    many = check.first_failure
    assert (
        many.got == "it raised RuntimeError: a Tensor with 5 elements cannot be converted to Scalar"
    )
    assert many.fix.startswith(
        ".item() turns a tensor holding exactly one number into a Python float"
    )
    one = next(c for c in check.cases if c.name == "a 0-d tensor (a single number)")
    assert one.got == "12.0" and one.fix.startswith(
        "cube_grad returned a Python float, not a tensor"
    )


def test_returning_autograd_grads_tuple_says_unpack_it():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    return torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
"""
    )
    assert first.got.startswith("(tensor([12.0000,")
    assert "(grad,) = torch.autograd.grad(...)" in first.fix


def test_recording_switched_off_is_named():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    with torch.no_grad():
        total = Cube.apply(leaf).sum()
    (grad,) = torch.autograd.grad(total, leaf)
    return grad
"""
    )
    assert "recording switched off (inside torch.no_grad())" in first.fix


# --- audit: each error's story names what really happened ----------------------------------


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            "(grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), x)",
            "was asked for the gradient with respect to a tensor that does not require grad",
        ),
        (
            "(grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), x if x.requires_grad else leaf)",
            "was asked about a tensor that total was not computed from",
        ),
        (
            "total = Cube.apply(leaf).sum()\n    total.backward()\n    total.backward()\n"
            "    grad = leaf.grad",
            "Backward ran twice through the same graph",
        ),
        (
            "out = Cube.apply(leaf)\n    out.backward(torch.ones(out.shape[0]) if out.dim() else "
            "torch.tensor(1.0))\n    grad = leaf.grad",
            "must have the shape of Cube.apply's result",
        ),
    ],
    ids=["wrt-untracked-x", "wrt-unused-x", "backward-twice", "grad-out-shape"],
)
def test_an_autograd_error_in_cube_grad_gets_its_own_fix(body, says):
    source = f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    {body}
    return grad
"""
    first = problem(source)
    assert first.got.startswith("it raised RuntimeError")
    assert says in first.fix
    assert "cut the chain" not in first.fix and "Read the error above" not in first.fix


def test_the_mean_instead_of_the_sum_is_named():
    first = problem(
        """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).mean().backward()
    return leaf.grad
"""
    )
    assert first.fix.startswith("Each number is the course's divided by 5")
    assert "differentiated the mean, not the sum" in first.fix and first.read == ""


def test_switching_the_callers_requires_grad_off_is_not_called_switching_it_on():
    def switches_off(x):
        g = cube_grad(x)
        x.requires_grad_(False) if x.is_leaf else None
        return g

    case = check_cube_grad(switches_off).cases[8]
    assert (case.expected, case.got) == ("x.requires_grad stays True", "x.requires_grad = False")
    assert case.fix.startswith("cube_grad switched off requires_grad on the caller's own tensor")


def test_an_error_through_the_courses_own_code_names_the_learners_line_not_the_courses():
    """torch.func.grad refuses a Cube without setup_context; the error passes through the
    course's counting wrapper of Cube.apply, but the line named is the learner's own."""
    first = problem(
        """
def cube_grad(x):
    return torch.func.grad(lambda t: Cube.apply(t).sum())(x)
"""
    )
    assert "setup_context" in first.got
    assert "apply(*args, **kwargs)" not in first.fix
    assert "`return torch.func.grad(lambda t: Cube.apply(t).sum())(x)`" in first.fix


def test_an_error_that_passed_through_no_line_of_the_learners_says_so():
    candidate = functools.partial(torch.func.grad(Cube.apply))  # no line of its own runs
    first = check_cube_grad(candidate).first_failure
    assert "setup_context" in first.got
    assert "the traceback passes through no line of your own code" in first.fix
    assert "fix the line it names" not in first.fix


def test_torch_func_on_the_classic_cube_is_named_as_the_form_it_needs():
    first = problem(
        f"""
def cube_grad(x):
    {FLOATS_ONLY}
    return torch.func.grad(lambda t: Cube.apply(t).sum())(x)
"""
    )
    assert "setup_context form" in first.fix and "torch.autograd.grad" in first.fix
    assert "ordinary" not in first.fix


def test_an_own_raise_whose_source_cannot_be_read_is_not_blamed_on_pytorch():
    namespace = {"torch": torch, "Cube": Cube}
    source = "def cube_grad(x):\n    raise TypeError('cube_grad needs a float tensor')\n"
    exec(compile(source, "<no-source>", "exec"), namespace)  # no linecache entry: no source
    first = check_cube_grad(namespace["cube_grad"]).first_failure
    assert "PyTorch" not in first.got and "PyTorch" not in first.fix
