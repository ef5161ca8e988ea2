"""A real HTTP server on 127.0.0.1 that speaks the chat-completions wire format.

The requested model name picks the behaviour, so one server covers every case:
``ok``, ``json``, ``slow``, ``500``, ``429``, ``flaky`` (500 then ok), ``malformed``
(JSON of the wrong shape), ``nonjson`` (an HTML body), ``refusal``, ``empty``; and
``script``: the server's ``responder`` answers from the last message (the journeys' scripted LLM).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import serving


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, responder: Callable[[str], str] | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.calls: dict[str, int] = {}
        self.responder = responder
        """For the ``script`` model: the answer to a request, from its last message's text."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (the timeout test) is expected; keep the output clean."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def _completion(content: str | None, *, refusal: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "loopback-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        payload = json.loads(self.rfile.read(length))
        self.server.requests.append(payload)
        if self.path.endswith("/embeddings"):
            return self._embeddings(payload)
        if self.path.endswith("/messages"):
            return self._anthropic(payload)
        model = payload.get("model", "ok")
        count = self.server.calls[model] = self.server.calls.get(model, 0) + 1
        if model == "slow":
            time.sleep(1.5)
        if model == "500" or (model == "flaky" and count == 1):
            return self._send(500, b'{"error": {"message": "boom"}}')
        if model == "429":
            return self._send(429, b'{"error": {"message": "slow down"}}')
        if model == "400":
            return self._send(400, b'{"error": {"message": "bad model"}}')
        if model == "nonjson":
            return self._send(200, b"<html>gateway says hi</html>", "text/html")
        if model == "malformed":
            return self._send(200, b'{"unexpected": true}')
        if model == "refusal":
            return self._send(200, json.dumps(_completion(None, refusal="I can't help")).encode())
        if model == "empty":
            return self._send(200, json.dumps(_completion("   ")).encode())
        user = payload["messages"][-1]["content"]
        if model == "script" and self.server.responder is not None:
            return self._send(200, json.dumps(_completion(self.server.responder(user))).encode())
        text = '```json\n{"success": 0.9, "confidence": 0.7}\n```' if model == "json" else f"echo: {user}"
        self._send(200, json.dumps(_completion(text)).encode())

    def _embeddings(self, payload: dict[str, Any]) -> None:
        if payload["model"] == "500":
            return self._send(500, b'{"error": {"message": "boom"}}')
        self._send(200, _embeddings_body(payload))

    def _anthropic(self, payload: dict[str, Any]) -> None:
        if payload["model"] == "529":
            return self._send(529, b'{"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}')
        self._send(200, _anthropic_body(payload))


def _embeddings_body(payload: dict[str, Any]) -> bytes:
    texts = payload["input"]
    # returned out of order on purpose: clients must sort by index
    data = [
        {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0, float(i)]}
        for i, t in reversed(list(enumerate(texts)))
    ]
    return json.dumps({"object": "list", "data": data, "model": payload["model"], "usage": {}}).encode()


def _anthropic_body(payload: dict[str, Any]) -> bytes:
    user = payload["messages"][-1]["content"]
    return json.dumps(
        {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": payload["model"],
            "content": [{"type": "text", "text": f"claude: {user}"}],
            "stop_reason": "refusal" if payload["model"] == "refusal" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 3},
        }
    ).encode()


def running_chat_server(responder: Callable[[str], str] | None = None) -> AbstractContextManager[ChatServer]:
    return serving(ChatServer(responder))
