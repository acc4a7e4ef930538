"""What the kernel knows of the notebook: session names, the context block's facts, how full each
session's context is, the cells' errors and records."""
