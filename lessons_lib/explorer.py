"""explore(): sliders that plot a Function's forward, its backward and the true gradient.

Every call into the Function goes through probe, so broken learner code becomes a
message inside the widget, never a traceback. Each explorer owns one Agg figure
(never pyplot, so nothing leaks into the notebook's inline plots); a point move
only blits the marker; a range change updates the lines in place and redraws the two
panels over a cached layer holding what never changes (titles, legends).
"""

import asyncio
import base64
import html
import math
import struct
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lessons_lib.display import PALETTE, message_box
from lessons_lib.errors import InputError, NotAFunctionError
from lessons_lib.functions import (
    Clamp,
    Clamp01,
    ClippedSTE,
    Cube,
    CubeWithSetupContext,
    RoundSTE,
    SigmoidSpike,
    Square,
)
from lessons_lib.probe import (
    Run,
    as_tuple,
    describe_non_function,
    is_function,
    run_function,
    vjp,
)

WIDTH, HEIGHT, DPI = 960, 600, 96  # pixels: every frame has this size, so the page never jumps
FONT = 14  # large enough for a projector
# Central finite differences: step relative to |x|, about the cube root of float64's epsilon.
FD_STEP = 1e-5
# Shade where backward and the true gradient differ by more than rounding and more than
# a thousandth of the panel's height: a difference nobody could see is not shaded.
RTOL, VISIBLE = 1e-4, 1e-3
LIVE_PNG_LEVEL, STORED_PNG_LEVEL = 1, 9  # fast while dragging; small when stored in a notebook


@dataclass(frozen=True)
class Param:
    """A held number among fn's inputs that gets its own slider, e.g. a surrogate's slope."""

    index: int  # position among fn's inputs
    name: str
    low: float
    high: float


@dataclass(frozen=True)
class Preset:
    """What explore(fn) uses for one of the lesson's Functions unless told otherwise."""

    reference: Callable | None
    label: str  # how the legend names the reference
    x_range: tuple[float, float] = (-2.0, 2.0)
    hold: tuple = ()
    params: tuple[Param, ...] = ()
    note: str = ""  # a caption under the legend: what the plotted truth cannot show


def _cube(x: torch.Tensor) -> torch.Tensor:
    return x**3


def _binarise(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x >= 0, 1.0, -1.0).to(x.dtype)


def _step(x: torch.Tensor, slope: float) -> torch.Tensor:
    return (x > 0).to(x.dtype)  # a comparison: autograd sees a constant, gradient zero


PRESETS: dict[type, Preset] = {
    Square: Preset(lambda x: x**2, "x**2"),
    Cube: Preset(_cube, "x**3"),
    CubeWithSetupContext: Preset(_cube, "x**3"),
    RoundSTE: Preset(
        torch.round,
        "torch.round",
        (-2.5, 2.5),
        note="torch.round's true gradient:\n"
        "0 between the jumps, undefined\n"
        "at them (autograd says 0 there)",
    ),
    Clamp01: Preset(lambda x: torch.clamp(x, 0, 1), "torch.clamp(x, 0, 1)", (-0.5, 1.5)),
    Clamp: Preset(
        torch.clamp,
        "torch.clamp",
        (-2.0, 2.0),
        hold=(-1.0, 1.0),
        params=(Param(1, "lo", -2.0, 0.0), Param(2, "hi", 0.0, 2.0)),
    ),
    ClippedSTE: Preset(_binarise, "sign"),
    SigmoidSpike: Preset(
        _step, "step (x > 0)", hold=(5.0,), params=(Param(1, "slope", 0.5, 20.0),)
    ),
}


@dataclass
class Curves:
    """What fn, its backward and the truth gave on a grid of x values (NaN where unknown)."""

    x: np.ndarray
    forward: np.ndarray | None = None
    reference: np.ndarray | None = None
    custom: np.ndarray | None = None  # what fn's backward returned
    true: np.ndarray | None = None
    failure: str | None = None  # the Function raised: nothing to plot from it
    problems: list[str] = field(default_factory=list)


