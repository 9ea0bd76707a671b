"""Running the service: the command line, ``brandubh serve`` under uvicorn, the analysis
worker's process, the embedded Redis and PostgreSQL, building the client, and moving an
old deployment's record out of Redis. Processes and operations, not the domain: nothing
outside this package imports it (tests and benchmarks start what it starts)."""
