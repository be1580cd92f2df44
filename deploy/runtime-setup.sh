#!/bin/sh
# deploy/runtime-setup.sh PACKAGE_LIST: turns a Debian 12 root filesystem into framepipe's
# runtime image, less the binary and the pipeline files (copied in after): the packages of
# PACKAGE_LIST (deploy/runtime-packages.txt) and the unprivileged user. Runs as root inside
# that root filesystem, in deploy/Containerfile's runtime stage and in the test that builds
# the image's root filesystem without a container engine (tests/image), so both make the
# same image.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# One package a line, '#' starts a comment (the same reading everywhere the list is used).
sed 's/#.*//' "$1" | xargs apt-get install -y -qq --no-install-recommends >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/*
# uid/gid 10001: above any a distribution hands out, so a file in a volume written by the
# image never belongs to a user of the node; Kubernetes' runAsUser/fsGroup name the same.
# Its home is the volume: the only place (with /tmp) it can write when the root is read-only.
groupadd --gid 10001 framepipe
useradd --uid 10001 --gid 10001 --home-dir /var/lib/framepipe --no-create-home \
  --shell /usr/sbin/nologin framepipe
install -d -o 10001 -g 10001 -m 0750 /var/lib/framepipe
install -d -m 0755 /etc/framepipe/pipelines
