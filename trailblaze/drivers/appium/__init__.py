"""Phones through Appium: the ``appium`` driver, for device clouds (BrowserStack, Sauce Labs,
LambdaTest, AWS Device Farm), Selenium Grid 4 and a local Appium server, on Appium-Python-Client."""
