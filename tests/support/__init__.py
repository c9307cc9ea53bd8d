"""What the suite shares: one of each helper (waiting, environments, the CLI in a fresh
interpreter, a local HTTP server, environment requirements) and the layer-mutant plugin."""
