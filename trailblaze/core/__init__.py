"""The base: errors, limits, reading and writing files, the register pattern, processes.

Nothing here imports from the rest of trailblaze."""
