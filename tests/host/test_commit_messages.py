"""The commit-message check of `make lint` (tests/commit_messages.py) on made-up history."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from commit_messages import problems  # noqa: E402


def _log(*messages):
    return "".join(f"{i:040x}\x1f{m}\n\x1e" for i, m in enumerate(messages))


def test_a_short_subject_with_a_body_passes():
    assert problems(_log("Fix the thing\n\nBecause it broke.")) == []


def test_a_long_subject_is_named():
    (p,) = problems(_log("x" * 73 + "\n\nwhy"))
    assert "73 characters" in p


def test_a_commit_without_a_body_is_named():
    (p,) = problems(_log("Fix the thing"))
    assert "no body" in p
