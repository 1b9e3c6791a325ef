"""Exceptions: one class per library error code (base/status.h's ErrorCode)."""


class Error(Exception):
    """A microarena library error: its code, the code's name and the message."""

    code = None
    code_name = None

    def __init__(self, message, exact_minimum_bytes=0):
        super().__init__(message)
        self.message = message
        # run(): the exact minimum arena when the given one was too small (0: none).
        self.exact_minimum_bytes = exact_minimum_bytes


class InvalidArgumentError(Error, ValueError):
    """A bad parameter or option."""

    code, code_name = 1, "invalid argument"


class MalformedModelError(Error, ValueError):
    """The model bytes fail verification or a semantic check."""

    code, code_name = 2, "malformed model"


class UnsupportedError(Error):
    """Valid, but not something microarena handles."""

    code, code_name = 3, "unsupported"


class NotFoundError(Error, FileNotFoundError):
    """A named thing (file, tensor, metadata) is missing."""

    code, code_name = 4, "not found"


class OutOfMemoryError(Error, MemoryError):
    """An arena area (persistent, head, temp) is too small."""

    code, code_name = 10, "out of memory"


class InfeasibleError(Error):
    """A planning problem has no solution within capacity."""

    code, code_name = 11, "infeasible"


class TimeoutError(Error):  # noqa: A001 - microarena.TimeoutError, as the code's name
    """A time limit ran out before an answer was proven."""

    code, code_name = 12, "timeout"


class IoError(Error, OSError):
    """Reading or writing a file failed."""

    code, code_name = 20, "i/o error"


class InternalError(Error):
    """An invariant of microarena did not hold (a bug)."""

    code, code_name = 30, "internal error"


class StoppedEarlyError(Error):
    """An op ended Invoke early on purpose; the outputs are not new."""

    code, code_name = 40, "stopped early"


ERROR_CLASSES = {
    cls.code: cls
    for cls in (InvalidArgumentError, MalformedModelError, UnsupportedError, NotFoundError,
                OutOfMemoryError, InfeasibleError, TimeoutError, IoError, InternalError,
                StoppedEarlyError)
}


def error_for(code, code_name, message, exact_minimum_bytes=0):
    """The exception for a library error (called by the extension)."""
    cls = ERROR_CLASSES.get(code)
    if cls is None:
        error = Error(message, exact_minimum_bytes)
        error.code, error.code_name = code, code_name
        return error
    return cls(message, exact_minimum_bytes)
