"""The gradient doctor against a catalogue of learner mistakes, each with its exact codes."""

import pytest
import torch
from torch.autograd import Function

from lessons_lib import Clamp, Clamp01, Cube, CubeWithSetupContext, RoundSTE, Square
from lessons_lib.checks import CODES, LESSON_SECTIONS, check_function, default_inputs
from lessons_lib.errors import InputError, LessonError
from lessons_lib.research import CubeDetachedBackward, CubeOnceDifferentiable, Sort
from tests.learner_functions import cube, function, save_and, saved


def clamp01(x):
    return torch.clamp(x, 0, 1)


def save_mask(mask):
    def forward(ctx, x):
        ctx.save_for_backward(mask(x))
        return x.clamp(0, 1)

    return forward


def inside(x):
    return (x >= 0) & (x <= 1)


def stash_on_ctx(ctx, x):
    ctx.x = x
    return x**3


def mutate_input(ctx, x):
    ctx.save_for_backward(x)
    x.add_(0)  # values unchanged, version bumped: still a bug
    return x**3


def mutate_input_behind_autograd(ctx, x):
    y = 2 * x
    x.data.add_(1)  # .data: the version counter never sees this
    return y


def forward_without_ctx(x):
    return x**3


def typo_in_forward(ctx, x):
    ctx.save_for_backward(x)
    return x**3 + undefined_name  # noqa: F821


def cube_backward(ctx, g):
    return g * 3 * saved(ctx) ** 2


def round_forward(compute):
    return lambda ctx, x: compute(x)


def scale_in_place(ctx, g):
    g *= 2
    return g


def naive_sigmoid_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * torch.exp(-x) / (1 + torch.exp(-x)) ** 2  # inf / inf = NaN for x << 0


def wrong_above_three(ctx, g):
    (x,) = ctx.saved_tensors
    return torch.where(x > 3, g * 3 * x, g * 3 * x**2)  # the sample stops at 2.5


def numpy_cube_backward(ctx, g):
    (x,) = ctx.saved_tensors
    slope = torch.from_numpy(3 * x.detach().numpy() ** 2)  # NumPy is invisible to autograd
    return g * slope


def save_slope(ctx, x):
    ctx.save_for_backward(3 * x**2)  # made inside forward, where nothing is recorded
    return x**3


class CubeWrongJvp(CubeWithSetupContext):
    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        return 2 * x**2 * x_tangent  # should be 3 x^2


class CubeJvpRaises(CubeWithSetupContext):
    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors  # setup_context saved it for forward mode too, but...
        return x_tangent @ x  # a matrix product of two vectors gives the wrong shape


def clamp_lo_hi(x, lo, hi):
    return x.clamp(lo, hi)


BOUNDED = (torch.linspace(-2, 2, 9, dtype=torch.float64), -1.0, 1.0)