@dataclass
class Setup:
    """Everything fixed when explore() is called: what to run and how to name it."""

    fn: type
    reference: Callable | None
    reference_label: str
    grad_reference: Callable | None
    vary: int
    hold: list
    params: tuple[Param, ...]
    samples: int
    note: str = ""  # the preset's caption, shown only with the preset's own reference

    @property
    def name(self) -> str:
        """fn's class name, as the legend and messages say it."""
        return self.fn.__name__

    @property
    def true_label(self) -> str:
        """Where the true gradient comes from, as the legend says it."""
        if self.grad_reference is not None:
            return "intended gradient (grad_reference)"
        if self.reference is not None:
            return f"true gradient (autograd of {self.reference_label})"
        return f"true gradient (finite differences of {self.name})"

    def held_position(self, index: int) -> int:
        """Where fn's input number `index` sits in `hold` (which leaves out the varied one)."""
        return index if index < self.vary else index - 1

    def inputs(self, x: torch.Tensor, held: Sequence) -> tuple:
        """fn's inputs: x at position `vary`, held tensors spread to x's shape, the rest as is."""
        args = [torch.full(x.shape, v.item(), dtype=v.dtype) if _is_tensor(v) else v for v in held]
        args.insert(self.vary, x)
        return tuple(args)

    def measure(self, x: torch.Tensor, held: Sequence, scale: float) -> Curves:
        """Run fn, its backward (grad_out = scale) and the truth at every x, through probe."""
        inputs = self.inputs(x, held)

        def upstream(out: torch.Tensor, index: int) -> torch.Tensor:
            return torch.full_like(out, scale)

        curves = Curves(x=x.numpy())
        run = run_function(self.fn, inputs, upstream)
        if run.failure is not None and run.failure.stage == "forward":
            curves.failure = f"{self.name}'s {run.failure}"
            return curves
        curves.forward = self._values(run.output, x, f"{self.name}'s forward", curves)
        if run.failure is not None:
            curves.failure = f"{self.name}'s {run.failure}"
        else:
            curves.custom = self._gradient(run, x, len(inputs), curves)
        if self.grad_reference is not None or self.reference is not None:
            truth = vjp(self._truth_reference(), inputs, upstream)
            if truth.failure is not None:
                curves.problems.append(f"the {truth.failure}")
            else:
                if self.reference is not None:
                    curves.reference = self._values(truth.output, x, "the reference", curves)
                curves.true = self._values(truth.grads[self.vary], x, "the true gradient", curves)
        elif curves.forward is not None:
            curves.true = self._finite_difference(x, held, scale, curves)
        return curves

    def _truth_reference(self) -> Callable:
        """The reference, or one whose autograd gradient is exactly grad_reference."""
        if self.grad_reference is None:
            return self.reference
        reference, grad_reference, vary = self.reference, self.grad_reference, self.vary

        def with_given_gradient(*args: object) -> torch.Tensor:
            x = args[vary]
            value = reference(*args).detach() if reference is not None else torch.zeros_like(x)
            # As in check_function: grad_reference(*inputs, grad_out) is the intended backward.
            # Asked with grad_out = 1 it gives the derivative; autograd then applies grad_out.
            given = as_tuple(grad_reference(*args, torch.ones_like(x)))
            derivative = given[vary] if len(given) == len(args) else given[0]
            return value + (x - x.detach()) * derivative.detach()

        return with_given_gradient

    def _finite_difference(
        self, x: torch.Tensor, held: Sequence, scale: float, curves: Curves
    ) -> np.ndarray | None:
        h = FD_STEP * x.abs().clamp(min=1.0)
        after = run_function(self.fn, self.inputs(x + h, held)).output
        before = run_function(self.fn, self.inputs(x - h, held)).output
        if after is None or before is None:
            curves.problems.append(f"{self.name}'s forward failed near the grid points")
            return None
        slope = (_first_tensor(after) - _first_tensor(before)) / (2 * h)
        return self._values(scale * slope, x, "the finite-difference gradient", curves)

    def _gradient(self, run: Run, x: torch.Tensor, count: int, curves: Curves) -> np.ndarray | None:
        if len(run.grads) != count:
            curves.problems.append(
                f"{self.name}'s backward returned {len(run.grads)} value(s) for "
                f"{count} forward input(s): it needs one per input (None for non-tensors)"
            )
            return None
        grad = run.grads[self.vary]
        if grad is None:
            curves.problems.append(f"{self.name}'s backward returned None for input {self.vary}")
            return None
        return self._values(grad, x, f"{self.name}'s backward", curves)

    @staticmethod
    def _values(value: object, x: torch.Tensor, what: str, curves: Curves) -> np.ndarray | None:
        """value as float64 numbers, one per x; a problem noted if it cannot be that."""
        value = _first_tensor(value)
        if not _is_tensor(value) or value.shape != x.shape:
            shape = tuple(value.shape) if _is_tensor(value) else type(value).__name__
            curves.problems.append(
                f"{what} gave {shape} for {tuple(x.shape)} inputs: "
                "the explorer plots element-wise Functions (one output per x)"
            )
            return None
        values = value.detach().to(torch.float64).numpy().copy()
        bad = ~np.isfinite(values)
        if bad.any():
            first = float(curves.x[np.argmax(bad)])
            curves.problems.append(
                f"{what} gave NaN or inf at {bad.sum()} of {bad.size} point(s) "
                f"(first at x = {first:.4g}); they are left out of the plot"
            )
            values[bad] = np.nan
        return values


