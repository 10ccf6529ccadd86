"""What the gradient doctor can find: the codes, where each is taught, and the Finding a learner reads.

The words of each code live in words/, one module per family of codes; the checks
decide *whether* a mistake is there, and only words/ says it.
"""

from dataclasses import dataclass

from lessons_lib.sections import TAUGHT, cite

# Most important first: a later finding is often a consequence of an earlier one.
CODES = (
    "not-a-function",
    "error",
    "mutates-input",
    "forward",
    "output-dtype",
    "grad-count",
    "non-tensor-grad",
    "grad-shape",
    "no-gradient",
    "mutates-saved",  # what backward computes from the changed tensor may be wrong too
    "mutates-grad-out",
    "chain-rule",
    "non-finite",
    "gradient",
    "frozen-input",
    "non-contiguous-grad-out",
    "undefined-grad-out",
    "grad-dtype",
    "double-backward",
    "jvp",
    "ctx-tensor",
)

# Where each mistake is taught: sections.TAUGHT under the code's own name, or nowhere
# (NO_SECTION then says what the report itself explains). A developer reads their own track
# first; the researcher track is further reading, or the one place an idea is taught
# (ONLY_RESEARCHER).
NO_SECTION = {  # what "Read more" says where no lesson section covers the idea
    "error": "no lesson section covers errors in your own code: the message and the line above "
    "name the problem",
    "grad-shape": "no developer section covers a gradient's shape: “Why it matters” and "
    "“How to fix it” above explain it",
    "grad-dtype": "no lesson section covers a gradient's dtype: “Why it matters” and “How to "
    "fix it” above explain it",
}
FURTHER_READING = {  # sections.TAUGHT's "<code>-further" entries
    code: (TAUGHT[f"{code}-further"],) for code in CODES if f"{code}-further" in TAUGHT
}
ONLY_RESEARCHER = {  # no developer track teaches these: what "Read more" adds
    "non-finite": "the developer tracks do not cover NaN and overflow in a derivative",
}
# A NaN or inf whose traced cause no section shows (3.3 shows overflow, and 0 * inf after it).
NON_FINITE_UNCOVERED = (
    "no lesson section covers this cause of a NaN or an infinity: the evidence (“there, "
    "backward computed ...”) and “How to fix it” above explain it"
)


LESSON_SECTIONS = {
    code: cite(TAUGHT[code]) if code in TAUGHT else NO_SECTION[code] for code in CODES
}


@dataclass(frozen=True)
class Finding:
    """One diagnosed mistake: what went wrong, the evidence, why it matters, how to fix it."""

    code: str
    what: str
    why: str
    fix: str
    evidence: tuple[str, ...] = ()
    read_more: str = ""  # where this finding, unlike others of its code, is taught (or not)

    @property
    def section(self) -> str:
        """Where the learner's own track teaches this ("Read more")."""
        if self.read_more:
            return self.read_more
        only = ONLY_RESEARCHER.get(self.code)
        return f"{LESSON_SECTIONS[self.code]} ({only})" if only else LESSON_SECTIONS[self.code]

    @property
    def further(self) -> str:
        """Deeper sections, in another track ("Further reading"), or ""."""
        return "; ".join(cite(section) for section in FURTHER_READING.get(self.code, ()))
