"""HMAC-SHA256 of sync bodies (docs/architecture.md §4 "X-Bidwire-Signature"): the RFC 4231 test vectors.

Cases 1-4, 6 and 7 of RFC 4231 §4 (case 5 is a truncated MAC, which the protocol does not use); 6 and 7 have a
131-byte key, longer than SHA-256's 64-byte block, so the key is hashed first. CPython's hmac module as an
oracle for random inputs: tests/host/test_hmac_cpython.py.
"""
from binascii import unhexlify

from cases import cases

from bidwire.unit import hmac256

RFC4231 = [
    {"id": "1", "key": b"\x0b" * 20, "data": b"Hi There",
     "mac": "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
    {"id": "2-key-shorter-than-mac", "key": b"Jefe", "data": b"what do ya want for nothing?",
     "mac": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
    {"id": "3", "key": b"\xaa" * 20, "data": b"\xdd" * 50,
     "mac": "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
    {"id": "4", "key": bytes(range(1, 26)), "data": b"\xcd" * 50,
     "mac": "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
    {"id": "6-key-longer-than-block", "key": b"\xaa" * 131,
     "data": b"Test Using Larger Than Block-Size Key - Hash Key First",
     "mac": "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
    {"id": "7-key-and-data-longer-than-block", "key": b"\xaa" * 131,
     "data": b"This is a test using a larger than block-size key and a larger than block-size data."
             b" The key needs to be hashed before being used by the HMAC algorithm.",
     "mac": "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
]


@cases(RFC4231)
def test_rfc4231_vectors(case):
    assert hmac256.Signer(case["key"]).hex(case["data"]) == case["mac"]
    assert hmac256.Signer(case["key"]).digest(case["data"]) == unhexlify(case["mac"])


def test_one_signer_signs_many_messages_as_fresh_hmacs_do():
    key = b"\x5a" * 32
    signer = hmac256.Signer(key)
    bodies = [b"", b"{}", b'{"unit": "T01", "boot": 1, "events": [], "cmd_ack": 0}', bytes(range(256)) * 5]
    for body in bodies:
        assert signer.hex(body) == hmac256.Signer(key).hex(body)
    assert signer.hex(bodies[2]) == hmac256.Signer(key).hex(bodies[2])  # signing leaves no state behind
    assert signer.hex(bytearray(bodies[2])) == signer.hex(bodies[2])


def test_key_of_exactly_one_block_is_used_as_is_and_longer_differs():
    assert hmac256.Signer(b"k" * 64).hex(b"m") != hmac256.Signer(b"k" * 65).hex(b"m")
    assert hmac256.Signer(b"k" * 64).hex(b"m") != hmac256.Signer(b"k" * 63).hex(b"m")


def test_signature_is_64_lowercase_hex_digits():
    mac = hmac256.Signer(b"secret").hex(b"body")
    assert len(mac) == 64 and all(ch in "0123456789abcdef" for ch in mac)


def test_key_given_as_text_is_refused_with_a_hint():
    try:
        hmac256.Signer("00112233")  # type: ignore[arg-type]  # the config's hex text, not unhexlified
    except TypeError as e:
        assert "unhexlify" in str(e)
    else:
        raise AssertionError("a str key must be refused")
