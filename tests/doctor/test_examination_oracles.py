"""The doctor against oracles: PyTorch's own test Functions, and every Function in lessons_lib.

A false alarm on correct code is as costly to a learner as a missed mistake, so the
doctor must pass clean every correct Function in torch.testing._internal's
autograd_function_db (checked on its own sample inputs, against a plain torch
reference), flag its surrogate ones unless their grad_reference is given, and pass
clean every Function the course itself teaches.
"""

import pytest
import torch
import torch.testing._internal.autograd_function_db as db
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

from lessons_lib import checking_research, functions, research
from lessons_lib.doctor.examination import check_function


def sort_reference(x, dim):
    indices = torch.argsort(x, dim=dim)
    return torch.sort(x, dim=dim).values, indices, torch.argsort(indices, dim=dim)


def cube_and_slope(x):
    return x**3, 3 * x**2


def sample_of(opinfo_name: str) -> tuple:
    """The first float64 sample PyTorch's own tests use for this Function."""
    opinfo = next(op for op in db.autograd_function_db if op.name == opinfo_name)
    sample = next(iter(opinfo.sample_inputs("cpu", torch.float64)))
    return (sample.input, *sample.args)


# Function, OpInfo name, reference, grad_reference
CORRECT_IN_TORCH = [
    (db.NumpyCube, "NumpyCubeAutogradFunction", cube_and_slope, None),
    (db.NumpyExp_, "NumpyExpMarkDirtyAutogradFunction", torch.exp, None),
    (db.NumpyMul, "NumpyMulAutogradFunction", torch.mul, None),
    (
        db.NumpyTake,
        "NumpyTakeAutogradFunction",
        lambda x, ind, ind_inv, dim: torch.take_along_dim(x, ind, dim),
        None,
    ),
    (db.Select, "SelectAutogradFunction", lambda x, idx: x[idx], None),
    (db.MulGenVmap, "MulGenVmapAutogradFunction", torch.mul, None),
    (db.SortGenVmap, "SortGenVmapAutogradFunction", sort_reference, None),
    (db.SelectGenVmap, "SelectGenVmapAutogradFunction", lambda x, idx: x[idx], None),
    (db.ForwardHasDefaultArgs, "ForwardHasDefaultArgsAutogradFunction", lambda x: x[(2,)], None),
    (
        db.ScaleGradGenVmap,
        "ScaleGradGenVmapAutogradFunction",
        torch.clone,
        lambda x, g: db.ScaleGradGenVmap.scale * g,
    ),
    (
        db.ZeroGradientsGenVmap,
        "ZeroGradientsGenVmapAutogradFunction",
        lambda x, y: (x.clone(), y.clone()),
        lambda x, y, gx, gy: (torch.zeros_like(x), torch.zeros_like(y)),
    ),
]


@pytest.mark.parametrize(
    ("fn", "opinfo", "reference", "grad_reference"),
    CORRECT_IN_TORCH,
    ids=[c[0].__name__ for c in CORRECT_IN_TORCH],
)
def test_correct_functions_from_pytorchs_own_tests_pass_clean(
    fn, opinfo, reference, grad_reference
):
    inputs = sample_of(opinfo)
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.ok, str(report)


@pytest.mark.parametrize(
    ("fn", "opinfo", "reference"),
    [
        (db.ScaleGradGenVmap, "ScaleGradGenVmapAutogradFunction", torch.clone),
        (
            db.ZeroGradientsGenVmap,
            "ZeroGradientsGenVmapAutogradFunction",
            lambda x, y: (x.clone(), y.clone()),
        ),
    ],
    ids=["ScaleGradGenVmap", "ZeroGradientsGenVmap"],
)
def test_surrogate_functions_from_pytorchs_tests_are_flagged_without_their_rule(
    fn, opinfo, reference
):
    """Their jvp follows the surrogate too, so forward mode disagrees with the truth as well."""
    assert set(check_function(fn, reference, inputs=sample_of(opinfo)).codes) == {"gradient", "jvp"}


def test_a_broadcast_gradient_is_summed_by_the_engine_and_the_report_says_so():
    report = check_function(db.NumpyMul, torch.mul, inputs=sample_of("NumpyMulAutogradFunction"))
    assert report.ok
    assert "gradient for x had shape (3, 4); the engine summed it to x's shape (4,)" in str(report)


X = torch.tensor([[0.9, -1.3, 1.7], [0.2, 1.1, -0.4]], dtype=torch.float64, requires_grad=True)


# Function, reference, what gradcheck differentiates, the doctor's codes
BROKEN_IN_TORCH = [
    # backward adds 6 * dinput where it means 6 * grad_saved * input
    (db.CubeGenVmap, cube_and_slope, db.CubeGenVmap.apply, ["chain-rule"]),
    # backward drops grad_output; a one-element sample with grad_output 1 hides it
    (
        db.NumpyCubeNotComposable,
        lambda t: (t**3, t.detach().numpy() ** 3),
        lambda t: db.NumpyCubeNotComposable.apply(t)[0],
        ["chain-rule"],
    ),
    # forward returns x unsorted, while backward and jvp undo a sort
    (
        db.NumpySort,
        sort_reference,
        lambda t: db.NumpySort.apply(t, 1)[0],
        ["forward"],
    ),
]


