"""Brandubh Live: a real-time match service for Brandubh, the 7×7 Irish tafl game."""

__version__ = "0.1.0"
