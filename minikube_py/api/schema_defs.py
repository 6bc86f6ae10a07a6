"""The field schema of every kind minikube-py serves, as Kubernetes v1.32 defines it.

Written from ``k8s.io/api/core/v1/types.go`` and ``k8s.io/api/apps/v1/types.go``:
field names, JSON types, integer widths, and the ``patchStrategy`` /
``patchMergeKey`` tags that strategic merge patch relies on. Volume sources we
never act on (nfs, csi, ...) are accepted as free-form objects so manifests that
use them still decode; everything we do act on is described field by field.

:data:`ROOTS` maps a kind to the schema of a whole object of that kind.
"""

from __future__ import annotations

from .schema_model import (
    Schema,
    any_value,
    boolean,
    extend,
    free_form,
    int32,
    int64,
    int_or_string,
    list_of,
    map_of,
    obj,
    quantity,
    ref,
    string,
    time,
)

_CORE = "io.k8s.api.core.v1."
_APPS = "io.k8s.api.apps.v1."
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."


def _strings(description: str = "") -> Schema:
    return list_of(string(), description)


def _labels(description: str) -> Schema:
    return map_of(string(), description)


def _resources(description: str) -> Schema:
    return map_of(quantity(), description)


# ------------------------------------------------------------------------- meta

OWNER_REFERENCE = obj(_META + "OwnerReference", {
    "apiVersion": string("API version of the referent."),
    "kind": string("Kind of the referent."),
    "name": string("Name of the referent."),
    "uid": string("UID of the referent."),
    "controller": boolean("If true, this reference points to the managing controller."),
    "blockOwnerDeletion": boolean("If true, the owner cannot be deleted before this object."),
}, "Identifies an owning object.", required=("apiVersion", "kind", "name", "uid"))

OBJECT_META = obj(_META + "ObjectMeta", {
    "name": string("Name, unique within a namespace."),
    "generateName": string("Prefix used to generate a unique name when name is empty."),
    "namespace": string("Namespace the object lives in."),
    "selfLink": string("Deprecated; not set by the server."),
    "uid": string("Unique identifier set by the server."),
    "resourceVersion": string("Opaque version used for optimistic concurrency."),
    "generation": int64("Sequence number of the desired state."),
    "creationTimestamp": time("When the object was created."),
    "deletionTimestamp": time("When the object will be deleted; set by the server."),
    "deletionGracePeriodSeconds": int64("Seconds allowed for graceful termination."),
    "labels": _labels("Labels used to organise and select objects."),
    "annotations": _labels("Arbitrary non-identifying metadata."),
    "ownerReferences": list_of(
        OWNER_REFERENCE, "Objects this object depends on.", merge_key="uid", strategy="merge"),
    "finalizers": list_of(
        string(), "Must be empty before the object is deleted.", strategy="merge",
        list_type="set"),
    "managedFields": list_of(free_form(), "Field ownership for server-side apply."),
}, "Standard object metadata.")

LIST_META = obj(_META + "ListMeta", {
    "selfLink": string("Deprecated."),
    "resourceVersion": string("Version of the list."),
    "continue": string("Token for the next chunk."),
    "remainingItemCount": int64("Items remaining after this chunk."),
}, "Standard list metadata.")

LABEL_SELECTOR_REQUIREMENT = obj(_META + "LabelSelectorRequirement", {
    "key": string("The label key the selector applies to."),
    "operator": string("In, NotIn, Exists or DoesNotExist."),
    "values": _strings("Values for In / NotIn."),
}, required=("key", "operator"))

LABEL_SELECTOR = obj(_META + "LabelSelector", {
    "matchLabels": _labels("Labels that must all match."),
    "matchExpressions": list_of(LABEL_SELECTOR_REQUIREMENT, "Requirements that must all match."),
}, "A label query over a set of objects.")

OBJECT_REFERENCE = obj(_CORE + "ObjectReference", {
    "kind": string("Kind of the referent."),
    "namespace": string("Namespace of the referent."),
    "name": string("Name of the referent."),
    "uid": string("UID of the referent."),
    "apiVersion": string("API version of the referent."),
    "resourceVersion": string("Specific resourceVersion of the referent."),
    "fieldPath": string("A field within the referent, e.g. spec.containers{name}."),
}, "A reference to an object.")

# ------------------------------------------------------------------- selectors

NODE_SELECTOR_REQUIREMENT = obj(_CORE + "NodeSelectorRequirement", {
    "key": string("The label key."),
    "operator": string("In, NotIn, Exists, DoesNotExist, Gt or Lt."),
    "values": _strings("Values; one integer for Gt / Lt."),
}, required=("key", "operator"))

NODE_SELECTOR_TERM = obj(_CORE + "NodeSelectorTerm", {
    "matchExpressions": list_of(NODE_SELECTOR_REQUIREMENT, "Requirements on node labels."),
    "matchFields": list_of(NODE_SELECTOR_REQUIREMENT, "Requirements on node fields."),
}, "Requirements that must all hold (ANDed).")

NODE_SELECTOR = obj(_CORE + "NodeSelector", {
    "nodeSelectorTerms": list_of(NODE_SELECTOR_TERM, "Terms, ORed."),
}, required=("nodeSelectorTerms",))

PREFERRED_SCHEDULING_TERM = obj(_CORE + "PreferredSchedulingTerm", {
    "weight": int32("Weight 1-100."),
    "preference": ref(NODE_SELECTOR_TERM, "The node selector term."),
}, required=("weight", "preference"))

NODE_AFFINITY = obj(_CORE + "NodeAffinity", {
    "requiredDuringSchedulingIgnoredDuringExecution": ref(
        NODE_SELECTOR, "Hard requirement on the node."),
    "preferredDuringSchedulingIgnoredDuringExecution": list_of(
        PREFERRED_SCHEDULING_TERM, "Soft preferences."),
})

