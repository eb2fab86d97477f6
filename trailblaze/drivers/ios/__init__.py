"""iOS through facebook-wda and WebDriverAgent: the ``ios-wda`` driver."""
