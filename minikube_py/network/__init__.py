"""The pod network and what rides on it: the Service data plane and cluster DNS.

* :mod:`.dns` - the cluster DNS server (records from Services, EndpointSlices
  and Pods; other names forwarded to the host's resolvers);
* :mod:`.proxy` - the Service data plane in the kernel (nftables rules built
  from Services and EndpointSlices, applied as one transaction per sync);
* the per-cluster Podman network the pods live on.

Layering: beside the runtime; imports :mod:`minikube_py.api` and
:mod:`minikube_py.client` only. Loops here learn about the cluster through
informers, as kube-proxy and CoreDNS do.
"""