POD_AFFINITY_TERM = obj(_CORE + "PodAffinityTerm", {
    "labelSelector": ref(LABEL_SELECTOR, "Pods to (anti-)co-locate with."),
    "namespaces": _strings("Namespaces the labelSelector applies to."),
    "topologyKey": string("Node label that defines the co-location domain."),
    "namespaceSelector": ref(LABEL_SELECTOR, "Namespaces the labelSelector applies to."),
    "matchLabelKeys": _strings("Pod label keys merged into labelSelector with In."),
    "mismatchLabelKeys": _strings("Pod label keys merged into labelSelector with NotIn."),
}, required=("topologyKey",))

WEIGHTED_POD_AFFINITY_TERM = obj(_CORE + "WeightedPodAffinityTerm", {
    "weight": int32("Weight 1-100."),
    "podAffinityTerm": ref(POD_AFFINITY_TERM, "The pod affinity term."),
}, required=("weight", "podAffinityTerm"))

POD_AFFINITY = obj(_CORE + "PodAffinity", {
    "requiredDuringSchedulingIgnoredDuringExecution": list_of(
        POD_AFFINITY_TERM, "Hard requirements."),
    "preferredDuringSchedulingIgnoredDuringExecution": list_of(
        WEIGHTED_POD_AFFINITY_TERM, "Soft preferences."),
})

POD_ANTI_AFFINITY = ref(
    obj(_CORE + "PodAntiAffinity", dict(POD_AFFINITY.fields or {})), "Anti-affinity rules.")

AFFINITY = obj(_CORE + "Affinity", {
    "nodeAffinity": ref(NODE_AFFINITY, "Node affinity rules."),
    "podAffinity": ref(POD_AFFINITY, "Inter-pod affinity rules."),
    "podAntiAffinity": ref(POD_ANTI_AFFINITY, "Inter-pod anti-affinity rules."),
}, "Scheduling constraints.")

TOLERATION = obj(_CORE + "Toleration", {
    "key": string("Taint key; empty with Exists matches all."),
    "operator": string("Exists or Equal (default)."),
    "value": string("Taint value to match."),
    "effect": string("NoSchedule, PreferNoSchedule or NoExecute; empty matches all."),
    "tolerationSeconds": int64("How long a NoExecute taint is tolerated."),
})

TOPOLOGY_SPREAD_CONSTRAINT = obj(_CORE + "TopologySpreadConstraint", {
    "maxSkew": int32("Maximum permitted uneven distribution."),
    "topologyKey": string("Node label key of the topology domain."),
    "whenUnsatisfiable": string("DoNotSchedule or ScheduleAnyway."),
    "labelSelector": ref(LABEL_SELECTOR, "Pods counted in each domain."),
    "minDomains": int32("Minimum number of eligible domains."),
    "nodeAffinityPolicy": string("Honor or Ignore."),
    "nodeTaintsPolicy": string("Honor or Ignore."),
    "matchLabelKeys": _strings("Pod label keys added to the selector."),
}, required=("maxSkew", "topologyKey", "whenUnsatisfiable"))

# ------------------------------------------------------------------- security

SE_LINUX_OPTIONS = obj(_CORE + "SELinuxOptions", {
    "user": string("SELinux user label."),
    "role": string("SELinux role label."),
    "type": string("SELinux type label."),
    "level": string("SELinux level label."),
})

WINDOWS_OPTIONS = obj(_CORE + "WindowsSecurityContextOptions", {
    "gmsaCredentialSpecName": string("Name of the GMSA credential spec."),
    "gmsaCredentialSpec": string("Inlined GMSA credential spec."),
    "runAsUserName": string("Windows user to run as."),
    "hostProcess": boolean("Run as a Windows HostProcess container."),
})

SECCOMP_PROFILE = obj(_CORE + "SeccompProfile", {
    "type": string("Localhost, RuntimeDefault or Unconfined."),
    "localhostProfile": string("Profile file path on the node, for Localhost."),
}, required=("type",))

APP_ARMOR_PROFILE = obj(_CORE + "AppArmorProfile", {
    "type": string("Localhost, RuntimeDefault or Unconfined."),
    "localhostProfile": string("Profile name loaded on the node, for Localhost."),
}, required=("type",))

POD_SECURITY_CONTEXT = obj(_CORE + "PodSecurityContext", {
    "seLinuxOptions": ref(SE_LINUX_OPTIONS, "SELinux context for all containers."),
    "windowsOptions": ref(WINDOWS_OPTIONS, "Windows-specific options."),
    "runAsUser": int64("UID to run container processes as."),
    "runAsGroup": int64("GID to run container processes as."),
    "runAsNonRoot": boolean("Require containers to run as a non-root user."),
    "supplementalGroups": list_of(int64(), "Extra groups for the first process."),
    "supplementalGroupsPolicy": string("Merge or Strict."),
    "fsGroup": int64("Group that owns mounted volumes."),
    "sysctls": list_of(obj(_CORE + "Sysctl", {
        "name": string("Sysctl name."), "value": string("Sysctl value.")},
        required=("name", "value")), "Namespaced sysctls."),
    "fsGroupChangePolicy": string("OnRootMismatch or Always."),
    "seccompProfile": ref(SECCOMP_PROFILE, "Seccomp profile for all containers."),
    "appArmorProfile": ref(APP_ARMOR_PROFILE, "AppArmor profile for all containers."),
    "seLinuxChangePolicy": string("Recursive or MountOption."),
}, "Pod-level security attributes.")

CAPABILITIES = obj(_CORE + "Capabilities", {
    "add": _strings("Capabilities to add."),
    "drop": _strings("Capabilities to drop."),
})