def _is_tensor(value: object) -> bool:
    return isinstance(value, torch.Tensor)


def _first_tensor(value: object) -> object:
    """A Function with several outputs is plotted by its first."""
    if isinstance(value, tuple):
        return next((v for v in value if _is_tensor(v)), None)
    return value


def _number(value: np.ndarray | None, index: int = 0) -> float:
    return math.nan if value is None else float(value[index])


def _fmt(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.4g}"


def _limits(*arrays: np.ndarray | None, include_zero: bool = False) -> tuple[float, float]:
    """y limits that show every finite value, unless a few spikes would flatten the rest."""
    parts = [a[np.isfinite(a)] for a in arrays if a is not None]
    values = np.concatenate(parts) if parts else np.empty(0)
    if include_zero:
        values = np.append(values, 0.0)
    if values.size == 0:
        return -1.0, 1.0
    low, high = values.min(), values.max()
    q_low, q_high = np.quantile(values, [0.02, 0.98])
    spread = max(q_high - q_low, 1e-12)
    if high - low > 20 * spread:  # e.g. finite differences across a jump: ignore the spike
        low, high = q_low - spread, q_high + spread
    pad = 0.08 * (high - low) if high > low else max(1.0, abs(high) * 0.1)
    return float(low - pad), float(high + pad)


def disagreement(custom: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Where fn's backward and the true gradient visibly differ (NaN against a number counts)."""
    finite = np.abs(np.concatenate([custom, true]))
    finite = finite[np.isfinite(finite)]
    tolerance = VISIBLE * (finite.max() if finite.size else 0.0) + RTOL * np.abs(true)
    with np.errstate(invalid="ignore"):
        close = np.abs(custom - true) <= tolerance
    return ~close & ~(np.isnan(custom) & np.isnan(true))


def encode_png(rgba: np.ndarray, compress_level: int) -> bytes:
    """An RGB PNG of an (height, width, 4) uint8 image.

    Written out here because it is about twice as fast as Pillow's encoder at level 1:
    rows go unfiltered (line art compresses well anyway), so zlib is the only cost.
    """
    height, width, _ = rgba.shape
    rows = np.zeros((height, 1 + 3 * width), np.uint8)  # each row: filter byte 0, then RGB
    rows[:, 1:].reshape(height, width, 3)[:] = rgba[:, :, :3]  # a view: one copy, no temporary
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    pixels = zlib.compress(rows, compress_level)  # no copy: zlib reads the array buffer
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", pixels)
        + _chunk(b"IEND", b"")
    )


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


class Throttle:
    """Run `action` for the latest request, at most once per `interval` of idle kernel time.

    While dragging, slider events arrive faster than a redraw. Requests that come within
    `interval` of the last run's end are not run one by one: a single trailing run is
    scheduled and reads the newest state, so events never pile up behind the picture.
    """

    def __init__(
        self,
        action: Callable[[], None],
        interval: float = 0.03,
        clock: Callable[[], float] = time.monotonic,
        schedule: Callable[[float, Callable[[], None]], bool] | None = None,
    ) -> None:
        self._action = action
        self._interval = interval
        self._clock = clock
        self._schedule = schedule or _call_later_on_running_loop
        self._idle_since = -math.inf
        self._pending = False

    def request(self) -> None:
        """Ask for a run: now if the kernel has been idle long enough, else one trailing run."""
        if self._pending:
            return  # the scheduled run will read the latest state
        wait = self._idle_since + self._interval - self._clock()
        if wait > 0 and self._schedule(wait, self._trailing):
            self._pending = True
        else:
            self._run()

    def _trailing(self) -> None:
        self._pending = False
        self._run()

    def _run(self) -> None:
        try:
            self._action()
        finally:
            self._idle_since = self._clock()  # measured from the end: slow draws self-limit


