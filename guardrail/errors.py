"""One exception tree for the whole library.

    GuardrailError
    ├── InputError           bad answer / context / JSONL line / schema given by the caller
    ├── ConfigError          bad configuration or policy file (names file, line, field)
    └── BackendError         a component that could not run
        ├── ModelLoadError   model directory missing or unreadable
        └── LLMError         an OpenAI-compatible endpoint failed
            ├── LLMTimeout
            ├── LLMResponseError   HTTP error status or output that is not the JSON we asked for
            └── StreamInterrupted  a streamed answer ended before the model said it was finished

Backend errors are re-raised ``from`` the original exception so the cause is never lost.
"""

from __future__ import annotations

__all__ = [
    "GuardrailError",
    "InputError",
    "ConfigError",
    "BackendError",
    "ModelLoadError",
    "LLMError",
    "LLMTimeout",
    "LLMResponseError",
    "StreamInterrupted",
]


class GuardrailError(Exception):
    """Base of every error this library raises on purpose."""


class InputError(GuardrailError, ValueError):
    """The caller handed in something we cannot check; the message names what and where."""


class ConfigError(GuardrailError, ValueError):
    """A configuration or policy is invalid; the message names file, line and field where known."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None, field: str | None = None):
        where = ":".join(str(p) for p in (file, line) if p is not None)
        parts = [p for p in (where, f"field '{field}'" if field else None) if p]
        super().__init__(f"{', '.join(parts)}: {message}" if parts else message)
        self.file, self.line, self.field = file, line, field


class BackendError(GuardrailError, RuntimeError):
    """A model, endpoint or other backend could not do its part."""


class ModelLoadError(BackendError):
    pass


class LLMError(BackendError):
    def __init__(self, message: str, *, attempts: int | None = None, last_output: str | None = None):
        super().__init__(message)
        self.attempts, self.last_output = attempts, last_output


class LLMTimeout(LLMError):
    pass


class LLMResponseError(LLMError):
    pass


class StreamInterrupted(LLMError):
    """A streamed answer stopped early: the connection dropped, the server cut it (another request on
    a one-slot server), no finish reason came, or the model hit its token limit.

    What arrived is a fragment, never a shorter complete answer: the checked stream hands it to the
    policy's failure mode for the check named "stream".
    """

    def __init__(self, message: str, *, received: str = "", finish_reason: str | None = None,
                 attempts: int | None = None):
        super().__init__(message, attempts=attempts, last_output=received or None)
        self.received, self.finish_reason = received, finish_reason