SECURITY_CONTEXT = obj(_CORE + "SecurityContext", {
    "capabilities": ref(CAPABILITIES, "Capabilities to add or drop."),
    "privileged": boolean("Run in privileged mode."),
    "seLinuxOptions": ref(SE_LINUX_OPTIONS, "SELinux context."),
    "windowsOptions": ref(WINDOWS_OPTIONS, "Windows-specific options."),
    "runAsUser": int64("UID to run the entrypoint as."),
    "runAsGroup": int64("GID to run the entrypoint as."),
    "runAsNonRoot": boolean("Require a non-root user."),
    "readOnlyRootFilesystem": boolean("Mount the root filesystem read-only."),
    "allowPrivilegeEscalation": boolean("Allow gaining more privileges than the parent."),
    "procMount": string("Default or Unmasked."),
    "seccompProfile": ref(SECCOMP_PROFILE, "Seccomp profile."),
    "appArmorProfile": ref(APP_ARMOR_PROFILE, "AppArmor profile."),
}, "Container-level security attributes.")

# --------------------------------------------------------------------- volumes

KEY_TO_PATH = obj(_CORE + "KeyToPath", {
    "key": string("Key to project."),
    "path": string("Relative path of the file."),
    "mode": int32("File mode bits."),
}, required=("key", "path"))

OBJECT_FIELD_SELECTOR = obj(_CORE + "ObjectFieldSelector", {
    "apiVersion": string("Schema version the fieldPath is written in; defaults to v1."),
    "fieldPath": string("Path of the field to select."),
}, required=("fieldPath",))

RESOURCE_FIELD_SELECTOR = obj(_CORE + "ResourceFieldSelector", {
    "containerName": string("Container name; required for volumes."),
    "resource": string("Resource to select, e.g. limits.cpu."),
    "divisor": quantity("Output format of the exposed resource."),
}, required=("resource",))

DOWNWARD_API_VOLUME_FILE = obj(_CORE + "DownwardAPIVolumeFile", {
    "path": string("Relative path of the file."),
    "fieldRef": ref(OBJECT_FIELD_SELECTOR, "Pod field to expose."),
    "resourceFieldRef": ref(RESOURCE_FIELD_SELECTOR, "Container resource to expose."),
    "mode": int32("File mode bits."),
}, required=("path",))

_ITEMS = list_of(KEY_TO_PATH, "Keys to project; all keys when empty.")

VOLUME_PROJECTION = obj(_CORE + "VolumeProjection", {
    "secret": obj(_CORE + "SecretProjection", {
        "name": string("Secret name."), "items": _ITEMS,
        "optional": boolean("Whether the secret may be missing.")}, "Secret to project."),
    "configMap": obj(_CORE + "ConfigMapProjection", {
        "name": string("ConfigMap name."), "items": _ITEMS,
        "optional": boolean("Whether the ConfigMap may be missing.")}, "ConfigMap to project."),
    "downwardAPI": obj(_CORE + "DownwardAPIProjection", {
        "items": list_of(DOWNWARD_API_VOLUME_FILE, "Files to project.")},
        "Downward API data to project."),
    "serviceAccountToken": obj(_CORE + "ServiceAccountTokenProjection", {
        "audience": string("Intended audience of the token."),
        "expirationSeconds": int64("Requested token lifetime."),
        "path": string("Relative path of the token file.")}, "Service account token to project.",
        required=("path",)),
    "clusterTrustBundle": obj(_CORE + "ClusterTrustBundleProjection", {
        "name": string("ClusterTrustBundle name."),
        "signerName": string("Select bundles by signer."),
        "labelSelector": ref(LABEL_SELECTOR, "Select bundles by label."),
        "optional": boolean("Whether the bundle may be missing."),
        "path": string("Relative path of the file.")}, "ClusterTrustBundle to project.",
        required=("path",)),
})

#: Volume sources minikube-py does not act on; accepted so manifests decode.
_OTHER_VOLUME_SOURCES = (
    "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs", "rbd",
    "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume", "quobyte",
    "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos", "csi",
    "ephemeral", "image",
)

VOLUME = obj(_CORE + "Volume", {
    "name": string("Volume name; a DNS label unique within the pod."),
    "emptyDir": obj(_CORE + "EmptyDirVolumeSource", {
        "medium": string("Storage medium: \"\" or Memory."),
        "sizeLimit": quantity("Maximum size of the volume."),
    }, "A temporary directory sharing the pod's lifetime."),
    "hostPath": obj(_CORE + "HostPathVolumeSource", {
        "path": string("Path on the host."),
        "type": string("Expected type of the path; \"\" skips the check."),
    }, "A file or directory on the host.", required=("path",)),
    "configMap": obj(_CORE + "ConfigMapVolumeSource", {
        "name": string("ConfigMap name."), "items": _ITEMS,
        "defaultMode": int32("Default file mode bits."),
        "optional": boolean("Whether the ConfigMap may be missing."),
    }, "A ConfigMap's data as files."),
    "secret": obj(_CORE + "SecretVolumeSource", {
        "secretName": string("Secret name."), "items": _ITEMS,
        "defaultMode": int32("Default file mode bits."),
        "optional": boolean("Whether the Secret may be missing."),
    }, "A Secret's data as files."),
    "persistentVolumeClaim": obj(_CORE + "PersistentVolumeClaimVolumeSource", {
        "claimName": string("PVC name in the pod's namespace."),
        "readOnly": boolean("Mount read-only."),
    }, "A PersistentVolumeClaim.", required=("claimName",)),
    "projected": obj(_CORE + "ProjectedVolumeSource", {
        "sources": list_of(VOLUME_PROJECTION, "Projections."),
        "defaultMode": int32("Default file mode bits."),
    }, "Several sources projected into one directory."),
    "downwardAPI": obj(_CORE + "DownwardAPIVolumeSource", {
        "items": list_of(DOWNWARD_API_VOLUME_FILE, "Files to create."),
        "defaultMode": int32("Default file mode bits."),
    }, "Pod information as files."),
    **{name: free_form(f"The {name} volume source.") for name in _OTHER_VOLUME_SOURCES},
}, "A named volume that containers may mount.", required=("name",))

# ----------------------------------------------------------------- containers

