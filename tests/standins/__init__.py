"""Wire-level stand-ins for what cannot exist on this machine: an adb server, an Android phone
(adbd and uiautomator2's on-device server) and WebDriverAgent. The real client libraries talk
to them unchanged. Test scaffolding, not product code."""
