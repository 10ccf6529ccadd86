"""LessonError: a mistake explained in plain English, shown in a notebook without a traceback."""


class LessonError(Exception):
    """Raised for a learner's mistake at call time; IPython shows only the message."""

    def _render_traceback_(self) -> list[str]:
        # IPython calls this instead of printing the full traceback.
        return [f"{type(self).__name__}: {self}"]


class NotAFunctionError(LessonError, TypeError):
    """Something other than a torch.autograd.Function subclass was passed to a helper."""


class InputError(LessonError, TypeError):
    """The inputs given to a helper cannot be used (wrong type or dtype)."""


def first_line(error: BaseException) -> str:
    """The first line of an exception's message, for a one-line explanation ("" if none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else ""