CONTAINER_PORT = obj(_CORE + "ContainerPort", {
    "name": string("IANA_SVC_NAME, unique within the pod."),
    "hostPort": int32("Port exposed on the host."),
    "containerPort": int32("Port exposed on the pod's IP."),
    "protocol": string("TCP, UDP or SCTP; defaults to TCP."),
    "hostIP": string("Host IP to bind the host port to."),
}, "A network port of a container.", required=("containerPort",))

LOCAL_OBJECT_REFERENCE = obj(_CORE + "LocalObjectReference", {
    "name": string("Name of the referent."),
})

ENV_FROM_SOURCE = obj(_CORE + "EnvFromSource", {
    "prefix": string("Prefix for every key."),
    "configMapRef": obj(_CORE + "ConfigMapEnvSource", {
        "name": string("ConfigMap name."), "optional": boolean("Whether it may be missing.")}),
    "secretRef": obj(_CORE + "SecretEnvSource", {
        "name": string("Secret name."), "optional": boolean("Whether it may be missing.")}),
})

_KEY_SELECTOR_FIELDS = {
    "name": string("Name of the referent."),
    "key": string("Key to select."),
    "optional": boolean("Whether the object or key may be missing."),
}

ENV_VAR = obj(_CORE + "EnvVar", {
    "name": string("Variable name."),
    "value": string("Literal value, with $(VAR) expansion."),
    "valueFrom": obj(_CORE + "EnvVarSource", {
        "fieldRef": ref(OBJECT_FIELD_SELECTOR, "A field of the pod."),
        "resourceFieldRef": ref(RESOURCE_FIELD_SELECTOR, "A resource of the container."),
        "configMapKeyRef": obj(_CORE + "ConfigMapKeySelector", _KEY_SELECTOR_FIELDS,
                               "A key of a ConfigMap.", required=("key",)),
        "secretKeyRef": obj(_CORE + "SecretKeySelector", _KEY_SELECTOR_FIELDS,
                            "A key of a Secret.", required=("key",)),
    }, "Where the value comes from; exclusive with value."),
}, "An environment variable.", required=("name",))

RESOURCE_REQUIREMENTS = obj(_CORE + "ResourceRequirements", {
    "limits": _resources("Maximum amount of compute resources allowed."),
    "requests": _resources("Minimum amount of compute resources required."),
    "claims": list_of(obj(_CORE + "ResourceClaim", {
        "name": string("Name of an entry in pod.spec.resourceClaims."),
        "request": string("A request within the claim."),
    }, required=("name",)), "Dynamic resources used by the container.", list_type="map",
        map_keys=("name",)),
}, "Compute resource requirements.")

HTTP_GET_ACTION = obj(_CORE + "HTTPGetAction", {
    "path": string("Path to access."),
    "port": int_or_string("Number or name of the port."),
    "host": string("Host name; defaults to the pod IP."),
    "scheme": string("HTTP or HTTPS."),
    "httpHeaders": list_of(obj(_CORE + "HTTPHeader", {
        "name": string("Header name."), "value": string("Header value.")},
        required=("name", "value")), "Custom request headers."),
}, required=("port",))

EXEC_ACTION = obj(_CORE + "ExecAction", {
    "command": _strings("Command line to execute inside the container."),
})

TCP_SOCKET_ACTION = obj(_CORE + "TCPSocketAction", {
    "port": int_or_string("Number or name of the port."),
    "host": string("Host name; defaults to the pod IP."),
}, required=("port",))

PROBE = obj(_CORE + "Probe", {
    "exec": ref(EXEC_ACTION, "Run a command."),
    "httpGet": ref(HTTP_GET_ACTION, "Perform an HTTP GET."),
    "tcpSocket": ref(TCP_SOCKET_ACTION, "Open a TCP connection."),
    "grpc": obj(_CORE + "GRPCAction", {
        "port": int32("Port number of the gRPC service."),
        "service": string("Service name for the gRPC health check."),
    }, "Call a gRPC health check.", required=("port",)),
    "initialDelaySeconds": int32("Seconds after start before probing."),
    "timeoutSeconds": int32("Seconds after which the probe times out."),
    "periodSeconds": int32("How often to probe."),
    "successThreshold": int32("Consecutive successes to be considered successful."),
    "failureThreshold": int32("Consecutive failures to be considered failed."),
    "terminationGracePeriodSeconds": int64("Grace period after a failed liveness probe."),
}, "A health check.")

LIFECYCLE_HANDLER = obj(_CORE + "LifecycleHandler", {
    "exec": ref(EXEC_ACTION, "Run a command."),
    "httpGet": ref(HTTP_GET_ACTION, "Perform an HTTP GET."),
    "tcpSocket": ref(TCP_SOCKET_ACTION, "Deprecated; not supported."),
    "sleep": obj(_CORE + "SleepAction", {"seconds": int64("Seconds to sleep.")},
                 "Sleep.", required=("seconds",)),
})

LIFECYCLE = obj(_CORE + "Lifecycle", {
    "postStart": ref(LIFECYCLE_HANDLER, "Called right after the container is created."),
    "preStop": ref(LIFECYCLE_HANDLER, "Called before the container is terminated."),
}, "Lifecycle hooks.")

