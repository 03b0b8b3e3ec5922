"""The Unified Utility API's client: every endpoint as a method, by category.

    from unified_utility_api import Client

    api = Client()  # the key from UUA_API_KEY, or Client(api_key="...")
    video = api.downloaders.dl_d(url="https://www.tiktok.com/@user/video/1")

A failed call raises ApiError (code, status, request_id, retry_after). Standard library only.
"""

import asyncio
import functools
import os
from typing import Any, Optional

from ._endpoints import Endpoints
from ._errors import ApiError
from ._transport import FileInput, MediaAnswer, Transport
from ._version import CONTRACT_VERSION, DEFAULT_BASE_URL

__all__ = ["ApiError", "AsyncClient", "Client", "CONTRACT_VERSION", "DEFAULT_BASE_URL", "FileInput", "MediaAnswer"]
__version__ = CONTRACT_VERSION


class Client(Endpoints):
    """api_key: your key (by default UUA_API_KEY). retry: wait and try again after a 429 or 503 that says
    Retry-After, up to `retries` times and for at most `max_delay` seconds each."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: str = DEFAULT_BASE_URL,
        retry: bool = False,
        retries: int = 2,
        max_delay: float = 60,
        timeout: float = 60,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("UUA_API_KEY")
        self.contract_version = CONTRACT_VERSION
        super().__init__(Transport(key, base_url, retries if retry else 0, max_delay, timeout))


class _Awaitable:
    """One category of a Client whose methods return awaitables: each call runs in the loop's thread pool."""

    def __init__(self, group: Any) -> None:
        self._group = group

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._group, name)

        async def call(**params: Any) -> Any:
            return await asyncio.get_running_loop().run_in_executor(None, functools.partial(method, **params))

        return call


class AsyncClient:
    """Client's endpoints for asyncio code: `await AsyncClient().downloaders.dl_d(url=...)`. Takes Client's
    arguments; each call runs the blocking one in a worker thread, so the event loop is never held."""

    def __init__(self, api_key: Optional[str] = None, **options: Any) -> None:
        self._client = Client(api_key, **options)
        self.contract_version = CONTRACT_VERSION

    def __getattr__(self, name: str) -> Any:
        return _Awaitable(getattr(self._client, name))
