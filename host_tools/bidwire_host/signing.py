"""The one signature of bidwire's signed bodies (docs/architecture.md §4, docs/hub.md): a unit's sync, a club's
upload to the hub and `bidwire verify`'s check are all HMAC-SHA256 of the exact body bytes with the sender's secret,
hex, in `X-Bidwire-Signature`; a club's upload names its club in `X-Bidwire-Club`. A USEBIO heat, whose file says
nothing of the sim, the section or its place among the club's uploads, is signed with those before its bytes
(`heat_message`), its number in `X-Bidwire-Upload`: a file cannot be sent again later, nor as another section."""
import hashlib
import hmac
import secrets

HEADER_CLUB = "X-Bidwire-Club"
HEADER_SIGNATURE = "X-Bidwire-Signature"
HEADER_UPLOAD = "X-Bidwire-Upload"


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


def heat_message(sim: str, session: str | None, section: str | None, number: int, body: bytes) -> bytes:
    """What a USEBIO heat's signature covers: the sim, the session and the section the query names ("" for none:
    a sim of one session; the file's own section), the upload's number, then the file's bytes."""
    return f"bidwire usebio heat\n{sim}\n{session or ''}\n{section or ''}\n{number}\n".encode() + body


def digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()