def _call_later_on_running_loop(delay: float, callback: Callable[[], None]) -> bool:
    """Schedule on the kernel's event loop; False outside one (plain Python, tests)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    loop.call_later(delay, callback)
    return True


class Explorer(widgets.VBox):
    """The live explorer: a picture, a readout, a message area and the sliders."""

    def __init__(self, setup: Setup, x_range: tuple[float, float], point: float, scale: float):
        self.setup = setup
        self._held = list(setup.hold)
        self._curves: Curves | None = None
        self._curves_stale = True
        self.figure, self._canvas, self._artists = _build_figure(setup)
        self._static = None  # the picture without the panels, drawn once
        self._background = None  # the picture without the moving artists

        lo, hi = x_range
        width = hi - lo
        wide = widgets.Layout(width=f"{WIDTH}px")  # as wide as the picture
        slider = {"continuous_update": True, "style": {"description_width": "9em"}, "layout": wide}
        self.point_slider = widgets.FloatSlider(
            value=point, min=lo, max=hi, step=width / 400, description="x", **slider
        )
        self.range_slider = widgets.FloatRangeSlider(
            value=(lo, hi),
            min=lo - 2 * width,
            max=hi + 2 * width,
            step=width / 100,
            description="x range",
            **slider,
        )
        self.scale_slider = widgets.FloatSlider(
            value=scale, min=-3.0, max=3.0, step=0.1, description="grad_out scale", **slider
        )
        self.param_sliders = {
            p.name: widgets.FloatSlider(
                value=float(self._held[setup.held_position(p.index)]),
                min=p.low,
                max=p.high,
                step=10 ** math.floor(math.log10((p.high - p.low) / 200)),  # round values
                description=p.name,
                **slider,
            )
            for p in setup.params
        }
        self.image = widgets.Image(
            format="png", layout=widgets.Layout(width=f"{WIDTH}px", height=f"{HEIGHT}px")
        )
        self.readout = widgets.HTML(layout=wide)
        self.message = widgets.HTML(layout=wide)

        self._throttle = Throttle(self.update)
        self.point_slider.observe(self._on_point, "value")
        self.range_slider.observe(self._on_range, "value")
        for s in [self.scale_slider, *self.param_sliders.values()]:
            s.observe(self._on_curve_input, "value")
        super().__init__(
            [
                self.image,
                self.readout,
                self.message,
                self.point_slider,
                self.range_slider,
                self.scale_slider,
                *self.param_sliders.values(),
            ]
        )
        # Stable hooks for the real-browser tests (tests/ui) and for notebook CSS.
        self.add_class("lessons-explorer")
        self.image.add_class("explorer-picture")
        self.point_slider.add_class("explorer-point")
        self.update()

    def _on_point(self, change: dict) -> None:
        self._throttle.request()

    def _on_range(self, change: dict) -> None:
        lo, hi = change["new"]
        with self.point_slider.hold_trait_notifications():
            self.point_slider.min, self.point_slider.max = lo, hi
            self.point_slider.step = max(hi - lo, 1e-9) / 400
        self._on_curve_input(change)

    def _on_curve_input(self, change: dict) -> None:
        self._curves_stale = True
        self._throttle.request()

    def update(self) -> None:
        """Bring the picture up to date: recompute and redraw if curves changed, else blit."""
        if self._curves_stale:
            self._curves_stale = False
            self._recompute()
            self._draw_curves()
        self._draw_point()
        self.image.value = self.png(LIVE_PNG_LEVEL)

    def held(self) -> list:
        """The held inputs, with the parameter sliders' current values."""
        held = list(self._held)
        for p in self.setup.params:
            held[self.setup.held_position(p.index)] = self.param_sliders[p.name].value
        return held

    def _recompute(self) -> None:
        lo, hi = self.range_slider.value
        if not hi > lo:
            self._curves = Curves(x=np.empty(0), failure="the x range is empty: widen it")
        else:
            x = torch.linspace(lo, hi, self.setup.samples, dtype=torch.float64)
            self._curves = self.setup.measure(x, self.held(), self.scale_slider.value)
        self.message.value = self._message_html(self._curves)
        if self.message.value:
            self.message.add_class("explorer-error")
        else:
            self.message.remove_class("explorer-error")

    def _message_html(self, curves: Curves) -> str:
        name = html.escape(self.setup.name)
        if curves.failure is not None:
            body = (
                f"<p><code>{html.escape(curves.failure)}</code></p><p>The sliders still work: "
                f"change the range or the sliders, or fix {name} and call explore again.</p>"
            )
            return message_box("The explorer cannot draw everything", body, "problem")
        if curves.problems:
            items = "".join(f"<li>{html.escape(p)}</li>" for p in curves.problems)
            return message_box("Something needs attention", f"<ul>{items}</ul>", "problem")
        return ""

    def _draw_curves(self) -> None:
        curves, a = self._curves, self._artists
        empty = np.full(curves.x.shape, np.nan)
        for key in ["forward", "reference", "custom", "true"]:
            values = getattr(curves, key)
            a[key].set_data(curves.x, empty if values is None else values)
        known = curves.custom is not None and curves.true is not None
        differ = disagreement(curves.custom, curves.true) if known else empty > 0
        a["disagree"].set_data(curves.x, 0, 1, where=differ)
        top, bottom = self.figure.axes
        if curves.x.size:
            top.set_xlim(curves.x[0], curves.x[-1])
        top.set_ylim(*_limits(curves.forward, curves.reference))
        bottom.set_ylim(*_limits(curves.custom, curves.true, include_zero=True))
        if self._static is None:
            self._static = _static_layer(self.figure, self._canvas)
        self._canvas.restore_region(self._static)
        for ax in (top, bottom):
            self.figure.draw_artist(ax)  # moving artists are `animated`: left out here
        self._background = self._canvas.copy_from_bbox(self.figure.bbox)

    def _draw_point(self) -> None:
        x = self.point_slider.value
        point = self._point_values(x)
        a = self._artists
        for key in ["vline_top", "vline_bottom"]:
            a[key].set_xdata([x, x])
        for key in ["forward", "custom", "true"]:
            a[f"{key}_marker"].set_data([x], [point[key]])
        self._canvas.restore_region(self._background)
        for key in ["vline_top", "vline_bottom", "forward_marker", "custom_marker", "true_marker"]:
            self.figure.draw_artist(a[key])
        self.readout.value = self._readout_html(x, point)

    def _point_values(self, x: float) -> dict[str, float]:
        """forward, custom and true gradient at exactly x (NaN when unknown)."""
        curves = self._curves
        if curves.failure is not None and curves.forward is None:
            return dict.fromkeys(["forward", "custom", "true"], math.nan)
        at = self.setup.measure(
            torch.tensor([x], dtype=torch.float64), self.held(), self.scale_slider.value
        )
        return {
            "forward": _number(at.forward),
            "custom": _number(at.custom),
            "true": _number(at.true),
        }

    def _readout_html(self, x: float, point: dict[str, float]) -> str:
        colours = {"forward": PALETTE["blue"], "custom": PALETTE["vermillion"], "true": "#000"}
        names = {
            "forward": "forward",
            "custom": f"{self.setup.name}'s backward",
            "true": "true gradient",
        }
        parts = [f"x = {_fmt(x)}", f"grad_out = {_fmt(self.scale_slider.value)}"] + [
            f'<span style="color: {colours[k]};">{html.escape(names[k])} = {_fmt(point[k])}</span>'
            for k in ["forward", "custom", "true"]
        ]
        note = html.escape(" ".join(self.setup.note.split()))
        return (
            f'<div style="font-family: monospace; font-size: 1.15em;">'
            f"{' &nbsp;&nbsp; '.join(parts)}</div>" + (f"<div>{note}</div>" if note else "")
        )

    def png(self, compress_level: int = STORED_PNG_LEVEL) -> bytes:
        """The current picture as PNG bytes."""
        return encode_png(np.asarray(self._canvas.buffer_rgba()), compress_level)

    def __repr__(self) -> str:
        return f"<gradient explorer for {self.setup.name}>"

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        """The widget view, plus a PNG of the picture for viewers that cannot run widgets."""
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = (
            f"Gradient explorer for {self.setup.name}: drag the sliders to move along x "
            "(a static picture where widgets cannot run)."
        )
        bundle["image/png"] = base64.b64encode(self.png()).decode("ascii")
        return bundle


