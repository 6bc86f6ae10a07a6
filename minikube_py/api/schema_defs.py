"""The field schema of every kind minikube-py serves, as Kubernetes v1.32 defines it.

Written from ``k8s.io/api/core/v1/types.go``, ``k8s.io/api/apps/v1/types.go``,
``k8s.io/api/batch/v1/types.go`` and ``k8s.io/api/scheduling/v1/types.go``:
field names, JSON types, integer widths, and the ``patchStrategy`` /
``patchMergeKey`` tags that strategic merge patch relies on. Volume sources we
never act on (nfs, csi, ...) are accepted as free-form objects so manifests that
use them still decode; everything we do act on is described field by field.

:data:`ROOTS` maps a kind to the schema of a whole object of that kind; each
kind's resource module takes its root from here (``List`` is read directly).
"""

from __future__ import annotations

from .schema_meta import (
    APPS,
    CORE,
    LABEL_SELECTOR,
    LIST_META,
    OBJECT_META,
    OBJECT_REFERENCE,
    TYPE_META,
    resource_map,
    string_list,
    string_map,
)
from .schema_model import (
    STRING,
    Schema,
    any_value,
    boolean,
    free_form,
    int32,
    int64,
    int_or_string,
    list_of,
    map_of,
    obj,
    ref,
    string,
    time,
)
from .schema_pod import POD_SPEC, POD_STATUS, POD_TEMPLATE_SPEC

# ------------------------------------------------------------------------ node

TAINT = obj(CORE + "Taint", {
    "key": string("Taint key."),
    "value": string("Taint value."),
    "effect": string("NoSchedule, PreferNoSchedule or NoExecute."),
    "timeAdded": time("When a NoExecute taint was added."),
}, required=("key", "effect"))

NODE_SPEC = obj(CORE + "NodeSpec", {
    "podCIDR": string("Pod IP range assigned to the node."),
    "podCIDRs": list_of(string(), "Pod IP ranges, one per family.", strategy="merge",
                        list_type="set"),
    "providerID": string("Cloud provider ID."),
    "unschedulable": boolean("Keep new pods off the node."),
    "taints": list_of(TAINT, "Taints of the node."),
    "configSource": free_form("Deprecated dynamic kubelet config."),
    "externalID": string("Deprecated."),
}, "The desired state of a node.")

NODE_CONDITION = obj(CORE + "NodeCondition", {
    "type": string("Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable."),
    "status": string("True, False or Unknown."),
    "lastHeartbeatTime": time("Last heartbeat."),
    "lastTransitionTime": time("Last status change."),
    "reason": string("Machine-readable reason."),
    "message": string("Human-readable details."),
}, required=("type", "status"))

NODE_STATUS = obj(CORE + "NodeStatus", {
    "capacity": resource_map("Total resources of the node."),
    "allocatable": resource_map("Resources available for pods."),
    "phase": string("Deprecated node phase."),
    "conditions": list_of(NODE_CONDITION, "Current conditions.", merge_key="type",
                          strategy="merge"),
    "addresses": list_of(obj(CORE + "NodeAddress", {
        "type": string("Hostname, InternalIP, ExternalIP, ..."),
        "address": string("The address."),
    }, required=("type", "address")), "Addresses of the node.", merge_key="type",
        strategy="merge"),
    "daemonEndpoints": obj(CORE + "NodeDaemonEndpoints", {
        "kubeletEndpoint": obj(CORE + "DaemonEndpoint", {
            "Port": int32("Port number."),
        }, "Kubelet endpoint.", required=("Port",)),
    }, "Endpoints of daemons on the node."),
    "nodeInfo": obj(CORE + "NodeSystemInfo", {
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
        "swap": obj(CORE + "NodeSwapStatus", {"capacity": int64("Swap bytes.")}),
    }, "Node system information."),
    "images": list_of(obj(CORE + "ContainerImage", {
        "names": string_list("Names of the image."),
        "sizeBytes": int64("Size of the image."),
    }), "Images on the node."),
    "volumesInUse": string_list("Volumes in use."),
    "volumesAttached": list_of(obj(CORE + "AttachedVolume", {
        "name": string("Volume name."), "devicePath": string("Device path."),
    }, required=("name", "devicePath")), "Attached volumes."),
    "config": free_form("Status of dynamic kubelet config."),
    "runtimeHandlers": list_of(obj(CORE + "NodeRuntimeHandler", {
        "name": string("Handler name."),
        "features": obj(CORE + "NodeRuntimeHandlerFeatures", {
            "recursiveReadOnlyMounts": boolean("Supports recursive read-only mounts."),
            "userNamespaces": boolean("Supports user namespaces."),
        }),
    }), "Runtime handlers."),
    "features": obj(CORE + "NodeFeatures", {
        "supplementalGroupsPolicy": boolean("Supports supplementalGroupsPolicy."),
    }, "Features the node supports."),
}, "The observed state of a node.")

