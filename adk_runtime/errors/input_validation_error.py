"""``google.adk.errors.input_validation_error`` → here: the error of :mod:`adk_runtime.errors`."""

from adk_runtime.errors import InputValidationError

__all__ = ["InputValidationError"]
