"""Android through uiautomator2 and adbutils: the ``android-uiautomator2`` driver."""
