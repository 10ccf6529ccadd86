"""train_surrogates(): train the neuron with each surrogate picked, then compare loss curves.

Layer: the kernel's widget (ipywidgets). Training runs in the kernel, the progress bar
counting every step of every run; then the picture (drawing.py) and the facts (runs.py)
replace the last ones. Toggle buttons (buttons.py) pick the shapes and widths; "Train
again" trains with the new choice. The page's picture is drawn at twice the stored one's
pixels, so it stays sharp on a screen of two device pixels per CSS px, and it carries a
text alternative (an <img> in an HTML widget: ipywidgets' Image cannot take one). In a
notebook, train_surrogates() shows the explorer before it trains, so the bar moves; the
stored output is the explorer once trained, its picture for viewers without a kernel and
its facts as text.
"""

import base64
import html
import math
from collections.abc import Sequence

import ipywidgets as widgets
from IPython import get_ipython
from IPython.display import display

from lessons_lib.display import message_box
from lessons_lib.explorers.drawing import WIDTH
from lessons_lib.explorers.training.buttons import ToggleRow, TrainButton
from lessons_lib.explorers.training.drawing import COLOURS, draw_runs
from lessons_lib.explorers.training.runs import planned, train_all
from lessons_lib.running import InputError
from lessons_lib.surrogate_gradients import SHAPES

WIDTH_CHOICES = (0.01, 0.1, 0.5, 2.0, 10.0)  # the width buttons, besides any width asked for
PAGE_RATIO = 2  # device pixels per CSS px of the page's picture: sharp on most screens
PROGRESS_UPDATES = 50  # bar updates per training: each is a message to the page


