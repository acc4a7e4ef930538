"""The kernel's registries: its runs (which run holds a session, which run a request belongs to),
its pending requests (the broker), the page's waiting signal, answers on stdin, the run handle."""
