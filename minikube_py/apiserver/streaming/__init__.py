"""Streaming to and from pods: WebSocket channel protocols, SPDY port-forwarding, proxying."""
