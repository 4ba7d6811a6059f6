"""A passkey made in software, as a browser's authenticator would answer allauth's challenge: a
real credential to send the passkey pages, and to spoil in the ways a broken or hostile page might."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from allauth.account.utils import user_pk_to_url_str
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from django.contrib.auth.base_user import AbstractBaseUser
from django.test import Client
from fido2.cose import ES256
from fido2.utils import websafe_encode
from fido2.webauthn import AttestationObject, AttestedCredentialData, AuthenticatorData

STATE = "mfa.webauthn.state"  # where allauth keeps the challenge it sent, in the session
ORIGIN = "http://localhost"
RP_ID = "localhost"


class SoftPasskey:
    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0

    def _client_data(self, kind: str, client: Client) -> bytes:
        challenge = client.session[STATE]["challenge"]
        return json.dumps({"type": kind, "challenge": challenge, "origin": ORIGIN}).encode()

    def register(self, client: Client) -> dict[str, Any]:
        """The credential a browser posts to add this passkey, to the challenge in ``client``'s session."""
        flags = AuthenticatorData.FLAG.UP | AuthenticatorData.FLAG.UV | AuthenticatorData.FLAG.AT
        credential = AttestedCredentialData.create(
            b"\0" * 16, self.credential_id, ES256.from_cryptography_key(self.key.public_key())
        )
        data = AuthenticatorData.create(hashlib.sha256(RP_ID.encode()).digest(), flags, 0, credential)
        attestation = AttestationObject.create("none", data, {})
        raw_id = websafe_encode(self.credential_id)
        return {
            "id": raw_id,
            "rawId": raw_id,
            "type": "public-key",
            "response": {
                "clientDataJSON": websafe_encode(self._client_data("webauthn.create", client)),
                "attestationObject": websafe_encode(bytes(attestation)),
            },
            "clientExtensionResults": {"credProps": {"rk": True}},
        }

    def assertion(self, client: Client, user: AbstractBaseUser) -> dict[str, Any]:
        """The credential a browser posts to sign in or confirm with this passkey."""
        self.counter += 1
        flags = AuthenticatorData.FLAG.UP | AuthenticatorData.FLAG.UV
        data = bytes(AuthenticatorData.create(hashlib.sha256(RP_ID.encode()).digest(), flags, self.counter))
        client_data = self._client_data("webauthn.get", client)
        signature = self.key.sign(data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        raw_id = websafe_encode(self.credential_id)
        return {
            "id": raw_id,
            "rawId": raw_id,
            "type": "public-key",
            "response": {
                "clientDataJSON": websafe_encode(client_data),
                "authenticatorData": websafe_encode(data),
                "signature": websafe_encode(signature),
                "userHandle": websafe_encode(user_pk_to_url_str(user).encode()),
            },
            "clientExtensionResults": {},
        }
