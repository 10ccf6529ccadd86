"""cube_grad, the exercise's reference answer (against autograd of x**3); its self-check,
one test per wrong answer learners write."""

import functools
import inspect
import itertools
import linecache
import re
import textwrap
import warnings

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lessons_lib import Cube, cube_grad
from lessons_lib.exercises.backward_pass.cube import check_cube
from lessons_lib.exercises.backward_pass.cube_grad import check_cube_grad
from lessons_lib.exercises.backward_pass.cube_grad_words import READ
from lessons_lib.exercises.backward_pass.cube_words import READ_BEGINNER


@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=30))
def test_cube_grad_is_three_x_squared_as_autograd_of_x_cubed_says(data):
    x = torch.tensor(data, dtype=torch.float64)
    leaf = x.clone().requires_grad_(True)
    (autograd,) = torch.autograd.grad((leaf**3).sum(), leaf)
    torch.testing.assert_close(cube_grad(x), autograd)
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
    "your Cube's backward did the work",
    "your Cube's backward multiplies by grad_out",
    "a 0-d tensor (a single number)",
    "an empty tensor",
    "a 2-d tensor",
    "float32 stays float32",
    "float64 stays float64",
    "a tensor that requires grad is left alone",
    "a non-leaf (the result of other steps)",
    "an integer tensor is refused with a clear error",
    "works inside the caller's torch.no_grad()",
]
NO_GRAD = CASE_NAMES[-1]
NUMERIC = [n for n in CASE_NAMES if "Cube" not in n and "integer" not in n]
_cells = itertools.count()


def cell(source, **names):
    """Run source as a notebook cell does: in its own namespace (with torch and the course's
    Cube unless given), its source readable by inspect through linecache, as IPython does."""
    source, filename = textwrap.dedent(source), f"<test-cell-{next(_cells)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"torch": torch, "Cube": Cube, **names}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def learner(source, **names):
    """The cube_grad a learner wrote in `source`."""
    return cell(source, **names)["cube_grad"]


def failed(check):
    return [c.name for c in check.cases if not c.passed]


def problem(source, **names):
    """The first problem check_cube_grad finds in a learner's cube_grad (there must be one)."""
    check = check_cube_grad(learner(source, **names))
    assert not check.ok
    return check.first_failure


FLOATS_ONLY = "if not x.is_floating_point(): raise TypeError('cube_grad needs floats')"

STARTER_CUBE = """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 3 * x**2  # TODO: this line forgets grad_out
"""

FIRST_DRAFT = """
def cube_grad(x):
    x.requires_grad_(True)
    Cube.apply(x).sum().backward()
    return x.grad
"""


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
    assert str(check).splitlines()[0] == "cube_grad: all 12 checks passed. Well done!"
    assert check.first_failure is None
    assert "Stuck?" not in str(check)  # no hint offered to a finished answer


def test_a_learners_own_right_answer_passes_in_its_own_namespace():
    source = STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
    namespace = cell(source)
    answer = cell(inspect.getsource(cube_grad), Cube=namespace["Cube"])["cube_grad"]
    assert check_cube_grad(answer).ok


# The two answers that fooled all nine checks before: right numbers, no Cube involved.
FORMULA = f"""
def cube_grad(x):
    {FLOATS_ONLY}
    return 3 * x**2
"""
AUTOGRAD_OF_X_CUBED = f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad((leaf**3).sum(), leaf)
    return grad
