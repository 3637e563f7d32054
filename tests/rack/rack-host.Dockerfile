# A simulated rack host for the rack test bed (tests/rack/bed.py): the lab's own
# root filesystem plus the packages host_prep puts on a metal host (the bed
# passes host_prep_packages in, so the two lists cannot drift), and sshd in
# front. The bed runs it with the host's network, sshd on its own loopback port.
ARG BASE_IMAGE=vmparity-base:current
FROM ${BASE_IMAGE}

ARG PACKAGES
RUN apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${PACKAGES} \
 && rm -rf /var/lib/apt/lists/*

COPY rack-host-entrypoint.sh /usr/local/sbin/rack-host-entrypoint
ENTRYPOINT ["/usr/local/sbin/rack-host-entrypoint"]
