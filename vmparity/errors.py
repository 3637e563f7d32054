"""The one exception type for bad input: it always names where the problem is."""


class InputError(Exception):
    """Bad input: a file, a line (when known) and what was expected.

    The CLI prints it as `path:line: message` and exits with status 2.
    """

    def __init__(self, path, message, line=None):
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self):
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"
