"""How every call goes out, on the standard library alone (urllib): the key in the X-API-Key header,
parameters in the query string or a JSON or multipart body, a wait and another try after a 429 or 503 when
retries are asked for, and an ApiError for an answer that is not a 2xx."""

import io
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional, Tuple, Union

from ._errors import error_of, retry_after_of
from ._version import CONTRACT_VERSION

# A file to upload: its bytes, an open binary file, or a path.
FileInput = Union[bytes, BinaryIO, "os.PathLike[str]"]

USER_AGENT = f"unified-utility-api-python/{CONTRACT_VERSION}"


class MediaAnswer:
    """Raw media: `stream` is the answer, read as it arrives (read(), iteration, or save())."""

    def __init__(self, response: Any) -> None:
        self.stream = response
        self.content_type: str = response.headers.get("Content-Type", "")
        length = response.headers.get("Content-Length")
        self.content_length: Optional[int] = int(length) if length is not None else None
        self.request_id: Optional[str] = response.headers.get("X-Request-Id")

    def read(self, size: int = -1) -> bytes:
        return self.stream.read(size)

    def __iter__(self) -> Iterator[bytes]:
        while True:
            chunk = self.stream.read(65536)
            if not chunk:
                return
            yield chunk

    def save(self, path: Union[str, "os.PathLike[str]"]) -> int:
        """Writes the bytes to `path` as they arrive; returns how many."""
        written = 0
        with open(path, "wb") as out:
            for chunk in self:
                out.write(chunk)
                written += len(chunk)
        self.close()
        return written

    def close(self) -> None:
        self.stream.close()

    def __enter__(self) -> "MediaAnswer":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


def _is_file(value: Any) -> bool:
    return isinstance(value, (bytes, bytearray, os.PathLike)) or hasattr(value, "read")


def _file_part(value: Any, name: str) -> Tuple[str, bytes]:
    if isinstance(value, (bytes, bytearray)):
        return name, bytes(value)
    if isinstance(value, os.PathLike):
        with open(value, "rb") as f:
            return os.path.basename(os.fspath(value)), f.read()
    return os.path.basename(getattr(value, "name", name)) or name, value.read()


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _multipart(fields: Dict[str, Any]) -> Tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f"--{boundary}\r\n".encode())
        if _is_file(value):
            filename, data = _file_part(value, name)
            quoted = filename.replace('"', "%22")
            out.write(f'Content-Disposition: form-data; name="{name}"; filename="{quoted}"\r\n'.encode())
            out.write(b"Content-Type: application/octet-stream\r\n\r\n")
            out.write(data)
        else:
            out.write(f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
            out.write(_text(value).encode())
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


class Transport:
    def __init__(
        self,
        api_key: Optional[str],
        base_url: str,
        retries: int,
        max_delay: float,
        timeout: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.retries = retries
        self.max_delay = max_delay
        self.timeout = timeout
        self.sleep = sleep

    def _request(self, method: str, path: str, params: Dict[str, Any], body_type: Optional[str], path_names: Tuple[str, ...], accept: str) -> urllib.request.Request:
        given = {k: v for k, v in params.items() if v is not None}
        for name in path_names:
            path = path.replace("{" + name + "}", urllib.parse.quote(_text(given.pop(name)), safe=""))
        headers = {"Accept": accept, "User-Agent": USER_AGENT}
        if self.api_key:
            headers["X-API-Key"] = self.api_key
        url = self.base_url + path
        data: Optional[bytes] = None
        if body_type is None:
            pairs: List[Tuple[str, str]] = []
            for k, v in given.items():
                pairs.extend((k, _text(x)) for x in (v if isinstance(v, list) else [v]))
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        elif body_type == "multipart/form-data" or any(_is_file(v) for v in given.values()):
            data, headers["Content-Type"] = _multipart(given)
        else:
            data = json.dumps(given).encode()
            headers["Content-Type"] = "application/json"
        return urllib.request.Request(url, data=data, headers=headers, method=method)

    def _send(self, request: urllib.request.Request) -> Any:
        attempt = 0
        while True:
            try:
                return urllib.request.urlopen(request, timeout=self.timeout)
            except urllib.error.HTTPError as e:
                body = e.read()
                e.close()
                wait = retry_after_of(e.headers)
                if e.code in (429, 503) and attempt < self.retries and wait is not None and wait <= self.max_delay:
                    attempt += 1
                    self.sleep(wait)
                    continue
                raise error_of(e.code, e.headers, body) from None

    def call(self, method: str, path: str, params: Dict[str, Any], body_type: Optional[str], path_names: Tuple[str, ...]) -> Dict[str, Any]:
        with self._send(self._request(method, path, params, body_type, path_names, "application/json")) as res:
            return json.loads(res.read())

    def media(self, method: str, path: str, params: Dict[str, Any], body_type: Optional[str], path_names: Tuple[str, ...], accept: str) -> MediaAnswer:
        return MediaAnswer(self._send(self._request(method, path, params, body_type, path_names, accept)))
