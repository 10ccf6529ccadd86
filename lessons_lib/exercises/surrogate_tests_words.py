"""The words of check_my_surrogate_tests ("Choose your surrogate", Part 2): case names, fixes
and the hint ladder, in the developer track's words."""

from pathlib import Path

from lessons_lib.exercises.base import Hint, Wanted
from lessons_lib.sections import read_more

READ = read_more("surrogate-test")
READ_PROPERTY = READ
WANTED = Wanted(
    "check_my_surrogate_tests",
    "your function my_surrogate_tests",
    "check_my_surrogate_tests(my_surrogate_tests)",
    wants_class=False,
)
HINT_CALL = "check_my_surrogate_tests(my_surrogate_tests, hint={})"

RIGHT = "passes the right spike (SpikeAnswer, Part 1's answer)"
RIGHT_EXPECTED = "my_surrogate_tests runs spike.apply and finds nothing wrong"
NEVER_RAN = "my_surrogate_tests never called spike.apply, so it tested something else"
USE_SPIKE = (
    "Write every test in terms of the spike my_surrogate_tests is given: spike.apply(x, 1.0, "
    "0.5), or check_function(spike, ...), not a spike of your own."
)
GRADCHECK = (
    "gradcheck compares backward with finite differences of forward, and a surrogate is by "
    "design not that: the step is flat everywhere but at the threshold, so its numerical gradient is 0 where "
    "backward gives the bump. gradcheck fails any surrogate near its threshold, where the "
    "bump stands above gradcheck's tolerance, right or wrong. Hold "
    "backward to its declared rule instead: check_function(spike, reference, "
    "grad_reference=rule, inputs=(x, 1.0, 0.5))."
)
DOCTOR_FAILED_RIGHT = (
    "the doctor, given your grad_reference, found a problem with the right spike: your "
    "grad_reference is not the declared rule, grad_out times the fast-sigmoid bump centred on "
    "the threshold, with None for the threshold and the width: (grad_out * surrogate_slope(x, "
    '"fast-sigmoid", threshold, width), None, None).'
)
DOCTOR_OTHER_ON_RIGHT = (
    "the doctor, given your reference and grad_reference, reported {codes} on the right "
    "spike: what you gave it is not what SpikeAnswer does, the step (x >= threshold)"
    ".to(x.dtype) forwards and grad_out times the fast-sigmoid bump backwards, None for the "
    "two numbers. Print the report to see where they differ."
)
NO_RULE_FAILED_RIGHT = (
    "the doctor ran without grad_reference, so it compared backward with the step's true "
    "gradient, 0, and found the bump. Declare the rule: check_function(spike, reference, "
    "grad_reference=rule, inputs=(x, 1.0, 0.5))."
)
RIGHT_OTHERWISE = (
    "SpikeAnswer is correct (the step forwards, grad_out times the fast-sigmoid bump "
    "backwards, None for the two numbers), so a test that fails it is wrong."
)
DREW_NONFINITE = (
    "Your property test drew {drawn}, and the right spike failed it there: st.floats() with "
    "no bounds draws NaN and infinities as well as ordinary numbers. Bound what hypothesis "
    "draws: st.floats(-10, 10) for x and st.floats(-100, 100) for grad_out."
)
FAILED_ON_DRAWN = (
    "Hypothesis's example above is an input your test fails it on. If it holds a huge "
    "number, bound what @given draws: st.floats(-10, 10) for x, st.floats(-100, 100) for "
    "grad_out."
)
UNDEFINED = "Your tests use {name}, which nothing defined before they ran: define it first."
DEFINE = {
    "fires": (
        " fires is the step the doctor compares forward with: def fires(x, threshold, width): "
        "return (x >= threshold).to(x.dtype)."
    ),
    "rule": (
        " rule is the declared backward: def rule(x, threshold, width, grad_out): return "
        'grad_out * surrogate_slope(x, "fast-sigmoid", threshold, width), None, None.'
    ),
}
FAILS_RIGHT = "your tests fail the right spike, so a catch would prove nothing"

DOCTOR = "runs the doctor with grad_reference, the declared rule"
DOCTOR_EXPECTED = "check_function(spike, reference, grad_reference=rule, inputs=...) on the spike"
DOCTOR_NEVER = "my_surrogate_tests never ran check_function on the spike"
DOCTOR_NO_RULE = "my_surrogate_tests ran check_function on the spike without grad_reference"
DOCTOR_FIX = (
    "Run the doctor on the spike with the rule its backward declares, and assert it found "
    "nothing: report = check_function(spike, fires, grad_reference=rule, inputs=(x, 1.0, "
    "0.5)), then assert report.ok, str(report)."
)

