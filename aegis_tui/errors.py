"""Aegis's own exceptions; only the CLI and the TUI turn them into messages and exit codes."""


class AegisError(Exception):
    """Base class: an error the user can act on, shown as one line."""


class InputError(AegisError):
    """Unusable user input (bad file, bad option): exit code 2."""


class ModelError(InputError):
    """A model file that is missing, not a GGUF, truncated or unsupported."""


class DocumentError(InputError):
    """A document that is empty, binary, undecodable or too long."""


class SchemaError(InputError):
    """A facts payload that does not validate against the extraction schema."""


class GrammarError(AegisError):
    """A grammar that cannot be compiled or is rejected by a grammar engine."""


class UnsupportedSchemaError(GrammarError):
    """A JSON-schema feature the GBNF compiler does not support."""


class EngineError(AegisError):
    """The inference engine failed or was asked for something it cannot do."""


class ContextOverflowError(EngineError, InputError):
    """A prompt longer than the per-slot context."""


class BudgetError(AegisError):
    """A configuration predicted not to fit in the memory budget."""


class AuditError(AegisError):
    """An audit log that cannot be read or written."""


def one_line(exc: BaseException) -> str:
    """An exception as one line for a user: our own errors as they read, others with their type."""
    return str(exc) if isinstance(exc, AegisError) else f"{type(exc).__name__}: {exc}"
