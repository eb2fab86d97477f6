"""Built-in plugins. Each is registered by its module name, exactly like an external plugin."""
