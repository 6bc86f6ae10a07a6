"""List the pods of this pod's namespace with the official client and
in-cluster config; what an application in a pod does to reach the API.

Prints ``LISTED <n>`` and exits 0, or ``STATUS <code> <reason>`` and the
Status message on an API error and exits 3."""

import json
import sys

from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_incluster_config()
with open("/var/run/secrets/kubernetes.io/serviceaccount/namespace") as f:
    namespace = f.read().strip()
try:
    pods = client.CoreV1Api().list_namespaced_pod(namespace)
except ApiException as exc:
    try:
        message = json.loads(exc.body)["message"]
    except (TypeError, ValueError, KeyError):
        message = str(exc.body)
    print(f"STATUS {exc.status} {exc.reason}")
    print(message)
    sys.stdout.flush()
    sys.exit(3)
print(f"LISTED {len(pods.items)}")
