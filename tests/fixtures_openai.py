"""Placeholder: the scripted OpenAI-protocol server fixture lands here."""
