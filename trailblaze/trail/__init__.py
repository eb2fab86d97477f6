"""Trail files: the model, the loader for both formats, discovery."""