_CONTAINER_FIELDS: dict[str, Schema] = {
    "name": string("Container name; a DNS label unique within the pod."),
    "image": string("Container image name."),
    "command": _strings("Entrypoint array; not run in a shell."),
    "args": _strings("Arguments to the entrypoint."),
    "workingDir": string("Working directory."),
    "ports": list_of(CONTAINER_PORT, "Ports to expose.", merge_key="containerPort",
                     strategy="merge", map_keys=("containerPort", "protocol")),
    "envFrom": list_of(ENV_FROM_SOURCE, "Sources to populate environment variables from."),
    "env": list_of(ENV_VAR, "Environment variables.", merge_key="name", strategy="merge"),
    "resources": ref(RESOURCE_REQUIREMENTS, "Compute resources required by this container."),
    "resizePolicy": list_of(obj(_CORE + "ContainerResizePolicy", {
        "resourceName": string("cpu or memory."),
        "restartPolicy": string("NotRequired or RestartContainer."),
    }, required=("resourceName", "restartPolicy")), "Resize policy per resource."),
    "restartPolicy": string("Only Always, for sidecar init containers."),
    "volumeMounts": list_of(obj(_CORE + "VolumeMount", {
        "name": string("Name of a volume of the pod."),
        "readOnly": boolean("Mount read-only."),
        "recursiveReadOnly": string("Disabled, IfPossible or Enabled."),
        "mountPath": string("Path inside the container."),
        "subPath": string("Path within the volume to mount."),
        "mountPropagation": string("None, HostToContainer or Bidirectional."),
        "subPathExpr": string("Expanded subPath."),
    }, required=("name", "mountPath")), "Volumes to mount.", merge_key="mountPath",
        strategy="merge"),
    "volumeDevices": list_of(obj(_CORE + "VolumeDevice", {
        "name": string("Name of a PVC volume of the pod."),
        "devicePath": string("Path inside the container."),
    }, required=("name", "devicePath")), "Block devices to use.", merge_key="devicePath",
        strategy="merge"),
    "livenessProbe": ref(PROBE, "Restart the container when it fails."),
    "readinessProbe": ref(PROBE, "Remove from service endpoints when it fails."),
    "startupProbe": ref(PROBE, "Gates the other probes until it succeeds."),
    "lifecycle": ref(LIFECYCLE, "Lifecycle hooks."),
    "terminationMessagePath": string("File the termination message is read from."),
    "terminationMessagePolicy": string("File or FallbackToLogsOnError."),
    "imagePullPolicy": string("Always, Never or IfNotPresent."),
    "securityContext": ref(SECURITY_CONTEXT, "Security options."),
    "stdin": boolean("Allocate a stdin buffer."),
    "stdinOnce": boolean("Close stdin after the first attach."),
    "tty": boolean("Allocate a TTY."),
}

CONTAINER = obj(_CORE + "Container", _CONTAINER_FIELDS, "A container of a pod.",
                required=("name",))

EPHEMERAL_CONTAINER = extend(CONTAINER, _CORE + "EphemeralContainer", {
    "targetContainerName": string("Container whose namespaces to target."),
}, "A temporary debugging container.")

# --------------------------------------------------------------------- pod spec

POD_SPEC = obj(_CORE + "PodSpec", {
    "volumes": list_of(VOLUME, "Volumes that containers may mount.", merge_key="name",
                       strategy="merge,retainKeys"),
    "initContainers": list_of(CONTAINER, "Containers run to completion before the others.",
                              merge_key="name", strategy="merge"),
    "containers": list_of(CONTAINER, "The containers of the pod.", merge_key="name",
                          strategy="merge"),
    "ephemeralContainers": list_of(EPHEMERAL_CONTAINER, "Debugging containers.",
                                   merge_key="name", strategy="merge"),
    "restartPolicy": string("Always, OnFailure or Never."),
    "terminationGracePeriodSeconds": int64("Seconds to terminate gracefully."),
    "activeDeadlineSeconds": int64("Seconds the pod may be active before it is failed."),
    "dnsPolicy": string("ClusterFirst, ClusterFirstWithHostNet, Default or None."),
    "nodeSelector": map_of(string(), "Labels a node must have.", map_type="atomic"),
    "serviceAccountName": string("Service account to run as."),
    "serviceAccount": string("Deprecated alias of serviceAccountName."),
    "automountServiceAccountToken": boolean("Mount the service account token."),
    "nodeName": string("Node the pod is bound to."),
    "hostNetwork": boolean("Use the host's network namespace."),
    "hostPID": boolean("Use the host's PID namespace."),
    "hostIPC": boolean("Use the host's IPC namespace."),
    "shareProcessNamespace": boolean("Share one PID namespace between containers."),
    "securityContext": ref(POD_SECURITY_CONTEXT, "Pod-level security attributes."),
    "imagePullSecrets": list_of(LOCAL_OBJECT_REFERENCE, "Secrets for pulling images.",
                                merge_key="name", strategy="merge"),
    "hostname": string("Hostname of the pod."),
    "subdomain": string("Subdomain of the pod's FQDN."),
    "affinity": ref(AFFINITY, "Scheduling constraints."),
    "schedulerName": string("Scheduler that places the pod."),
    "tolerations": list_of(TOLERATION, "Taints the pod tolerates."),
    "hostAliases": list_of(obj(_CORE + "HostAlias", {
        "ip": string("IP address."), "hostnames": _strings("Hostnames for the IP."),
    }, required=("ip",)), "Extra /etc/hosts entries.", merge_key="ip", strategy="merge"),
    "priorityClassName": string("Name of the PriorityClass."),
    "priority": int32("Priority value, set by the Priority admission plugin."),
    "dnsConfig": obj(_CORE + "PodDNSConfig", {
        "nameservers": _strings("DNS server IPs."),
        "searches": _strings("DNS search domains."),
        "options": list_of(obj(_CORE + "PodDNSConfigOption", {
            "name": string("Option name."), "value": string("Option value.")}),
            "resolver options."),
    }, "DNS parameters."),
    "readinessGates": list_of(obj(_CORE + "PodReadinessGate", {
        "conditionType": string("A pod condition type."),
    }, required=("conditionType",)), "Extra conditions for readiness."),
    "runtimeClassName": string("RuntimeClass to run with."),
    "enableServiceLinks": boolean("Inject service environment variables."),
    "preemptionPolicy": string("PreemptLowerPriority or Never."),
    "overhead": _resources("Resource overhead of the pod sandbox."),
    "topologySpreadConstraints": list_of(
        TOPOLOGY_SPREAD_CONSTRAINT, "How to spread matching pods.", merge_key="topologyKey",
        strategy="merge", map_keys=("topologyKey", "whenUnsatisfiable")),
    "setHostnameAsFQDN": boolean("Use the FQDN as hostname."),
    "os": obj(_CORE + "PodOS", {"name": string("linux or windows.")}, "Target OS.",
              required=("name",)),
    "hostUsers": boolean("Use the host's user namespace."),
    "schedulingGates": list_of(obj(_CORE + "PodSchedulingGate", {
        "name": string("Gate name."),
    }, required=("name",)), "Gates that block scheduling.", merge_key="name", strategy="merge"),
    "resourceClaims": list_of(obj(_CORE + "PodResourceClaim", {
        "name": string("Name within the pod."),
        "resourceClaimName": string("An existing ResourceClaim."),
        "resourceClaimTemplateName": string("A ResourceClaimTemplate."),
    }, required=("name",)), "Dynamic resources.", merge_key="name",
        strategy="merge,retainKeys"),
    "resources": ref(RESOURCE_REQUIREMENTS, "Pod-level resources (PodLevelResources)."),
}, "The desired state of a pod.", required=("containers",))

