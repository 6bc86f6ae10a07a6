// The type declarations of k8s.io/api autoscaling/v2/types.go at v0.32.9
// (commit 9d55c1c7b6618f73d5c58e434f421b1a5f0b12a1), doc comments left out, `// +marker` lines kept;
// written by tools/gen_schemas.py sync.
// Copyright The Kubernetes Authors. Licensed under the Apache License, Version 2.0.

// +k8s:openapi-gen=true

package v2

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.23

type HorizontalPodAutoscaler struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// +optional
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// +optional
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type HorizontalPodAutoscalerSpec struct {
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`

	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`

	// +listType=atomic
	// +optional
	Metrics []MetricSpec `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`

	// +optional
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

type CrossVersionObjectReference struct {
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`

	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`

	// +optional
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
}

type MetricSpec struct {
	Type MetricSourceType `json:"type" protobuf:"bytes,1,name=type"`

	// +optional
	Object *ObjectMetricSource `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`

	// +optional
	Pods *PodsMetricSource `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`

	// +optional
	Resource *ResourceMetricSource `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`

	// +optional
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`

	// +optional
	External *ExternalMetricSource `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

type HorizontalPodAutoscalerBehavior struct {
	// +optional
	ScaleUp *HPAScalingRules `json:"scaleUp,omitempty" protobuf:"bytes,1,opt,name=scaleUp"`

	// +optional
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty" protobuf:"bytes,2,opt,name=scaleDown"`
}

type ScalingPolicySelect string

const (
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	MinChangePolicySelect ScalingPolicySelect = "Min"
	DisabledPolicySelect ScalingPolicySelect = "Disabled"
)

type HPAScalingRules struct {
	// +optional
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty" protobuf:"varint,3,opt,name=stabilizationWindowSeconds"`

	// +optional
	SelectPolicy *ScalingPolicySelect `json:"selectPolicy,omitempty" protobuf:"bytes,1,opt,name=selectPolicy"`

	// +listType=atomic
	// +optional
	Policies []HPAScalingPolicy `json:"policies,omitempty" listType:"atomic" protobuf:"bytes,2,rep,name=policies"`
}

type HPAScalingPolicyType string

const (
	PodsScalingPolicy HPAScalingPolicyType = "Pods"
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

type HPAScalingPolicy struct {
	Type HPAScalingPolicyType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=HPAScalingPolicyType"`

	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`

	PeriodSeconds int32 `json:"periodSeconds" protobuf:"varint,3,opt,name=periodSeconds"`
}

type MetricSourceType string

const (
	ObjectMetricSourceType MetricSourceType = "Object"
	PodsMetricSourceType MetricSourceType = "Pods"
	ResourceMetricSourceType MetricSourceType = "Resource"
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
	ExternalMetricSourceType MetricSourceType = "External"
)

type ObjectMetricSource struct {
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,1,name=describedObject"`

	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`

	Metric MetricIdentifier `json:"metric" protobuf:"bytes,3,name=metric"`
}

type PodsMetricSource struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`

	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

type ResourceMetricSource struct {
	Name v1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`

	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

type ContainerResourceMetricSource struct {
	Name v1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`

	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`

	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

type ExternalMetricSource struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`

	Target MetricTarget `json:"target" protobuf:"bytes,2,name=target"`
}

type MetricIdentifier struct {
	Name string `json:"name" protobuf:"bytes,1,name=name"`

	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,2,name=selector"`
}

type MetricTarget struct {
	Type MetricTargetType `json:"type" protobuf:"bytes,1,name=type"`

	// +optional
	Value *resource.Quantity `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`

	// +optional
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`

	// +optional
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"bytes,4,opt,name=averageUtilization"`
}

type MetricTargetType string

const (
	UtilizationMetricType MetricTargetType = "Utilization"
	ValueMetricType MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

type HorizontalPodAutoscalerStatus struct {
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`

	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`

	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,3,opt,name=currentReplicas"`

	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`

	// +listType=atomic
	// +optional
	CurrentMetrics []MetricStatus `json:"currentMetrics" protobuf:"bytes,5,rep,name=currentMetrics"`

	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" listType:"map" protobuf:"bytes,6,rep,name=conditions"`
}

type HorizontalPodAutoscalerConditionType string

const (
	ScalingActive HorizontalPodAutoscalerConditionType = "ScalingActive"
	AbleToScale HorizontalPodAutoscalerConditionType = "AbleToScale"
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

type HorizontalPodAutoscalerCondition struct {
	Type HorizontalPodAutoscalerConditionType `json:"type" protobuf:"bytes,1,name=type"`

	Status v1.ConditionStatus `json:"status" protobuf:"bytes,2,name=status"`

	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`

	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`

	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

type MetricStatus struct {
	Type MetricSourceType `json:"type" protobuf:"bytes,1,name=type"`

	// +optional
	Object *ObjectMetricStatus `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`

	// +optional
	Pods *PodsMetricStatus `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`

	// +optional
	Resource *ResourceMetricStatus `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`

	// +optional
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`

	// +optional
	External *ExternalMetricStatus `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

type ObjectMetricStatus struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`

	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`

	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,3,name=describedObject"`
}

type PodsMetricStatus struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`

	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

type ResourceMetricStatus struct {
	Name v1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`

	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

type ContainerResourceMetricStatus struct {
	Name v1.ResourceName `json:"name" protobuf:"bytes,1,name=name"`

	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`

	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

type ExternalMetricStatus struct {
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,name=metric"`

	Current MetricValueStatus `json:"current" protobuf:"bytes,2,name=current"`
}

type MetricValueStatus struct {
	// +optional
	Value *resource.Quantity `json:"value,omitempty" protobuf:"bytes,1,opt,name=value"`

	// +optional
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,2,opt,name=averageValue"`

	// +optional
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"bytes,3,opt,name=averageUtilization"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.23

type HorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Items []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
}
