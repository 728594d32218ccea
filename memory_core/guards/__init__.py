"""The write path's guards: secrets that are never kept and rules that only an operator activates."""