class TrainingExplorer(widgets.VBox):
    """Shape and width buttons, a button to train again, a progress bar, the picture, the facts."""

    def __init__(self, shapes: Sequence[str], widths: Sequence[float], steps: int) -> None:
        self.steps, self.runs, self._png, self._drawn = steps, [], None, None
        self.shape_row = ToggleRow("shapes", SHAPES, shapes)
        self._width_of = {_label(w): w for w in sorted({*WIDTH_CHOICES, *widths})}
        self.width_row = ToggleRow("widths", self._width_of, [_label(w) for w in widths])
        self.train_button = TrainButton("Train again")
        self.train_button.on_click(lambda _: self.train())
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="training")
        # No width: the box stretches it to fit, where 100% and its margin would overflow.
        self.picture = widgets.HTML()
        self.facts = widgets.HTML()
        self.message = widgets.HTML()
        self._shown_in = None  # the cell that showed it while training
        super().__init__(
            [
                self.shape_row,
                self.width_row,
                widgets.HBox([self.train_button, self.progress]),
                self.message,
                self.picture,
                self.facts,
            ],
            layout=widgets.Layout(max_width=f"{WIDTH}px"),
        )
        self.add_class("lessons-explorer")
        self.add_class("training-explorer")

    @property
    def shapes(self) -> list[str]:
        """The shapes picked, in SHAPES' order."""
        return list(self.shape_row.value)

    @property
    def widths(self) -> list[float]:
        """The widths picked, narrowest first."""
        return [self._width_of[label] for label in self.width_row.value]

    def train(self) -> None:
        """Train every run picked, the bar counting steps; then draw and list the results."""
        self.train_button.busy = True  # also tells a page that pressed it that it is done
        try:
            self._train(self.shapes, self.widths)
        finally:
            self.train_button.busy = False

    def _train(self, shapes: list[str], widths: list[float]) -> None:
        if not shapes or not widths or len(widths) > len(COLOURS):
            self.message.value = message_box(
                "Nothing to train",
                f"<p>Pick at least one shape and from one to {len(COLOURS)} widths.</p>",
                "problem",
            )
            return
        self.message.value = ""
        self.progress.max = len(planned(shapes, widths)) * self.steps
        self.progress.value = 0
        done, every = [0], max(1, self.progress.max // PROGRESS_UPDATES)

        def step() -> None:
            done[0] += 1
            if done[0] % every == 0:
                self.progress.value = done[0]

        self.runs = train_all(shapes, widths, self.steps, step)
        self.progress.value = self.progress.max
        self._png, self._drawn = None, (shapes, widths)  # the stored picture, drawn when asked
        page_png = draw_runs(self.runs, shapes, widths, PAGE_RATIO)
        self.picture.value = self._picture(page_png, shapes, widths)
        items = "".join(f"<li>{html.escape(run.fact())}</li>" for run in self.runs)
        self.facts.value = f"<ul class='training-facts'>{items}</ul>"

    def _picture(self, png: bytes, shapes: list[str], widths: list[float]) -> str:
        """The page's <img>: as wide as the explorer, at most its WIDTH, and said in words."""
        alt = (
            f"Loss against training step, {self.steps} steps: one panel per shape "
            f"({', '.join(shapes)}), a line per width ({', '.join(f'{w:g}' for w in widths)}) "
            "and a wide grey band for the true gradient. The list below says how each run ended."
        )
        source = base64.b64encode(png).decode("ascii")
        return (
            f'<img class="training-picture" src="data:image/png;base64,{source}" '
            f'alt="{html.escape(alt)}" style="width: 100%; max-width: {WIDTH}px; height: auto">'
        )

    @property
    def summary(self) -> str:
        """The runs' stable facts, one a line: what a viewer without a kernel reads."""
        head = (
            f"Training explorer: the neuron trained for {self.steps} steps with the true "
            "gradient and with each surrogate picked; the loss curves, one panel per shape."
        )
        return "\n".join([head, *(run.fact() for run in self.runs)])

    def show_while_training(self) -> None:
        """In a notebook: show the progress bar, train (the bar moves), then the explorer.

        Two outputs, each displayed once and never updated: a stored notebook then holds
        what a fresh kernel shows, which nbval can compare (it ignores display updates).
        """
        shell = get_ipython()
        if shell is None or not hasattr(shell, "kernel"):
            self.train()
            return
        display(self.progress)
        self.train()
        display(self._repr_mimebundle_(), raw=True)
        self._shown_in = shell.execution_count

    def _ipython_display_(self) -> None:
        """Shown once per cell: train_surrogates() already showed it in this one."""
        shell = get_ipython()
        if shell is not None and self._shown_in == shell.execution_count:
            return
        display(self._repr_mimebundle_(), raw=True)

    @property
    def png(self) -> bytes:
        """The picture at one pixel per px, for the stored notebook (b"" before training).

        Drawn on first use: the page shows the sharper one, so Train again draws only that.
        """
        if self._png is None:
            self._png = b"" if self._drawn is None else draw_runs(self.runs, *self._drawn)
        return self._png

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        """The widget view, its facts as text and its picture for viewers without widgets."""
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.summary
        if self._drawn is not None:
            bundle["image/png"] = base64.b64encode(self.png).decode("ascii")
        return bundle

    def __repr__(self) -> str:
        return "<training explorer>"


def _label(width: float) -> str:
    """A width button's label: short, yet one per width asked for."""
    return f"{width:.12g}"


def train_surrogates(
    shapes: Sequence[str] = ("triangle", "sigmoid", "fast-sigmoid"),
    widths: Sequence[float] = (0.01, 0.5, 10.0),
    steps: int = 200,
) -> TrainingExplorer:
    """Train lesson 3's neuron with each shape at each width, and with the true gradient
    (TrueStep), then draw the loss curves: one panel per shape, a line per width.

    shapes: some of SHAPES (a single name too); widths: positive numbers, one to six;
    steps: training steps per run, from 1 to 2000.
    """
    shapes = [shapes] if isinstance(shapes, str) else list(_sequence(shapes, "shapes"))
    unknown = [s for s in shapes if s not in SHAPES]
    if not shapes or unknown:
        raise InputError(
            f"shapes must name one or more of {', '.join(SHAPES)}; got {unknown or shapes!r}."
        )
    widths = [_width(w) for w in _sequence(widths, "widths")]
    if not 1 <= len(widths) <= len(COLOURS):
        raise InputError(f"widths must hold one to {len(COLOURS)} numbers; got {widths!r}.")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 2000:
        raise InputError(f"steps must be a whole number from 1 to 2000; got {steps!r}.")
    ordered = [s for s in SHAPES if s in shapes]
    explorer = TrainingExplorer(ordered, sorted(set(widths)), steps)
    explorer.show_while_training()
    return explorer


def _sequence(value: object, name: str) -> Sequence:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InputError(
            f"{name} must be a list or tuple, such as {name}=(0.5, 2.0); got {value!r}."
        )
    return value


def _width(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"each width must be a positive number, such as 0.5; got {value!r}.")
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"each width must be a positive number, such as 0.5; got {value!r}.")
    return float(value)
