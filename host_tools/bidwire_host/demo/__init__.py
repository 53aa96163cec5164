"""`make demo`: a club session with no hardware (club.py) and its scripted players (play.py)."""
