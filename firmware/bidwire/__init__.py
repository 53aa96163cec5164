"""bidwire firmware: the Laws core (pure) and the table-unit app."""
