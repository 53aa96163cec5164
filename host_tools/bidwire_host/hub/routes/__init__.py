"""The hub's routes, by who calls them: the organiser (organiser.py), the clubs (clubs.py), anyone (public.py:
the API a club collector and a results site read, and the pages)."""
