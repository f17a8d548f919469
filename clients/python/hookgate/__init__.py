"""Hookgate's Python client: the API (`Hookgate`), its errors (`HookgateError`), `verify_webhook` and `verify_webhook_with_jwks`."""

from . import generated as types
from .client import EventPage, Hookgate, HookgateError, RawAnswer
from .generated import API_VERSION
from .verify import DEFAULT_TOLERANCE_SECONDS, verify_webhook, verify_webhook_with_jwks

__all__ = [
    "API_VERSION",
    "DEFAULT_TOLERANCE_SECONDS",
    "EventPage",
    "Hookgate",
    "HookgateError",
    "RawAnswer",
    "types",
    "verify_webhook",
    "verify_webhook_with_jwks",
]
