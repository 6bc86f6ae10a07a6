"""The dashboard's views, one module each: nodes, pods, queue, scores, workloads,
events, services; ``split`` holds what the two-table views (workloads, services)
share and ``base`` what every view shares."""
