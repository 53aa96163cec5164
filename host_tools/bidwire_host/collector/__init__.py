"""The collector: the host service the table units sync with (docs/architecture.md §4-§5, docs/collector.md)."""
