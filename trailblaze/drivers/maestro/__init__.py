"""Maestro commands on the mobile drivers (``mobile_maestro``)."""
