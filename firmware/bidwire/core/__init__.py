"""The core: calls, boards, the auction engine and Law 77 scoring. Pure logic, no I/O; runs on CPython too."""