CAUGHT_EXPECTED = "my_surrogate_tests raises an error (or returns False) for this wrong spike"
MISSED = "my_surrogate_tests ran it and found nothing wrong"
MISSED_UNRUN = "my_surrogate_tests found nothing wrong, and never called its apply"
REPORT_UNCHECKED = (
    "my_surrogate_tests ran the doctor on it, which reported {codes}, and still found nothing "
    "wrong: the report's verdict was never checked"
)
REPORT_SWALLOWED = (
    "my_surrogate_tests ran the doctor on it, which reported {codes}, read report.ok, and "
    "still found nothing wrong: something after it (an except, an if) let it pass"
)
LET_IT_FAIL = (
    "Let the failure out: assert report.ok, str(report), with no try/except around it, so "
    "the test raises when the doctor finds something."
)
DOCTOR_BELOW_FLOAT64 = (
    "Your doctor call checked in {dtype}, because its x was {dtype}: forward's float32 output "
    "then looks right. Give the doctor float64 x (dtype=torch.float64), and it reports the "
    "output's dtype."
)
CHECK_REPORT = (
    "check_function gives back a report and raises nothing, so make the test fail on it: "
    "assert report.ok, str(report)."
)
CATCH = {
    "off-centre": (
        "Compare backward's gradient with the declared rule at points near the threshold: the "
        "doctor with grad_reference does, and so does a property test that the bump is "
        "highest at the threshold."
    ),
    "float-output": (
        "Run the spike on float64 x and check the output's dtype: the doctor does (it checks in "
        "float64), or assert spike.apply(x, 1.0, 0.5).dtype == x.dtype."
    ),
    "clipped-grad-out": (
        "Send a grad_out beyond 1 and -1 and check the gradient is grad_out times the bump: "
        "the doctor checks that it scales with grad_out, and so does a property test that "
        "the gradient is linear in grad_out."
    ),
    "number-gradient": (
        "Run backward at all: autograd refuses a gradient for a plain number with a "
        "RuntimeError, so any test that calls backward (the doctor, torch.autograd.grad) "
        "catches it."
    ),
}

PROPERTY = "has a property test that checks the gradient on what hypothesis draws"
PROPERTY_EXPECTED = (
    "at least {n} inputs drawn by hypothesis reach spike.apply, and the property test fails "
    "when the gradient for them is wrong"
)
UNCALLED_GOT = "{test} is decorated with @given but never called, so hypothesis drew nothing"
UNCALLED = "Defining a property test runs nothing: call {test}() at the end of my_surrogate_tests."
NOTHING_DRAWN = (
    "nothing hypothesis drew reached spike.apply: my_surrogate_tests has no property test"
)
PROPERTY_HOW = (
    "Write an inner function decorated with @given(st.floats(-10, 10), st.floats(-100, "
    "100)) that builds x and a grad_out from what hypothesis draws, computes the gradient "
    "with torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, grad_out), and asserts what any "
    "sensible bump does: linear in grad_out, highest at the threshold. Call it at the end."
)
NO_GRADIENT_DRAWN = (
    "your property test ran on {inputs}, backward never ran inside it, and it found "
    "nothing wrong with a spike whose backward is wrong only while hypothesis draws"
)
PROBE_MISSED = (
    "your property test ran on {inputs}, backward ran inside it, and it found nothing "
    "wrong with a spike whose backward is wrong only while hypothesis draws (its bump sits 3 "
    "widths above the threshold and it clips grad_out)"
)
TOO_FEW = (
    "your property test caught a spike that is wrong only while hypothesis draws, but it ran "
    "on only {inputs}"
)
DRAW_MORE = (
    "Let hypothesis draw more: at least 10 examples (its default is 100; "
    "@settings(max_examples=...) sets it). A handful of draws can miss a wrong gradient."
)
CHECK_MORE = (
    "Your property test computes the gradient; make it assert what any sensible bump does: "
    "linear in grad_out (a clipped grad_out is not) and no higher anywhere than at the "
    "threshold (a bump off the threshold is higher elsewhere)."
)
CHECK_GRADIENT = (
    "Check the gradient in your property test, not only forward: compute (grad,) = "
    "torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, grad_out) and assert that it is "
    "linear in grad_out and no higher anywhere than at the threshold."
)

ANSWER_NOTE = (
    "The course's answer, reference_surrogate_tests, with its imports (name yours "
    "my_surrogate_tests):"
)
# The answer's code, read from the tested module, after its docstring.
ANSWER = (
    Path(__file__).with_name("surrogate_tests_answers.py").read_text().split('"""', 2)[2].strip()
)
HINTS = (
    Hint(
        "the idea",
        "gradcheck fails any surrogate near its threshold, right or wrong, so it cannot judge one. Two tools can: the doctor "
        "with grad_reference, which holds backward to the rule you declare (and checks the "
        "output's dtype and that the gradient scales with grad_out), and a property test, "
        "which says what any sensible bump does without its formula.",
    ),
    Hint(
        "the PyTorch calls",
        "report = check_function(spike, fires, grad_reference=rule, inputs=(x, 1.0, 0.5)) with "
        "rule(x, threshold, width, grad_out) returning (grad_out * surrogate_slope(x, "
        '"fast-sigmoid", threshold, width), None, None); assert report.ok. For the property: '
        "@given(st.floats(-10, 10), st.floats(-100, 100)) on an inner function, "
        "torch.autograd.grad(spike.apply(x, 1.0, 0.5), x, grad_out), and call it.",
    ),
    Hint("the answer", ANSWER_NOTE, ANSWER),
)
