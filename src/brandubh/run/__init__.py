"""Running the service: the command line, ``brandubh serve`` under uvicorn, the analysis
worker's process, the embedded Redis and PostgreSQL, building the client, and moving an
old deployment's record out of Redis. Processes and operations, not the domain: outside
this package only the hub's bot processes use it (``pools``: processes that end with their
parent), and ``python -m brandubh`` its command line (tests and benchmarks start what it starts)."""

from brandubh.run.pools import end_with_parent, sigint_held_back, worker_pool

__all__ = ["end_with_parent", "sigint_held_back", "worker_pool"]
