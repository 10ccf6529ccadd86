"""Small words for messages about a learner's values."""


def a_or_an(noun: str) -> str:
    """The noun with its indefinite article: "an int", "a float"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