def _build_figure(setup: Setup) -> tuple[Figure, FigureCanvasAgg, dict]:
    """One figure, two panels, every artist created once and later updated in place."""
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    canvas = FigureCanvasAgg(figure)
    figure.subplots_adjust(left=0.08, right=0.64, top=0.93, bottom=0.1, hspace=0.4)
    top, bottom = figure.subplots(2, 1, sharex=True)
    name = setup.name
    truth = "--" if setup.reference is not None or setup.grad_reference is not None else ":"
    a = {
        "forward": top.plot([], [], color=PALETTE["blue"], lw=3, label=f"{name} forward")[0],
        "reference": top.plot(
            [],
            [],
            color=PALETTE["black"],
            lw=2,
            ls="--",
            label=f"reference:\n{setup.reference_label}",
        )[0],
        "custom": bottom.plot(
            [], [], color=PALETTE["vermillion"], lw=3, label=f"{name}'s backward"
        )[0],
        "true": bottom.plot(
            [],
            [],
            color=PALETTE["black"],
            lw=2,
            ls=truth,
            label=setup.true_label.replace(" (", "\n("),
        )[0],
        "disagree": bottom.fill_between(
            [],
            [],
            [],
            transform=bottom.get_xaxis_transform(),
            color=PALETTE["orange"],
            alpha=0.3,
            hatch="//",
            lw=0,
            label="backward ≠ true gradient",
        ),
    }
    for key, ax, colour, marker, size in [
        ("forward_marker", top, PALETTE["blue"], "o", 11),
        ("custom_marker", bottom, PALETTE["vermillion"], "o", 11),
        ("true_marker", bottom, PALETTE["black"], "D", 7),
    ]:
        a[key] = ax.plot([], [], marker, color=colour, ms=size, animated=True)[0]
    for key, ax in [("vline_top", top), ("vline_bottom", bottom)]:
        a[key] = ax.axvline(0.0, color=PALETTE["green"], lw=1.5, animated=True)
    top.set_ylabel("output", fontsize=FONT)
    bottom.set_ylabel("gradient", fontsize=FONT)
    for ax in (top, bottom):
        ax.tick_params(labelsize=FONT - 2)
        ax.grid(True, color="#dddddd")
        ax.axhline(0.0, color="#999999", lw=1)
    # Titles, x label and legends belong to the figure, not the panels: they never change,
    # so they are drawn once into the static layer and not again on every range change.
    shown = [a["forward"], a["reference"]] if setup.reference is not None else [a["forward"]]
    for ax, title, handles in [
        (top, "forward: what the Function computes", shown),
        (
            bottom,
            "gradient: what backward returns, and the truth",
            [a["custom"], a["true"], a["disagree"]],
        ),
    ]:
        box = ax.get_position()
        figure.text(box.x0, box.y1 + 0.015, title, fontsize=FONT, va="bottom")
        figure.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(box.x1 + 0.015, box.y1),
            fontsize=FONT - 2,
        )
    box = bottom.get_position()
    if setup.note:
        figure.text(box.x1 + 0.015, box.y0, setup.note, fontsize=FONT - 2, va="bottom", gid="note")
    figure.text(
        (box.x0 + box.x1) / 2,
        0.01,
        f"x (input {setup.vary} of {name}; the others held)" if setup.hold else "x",
        fontsize=FONT,
        ha="center",
        va="bottom",
    )
    for key, artist in a.items():
        artist.set_gid(key)  # a stable name, so tests can find each artist
    return figure, canvas, a


