"""The live objects hooks receive: the session, the driver and device, agents, results."""
