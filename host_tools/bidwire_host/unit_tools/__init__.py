"""Tools for the table units: provision, compile, flash and deploy, and the virtual unit."""