def _static_layer(figure: Figure, canvas: FigureCanvasAgg) -> object:
    """The figure drawn without its panels: what a range change need not draw again."""
    for ax in figure.axes:
        ax.set_visible(False)
    canvas.draw()
    for ax in figure.axes:
        ax.set_visible(True)
    return canvas.copy_from_bbox(figure.bbox)


def explore(
    fn: type,
    reference: Callable | None = None,
    *,
    grad_reference: Callable | None = None,
    x_range: tuple[float, float] | None = None,
    vary: int = 0,
    hold: Sequence | None = None,
    params: Sequence[Param] | None = None,
    point: float | None = None,
    scale: float = 1.0,
    samples: int = 401,
) -> Explorer:
    """A live explorer of fn: its forward, its backward and the true gradient along x.

    reference: a plain function computing what fn should compute forwards, called with
        fn's inputs; its autograd gradient is the true gradient. Without one, the true
        gradient is a central finite difference of fn's own forward.
    grad_reference: the intended backward, as in check_function: called as
        grad_reference(*inputs, grad_out), e.g. lambda x, g: g for a straight-through
        estimator; when given, backward is measured against it instead of the reference's
        autograd gradient.
    vary, hold: for a Function of several inputs, input number `vary` moves along x and
        `hold` gives the others in order (tensors must hold a single number).
    params: held numbers that get their own slider, e.g. Param(1, "slope", 0.5, 20).
    The lesson's Functions (Cube, RoundSTE, ...) come with a preset for each of these.
    """
    if not is_function(fn):
        raise NotAFunctionError(describe_non_function(fn, "explore({})"))
    preset = PRESETS.get(fn)
    note = ""
    if reference is None and grad_reference is None and preset is not None:
        reference, label, note = preset.reference, preset.label, preset.note
    else:
        label = getattr(reference, "__name__", "reference")
        label = "reference" if label == "<lambda>" else label
    for name, value in [("reference", reference), ("grad_reference", grad_reference)]:
        if value is not None and not callable(value):
            raise InputError(f"{name} must be a function such as torch.round, got {value!r}.")
    x_range = _checked_range(x_range or (preset.x_range if preset else (-3.0, 3.0)))
    if hold is None:
        hold = preset.hold if preset and vary == 0 else ()
    if params is None:
        params = preset.params if preset and tuple(hold) == preset.hold and vary == 0 else ()
    setup = Setup(
        fn, reference, label, grad_reference, vary, list(hold), tuple(params), samples, note
    )
    _check_setup(setup)
    if point is None:
        point = min(max(0.4, x_range[0]), x_range[1])  # off the kinks at 0 and the grid
    if not isinstance(scale, int | float) or not math.isfinite(scale):
        raise InputError(f"scale must be a finite number, got {scale!r}.")
    point = min(max(float(point), x_range[0]), x_range[1])
    return Explorer(setup, x_range, point, float(scale))


