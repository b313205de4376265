"""The helpers the tests and the benchmarks share, one named package: a live server and its
waits (``live_app``), what a test does on a page (``browser_actions``), small models built on
the spot (``tiny_models``), the benchmarks' ``--smoke`` mode (``bench_smoke``), the websocket
frame clock (``frames``) and the synthetic corpus (``synthetic_corpus``). Importable as
``scripts.NAME`` from any folder once scripts/bootstrap.sh has installed the checkout editable
(docs/architecture.md, "How the app is packaged"); never shipped in the wheel."""
