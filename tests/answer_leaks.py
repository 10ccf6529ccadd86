"""Where an answer's code shows outside the answers: in its notebook, its page, its deck.

An answer is a cell tagged "answer" that shows the course's code with show_source(NAME).
Its code is read from lessons_lib itself (NAME resolved through the notebook's imports),
and what would give it away is its distinctive code:

- each line, comments, docstrings and blank lines left out, of at least LINE_CHARS
  characters, that the learner was not given: in the task's starter cell (the last one
  marked ✏️ or TODO before the answer) or in a code cell before it;
- the expression of each such line that returns or assigns one (after `return` or `=`)
  and computes something (an operator, or a call given arguments), of at least
  EXPRESSION_CHARS characters, found anywhere in a piece of code.

What a reader sees in plain view is read as pieces of code: a code cell's lines and its
printed lines, a Markdown cell's inline code and code blocks, where a folded cell shows
only what JupyterLab's placeholder shows (its first line); on an HTML page (the site, a
deck) every <pre> block's lines and every <code> span outside a <details>, the site's
fold, and before a deck's "Answers" slide. A printed line counts as a whole line only.
"""

import ast
import importlib
import inspect
import io
import re
import tokenize
from dataclasses import dataclass
from html.parser import HTMLParser

import nbformat

ANSWER_TAG = "answer"
STARTER_MARKS = ("✏️", "TODO")
LINE_CHARS = 12  # `return grad_out`, RoundSTE's whole answer, counts
EXPRESSION_CHARS = 15  # `grad_out * 3 * x**2` counts; `x.clamp(0, 1)` does not
SETUP_TAG = "course-setup"
INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.S)
FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1", re.S | re.M)
BARE_CALL = re.compile(r"^[\w.]+\(\)$")  # `random_inputs()`: running a test shows nothing
TRAILING_COMMENT = re.compile(r"\s+#\s.*$")
ASSIGNED = re.compile(r"^(?:return\s+|[\w.,()\[\] ]+?\s*(?<![=!<>])=(?!=)\s*)(?P<expression>.+)$")


@dataclass(frozen=True)
class AnswerCode:
    """The distinctive code of a notebook's answers: whole lines, and expressions."""

    lines: frozenset[str]
    expressions: frozenset[str]

    def found_in(self, piece: str, printed: bool = False) -> str | None:
        """The line or expression a piece of code shows, or None.

        A printed line (an output's) is matched as a whole line only: the self-checks'
        advice names calls in its sentences, as the hint ladder means it to.
        """
        piece = squeeze(TRAILING_COMMENT.sub("", piece))
        if piece in self.lines:
            return piece
        if printed:
            return None
        return next((e for e in sorted(self.expressions) if e in piece), None)


def squeeze(text: str) -> str:
    return " ".join(text.split())


def is_answer(cell: nbformat.NotebookNode) -> bool:
    return ANSWER_TAG in cell.metadata.get("tags", [])


def is_starter(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and any(mark in cell.source for mark in STARTER_MARKS)


SKIPPED_TOKENS = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
)


def code_lines(source: str) -> list[str]:
    """source's lines of code, squeezed: comments, docstrings and blank lines left out."""
    drop: set[int] = set()  # the rows a docstring takes
    kept: dict[int, int] = {}  # row: where its code ends, before any comment
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and previous in (
            tokenize.NEWLINE,
            tokenize.NL,
            tokenize.INDENT,
            tokenize.DEDENT,
        ):
            drop.update(range(token.start[0], token.end[0] + 1))
        elif token.type not in SKIPPED_TOKENS:
            for row in range(token.start[0], token.end[0] + 1):
                kept[row] = token.end[1] if row == token.end[0] else len(source)
        if token.type not in (tokenize.COMMENT, tokenize.NL):
            previous = token.type
    rows = source.splitlines()
    found = [squeeze(rows[row - 1][:end]) for row, end in sorted(kept.items()) if row not in drop]
    return [line for line in found if line]


