"""Tools: the model, authoring (``@tool``), the registry and delegation."""
