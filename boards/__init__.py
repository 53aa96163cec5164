"""Board modules: each builds the HAL for one kind of hardware (see docs/hardware.md)."""