POD_TEMPLATE_SPEC = obj(_CORE + "PodTemplateSpec", {
    "metadata": ref(OBJECT_META, "Metadata of the pods created from the template."),
    "spec": ref(POD_SPEC, "Spec of the pods created from the template."),
}, "A template for pods.")

# ------------------------------------------------------------------- pod status

CONTAINER_STATE = obj(_CORE + "ContainerState", {
    "waiting": obj(_CORE + "ContainerStateWaiting", {
        "reason": string("Why the container is not yet running."),
        "message": string("Details."),
    }, "The container is waiting."),
    "running": obj(_CORE + "ContainerStateRunning", {
        "startedAt": time("When the container (re)started."),
    }, "The container is running."),
    "terminated": obj(_CORE + "ContainerStateTerminated", {
        "exitCode": int32("Exit status."),
        "signal": int32("Signal that terminated the container."),
        "reason": string("Brief reason."),
        "message": string("Details."),
        "startedAt": time("When the last execution started."),
        "finishedAt": time("When the last execution finished."),
        "containerID": string("ID of the container, <type>://<id>."),
    }, "The container has terminated.", required=("exitCode",)),
}, "Exactly one of waiting, running, terminated.")

CONTAINER_STATUS = obj(_CORE + "ContainerStatus", {
    "name": string("Container name."),
    "state": ref(CONTAINER_STATE, "Current state."),
    "lastState": ref(CONTAINER_STATE, "Last termination."),
    "ready": boolean("Whether the readiness probe passes."),
    "restartCount": int32("Number of restarts."),
    "image": string("Image the container runs."),
    "imageID": string("Image ID."),
    "containerID": string("Container ID, <type>://<id>."),
    "started": boolean("Whether the startup probe passed."),
    "allocatedResources": _resources("Resources allocated by the node."),
    "resources": ref(RESOURCE_REQUIREMENTS, "Resources actually configured."),
    "volumeMounts": list_of(obj(_CORE + "VolumeMountStatus", {
        "name": string("Volume name."), "mountPath": string("Mount path."),
        "readOnly": boolean("Mounted read-only."),
        "recursiveReadOnly": string("Disabled or Enabled."),
    }, required=("name", "mountPath")), "Mounted volumes.", merge_key="mountPath",
        strategy="merge"),
    "user": obj(_CORE + "ContainerUser", {
        "linux": obj(_CORE + "LinuxContainerUser", {
            "uid": int64("UID of the first process."),
            "gid": int64("GID of the first process."),
            "supplementalGroups": list_of(int64(), "Supplemental groups."),
        }, required=("uid", "gid")),
    }, "Identity of the first process."),
    "allocatedResourcesStatus": list_of(obj(_CORE + "ResourceStatus", {
        "name": string("Resource name."),
        "resources": list_of(obj(_CORE + "ResourceHealth", {
            "resourceID": string("Resource ID."),
            "health": string("Healthy, Unhealthy or Unknown."),
        }, required=("resourceID",)), "Health per resource.", list_type="map",
            map_keys=("resourceID",)),
    }, required=("name",)), "Health of allocated resources.", list_type="map",
        map_keys=("name",)),
}, "Status of one container.", required=("name", "ready", "restartCount", "image", "imageID"))

POD_IP = obj(_CORE + "PodIP", {"ip": string("The IP address.")}, required=("ip",))
HOST_IP = obj(_CORE + "HostIP", {"ip": string("The IP address.")}, required=("ip",))

POD_CONDITION = obj(_CORE + "PodCondition", {
    "type": string("PodScheduled, Initialized, ContainersReady, Ready, ..."),
    "status": string("True, False or Unknown."),
    "lastProbeTime": time("Last time the condition was probed."),
    "lastTransitionTime": time("Last time the status changed."),
    "reason": string("Machine-readable reason."),
    "message": string("Human-readable details."),
}, required=("type", "status"))

POD_STATUS = obj(_CORE + "PodStatus", {
    "phase": string("Pending, Running, Succeeded, Failed or Unknown."),
    "conditions": list_of(POD_CONDITION, "Current service state.", merge_key="type",
                          strategy="merge"),
    "message": string("Why the pod is in this condition."),
    "reason": string("Brief reason, e.g. Evicted."),
    "nominatedNodeName": string("Node nominated by preemption."),
    "hostIP": string("IP of the node."),
    "hostIPs": list_of(HOST_IP, "IPs of the node.", merge_key="ip", strategy="merge"),
    "podIP": string("IP of the pod."),
    "podIPs": list_of(POD_IP, "IPs of the pod.", merge_key="ip", strategy="merge"),
    "startTime": time("When the kubelet acknowledged the pod."),
    "initContainerStatuses": list_of(CONTAINER_STATUS, "Init container statuses."),
    "containerStatuses": list_of(CONTAINER_STATUS, "Container statuses."),
    "qosClass": string("Guaranteed, Burstable or BestEffort."),
    "ephemeralContainerStatuses": list_of(CONTAINER_STATUS, "Ephemeral container statuses."),
    "resize": string("Status of a pending resize."),
    "resourceClaimStatuses": list_of(obj(_CORE + "PodResourceClaimStatus", {
        "name": string("Entry in spec.resourceClaims."),
        "resourceClaimName": string("Generated ResourceClaim."),
    }, required=("name",)), "Generated ResourceClaims.", merge_key="name",
        strategy="merge,retainKeys"),
}, "The observed state of a pod.")

