#!/bin/sh
# PID 1's child in a simulated rack host: make this host's SSH identity, let in
# only the laptop's key, and serve SSH on 127.0.0.1:$SSH_PORT (the host's
# network is shared, so each rack host has its own port). The daemons the lab
# needs (dockerd, libvirtd, virtlogd) are started by host_prep, as on a rack
# host where no service manager runs.
set -eu
: "${SSH_PORT:?the bed sets SSH_PORT}" "${AUTHORIZED_KEY:?the bed sets AUTHORIZED_KEY}"
ssh-keygen -A
install -d -m 0700 /root/.ssh
printf '%s\n' "$AUTHORIZED_KEY" > /root/.ssh/authorized_keys
chmod 0600 /root/.ssh/authorized_keys
install -d -m 0755 /run/sshd
exec /usr/sbin/sshd -D -e -p "$SSH_PORT" -o ListenAddress=127.0.0.1 \
  -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no \
  -o PermitRootLogin=prohibit-password
