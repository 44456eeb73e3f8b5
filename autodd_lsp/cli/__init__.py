"""The `autodd` command: a thin shell over the engine."""
