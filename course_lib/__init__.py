"""The tool-call boundary: the course library."""
