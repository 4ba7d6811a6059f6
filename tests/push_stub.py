"""A push service stubbed on 127.0.0.1, and a browser's side of a Web Push subscription.

``PushService`` records every request (method, path, headers, body) and answers 201 (or the
status set in ``answer``, or in ``answers`` for a path). ``Subscriber`` holds what a browser keeps: a P-256 key pair and
an auth secret; ``subscription`` is what ``PushSubscription.toJSON()`` gives the server,
and ``open`` decrypts a request's body (RFC 8291, aes128gcm) as the browser would.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Pushed:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    requests: list[Pushed] = field(default_factory=list)
    answer: int = 201
    answers: dict[str, int] = field(default_factory=dict)
    server: ThreadingHTTPServer | None = None

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                service.requests.append(Pushed(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(service.answers.get(self.path, service.answer))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


@dataclass
class Subscriber:
    """A browser's push keys: what it gives the server, and what it decrypts with."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }

    def open(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        data: dict[str, Any] = json.loads(plain)
        return data


def vapid_claims(authorization: str, public_key: str) -> dict[str, Any]:
    """The claims of a ``vapid t=<JWT>, k=<key>`` header, after checking its ES256 signature with ``public_key``."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert parts["k"] == public_key, "the header names another key"
    head, claims, signature = parts["t"].split(".")
    raw = unb64url(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    key.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    assert json.loads(unb64url(head))["alg"] == "ES256"
    data: dict[str, Any] = json.loads(unb64url(claims))
    return data
