"""The Python SDK, with the standard library only. The examples and the wrong key are sent to the server
named by UUA_TEST_BASE_URL (tests/sdks/python.test.ts starts the embedded one with every upstream faked and
writes each documented example request to UUA_TEST_EXAMPLES); the retry and the raw media run against small
servers of this file."""

import hashlib
import json
import os
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import asyncio

from unified_utility_api import ApiError, AsyncClient, Client, CONTRACT_VERSION

BASE_URL = os.environ.get("UUA_TEST_BASE_URL")
KEY = os.environ.get("UUA_TEST_KEY")
EXAMPLES = os.environ.get("UUA_TEST_EXAMPLES")


class FakeServer:
    """A server on 127.0.0.1 answering with `answer(handler, count)`; it records when each request came."""

    def __init__(self, answer):
        self.at = []
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                outer.at.append(time.monotonic())
                length = int(self.headers.get("Content-Length") or 0)
                outer.requests.append((self.command, self.path, self.headers, self.rfile.read(length)))
                answer(self, len(outer.at))

            do_GET = _any
            do_POST = _any

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def send(handler, status, body, content_type="application/json", headers=None):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


ENVELOPE = json.dumps({"success": True, "creator": "x", "source": "embedded", "data": {"cards": ["4571730000000000"]}, "metadata": {}}).encode()
THROTTLED = json.dumps({"success": False, "error": "Rate limit exceeded. Try again later.", "code": "rate_limited"}).encode()


def throttled_once(handler, count):
    if count == 1:
        send(handler, 429, THROTTLED, headers={"Retry-After": "1", "X-Request-Id": "throttled-1"})
    else:
        send(handler, 200, ENVELOPE)


class Retry(unittest.TestCase):
    def test_a_429_with_retry_after_1_is_waited_out_and_tried_again_once(self):
        fake = FakeServer(throttled_once)
        try:
            answer = Client("k", base_url=fake.url, retry=True).tools.ccgen(bin="457173")
            self.assertTrue(answer["success"])
            self.assertEqual(len(fake.at), 2)
            self.assertGreaterEqual(fake.at[1] - fake.at[0], 0.95)
            self.assertLess(fake.at[1] - fake.at[0], 3)
        finally:
            fake.close()

    def test_without_retries_the_429_is_raised_with_its_retry_after(self):
        fake = FakeServer(throttled_once)
        try:
            with self.assertRaises(ApiError) as caught:
                Client("k", base_url=fake.url).tools.ccgen(bin="457173")
            e = caught.exception
            self.assertEqual((e.status, e.code, e.retry_after, e.request_id), (429, "rate_limited", 1, "throttled-1"))
            self.assertEqual(len(fake.at), 1)
        finally:
            fake.close()


class Requests(unittest.TestCase):
    def test_parameters_go_where_the_operation_takes_them(self):
        fake = FakeServer(lambda h, n: send(h, 200, ENVELOPE))
        try:
            api = Client("the-key", base_url=fake.url)
            api.downloaders.dl_d(url="https://www.tiktok.com/@a/video/1", for_="telegram", max_bytes=5)
            api.cloud_storage.paste_host(paste="echo hi", private=1)
            api.cloud_storage.file_host(file=b"\x00\x01bytes")
            (m1, p1, h1, _), (m2, p2, h2, b2), (m3, _, h3, b3) = fake.requests
            self.assertEqual((m1, p1), ("GET", "/api/v1/downloaders/dl-d?url=https%3A%2F%2Fwww.tiktok.com%2F%40a%2Fvideo%2F1&maxBytes=5&for=telegram"))
            self.assertEqual(h1["X-API-Key"], "the-key")
            self.assertEqual((m2, p2, h2["Content-Type"]), ("POST", "/api/v1/cloud-storage/paste-host", "application/json"))
            self.assertEqual(json.loads(b2), {"paste": "echo hi", "private": 1})
            self.assertTrue(h3["Content-Type"].startswith("multipart/form-data; boundary="))
            self.assertIn(b'name="file"; filename="file"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01bytes\r\n', b3)
        finally:
            fake.close()

    def test_the_key_is_uua_api_key_when_none_is_given(self):
        fake = FakeServer(lambda h, n: send(h, 200, ENVELOPE))
        before = os.environ.get("UUA_API_KEY")
        os.environ["UUA_API_KEY"] = "from-the-environment"
        try:
            Client(base_url=fake.url).tools.ccgen(bin="457173")
            self.assertEqual(fake.requests[0][2]["X-API-Key"], "from-the-environment")
        finally:
            if before is None:
                del os.environ["UUA_API_KEY"]
            else:
                os.environ["UUA_API_KEY"] = before
            fake.close()