def shown_names(cell: nbformat.NotebookNode) -> list[ast.expr]:
    """What an answer cell passes to show_source, as written."""
    return [
        node.args[0]
        for node in ast.walk(ast.parse(cell.source))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "show_source"
        and node.args
    ]


def imported_names(nb: nbformat.NotebookNode) -> dict[str, object]:
    """Every name the notebook's import statements bind, imported here."""
    names: dict[str, object] = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or SETUP_TAG in cell.metadata.get("tags", []):
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    importlib.import_module(alias.name)
                    top = alias.name.split(".")[0]
                    bound = alias.name if alias.asname else top
                    names[alias.asname or top] = importlib.import_module(bound)
            elif isinstance(node, ast.ImportFrom) and node.module:
                module = importlib.import_module(node.module)
                for alias in node.names:
                    found = getattr(module, alias.name, None)
                    if found is None:  # a submodule the package does not import itself
                        found = importlib.import_module(f"{node.module}.{alias.name}")
                    names[alias.asname or alias.name] = found
    return names


def shown_sources(cell: nbformat.NotebookNode, names: dict[str, object]) -> list[str]:
    """The source of what an answer cell shows, read from lessons_lib."""
    found = []
    for shown in shown_names(cell):
        value = eval(compile(ast.Expression(shown), "<answer>", "eval"), dict(names))
        found.append(inspect.getsource(value))
    return found


def taught_lines(cells: list[nbformat.NotebookNode]) -> set[str]:
    """The code lines a learner has been given in plain view in these cells."""
    return {
        line
        for cell in cells
        if cell.cell_type == "code" and not is_answer(cell)
        for line in code_lines(cell.source)
    }


def is_expression_of_note(expression: str) -> bool:
    """An expression that computes: an operator, or a call given something."""
    return len(expression.replace(" ", "")) >= EXPRESSION_CHARS and (
        re.search(r"[-*+/%@<>&|]", expression) is not None
        or re.search(r"\([^)\s]", expression) is not None
    )


def answer_code(nb: nbformat.NotebookNode) -> AnswerCode:
    """The distinctive code of every answer of the notebook.

    For each answer, the learner has been given its task's starter (the last starter cell
    before it) and every code cell before that starter: none of those lines counts.
    """
    names = imported_names(nb)
    lines: set[str] = set()
    expressions: set[str] = set()
    starter = None
    for index, cell in enumerate(nb.cells):
        if is_starter(cell):
            starter = index
        if not (is_answer(cell) and cell.cell_type == "code"):
            continue
        given = taught_lines(nb.cells[: starter + 1] if starter is not None else [])
        for source in shown_sources(cell, names):
            for line in code_lines(source):
                if (
                    len(line.replace(" ", "")) < LINE_CHARS
                    or line in given
                    or BARE_CALL.match(line)
                ):
                    continue
                lines.add(line)
                assigned = ASSIGNED.match(line)
                if assigned and is_expression_of_note(assigned["expression"]):
                    expression = assigned["expression"]
                    if not any(expression in known for known in given):
                        expressions.add(expression)
    return AnswerCode(frozenset(lines), frozenset(expressions))


def output_text(output: nbformat.NotebookNode) -> str:
    if output.output_type == "stream":
        return output.text
    return output.get("data", {}).get("text/plain", "")


def markdown_pieces(markdown: str) -> list[str]:
    """The code a Markdown text shows: its code blocks' lines, then its inline code."""
    pieces = [line for block in FENCE.findall(markdown) for line in block[1].splitlines()]
    return pieces + [span for _, span in INLINE_CODE.findall(FENCE.sub("", markdown))]


# What JupyterLab shows of a folded output: the first line of the first output's data, in
# this order of kinds (jupyterlab's CodeCell.getOutputPlaceholderText, 4.6).
PLACEHOLDER_KINDS = (
    "text/html",
    "image/svg+xml",
    "application/pdf",
    "text/markdown",
    "text/plain",
)


def folded(cell: nbformat.NotebookNode, part: str) -> bool:
    return bool(cell.metadata.get("jupyter", {}).get(f"{part}_hidden"))


def first_line(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()][:1]


