"""A club's upload is signed as a unit's sync is (docs/architecture.md §4): HMAC-SHA256 of the exact body bytes
with the club's secret, hex, in `X-Bidwire-Signature`, and the club's id in `X-Bidwire-Club`."""
import hashlib
import hmac
import secrets

HEADER_CLUB = "X-Bidwire-Club"
HEADER_SIGNATURE = "X-Bidwire-Signature"


def new_secret():
    return secrets.token_bytes(32)


def sign(body: bytes, secret: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def valid(body: bytes, secret: bytes, signature: str) -> bool:
    return hmac.compare_digest(sign(body, secret), signature or "")


def digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()
