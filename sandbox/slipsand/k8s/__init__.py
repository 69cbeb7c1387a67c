"""Kubernetes side of the sandbox: one HTTPS API server per EKS cluster."""
