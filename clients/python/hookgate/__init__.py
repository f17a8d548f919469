"""Hookgate's Python client: the API (`Hookgate`), its errors (`HookgateError`) and `verify_webhook`."""

from . import generated as types
from .client import EventPage, Hookgate, HookgateError, RawAnswer
from .generated import API_VERSION
from .verify import DEFAULT_TOLERANCE_SECONDS, verify_webhook

__all__ = [
    "API_VERSION",
    "DEFAULT_TOLERANCE_SECONDS",
    "EventPage",
    "Hookgate",
    "HookgateError",
    "RawAnswer",
    "types",
    "verify_webhook",
]
