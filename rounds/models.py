"""The rounds' models."""
