"""What the Android and iOS drivers share: a hierarchy-polling device and upstream's mobile tools."""
