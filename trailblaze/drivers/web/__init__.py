"""The web driver (Playwright) and its tools. Playwright is imported only when a browser starts."""