class Async(unittest.TestCase):
    def test_calls_are_awaitable_and_run_side_by_side(self):
        def slow(handler, count):
            time.sleep(1)
            send(handler, 200, ENVELOPE)

        fake = FakeServer(slow)
        try:
            api = AsyncClient("k", base_url=fake.url)

            async def both():
                return await asyncio.gather(api.tools.ccgen(bin="457173"), api.tools.ccgen(bin="457174"))

            answers = asyncio.run(both())
            self.assertEqual([a["success"] for a in answers], [True, True])
            # The second arrived while the first was still being answered.
            self.assertLess(fake.at[1] - fake.at[0], 0.9)
            self.assertEqual(sorted(r[1] for r in fake.requests), ["/api/v1/tools/ccgen?bin=457173", "/api/v1/tools/ccgen?bin=457174"])
        finally:
            fake.close()


class Media(unittest.TestCase):
    def test_raw_media_is_a_stream_saved_byte_for_byte(self):
        data = os.urandom(3 * 1024 * 1024)
        fake = FakeServer(lambda h, n: send(h, 200, data, content_type="audio/mpeg", headers={"X-Request-Id": h.headers["Accept"]}))
        try:
            media = Client("k", base_url=fake.url).tts.generate_media(text="Hello world")
            self.assertEqual((media.content_type, media.content_length, media.request_id), ("audio/mpeg", len(data), "audio/mpeg"))
            with tempfile.TemporaryDirectory() as scratch:
                path = os.path.join(scratch, "hello.mp3")
                self.assertEqual(media.save(path), len(data))
                with open(path, "rb") as f:
                    self.assertEqual(hashlib.sha256(f.read()).digest(), hashlib.sha256(data).digest())
        finally:
            fake.close()


@unittest.skipUnless(BASE_URL and KEY and EXAMPLES, "UUA_TEST_BASE_URL, UUA_TEST_KEY and UUA_TEST_EXAMPLES name the embedded server")
class AgainstTheServer(unittest.TestCase):
    def test_every_documented_example_request(self):
        with open(EXAMPLES, encoding="utf-8") as f:
            examples = json.load(f)
        self.assertGreaterEqual(len(examples), 80)
        api = Client(KEY, base_url=BASE_URL)
        for e in examples:
            with self.subTest(e["name"]):
                params = dict(e["params"])
                for name in e["files"]:
                    params[name] = str(params[name]).encode()
                method = getattr(getattr(api, e["group"]), e["method"])
                answer = method(**params)
                self.assertIs(answer["success"], True)
                self.assertIsInstance(answer["metadata"]["requestId"], str)

    def test_a_wrong_key_raises_the_typed_401_with_the_request_id(self):
        with self.assertRaises(ApiError) as caught:
            Client("no-such-key", base_url=BASE_URL).tools.ccgen(bin="457173")
        e = caught.exception
        self.assertEqual((e.status, e.code, e.message), (401, "invalid_key", "Invalid apikey"))
        self.assertRegex(e.request_id, r"^[0-9a-f-]{36}$")

    def test_the_server_raw_media_arrives_as_announced(self):
        with Client(KEY, base_url=BASE_URL).tts.generate_media(text="Hello world") as media:
            data = media.read()
        self.assertEqual(media.content_type, "audio/mpeg")
        self.assertEqual(len(data), media.content_length)
        self.assertTrue(data[:3] == b"ID3" or (data[0] == 0xFF and data[1] & 0xE0 == 0xE0))

    def test_the_contract_version_is_the_server_s(self):
        import urllib.request

        with urllib.request.urlopen(urllib.request.Request(BASE_URL + "/api/v1/tools/ccgen?bin=457173", headers={"X-API-Key": KEY})) as res:
            self.assertEqual(res.headers["API-Version"], CONTRACT_VERSION)


if __name__ == "__main__":
    unittest.main()
