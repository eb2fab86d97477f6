"""What tools and drivers share: the device commands, the screen model, selectors, masking."""
