"""The event: its file, its movements, its players, its hand records and their analysis."""