"""


@pytest.mark.parametrize(
    ("source", "also"),
    [(FORMULA, []), (AUTOGRAD_OF_X_CUBED, [NO_GRAD])],  # autograd of x**3 needs recording on
    ids=["formula", "x**3"],
)
def test_right_numbers_without_the_learners_cube_are_caught(source, also):
    check = check_cube_grad(learner(source))
    assert failed(check) == ["your Cube's backward did the work", *also]
    first = check.first_failure
    assert (
        first.got == "calls of Cube.apply: 0, of Cube.forward by hand: 0; runs of your backward: 0"
    )
    assert first.fix.startswith("cube_grad got the right numbers without running your Cube at all")
    assert first.fix.count(". ") == 0  # one sentence
    assert first.read == "Lesson 1 developer track, “A complete custom operation”"


def test_wrong_numbers_without_the_learners_cube_are_not_called_right():
    check = check_cube_grad(lambda x: x * 0)
    uses_cube = next(c for c in check.cases if c.name == "your Cube's backward did the work")
    assert not uses_cube.passed and "right numbers" not in uses_cube.fix
    assert uses_cube.fix.startswith("cube_grad never ran your Cube")


def test_the_course_cube_is_not_the_learners_cube():
    """Calling lessons_lib's Cube from a notebook whose own Cube is different is caught."""
    import lessons_lib

    namespace = cell(STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2"))
    source = inspect.getsource(cube_grad).replace("Cube.apply", "lessons_lib.Cube.apply")
    answer = learner(source, Cube=namespace["Cube"], lessons_lib=lessons_lib)
    assert failed(check_cube_grad(answer)) == ["your Cube's backward did the work"]


def test_applying_cube_but_differentiating_something_else_is_caught():
    first = problem(
        f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf)
    (grad,) = torch.autograd.grad((leaf**3).sum(), leaf)
    return grad
"""
    )
    assert first.name == "your Cube's backward did the work"
    assert "called Cube.apply, but your Cube's backward never ran" in first.fix


def test_cube_forward_called_by_hand_with_a_fake_ctx_is_caught():
    first = problem(
        f"""
from types import SimpleNamespace

def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    ctx = SimpleNamespace(save_for_backward=lambda *tensors: None)
    (grad,) = torch.autograd.grad(Cube.forward(ctx, leaf).sum(), leaf)
    return grad
"""
    )
    assert first.name == "your Cube's backward did the work"
    assert "called Cube.forward(...) itself" in first.fix and "Cube.apply" in first.fix
    assert first.read == "Lesson 1 developer track, “apply, never forward”"


@pytest.mark.parametrize("call", ["Cube.forward(leaf)", "Cube.forward(None, leaf)"])
def test_cube_forward_instead_of_apply_is_named(call):
    first = problem(
        f"""
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad({call}.sum(), leaf)
    return grad
"""
    )
    assert first.name == "1-d values" and first.got.startswith("it raised")
    assert first.fix.startswith("cube_grad called Cube.forward(...) itself. Call Cube.apply")
    assert first.read == "Lesson 1 developer track, “apply, never forward”"


def test_the_learners_cube_is_restored_exactly_even_when_cube_grad_raises():
    namespace = cell(STARTER_CUBE)
    cube = namespace["Cube"]
    before = dict(vars(cube))
    check_cube_grad(learner(FIRST_DRAFT, Cube=cube))
    check_cube_grad(
        learner("def cube_grad(x):\n    Cube.apply(x.detach()).sum().backward()", Cube=cube)
    )
    assert dict(vars(cube)) == before  # same objects: nothing added, nothing left wrapped
    assert (
        "apply" not in vars(cube) and cube.apply.__func__ is torch.autograd.Function.apply.__func__
    )


def test_a_learners_cube_that_drops_grad_out_is_caught_although_sum_hides_it():
    answer = cell(inspect.getsource(cube_grad), Cube=cell(STARTER_CUBE)["Cube"])["cube_grad"]
    check = check_cube_grad(answer)
    assert failed(check) == ["your Cube's backward multiplies by grad_out"]
    first = check.first_failure
    assert first.expected == (
        "tensor([ 6.0000, 6.0000, 0.0000, -0.7500, 40.5000]) (the course's Cube, for "
        "grad_out = tensor([ 0.5000, 2.0000, 3.0000, -1.0000, 1.5000]))"
    )
    assert first.got == "tensor([12.0000, 3.0000, 0.0000, 0.7500, 27.0000])"
    assert "ignores grad_out" in first.fix and "all ones" in first.fix
    assert first.read == "Lesson 1 developer track, “Mistake 4: breaking the chain”"


def test_a_missing_cube_is_reported_not_raised():
    check = check_cube_grad(learner(FORMULA, Cube=None))
    assert failed(check) == CASE_NAMES[1:3]
    assert "run the cell that defines class Cube" in check.first_failure.fix


def test_the_first_draft_is_told_to_work_on_a_copy():
    check = check_cube_grad(first_draft)
    assert not check.ok and failed(check) == [n for n in CASE_NAMES if "Cube" not in n]
    first = check.first_failure
    assert first.name == "1-d values"
    assert (first.expected, first.got) == ("x.requires_grad stays False", "x.requires_grad = True")
    assert "x.detach()" in first.fix and "never for x" in first.fix


def test_backward_on_a_detached_copy_really_raises_inside_a_callers_no_grad():
    """The fact the no_grad check rests on, on torch itself; the course's answer is immune."""
    x = torch.tensor([1.0, 2.0])
    with torch.no_grad(), pytest.raises(RuntimeError, match="does not require grad"):
        on_a_copy(x)
    with torch.no_grad():
        assert cube_grad(x).tolist() == [3.0, 12.0]


def test_a_caller_who_switched_recording_off_gets_the_gradient_or_a_specific_fix():
    """A .backward() on a detached copy, with a dtype check, passed all 11 checks before."""
    check = check_cube_grad(
        learner(f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    Cube.apply(leaf).sum().backward()
    return leaf.grad
""")
    )
    assert failed(check) == [NO_GRAD]
    first = check.first_failure
    assert first.got == (
        "it raised RuntimeError: element 0 of tensors does not require grad and does not have "
        "a grad_fn"
    )
    assert first.fix.startswith("The caller switched recording off with torch.no_grad()")
    assert first.fix.endswith("put them inside `with torch.enable_grad():`.")
    fixed = learner(f"""
def cube_grad(x):
    {FLOATS_ONLY}
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():
        Cube.apply(leaf).sum().backward()
    return leaf.grad
""")
    assert check_cube_grad(fixed).ok


def test_the_hints_name_the_callers_no_grad_and_enable_grad():
    calls = str(check_cube_grad(first_draft, hint=2))
    assert "with recording switched on even where the caller switched it off" in calls
    assert "`with torch.enable_grad():` record even within a caller's torch.no_grad()" in calls


def test_the_first_failure_no_longer_gives_the_whole_answer():
    fix = check_cube_grad(first_draft).first_failure.fix
    assert "autograd.grad" not in fix and ".sum()" not in fix


def test_a_copy_without_a_dtype_check_fails_the_integer_case_and_the_callers_no_grad():
    check = check_cube_grad(on_a_copy)
    assert failed(check) == ["an integer tensor is refused with a clear error", NO_GRAD]
    first = check.first_failure
    assert first.got.startswith("it raised RuntimeError") and "is_floating_point" in first.fix


def test_an_answer_that_accepts_integers_fails_the_integer_case():
    def floats_anything(x):
        return cube_grad(x.double() if not x.is_floating_point() else x)

    check = check_cube_grad(floats_anything)
    assert failed(check) == ["an integer tensor is refused with a clear error"]
    assert check.first_failure.got.startswith("no error; it returned tensor([ 3., 12., 27.]")


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
    assert failed(check) == ["float64 stays float64", NO_GRAD]
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


def test_errors_and_non_functions_never_escape_the_check():
    def unfinished(x):
        raise NotImplementedError

    check = check_cube_grad(unfinished)
    # NotImplementedError is no refusal of integers; the Cube's own check still passes.
    assert failed(check) == [
        n for n in CASE_NAMES if n != "your Cube's backward multiplies by grad_out"
    ]
    assert check.first_failure.got == "it raised NotImplementedError: (no message)"
    assert "still raises NotImplementedError" in check.first_failure.fix

    called = check_cube_grad(cube_grad(torch.tensor([1.0])))
    assert not called.ok and "check_cube_grad(cube_grad)" in called.first_failure.fix

    class BadRepr:
        def __repr__(self):
            raise ValueError("no")

    assert "a BadRepr" in check_cube_grad(lambda x: BadRepr()).first_failure.got
    assert not check_cube_grad(functools.partial(cube_grad)).ok  # no __globals__: no Cube found
    assert not check_cube_grad(learner("def cube_grad(x):\n    return Kube.apply(x)")).ok


def test_a_name_error_says_which_cell_to_run():
    first = problem("def cube_grad(x):\n    return Kube.apply(x)")
    assert first.fix.startswith("Kube does not exist where cube_grad was written")


def test_a_candidate_that_switches_grad_mode_off_does_not_leak_into_later_cases():
    def switches_off(x):
        torch.set_grad_enabled(False)
        return cube_grad(x)

    assert check_cube_grad(switches_off).ok
    assert torch.is_grad_enabled()


# --- hints: the idea, then the PyTorch calls, then the answer ------------------------


def test_an_unfinished_answer_is_offered_the_first_hint_only():
    text = str(check_cube_grad(first_draft))
    assert text.splitlines()[-1] == (
        "Stuck? check_cube_grad(cube_grad, hint=1) shows the idea "
        "(hint=2 the PyTorch calls, then hint=3 the answer)."
    )
    assert "Hint 1" not in text and "def cube_grad" not in text


def test_hints_are_revealed_one_step_at_a_time():
    idea = str(check_cube_grad(first_draft, hint=1))
    assert "Hint 1 of 3 (the idea): Let autograd do the differentiating" in idea
    assert "Hint 2" not in idea and "torch.autograd.grad" not in idea
    assert idea.splitlines()[-1].startswith(
        "Stuck? check_cube_grad(cube_grad, hint=2) shows the PyTorch calls"
    )

    calls = str(check_cube_grad(first_draft, hint=2))
    assert "Hint 1 of 3" in calls and "Hint 2 of 3 (the PyTorch calls): x.detach()" in calls
    assert "torch.autograd.grad(total, copy)" in calls and "def cube_grad" not in calls

    answer = check_cube_grad(first_draft, hint=3)
    assert "Hint 3 of 3 (the answer):" in str(answer) and "Stuck?" not in str(answer)
    assert inspect.getsource(cube_grad).splitlines()[0] in str(answer)
    assert "<pre>def cube_grad(x: torch.Tensor) -&gt; torch.Tensor:" in answer._repr_html_()


def test_hint_on_the_verdict_matches_the_hint_argument():
    assert str(check_cube_grad(first_draft).hint(2)) == str(check_cube_grad(first_draft, hint=2))


@pytest.mark.parametrize("level", [-1, 0, 7, "2", None, 2.5])
def test_odd_hint_levels_never_raise(level):
    shown = check_cube_grad(first_draft, hint=level).shown
    assert shown == {7: 3}.get(level, 0)


def test_the_html_view_shows_the_first_problem_escaped():
    check = check_cube_grad(first_draft)
    page = check._repr_html_()
    assert "First problem: 1-d values" in page and "✗" in page
    assert "x.detach()" in page and "Stuck?" in page
    assert "<b" in page and "&lt;" not in check_cube_grad(cube_grad)._repr_html_()
    assert "&lt;lambda&gt;" in check_cube_grad(lambda x: x)._repr_html_()
    assert (
        "Read more:</i> Lesson 1 developer track" in check_cube_grad(learner(FORMULA))._repr_html_()
    )


def headings(track):
    """The headings of a lesson 1 notebook, as its markdown spells them."""
    import json
    from pathlib import Path

    path = Path(__file__).parents[2] / f"notebooks/01-custom-function/{track}.ipynb"
    return {
        line.lstrip("#").strip()
        for c in json.loads(path.read_text())["cells"]
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if line.startswith("#")
    }


def test_every_section_named_in_a_fix_is_a_heading_of_that_track():
    developer = headings("2-developer")
    for section in READ.values():
        track, heading = section.split(", “")
        assert track == "Lesson 1 developer track" and heading.rstrip("”") in developer, section
    track, heading = READ_BEGINNER.split(", “")
    assert track == "Lesson 1 beginner track" and heading.rstrip("”") in headings("1-beginner")
    assert check_cube(cell(STARTER_CUBE)["Cube"]).first_failure.read == READ_BEGINNER


# --- fresh-reader mistakes: an alias is not a copy; an int check that never fires ------


def test_copy_equals_x_is_named_as_a_second_name_not_a_copy():
    namespace = cell(
        STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
        + """
def cube_grad(x):
    copy = x
    copy.requires_grad_(True)
    Cube.apply(copy).sum().backward()
    return copy.grad
"""
    )
    fix = check_cube_grad(namespace["cube_grad"]).first_failure.fix
    assert "`copy = x` gives the same tensor a second name; it does not copy it" in fix


def test_an_error_that_does_not_say_what_to_pass_fails_the_integer_case():
    namespace = cell(
        STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
        + """
def cube_grad(x):
    if not x.is_floating_point():
        raise TypeError("wrong type")
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""
    )
    check = check_cube_grad(namespace["cube_grad"])
    assert check.first_failure.name == "an integer tensor is refused with a clear error"
    assert "does not say what to pass instead" in check.first_failure.fix


def test_a_dtype_equals_int_check_that_never_fires_is_explained():
    namespace = cell(
        STARTER_CUBE.replace("return 3 * x**2", "return grad_out * 3 * x**2")
        + """
def cube_grad(x):
    if x.dtype == int:
        raise TypeError("cube_grad needs a floating-point tensor")
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""
    )
    fix = check_cube_grad(namespace["cube_grad"]).first_failure.fix
    assert "Your own check did not fire" in fix and "x.is_floating_point()" in fix


# --- a copy that reuses the name x: the story must match where the gradient went --------

RENAMED_CLONE = """
def cube_grad(x):
    x = x.clone().requires_grad_(True)
    Cube.apply(x).sum().backward()
    return x.grad
"""


def test_a_clone_named_x_really_sends_the_gradient_to_the_callers_tensor():
    """The fact the check reports, on torch itself: the caller's leaf gets it, the clone not."""
    answer = learner(RENAMED_CLONE)
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not a leaf Tensor"):  # reading the clone's .grad
        assert answer(x) is None
    assert x.grad.tolist() == [3.0, 12.0]


def test_a_clone_named_x_is_told_the_callers_tensor_got_the_gradient():
    check = check_cube_grad(learner(RENAMED_CLONE))
    assert failed(check) == [
        *CASE_NAMES[8:10],
        "an integer tensor is refused with a clear error",
        NO_GRAD,
    ]
    leaf, non_leaf = (c for c in check.cases[8:10] if not c.passed)
    assert leaf.got == "None"
    assert leaf.fix.startswith(
        "`x = x.clone().requires_grad_(True)` gives the name x to your copy, so `return x.grad` "
        "returned the copy's .grad, which is None, and the gradient went into the caller's "
        "x.grad instead: a copy made with x.clone() stays connected to the caller's tensor"
    )
    assert "went to your copy" not in leaf.fix and "x.detach()" in leaf.fix
    assert "the gradient went into the caller's w.grad instead" in non_leaf.fix
    assert "through it on to w, which x was made from" in non_leaf.fix


def test_a_non_clone_copy_is_not_said_to_be_made_with_clone():
    first = problem(RENAMED_CLONE.replace("x.clone()", "(x * 1)"))
    assert "x.clone() stays connected" not in first.fix
    assert "a copy made with a PyTorch step on x" in first.fix


def test_the_callers_own_non_leaf_x_is_told_that_w_got_the_gradient():
    def straight_on_x(x):
        if not x.is_floating_point():
            raise TypeError("need floats")
        if not x.requires_grad:
            return cube_grad(x)
        Cube.apply(x).sum().backward()
        return x.grad

    non_leaf = check_cube_grad(straight_on_x).cases[9]
    assert not non_leaf.passed
    assert "fills .grad only for leaf tensors" in non_leaf.fix
    assert "passed the gradient on into w.grad" in non_leaf.fix


@pytest.mark.parametrize(
    ("source", "starts"),
    [
        (
            """
def cube_grad(x):
    x = x.detach().requires_grad_(True)
    torch.autograd.grad(Cube.apply(x).sum(), x)
    return x.grad
""",
            "`x = x.detach().requires_grad_(True)` gives the name x to your copy, so "
            "`return x.grad` returned the copy's .grad, which is None: torch.autograd.grad "
            "gives the gradient back and stores it in no .grad",
        ),
        (
            """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return leaf.grad
""",
            "cube_grad returned leaf.grad, which is None: torch.autograd.grad gives the "
            "gradient back and stores it in no .grad",
        ),
        (
            """
def cube_grad(x):
    leaf = x.detach().requires_grad_(True)
    total = Cube.apply(leaf).sum()
    return leaf.grad
""",
            "cube_grad returned leaf.grad, which is None because nothing asked autograd for a "
            "gradient",
        ),
    ],
    ids=["renamed-autograd-grad", "autograd-grad-then-grad", "no-backward"],
)
def test_a_none_gradient_names_its_real_cause(source, starts):
    first = problem(source)
    assert first.name == "1-d values" and first.got == "None"
    assert first.fix.startswith(starts)
    assert "the caller's own .grad" not in first.fix


def test_a_clone_that_keeps_its_grad_says_the_clone_passed_it_on():
    check = check_cube_grad(
        learner(
            """
def cube_grad(x):
    x = x.clone().requires_grad_(True)
    x.retain_grad()
    Cube.apply(x).sum().backward()
    return x.grad
"""
        )
    )
    leaf = check.cases[CASE_NAMES.index("a tensor that requires grad is left alone")]
    assert leaf.got == "x.grad = tensor([ 3., 12.])"
    assert "A copy made with x.clone() stays connected to the caller's tensor" in leaf.fix


# --- an integer tensor: where the error came from, and what to raise instead -------------

COPY_BODY = """
    leaf = x.detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(Cube.apply(leaf).sum(), leaf)
    return grad
"""


def integer_case(check):
    return check.cases[CASE_NAMES.index("an integer tensor is refused with a clear error")]


def test_pytorchs_own_error_is_not_called_yours_and_names_the_line():
    case = integer_case(check_cube_grad(learner("def cube_grad(x):" + COPY_BODY)))
    assert case.got == (
        "it raised RuntimeError: only Tensors of floating point dtype can require gradients, "
        "raised by PyTorch in your line `leaf = x.detach().requires_grad_(True)`"
    )
    assert case.fix.startswith(
        "PyTorch's RuntimeError says what went wrong inside PyTorch, not what the caller of "
        "cube_grad should pass."
    )
    assert "raise TypeError('cube_grad needs a floating-point tensor" in case.fix


@pytest.mark.parametrize(
    ("check_line", "says"),
    [
        (
            "assert x.is_floating_point(), 'cube_grad needs a floating-point tensor'",
            "Your own check fired, but as an assert, which raises AssertionError.",
        ),
        (
            "if not x.is_floating_point():\n        raise RuntimeError('cube_grad needs floats')",
            "Your own check fired, but it raised RuntimeError.",
        ),
    ],
    ids=["assert", "runtime-error"],
)
def test_the_learners_own_refusal_is_not_blamed_on_pytorch(check_line, says):
    case = integer_case(
        check_cube_grad(learner(f"def cube_grad(x):\n    {check_line}" + COPY_BODY))
    )
    assert not case.passed
    assert "PyTorch" not in case.got and "deep inside" not in case.got
    assert case.fix.startswith(says) and "raise TypeError(" in case.fix


@pytest.mark.parametrize(
    ("condition", "says"),
    [
        ("x.dtype == torch.int", "torch.int is torch.int32, but this tensor is torch.int64"),
        ("x.dtype == int", "int and float are Python's types"),
        ("isinstance(x, int)", "`isinstance(x, int)` asks whether x is a Python number"),
    ],
    ids=["torch.int", "python-int", "isinstance"],
)
def test_an_own_check_that_never_fires_is_told_why(condition, says):
    source = f"def cube_grad(x):\n    if {condition}:\n        raise TypeError('needs float')"
    case = integer_case(check_cube_grad(learner(source + COPY_BODY)))
    assert case.fix.startswith("Your own check did not fire") and says in case.fix
    assert "never Python's int or float" not in case.fix or "Python" in condition


def test_a_refusal_that_does_not_name_floats_is_told_what_to_add():
    source = "def cube_grad(x):\n    if not x.is_floating_point():\n        raise TypeError('no')"
    case = integer_case(check_cube_grad(learner(source + COPY_BODY)))
    assert case.fix.startswith("Right kind of error, but its message does not say what to pass")
    assert "(the check looks for the word float)" in case.expected


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


# --- Part 1: check_cube, the beginner's self-check on their fixed Cube --------------------

CUBE_CASES = [
    "forward computes x³",
    "backward gives back one tensor, shaped like x",
    "backward multiplies grad_out by the slope 3·x²",
    "the gradient doctor finds no problems",
]


def beginners_cube(last_line, saved="(x,) = ctx.saved_tensors", forward="ctx.save_for_backward(x)"):
    """The starter Cube with backward's last line (and optionally the notepad lines) replaced."""
    source = (
        STARTER_CUBE.replace("return 3 * x**2  # TODO: this line forgets grad_out", last_line)
        .replace("(x,) = ctx.saved_tensors", saved)
        .replace("ctx.save_for_backward(x)", forward)
    )
    return cell(source)["Cube"]


@pytest.mark.parametrize(
    "last_line",
    ["return grad_out * 3 * x**2", "return 3 * x**2 * grad_out", "return grad_out * 3 * x * x"],
)
def test_check_cube_passes_a_fixed_cube(last_line):
    check = check_cube(beginners_cube(last_line))
    assert check.ok and [c.name for c in check.cases] == CUBE_CASES
    assert str(check).splitlines()[0] == "Cube: all 4 checks passed. Well done!"


def test_check_cube_passes_the_course_cube_and_fails_the_starter():
    assert check_cube(Cube).ok
    check = check_cube(cell(STARTER_CUBE)["Cube"])
    assert [c.passed for c in check.cases] == [True, True, False, False]
    first = check.first_failure
    assert first.expected == (
        "[120, 6, -0.75, 13.5]  (grad_out times 3·x², with grad_out = [10, 2, -1, 0.5])"
    )
    assert first.got == "[12, 3, 0.75, 27]"
    assert first.fix.startswith("backward gave back the slope 3·x² alone, whatever arrived.")
    assert check.cases[3].got == "not checked yet: fix the problem above first"


@pytest.mark.parametrize(
    ("last_line", "case", "says"),
    [
        ("return grad_out", 2, "that is MyRound's white lie"),
        ("return grad_out + 3 * x**2", 2, "backward added grad_out and the slope"),
        ("return 10 * 3 * x**2", 2, "backward multiplied the slope by 10 every time"),
        ("return grad_out * x**2", 2, "the 3 is missing"),
        ("return grad_out * 3 * x", 2, "with x squared"),
        ("return grad_out * x**3", 2, "backward multiplied grad_out by x³, forward's result"),
        ("return -grad_out * 3 * x**2", 2, "The sign is flipped"),
        ("grad_out * 3 * x**2", 1, "Did the word return go missing"),
        ("return grad_out * 3 * x**2, None", 1, "backward gave back 2 things"),
        ("return (grad_out * 3 * x**2).sum()", 1, "no .sum()"),
        ("return grad_output * 3 * x**2", 1, "the upstream gradient is called grad_out"),
        ("grad_out *= 3 * x**2\n        return grad_out", 3, "backward changed grad_out itself"),
        ("return grad_out * 3 * x * 2", 2, "in Python * multiplies, and 'squared' is written **"),
        ("return 3 * x.pow_(2) * grad_out", 3, "backward changed x itself"),
    ],
    ids=[
        "white-lie",
        "added",
        "hard-coded-10",
        "no-3",
        "3x",
        "x-cubed",
        "sign",
        "no-return",
        "two-things",
        "summed",
        "name-error",
        "in-place",
        "times-two",
        "saved-x-changed",
    ],
)
def test_check_cube_names_each_wrong_backward_a_beginner_writes(last_line, case, says):
    check = check_cube(beginners_cube(last_line))
    assert not check.ok and check.first_failure.name == CUBE_CASES[case]
    assert says in check.first_failure.fix
    assert [c.passed for c in check.cases][:case] == [True] * case


def test_check_cube_names_a_tuple_from_the_notepad_and_a_stashed_x():
    tuple_x = check_cube(
        beginners_cube("return grad_out * 3 * x**2", saved="x = ctx.saved_tensors")
    )
    assert "ctx.saved_tensors holds a group (a tuple)" in tuple_x.first_failure.fix
    stashed = check_cube(
        beginners_cube("return grad_out * 3 * ctx.x**2", saved="pass", forward="ctx.x = x")
    )
    assert stashed.first_failure.name == CUBE_CASES[3]
    assert stashed.first_failure.got.startswith("[ctx-tensor]")
    assert "ctx.save_for_backward(x) in forward" in stashed.first_failure.fix


def test_check_cube_cannot_be_passed_by_a_backward_right_only_at_its_own_points():
    """Right at the four points the check writes out, wrong for |x| >= 5: the doctor sees it."""
    check = check_cube(beginners_cube("return grad_out * 3 * x**2 * (x.abs() < 5)"))
    assert [c.passed for c in check.cases] == [True, True, True, False]
    assert check.first_failure.got.startswith("[gradient]")
    assert "check_function(Cube, lambda x: x**3)" in check.first_failure.fix


def test_check_cube_refuses_what_is_not_a_class_and_never_raises():
    # One policy across the course: Cube.apply means Cube.
    assert str(check_cube(Cube.apply)) == str(check_cube(Cube)) and check_cube(Cube.apply).ok
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # instantiating a Function warns; that is the point
        instance = check_cube(Cube())
    assert instance.first_failure.got == (
        "You passed an instance, Cube(); pass the class Cube itself: check_cube(Cube), "
        "not an instance Cube()."
    )
    assert not check_cube(None).ok
    broken_forward = cell(STARTER_CUBE.replace("return x**3", "return undefined_name"))["Cube"]
    first = check_cube(broken_forward).first_failure
    assert first.name == CUBE_CASES[0] and "NameError" in first.got


def test_check_cube_hints_go_idea_then_where_then_the_line():
    starter = cell(STARTER_CUBE)["Cube"]
    assert str(check_cube(starter)).splitlines()[-1] == (
        "Stuck? check_cube(Cube, hint=1) shows the idea (hint=2 where it lives, then hint=3 "
        "the answer)."
    )
    idea = str(check_cube(starter, hint=1))
    assert (
        "Hint 1 of 3 (the idea): Remember the kitchen line" in idea
        and "return" not in idea.split("Hint 1")[1]
    )
    answer = str(check_cube(starter, hint=3))
    assert answer.splitlines()[-1] == "    return grad_out * 3 * x**2"


PART_1_UNTAUGHT = [
    "∂",
    "Jacobian",
    "version",
    "leaf",
    "gradcheck",
    "float64",
    "in place",
    "chain rule",
]


def test_check_cube_speaks_only_the_beginner_tracks_words():
    """Every fix, hint and case name of Part 1's check avoids words the beginner track never
    taught (the doctor's own code, printed as evidence, is the one exception)."""
    from lessons_lib.exercises.backward_pass import cube_words

    texts = [h.text for h in cube_words.CUBE_HINTS] + CUBE_CASES
    texts += list(cube_words.DOCTOR_FIXES.values())
    for source in [
        "return grad_out",
        "return 10 * 3 * x**2",
        "grad_out * 3 * x**2",
        "return 3 * x**2",
    ]:
        check = check_cube(beginners_cube(source))
        texts += [check.first_failure.fix, check.first_failure.expected]
    for text in texts:
        for word in PART_1_UNTAUGHT:
            assert word not in text, (word, text)


def test_part_1_of_the_notebook_uses_only_the_beginner_tracks_words():
    """The exercise opens with a part a learner fresh from the beginner track can read: its
    text and code (not the doctor's stored report) avoid words that track never taught."""
    import json
    from pathlib import Path

    path = Path(__file__).parents[2] / "notebooks/exercises/your-own-backward-pass.ipynb"
    cells = json.loads(path.read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells]
    start = next(i for i, s in enumerate(sources) if s.startswith("## Part 1"))
    end = next(i for i, s in enumerate(sources) if s.startswith("## Part 2"))
    assert start < end
    part_1 = "\n".join(sources[start:end])
    for word in [*PART_1_UNTAUGHT[:-1], "detach", "dtype", "graph", "contract", "float32"]:
        assert word not in part_1, word
    assert "check_cube(Cube)" in part_1 and "check_function(Cube, lambda x: x**3)" in part_1


def notebook_sources() -> list[str]:
    import json
    from pathlib import Path

    path = Path(__file__).parents[2] / "notebooks/exercises/your-own-backward-pass.ipynb"
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]


GRAD = re.compile(r"autograd\.grad(?!check)")  # torch.autograd.grad, not gradcheck


def test_part_2_defines_torch_autograd_grad_before_the_task_instead_of_calling_it_taught():
    """The developer track uses torch.autograd.grad once, in code, and never explains it."""
    sources = notebook_sources()
    intro = next(s for s in sources if s.startswith("## Part 2"))
    taught = intro.split("It uses what that\ntrack taught:")[1].split(". ")[0]
    assert not GRAD.search(taught)
    part_2 = sources.index(intro)
    draft = next(i for i, s in enumerate(sources) if s.startswith("# ✏️ YOUR CODE: a first draft"))
    first = next(i for i, s in enumerate(sources) if i > part_2 and GRAD.search(s))
    assert first < draft  # defined before the task needs it, at its first mention
    said = sources[first]
    assert "*returns* the answer" in said and "stored in no\n`.grad`" in said
    first += 1  # and shown live
    assert 'print("and x.grad is:", x.grad)' in sources[first]


def test_the_task_states_the_callers_no_grad_up_front():
    task = next(s for s in notebook_sources() if s.startswith("### Your turn: `cube_grad`"))
    assert "called inside a caller's\n`with torch.no_grad():` block" in task


def test_the_times_are_the_ones_measured_with_fresh_readers():
    start = notebook_sources()[0]
    how_long = start.split("**How long it takes**")[1].split("\n\n")[0]
    assert "as measured with fresh readers" in how_long
    for time in (
        "about\n12 minutes for a beginner",
        "8 to 10 for a developer",
        "17 minutes",
        "about 5",
    ):
        assert time in how_long, time
