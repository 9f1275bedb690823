"""``google.adk.errors.already_exists_error`` → here: the error of :mod:`adk_runtime.errors`."""

from adk_runtime.errors import AlreadyExistsError

__all__ = ["AlreadyExistsError"]