# ------------------------------------------------------------------------ node

TAINT = obj(_CORE + "Taint", {
    "key": string("Taint key."),
    "value": string("Taint value."),
    "effect": string("NoSchedule, PreferNoSchedule or NoExecute."),
    "timeAdded": time("When a NoExecute taint was added."),
}, required=("key", "effect"))

NODE_SPEC = obj(_CORE + "NodeSpec", {
    "podCIDR": string("Pod IP range assigned to the node."),
    "podCIDRs": list_of(string(), "Pod IP ranges, one per family.", strategy="merge",
                        list_type="set"),
    "providerID": string("Cloud provider ID."),
    "unschedulable": boolean("Keep new pods off the node."),
    "taints": list_of(TAINT, "Taints of the node."),
    "configSource": free_form("Deprecated dynamic kubelet config."),
    "externalID": string("Deprecated."),
}, "The desired state of a node.")

NODE_CONDITION = obj(_CORE + "NodeCondition", {
    "type": string("Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable."),
    "status": string("True, False or Unknown."),
    "lastHeartbeatTime": time("Last heartbeat."),
    "lastTransitionTime": time("Last status change."),
    "reason": string("Machine-readable reason."),
    "message": string("Human-readable details."),
}, required=("type", "status"))

NODE_STATUS = obj(_CORE + "NodeStatus", {
    "capacity": _resources("Total resources of the node."),
    "allocatable": _resources("Resources available for pods."),
    "phase": string("Deprecated node phase."),
    "conditions": list_of(NODE_CONDITION, "Current conditions.", merge_key="type",
                          strategy="merge"),
    "addresses": list_of(obj(_CORE + "NodeAddress", {
        "type": string("Hostname, InternalIP, ExternalIP, ..."),
        "address": string("The address."),
    }, required=("type", "address")), "Addresses of the node.", merge_key="type",
        strategy="merge"),
    "daemonEndpoints": obj(_CORE + "NodeDaemonEndpoints", {
        "kubeletEndpoint": obj(_CORE + "DaemonEndpoint", {
            "Port": int32("Port number."),
        }, "Kubelet endpoint.", required=("Port",)),
    }, "Endpoints of daemons on the node."),
    "nodeInfo": obj(_CORE + "NodeSystemInfo", {
        "machineID": string("Machine ID."),
        "systemUUID": string("System UUID."),
        "bootID": string("Boot ID."),
        "kernelVersion": string("Kernel version."),
        "osImage": string("OS image."),
        "containerRuntimeVersion": string("Container runtime version."),
        "kubeletVersion": string("Kubelet version."),
        "kubeProxyVersion": string("Deprecated."),
        "operatingSystem": string("Operating system."),
        "architecture": string("Architecture."),
        "swap": obj(_CORE + "NodeSwapStatus", {"capacity": int64("Swap bytes.")}),
    }, "Node system information."),
    "images": list_of(obj(_CORE + "ContainerImage", {
        "names": _strings("Names of the image."),
        "sizeBytes": int64("Size of the image."),
    }), "Images on the node."),
    "volumesInUse": _strings("Volumes in use."),
    "volumesAttached": list_of(obj(_CORE + "AttachedVolume", {
        "name": string("Volume name."), "devicePath": string("Device path."),
    }, required=("name", "devicePath")), "Attached volumes."),
    "config": free_form("Status of dynamic kubelet config."),
    "runtimeHandlers": list_of(obj(_CORE + "NodeRuntimeHandler", {
        "name": string("Handler name."),
        "features": obj(_CORE + "NodeRuntimeHandlerFeatures", {
            "recursiveReadOnlyMounts": boolean("Supports recursive read-only mounts."),
            "userNamespaces": boolean("Supports user namespaces."),
        }),
    }), "Runtime handlers."),
    "features": obj(_CORE + "NodeFeatures", {
        "supplementalGroupsPolicy": boolean("Supports supplementalGroupsPolicy."),
    }, "Features the node supports."),
}, "The observed state of a node.")

# ------------------------------------------------------------------- namespace

NAMESPACE_SPEC = obj(_CORE + "NamespaceSpec", {
    "finalizers": _strings("Must be empty before the namespace is removed."),
}, "The desired state of a namespace.")

NAMESPACE_STATUS = obj(_CORE + "NamespaceStatus", {
    "phase": string("Active or Terminating."),
    "conditions": list_of(obj(_CORE + "NamespaceCondition", {
        "type": string("Condition type."),
        "status": string("True, False or Unknown."),
        "lastTransitionTime": time("Last status change."),
        "reason": string("Machine-readable reason."),
        "message": string("Human-readable details."),
    }, required=("type", "status")), "Current conditions.", merge_key="type", strategy="merge"),
}, "The observed state of a namespace.")

# ----------------------------------------------------------------------- apps

DEPLOYMENT_STRATEGY = obj(_APPS + "DeploymentStrategy", {
    "type": string("Recreate or RollingUpdate."),
    "rollingUpdate": obj(_APPS + "RollingUpdateDeployment", {
        "maxUnavailable": int_or_string("Pods that may be unavailable during the update."),
        "maxSurge": int_or_string("Pods that may be created above the desired count."),
    }, "Rolling update parameters; only with type RollingUpdate."),
}, "How to replace existing pods with new ones.")