def _checked_range(x_range: object) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise InputError(f"x_range must be two numbers (low, high), got {x_range!r}.") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InputError(f"x_range must be two finite numbers with low < high, got {x_range!r}.")
    return lo, hi


def _check_setup(setup: Setup) -> None:
    count = len(setup.hold) + 1
    if not isinstance(setup.samples, int) or setup.samples < 3:
        raise InputError(f"samples must be a whole number of at least 3, got {setup.samples!r}.")
    if not isinstance(setup.vary, int) or not 0 <= setup.vary < count:
        raise InputError(
            f"vary={setup.vary!r} does not name one of {setup.name}'s {count} input(s): "
            f"give hold= the other inputs, in order, and vary= the position (0 to {count - 1})."
        )
    for value in setup.hold:
        if _is_tensor(value) and value.numel() != 1:
            raise InputError(
                f"held tensor inputs must hold one number (x moves along one axis), "
                f"got shape {tuple(value.shape)}."
            )
    for p in setup.params:
        if not isinstance(p, Param) or p.index == setup.vary or not 0 <= p.index < count:
            raise InputError(
                f"params must be Param(index, name, low, high) naming a held input, got {p!r}."
            )
        held = setup.hold[setup.held_position(p.index)]
        if not isinstance(held, int | float) or not p.low <= held <= p.high:
            raise InputError(
                f"the held value of {p.name} must be a number between {p.low} and {p.high}, "
                f"got {held!r}."
            )