def output_placeholder(outputs: list) -> list[str]:
    """The line JupyterLab shows in place of folded outputs."""
    if not outputs:
        return []
    first = outputs[0]
    if first.output_type == "stream":
        return first_line(first.text)
    data = first.get("data", {})
    kind = next((k for k in PLACEHOLDER_KINDS if isinstance(data.get(k), str)), None)
    return first_line(data[kind]) if kind else []


def visible_pieces(cell: nbformat.NotebookNode) -> list[tuple[str, bool]]:
    """(piece, printed) for the code a reader sees of a cell as the notebook opens; a
    folded part shows one line, as JupyterLab's placeholder does."""
    source = cell.source
    if folded(cell, "source"):
        source = "\n".join(first_line(source))
    if cell.cell_type == "markdown":
        return [(piece, False) for piece in markdown_pieces(source)]
    if cell.cell_type != "code":
        return []
    pieces = [(line, False) for line in source.splitlines()]
    outputs = cell.get("outputs", [])
    if folded(cell, "outputs"):
        printed = output_placeholder(outputs)
    else:
        printed = [line for output in outputs for line in output_text(output).splitlines()]
    return pieces + [(line, True) for line in printed]


def notebook_pieces(nb: nbformat.NotebookNode) -> list[tuple[int, str, bool]]:
    """(cell index, piece of code, printed) for all a reader sees as the notebook opens."""
    return [
        (index, piece, printed)
        for index, cell in enumerate(nb.cells)
        for piece, printed in visible_pieces(cell)
    ]


def unfolded_answers(nb: nbformat.NotebookNode) -> list[str]:
    """One line per answer cell that shows what it holds: each must fold something."""
    return [
        f"cell {index}: {cell.source.splitlines()[0]!r}"
        for index, cell in enumerate(nb.cells)
        if is_answer(cell) and not (folded(cell, "source") or folded(cell, "outputs"))
    ]


def notebook_leaks(nb: nbformat.NotebookNode) -> list[str]:
    """One line per piece of answer code a reader sees as the notebook opens."""
    code = answer_code(nb)
    return [
        f"cell {index}: {found!r}"
        for index, piece, printed in notebook_pieces(nb)
        if (found := code.found_in(piece, printed))
    ]


class PageCode(HTMLParser):
    """The code an HTML page shows unfolded: its <pre> lines and <code> spans.

    What a <details> element holds is folded, one click away (MyST-NB's folded cells, the
    students' edition's folded Markdown answers), and left out.
    """

    VOID = frozenset({"br", "img", "input", "link", "meta", "hr", "source", "wbr", "col", "area"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self._open: list[str] = []  # every open element's tag
        self._pre: list[str] | None = None
        self._code: list[str] | None = None

    @property
    def _folded(self) -> bool:
        return "details" in self._open

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        self._open.append(tag)
        if self._folded:
            return
        if tag == "pre":
            self._pre = []
        elif tag == "code" and self._pre is None:
            self._code = []

    def handle_endtag(self, tag):
        if tag in self.VOID or tag not in self._open:
            return
        while self._open:  # close what was left open inside, as a browser does
            closed = self._open.pop()
            if closed == "pre" and self._pre is not None:
                self.pieces += "".join(self._pre).splitlines()
                self._pre = None
            elif closed == "code" and self._code is not None:
                self.pieces.append("".join(self._code))
                self._code = None
            if closed == tag:
                break

    def handle_data(self, data):
        if self._folded:
            return
        if self._pre is not None:
            self._pre.append(data)
        elif self._code is not None:
            self._code.append(data)


def page_leaks(html: str, code: AnswerCode) -> list[str]:
    """One line per piece of answer code an HTML page shows unfolded."""
    page = PageCode()
    page.feed(html)
    page.close()
    return [repr(found) for piece in page.pieces if (found := code.found_in(piece))]


def deck_leaks(html: str, code: AnswerCode, answers_id: str) -> list[str]:
    """One line per piece of answer code a deck shows before its Answers slide."""
    start = html.find(f'id="{answers_id}"')
    before = html if start < 0 else html[:start]
    return page_leaks(before, code)
