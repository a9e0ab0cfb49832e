"""Helpers for the HTTP tests: drive an ASGI app directly, with a client that can leave."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import attrs


@attrs.frozen
class Digest:
    """A report digest as the HTTP layer reads it (fake facades return it)."""

    scheme: str
    report_sha256: str


@attrs.frozen
class Report:
    """A report as the HTTP layer reads it: its project and digest."""

    project_id: str
    digest: Digest


@attrs.define
class Answer:
    """What the app sent back."""

    status: int = 0
    headers: dict[str, str] = attrs.Factory(dict)
    body: bytes = b""
    chunks: list[bytes] = attrs.Factory(list)


class Client:
    """One request over ASGI whose client disconnects when ``leave`` is set.

    Until then ``receive`` hands out the body, then waits; once ``leave`` is
    set it answers ``http.disconnect`` (what a server does when the peer closes).
    """

    def __init__(
        self,
        method: str,
        path: str,
        *,
        headers: Sequence[tuple[str, str]] = (),
        body: bytes | Sequence[bytes] = b"",
        query: str = "",
        complete: bool = True,
    ) -> None:
        self.scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query.encode(),
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers],
            "client": ("127.0.0.1", 4242),
            "server": ("127.0.0.1", 80),
            "state": {},
        }
        self.parts = [body] if isinstance(body, bytes) else list(body)
        self.complete = complete
        self.leave = asyncio.Event()
        self.answer = Answer()
        self.started = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        if self.parts:
            part = self.parts.pop(0)
            more = bool(self.parts) or not self.complete
            return {"type": "http.request", "body": part, "more_body": more}
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.answer.status = message["status"]
            self.answer.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            self.started.set()
        elif message["type"] == "http.response.body":
            self.answer.chunks.append(message.get("body", b""))
            self.answer.body += message.get("body", b"")

    async def __call__(self, app: Any) -> Answer:
        await app(self.scope, self.receive, self.send)
        return self.answer
