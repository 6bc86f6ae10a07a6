"""The dashboard's views, one module each: nodes, pods, queue, scores, workloads, events."""
