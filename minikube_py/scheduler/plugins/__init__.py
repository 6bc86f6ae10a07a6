"""kube-scheduler's in-tree plugins of the default profile, one module each.

:func:`in_tree_registry` maps plugin names to factories
``(args, handle) -> plugin``; the framework builds a profile's plugins from it.
"""

from __future__ import annotations

from ..framework import Factory
from .balancedallocation import BalancedAllocation
from .defaultpreemption import DefaultPreemption
from .fit import Fit
from .imagelocality import ImageLocality
from .interpodaffinity import InterPodAffinity
from .nodeaffinity import NodeAffinity
from .nodename import NodeName
from .nodeports import NodePorts
from .nodeunschedulable import NodeUnschedulable
from .podtopologyspread import PodTopologySpread
from .tainttoleration import TaintToleration

__all__ = [
    "BalancedAllocation", "DefaultPreemption", "Fit", "ImageLocality", "InterPodAffinity",
    "NodeAffinity", "NodeName", "NodePorts", "NodeUnschedulable", "PodTopologySpread",
    "TaintToleration", "in_tree_registry",
]


def in_tree_registry() -> dict[str, Factory]:
    return {
        "NodeUnschedulable": NodeUnschedulable,
        "NodeName": NodeName,
        "TaintToleration": TaintToleration,
        "NodeAffinity": NodeAffinity,
        "NodePorts": NodePorts,
        "NodeResourcesFit": Fit,
        "PodTopologySpread": PodTopologySpread,
        "InterPodAffinity": InterPodAffinity,
        "NodeResourcesBalancedAllocation": BalancedAllocation,
        "ImageLocality": ImageLocality,
        "DefaultPreemption": DefaultPreemption,
    }
