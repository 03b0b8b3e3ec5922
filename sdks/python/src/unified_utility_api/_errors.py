"""The error every failed call raises: the error envelope's code and words, the HTTP status, the request's
id (X-Request-Id, to quote when asking about a call) and, on 429, 503 and 507, Retry-After in seconds."""

import email.utils
import json
import time
from typing import Any, Mapping, Optional


class ApiError(Exception):
    """An answer that is not a 2xx."""

    def __init__(self, message: str, code: str, status: int, request_id: Optional[str], retry_after: Optional[int]) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"ApiError({self.status} {self.code}: {self.message!r}, request_id={self.request_id!r})"


def retry_after_of(headers: Mapping[str, str]) -> Optional[int]:
    """Retry-After in seconds: a number of seconds or an HTTP date."""
    value = headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, int(at - time.time() + 0.999))


def error_of(status: int, headers: Mapping[str, str], body: bytes) -> ApiError:
    text = body.decode("utf-8", "replace")
    envelope: Any = {}
    try:
        envelope = json.loads(text)
    except ValueError:
        pass  # not the error envelope (a proxy's page): the status speaks
    if not isinstance(envelope, dict):
        envelope = {}
    message = envelope.get("error") if isinstance(envelope.get("error"), str) else f"HTTP {status}: {text[:200]}"
    code = envelope.get("code") if isinstance(envelope.get("code"), str) else f"http_{status}"
    return ApiError(message, code, status, headers.get("X-Request-Id"), retry_after_of(headers))
