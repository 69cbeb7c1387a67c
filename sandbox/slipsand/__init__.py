"""slipsand: the slipway-sandbox package, a local AWS + Kubernetes backend for tests and demos."""
