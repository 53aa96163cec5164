"""The one signature of bidwire's signed bodies (docs/architecture.md §4, docs/hub.md): a unit's sync, a club's
upload to the hub and `bidwire verify`'s check are all HMAC-SHA256 of the exact body bytes with the sender's secret,
hex, in `X-Bidwire-Signature`; a club's upload names its club in `X-Bidwire-Club`."""
import hashlib
import hmac
import secrets

HEADER_CLUB = "X-Bidwire-Club"
HEADER_SIGNATURE = "X-Bidwire-Signature"


def new_secret():
    return secrets.token_bytes(32)


def sign(body: bytes, secret: bytes) -> str:
    """The signature of `body` with `secret`: hex HMAC-SHA256."""
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def valid(body: bytes, secret: bytes, signature) -> bool:
    """Whether `signature` (a header's text: case and surrounding blanks do not matter; any other character makes it
    wrong, never an error) is `body`'s with `secret`, compared in constant time."""
    given = (signature or "").strip().lower().encode("latin-1", "replace")
    return hmac.compare_digest(sign(body, secret).encode(), given)


def digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()
