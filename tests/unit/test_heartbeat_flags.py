"""The node heartbeat flags shared by ``daemon`` and ``tui``
(controlplane/arguments.py): each reaches the control plane's Options, and a
bad value or a combination that would take every node NotReady is refused
with a message naming the flag, before any state is touched."""

from __future__ import annotations

import pytest

from minikube_py.cli.main import build_parser
from minikube_py.controlplane import Options
from minikube_py.controlplane.arguments import options_from_args


def options(*flags: str) -> Options:
    return options_from_args(build_parser().parse_args(["daemon", *flags]))


def test_the_defaults_are_kubernetes_defaults():
    opts = options()
    # kubelet: nodeLeaseDurationSeconds 40 (a renewal every 10 s),
    # nodeStatusUpdateFrequency 10 s; kube-controller-manager: node-monitor-period
    # 5 s, node-monitor-grace-period 50 s.
    assert (opts.lease_duration, opts.lease_renew_interval, opts.heartbeat_interval,
            opts.node_monitor_period, opts.node_grace_period) == (40, None, 10.0, 5.0, 50.0)


@pytest.mark.parametrize(("flags", "expected"), [
    # KWOK's kwokctl defaults for its fake nodes.
    (["--node-lease-duration-seconds", "1200", "--node-status-update-frequency", "1200",
      "--node-monitor-period", "600", "--node-monitor-grace-period", "3600"],
     (1200, 1200.0, 600.0, 3600.0)),
    (["--node-lease-duration-seconds", "120", "--node-monitor-grace-period", "31"],
     (120, 10.0, 5.0, 31.0)),
    (["--node-status-update-frequency", "2.5", "--node-monitor-period", "0.5"],
     (40, 2.5, 0.5, 50.0)),
])
def test_the_flags_reach_the_options(flags: list[str], expected: tuple[object, ...]):
    opts = options(*flags)
    assert (opts.lease_duration, opts.heartbeat_interval, opts.node_monitor_period,
            opts.node_grace_period) == expected


@pytest.mark.parametrize(("flags", "message"), [
    (["--node-lease-duration-seconds", "0"], "--node-lease-duration-seconds 0: must be 1 or more"),
    (["--node-lease-duration-seconds", "-5"], "--node-lease-duration-seconds -5: must be 1"),
    (["--node-status-update-frequency", "0"],
     "--node-status-update-frequency 0: must be more than 0 seconds"),
    (["--node-monitor-period", "-1"], "--node-monitor-period -1: must be more than 0 seconds"),
    # A renewal every 300 s against the default 50 s grace: never Ready for long.
    (["--node-lease-duration-seconds", "1200"],
     "--node-monitor-grace-period 50: each node renews its lease every 300 s (a quarter of "
     "--node-lease-duration-seconds 1200), so every node would turn NotReady between two "
     "renewals; give a grace period longer than 300 s"),
    # Equal is not enough: the lease would be stale at every monitor pass before renewal.
    (["--node-lease-duration-seconds", "200", "--node-monitor-grace-period", "50"],
     "--node-monitor-grace-period 50: each node renews its lease every 50 s"),
])
def test_bad_heartbeat_flags_are_refused_by_name(flags: list[str], message: str):
    with pytest.raises(ValueError) as err:
        options(*flags)
    assert message in str(err.value)


def test_the_lease_duration_must_be_whole_seconds():
    # leaseDurationSeconds is an int32 in the API: argparse refuses a fraction.
    with pytest.raises(SystemExit):
        build_parser().parse_args(["daemon", "--node-lease-duration-seconds", "1.5"])
