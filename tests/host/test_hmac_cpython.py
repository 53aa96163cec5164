"""The firmware's HMAC-SHA256 (bidwire.unit.hmac256) equals CPython's hmac module for any key and message, so a
unit's X-Bidwire-Signature verifies on the collector (docs/architecture.md §4). RFC 4231 vectors: tests/core."""
import hashlib
import hmac

from hypothesis import given
from hypothesis import strategies as st

from bidwire.unit import hmac256

# Keys around the 64-byte block size matter most: shorter ones are padded, longer ones hashed first.
keys = st.one_of(st.binary(max_size=200), st.binary(min_size=63, max_size=66))
messages = st.binary(max_size=3000)


@given(keys, messages)
def test_same_mac_as_cpython_hmac(key, msg):
    expected = hmac.new(key, msg, hashlib.sha256)
    assert hmac256.Signer(key).digest(msg) == expected.digest()
    assert hmac256.Signer(key).hex(msg) == expected.hexdigest()


@given(keys, st.lists(messages, min_size=1, max_size=5))
def test_a_reused_signer_matches_cpython_for_every_message(key, msgs):
    signer = hmac256.Signer(bytearray(key))
    for msg in msgs:
        assert signer.hex(msg) == hmac.new(key, msg, hashlib.sha256).hexdigest()

