"""The built-in drivers: web (Playwright), android (uiautomator2), ios (WebDriverAgent),
mobile (what both phones share) and maestro (upstream's Maestro commands)."""