# ------------------------------------------------------------------- namespace

NAMESPACE_SPEC = obj(CORE + "NamespaceSpec", {
    "finalizers": string_list("Must be empty before the namespace is removed."),
}, "The desired state of a namespace.")

NAMESPACE_STATUS = obj(CORE + "NamespaceStatus", {
    "phase": string("Active or Terminating."),
    "conditions": list_of(obj(CORE + "NamespaceCondition", {
        "type": string("Condition type."),
        "status": string("True, False or Unknown."),
        "lastTransitionTime": time("Last status change."),
        "reason": string("Machine-readable reason."),
        "message": string("Human-readable details."),
    }, required=("type", "status")), "Current conditions.", merge_key="type", strategy="merge"),
}, "The observed state of a namespace.")

# ----------------------------------------------------------------------- apps

DEPLOYMENT_STRATEGY = obj(APPS + "DeploymentStrategy", {
    "type": string("Recreate or RollingUpdate."),
    "rollingUpdate": obj(APPS + "RollingUpdateDeployment", {
        "maxUnavailable": int_or_string("Pods that may be unavailable during the update."),
        "maxSurge": int_or_string("Pods that may be created above the desired count."),
    }, "Rolling update parameters; only with type RollingUpdate."),
}, "How to replace existing pods with new ones.")