@pytest.mark.parametrize(
    ("fn", "reference", "differentiated", "codes"),
    BROKEN_IN_TORCH,
    ids=[b[0].__name__ for b in BROKEN_IN_TORCH],
)
def test_three_functions_in_pytorchs_test_database_are_wrong_and_gradcheck_agrees(
    fn, reference, differentiated, codes
):
    """PyTorch's functorch tests compare these Functions with themselves, never with math."""
    inputs = (X.detach(), 1) if fn is db.NumpySort else (X.detach(),)
    assert check_function(fn, reference, inputs=inputs).codes == codes
    with pytest.raises(GradcheckError):
        gradcheck(differentiated, (X,))


# Every Function the course teaches: (Function, reference, grad_reference, inputs)
BATCH = torch.linspace(-1.5, 1.5, 6, dtype=torch.float64).reshape(2, 3)
WEIGHT = torch.tensor([[0.3, -0.2, 0.1], [0.05, 0.2, -0.3], [0.1, 0.1, 0.2]], dtype=torch.float64)
KERNEL = torch.tensor([0.5, -1.0, 0.25], dtype=torch.float64)


def full_convolution(x, kernel):
    padded = torch.nn.functional.pad(x, (len(kernel) - 1, len(kernel) - 1))
    return torch.nn.functional.conv1d(padded.view(1, 1, -1), kernel.flip(0).view(1, 1, -1)).view(-1)


def sign_zero_up(x):
    return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)


def step(x, *_):
    return (x > 0).to(x.dtype)


def spike_slope(x, slope, g):
    s = torch.sigmoid(slope * x)
    return g * slope * s * (1 - s)


GATE_SCORES = torch.tensor([[0.5, -1.0, 2.0], [-0.5, 1.0, -2.0]], dtype=torch.float64)


LESSONS_LIB = [
    (functions.Square, lambda x: x**2, None, None),
    (functions.FlatCube, lambda x: x**3, None, None),
    (functions.MatMul, torch.matmul, None, (BATCH, WEIGHT)),
    (functions.MatMulFloat32, torch.matmul, None, (BATCH, WEIGHT)),
    (functions.Cube, lambda x: x**3, None, None),
    (functions.CubeWithSetupContext, lambda x: x**3, None, None),
    (functions.RoundSTE, torch.round, lambda x, g: g, None),
    (functions.Clamp01, lambda x: x.clamp(0, 1), None, None),
    (functions.ReLUInPlace, torch.relu, None, None),
    (functions.Clamp, torch.clamp, None, (BATCH, -1.0, 1.0)),
    (functions.ClippedSTE, sign_zero_up, lambda x, g: g * (x.abs() <= 1), None),
    (functions.SigmoidSpike, step, spike_slope, (BATCH, 4.0)),
    (research.Linear, lambda x, w, b: x @ w.T + b, None, (BATCH, WEIGHT, KERNEL)),
    (research.Sort, lambda x: torch.sort(x, dim=-1), None, None),
    (research.CubeOnceDifferentiable, lambda x: x**3, None, None),
    (research.NumpyConvolve, full_convolution, None, (BATCH[0], KERNEL)),
    (research.Heaviside, step, None, None),
    (research.HardGate, lambda x, scores: x * (scores > 0), None, (BATCH, GATE_SCORES)),
    (research.Passthrough, lambda x: x.clone(), None, None),
    (research.CubeInC, lambda x: x**3, None, None),
    (research.StableSoftplus, torch.nn.functional.softplus, None, None),
    (research.TanhStackSaved, lambda x, depth: research.tanh_stack(x, depth), None, (BATCH, 3)),
    (research.TanhStackRecompute, lambda x, depth: research.tanh_stack(x, depth), None, (BATCH, 3)),
    (
        research.FixedPointTanh,
        lambda x, w, tol, n: research.fixed_point_unrolled(x, w, 200),
        None,
        (BATCH, WEIGHT, 1e-12, 200),
    ),
    (research.Exp, torch.exp, None, None),
    (research.CountedTanh, torch.tanh, None, None),
    (checking_research.ComplexCube, lambda x: x**3, None, None),
    (checking_research.CubeByFiniteDifference, lambda x: x**3, None, None),  # ok, with a note
    # the doctor never batches an input, so a vmap rule, right or wrong, is not examined
    (checking_research.Center, lambda x: x - x.mean(0), None, None),
    (checking_research.CenterWithVmap, lambda x: x - x.mean(0), None, None),
    (checking_research.CenterWrongVmap, lambda x: x - x.mean(0), None, None),
]


@pytest.mark.parametrize(
    ("fn", "reference", "grad_reference", "inputs"),
    LESSONS_LIB,
    ids=[c[0].__name__ for c in LESSONS_LIB],
)
def test_every_function_the_course_teaches_passes_clean(fn, reference, grad_reference, inputs):
    report = check_function(fn, reference, grad_reference=grad_reference, inputs=inputs)
    assert report.ok, str(report)


def test_the_oracle_list_covers_every_function_in_lessons_lib():
    """A new Function in lessons_lib must join LESSONS_LIB (or be a deliberate mistake)."""
    deliberate_mistakes = {research.CubeDetachedBackward}
    everywhere = {
        value
        for module in (functions, research, checking_research)
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, torch.autograd.Function)
        and (value.__module__ + ".").startswith(module.__name__ + ".")  # research: a package
    }
    assert everywhere - deliberate_mistakes == {c[0] for c in LESSONS_LIB}