DEPLOYMENT_SPEC = obj(_APPS + "DeploymentSpec", {
    "replicas": int32("Desired number of pods."),
    "selector": ref(LABEL_SELECTOR, "Pods targeted by the deployment; immutable."),
    "template": ref(POD_TEMPLATE_SPEC, "Template of the pods."),
    "strategy": ref(DEPLOYMENT_STRATEGY, "Update strategy.", strategy="retainKeys"),
    "minReadySeconds": int32("Seconds a pod must be ready to count as available."),
    "revisionHistoryLimit": int32("Old ReplicaSets to keep."),
    "paused": boolean("Whether the deployment is paused."),
    "progressDeadlineSeconds": int32("Seconds before the deployment is considered stuck."),
}, "The desired state of a deployment.", required=("selector", "template"))

_REPLICA_CONDITION_FIELDS: dict[str, Schema] = {
    "type": string("Condition type."),
    "status": string("True, False or Unknown."),
    "lastTransitionTime": time("Last status change."),
    "reason": string("Machine-readable reason."),
    "message": string("Human-readable details."),
}

DEPLOYMENT_STATUS = obj(_APPS + "DeploymentStatus", {
    "observedGeneration": int64("Generation observed by the controller."),
    "replicas": int32("Pods targeted by the deployment."),
    "updatedReplicas": int32("Pods with the desired template."),
    "readyReplicas": int32("Ready pods."),
    "availableReplicas": int32("Available pods."),
    "unavailableReplicas": int32("Unavailable pods."),
    "conditions": list_of(obj(_APPS + "DeploymentCondition", {
        **_REPLICA_CONDITION_FIELDS,
        "lastUpdateTime": time("Last time the condition was updated."),
    }, required=("type", "status")), "Current conditions.", merge_key="type",
        strategy="merge"),
    "collisionCount": int32("Hash collision count."),
}, "The observed state of a deployment.")

REPLICA_SET_SPEC = obj(_APPS + "ReplicaSetSpec", {
    "replicas": int32("Desired number of pods."),
    "minReadySeconds": int32("Seconds a pod must be ready to count as available."),
    "selector": ref(LABEL_SELECTOR, "Pods targeted by the ReplicaSet."),
    "template": ref(POD_TEMPLATE_SPEC, "Template of the pods."),
}, "The desired state of a ReplicaSet.", required=("selector",))

REPLICA_SET_STATUS = obj(_APPS + "ReplicaSetStatus", {
    "replicas": int32("Observed number of pods."),
    "fullyLabeledReplicas": int32("Pods whose labels match the template."),
    "readyReplicas": int32("Ready pods."),
    "availableReplicas": int32("Available pods."),
    "observedGeneration": int64("Generation observed by the controller."),
    "conditions": list_of(obj(_APPS + "ReplicaSetCondition", _REPLICA_CONDITION_FIELDS,
                              required=("type", "status")),
                          "Current conditions.", merge_key="type", strategy="merge"),
}, "The observed state of a ReplicaSet.", required=("replicas",))

# ---------------------------------------------------------------------- roots

_TYPE_META = {
    "apiVersion": string("Versioned schema of this representation."),
    "kind": string("REST resource this object represents."),
}


def _root(name: str, description: str, fields: dict[str, Schema]) -> Schema:
    return obj(name, {**_TYPE_META, "metadata": ref(OBJECT_META, "Standard object metadata."),
                      **fields}, description)


ROOTS: dict[str, Schema] = {
    "Pod": _root(_CORE + "Pod", "A collection of containers run together on a host.", {
        "spec": ref(POD_SPEC), "status": ref(POD_STATUS)}),
    "Node": _root(_CORE + "Node", "A worker node.", {
        "spec": ref(NODE_SPEC), "status": ref(NODE_STATUS)}),
    "Namespace": _root(_CORE + "Namespace", "A scope for names.", {
        "spec": ref(NAMESPACE_SPEC), "status": ref(NAMESPACE_STATUS)}),
    "Event": _root(_CORE + "Event", "A report of an event somewhere in the cluster.", {
        "involvedObject": ref(OBJECT_REFERENCE, "The object this event is about."),
        "reason": string("Machine-readable reason for the transition."),
        "message": string("Human-readable description."),
        "source": obj(_CORE + "EventSource", {
            "component": string("Component reporting the event."),
            "host": string("Node the event was generated on."),
        }, "The component reporting the event."),
        "firstTimestamp": time("First time the event was recorded."),
        "lastTimestamp": time("Last time the event occurred."),
        "count": int32("Times the event occurred."),
        "type": string("Normal or Warning."),
        "eventTime": time("When the event was first observed (MicroTime)."),
        "series": obj(_CORE + "EventSeries", {
            "count": int32("Occurrences in the series."),
            "lastObservedTime": time("Last occurrence (MicroTime)."),
        }, "Data about the series the event represents."),
        "action": string("What action was taken or failed."),
        "related": ref(OBJECT_REFERENCE, "Secondary object for more complex actions."),
        "reportingComponent": string("Controller that emitted the event."),
        "reportingInstance": string("ID of the controller instance."),
    }),
    "Deployment": _root(_APPS + "Deployment", "Declarative updates for pods and ReplicaSets.", {
        "spec": ref(DEPLOYMENT_SPEC), "status": ref(DEPLOYMENT_STATUS)}),
    "ReplicaSet": _root(_APPS + "ReplicaSet", "Keeps a number of pod replicas running.", {
        "spec": ref(REPLICA_SET_SPEC), "status": ref(REPLICA_SET_STATUS)}),
    "List": obj("io.k8s.apimachinery.pkg.apis.meta.v1.List", {
        **_TYPE_META,
        "metadata": ref(LIST_META, "Standard list metadata."),
        "items": list_of(any_value(), "The objects of the list."),
    }, "A list of objects of any kind."),
}
