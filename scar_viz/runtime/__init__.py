"""Stage 0, the process every stage runs in: devices and precision, the endpoints and models a
visitor may reach, BLAS threads, measured speeds, cancellation, a session's byte budget
and the SQLite file under every disk cache."""
