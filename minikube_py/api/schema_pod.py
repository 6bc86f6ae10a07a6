"""The Pod part of the field schema (Kubernetes v1.32 ``k8s.io/api/core/v1``).

Scheduling constraints, security contexts, volumes, containers, ``PodSpec``,
``PodTemplateSpec`` and ``PodStatus``, with the ``patchStrategy`` /
``patchMergeKey`` tags of ``types.go``. Volume sources minikube-py never acts on
(nfs, csi, ...) are free-form so manifests using them still decode.
"""

from __future__ import annotations

from .schema_meta import (
    CORE,
    LABEL_SELECTOR,
    OBJECT_META,
    resource_map,
    string_list,
)
from .schema_model import (
    Schema,
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

# ------------------------------------------------------------------- selectors

NODE_SELECTOR_REQUIREMENT = obj(CORE + "NodeSelectorRequirement", {
    "key": string("The label key."),
    "operator": string("In, NotIn, Exists, DoesNotExist, Gt or Lt."),
    "values": string_list("Values; one integer for Gt / Lt."),
}, required=("key", "operator"))

NODE_SELECTOR_TERM = obj(CORE + "NodeSelectorTerm", {
    "matchExpressions": list_of(NODE_SELECTOR_REQUIREMENT, "Requirements on node labels."),
    "matchFields": list_of(NODE_SELECTOR_REQUIREMENT, "Requirements on node fields."),
}, "Requirements that must all hold (ANDed).")

NODE_SELECTOR = obj(CORE + "NodeSelector", {
    "nodeSelectorTerms": list_of(NODE_SELECTOR_TERM, "Terms, ORed."),
}, required=("nodeSelectorTerms",))

PREFERRED_SCHEDULING_TERM = obj(CORE + "PreferredSchedulingTerm", {
    "weight": int32("Weight 1-100."),
    "preference": ref(NODE_SELECTOR_TERM, "The node selector term."),
}, required=("weight", "preference"))

NODE_AFFINITY = obj(CORE + "NodeAffinity", {
    "requiredDuringSchedulingIgnoredDuringExecution": ref(
        NODE_SELECTOR, "Hard requirement on the node."),
    "preferredDuringSchedulingIgnoredDuringExecution": list_of(
        PREFERRED_SCHEDULING_TERM, "Soft preferences."),
})

POD_AFFINITY_TERM = obj(CORE + "PodAffinityTerm", {
    "labelSelector": ref(LABEL_SELECTOR, "Pods to (anti-)co-locate with."),
    "namespaces": string_list("Namespaces the labelSelector applies to."),
    "topologyKey": string("Node label that defines the co-location domain."),
    "namespaceSelector": ref(LABEL_SELECTOR, "Namespaces the labelSelector applies to."),
    "matchLabelKeys": string_list("Pod label keys merged into labelSelector with In."),
    "mismatchLabelKeys": string_list("Pod label keys merged into labelSelector with NotIn."),
}, required=("topologyKey",))

WEIGHTED_POD_AFFINITY_TERM = obj(CORE + "WeightedPodAffinityTerm", {
    "weight": int32("Weight 1-100."),
    "podAffinityTerm": ref(POD_AFFINITY_TERM, "The pod affinity term."),
}, required=("weight", "podAffinityTerm"))

POD_AFFINITY = obj(CORE + "PodAffinity", {
    "requiredDuringSchedulingIgnoredDuringExecution": list_of(
        POD_AFFINITY_TERM, "Hard requirements."),
    "preferredDuringSchedulingIgnoredDuringExecution": list_of(
        WEIGHTED_POD_AFFINITY_TERM, "Soft preferences."),
})

POD_ANTI_AFFINITY = ref(
    obj(CORE + "PodAntiAffinity", dict(POD_AFFINITY.fields or {})), "Anti-affinity rules.")

AFFINITY = obj(CORE + "Affinity", {
    "nodeAffinity": ref(NODE_AFFINITY, "Node affinity rules."),
    "podAffinity": ref(POD_AFFINITY, "Inter-pod affinity rules."),
    "podAntiAffinity": ref(POD_ANTI_AFFINITY, "Inter-pod anti-affinity rules."),
}, "Scheduling constraints.")

TOLERATION = obj(CORE + "Toleration", {
    "key": string("Taint key; empty with Exists matches all."),
    "operator": string("Exists or Equal (default)."),
    "value": string("Taint value to match."),
    "effect": string("NoSchedule, PreferNoSchedule or NoExecute; empty matches all."),
    "tolerationSeconds": int64("How long a NoExecute taint is tolerated."),
})

TOPOLOGY_SPREAD_CONSTRAINT = obj(CORE + "TopologySpreadConstraint", {
    "maxSkew": int32("Maximum permitted uneven distribution."),
    "topologyKey": string("Node label key of the topology domain."),
    "whenUnsatisfiable": string("DoNotSchedule or ScheduleAnyway."),
    "labelSelector": ref(LABEL_SELECTOR, "Pods counted in each domain."),
    "minDomains": int32("Minimum number of eligible domains."),
    "nodeAffinityPolicy": string("Honor or Ignore."),
    "nodeTaintsPolicy": string("Honor or Ignore."),
    "matchLabelKeys": string_list("Pod label keys added to the selector."),
}, required=("maxSkew", "topologyKey", "whenUnsatisfiable"))

# ------------------------------------------------------------------- security

SE_LINUX_OPTIONS = obj(CORE + "SELinuxOptions", {
    "user": string("SELinux user label."),
    "role": string("SELinux role label."),
    "type": string("SELinux type label."),
    "level": string("SELinux level label."),
})

WINDOWS_OPTIONS = obj(CORE + "WindowsSecurityContextOptions", {
    "gmsaCredentialSpecName": string("Name of the GMSA credential spec."),
    "gmsaCredentialSpec": string("Inlined GMSA credential spec."),
    "runAsUserName": string("Windows user to run as."),
    "hostProcess": boolean("Run as a Windows HostProcess container."),
})

SECCOMP_PROFILE = obj(CORE + "SeccompProfile", {
    "type": string("Localhost, RuntimeDefault or Unconfined."),
    "localhostProfile": string("Profile file path on the node, for Localhost."),
}, required=("type",))

APP_ARMOR_PROFILE = obj(CORE + "AppArmorProfile", {
    "type": string("Localhost, RuntimeDefault or Unconfined."),
    "localhostProfile": string("Profile name loaded on the node, for Localhost."),
}, required=("type",))

POD_SECURITY_CONTEXT = obj(CORE + "PodSecurityContext", {
    "seLinuxOptions": ref(SE_LINUX_OPTIONS, "SELinux context for all containers."),
    "windowsOptions": ref(WINDOWS_OPTIONS, "Windows-specific options."),
    "runAsUser": int64("UID to run container processes as."),
    "runAsGroup": int64("GID to run container processes as."),
    "runAsNonRoot": boolean("Require containers to run as a non-root user."),
    "supplementalGroups": list_of(int64(), "Extra groups for the first process."),
    "supplementalGroupsPolicy": string("Merge or Strict."),
    "fsGroup": int64("Group that owns mounted volumes."),
    "sysctls": list_of(obj(CORE + "Sysctl", {
        "name": string("Sysctl name."), "value": string("Sysctl value.")},
        required=("name", "value")), "Namespaced sysctls."),
    "fsGroupChangePolicy": string("OnRootMismatch or Always."),
    "seccompProfile": ref(SECCOMP_PROFILE, "Seccomp profile for all containers."),
    "appArmorProfile": ref(APP_ARMOR_PROFILE, "AppArmor profile for all containers."),
    "seLinuxChangePolicy": string("Recursive or MountOption."),
}, "Pod-level security attributes.")

CAPABILITIES = obj(CORE + "Capabilities", {
    "add": string_list("Capabilities to add."),
    "drop": string_list("Capabilities to drop."),
})

SECURITY_CONTEXT = obj(CORE + "SecurityContext", {
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

KEY_TO_PATH = obj(CORE + "KeyToPath", {
    "key": string("Key to project."),
    "path": string("Relative path of the file."),
    "mode": int32("File mode bits."),
}, required=("key", "path"))

OBJECT_FIELD_SELECTOR = obj(CORE + "ObjectFieldSelector", {
    "apiVersion": string("Schema version the fieldPath is written in; defaults to v1."),
    "fieldPath": string("Path of the field to select."),
}, required=("fieldPath",))

RESOURCE_FIELD_SELECTOR = obj(CORE + "ResourceFieldSelector", {
    "containerName": string("Container name; required for volumes."),
    "resource": string("Resource to select, e.g. limits.cpu."),
    "divisor": quantity("Output format of the exposed resource."),
}, required=("resource",))

DOWNWARD_API_VOLUME_FILE = obj(CORE + "DownwardAPIVolumeFile", {
    "path": string("Relative path of the file."),
    "fieldRef": ref(OBJECT_FIELD_SELECTOR, "Pod field to expose."),
    "resourceFieldRef": ref(RESOURCE_FIELD_SELECTOR, "Container resource to expose."),
    "mode": int32("File mode bits."),
}, required=("path",))

_ITEMS = list_of(KEY_TO_PATH, "Keys to project; all keys when empty.")

VOLUME_PROJECTION = obj(CORE + "VolumeProjection", {
    "secret": obj(CORE + "SecretProjection", {
        "name": string("Secret name."), "items": _ITEMS,
        "optional": boolean("Whether the secret may be missing.")}, "Secret to project."),
    "configMap": obj(CORE + "ConfigMapProjection", {
        "name": string("ConfigMap name."), "items": _ITEMS,
        "optional": boolean("Whether the ConfigMap may be missing.")}, "ConfigMap to project."),
    "downwardAPI": obj(CORE + "DownwardAPIProjection", {
        "items": list_of(DOWNWARD_API_VOLUME_FILE, "Files to project.")},
        "Downward API data to project."),
    "serviceAccountToken": obj(CORE + "ServiceAccountTokenProjection", {
        "audience": string("Intended audience of the token."),
        "expirationSeconds": int64("Requested token lifetime."),
        "path": string("Relative path of the token file.")}, "Service account token to project.",
        required=("path",)),
    "clusterTrustBundle": obj(CORE + "ClusterTrustBundleProjection", {
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

VOLUME = obj(CORE + "Volume", {
    "name": string("Volume name; a DNS label unique within the pod."),
    "emptyDir": obj(CORE + "EmptyDirVolumeSource", {
        "medium": string("Storage medium: \"\" or Memory."),
        "sizeLimit": quantity("Maximum size of the volume."),
    }, "A temporary directory sharing the pod's lifetime."),
    "hostPath": obj(CORE + "HostPathVolumeSource", {
        "path": string("Path on the host."),
        "type": string("Expected type of the path; \"\" skips the check."),
    }, "A file or directory on the host.", required=("path",)),
    "configMap": obj(CORE + "ConfigMapVolumeSource", {
        "name": string("ConfigMap name."), "items": _ITEMS,
        "defaultMode": int32("Default file mode bits."),
        "optional": boolean("Whether the ConfigMap may be missing."),
    }, "A ConfigMap's data as files."),
    "secret": obj(CORE + "SecretVolumeSource", {
        "secretName": string("Secret name."), "items": _ITEMS,
        "defaultMode": int32("Default file mode bits."),
        "optional": boolean("Whether the Secret may be missing."),
    }, "A Secret's data as files."),
    "persistentVolumeClaim": obj(CORE + "PersistentVolumeClaimVolumeSource", {
        "claimName": string("PVC name in the pod's namespace."),
        "readOnly": boolean("Mount read-only."),
    }, "A PersistentVolumeClaim.", required=("claimName",)),
    "projected": obj(CORE + "ProjectedVolumeSource", {
        "sources": list_of(VOLUME_PROJECTION, "Projections."),
        "defaultMode": int32("Default file mode bits."),
    }, "Several sources projected into one directory."),
    "downwardAPI": obj(CORE + "DownwardAPIVolumeSource", {
        "items": list_of(DOWNWARD_API_VOLUME_FILE, "Files to create."),
        "defaultMode": int32("Default file mode bits."),
    }, "Pod information as files."),
    **{name: free_form(f"The {name} volume source.") for name in _OTHER_VOLUME_SOURCES},
}, "A named volume that containers may mount.", required=("name",))

# ----------------------------------------------------------------- containers

CONTAINER_PORT = obj(CORE + "ContainerPort", {
    "name": string("IANA_SVC_NAME, unique within the pod."),
    "hostPort": int32("Port exposed on the host."),
    "containerPort": int32("Port exposed on the pod's IP."),
    "protocol": string("TCP, UDP or SCTP; defaults to TCP."),
    "hostIP": string("Host IP to bind the host port to."),
}, "A network port of a container.", required=("containerPort",))

LOCAL_OBJECT_REFERENCE = obj(CORE + "LocalObjectReference", {
    "name": string("Name of the referent."),
})

ENV_FROM_SOURCE = obj(CORE + "EnvFromSource", {
    "prefix": string("Prefix for every key."),
    "configMapRef": obj(CORE + "ConfigMapEnvSource", {
        "name": string("ConfigMap name."), "optional": boolean("Whether it may be missing.")}),
    "secretRef": obj(CORE + "SecretEnvSource", {
        "name": string("Secret name."), "optional": boolean("Whether it may be missing.")}),
})

_KEY_SELECTOR_FIELDS = {
    "name": string("Name of the referent."),
    "key": string("Key to select."),
    "optional": boolean("Whether the object or key may be missing."),
}

ENV_VAR = obj(CORE + "EnvVar", {
    "name": string("Variable name."),
    "value": string("Literal value, with $(VAR) expansion."),
    "valueFrom": obj(CORE + "EnvVarSource", {
        "fieldRef": ref(OBJECT_FIELD_SELECTOR, "A field of the pod."),
        "resourceFieldRef": ref(RESOURCE_FIELD_SELECTOR, "A resource of the container."),
        "configMapKeyRef": obj(CORE + "ConfigMapKeySelector", _KEY_SELECTOR_FIELDS,
                               "A key of a ConfigMap.", required=("key",)),
        "secretKeyRef": obj(CORE + "SecretKeySelector", _KEY_SELECTOR_FIELDS,
                            "A key of a Secret.", required=("key",)),
    }, "Where the value comes from; exclusive with value."),
}, "An environment variable.", required=("name",))

RESOURCE_REQUIREMENTS = obj(CORE + "ResourceRequirements", {
    "limits": resource_map("Maximum amount of compute resources allowed."),
    "requests": resource_map("Minimum amount of compute resources required."),
    "claims": list_of(obj(CORE + "ResourceClaim", {
        "name": string("Name of an entry in pod.spec.resourceClaims."),
        "request": string("A request within the claim."),
    }, required=("name",)), "Dynamic resources used by the container.", list_type="map",
        map_keys=("name",)),
}, "Compute resource requirements.")

HTTP_GET_ACTION = obj(CORE + "HTTPGetAction", {
    "path": string("Path to access."),
    "port": int_or_string("Number or name of the port."),
    "host": string("Host name; defaults to the pod IP."),
    "scheme": string("HTTP or HTTPS."),
    "httpHeaders": list_of(obj(CORE + "HTTPHeader", {
        "name": string("Header name."), "value": string("Header value.")},
        required=("name", "value")), "Custom request headers."),
}, required=("port",))

EXEC_ACTION = obj(CORE + "ExecAction", {
    "command": string_list("Command line to execute inside the container."),
})

TCP_SOCKET_ACTION = obj(CORE + "TCPSocketAction", {
    "port": int_or_string("Number or name of the port."),
    "host": string("Host name; defaults to the pod IP."),
}, required=("port",))

PROBE = obj(CORE + "Probe", {
    "exec": ref(EXEC_ACTION, "Run a command."),
    "httpGet": ref(HTTP_GET_ACTION, "Perform an HTTP GET."),
    "tcpSocket": ref(TCP_SOCKET_ACTION, "Open a TCP connection."),
    "grpc": obj(CORE + "GRPCAction", {
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

LIFECYCLE_HANDLER = obj(CORE + "LifecycleHandler", {
    "exec": ref(EXEC_ACTION, "Run a command."),
    "httpGet": ref(HTTP_GET_ACTION, "Perform an HTTP GET."),
    "tcpSocket": ref(TCP_SOCKET_ACTION, "Deprecated; not supported."),
    "sleep": obj(CORE + "SleepAction", {"seconds": int64("Seconds to sleep.")},
                 "Sleep.", required=("seconds",)),
})

LIFECYCLE = obj(CORE + "Lifecycle", {
    "postStart": ref(LIFECYCLE_HANDLER, "Called right after the container is created."),
    "preStop": ref(LIFECYCLE_HANDLER, "Called before the container is terminated."),
}, "Lifecycle hooks.")

_CONTAINER_FIELDS: dict[str, Schema] = {
    "name": string("Container name; a DNS label unique within the pod."),
    "image": string("Container image name."),
    "command": string_list("Entrypoint array; not run in a shell."),
    "args": string_list("Arguments to the entrypoint."),
    "workingDir": string("Working directory."),
    "ports": list_of(CONTAINER_PORT, "Ports to expose.", merge_key="containerPort",
                     strategy="merge", map_keys=("containerPort", "protocol")),
    "envFrom": list_of(ENV_FROM_SOURCE, "Sources to populate environment variables from."),
    "env": list_of(ENV_VAR, "Environment variables.", merge_key="name", strategy="merge"),
    "resources": ref(RESOURCE_REQUIREMENTS, "Compute resources required by this container."),
    "resizePolicy": list_of(obj(CORE + "ContainerResizePolicy", {
        "resourceName": string("cpu or memory."),
        "restartPolicy": string("NotRequired or RestartContainer."),
    }, required=("resourceName", "restartPolicy")), "Resize policy per resource."),
    "restartPolicy": string("Only Always, for sidecar init containers."),
    "volumeMounts": list_of(obj(CORE + "VolumeMount", {
        "name": string("Name of a volume of the pod."),
        "readOnly": boolean("Mount read-only."),
        "recursiveReadOnly": string("Disabled, IfPossible or Enabled."),
        "mountPath": string("Path inside the container."),
        "subPath": string("Path within the volume to mount."),
        "mountPropagation": string("None, HostToContainer or Bidirectional."),
        "subPathExpr": string("Expanded subPath."),
    }, required=("name", "mountPath")), "Volumes to mount.", merge_key="mountPath",
        strategy="merge"),
    "volumeDevices": list_of(obj(CORE + "VolumeDevice", {
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

CONTAINER = obj(CORE + "Container", _CONTAINER_FIELDS, "A container of a pod.",
                required=("name",))

EPHEMERAL_CONTAINER = extend(CONTAINER, CORE + "EphemeralContainer", {
    "targetContainerName": string("Container whose namespaces to target."),
}, "A temporary debugging container.")

# --------------------------------------------------------------------- pod spec

POD_SPEC = obj(CORE + "PodSpec", {
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
    "hostAliases": list_of(obj(CORE + "HostAlias", {
        "ip": string("IP address."), "hostnames": string_list("Hostnames for the IP."),
    }, required=("ip",)), "Extra /etc/hosts entries.", merge_key="ip", strategy="merge"),
    "priorityClassName": string("Name of the PriorityClass."),
    "priority": int32("Priority value, set by the Priority admission plugin."),
    "dnsConfig": obj(CORE + "PodDNSConfig", {
        "nameservers": string_list("DNS server IPs."),
        "searches": string_list("DNS search domains."),
        "options": list_of(obj(CORE + "PodDNSConfigOption", {
            "name": string("Option name."), "value": string("Option value.")}),
            "resolver options."),
    }, "DNS parameters."),
    "readinessGates": list_of(obj(CORE + "PodReadinessGate", {
        "conditionType": string("A pod condition type."),
    }, required=("conditionType",)), "Extra conditions for readiness."),
    "runtimeClassName": string("RuntimeClass to run with."),
    "enableServiceLinks": boolean("Inject service environment variables."),
    "preemptionPolicy": string("PreemptLowerPriority or Never."),
    "overhead": resource_map("Resource overhead of the pod sandbox."),
    "topologySpreadConstraints": list_of(
        TOPOLOGY_SPREAD_CONSTRAINT, "How to spread matching pods.", merge_key="topologyKey",
        strategy="merge", map_keys=("topologyKey", "whenUnsatisfiable")),
    "setHostnameAsFQDN": boolean("Use the FQDN as hostname."),
    "os": obj(CORE + "PodOS", {"name": string("linux or windows.")}, "Target OS.",
              required=("name",)),
    "hostUsers": boolean("Use the host's user namespace."),
    "schedulingGates": list_of(obj(CORE + "PodSchedulingGate", {
        "name": string("Gate name."),
    }, required=("name",)), "Gates that block scheduling.", merge_key="name", strategy="merge"),
    "resourceClaims": list_of(obj(CORE + "PodResourceClaim", {
        "name": string("Name within the pod."),
        "resourceClaimName": string("An existing ResourceClaim."),
        "resourceClaimTemplateName": string("A ResourceClaimTemplate."),
    }, required=("name",)), "Dynamic resources.", merge_key="name",
        strategy="merge,retainKeys"),
    "resources": ref(RESOURCE_REQUIREMENTS, "Pod-level resources (PodLevelResources)."),
}, "The desired state of a pod.", required=("containers",))

POD_TEMPLATE_SPEC = obj(CORE + "PodTemplateSpec", {
    "metadata": ref(OBJECT_META, "Metadata of the pods created from the template."),
    "spec": ref(POD_SPEC, "Spec of the pods created from the template."),
}, "A template for pods.")

# ------------------------------------------------------------------- pod status

CONTAINER_STATE = obj(CORE + "ContainerState", {
    "waiting": obj(CORE + "ContainerStateWaiting", {
        "reason": string("Why the container is not yet running."),
        "message": string("Details."),
    }, "The container is waiting."),
    "running": obj(CORE + "ContainerStateRunning", {
        "startedAt": time("When the container (re)started."),
    }, "The container is running."),
    "terminated": obj(CORE + "ContainerStateTerminated", {
        "exitCode": int32("Exit status."),
        "signal": int32("Signal that terminated the container."),
        "reason": string("Brief reason."),
        "message": string("Details."),
        "startedAt": time("When the last execution started."),
        "finishedAt": time("When the last execution finished."),
        "containerID": string("ID of the container, <type>://<id>."),
    }, "The container has terminated.", required=("exitCode",)),
}, "Exactly one of waiting, running, terminated.")

CONTAINER_STATUS = obj(CORE + "ContainerStatus", {
    "name": string("Container name."),
    "state": ref(CONTAINER_STATE, "Current state."),
    "lastState": ref(CONTAINER_STATE, "Last termination."),
    "ready": boolean("Whether the readiness probe passes."),
    "restartCount": int32("Number of restarts."),
    "image": string("Image the container runs."),
    "imageID": string("Image ID."),
    "containerID": string("Container ID, <type>://<id>."),
    "started": boolean("Whether the startup probe passed."),
    "allocatedResources": resource_map("Resources allocated by the node."),
    "resources": ref(RESOURCE_REQUIREMENTS, "Resources actually configured."),
    "volumeMounts": list_of(obj(CORE + "VolumeMountStatus", {
        "name": string("Volume name."), "mountPath": string("Mount path."),
        "readOnly": boolean("Mounted read-only."),
        "recursiveReadOnly": string("Disabled or Enabled."),
    }, required=("name", "mountPath")), "Mounted volumes.", merge_key="mountPath",
        strategy="merge"),
    "user": obj(CORE + "ContainerUser", {
        "linux": obj(CORE + "LinuxContainerUser", {
            "uid": int64("UID of the first process."),
            "gid": int64("GID of the first process."),
            "supplementalGroups": list_of(int64(), "Supplemental groups."),
        }, required=("uid", "gid")),
    }, "Identity of the first process."),
    "allocatedResourcesStatus": list_of(obj(CORE + "ResourceStatus", {
        "name": string("Resource name."),
        "resources": list_of(obj(CORE + "ResourceHealth", {
            "resourceID": string("Resource ID."),
            "health": string("Healthy, Unhealthy or Unknown."),
        }, required=("resourceID",)), "Health per resource.", list_type="map",
            map_keys=("resourceID",)),
    }, required=("name",)), "Health of allocated resources.", list_type="map",
        map_keys=("name",)),
}, "Status of one container.", required=("name", "ready", "restartCount", "image", "imageID"))

POD_IP = obj(CORE + "PodIP", {"ip": string("The IP address.")}, required=("ip",))
HOST_IP = obj(CORE + "HostIP", {"ip": string("The IP address.")}, required=("ip",))

POD_CONDITION = obj(CORE + "PodCondition", {
    "type": string("PodScheduled, Initialized, ContainersReady, Ready, ..."),
    "status": string("True, False or Unknown."),
    "lastProbeTime": time("Last time the condition was probed."),
    "lastTransitionTime": time("Last time the status changed."),
    "reason": string("Machine-readable reason."),
    "message": string("Human-readable details."),
}, required=("type", "status"))

POD_STATUS = obj(CORE + "PodStatus", {
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
    "resourceClaimStatuses": list_of(obj(CORE + "PodResourceClaimStatus", {
        "name": string("Entry in spec.resourceClaims."),
        "resourceClaimName": string("Generated ResourceClaim."),
    }, required=("name",)), "Generated ResourceClaims.", merge_key="name",
        strategy="merge,retainKeys"),
}, "The observed state of a pod.")