DEPLOYMENT_SPEC = obj(APPS + "DeploymentSpec", {
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

DEPLOYMENT_STATUS = obj(APPS + "DeploymentStatus", {
    "observedGeneration": int64("Generation observed by the controller."),
    "replicas": int32("Pods targeted by the deployment."),
    "updatedReplicas": int32("Pods with the desired template."),
    "readyReplicas": int32("Ready pods."),
    "availableReplicas": int32("Available pods."),
    "unavailableReplicas": int32("Unavailable pods."),
    "conditions": list_of(obj(APPS + "DeploymentCondition", {
        **_REPLICA_CONDITION_FIELDS,
        "lastUpdateTime": time("Last time the condition was updated."),
    }, required=("type", "status")), "Current conditions.", merge_key="type",
        strategy="merge"),
    "collisionCount": int32("Hash collision count."),
}, "The observed state of a deployment.")

REPLICA_SET_SPEC = obj(APPS + "ReplicaSetSpec", {
    "replicas": int32("Desired number of pods."),
    "minReadySeconds": int32("Seconds a pod must be ready to count as available."),
    "selector": ref(LABEL_SELECTOR, "Pods targeted by the ReplicaSet."),
    "template": ref(POD_TEMPLATE_SPEC, "Template of the pods."),
}, "The desired state of a ReplicaSet.", required=("selector",))

REPLICA_SET_STATUS = obj(APPS + "ReplicaSetStatus", {
    "replicas": int32("Observed number of pods."),
    "fullyLabeledReplicas": int32("Pods whose labels match the template."),
    "readyReplicas": int32("Ready pods."),
    "availableReplicas": int32("Available pods."),
    "observedGeneration": int64("Generation observed by the controller."),
    "conditions": list_of(obj(APPS + "ReplicaSetCondition", _REPLICA_CONDITION_FIELDS,
                              required=("type", "status")),
                          "Current conditions.", merge_key="type", strategy="merge"),
}, "The observed state of a ReplicaSet.", required=("replicas",))

# ------------------------------------------------------------------ scheduling

SCHEDULING = "io.k8s.api.scheduling.v1."

PRIORITY_CLASS_FIELDS: dict[str, Schema] = {
    "value": int32("The integer value of this priority class: the priority pods naming "
                   "this class receive."),
    "globalDefault": boolean("Whether this class is the default priority of pods that name "
                             "no class. Only one PriorityClass can be the global default."),
    "description": string("Guidelines on when this priority class should be used."),
    "preemptionPolicy": string("Never or PreemptLowerPriority (the default)."),
}

# ----------------------------------------------------------------------- batch

BATCH = "io.k8s.api.batch.v1."

POD_FAILURE_POLICY = obj(BATCH + "PodFailurePolicy", {
    "rules": list_of(obj(BATCH + "PodFailurePolicyRule", {
        "action": string("FailJob, FailIndex, Ignore or Count."),
        "onExitCodes": obj(BATCH + "PodFailurePolicyOnExitCodesRequirement", {
            "containerName": string("Restricts the check to this container."),
            "operator": string("In or NotIn."),
            "values": list_of(int32(), "Exit codes (ordered, no duplicates).", list_type="set"),
        }, "Requirement on the container exit codes.", required=("operator", "values")),
        "onPodConditions": list_of(obj(BATCH + "PodFailurePolicyOnPodConditionsPattern", {
            "type": string("Pod condition type."),
            "status": string("Pod condition status; defaults to True."),
        }, required=("type", "status")), "Patterns matched against the pod conditions."),
    }, required=("action",)), "Rules evaluated in order; the first match decides."),
}, "How failed pods influence the backoffLimit.", required=("rules",))

SUCCESS_POLICY = obj(BATCH + "SuccessPolicy", {
    "rules": list_of(obj(BATCH + "SuccessPolicyRule", {
        "succeededIndexes": string("Indexes that must succeed (e.g. 1,3-5)."),
        "succeededCount": int32("Minimal number of succeeded indexes."),
    }), "Rules; the first satisfied one declares the Job succeeded."),
}, "When an Indexed Job can be declared succeeded.", required=("rules",))

JOB_SPEC = obj(BATCH + "JobSpec", {
    "parallelism": int32("Maximum number of pods the job runs at any given time."),
    "completions": int32("Desired number of successfully finished pods."),
    "activeDeadlineSeconds": int64("Seconds the job may be continuously active before it "
                                   "is terminated."),
    "podFailurePolicy": ref(POD_FAILURE_POLICY, "How failed pods are handled."),
    "successPolicy": ref(SUCCESS_POLICY, "When the job is declared succeeded (Indexed)."),
    "backoffLimit": int32("Number of retries before marking the job failed; defaults to 6."),
    "backoffLimitPerIndex": int32("Retries per index before the index fails (Indexed)."),
    "maxFailedIndexes": int32("Failed indexes before the job fails (Indexed)."),
    "selector": ref(LABEL_SELECTOR, "Pods counted by the job; normally generated."),
    "manualSelector": boolean("When true, the user picks the labels and selector."),
    "template": ref(POD_TEMPLATE_SPEC, "Template of the pods; restartPolicy Never or "
                    "OnFailure."),
    "ttlSecondsAfterFinished": int32("Seconds after which a finished job is deleted."),
    "completionMode": string("NonIndexed (default) or Indexed."),
    "suspend": boolean("Whether the job controller should create pods."),
    "podReplacementPolicy": string("TerminatingOrFailed or Failed."),
    "managedBy": string("Controller that manages the job."),
}, "The desired behaviour of a job.", required=("template",))

JOB_STATUS = obj(BATCH + "JobStatus", {
    "conditions": list_of(obj(BATCH + "JobCondition", {
        "type": string("Suspended, Complete, Failed, FailureTarget or SuccessCriteriaMet."),
        "status": string("True, False or Unknown."),
        "lastProbeTime": time("Last time the condition was checked."),
        "lastTransitionTime": time("Last status change."),
        "reason": string("Machine-readable reason."),
        "message": string("Human-readable details."),
    }, required=("type", "status")), "Current conditions.", merge_key="type", strategy="merge",
        list_type="atomic"),
    "startTime": time("When the job controller acknowledged the job."),
    "completionTime": time("When the job completed."),
    "active": int32("Pending and running pods."),
    "succeeded": int32("Pods which reached phase Succeeded."),
    "failed": int32("Pods which reached phase Failed."),
    "terminating": int32("Pods which are terminating."),
    "completedIndexes": string("Completed indexes (Indexed), e.g. 1,3-5."),
    "failedIndexes": string("Failed indexes (backoffLimitPerIndex)."),
    "uncountedTerminatedPods": obj(BATCH + "UncountedTerminatedPods", {
        "succeeded": list_of(string(), "UIDs of succeeded pods not yet counted.",
                             list_type="set"),
        "failed": list_of(string(), "UIDs of failed pods not yet counted.", list_type="set"),
    }, "Finished pods the job controller has not yet counted."),
    "ready": int32("Active pods with a Ready condition."),
}, "The observed state of a job.")

# ---------------------------------------------------------------------- roots



def _root(name: str, description: str, fields: dict[str, Schema], *,
          required: tuple[str, ...] = ()) -> Schema:
    return obj(name, {**TYPE_META, "metadata": ref(OBJECT_META, "Standard object metadata."),
                      **fields}, description, required=required)


ROOTS: dict[str, Schema] = {
    "Pod": _root(CORE + "Pod", "A collection of containers run together on a host.", {
        "spec": ref(POD_SPEC), "status": ref(POD_STATUS)}),
    "Node": _root(CORE + "Node", "A worker node.", {
        "spec": ref(NODE_SPEC), "status": ref(NODE_STATUS)}),
    "Namespace": _root(CORE + "Namespace", "A scope for names.", {
        "spec": ref(NAMESPACE_SPEC), "status": ref(NAMESPACE_STATUS)}),
    "Event": _root(CORE + "Event", "A report of an event somewhere in the cluster.", {
        "involvedObject": ref(OBJECT_REFERENCE, "The object this event is about."),
        "reason": string("Machine-readable reason for the transition."),
        "message": string("Human-readable description."),
        "source": obj(CORE + "EventSource", {
            "component": string("Component reporting the event."),
            "host": string("Node the event was generated on."),
        }, "The component reporting the event."),
        "firstTimestamp": time("First time the event was recorded."),
        "lastTimestamp": time("Last time the event occurred."),
        "count": int32("Times the event occurred."),
        "type": string("Normal or Warning."),
        "eventTime": time("When the event was first observed (MicroTime)."),
        "series": obj(CORE + "EventSeries", {
            "count": int32("Occurrences in the series."),
            "lastObservedTime": time("Last occurrence (MicroTime)."),
        }, "Data about the series the event represents."),
        "action": string("What action was taken or failed."),
        "related": ref(OBJECT_REFERENCE, "Secondary object for more complex actions."),
        "reportingComponent": string("Controller that emitted the event."),
        "reportingInstance": string("ID of the controller instance."),
    }),
    "ConfigMap": _root(CORE + "ConfigMap", "Configuration data for pods to consume.", {
        "data": string_map("Configuration data: UTF-8 text by key."),
        "binaryData": map_of(Schema(STRING, "Base64 bytes.", fmt="byte"),
                             "Binary configuration data by key."),
        "immutable": boolean("When true, data and binaryData can no longer change."),
    }),
    "Deployment": _root(APPS + "Deployment", "Declarative updates for pods and ReplicaSets.", {
        "spec": ref(DEPLOYMENT_SPEC), "status": ref(DEPLOYMENT_STATUS)}),
    "ReplicaSet": _root(APPS + "ReplicaSet", "Keeps a number of pod replicas running.", {
        "spec": ref(REPLICA_SET_SPEC), "status": ref(REPLICA_SET_STATUS)}),
    "PriorityClass": _root(
        SCHEDULING + "PriorityClass",
        "Maps a priority class name to the integer priority value of pods.",
        PRIORITY_CLASS_FIELDS, required=("value",)),
    "Job": _root(BATCH + "Job", "A job: pods run until a number of them succeed.", {
        "spec": ref(JOB_SPEC), "status": ref(JOB_STATUS)}),
    "List": obj("io.k8s.apimachinery.pkg.apis.meta.v1.List", {
        **TYPE_META,
        "metadata": ref(LIST_META, "Standard list metadata."),
        "items": list_of(any_value(), "The objects of the list."),
    }, "A list of objects of any kind."),
}
