"""The table unit: the application on top of the core (journal, screens, sync)."""
