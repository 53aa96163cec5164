"""What the collector's and the hub's web apps share: the one error shape (errors.py) and the one body limit
(body_limit.py)."""
