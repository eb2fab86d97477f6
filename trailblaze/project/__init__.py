"""What is on disk: trailblaze.yaml, workspaces and trailmaps, toolsets, the schema."""
