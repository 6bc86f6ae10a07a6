#!/usr/bin/env bash
# Make sure the system packages minikube-py needs are present (idempotent).
#
# On Debian/Ubuntu as root, missing packages are installed with apt-get.
# Anywhere else we only say, clearly, what is missing and how to get it.
set -euo pipefail

# package -> a command (or file) proving it is installed
declare -A PROBE=(
  [podman]="podman"
  [runc]="runc"
  [busybox-static]="/bin/busybox"
  [catatonit]="catatonit"
  [python3-venv]="python3-venv-check"
  [kubernetes-client]="kubectl"
  [nftables]="/usr/sbin/nft"
  # Debian's official Kubernetes client, for the python-client image in-cluster tests run
  [python3-kubernetes]="/usr/lib/python3/dist-packages/kubernetes/__init__.py"
)

have() {
  case "$1" in
    /*) [ -e "$1" ] ;;
    python3-venv-check) python3 -c 'import venv, ensurepip' >/dev/null 2>&1 ;;
    catatonit) command -v catatonit >/dev/null 2>&1 || [ -x /usr/libexec/podman/catatonit ] || [ -x /usr/bin/catatonit ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing=()
for pkg in "${!PROBE[@]}"; do
  have "${PROBE[$pkg]}" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

# MINIKUBE_PY_NO_INSTALL=1 only reports (used by the tests, and for cautious admins).
if [ -z "${MINIKUBE_PY_NO_INSTALL:-}" ] && [ -r /etc/debian_version ] \
    && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "minikube-py: installing system packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  for pkg in "${missing[@]}"; do
    if ! have "${PROBE[$pkg]}"; then
      echo "minikube-py: installed $pkg but ${PROBE[$pkg]} is still missing" >&2
      exit 1
    fi
  done
  exit 0
fi

echo "minikube-py needs these system packages, which are missing: ${missing[*]}" >&2
if [ -r /etc/debian_version ] && [ "$(id -u)" != 0 ]; then
  echo "Install them as root with:  sudo apt-get install ${missing[*]}" >&2
elif [ -r /etc/debian_version ]; then
  echo "Install them as root with:  apt-get install ${missing[*]}" >&2
else
  echo "Install them with your distribution's package manager (names may differ)." >&2
fi
exit 1