# name, Function, reference, grad_reference, expected codes[, inputs]
WRONG = [
    # chain-rule: several ways to forget grad_out
    (
        "exercise starter",
        function("CubeStarter", save_and(cube), lambda ctx, g: 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "ones instead of grad_out",
        function(
            "CubeOnes", save_and(cube), lambda ctx, g: torch.ones_like(g) * 3 * saved(ctx) ** 2
        ),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "sign of grad_out",
        function("CubeSign", save_and(cube), lambda ctx, g: g.sign() * 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "grad_out added, not multiplied",
        function("CubeAdd", save_and(cube), lambda ctx, g: g + 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    (
        "Clamp01 returns the bare mask",
        function("ClampMaskOnly", save_mask(inside), lambda ctx, g: saved(ctx).to(g.dtype)),
        clamp01,
        None,
        ["chain-rule"],
    ),
    (
        "RoundSTE returns ones",
        function("RoundOnes", round_forward(torch.round), lambda ctx, g: torch.ones_like(g)),
        torch.round,
        lambda x, g: g,
        ["chain-rule"],
    ),
    # gradient: several ways to get the derivative wrong
    (
        "Cube: forgot the square",
        function("CubeLinear", save_and(cube), lambda ctx, g: g * 3 * saved(ctx)),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Cube: forgot the 3",
        function("CubeNoThree", save_and(cube), lambda ctx, g: g * saved(ctx) ** 2),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Cube: wrong sign",
        function("CubeMinus", save_and(cube), lambda ctx, g: -g * 3 * saved(ctx) ** 2),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Cube: mean of grad_out",
        function("CubeMean", save_and(cube), lambda ctx, g: g.mean() * 3 * saved(ctx) ** 2),
        cube,
        None,
        ["gradient"],
    ),
    (
        "Clamp01: mask inverted",
        function("ClampInverted", save_mask(lambda x: ~inside(x)), lambda ctx, g: g * saved(ctx)),
        clamp01,
        None,
        ["gradient"],
    ),
    (
        "Clamp01: no mask at all",
        function("ClampPassAll", save_mask(inside), lambda ctx, g: g),
        clamp01,
        None,
        ["gradient"],
    ),
    (
        "RoundSTE: honest zero gradient",
        function("RoundHonest", round_forward(torch.round), lambda ctx, g: torch.zeros_like(g)),
        torch.round,
        lambda x, g: g,
        ["gradient"],
    ),
    (
        "RoundSTE: doubled",
        function("RoundDouble", round_forward(torch.round), lambda ctx, g: 2 * g),
        torch.round,
        lambda x, g: g,
        ["gradient"],
    ),
    # forward
    (
        "Cube computes a square",
        function("CubeSquares", save_and(lambda x: x**2), cube_backward),
        cube,
        None,
        ["forward"],
    ),
    (
        "rounds half up, not half to even",
        function("RoundHalfUp", round_forward(lambda x: torch.floor(x + 0.5)), lambda ctx, g: g),
        torch.round,
        lambda x, g: g,
        ["forward"],
    ),
    (
        "Clamp01 clamps to [0, 2]",
        function(
            "ClampTwo",
            lambda ctx, x: (ctx.save_for_backward((x >= 0) & (x <= 2)), x.clamp(0, 2))[1],
            lambda ctx, g: g * saved(ctx),
        ),
        clamp01,
        None,
        ["forward", "gradient"],
    ),
    # counts, shapes, None
    (
        "gradient summed to a scalar",
        function("CubeSummed", save_and(cube), lambda ctx, g: cube_backward(ctx, g).sum()),
        cube,
        None,
        ["grad-shape"],
    ),
    (
        "gradient returned as a number",
        function("CubeNumber", save_and(cube), lambda ctx, g: 12.0),
        cube,
        None,
        ["grad-shape"],
    ),
    (
        "None for a tensor input",
        function("CubeNone", save_and(cube), lambda ctx, g: None),
        cube,
        None,
        ["no-gradient"],
    ),
    # the notepad and the inputs
    (
        "tensor stashed on ctx",
        function("CubeStash", stash_on_ctx, lambda ctx, g: g * 3 * ctx.x**2),
        cube,
        None,
        ["ctx-tensor"],
    ),
    (
        "Clamp01 stashes its mask",
        function(
            "ClampStash",
            lambda ctx, x: (setattr(ctx, "mask", inside(x)), x.clamp(0, 1))[1],
            lambda ctx, g: g * ctx.mask,
        ),
        clamp01,
        None,
        ["ctx-tensor"],
    ),
    (
        "forward changes its input in place",
        function("CubeInPlace", mutate_input, cube_backward),
        cube,
        None,
        ["mutates-input"],
    ),
    # errors
    (
        "typo in forward",
        function("CubeTypo", typo_in_forward, cube_backward),
        cube,
        None,
        ["error"],
    ),
    (
        "forward without ctx",
        function("CubeNoCtx", forward_without_ctx, cube_backward),
        cube,
        None,
        ["error"],
    ),
    (
        "backward raises",
        function("CubeBadBackward", save_and(cube), lambda ctx, g: g @ torch.ones(5)),
        cube,
        None,
        ["error"],
    ),
    (
        "no backward defined",
        type("CubeNoBackward", (Function,), {"forward": staticmethod(save_and(cube))}),
        cube,
        None,
        ["error"],
    ),
    # chain-rule, said precisely
    (
        "grad_out plus the derivative",
        function("CubePlus", save_and(cube), lambda ctx, g: g + 3 * saved(ctx) ** 2),
        cube,
        None,
        ["chain-rule"],
    ),
    # forward changes its input behind autograd's back
    (
        "forward changes its input through .data",
        function("DoubleData", mutate_input_behind_autograd, lambda ctx, g: 2 * g),
        lambda x: 2 * x,
        None,
        ["mutates-input"],
    ),
    # grad-count and non-tensor-grad
    (
        "one gradient for three inputs",
        function("ClampOnlyX", Clamp.forward, lambda ctx, g: Clamp.backward(ctx, g)[0]),
        clamp_lo_hi,
        None,
        ["grad-count"],
        BOUNDED,
    ),
    (
        "a gradient for the float bound lo",
        function("ClampGradLo", Clamp.forward, lambda ctx, g: (g, g, None)),
        clamp_lo_hi,
        None,
        ["non-tensor-grad"],
        BOUNDED,
    ),
    # mutates-grad-out
    (
        "backward multiplies grad_out in place",
        function("CubeMulInPlace", save_and(cube), lambda ctx, g: g.mul_(3 * saved(ctx) ** 2)),
        cube,
        None,
        ["mutates-grad-out"],
    ),
    (
        "backward scales grad_out with *=",
        function("RoundTimesEquals", round_forward(torch.round), scale_in_place),
        torch.round,
        lambda x, g: 2 * g,
        ["mutates-grad-out"],
    ),
    # non-finite
    (
        "naive sigmoid backward overflows at x = -1000",
        function("NaiveSigmoid", save_and(torch.sigmoid), naive_sigmoid_backward),
        torch.sigmoid,
        None,
        ["non-finite"],
    ),
    # gradient wrong only outside the hand-picked sample
    (
        "gradient wrong only for x > 3",
        function("CubeWrongAbove3", save_and(cube), wrong_above_three),
        cube,
        None,
        ["gradient"],
    ),
    # grad-dtype
    (
        "float32 gradient for a float64 input",
        function("CubeFloat32Grad", save_and(cube), lambda ctx, g: cube_backward(ctx, g).float()),
        cube,
        None,
        ["grad-dtype"],
    ),
    # double-backward
    (
        "backward detaches x",
        CubeDetachedBackward,
        cube,
        None,
        ["double-backward"],
    ),
    (
        "backward reads x.data",
        function("CubeDataBackward", save_and(cube), lambda ctx, g: g * 3 * saved(ctx).data ** 2),
        cube,
        None,
        ["double-backward"],
    ),
    (
        "backward goes through NumPy",
        function("CubeNumpyBackward", save_and(cube), numpy_cube_backward),
        cube,
        None,
        ["double-backward"],
    ),
    (
        "backward uses an intermediate saved in forward",
        function("CubeSavesSlope", save_slope, lambda ctx, g: g * saved(ctx)),
        cube,
        None,
        ["double-backward"],
    ),
    # jvp
    (
        "setup_context Cube with a wrong jvp",
        CubeWrongJvp,
        cube,
        None,
        ["jvp"],
    ),
    (
        "jvp that raises",
        CubeJvpRaises,
        cube,
        None,
        ["jvp"],
    ),
    # several codes at once, most important first
    (
        "stashed, and the chain dropped",
        function("CubeStashChain", stash_on_ctx, lambda ctx, g: 3 * ctx.x**2),
        cube,
        None,
        ["chain-rule", "ctx-tensor"],
    ),
]


@pytest.mark.parametrize(
    ("fn", "reference", "grad_reference", "codes", "inputs"),
    [(*w[1:5], w[5] if len(w) > 5 else None) for w in WRONG],
    ids=[w[0] for w in WRONG],
)
def test_the_doctor_names_each_mistake_exactly(fn, reference, grad_reference, codes, inputs):
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.codes == codes, str(report)
    assert not report.ok


def test_a_gradient_for_a_number_names_the_input_without_a_contradictory_count():
    grad_for_lo = function("ClampGradLo", Clamp.forward, lambda ctx, g: (g, g, None))
    text = str(check_function(grad_for_lo, clamp_lo_hi, inputs=BOUNDED))
    assert "a gradient for lo (value number 2), but lo is a float, not a tensor" in text
    assert "forward has 3" not in text  # no self-contradicting count


def needs_input_grad_forward(ctx, x):
    ctx.save_for_backward(x)
    return x**3


def needs_input_grad_backward(ctx, g):
    if not ctx.needs_input_grad[0]:
        return None
    (x,) = ctx.saved_tensors
    return g * 3 * x * x


def in_place_marked_dirty(ctx, x):
    x.mul_(2)
    ctx.mark_dirty(x)
    return x


def relu_forward(ctx, x):
    ctx.save_for_backward(x)
    return x.clamp(min=0)


def relu_passes_one_at_zero(ctx, g):
    (x,) = ctx.saved_tensors
    return g * (x >= 0)  # torch.relu passes 0 at x = 0; any value in [0, 1] is a subgradient


def sqrt_forward(ctx, x):
    y = torch.sqrt(x)
    ctx.save_for_backward(y)
    return y


def sqrt_backward(ctx, g):
    (y,) = ctx.saved_tensors
    return g / (2 * y)  # NaN for x < 0 and inf at 0, exactly where sqrt's own gradient is


def broadcast_mul_forward(ctx, x, y):
    ctx.save_for_backward(x, y)
    return x * y


def broadcast_mul_backward(ctx, g):
    x, y = ctx.saved_tensors
    return g * y, g * x  # shaped like the output: the engine sums each to its input's shape


BROADCAST = (
    torch.tensor([0.5, -1.0, 2.0, 1.5], dtype=torch.float64),
    torch.linspace(-2, 2, 12, dtype=torch.float64).reshape(3, 4),
)


CORRECT = [
    ("Cube", Cube, cube, None, None),
    ("Square", Square, lambda x: x**2, None, None),
    ("setup_context form", CubeWithSetupContext, cube, None, None),
    (
        "needs_input_grad",
        function("CubeNeeds", needs_input_grad_forward, needs_input_grad_backward),
        cube,
        None,
        None,
    ),
    ("Clamp01 against torch.clamp", Clamp01, clamp01, None, None),
    ("RoundSTE as a surrogate", RoundSTE, torch.round, lambda x, g: g, None),
    (
        "Clamp with non-tensor inputs",
        Clamp,
        clamp_lo_hi,
        None,
        (torch.linspace(-2, 2, 9, dtype=torch.float64), -1.0, 1.0),
    ),
    (
        "in place, marked dirty",
        function("DoubleDirty", in_place_marked_dirty, lambda ctx, g: 2 * g),
        lambda x: 2 * x,
        None,
        None,
    ),
    (
        "Clamp01 with an open interval: a valid subgradient at 0 and 1",
        function(
            "ClampOpen", save_mask(lambda x: (x > 0) & (x < 1)), lambda ctx, g: g * saved(ctx)
        ),
        clamp01,
        None,
        None,
    ),
    (
        "ReLU passing 1 at its kink",
        function("Relu", relu_forward, relu_passes_one_at_zero),
        torch.relu,
        None,
        None,
    ),
    (
        "sqrt, undefined for x < 0",
        function("Sqrt", sqrt_forward, sqrt_backward),
        torch.sqrt,
        None,
        None,
    ),
    (
        "an extra trailing None",
        function("CubeTrailingNone", save_and(cube), lambda ctx, g: (cube_backward(ctx, g), None)),
        cube,
        None,
        None,
    ),
    (
        "broadcast inputs, gradients left for the engine to sum",
        function("BroadcastMul", broadcast_mul_forward, broadcast_mul_backward),
        torch.mul,
        None,
        BROADCAST,
    ),
    ("two outputs, integer indices", Sort, lambda x: torch.sort(x, dim=-1), None, None),
    ("once differentiable, declared", CubeOnceDifferentiable, cube, None, None),
    ("float32 inputs", Cube, cube, None, (torch.tensor([-1.5, 0.5, 2.0]),)),
]


@pytest.mark.parametrize(
    ("fn", "reference", "grad_reference", "inputs"),
    [c[1:] for c in CORRECT],
    ids=[c[0] for c in CORRECT],
)
def test_a_correct_function_gets_a_clean_bill_of_health(fn, reference, grad_reference, inputs):
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.ok and report.codes == [], str(report)


class Module(torch.nn.Module):
    def forward(self, x):
        return x**3


def plain_cube(x):
    return x**3


@pytest.mark.parametrize(
    ("thing", "says"),
    [
        (plain_cube, "plain Python function"),
        (Cube.apply, "pass the class Cube itself"),
        (Module(), "nn.Module"),
        (Module, "nn.Module"),
        (Function, "pass your subclass"),
        (3, "You passed a int"),
    ],
    ids=[
        "plain function",
        "Cube.apply",
        "module instance",
        "module class",
        "Function itself",
        "a number",
    ],
)
def test_anything_but_a_function_subclass_is_named_for_what_it_is(thing, says):
    report = check_function(thing, cube)
    assert report.codes == ["not-a-function"]
    assert says in str(report)


def test_an_instance_is_told_to_pass_the_class():
    with pytest.warns(DeprecationWarning):
        instance = Cube()
    assert "pass the class Cube itself" in str(check_function(instance, cube))


def test_every_code_is_in_the_catalogue_and_has_a_lesson_section():
    caught = {code for w in WRONG for code in w[4]} | {"not-a-function"}
    assert caught == set(CODES) == set(LESSON_SECTIONS)


def test_the_text_report_names_the_problem_the_evidence_and_the_fix():
    text = str(check_function(WRONG[0][1], cube))
    assert text.startswith("CubeStarter: 1 problem found\n[chain-rule] backward ignores grad_out")
    assert "at x[0, 0] = -2.5 (grad_out 1.96): expected 36.75, got 18.75" in text
    assert "How to fix it: Multiply by grad_out" in text
    assert LESSON_SECTIONS["chain-rule"] in text


def test_the_html_report_names_the_problem_in_a_box():
    page = check_function(WRONG[0][1], cube)._repr_html_()
    assert "CubeStarter: 1 problem found" in page and "(chain-rule)" in page
    assert "expected 36.75, got 18.75" in page
    assert "Read more:" in page
    assert "no problems found" in check_function(Cube, cube)._repr_html_()


def test_error_reports_quote_the_exception_not_a_traceback():
    typo = next(w[1] for w in WRONG if w[0] == "typo in forward")
    text = str(check_function(typo, cube))
    assert "forward raised NameError: name 'undefined_name' is not defined" in text
    assert "Traceback" not in text


def test_learner_html_is_escaped():
    sneaky = function(
        "Sneaky", save_and(cube), lambda ctx, g: (_ for _ in ()).throw(ValueError("<script>"))
    )
    page = check_function(sneaky, cube)._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page


# --- robustness: no side effects, clear errors for a wrongly set-up check ----------


def test_the_doctor_leaves_global_state_and_inputs_alone():
    x = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    torch.manual_seed(1)
    expected_next = torch.rand(1)
    torch.manual_seed(1)
    for _, fn, reference, grad_reference, _, *inputs in WRONG:
        check_function(fn, reference, grad_reference=grad_reference, inputs=(inputs or [(x,)])[0])
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32
    assert torch.equal(torch.rand(1), expected_next)
    assert x.tolist() == [0.5, 2.0] and x.grad is None and x.is_leaf


def test_a_bare_tensor_is_accepted_as_the_inputs():
    assert check_function(Cube, cube, inputs=torch.tensor([1.0, 2.0])).ok


def test_integer_inputs_are_refused_with_a_plain_message():
    with pytest.raises(InputError, match=r"floating-point tensor.*torch\.int64.*x\.double\(\)"):
        check_function(Cube, cube, inputs=(torch.tensor([1, 2]),))


def test_a_broken_reference_is_the_checks_fault_and_says_so():
    with pytest.raises(LessonError, match="The reference itself failed"):
        check_function(Cube, lambda x: x @ torch.ones(7))
    with pytest.raises(LessonError, match="grad_reference itself failed"):
        check_function(RoundSTE, torch.round, grad_reference=lambda x: x)
    with pytest.raises(InputError, match="reference must be a function"):
        check_function(Cube, "x**3")


def test_lesson_errors_show_without_a_traceback_in_ipython():
    error = InputError("inputs need at least one floating-point tensor")
    assert error._render_traceback_() == [
        "InputError: inputs need at least one floating-point tensor"
    ]


def test_the_default_sample_covers_the_classic_trouble_spots():
    (x,) = default_inputs()
    values = set(x.flatten().tolist())
    assert x.dtype == torch.float64 and x.dim() == 2
    assert {0.0, 1.0, 0.5, 2.5, -0.5} <= values
    assert any(v < 0 for v in values) and any(0 < v < 1 for v in values)
