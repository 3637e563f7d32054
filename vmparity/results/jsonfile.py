"""Reading the lab's own JSON records (rounds.json, verify plans, verdicts): the file
named in the error, with what was expected, and never a traceback."""

import json
from pathlib import Path

from ..errors import InputError


def read(path, expected):
    """The parsed JSON of path; InputError naming it when it cannot be read or parsed.
    expected: the message, with {error} where the reason goes."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise InputError(path, expected.format(error=e)) from None
